#!/usr/bin/env python3
"""Quantized ONNX models of classic networks (real topology, random weights) for qwino + ORT.

Why: whole-network tests and benchmarks need models whose convolutions are those of the networks
the project measures (bench/networks/), in the form ORT fuses into QLinearConv. Built here:

  resnet50      ResNet-50 v1.5 (torchvision's): 7x7/2 stem + ReLU, 3x3/2 max pool, bottleneck
                blocks [3, 4, 6, 3] (1x1, 3x3 carrying the stride, 1x1 x4), projection shortcuts
                (1x1, stride) on each stage's first block, residual Add + ReLU; then global
                average pool, Flatten and the 2048 -> 1000 fully connected layer, kept float.
  mobilenet-v2  MobileNetV2 1.0 (TensorFlow's "SAME" padding: stride-2 layers pad bottom/right):
                3x3/2 stem, 17 inverted residual blocks (1x1 expand, 3x3 depthwise, 1x1 linear
                project, residual Add when stride 1 and the channels match), ReLU6, 1x1 -> 1280;
                then global average pool, Flatten and 1280 -> 1000 fully connected, kept float.

Batch 1, 224x224 by default (--size). Weights are random (seeded), He-scaled (normal, std
sqrt(2/fan_in); the last convolution of a residual branch and the linear projections are scaled
down so the residual sums stay bounded), small random biases, no BatchNormalization. The float
model is quantized in QDQ form by quantize_ppocr.quantize_qdq: int8 per-output-channel symmetric
weights, int32 bias, uint8 activations (--activations int8 for int8), min/max calibrated on
--images random normal inputs through qwino-ort-run; a ReLU right after a Conv or residual Add is
folded into its QuantizeLinear (zero point at the bottom of the range); a ReLU6 right after a Conv
is folded too, with the range capped at [0, 6], which is exactly Clip(0, 6) (the QuantizeLinear's
largest value is 255 * scale <= 6); residual Adds are DequantizeLinear -> Add -> QuantizeLinear
(ORT's QLinearAdd), the max pool DequantizeLinear -> MaxPool -> QuantizeLinear with its input's
scale and zero point. Every convolution's layer shape is checked against bench/networks/*.txt.

    build_networks.py --output-dir DIR [--networks resnet50,mobilenet-v2] [--activations uint8|int8]
                      [--size 224] [--seed 0] [--images 4] [--runner qwino-ort-run]
    build_networks.py NETWORK OUT.onnx [the same options]              (one network, one file)
    build_networks.py --write-input FILE.npy [--size 224] [--seed S]      (a test input)
"""
import argparse
import collections
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
from quantize_ppocr import quantize_qdq, DEFAULT_RUNNER  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
LISTS = {"resnet50": REPO / "bench/networks/resnet50.txt", "mobilenet-v2": REPO / "bench/networks/mobilenet-v2.txt"}


class Net:
    """A tiny float-ONNX graph builder (NCHW)."""

    def __init__(self, name, size, seed):
        self.name, self.rng = name, np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], collections.Counter()
        self.input = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, size, size])

    def const(self, array, name):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, name, **attrs):
        self.count[name] += 1
        name = name if self.count[name] == 1 else "%s_%d" % (name, self.count[name])
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def conv(self, x, cin, cout, k, stride, pads, name, group=1, gain=1.0):
        """pads in ONNX's order: top, left, bottom, right."""
        fan_in = cin // group * k * k
        w = self.rng.normal(0, gain * np.sqrt(2.0 / fan_in), (cout, cin // group, k, k)).astype(np.float32)
        b = self.rng.normal(0, 0.05, cout).astype(np.float32)
        return self.node("Conv", [x, self.const(w, name + ".weight"), self.const(b, name + ".bias")], name,
                         kernel_shape=[k, k], strides=[stride, stride], pads=list(pads), group=group)

    def relu(self, x):
        return self.node("Relu", [x], x + ".relu")

    def relu6(self, x):
        if "zero" not in self.count:
            self.count["zero"] = 1
            self.const(np.array(0, np.float32), "zero")
            self.const(np.array(6, np.float32), "six")
        return self.node("Clip", [x, "zero", "six"], x + ".relu6")

    def head(self, x, channels, classes=1000):
        x = self.node("GlobalAveragePool", [x], "avgpool")
        x = self.node("Flatten", [x], "flatten", axis=1)
        w = self.rng.normal(0, np.sqrt(1.0 / channels), (classes, channels)).astype(np.float32)
        return self.node("Gemm", [x, self.const(w, "fc.weight"), self.const(np.zeros(classes, np.float32), "fc.bias")],
                         "fc", transB=1)

    def model(self, output):
        g = helper.make_graph(self.nodes, self.name, [self.input],
                              [helper.make_tensor_value_info(output, TensorProto.FLOAT, [1, 1000])], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="qwino build_networks")
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def resnet50(size, seed):
    n = Net("resnet50_v1.5", size, seed)
    x = n.relu(n.conv("input", 3, 64, 7, 2, [3, 3, 3, 3], "conv1"))
    x = n.node("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, (width, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)], 1):
        for b in range(blocks):
            s, p = (stride if b == 0 else 1), "layer%d.%d." % (stage, b)
            y = n.relu(n.conv(x, cin, width, 1, 1, [0] * 4, p + "conv1"))
            y = n.relu(n.conv(y, width, width, 3, s, [1] * 4, p + "conv2"))
            y = n.conv(y, width, width * 4, 1, 1, [0] * 4, p + "conv3", gain=0.5)
            shortcut = n.conv(x, cin, width * 4, 1, s, [0] * 4, p + "downsample", gain=0.5) if b == 0 else x
            x = n.relu(n.node("Add", [y, shortcut], p + "add"))
            cin = width * 4
    return n.model(n.head(x, cin))


def mobilenet_v2(size, seed):
    n = Net("mobilenet_v2_1.0", size, seed)
    same = lambda stride: [0, 0, 1, 1] if stride == 2 else [1, 1, 1, 1]  # TF "SAME" on even sizes
    x = n.relu6(n.conv("input", 3, 32, 3, 2, same(2), "conv0"))
    cin, block = 32, 0
    for t, c, repeats, stride in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                                  (6, 160, 3, 2), (6, 320, 1, 1)]:
        for r in range(repeats):
            s, p, hidden = (stride if r == 0 else 1), "b%d." % block, cin * t
            y = n.relu6(n.conv(x, cin, hidden, 1, 1, [0] * 4, p + "expand")) if t != 1 else x
            y = n.relu6(n.conv(y, hidden, hidden, 3, s, same(s), p + "dw", group=hidden))
            y = n.conv(y, hidden, c, 1, 1, [0] * 4, p + "project", gain=0.5)
            x = n.node("Add", [y, x], p + "add") if s == 1 and cin == c else y
            cin, block = c, block + 1
    x = n.relu6(n.conv(x, cin, 1280, 1, 1, [0] * 4, "conv_last"))
    return n.model(n.head(x, 1280))


BUILDERS = {"resnet50": resnet50, "mobilenet-v2": mobilenet_v2}
ALIASES = {"resnet-50": "resnet50", "mobilenetv2": "mobilenet-v2"}


def conv_shapes(model):
    """(H, W, Cin, Cout, k, stride, (top, right, bottom, left), groups) of every Conv."""
    inferred = onnx.shape_inference.infer_shapes(model).graph
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in list(inferred.value_info) + list(inferred.input)}
    inits = {t.name: t for t in model.graph.initializer}
    out = []
    for node in model.graph.node:
        if node.op_type != "Conv":
            continue
        a = {x.name: helper.get_attribute_value(x) for x in node.attribute}
        w = inits[node.input[1]].dims
        _, c, h, wd = shapes[node.input[0]]
        t, l, b, r = a.get("pads", [0, 0, 0, 0])
        out.append((node.name, (h, wd, c, w[0], w[2], a.get("strides", [1, 1])[0], (t, r, b, l), a.get("group", 1))))
    return out


def check_against_list(name, model):
    """Prints whether every convolution of the model has its layer shape in the project's list,
    and whether the counts agree."""
    listed = collections.Counter()
    for line in LISTS[name].read_text().splitlines():
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        h, w, cin, cout, k, s = map(int, f[1:7])
        listed[(h, w, cin, cout, k, s, tuple(map(int, f[7].split(","))), int(f[8]))] += int(f[9])
    convs = conv_shapes(model)
    have = collections.Counter(shape for _, shape in convs)
    missing = [n for n, shape in convs if shape not in listed]
    print("%s: %d convolutions, %d distinct layer shapes; every one in %s: %s; counts agree: %s" % (
        name, len(convs), len(have), LISTS[name].relative_to(REPO), "yes" if not missing else
        "NO (%s)" % ", ".join(missing), "yes" if have == listed else "NO"))
    return not missing and have == listed


def random_input(size, seed):
    return np.random.default_rng(seed).normal(0, 1, (1, 3, size, size)).astype(np.float32)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("network", nargs="?", help="resnet50 or mobilenet-v2 (with OUT: one model)")
    p.add_argument("out", nargs="?", help="the quantized model of NETWORK")
    p.add_argument("--output-dir", help="writes NETWORK_ACTIVATIONS.onnx there (and NETWORK_float.onnx)")
    p.add_argument("--networks", default="resnet50,mobilenet-v2")
    p.add_argument("--activations", choices=["uint8", "int8"], default="uint8")
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--images", type=int, default=4, help="calibration inputs")
    p.add_argument("--runner", default=str(DEFAULT_RUNNER))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--write-input", metavar="FILE.npy", help="write a random normal input [1, 3, S, S]")
    a = p.parse_args(argv)
    if a.write_input:
        np.save(a.write_input, random_input(a.size, a.seed))
        print("wrote %s (1x3x%dx%d, seed %d)" % (a.write_input, a.size, a.size, a.seed))
    if a.network:
        if not a.out:
            p.error("give NETWORK OUT.onnx")
        jobs = [(ALIASES.get(a.network, a.network), Path(a.out), None)]
    elif a.output_dir:
        out = Path(a.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        jobs = [(ALIASES.get(n, n), out / ("%s_%s.onnx" % (n, a.activations)), out / ("%s_float.onnx" % n))
                for n in a.networks.split(",")]
    else:
        if not a.write_input:
            p.error("give NETWORK OUT.onnx, --output-dir or --write-input")
        return 0
    ok = True
    for name, path, float_path in jobs:
        if name not in BUILDERS:
            p.error("unknown network %s (%s)" % (name, ", ".join(BUILDERS)))
        model = BUILDERS[name](a.size, a.seed)
        if a.size == 224:
            ok &= check_against_list(name, model)
        if float_path:
            onnx.save(model, float_path)
        feeds = [{"input": random_input(a.size, a.seed * 1000 + i + 1)} for i in range(a.images)]
        with tempfile.TemporaryDirectory(prefix="qwino-build-") as work:
            q, groups, _ = quantize_qdq(model, feeds, a.runner, work, a.activations, quantize_add=True,
                                        fold_relu6=True, maxpool=True, threads=a.threads)
        onnx.save(q, path)
        kinds = collections.Counter((g["node"].op_type, g["act"]) for g in groups)
        print("wrote %s: %s" % (path, ", ".join("%d %s%s" % (v, op, "+" + act if act else "")
                                                   for (op, act), v in sorted(kinds.items(), key=str))))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
