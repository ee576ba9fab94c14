#!/usr/bin/env bash
# The main job: installs what is missing, builds qwino in Release and runs ResNet-18's four 3x3
# layers through it, checking Winograd against the direct path byte for byte and printing a
# table of time per layer. Extra arguments go to qwino-resnet18 (-n REPEATS, -t THREADS).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${QWINO_BUILD_ROOT:-$repo/build}/release"
bash "$repo/scripts/install-deps.sh"
cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DQWINO_BUILD_TESTS=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)" --target qwino-resnet18 >/dev/null
"$dir/bench/qwino-resnet18" "$@"
