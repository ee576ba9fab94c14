#!/usr/bin/env bash
# Whole-network convolution time of qwino, one network list (bench/networks/*.txt) at a time:
# every layer through bench's qwino-conv-run (automatic algorithm), its median time times its
# count, and the total. qwino alone, one process per layer; the main job (qwino-compare,
# scripts/main-job.sh) runs the same lists through qwino and every peer.
#
#   bench/network-run.sh [-n REPEATS] [-t THREADS] NETWORK.txt...
# Environment: QWINO_BUILD_ROOT (default build/), QWINO_CONV_RUN (default
# $QWINO_BUILD_ROOT/native/bench/qwino-conv-run, built if missing).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${QWINO_BUILD_ROOT:-$repo/build}"
run="${QWINO_CONV_RUN:-$build_root/native/bench/qwino-conv-run}"
repeats=10 threads=1
while getopts "n:t:" option; do
  case "$option" in
    n) repeats="$OPTARG" ;;
    t) threads="$OPTARG" ;;
    *) echo "usage: bench/network-run.sh [-n REPEATS] [-t THREADS] NETWORK.txt..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: bench/network-run.sh [-n REPEATS] [-t THREADS] NETWORK.txt..." >&2; exit 2; }
if [ ! -x "$run" ]; then
  cmake -S "$repo" -B "$build_root/native" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build_root/native" -j "$(nproc)" --target qwino-conv-run >/dev/null
fi

for list in "$@"; do
  echo "== $(basename "$list" .txt), $threads thread(s), median of $repeats runs per layer"
  printf '%-20s %-24s %5s %-18s %10s %10s\n' layer shape count algorithm us total_us
  total=0
  while read -r name height width cin cout kernel stride padding groups count; do
    case "$name" in ''|'#'*) continue ;; esac
    line=$("$run" 1 "$height" "$width" "$cin" "$cout" -k "$kernel" -s "$stride" -p "$padding" \
           -g "$groups" -n "$repeats" -t "$threads")
    us=$(sed -n 's/.* median_us=\([^ ]*\).*/\1/p' <<<"$line")
    algorithm=$(sed -n 's/.* algorithm=\([^ ]*\).*/\1/p' <<<"$line")
    layer_total=$(awk -v u="$us" -v c="$count" 'BEGIN { printf "%.1f", u * c }')
    total=$(awk -v t="$total" -v l="$layer_total" 'BEGIN { printf "%.1f", t + l }')
    printf '%-20s %-24s %5s %-18s %10s %10s\n' "$name" \
      "${height}x${width}x${cin}>${cout}/k${kernel}s${stride}g${groups}" "$count" "$algorithm" \
      "$us" "$layer_total"
  done <"$list"
  echo "total_us=$total"
done
