#!/usr/bin/env bash
# Installs the Debian packages qwino needs, only those missing, so a fresh Debian 12 machine can
# build and test from a clean clone. Groups:
#   native   compiler, CMake, cpuinfo, pthreadpool, googletest, google-benchmark (always)
#   aarch64  cross compiler and qemu-user (the arm64 libraries go into a sysroot, not the host)
#   peers    XNNPACK, gemmlowp and oneDNN, the libraries the benchmark suite compares against
#   mca      llvm-mca, for the Cortex-A72 model of kernel loops
#   fuzz     clang and its runtime libraries (libFuzzer, sanitizers) for the fuzz target
#   format   clang-format, for scripts/format.sh (the native configuration checks the tree)
#   onnxruntime  npm (ONNX Runtime and the model come from the npm registry:
#            scripts/fetch-onnxruntime.sh), python3-onnx and numpy for the model tools
# usage: scripts/install-deps.sh [aarch64] [peers] [mca] [fuzz] [format] [onnxruntime]
set -euo pipefail
packages=(cmake make g++ libcpuinfo-dev libpthreadpool-dev libgtest-dev libbenchmark-dev)
for group in "$@"; do
  case "$group" in
    native) ;;
    aarch64) packages+=(g++-aarch64-linux-gnu qemu-user) ;;
    peers) packages+=(libxnnpack-dev libgemmlowp-dev libdnnl-dev) ;;
    mca) packages+=(llvm) ;;
    fuzz) packages+=(clang libclang-rt-dev) ;;
    format) packages+=(clang-format) ;;
    onnxruntime) packages+=(python3-onnx python3-numpy)
                 command -v npm >/dev/null || packages+=(npm) ;;
    *) echo "install-deps.sh: unknown group '$group' (native aarch64 peers mca fuzz format onnxruntime)" >&2
       exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps.sh: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
