#!/usr/bin/env python3
"""End-to-end check of a whole quantized model: ORT alone versus ORT + qwino, byte for byte.

Why: a model rewritten by qwino_rewrite must give exactly ORT's output. This runs the model
through qwino-ort-run as it is, and rewritten with --custom-ops, at each thread count, compares
every graph output byte for byte and prints how many values differ (must be 0). It also saves
ORT's optimized graph of the rewritten model and reports how many Transpose nodes remain against
how many the rewriter inserted (ORT's transpose optimizer should cancel those between consecutive
convolutions), how many qwino.QLinearConv nodes ORT kept, and how many QLinearConv ORT itself
fused from the original model. --repeat R also times both (median of R runs).

    test_models.py (MODEL.onnx --input [NAME=]FILE.npy | --zoo NAME) [--threads 1,2] [--runner R]
                   [--custom-ops LIB] [--workdir DIR] [--x64-exact auto|on|off] [--repeat R]
                   [--static-input] [--rewrite-all] [--example PATH]

--example runs the README's C example (example.c) on the rewritten model with the custom ops and
checks that the checksum it prints is that of ORT's own output on the original model for the
example's input (a ramp, [1, 3, 64, 64] float32).

Quantized convolutions ORT does not fuse into QLinearConv (it runs them as float Conv between
DequantizeLinear and QuantizeLinear, e.g. int8 ones on x86 CPUs without VNNI) are left to ORT,
since no integer kernel gives float rounding's bytes (--rewrite-all replaces them anyway).
--x64-exact auto (the default) passes ORT's session.x64quantprecision=1 (its exact path on x86
without VNNI) unless ORT cannot create the session with it (ORT 1.30 has no kernel for int8
activations then; its int8 x int8 path is exact without it).
"""
import argparse
import collections
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
from qwino_rewrite import rewrite, run_ort, output_file_name, DEFAULT_RUNNER, DEFAULT_CUSTOM_OPS  # noqa: E402


def op_counts(path):
    m = onnx.load(str(path), load_external_data=False)
    return collections.Counter((n.domain or "ai.onnx", n.op_type) for n in m.graph.node)


def median_ms(stdout):
    for line in stdout.splitlines():
        if line.startswith("median_ms"):
            return float(line.split()[1])
    return None


def fnv1a(data):
    h = 1469598103934665603
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def check_example(a, work, qwino_path, input_name, output_name, extra):
    """example.c on the rewritten model against ORT's output on the original, same input."""
    import subprocess
    ramp = (np.arange(3 * 64 * 64) % 251).astype(np.float32) / np.float32(125.0) - np.float32(1.0)
    np.save(work / "ramp.npy", ramp.reshape(1, 3, 64, 64))
    run_ort(a.runner, a.model, {input_name: str(work / "ramp.npy")}, work / "ramp-ort", 1, None, extra)
    want = np.load(work / "ramp-ort" / output_file_name(output_name))
    expected = "%016x" % fnv1a(want.tobytes())
    out = subprocess.run([a.example, str(qwino_path), a.custom_ops], check=True, capture_output=True,
                         text=True).stdout.strip()
    ok = out.endswith("checksum " + expected)
    print("example: %s (ORT's own output: checksum %s)%s" % (out, expected, "" if ok else "  <-- MISMATCH"))
    return 0 if ok else 1


def main(argv=None):
    try:
        return check_model(argv)
    except RuntimeError as e:  # a runner failure
        print("ERROR: %s" % e)
        if "ShapeInferenceError" in str(e):
            print("hint: with a dynamic input shape, --static-input fixes the input shape to the array's")
        return 2


def check_model(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", nargs="?")
    p.add_argument("--input", action="append", metavar="[NAME=]FILE.npy")
    p.add_argument("--zoo", metavar="NAME", help="a model of model_zoo.py (built there; its input too)")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--runner", default=None, help="default: the build tree's (or model_zoo's with --zoo)")
    p.add_argument("--custom-ops", default=None)
    p.add_argument("--workdir", default=None, help="default: a temporary folder, removed on success")
    p.add_argument("--x64-exact", choices=["auto", "on", "off"], default="auto")
    p.add_argument("--repeat", type=int, default=0, help="also time R runs of each (median)")
    p.add_argument("--rewrite-all", action="store_true",
                   help="also replace the quantized convolutions ORT leaves as float Conv")
    p.add_argument("--example", metavar="PATH", help="the built qwino-ort-example, checked on the model")
    p.add_argument("--static-input", action="store_true",
                   help="fix the graph inputs' shapes to the given arrays' (both models)")
    a = p.parse_args(argv)
    if a.zoo:
        import model_zoo  # the project's shared models (integrations/onnxruntime/model_zoo.py)
        tools = model_zoo.Tools.find()
        z = model_zoo.prepare(a.zoo, tools)
        a.model, a.input = z.original, ["%s=%s" % (z.input_name, z.input_npy)]
        a.runner, a.custom_ops = a.runner or tools.runner, a.custom_ops or tools.custom_ops
    if not a.model or not a.input:
        p.error("give MODEL --input FILE.npy, or --zoo NAME")
    a.runner, a.custom_ops = a.runner or str(DEFAULT_RUNNER), a.custom_ops or str(DEFAULT_CUSTOM_OPS)
    threads = [int(t) for t in a.threads.split(",")]
    work = Path(a.workdir or tempfile.mkdtemp(prefix="qwino-test-models-"))
    work.mkdir(parents=True, exist_ok=True)

    model = onnx.load(a.model)
    graph_inputs = [i.name for i in model.graph.input
                    if i.name not in {t.name for t in model.graph.initializer}]
    inputs = {}
    for spec in a.input:
        name, _, path = spec.rpartition("=")
        if not name:
            if len(graph_inputs) != 1:
                p.error("the model has %d inputs: give NAME=FILE" % len(graph_inputs))
            name = graph_inputs[0]
        inputs[name] = path
    if a.static_input:
        for i in model.graph.input:
            if i.name in inputs:
                shape = np.load(inputs[i.name], mmap_mode="r").shape
                i.type.tensor_type.shape.Clear()
                for d in shape:
                    i.type.tensor_type.shape.dim.add().dim_value = d
        a.model = str(work / "static.onnx")
        onnx.save(model, a.model)
    print("model %s" % a.model)
    extra = [] if a.x64_exact == "off" else ["--x64-exact"]
    opt_ort = work / "ort.optimized.onnx"
    try:
        run_ort(a.runner, a.model, inputs, work / "opt_ort", 1, None, extra + ["--optimized", str(opt_ort)])
    except RuntimeError as e:
        if a.x64_exact == "auto" and "Failed to find kernel" in str(e):
            print("note: ORT cannot run this model with --x64-exact (%s); running without it" %
                  str(e).split(": ", 2)[-1][:160])
            extra = []
            run_ort(a.runner, a.model, inputs, work / "opt_ort", 1, None, ["--optimized", str(opt_ort)])
        else:
            raise
    print("ORT options: %s" % (" ".join(extra) or "(default)"))

    # Convolutions ORT itself leaves as float Conv between DequantizeLinear and QuantizeLinear
    # (not fused into QLinearConv) are computed in float by ORT: no integer kernel can give those
    # bytes, so they stay ORT's unless --rewrite-all.
    skip = {}
    producers = {o: n.op_type for n in model.graph.node for o in n.output}
    float_convs = {n.name for n in onnx.load(str(opt_ort)).graph.node if n.op_type in ("Conv", "FusedConv")}
    for n in model.graph.node:
        if n.op_type == "Conv" and n.name in float_convs and producers.get(n.input[1]) == "DequantizeLinear":
            skip[n.name] = "ORT does not fuse it into QLinearConv: its bytes come from a float Conv"
    if skip:
        print("note: ORT runs %d quantized convolution(s) as float Conv (not fused into QLinearConv)%s: %s" % (
            len(skip), "; rewriting them anyway (--rewrite-all)" if a.rewrite_all else "; left to ORT",
            " ".join(sorted(skip))))
    rewritten, report, stats = rewrite(model, None if a.rewrite_all else skip)
    qwino_path = work / "qwino.onnx"
    onnx.save(rewritten, qwino_path)
    for line in report[:-1]:
        if ": left" in line and not (line.split(":")[0] in skip and not a.rewrite_all):
            print("  " + line)
    print("rewriter: %s" % report[-1].split(": ", 1)[1])

    outputs = [o.name for o in model.graph.output]
    failures = 0
    for t in threads:
        ort_dir, qwino_dir = work / ("ort%d" % t), work / ("qwino%d" % t)
        run_ort(a.runner, a.model, inputs, ort_dir, t, None, extra)
        run_ort(a.runner, qwino_path, inputs, qwino_dir, t, a.custom_ops, extra)
        for name in outputs:
            want, got = np.load(ort_dir / output_file_name(name)), np.load(qwino_dir / output_file_name(name))
            same = want.shape == got.shape and want.dtype == got.dtype
            differ = int(np.count_nonzero(want != got)) if same else want.size
            same = same and want.tobytes() == got.tobytes()
            print("threads %d: output %s %s %s: %d of %d values differ%s" % (
                t, name, "x".join(map(str, want.shape)), want.dtype, differ, want.size,
                "" if same else "  <-- MISMATCH"))
            failures += not same

    opt_qwino = work / "qwino.optimized.onnx"
    run_ort(a.runner, qwino_path, inputs, work / "opt_qwino", 1, a.custom_ops, extra + ["--optimized", str(opt_qwino)])
    c_ort, c_qwino, c_orig = op_counts(opt_ort), op_counts(opt_qwino), op_counts(a.model)
    fused = sum(v for (d, op), v in c_ort.items() if op == "QLinearConv")
    print("ORT alone, optimized graph: %d QLinearConv (%s), %d Conv left float, %d Transpose" % (
        fused, ", ".join("%s %d" % (d, v) for (d, op), v in sorted(c_ort.items()) if op == "QLinearConv") or "-",
        sum(v for (d, op), v in c_ort.items() if op in ("Conv", "FusedConv")), c_ort[("ai.onnx", "Transpose")]))
    print("ORT + qwino, optimized graph: %d qwino.QLinearConv kept (of %d inserted), %d other QLinearConv, "
          "%d Transpose (rewriter inserted %d; the original model had %d)" % (
              c_qwino[("qwino", "QLinearConv")], stats["replaced"],
              sum(v for (d, op), v in c_qwino.items() if op == "QLinearConv" and d != "qwino"),
              c_qwino[("ai.onnx", "Transpose")], stats["transposes"], c_orig[("ai.onnx", "Transpose")]))

    if a.example:
        failures += check_example(a, work, qwino_path, graph_inputs[0], outputs[0], extra)

    if a.repeat:
        for t in threads:
            ms_ort = median_ms(run_ort(a.runner, a.model, inputs, work / "time", t, None,
                                       extra + ["--repeat", str(a.repeat)]))
            ms_qwino = median_ms(run_ort(a.runner, qwino_path, inputs, work / "time", t, a.custom_ops,
                                         extra + ["--repeat", str(a.repeat)]))
            print("threads %d: ORT %.2f ms, ORT + qwino %.2f ms (median of %d)" % (t, ms_ort, ms_qwino, a.repeat))

    print("%s: %d output comparison(s) differ" % ("FAIL" if failures else "PASS", failures))
    if not failures and not a.workdir:
        shutil.rmtree(work, ignore_errors=True)
    elif failures:
        print("files kept in %s" % work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
