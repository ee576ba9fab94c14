#!/usr/bin/env python3
"""Writes the convolutions of an ONNX model (float weights, e.g. PaddleOCR's PP-OCRv4 detector
from scripts/fetch-onnxruntime.sh's models/) as a layer list in the format of bench/networks/, so
that the per-layer tools (qwino-compare --network-dir, bench/network-figures.sh) run the model's
own layer shapes: one line per distinct shape with its count, in the model's order.

usage: bench/onnx-layer-list.py MODEL.onnx --input 1,3,640,640 --title TEXT > LIST.txt

The input's batch, height and width are fixed for shape inference (the detector's are dynamic).
ConvTranspose and other operators are left out; depthwise and grouped convolutions are kept.
"""
import argparse
import collections
import sys
from pathlib import Path

import onnx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integrations" / "onnxruntime" / "models"))
from build_networks import conv_shapes  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--input", required=True, help="N,C,H,W of the model's first input")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    model = onnx.load(a.model)
    # Weights held by Constant nodes (PaddleOCR's export) become initializers, as conv_shapes
    # reads them.
    for node in [n for n in model.graph.node if n.op_type == "Constant"]:
        value = next((x.t for x in node.attribute if x.name == "value"), None)
        if value is not None:
            value.name = node.output[0]
            model.graph.initializer.append(value)
            model.graph.node.remove(node)
    dims = [int(x) for x in a.input.split(",")]
    for d, value in zip(model.graph.input[0].type.tensor_type.shape.dim, dims):
        d.ClearField("dim_param")
        d.dim_value = value
    counts = collections.OrderedDict()
    names = {}
    for name, shape in conv_shapes(model):
        counts[shape] = counts.get(shape, 0) + 1
        names.setdefault(shape, name or "conv%d" % len(names))
    print("# %s: every Conv (ConvTranspose left out), input %s, written by bench/onnx-layer-list.py"
          % (a.title or Path(a.model).name, "x".join(map(str, dims))))
    print("# name height width input_channels output_channels kernel stride padding(top,right,bottom,left) groups count")
    for shape, count in counts.items():
        h, w, cin, cout, k, s, pads, groups = shape
        print("%-28s %4d %4d %4d %4d %d %d %s %4d %d" % (names[shape][:28], h, w, cin, cout, k, s,
                                                       ",".join(map(str, pads)), groups, count))


if __name__ == "__main__":
    main()
