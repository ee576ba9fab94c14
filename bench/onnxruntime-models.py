#!/usr/bin/env python3
"""Whole models through ONNX Runtime alone and through ORT + qwino (x86-64, natively).

For each model (the quantized PP-OCRv4 detector and the project's QLinearConv ResNet-50 and
MobileNetV2, built by the scripts in integrations/onnxruntime/models) and each thread count, it
runs ORT on the model and ORT + libqwino_onnxruntime.so on the rewritten model
(integrations/onnxruntime/qwino_rewrite.py) through qwino-ort-run, interleaved round by round
(the machine is shared: read medians and ratios), and reports:
  - the whole output tensor compared byte for byte (ORT with session.x64quantprecision=1 where
    the CPU has no VNNI: ORT's U8S8 kernels saturate pair sums there and are not exact);
  - milliseconds per inference (median over the rounds' medians), ORT's default settings;
  - milliseconds in convolutions (ORT's profile: QLinearConv nodes, ORT's or qwino's) and in the
    Transpose nodes left after ORT's optimizer (qwino's layout cost).
--update-doc writes the table into doc/PERFORMANCE.md between its ONNXRUNTIME markers.

usage: bench/onnxruntime-models.py [--threads 1,2] [--rounds 5] [--repeat 10] [--models a,b]
                                    [--spinning both|off|on] [--update-doc]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "integrations", "onnxruntime"))
import model_zoo  # noqa: E402  (integrations/onnxruntime/model_zoo.py)

CONV_OPS = {"QLinearConv"}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def runner_metrics(tools, model, input_npy, input_name, threads, repeat, custom_ops, spinning, workdir, flags):
    cmd = [tools.runner, model, "--threads", str(threads), "--input", f"{input_name}={input_npy}",
           "--repeat", str(repeat), "--profile", os.path.join(workdir, "profile")] + flags
    if custom_ops:
        cmd += ["--custom-ops", tools.custom_ops]
    if not spinning:
        cmd += ["--no-spinning"]
    out = run(cmd)
    median = float(re.search(r"median_ms (\S+)", out).group(1))
    profile = re.search(r"profile (\S+)", out).group(1)
    with open(profile) as f:
        events = json.load(f)
    os.remove(profile)
    conv_us = transpose_us = 0.0
    for e in events:
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        op = e.get("args", {}).get("op_name", "")
        if op in CONV_OPS:
            conv_us += e["dur"]
        elif op == "Transpose":
            transpose_us += e["dur"]
    runs = repeat + 1  # the profile also holds the warm-up run
    return median, conv_us / runs / 1000.0, transpose_us / runs / 1000.0


def run_outputs(tools, model, input_npy, input_name, threads, workdir, flags, custom):
    d = tempfile.mkdtemp(dir=workdir)
    cmd = [tools.runner, model, "--threads", str(threads), "--input", f"{input_name}={input_npy}",
           "--output-dir", d] + flags
    if custom:
        cmd += ["--custom-ops", tools.custom_ops]
    run(cmd)
    return {n: open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d))}


def verdict(a, b):
    if a.keys() != b.keys():
        return "outputs differ in names"
    differing = sum(a[k] != b[k] for k in a)
    return "identical" if differing == 0 else f"{differing} of {len(a)} outputs differ"


def compare_bytes(tools, original, rewritten, input_npy, input_name, threads, workdir):
    """ORT + qwino against ORT's exact output; and, where ORT's default path is another one,
    ORT's default against its exact output (None where they are the same path)."""
    exact = run_outputs(tools, original, input_npy, input_name, threads, workdir, tools.exact_flags, False)
    qwino = run_outputs(tools, rewritten, input_npy, input_name, threads, workdir, [], True)
    default = None
    if tools.exact_flags:
        default = verdict(run_outputs(tools, original, input_npy, input_name, threads, workdir, [], False), exact)
    return verdict(qwino, exact), default


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--models", default=",".join(model_zoo.BENCH_MODELS))
    ap.add_argument("--spinning", choices=["both", "off", "on"], default="off",
                    help="ORT's intra-op spinning in both contenders (both: report each)")
    ap.add_argument("--update-doc", action="store_true")
    args = ap.parse_args()

    tools = model_zoo.Tools.find(REPO)
    workdir = tempfile.mkdtemp(prefix="qwino-ort-bench-")
    spin_modes = {"both": [False, True], "off": [False], "on": [True]}[args.spinning]
    rows = []
    for name in args.models.split(","):
        m = model_zoo.prepare(name, tools)
        for threads in [int(t) for t in args.threads.split(",")]:
            qwino_bytes, ort_default_bytes = compare_bytes(tools, m.original, m.rewritten, m.input_npy,
                                                           m.input_name, threads, workdir)
            for spinning in spin_modes:
                # ORT as users run it; ORT on its exact path where the CPU needs it for exact bytes
                # (it is slower there); ORT + qwino. Interleaved round by round.
                contenders = [("ort", m.original, False, [])]
                if tools.exact_flags:
                    contenders.append(("ort_exact", m.original, False, tools.exact_flags))
                contenders.append(("qwino", m.rewritten, True, []))
                samples = {c[0]: [] for c in contenders}
                for _ in range(args.rounds):
                    for key, model, custom, flags in contenders:
                        samples[key].append(runner_metrics(tools, model, m.input_npy, m.input_name, threads,
                                                           args.repeat, custom, spinning, workdir, flags))
                med = {k: [statistics.median(s[i] for s in v) for i in range(3)] for k, v in samples.items()}
                row = dict(model=m.title, threads=threads, spinning="on" if spinning else "off",
                           replaced=m.replaced, bytes=qwino_bytes, ort_default_bytes=ort_default_bytes,
                           ort_ms=med["ort"][0], qwino_ms=med["qwino"][0],
                           ort_conv_ms=med["ort"][1], qwino_conv_ms=med["qwino"][1],
                           qwino_transpose_ms=med["qwino"][2],
                           ort_exact_ms=med["ort_exact"][0] if "ort_exact" in med else None,
                           ort_exact_conv_ms=med["ort_exact"][1] if "ort_exact" in med else None)
                rows.append(row)
                print(json.dumps(row), flush=True)

    table = render(rows, tools)
    print(table)
    if args.update_doc:
        update_doc(table)


def render(rows, tools):
    exact = any(r["ort_exact_ms"] is not None for r in rows)
    lines = [
        f"ONNX Runtime 1.30.0 (npm onnxruntime-node, linux x64) on {tools.cpu}, qwino's kernels: "
        f"{tools.isa}. Milliseconds per inference, the median over rounds interleaved in one run; "
        "conv: time in QLinearConv nodes (ORT's or qwino's) from ORT's profile; transposes: the "
        "Transpose nodes that ORT's optimizer left in the rewritten model; ratios: ORT + qwino over "
        "ORT (below 1: qwino faster)."
        + (" ORT exact: ORT with session.x64quantprecision=1, its exact path on this CPU (without "
           "VNNI, ORT's default kernels saturate and give other bytes)." if exact else ""),
        "",
        "| model | threads | ORT ms | " + ("ORT exact ms | " if exact else "") +
        "ORT + qwino ms | ratio | " + ("vs exact | " if exact else "") +
        "ORT conv ms | qwino conv ms | conv ratio | transposes ms | convolutions to qwino | bytes vs ORT"
        + (" exact | ORT default bytes vs ORT exact" if exact else "") + " |",
        "|---|---|---|" + ("---|" if exact else "") + "---|---|" + ("---|" if exact else "") + "---|---|---|---|---|---|"
        + ("---|" if exact else ""),
    ]
    for r in rows:
        cells = [r["model"], f"{r['threads']}{'' if r['spinning'] == 'off' else ' (spinning)'}", f"{r['ort_ms']:.2f}"]
        if exact:
            cells.append(f"{r['ort_exact_ms']:.2f}")
        cells += [f"{r['qwino_ms']:.2f}", f"{r['qwino_ms'] / r['ort_ms']:.2f}"]
        if exact:
            cells.append(f"{r['qwino_ms'] / r['ort_exact_ms']:.2f}")
        replaced = re.match(r"(\d+) of (\d+)", r["replaced"])
        cells += [f"{r['ort_conv_ms']:.2f}", f"{r['qwino_conv_ms']:.2f}", f"{r['qwino_conv_ms'] / r['ort_conv_ms']:.2f}",
                  f"{r['qwino_transpose_ms']:.2f}",
                  f"{replaced.group(1)}/{replaced.group(2)}" if replaced else r["replaced"], r["bytes"]]
        if exact:
            cells.append(r["ort_default_bytes"] or "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def update_doc(table):
    path = os.path.join(REPO, "doc", "PERFORMANCE.md")
    text = open(path).read()
    begin, end = "<!-- ONNXRUNTIME BEGIN (bench/onnxruntime-models.py --update-doc) -->", "<!-- ONNXRUNTIME END -->"
    block = f"{begin}\n{table}\n{end}"
    if begin in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n## Whole models in ONNX Runtime\n\n" + block + "\n"
    open(path, "w").write(text)


if __name__ == "__main__":
    main()
