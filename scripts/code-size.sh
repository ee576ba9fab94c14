#!/usr/bin/env bash
# The library's machine code: the .text bytes of libqwino.a from Release builds for x86-64 (the
# host) and aarch64 (cross-built), against the budgets of the structure work (doc/PERFORMANCE.md,
# "Code size"), and the largest objects of each.
#   bash scripts/code-size.sh [--top N]      (default: the 8 largest objects)
# Build trees: $QWINO_BUILD_ROOT/native-release and aarch64-release (default build/).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${QWINO_BUILD_ROOT:-$repo/build}"
top=8
[ "${1:-}" = --top ] && top="$2"
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
report "$(uname -m)" "$build_root/native-release" 500
report aarch64 "$build_root/aarch64-release" 450
