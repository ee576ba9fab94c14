#!/usr/bin/env bash
# The main job: installs what is missing (the peer libraries included), builds qwino in Release
# and runs qwino-compare on every convolution of the networks in bench/networks/ (ResNet-18,
# ResNet-50, VGG-16, MobileNetV1, MobileNetV2, EfficientNet-Lite0) through qwino (uint8 and
# int8), TFLite's im2col + gemmlowp, XNNPACK (qu8 and qs8) and oneDNN int8 on the same bytes,
# cross-checked. Prints the total convolution time per network and per layer type with qwino's
# speedup over each peer, and writes per-layer CSV, the summaries (text, CSV) and SVG charts to
# build/results/ (about 5 minutes on one core; progress on stderr).
#
#   bash scripts/main-job.sh [--isa avx2|avxvnni|avx512|amx] [--quick] [qwino-compare options]
# --isa caps qwino (QWINO_ISA) and oneDNN (ONEDNN_MAX_CPU_ISA: AVX2, AVX2_VNNI, AVX512_CORE_VNNI,
# AVX512_CORE_AMX)
# to the same instructions, e.g. an AVX2-only or AVX-VNNI client CPU on a bigger x86 (first
# argument; bench/x86-isa-levels.py runs every level and writes the table of doc/PERFORMANCE.md).
# --quick runs the four-layer ResNet-18 table instead (seconds); --layers all the single-layer
# suite. Other options go to qwino-compare (--networks NAME,..., -n REPEATS, --seconds S,
# --statistic best|median, -t THREADS, --contenders NAME,..., --per-layer, -o DIR). Exit status
# nonzero if any cross-check fails. Environment: QWINO_BUILD_ROOT (default build/),
# QWINO_BUILD_JOBS (default the number of CPUs).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${QWINO_BUILD_ROOT:-$repo/build}"
dir="$root/release"
if [ "${1:-}" = --isa ]; then
  case "${2:-}" in
    avx2) export QWINO_ISA=avx2 ONEDNN_MAX_CPU_ISA=AVX2 ;;
    avxvnni) export QWINO_ISA=avxvnni ONEDNN_MAX_CPU_ISA=AVX2_VNNI ;;
    avx512) export QWINO_ISA=avx512 ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI ;;
    amx) export QWINO_ISA=amx ONEDNN_MAX_CPU_ISA=AVX512_CORE_AMX ;;
    *) echo "main-job.sh: --isa takes avx2, avxvnni, avx512 or amx" >&2; exit 2 ;;
  esac
  shift 2
fi
bash "$repo/scripts/install-deps.sh" peers
echo "main-job: building qwino-compare in $dir" >&2
cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DQWINO_BUILD_TESTS=OFF >/dev/null
cmake --build "$dir" -j "${QWINO_BUILD_JOBS:-$(nproc)}" --target qwino-compare >/dev/null
"$dir/bench/qwino-compare" --network-dir "$repo/bench/networks" -o "$root/results" "$@"
