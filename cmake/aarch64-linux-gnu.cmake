# CMake toolchain file: aarch64 Linux with Debian's cross gcc (g++-aarch64-linux-gnu), libraries
# from the arm64 sysroot made by cmake/aarch64-sysroot.sh, target binaries run by qemu-aarch64
# (so ctest and gtest_discover_tests work unchanged).
#
#   cmake/aarch64-sysroot.sh
#   cmake -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#
# Sysroot: -DQWINO_AARCH64_SYSROOT=..., else env QWINO_AARCH64_SYSROOT, else <repo>/build/aarch64-sysroot.
# qemu: -DQWINO_QEMU_AARCH64=<binary> (default qemu-aarch64), -DQWINO_QEMU_CPU=<model> (default:
# qemu's own default, "max"; e.g. cortex-a72 for the reference core's feature set).
#
# One glibc: at RUN time every arm64 library (ld.so, libc, libstdc++, libgcc_s, cpuinfo,
# pthreadpool, benchmark) comes from the sysroot through `qemu-aarch64 -L SYSROOT`, i.e. from
# one Debian glibc build. ld.so and libc.so.6 from different builds (e.g. the cross toolchain's
# 2.36-8cross1 loader with the sysroot's 2.36-9+deb12uN libc) hang in pthread_create.
# At LINK time the cross toolchain's own glibc, libstdc++ and crt files are used, not the
# sysroot's: same upstream versions (glibc 2.36, GCC 12.2), so every symbol version a binary
# asks for exists at run time, and the toolchain stays self-consistent (its headers match its
# crt files and libc_nonshared.a). No --sysroot (CMAKE_SYSROOT) on purpose: it would need
# libc6-dev:arm64 & co. in the sysroot, yet gcc searches its own /usr/aarch64-linux-gnu/lib
# before any sysroot dir, so it would link against the toolchain's libc all the same.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(DEFINED ENV{QWINO_AARCH64_SYSROOT} AND NOT "$ENV{QWINO_AARCH64_SYSROOT}" STREQUAL "")
  set(_qwino_sysroot_default "$ENV{QWINO_AARCH64_SYSROOT}")
else()
  set(_qwino_sysroot_default "${CMAKE_CURRENT_LIST_DIR}/../build/aarch64-sysroot")
endif()
set(QWINO_AARCH64_SYSROOT "${_qwino_sysroot_default}" CACHE PATH "arm64 sysroot (cmake/aarch64-sysroot.sh)")
set(QWINO_QEMU_AARCH64 "qemu-aarch64" CACHE STRING "qemu user-mode emulator for aarch64")
set(QWINO_QEMU_CPU "" CACHE STRING "qemu -cpu model for running tests (empty: qemu default)")
# try_compile() projects re-read this file but do not see the cache: hand the values over.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES QWINO_AARCH64_SYSROOT QWINO_QEMU_AARCH64 QWINO_QEMU_CPU)
# (-D values are made absolute by CMake; a relative env value would break in try_compile dirs.)
if(NOT IS_ABSOLUTE "${QWINO_AARCH64_SYSROOT}")
  message(FATAL_ERROR "QWINO_AARCH64_SYSROOT must be an absolute path: ${QWINO_AARCH64_SYSROOT}")
endif()
get_filename_component(_qwino_sysroot "${QWINO_AARCH64_SYSROOT}" ABSOLUTE)  # normalizes ..
if(NOT EXISTS "${_qwino_sysroot}/.qwino-aarch64-sysroot")
  message(FATAL_ERROR "No arm64 sysroot at ${_qwino_sysroot}. Create it with:\n"
    "  ${CMAKE_CURRENT_LIST_DIR}/aarch64-sysroot.sh ${_qwino_sysroot}")
endif()

# find_*(): libraries, headers and package configs only from the sysroot; programs from the host.
set(CMAKE_FIND_ROOT_PATH "${_qwino_sysroot}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config (if a project uses it) must read the sysroot's arm64 .pc files, not the host's.
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${_qwino_sysroot}")
set(ENV{PKG_CONFIG_LIBDIR} "${_qwino_sysroot}/usr/lib/aarch64-linux-gnu/pkgconfig:${_qwino_sysroot}/usr/share/pkgconfig")
# Debian multiarch: find_library/find_package then look in usr/lib/aarch64-linux-gnu (and its
# cmake/ dir, whose GTest and benchmark configs name aarch64 paths relative to themselves).
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# The linker resolves the DT_NEEDED entries of sysroot libraries (e.g. libpthreadpool.so ->
# libpthread.so.0) via -rpath-link; libc/libstdc++ are already loaded from the toolchain by then.
set(_qwino_libdir "${_qwino_sysroot}/usr/lib/aarch64-linux-gnu")
foreach(_kind EXE SHARED MODULE)
  set(CMAKE_${_kind}_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_qwino_libdir}")
endforeach()
# That dir is /usr/lib/aarch64-linux-gnu on the target, a default loader path: declaring it
# implicit keeps CMake from baking this machine's sysroot path into binaries as RUNPATH.
list(APPEND CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES "${_qwino_libdir}")

# ctest / gtest_discover_tests / try_run launch target binaries through this (the environment's
# QWINO_QEMU_CPU, when set, replaces the configured CPU at run time: see the script).
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/qemu-aarch64-run.sh"
    "${QWINO_QEMU_AARCH64}" "${_qwino_sysroot}" "cpu=${QWINO_QEMU_CPU}")
