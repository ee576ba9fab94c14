#!/usr/bin/env bash
# Large images: detection-sized inputs against the 224x224 lists the other benchmarks use. For
# each network (default ResNet-18 and MobileNetV2, two common detection backbones) it writes the
# network's layer list at each input size, runs the main job's qwino-compare on them (qwino
# uint8 and int8, qwino's fp32 mode, XNNPACK qs8 and qu8, oneDNN int8 in one interleaved run) and
# prints, per network and size, each contender's speed in multiply-adds per nanosecond and the
# most heap it holds for any one layer (qwino-compare's held_bytes: packed weights, scratch,
# indirection, its output tensor), as a markdown table (build/results/large-images.md).
#
#   bash bench/large-images.sh [--update-doc] [qwino-compare options, e.g. -t 2 --seconds 0.5]
# --update-doc replaces the table in doc/PERFORMANCE.md (between its large-images markers).
# Layer sizes are the 224x224 list's scaled to the input: a layer at 1/2^k of 224 is at
# ceil(size / 2^k) (every stride-2 layer halves rounding up); paddings stay as listed.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${QWINO_BUILD_ROOT:-$repo/build}"
update_doc=0
if [ "${1:-}" = --update-doc ]; then update_doc=1; shift; fi
networks=(${QWINO_LARGE_NETWORKS:-resnet18 mobilenet-v2})
sizes=(224x224 640x640 1280x720)  # width x height
lists="$root/large-images/lists"
results="$root/large-images/results"
mkdir -p "$lists" "$results"
paths=()
for network in "${networks[@]}"; do
  for size in "${sizes[@]}"; do
    width="${size%x*}" height="${size#*x}"
    out="$lists/$network-$size.txt"
    awk -v H="$height" -v W="$width" '
      /^#/ || NF == 0 { print; next }
      { $2 = int(($2 * H + 223) / 224); $3 = int(($3 * W + 223) / 224); print }
    ' "$repo/bench/networks/$network.txt" > "$out"
    paths+=("$out")
  done
done
list_arg="$(IFS=,; echo "${paths[*]}")"
bash "$repo/scripts/main-job.sh" --networks "$list_arg" \
  --contenders qwino,qwino-qs8,qwino-fp32,xnnpack,xnnpack-qs8,onednn -o "$results" "$@" >&2

table="$results/large-images.md"
python3 - "$results/qwino-networks-layers.csv" > "$table" <<'PY'
import csv, collections, sys
rows = list(csv.DictReader(open(sys.argv[1])))
contenders = [c for c in ["qwino", "qwino-qs8", "qwino-fp32", "xnnpack", "xnnpack-qs8", "onednn"]
              if c + "_ms" in rows[0]]
macs = collections.Counter(); ms = collections.defaultdict(float); held = collections.Counter()
partial = set(); order = []
for r in rows:
    n = r["network"]
    if n not in order: order.append(n)
    macs[n] += float(r["macs"]) * int(r["count"])
    for c in contenders:
        if r[c + "_ms"] == "":
            partial.add((n, c)); continue
        ms[n, c] += float(r[c + "_ms"]) * int(r["count"])
        held[n, c] = max(held[n, c], int(r[c + "_held_bytes"] or 0))
print("| network, input | GMACs | " + " | ".join(contenders) + " |")
print("|---|---|" + "---|" * len(contenders))
for n in order:
    cells = []
    for c in contenders:
        if (n, c) in partial: cells.append("-"); continue
        cells.append("%.1f MAC/ns, %.1f MiB" % (macs[n] / (ms[n, c] * 1e6), held[n, c] / 2**20))
    print("| %s | %.2f | %s |" % (n, macs[n] / 1e9, " | ".join(cells)))
PY
cat "$table"
if [ "$update_doc" = 1 ]; then
  doc="$repo/doc/PERFORMANCE.md"
  python3 - "$doc" "$table" <<'PY'
import sys
doc, table = open(sys.argv[1]).read(), open(sys.argv[2]).read()
begin, end = "<!-- large-images: begin -->\n", "<!-- large-images: end -->"
head, rest = doc.split(begin)
open(sys.argv[1], "w").write(head + begin + table + rest[rest.index(end):])
PY
  echo "large-images.sh: updated $doc" >&2
fi
