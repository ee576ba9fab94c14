#!/bin/sh
# The emulator ctest, gtest_discover_tests and try_run start aarch64 programs with
# (cmake/aarch64-linux-gnu.cmake):
#   qemu-aarch64-run.sh QEMU SYSROOT cpu=CPU PROGRAM [ARGS...]
# QWINO_QEMU_CPU in the environment, when set, replaces the configured CPU, so one build's tests
# run as another core (scripts/test.sh runs a Neoverse N1 pass so); an empty CPU leaves qemu's
# default ("max"). (cpu= keeps an empty CPU one argument: CMake drops empty list elements.)
qemu="$1" sysroot="$2" cpu="${QWINO_QEMU_CPU:-${3#cpu=}}"
shift 3
if [ -n "$cpu" ]; then
  exec "$qemu" -cpu "$cpu" -L "$sysroot" "$@"
fi
exec "$qemu" -L "$sysroot" "$@"
