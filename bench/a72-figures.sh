#!/usr/bin/env bash
# Modeled Cortex-A72 figures of qwino on ResNet-18's four 3x3 layers, single thread, with the
# shared ruler (../shared/a72-ruler: instruction counts under qemu-aarch64 fed to an A72
# throughput model; per run = (count at N=11 - count at N=1) / 10, so setup cancels out).
#
#   bench/a72-figures.sh [-d TYPE] [-r MODE] [ALGORITHM...]
#       ALGORITHM: auto winograd winograd-f4 direct (default: auto winograd)
#       TYPE: qu8 qs8 qs8_qc8w qu8_qc8w (default qu8), MODE: gemmlowp fp32 (default gemmlowp),
#       as qwino-conv-run takes them
# Prints one line per layer and algorithm: direct-equivalent MACs per modeled cycle, the
# binding pipe, and instructions and cycles per run. Environment: QWINO_RULER (the ruler's
# folder, default ../shared/a72-ruler beside the repository), QWINO_BUILD_ROOT.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ruler="${QWINO_RULER:-$repo/../shared/a72-ruler}"
build_root="${QWINO_BUILD_ROOT:-$repo/build}"
conv_options=()
while [ $# -gt 0 ]; do
  case "$1" in
    -d|-r) conv_options+=("$1" "$2"); shift 2 ;;
    *) break ;;
  esac
done
algorithms=("$@")
[ ${#algorithms[@]} -gt 0 ] || algorithms=(auto winograd)
[ -x "$ruler/measure.sh" ] || { echo "a72-figures.sh: no ruler at $ruler (set QWINO_RULER)" >&2; exit 2; }

bash "$repo/scripts/install-deps.sh" aarch64 >&2
sysroot="$build_root/aarch64-sysroot"
bash "$repo/cmake/aarch64-sysroot.sh" "$sysroot" >&2
dir="$build_root/aarch64-release"
cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DQWINO_BUILD_TESTS=OFF \
  -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/aarch64-linux-gnu.cmake" -DQWINO_AARCH64_SYSROOT="$sysroot" >/dev/null
cmake --build "$dir" -j "$(nproc)" --target qwino-conv-run >/dev/null

printf '%-16s %-12s %-20s %10s %8s %12s %12s\n' layer algorithm "chosen" MAC/cycle binding instructions cycles
for layer in "56 64" "28 128" "14 256" "7 512"; do
  read -r size channels <<<"$layer"
  macs=$((size * size * channels * channels * 9))
  for algorithm in "${algorithms[@]}"; do
    chosen=$(qemu-aarch64 -L "$sysroot" "$dir/bench/qwino-conv-run" 1 "$size" "$size" "$channels" \
             "$channels" -n 1 -a "$algorithm" "${conv_options[@]}" | sed -n 's/.* algorithm=\([^ ]*\).*/\1/p')
    model=$("$ruler/measure.sh" --macs "$macs" -- "$dir/bench/qwino-conv-run" 1 "$size" "$size" \
            "$channels" "$channels" -a "$algorithm" "${conv_options[@]}" -n '{N}' 2>/dev/null |
            grep '^MODEL')
    field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$model"; }
    printf '%-16s %-12s %-20s %10s %8s %12s %12s\n' "${size}x${size}x${channels}>${channels}" \
      "$algorithm" "$chosen" "$(field macs_per_cycle)" "$(field binding)" \
      "$(field instructions)" "$(field cycles)"
  done
done
