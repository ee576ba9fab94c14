#!/usr/bin/env python3
"""The models the ONNX Runtime tests and the whole-model benchmark share, built once into
build/onnxruntime-models/ (reused while their inputs are unchanged), and where the tools are.

Models (name: what):
  ppocr-det       PP-OCRv4 text detection, PaddleOCR's trained weights, quantized here
                  (models/quantize_ppocr.py: QDQ, int8 per-channel weights, uint8 activations),
                  640x640 input
  ppocr-det-small the same model at 96x160, for the tests
  resnet50        ResNet-50 v1.5, random weights, QDQ uint8 (models/build_networks.py), 224x224
  mobilenetv2     MobileNetV2, random weights, QDQ uint8, 224x224
Each comes with its qwino rewrite (qwino_rewrite.py) and a seeded input .npy.
"""
import os
import platform
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BENCH_MODELS = ["ppocr-det", "resnet50", "mobilenetv2"]


class Tools:
    """The runner, the custom-op library, ORT's folder and what this CPU needs for exact bytes."""

    @staticmethod
    def find(repo=REPO):
        t = Tools()
        build = os.environ.get("QWINO_ORT_BUILD", os.path.join(repo, "build", "native"))
        t.runner = os.path.join(build, "integrations", "onnxruntime", "qwino-ort-run")
        t.custom_ops = os.path.join(build, "integrations", "onnxruntime", "libqwino_onnxruntime.so")
        t.example = os.path.join(build, "integrations", "onnxruntime", "qwino-ort-example")
        for path in (t.runner, t.custom_ops):
            if not os.path.exists(path):
                sys.exit(f"{path} is missing: configure with -DQWINO_ONNXRUNTIME_DIR=$(scripts/fetch-onnxruntime.sh) "
                         "and build (scripts/test.sh onnxruntime does both)")
        t.ort_dir = subprocess.run(["bash", os.path.join(repo, "scripts", "fetch-onnxruntime.sh")], check=True,
                                   capture_output=True, text=True).stdout.strip()
        t.models_dir = os.path.join(build, "..", "onnxruntime-models")
        os.makedirs(t.models_dir, exist_ok=True)
        flags = cpu_flags()
        t.cpu = cpu_name()
        t.isa = os.environ.get("QWINO_ISA", "best")
        # ORT's U8S8 kernels multiply with VPMADDUBSW, whose int16 pair sums saturate, on x86
        # CPUs without VNNI; session.x64quantprecision=1 makes it take its exact U8U8 path.
        vnni = "avx512_vnni" in flags or "avx_vnni" in flags
        t.exact_flags = ["--x64-exact"] if platform.machine() == "x86_64" and not vnni else []
        return t


def cpu_flags():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def python():
    """Debian's python3 with onnx and numpy (a pyenv python3 on PATH may lack them)."""
    return os.environ.get("QWINO_PYTHON", sys.executable)


def _fresh(target, sources):
    return os.path.exists(target) and all(os.path.getmtime(target) >= os.path.getmtime(s) for s in sources)


def _run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def prepare(name, tools):
    """Builds (or reuses) the model, its rewrite and its input; returns their paths."""
    d = tools.models_dir
    quantize = os.path.join(HERE, "models", "quantize_ppocr.py")
    networks = os.path.join(HERE, "models", "build_networks.py")
    rewrite = os.path.join(HERE, "qwino_rewrite.py")
    if name.startswith("ppocr-det"):
        height, width = (96, 160) if name == "ppocr-det-small" else (640, 640)
        fp32 = os.path.join(tools.ort_dir, "models", "ch_PP-OCRv4_det_infer.onnx")
        original = os.path.join(d, "ppocr-det-u8.onnx")
        if not _fresh(original, [quantize, fp32]):
            _run([python(), quantize, fp32, original, "--runner", tools.runner])
        input_npy = os.path.join(d, f"ppocr-det-input-{height}x{width}.npy")
        if not _fresh(input_npy, [quantize]):
            _run([python(), quantize, "--write-input", input_npy, "--height", str(height), "--width", str(width),
                  "--seed", "7"])
        title = f"PP-OCRv4 det {height}x{width}"
        input_name = "x"
    elif name in ("resnet50", "mobilenetv2"):
        original = os.path.join(d, f"{name}-u8.onnx")
        input_npy = os.path.join(d, f"{name}-input.npy")
        if not _fresh(original, [networks]) or not _fresh(input_npy, [networks]):
            _run([python(), networks, name, original, "--runner", tools.runner, "--write-input", input_npy])
        title = {"resnet50": "ResNet-50 224x224", "mobilenetv2": "MobileNetV2 224x224"}[name]
        input_name = "input"
    else:
        raise SystemExit(f"unknown model {name}")
    rewritten = original.replace(".onnx", "-qwino.onnx")
    report_path = rewritten + ".report.txt"
    if not _fresh(rewritten, [original, rewrite]) or not os.path.exists(report_path):
        report = _run([python(), rewrite, original, rewritten, "--report"])
        open(report_path, "w").write(report)
    report = open(report_path).read()
    return types.SimpleNamespace(name=name, title=title, original=original, rewritten=rewritten,
                                 input_npy=input_npy, input_name=input_name,
                                 replaced=replaced_summary(report), report=report)


def replaced_summary(report):
    for line in reversed(report.splitlines()):
        if line.lower().startswith("total"):
            return line.split(":", 1)[-1].strip()
    return "?"
