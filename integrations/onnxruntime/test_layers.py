#!/usr/bin/env python3
"""Differential test of qwino.QLinearConv against ONNX Runtime's own QLinearConv.

Why: the custom op promises ORT's bytes. For N random single-QLinearConv models (seeded; every
type combination qwino takes: uint8/int8 activations, int8 per-tensor/per-channel weights, uint8
weights with a zero point; group 1, grouped, depthwise; 1x1 3x3 5x5 1x3 3x1 7x7 kernels; strides
and dilations 1-2; asymmetric pads; every auto_pad; with and without bias; batch 1-2; odd sizes)
it runs the NCHW model through qwino-ort-run without custom ops, and the model rewritten by
qwino_rewrite with --custom-ops, at 1 and 2 threads, and compares the outputs byte for byte.
A few models the rewriter must refuse (int8 weights with a zero point, uint8 per-channel weights,
a requantization scale above 256, a 1-D convolution, non-constant weights) must be left to ORT
and still give ORT's bytes. Both runs use --x64-exact (ORT's exact path on x86 without VNNI, whose
U8S8 kernels saturate pair sums) for uint8 activations; ORT has no kernel for int8 activations
with that option, and its int8 x int8 path is exact without it. (ORT does not run auto_pad SAME
with dilations, so those cases use dilation 1.)
Exits 1 on any difference, printing the failing case.

    test_layers.py [--runner R] [--custom-ops LIB] [--cases N] [--seed S] [--workdir DIR]
                   [--threads 1,2] [--no-x64-exact] [--weight-max 127] [--keep]
"""
import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
from qwino_rewrite import rewrite, run_ort, output_file_name, DEFAULT_RUNNER, DEFAULT_CUSTOM_OPS  # noqa: E402

COMBOS = ["u8 x s8", "u8 x s8 per-channel", "s8 x s8", "s8 x s8 per-channel", "u8 x u8"]
KERNELS = [(1, 1), (3, 3), (5, 5), (1, 3), (3, 1), (7, 7)]
AUTO_PADS = ["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]


def random_case(rng, index):
    """A supported case; the index cycles the type combination, group kind and auto_pad."""
    c = {"combo": COMBOS[index % len(COMBOS)], "groups_kind": ["group 1", "grouped", "depthwise"][index % 3],
         "auto_pad": AUTO_PADS[index % 4]}
    c["kernel"] = KERNELS[rng.integers(len(KERNELS))]
    c["strides"] = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
    c["dilations"] = [int(rng.integers(1, 3)), int(rng.integers(1, 3))] if rng.random() < 0.4 else [1, 1]
    if c["auto_pad"].startswith("SAME"):
        c["dilations"] = [1, 1]  # ORT: "Dilation not supported for AutoPadType::SAME_UPPER or SAME_LOWER"
    big = c["groups_kind"] == "group 1" and rng.random() < 0.3  # enough channels for Winograd/GEMM paths
    if c["groups_kind"] == "group 1":
        g, cg, mg = 1, int(rng.choice([16, 32, 48, 64])) if big else int(rng.integers(1, 21)), \
            int(rng.choice([16, 32, 64])) if big else int(rng.integers(1, 21))
    elif c["groups_kind"] == "grouped":
        g, cg, mg = int(rng.integers(2, 5)), int(rng.integers(2, 9)), int(rng.integers(1, 9))
    else:
        g, cg, mg = int(rng.integers(2, 33)), 1, int(rng.choice([1, 1, 1, 2]))
    c.update(groups=g, cin=g * cg, cout=g * mg)
    reach = [(k - 1) * d + 1 for k, d in zip(c["kernel"], c["dilations"])]
    if big and rng.random() < 0.6:
        c["kernel"], c["strides"], c["dilations"], reach = (3, 3), [1, 1], [1, 1], [3, 3]
    c["hw"] = [int(rng.integers(max(r, 2), r + 16)) | 1 for r in reach]
    c["pads"] = [int(rng.integers(0, r)) for r in reach + reach] if c["auto_pad"] == "NOTSET" else None
    c["batch"] = int(rng.integers(1, 3))
    c["bias"] = bool(rng.random() < 0.5)
    return c


def build(c, rng, weight_max=127):
    """The NCHW QLinearConv model of case c, and its input x. Returns (model, {name: array})."""
    x_s8 = c["combo"].startswith("s8")
    w_u8 = c["combo"].split()[2] == "u8"
    per_channel = "per-channel" in c["combo"]
    xt = np.int8 if x_s8 else np.uint8
    lo, hi = (-128, 127) if x_s8 else (0, 255)
    kh, kw = c["kernel"]
    cg, M = c["cin"] // c["groups"], c["cout"]
    shape = [c["batch"], c["cin"]] + c["hw"]
    if c.get("1d"):
        shape, wshape = [c["batch"], c["cin"], c["hw"][1]], [M, cg, kw]
    else:
        wshape = [M, cg, kh, kw]
    x = rng.integers(lo, hi + 1, size=shape).astype(xt)
    x_zp = np.array(rng.integers(lo, hi + 1), xt)
    x_scale = np.float32(np.exp(rng.uniform(np.log(0.005), np.log(0.05))))
    if w_u8:
        w = rng.integers(0, 256, size=wshape).astype(np.uint8)
        w_zp = np.array(c.get("w_zp", rng.integers(0, 256)), np.uint8)
    else:
        w = rng.integers(-weight_max, weight_max + 1, size=wshape).astype(np.int8)  # default [-127, 127]
        w_zp = np.array(c.get("w_zp", 0), np.int8)
    base = np.float32(np.exp(rng.uniform(np.log(0.002), np.log(0.02))))
    w_scale = (base * rng.uniform(0.5, 2.0, M)).astype(np.float32) if per_channel else np.array(base, np.float32)
    if c.get("w_zp_per_channel"):
        w_zp = np.full(M, w_zp, w_zp.dtype)
    # y_scale and y_zero_point spread the output over about +-40 steps around the middle of the
    # range: the accumulator has mean K E[x - x_zp] E[w - w_zp] and spread ~ sqrt(K) rms rms.
    k = int(np.prod(wshape[1:]))
    dx, dw = x.astype(np.float64) - x_zp, w.astype(np.float64) - w_zp.mean()
    mean = k * dx.mean() * dw.mean()
    acc = np.sqrt(k) * np.sqrt((dx ** 2).mean() * (dw ** 2).mean())
    y_scale = np.float32(x_scale * base / c["requantization"]) if c.get("requantization") else \
        np.float32(x_scale * base * acc / 40 * rng.uniform(0.5, 2.0))
    centre = (lo + hi) / 2 + rng.uniform(-20, 20) - mean * float(x_scale * base / y_scale)
    y_zp = np.array(np.clip(np.round(centre), lo, hi), xt)
    inits = [numpy_helper.from_array(np.array(x_scale, np.float32), "x_scale"),
             numpy_helper.from_array(x_zp, "x_zero_point"),
             numpy_helper.from_array(w_scale, "w_scale"), numpy_helper.from_array(w_zp, "w_zero_point"),
             numpy_helper.from_array(np.array(y_scale, np.float32), "y_scale"),
             numpy_helper.from_array(y_zp, "y_zero_point")]
    feeds = {"x": x}
    if c.get("w_input"):
        feeds["w"] = w
    else:
        inits.append(numpy_helper.from_array(w, "w"))
    inputs = ["x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point"]
    if c["bias"]:
        inits.append(numpy_helper.from_array(
            np.round(rng.normal(0, acc, M)).astype(np.int32), "B"))
        inputs.append("B")
    attrs = {"group": c["groups"]}
    nd = 1 if c.get("1d") else 2
    attrs["kernel_shape"] = wshape[2:]
    attrs["strides"] = c["strides"][-nd:]
    attrs["dilations"] = c["dilations"][-nd:]
    if c["auto_pad"] != "NOTSET":
        attrs["auto_pad"] = c["auto_pad"]
    elif c["pads"]:
        attrs["pads"] = c["pads"] if nd == 2 else [c["pads"][1], c["pads"][3]]
    et = TensorProto.INT8 if x_s8 else TensorProto.UINT8
    graph_inputs = [helper.make_tensor_value_info("x", et, shape)]
    if c.get("w_input"):
        graph_inputs.append(helper.make_tensor_value_info(
            "w", TensorProto.UINT8 if w_u8 else TensorProto.INT8, wshape))
    graph = helper.make_graph(
        [helper.make_node("QLinearConv", inputs, ["y"], name="conv", **attrs)], "qlinearconv",
        graph_inputs, [helper.make_tensor_value_info("y", et, ["n", "m", "oh", "ow"][:len(shape)])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, feeds


# Cases the rewriter must leave to ORT: (description, changes to a supported case).
REFUSED = [
    ("w int8 with non-zero zero point", {"combo": "u8 x s8", "w_zp": 3}),
    ("uint8 per-channel weights", {"combo": "u8 x u8 per-channel", "w_zp_per_channel": True}),
    ("requantization scale > 256", {"combo": "u8 x s8", "requantization": 300}),
    ("1-D convolution", {"combo": "s8 x s8", "1d": True}),
    ("non-constant weights", {"combo": "u8 x s8 per-channel", "w_input": True}),
]


def describe(c):
    keys = ("combo", "groups_kind", "groups", "cin", "cout", "kernel", "strides", "dilations", "auto_pad",
            "pads", "hw", "batch", "bias")
    return " ".join("%s=%s" % (k, c[k]) for k in keys if k in c)


def run_case(index, c, model, feeds, args, workdir, expect_replaced):
    """Runs one case; returns (None, note) when every comparison holds, else (message, None)."""
    d = Path(workdir) / ("case%03d" % index)
    d.mkdir(parents=True, exist_ok=True)
    onnx.save(model, d / "ort.onnx")
    rewritten, report, stats = rewrite(model)
    onnx.save(rewritten, d / "qwino.onnx")
    qwino_nodes = sum(n.domain == "qwino" for n in rewritten.graph.node)
    if expect_replaced and stats["replaced"] != 1:
        return "the rewriter left a supported convolution: " + report[0], None
    if not expect_replaced and (stats["replaced"] or qwino_nodes or
                                [n.op_type for n in rewritten.graph.node] != ["QLinearConv"]):
        return "the rewriter replaced a convolution it must refuse: " + report[0], None
    inputs = {}
    for name, value in feeds.items():
        np.save(d / (name + ".npy"), value)
        inputs[name] = d / (name + ".npy")
    # ORT 1.30 has no kernel for int8 activations under session.x64quantprecision=1 (it turns the
    # weights into uint8); its int8 x int8 path is exact without it.
    extra = ["--x64-exact"] if args.x64_exact and not c["combo"].startswith("s8") else []
    out = output_file_name("y")
    reference = None
    for t in args.threads:
        run_ort(args.runner, d / "ort.onnx", inputs, d / ("ort%d" % t), t, None, extra)
        run_ort(args.runner, d / "qwino.onnx", inputs, d / ("qwino%d" % t), t, args.custom_ops, extra)
        want, got = np.load(d / ("ort%d" % t) / out), np.load(d / ("qwino%d" % t) / out)
        if reference is None:
            reference = want
        elif want.tobytes() != reference.tobytes():
            print("  note: ORT's own output differs between thread counts")
        if want.shape != got.shape or want.dtype != got.dtype:
            return "threads %d: shape/type %s %s vs ORT's %s %s" % (
                t, got.shape, got.dtype, want.shape, want.dtype), None
        if not np.array_equal(np.frombuffer(want.tobytes(), np.uint8), np.frombuffer(got.tobytes(), np.uint8)):
            diff = want.astype(np.int32) - got.astype(np.int32)
            return "threads %d: %d of %d values differ (max |diff| %d)" % (
                t, np.count_nonzero(diff), diff.size, np.abs(diff).max()), None
    saturated = np.mean((reference == np.iinfo(reference.dtype).min) | (reference == np.iinfo(reference.dtype).max))
    if not args.keep:
        shutil.rmtree(d)
    return None, "saturated %.0f%%%s" % (100 * saturated, "" if expect_replaced else "; " + report[0])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runner", default=str(DEFAULT_RUNNER))
    p.add_argument("--custom-ops", default=str(DEFAULT_CUSTOM_OPS))
    p.add_argument("--cases", type=int, default=60)
    p.add_argument("--seed", type=int, default=None, help="default: random (printed)")
    p.add_argument("--workdir", default=None, help="default: a temporary folder")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--no-x64-exact", dest="x64_exact", action="store_false")
    p.add_argument("--weight-max", type=int, default=127, help="int8 weights in [-N, N] (default 127)")
    p.add_argument("--keep", action="store_true", help="keep every case's files (failing ones are kept)")
    args = p.parse_args(argv)
    args.threads = [int(t) for t in args.threads.split(",")]
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    print("seed %d" % seed)
    workdir = args.workdir or tempfile.mkdtemp(prefix="qwino-test-layers-")
    rng = np.random.default_rng(seed)
    cases = [(random_case(rng, i), True) for i in range(args.cases)]
    for what, change in REFUSED:
        c = random_case(rng, 0)
        c.update(groups_kind="group 1", groups=1, auto_pad="NOTSET", dilations=[1, 1], refused=what, **change)
        c["cout"] = max(c["cout"], 2)  # per-channel needs channels
        if c.get("1d"):
            c.update(kernel=(1, 3), pads=[0, 1, 0, 2], hw=[1, 17])
        cases.append((c, False))
    failures = 0
    for i, (c, supported) in enumerate(cases):
        model, feeds = build(c, rng, args.weight_max)
        label = ("case %d: " % i) + ("" if supported else "[refused: %s] " % c["refused"]) + describe(c)
        try:
            error, note = run_case(i, c, model, feeds, args, workdir, supported)
        except RuntimeError as e:
            error = str(e)
        if error is None:
            print("ok   %s (%s)" % (label, note))
        else:
            failures += 1
            print("FAIL %s\n     %s\n     files: %s" % (label, error, Path(workdir) / ("case%03d" % i)))
    print("%d of %d cases passed (seed %d, threads %s)" % (len(cases) - failures, len(cases), seed,
                                                         ",".join(map(str, args.threads))))
    if not args.workdir and not failures and not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
