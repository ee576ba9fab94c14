#!/usr/bin/env bash
# The test command: installs what is missing, builds and runs the whole googletest suite in each
# configuration, and stops at the first failure.
#   native   x86-64 (or whatever the host is), Release
#   asan     native, AddressSanitizer + UndefinedBehaviorSanitizer
#   aarch64  cross-built with cmake/aarch64-linux-gnu.cmake, run under qemu-aarch64 (NEON kernels)
# usage: scripts/test.sh [native] [asan] [aarch64]      (default: all of them)
# Build trees go to build/<configuration> (override the root with QWINO_BUILD_ROOT).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${QWINO_BUILD_ROOT:-$repo/build}"
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(native asan aarch64)
jobs="$(nproc)"

groups=()
for c in "${configs[@]}"; do [ "$c" = aarch64 ] && groups+=(aarch64); done
bash "$repo/scripts/install-deps.sh" "${groups[@]}"

run_config() {
  local name="$1"; shift
  local dir="$build_root/$name"
  echo "=== $name: configure and build ($dir)"
  cmake -S "$repo" -B "$dir" -DQWINO_BUILD_BENCHMARKS=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  echo "=== $name: test"
  (cd "$dir" && ctest --output-on-failure -j "$jobs")
}

# Installs the native build into a scratch prefix and builds test/consumer against it, the way an
# application would use qwino: find_package(qwino) + qwino::qwino.
check_install() {
  local prefix="$build_root/native-install"
  rm -rf "$prefix" "$build_root/consumer"
  cmake --install "$build_root/native" --prefix "$prefix" >/dev/null
  cmake -S "$repo/test/consumer" -B "$build_root/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$build_root/consumer" >/dev/null
  "$build_root/consumer/consumer"
}

for c in "${configs[@]}"; do
  case "$c" in
    native) run_config native -DCMAKE_BUILD_TYPE=Release && check_install ;;
    asan) UBSAN_OPTIONS=print_stacktrace=1 run_config asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DQWINO_SANITIZE=address,undefined ;;
    aarch64)
      sysroot="$build_root/aarch64-sysroot"
      bash "$repo/cmake/aarch64-sysroot.sh" "$sysroot"
      run_config aarch64 -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/aarch64-linux-gnu.cmake" \
        -DQWINO_AARCH64_SYSROOT="$sysroot" ;;
    *) echo "test.sh: unknown configuration '$c' (native asan aarch64)" >&2; exit 2 ;;
  esac
done
echo "=== all configurations passed: ${configs[*]}"
