#!/usr/bin/env bash
# The library's machine code: the .text bytes of libqwino.a from Release builds for x86-64 (the
# host) and aarch64 (cross-built), against the budgets of the structure work (doc/PERFORMANCE.md,
# "Code size"), and the largest objects of each.
#   bash scripts/code-size.sh [--top N] [--update-doc]
#       --top N       the N largest objects of each (default 8)
#       --update-doc  also writes the report into doc/PERFORMANCE.md between its CODE-SIZE markers
# Build trees: $QWINO_BUILD_ROOT/native-release and aarch64-release (default build/).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${QWINO_BUILD_ROOT:-$repo/build}"
top=8 update_doc=0
while [ $# -gt 0 ]; do
  case "$1" in
    --top) top="$2"; shift 2 ;;
    --update-doc) update_doc=1; shift ;;
    *) echo "usage: scripts/code-size.sh [--top N] [--update-doc]" >&2; exit 2 ;;
  esac
done
bash "$repo/scripts/install-deps.sh" aarch64 >&2
sysroot="$build_root/aarch64-sysroot"
bash "$repo/cmake/aarch64-sysroot.sh" "$sysroot" >&2

# report NAME TREE BUDGET_KB: the .text total of the tree's libqwino.a and its largest objects.
report() {
  local name="$1" dir="$2" budget="$3" total
  total="$(size -t "$dir/libqwino.a" | awk '/\(TOTALS\)/ {print $1}')"
  printf '%-8s .text %7d bytes (%d KB), budget %d KB\n' "$name" "$total" $((total / 1000)) "$budget"
  size "$dir/libqwino.a" | awk 'NR > 1 {print $1, $6}' | sort -n -r | head -n "$top" |
    awk '{printf "           %7d  %s\n", $1, $2}'
}
cmake -S "$repo" -B "$build_root/native-release" -DCMAKE_BUILD_TYPE=Release -DQWINO_BUILD_TESTS=OFF \
  -DQWINO_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build_root/native-release" -j "$(nproc)" --target qwino >/dev/null
cmake -S "$repo" -B "$build_root/aarch64-release" -DCMAKE_BUILD_TYPE=Release -DQWINO_BUILD_TESTS=OFF \
  -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/aarch64-linux-gnu.cmake" -DQWINO_AARCH64_SYSROOT="$sysroot" >/dev/null
cmake --build "$build_root/aarch64-release" -j "$(nproc)" --target qwino >/dev/null
text="$(report "$(uname -m)" "$build_root/native-release" 500; report aarch64 "$build_root/aarch64-release" 450)"
echo "$text"
if [ "$update_doc" = 1 ]; then
  doc="$repo/doc/PERFORMANCE.md"
  begin="<!-- CODE-SIZE BEGIN (scripts/code-size.sh --update-doc) -->" end="<!-- CODE-SIZE END -->"
  grep -qF "$begin" "$doc" || { echo "code-size.sh: no CODE-SIZE markers in $doc" >&2; exit 1; }
  block="$(printf '%s\n```\n%s\n```\n%s' "$begin" "$text" "$end")"
  BLOCK="$block" awk -v begin="$begin" -v end="$end" '
    $0 == begin { print ENVIRON["BLOCK"]; skipping = 1; next }
    $0 == end { skipping = 0; next }
    !skipping { print }' "$doc" > "$doc.new" && mv "$doc.new" "$doc"
fi
