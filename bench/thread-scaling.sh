#!/usr/bin/env bash
# The 2-thread speedup of qwino on ResNet-18's four 3x3 layers (the threading issue's benchmark):
# runs qwino-threads-bench (google-benchmark) and prints, per layer and algorithm, the 1-thread
# and 2-thread times and their ratio.
#
#   bench/thread-scaling.sh [ROUNDS]      (default 3 rounds of 30 repetitions of >= 10 ms each)
#
# On a machine whose cores are shared with other tenants, repetitions vary by +-10% or more, and
# the disturbances only ever add time (a 2-thread run waits for the more disturbed of its two
# cores). So the first figures are each configuration's best repetition over all rounds (the
# least disturbed, the machine's own speed), the last ones the medians, disturbances included.
# The rounds run one after another, so a slow spell does not hit only one of the thread counts.
# Environment: QWINO_BUILD_ROOT (default build/ in the repository), where build/release is
# configured and built if needed.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${QWINO_BUILD_ROOT:-$repo/build}/release"
rounds="${1:-3}"

if [ ! -x "$build/bench/qwino-threads-bench" ]; then
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" --target qwino-threads-bench >/dev/null
fi

for _ in $(seq "$rounds"); do
  "$build/bench/qwino-threads-bench" --benchmark_repetitions=30 --benchmark_min_time=0.01 \
    --benchmark_format=csv 2>/dev/null
done | awk -F, '
  # name: "BM_resnet18_layer/hw:28/c:128/threads:2/algorithm:0/real_time"; aggregates skipped
  /^"BM_/ && $1 !~ /_(mean|median|stddev|cv|min)"$/ {
    split($1, part, "/")
    layer = part[2] "/" part[3]; threads = part[4]; algorithm = part[5]
    key = layer SUBSEP algorithm SUBSEP threads
    times[key, ++count[key]] = $3 + 0
    seen[layer SUBSEP algorithm] = 1
  }
  function sorted_times(key,    i, j, n, t) {
    n = count[key]
    for (i = 1; i <= n; i++) sorted[i] = times[key, i]
    for (i = 2; i <= n; i++) {
      t = sorted[i]
      for (j = i - 1; j >= 1 && sorted[j] > t; j--) sorted[j + 1] = sorted[j]
      sorted[j + 1] = t
    }
    return n
  }
  # best[key] and median[key] from one sort of the times of key
  function summarize(key,    n) {
    n = sorted_times(key)
    best[key] = sorted[1]
    median[key] = sorted[int((n + 1) / 2)]
  }
  END {
    name["algorithm:0"] = "automatic"; name["algorithm:1"] = "F(2x2,3x3)"
    printf "%-18s %-11s %9s %9s %8s   %9s %9s %8s\n", "layer", "algorithm", "best 1T", "best 2T",
           "speedup", "median 1T", "median 2T", "speedup"
    for (k in seen) {
      split(k, f, SUBSEP)
      one = k SUBSEP "threads:1"; two = k SUBSEP "threads:2"
      if (count[one] > 0 && count[two] > 0) {
        summarize(one); summarize(two)
        b1 = best[one]; b2 = best[two]; m1 = median[one]; m2 = median[two]
        printf "%-18s %-11s %9.4f %9.4f %7.2fx   %9.4f %9.4f %7.2fx\n", f[1], name[f[2]],
               b1, b2, b1 / b2, m1, m2, m1 / m2
      }
    }
  }' | (read -r header; echo "$header"; sort -t: -k2,2nr -k3,3)
