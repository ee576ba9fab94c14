#!/usr/bin/env python3
"""qwino against oneDNN at each x86 ISA level this CPU has, both capped to the same level.

Runs the main job's program (qwino-compare, network mode: every convolution of the six
networks) once per level and round, with qwino capped by QWINO_ISA and oneDNN by
ONEDNN_MAX_CPU_ISA to the same instructions:
  avx2     QWINO_ISA=avx2     ONEDNN_MAX_CPU_ISA=AVX2             (oneDNN: saturating VPMADDUBSW)
  avxvnni  QWINO_ISA=avxvnni  ONEDNN_MAX_CPU_ISA=AVX2_VNNI        (AVX2 + VEX VPDPBUSD)
  avx512   QWINO_ISA=avx512   ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI (AVX-512 VNNI, no AMX)
  amx      QWINO_ISA=amx      ONEDNN_MAX_CPU_ISA=AVX512_CORE_AMX  (AVX-512 VNNI + AMX-INT8 tiles)
Contenders: qwino in TFLite mode with uint8 (qu8) and int8 (qs8_qc8w) tensors, qwino in fp32
mode (qu8_qc8w) and oneDNN int8 (fp32 requantization). Levels and rounds are interleaved
(level by level within a round); per network the table takes each contender's fastest round.
Prints a markdown table of qwino's speedup over oneDNN per level, network and mode, and with
--update-doc writes it into doc/PERFORMANCE.md between its X86-ISA-LEVELS markers.

  bench/x86-isa-levels.py [--build DIR] [--levels avx2,avxvnni,avx512,amx] [--rounds N]
                          [--threads T] [--seconds S] [--update-doc]
"""
import argparse
import csv
import datetime
import os
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
LEVELS = {
    "avx2": ("AVX2", lambda f: "avx2" in f),
    "avxvnni": ("AVX2_VNNI", lambda f: "avx2" in f and "avx_vnni" in f),
    "avx512": ("AVX512_CORE_VNNI",
               lambda f: {"avx512f", "avx512bw", "avx512vl", "avx512_vnni"} <= f),
    "amx": ("AVX512_CORE_AMX", lambda f: {"avx512_vnni", "amx_tile", "amx_int8"} <= f),
}
NETWORKS = ["resnet18", "resnet50", "vgg16", "mobilenet-v1", "mobilenet-v2", "efficientnet-lite0"]
MODES = [("qwino", "TFLite uint8"), ("qwino-qs8", "TFLite int8"), ("qwino-fp32", "fp32")]
BEGIN = "<!-- X86-ISA-LEVELS BEGIN (bench/x86-isa-levels.py --update-doc) -->"
END = "<!-- X86-ISA-LEVELS END -->"


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


def run_level(compare, level, threads, seconds, out_dir):
    onednn_isa = LEVELS[level][0]
    env = dict(os.environ, QWINO_ISA=level, ONEDNN_MAX_CPU_ISA=onednn_isa)
    cmd = [str(compare), "--network-dir", str(REPO / "bench" / "networks"), "--contenders",
           ",".join([m for m, _ in MODES] + ["onednn"]), "-t", str(threads), "--seconds",
           str(seconds), "-o", str(out_dir)]
    print(f"x86-isa-levels: QWINO_ISA={level} ONEDNN_MAX_CPU_ISA={onednn_isa} "
          f"{' '.join(cmd[1:])}", file=sys.stderr)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    times = {}
    with open(out_dir / "qwino-networks.csv") as f:
        for row in csv.DictReader(f):
            if row["kind"] == "network":
                times[row["group"]] = {c: float(row[f"{c}_ms"])
                                       for c in [m for m, _ in MODES] + ["onednn"]}
    return times


def table(best, levels, threads):
    lines = [f"{cpu_name()}, {datetime.date.today().isoformat()}, {threads} thread(s), "
             "qwino's speedup over oneDNN 2.6.3 capped to the same level (oneDNN's time / "
             "qwino's; total convolution time per network, fastest round):", ""]
    header = "| level | mode | " + " | ".join(NETWORKS) + " |"
    lines += [header, "|" + "---|" * (len(NETWORKS) + 2)]
    for level in levels:
        for mode, label in MODES:
            cells = []
            for n in NETWORKS:
                t = best[level].get(n)
                cells.append(f"{t['onednn'] / t[mode]:.2f}x" if t else "-")
            lines.append(f"| {level} | {label} | " + " | ".join(cells) + " |")
    lines += ["", "Times (ms) per network and level: qwino TFLite uint8 / int8 / fp32 mode / oneDNN.",
              "", "| level | " + " | ".join(NETWORKS) + " |", "|" + "---|" * (len(NETWORKS) + 1)]
    for level in levels:
        cells = []
        for n in NETWORKS:
            t = best[level].get(n)
            cells.append(" / ".join(f"{t[c]:.2f}" for c in [m for m, _ in MODES] + ["onednn"])
                         if t else "-")
        lines.append(f"| {level} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(REPO / "build" / "release"))
    parser.add_argument("--levels", default="avx2,avxvnni,avx512,amx")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--update-doc", action="store_true")
    args = parser.parse_args()
    compare = pathlib.Path(args.build) / "bench" / "qwino-compare"
    if not compare.exists():
        sys.exit(f"x86-isa-levels: no {compare}: build it first (bash scripts/main-job.sh --quick)")
    flags = cpu_flags()
    levels = []
    for level in args.levels.split(","):
        if level not in LEVELS:
            sys.exit(f"x86-isa-levels: unknown level {level} ({', '.join(LEVELS)})")
        if LEVELS[level][1](flags):
            levels.append(level)
        else:
            print(f"x86-isa-levels: this CPU lacks {level}, skipped", file=sys.stderr)
    if not levels:
        sys.exit("x86-isa-levels: no level to run")
    best = {level: {} for level in levels}
    with tempfile.TemporaryDirectory() as scratch:
        for r in range(args.rounds):
            for level in levels:
                times = run_level(compare, level, args.threads, args.seconds,
                                  pathlib.Path(scratch) / f"{level}-{r}")
                for n, t in times.items():
                    old = best[level].get(n)
                    best[level][n] = t if old is None else {c: min(old[c], t[c]) for c in t}
    text = table(best, levels, args.threads)
    command = (f"`bench/x86-isa-levels.py --levels {','.join(levels)} --rounds {args.rounds} "
               f"--threads {args.threads}`")
    print(text)
    if args.update_doc:
        doc = REPO / "doc" / "PERFORMANCE.md"
        content = doc.read_text()
        if BEGIN not in content or END not in content:
            sys.exit(f"x86-isa-levels: no X86-ISA-LEVELS markers in {doc}")
        head, rest = content.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        doc.write_text(head + BEGIN + "\n" + command + ":\n\n" + text + "\n" + END + tail)


if __name__ == "__main__":
    main()
