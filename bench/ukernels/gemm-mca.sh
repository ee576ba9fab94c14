#!/usr/bin/env bash
# llvm-mca throughput of the k loop of the NEON 8x8 GEMM micro-kernel on Cortex-A72.
#
# Why: on A72 every SMLAL issues on pipe F0 only, one per cycle, so the kernel's speed is decided
# by how close its k loop gets to 16 cycles per k (4 MACs/cycle, doc/DESIGN.md section 6). This
# compiles the kernel exactly as a cross build would, cuts the loop out of the assembly (it starts
# at the LLVM-MCA-BEGIN comment the kernel emits and ends at the loop's conditional branch), and
# reports cycles per iteration and MACs per cycle (4 MACs per SMLAL/SMLAL2 on 4 int32 lanes).
#
# Usage: bench/ukernels/gemm-mca.sh [extra compiler flags, e.g. -O3]
#   env CC      (default aarch64-linux-gnu-gcc), MCA (default llvm-mca-14, else llvm-mca),
#   env SOURCE  (default src/s16-gemm/s16-gemm-8x8-neon-mlal-lane.c; a .S file is preprocessed, not compiled),
#   env ROWS    (default 8): which body's loop, the one marked "LLVM-MCA-BEGIN
#               qwino_gemm_${ROWS}x8_kloop" (the NEON kernel has 8, 4, 2 and 1 rows);
#               a source with one unnamed marker is used as it is,
#   env MCPU    (default cortex-a72), VERBOSE=1 prints the extracted loop and llvm-mca's report.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cc="${CC:-aarch64-linux-gnu-gcc}"
mca="${MCA:-$(command -v llvm-mca-14 || command -v llvm-mca || true)}"
source_file="${SOURCE:-$repo/src/s16-gemm/s16-gemm-8x8-neon-mlal-lane.c}"
mcpu="${MCPU:-cortex-a72}"
rows="${ROWS:-8}"
[ -n "$mca" ] || { echo "gemm-mca: llvm-mca not found (apt install llvm)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
flags=(-O2 "$@")
case "$source_file" in
  *.S) "$cc" -E -I"$repo/src" "$source_file" -o "$work/kernel.s" ;;
  *) "$cc" "${flags[@]}" -I"$repo/src" -S "$source_file" -o "$work/kernel.s" ;;
esac

# From the marker to the loop's (conditional) back branch; labels, directives, comments dropped.
marker="LLVM-MCA-BEGIN qwino_gemm_${rows}x8_kloop"
grep -q "$marker" "$work/kernel.s" || marker="LLVM-MCA-BEGIN"
awk -v marker="$marker" '
  index($0, marker) { inside = 1; next }
  !inside { next }
  /^[ \t]*(#|\/\/|\.)/ || /^[.A-Za-z0-9_$]+:/ || /^[ \t]*$/ { next }
  { print }
  /^[ \t]*(b\.[a-z]+|b(eq|ne|hi|hs|lo|ls|gt|ge|lt|le|cs|cc|mi|pl)|cbn?z|tbn?z)[ \t]/ { exit }
' "$work/kernel.s" > "$work/loop.s"
[ -s "$work/loop.s" ] || { echo "gemm-mca: no $marker loop found in $source_file" >&2; exit 1; }

multiplies=$(grep -cE '^[[:space:]]*smlal2?[[:space:]]' "$work/loop.s" || true)
spills=$(grep -cE '\[sp' "$work/loop.s" || true)
instructions=$(wc -l < "$work/loop.s")
iterations=1000
"$mca" -mtriple=aarch64 -mcpu="$mcpu" -iterations=$iterations "$work/loop.s" > "$work/mca.txt"
cycles=$(awk '/^Total Cycles:/ { print $3 }' "$work/mca.txt")
if [ "${VERBOSE:-0}" = 1 ]; then
  cat "$work/loop.s"
  "$mca" -mtriple=aarch64 -mcpu="$mcpu" -iterations=$iterations -timeline=false "$work/loop.s"
fi
awk -v n="$instructions" -v m="$multiplies" -v s="$spills" -v c="$cycles" -v i="$iterations" \
    -v cpu="$mcpu" -v flags="${flags[*]}" -v r="$rows" 'BEGIN {
  per = c / i
  printf "%sx8 k loop (%s, %s): %d instructions, %d SMLAL/SMLAL2 (%d k x %d MACs), %d stack accesses\n",
         r, cpu, flags, n, m, m / (2 * r), 8 * r, s
  printf "llvm-mca: %.2f cycles/iteration (%d iterations), %.3f MACs/cycle (ceiling 4.000)\n",
         per, i, m * 4 / per
}'
