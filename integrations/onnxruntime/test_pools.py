#!/usr/bin/env python3
"""The rewriter's 8-bit MaxPool between qwino convolutions, against ONNX Runtime alone.

Why: ORT's optimizer does not push the rewriter's transposes through an NCHW MaxPool, and its
NCHW uint8 MaxPool is slow (qwino_rewrite.py, top), so the rewriter gives a MaxPool that reads a
replaced convolution's output ORT's own NHWC kernel, com.microsoft.NhwcMaxPool. For small models
Conv -> MaxPool 3x3/2 -> Conv (ResNet's stem, with odd sizes and padding) in the QOperator form
(QLinearConv, uint8 MaxPool) and the QDQ form (DequantizeLinear -> MaxPool -> QuantizeLinear with
the same parameters), with uint8 and int8 activations, it checks that
  - the rewrite report says the pool went NHWC, and ORT's optimized graph of the rewritten model
    holds an NhwcMaxPool, no MaxPool and only the two transposes at the graph's ends;
  - the output is ORT's, byte for byte, at 1 and 2 threads;
and that a QDQ pool quantized again with other parameters is left as it is (same bytes).
Exits 1 on any failure.

    test_pools.py [--runner R] [--custom-ops LIB] [--seed S] [--workdir DIR]
"""
import argparse
import collections
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


def build(rng, qdq, signed, requantize_pool=False):
    """Conv 3x3 (C -> M) -> MaxPool 3x3/2 pads 1 -> Conv 1x1 (M -> M), NCHW, 8-bit activations,
    int8 per-channel weights. requantize_pool: the QDQ pool's QuantizeLinear takes another scale."""
    xt, et = (np.int8, TensorProto.INT8) if signed else (np.uint8, TensorProto.UINT8)
    lo, hi = (-128, 127) if signed else (0, 255)
    C, M, H, W = 8, 16, 13, 11
    x = rng.integers(lo, hi + 1, size=[1, C, H, W]).astype(xt)
    inits, nodes = [], []

    def const(name, value):
        inits.append(numpy_helper.from_array(value, name))
        return name

    def scale(name, v):
        return const(name, np.array(v, np.float32))

    def zero(name, v):
        return const(name, np.array(v, xt))

    mid = (lo + hi) // 2
    s_x, s_1, s_2 = scale("s_x", 0.02), scale("s_1", 0.05), scale("s_2", 0.04)
    z_x, z_1, z_2 = zero("z_x", mid + 3), zero("z_1", mid - 5), zero("z_2", mid + 1)
    w1 = const("w1", rng.integers(-127, 128, size=[M, C, 3, 3]).astype(np.int8))
    w2 = const("w2", rng.integers(-127, 128, size=[M, M, 1, 1]).astype(np.int8))
    ws1 = const("ws1", (0.004 * rng.uniform(0.5, 2.0, M)).astype(np.float32))
    ws2 = const("ws2", (0.006 * rng.uniform(0.5, 2.0, M)).astype(np.float32))
    wz = const("wz", np.zeros(M, np.int8))
    pool = dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    if not qdq:
        nodes.append(helper.make_node("QLinearConv", ["x", s_x, z_x, w1, ws1, wz, s_1, z_1], ["y1"], name="conv1",
                                      pads=[1, 1, 1, 1]))
        nodes.append(helper.make_node("MaxPool", ["y1"], ["p"], name="pool", **pool))
        nodes.append(helper.make_node("QLinearConv", ["p", s_1, z_1, w2, ws2, wz, s_2, z_2], ["y"], name="conv2"))
    else:
        def dq(name, src, s, z, axis=None):
            extra = {} if axis is None else {"axis": axis}
            nodes.append(helper.make_node("DequantizeLinear", [src, s, z], [name], name=name + "_dq", **extra))
            return name

        def q(name, src, s, z):
            nodes.append(helper.make_node("QuantizeLinear", [src, s, z], [name], name=name + "_q"))
            return name

        xf = dq("xf", "x", s_x, z_x)
        w1f, w2f = dq("w1f", w1, ws1, wz, 0), dq("w2f", w2, ws2, wz, 0)
        nodes.append(helper.make_node("Conv", [xf, w1f], ["c1"], name="conv1", pads=[1, 1, 1, 1]))
        y1f = dq("y1f", q("y1", "c1", s_1, z_1), s_1, z_1)
        nodes.append(helper.make_node("MaxPool", [y1f], ["pf"], name="pool", **pool))
        s_p = scale("s_p", 0.07) if requantize_pool else s_1
        pf = dq("pq", q("p", "pf", s_p, z_1), s_p, z_1)
        nodes.append(helper.make_node("Conv", [pf, w2f], ["c2"], name="conv2"))
        q("y", "c2", s_2, z_2)
    graph = helper.make_graph(nodes, "conv_pool_conv", [helper.make_tensor_value_info("x", et, list(x.shape))],
                              [helper.make_tensor_value_info("y", et, [1, M, 7, 6])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, {"x": x}


def op_counts(path):
    return collections.Counter((n.domain or "ai.onnx", n.op_type) for n in onnx.load(str(path)).graph.node)


def run_case(name, model, feeds, args, work, expect_nhwc):
    case = work / name
    case.mkdir()
    original, rewritten = case / "model.onnx", case / "model-qwino.onnx"
    onnx.save(model, str(original))
    new, report, stats = rewrite(model)
    onnx.save(new, str(rewritten))
    inputs = {}
    for k, v in feeds.items():
        np.save(case / (k + ".npy"), v)
        inputs[k] = case / (k + ".npy")
    failures = []
    pool_line = [r for r in report if r.startswith("pool:")]
    if expect_nhwc != (stats["pools"] == 1 and pool_line and "NhwcMaxPool" in pool_line[0]):
        failures.append("rewrite report %s, pools %d" % (pool_line, stats["pools"]))
    if stats["replaced"] != 2:
        failures.append("%d of 2 convolutions replaced" % stats["replaced"])
    optimized = case / "optimized.onnx"
    run_ort(args.runner, rewritten, inputs, case / "opt", 1, args.custom_ops, ["--optimized", str(optimized)])
    ops = op_counts(optimized)
    pools = ops[("com.microsoft", "NhwcMaxPool")], sum(v for (d, op), v in ops.items() if op == "MaxPool")
    if expect_nhwc and (pools != (1, 0) or ops[("ai.onnx", "Transpose")] > 2):
        failures.append("optimized graph: %d NhwcMaxPool, %d MaxPool, %d Transpose" %
                        (pools[0], pools[1], ops[("ai.onnx", "Transpose")]))
    for threads in (1, 2):
        run_ort(args.runner, original, inputs, case / ("ort%d" % threads), threads)
        run_ort(args.runner, rewritten, inputs, case / ("qwino%d" % threads), threads, args.custom_ops)
        a = (case / ("ort%d" % threads) / output_file_name("y")).read_bytes()
        b = (case / ("qwino%d" % threads) / output_file_name("y")).read_bytes()
        if a != b:
            failures.append("%d threads: %d of %d bytes differ" %
                            (threads, sum(x != y for x, y in zip(a, b)), len(a)))
    print("%-32s %s" % (name, "; ".join(failures) if failures else
                        "ok (%s)" % ("pool in NHWC" if expect_nhwc else "pool left")))
    return not failures


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runner", default=str(DEFAULT_RUNNER))
    p.add_argument("--custom-ops", default=str(DEFAULT_CUSTOM_OPS))
    p.add_argument("--seed", type=int, default=None, help="default: random (printed)")
    p.add_argument("--workdir", default=None, help="default: a temporary folder (kept on failure)")
    args = p.parse_args(argv)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2 ** 32)
    print("test_pools: seed %d" % seed)
    rng = np.random.default_rng(seed)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="qwino-pools-"))
    work.mkdir(parents=True, exist_ok=True)
    ok = True
    for qdq in (False, True):
        for signed in (False, True):
            name = "%s, %s activations" % ("QDQ" if qdq else "QOperator", "int8" if signed else "uint8")
            ok &= run_case(name.replace(", ", "-").replace(" ", "-"), *build(rng, qdq, signed), args, work, True)
    ok &= run_case("QDQ-requantized-pool", *build(rng, True, False, requantize_pool=True), args, work, False)
    if ok and args.workdir is None:
        shutil.rmtree(work)
    elif not ok:
        print("test_pools: failing cases kept in %s" % work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
