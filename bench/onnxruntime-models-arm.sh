#!/usr/bin/env bash
# Whole models through ONNX Runtime's arm64 library alone and with qwino, modeled on Cortex-A72
# and Neoverse N1 by the shared ruler (../shared/a72-ruler: instruction counts under qemu-aarch64
# fed to a throughput model; one thread; per inference = (11 runs - 1 run) / 10, so session
# creation and the first run's set-up are left out).
#
#   bench/onnxruntime-models-arm.sh [--cores a72,n1] [--models mobilenetv2,ppocr-det,resnet50]
#                                   [--update-doc]
#
# Needs: the models (bench/onnxruntime-models.py or test.sh onnxruntime builds them into
# build/onnxruntime-models), and the aarch64 tree configured with the ORT folder:
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#     -DQWINO_AARCH64_SYSROOT=build/aarch64-sysroot -DQWINO_ONNXRUNTIME_DIR="$(scripts/fetch-onnxruntime.sh)"
#   cmake --build build/aarch64 --target qwino_onnxruntime qwino-ort-run
# ORT's arm64 library runs under qemu only with the ruler's sysroot, whose fake /proc/cpuinfo
# and /sys CPU files its start-up needs. Whole-model cycles only: the ruler counts a process,
# not ORT's nodes, so time in convolutions is not split out here (the x86 table has it).
# --update-doc writes the table into doc/PERFORMANCE.md between its ONNXRUNTIME-ARM markers.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ruler="${QWINO_RULER:-$repo/../shared/a72-ruler}"
cores=a72,n1 models=mobilenetv2,ppocr-det,resnet50 update=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cores) cores="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --update-doc) update=1; shift ;;
    *) echo "usage: $0 [--cores a72,n1] [--models ...] [--update-doc]" >&2; exit 2 ;;
  esac
done
bin="$repo/build/aarch64/integrations/onnxruntime"
zoo="$repo/build/onnxruntime-models"
[ -x "$bin/qwino-ort-run" ] || { echo "$bin/qwino-ort-run missing (see the header)" >&2; exit 1; }

cycles() {  # cycles CORE ARGS...: modeled cycles per inference
  "$ruler/measure.sh" --core "$1" -- "$bin/qwino-ort-run" "${@:2}" --repeat '{N}' 2>&1 |
    sed -n 's/^MODEL .* cycles=\([0-9]*\) .*/\1/p'
}

table="| core | model | ORT Mcycles | ORT + qwino Mcycles | ratio |
|---|---|---|---|---|"
for core in ${cores//,/ }; do
  for model in ${models//,/ }; do
    case "$model" in
      ppocr-det) original="$zoo/ppocr-det-u8.onnx" input="x=$zoo/ppocr-det-input-640x640.npy"
                 title="PP-OCRv4 det 640x640" ;;
      resnet50) original="$zoo/resnet50-u8.onnx" input="input=$zoo/resnet50-input.npy" title="ResNet-50 224x224" ;;
      mobilenetv2) original="$zoo/mobilenetv2-u8.onnx" input="input=$zoo/mobilenetv2-input.npy"
                   title="MobileNetV2 224x224" ;;
      *) echo "unknown model $model" >&2; exit 2 ;;
    esac
    ort="$(cycles "$core" "$original" --input "$input")"
    qwino="$(cycles "$core" "${original%.onnx}-qwino.onnx" --custom-ops "$bin/libqwino_onnxruntime.so" --input "$input")"
    row="$(awk -v c="$core" -v t="$title" -v o="$ort" -v q="$qwino" \
      'BEGIN { printf "| %s | %s | %.1f | %.1f | %.2f |", c, t, o / 1e6, q / 1e6, q / o }')"
    echo "$row"
    table+=$'\n'"$row"
  done
done
echo "$table"
if [ "$update" = 1 ]; then
  doc="$repo/doc/PERFORMANCE.md" begin="<!-- ONNXRUNTIME-ARM BEGIN (bench/onnxruntime-models-arm.sh --update-doc) -->"
  end="<!-- ONNXRUNTIME-ARM END -->"
  TABLE="$table" BEGIN="$begin" END="$end" python3 - "$doc" <<'EOF'
import os, re, sys
path = sys.argv[1]
text = open(path).read()
block = os.environ["BEGIN"] + "\n" + os.environ["TABLE"] + "\n" + os.environ["END"]
if os.environ["BEGIN"] in text:
    text = re.sub(re.escape(os.environ["BEGIN"]) + ".*?" + re.escape(os.environ["END"]), lambda _: block, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(path, "w").write(text)
EOF
fi
