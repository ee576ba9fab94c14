#!/usr/bin/env bash
# The main job: installs what is missing (the peer libraries included), builds qwino in Release
# and runs qwino-compare: the benchmark suite (ResNet-18, VGG-19, MobileNet-style and non-3x3
# layers) through qwino (automatic and forced direct), TFLite's im2col + gemmlowp and XNNPACK on
# the same bytes, cross-checked, printed as one table and written as text, CSV and SVG to
# build/results/. Extra arguments go to qwino-compare (-n REPEATS, -t THREADS,
# --layers resnet18|all, -o DIR). Exit status nonzero if any cross-check fails.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${QWINO_BUILD_ROOT:-$repo/build}"
dir="$root/release"
bash "$repo/scripts/install-deps.sh" peers
cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DQWINO_BUILD_TESTS=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)" --target qwino-compare >/dev/null
"$dir/bench/qwino-compare" -o "$root/results" "$@"
