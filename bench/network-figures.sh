#!/usr/bin/env bash
# Modeled whole-network convolution figures with the shared ruler (../shared/a72-ruler): every
# unique layer shape of a network list (bench/networks/*.txt) is measured once per contender
# under qemu-aarch64 with instruction counting (per run = (count at N=11 - count at N=1) / 10,
# so start-up and setup cancel out), turned into modeled cycles of the chosen core, and weighted
# by how often the network has it. Single thread, batch 1.
#
#   bench/network-figures.sh [--core a72|n1|v1|n2] [--contenders LIST] [-o DIR] NETWORK.txt...
#
# Contenders (LIST: comma-separated, default qwino,xnnpack-qu8-any,xnnpack-qs8-any,gemmlowp):
#   qwino        bench's qwino-conv-run, uint8 (qu8), automatic algorithm: every layer
#   qwino-qs8    the same with int8 activations and weights (qs8); XNNPACK's int8 contenders are
#                compared with it when it is measured, else with qwino (qwino runs int8 as uint8
#                with the sign bit flipped: on ResNet-18 the two counts differ by less than 0.1%,
#                so the default leaves this second qwino run out)
#   qwino-fp32   uint8 activations, int8 per-channel weights, fp32 requantization (-d qu8_qc8w -r
#                fp32): ONNX Runtime's QLinearConv arithmetic; the onnxruntime contender is
#                compared with it when it is measured
#   onnxruntime  ONNX Runtime 1.30's arm64 library (npm onnxruntime-node) through its C API
#                (integrations/onnxruntime's qwino-ort-run, ORT alone) on a one-node QLinearConv
#                model of the layer (bench/ort-layer-model.py: uint8 x int8 per-channel, NCHW),
#                every layer; needs build/aarch64 configured with the ORT folder (see
#                bench/onnxruntime-models-arm.sh) and python3-onnx
#   xnnpack-qu8-any  bench's peer-conv-run -c xnnpack: XNNPACK's qu8 convolution (Debian
#                XNNPACK, the main job's contender of bench/peers/) on every layer, strided,
#                asymmetric "SAME" padding, grouped and depthwise ones included
#   xnnpack-qs8-any  peer-conv-run -c xnnpack-qs8: XNNPACK int8 activations with per-channel
#                int8 weights (its qc8 operator, the main job's xnnpack-qs8), every layer
#   xnnpack-qu8  the ruler's peer-xnnpack driver (xnn_conv -d qu8)
#   xnnpack-qs8  the same, xnn_conv -d qs8 (XNNPACK's per-tensor qs8 operator, not qc8)
#   gemmlowp     the ruler's peer-gemmlowp driver (TFLite-style im2col + gemmlowp, uint8)
# The ruler's drivers (xnnpack-qu8, xnnpack-qs8, gemmlowp) take a kernel size and nothing else:
# stride 1, padding k/2 on every side, one group. Layers they cannot express (strided, "SAME"
# asymmetric padding, grouped and depthwise) are shown as "-" and left out of their totals; each
# peer's total is then compared with qwino's cycles on exactly the layers that peer ran, and the
# share of the network's MACs those layers hold is printed next to it. Nothing is estimated for
# the layers left out. The -any contenders run every layer, so their totals cover the network.
# On the layers both can run, the -any contenders and the drivers agree closely (same library;
# their data and, for int8, qc8 vs qs8 differ).
#
# peer-conv-run prepares the layer once and runs it N times, like qwino-conv-run. Both are built
# in $QWINO_BUILD_ROOT/aarch64-release against $QWINO_AARCH64_SYSROOT (cmake/aarch64-sysroot.sh,
# which has Debian's arm64 XNNPACK) and, like the drivers, run under the ruler's sysroot (qemu
# -L: its fake /proc/cpuinfo makes XNNPACK pick the kernels of the modeled core: A72 code under
# a72, SDOT/UDOT under n1, v1 and n2, which run under qemu -cpu max). That sysroot's libXNNPACK.so.0 must be the one linked against (same
# Debian package): the script checks it and stops otherwise.
#
# Prints per network a table of modeled MACs per cycle per layer and a totals table; with -o,
# also writes DIR/network-figures-CORE.csv (one row per network x contender). Results are
# cached per core, ruler, contender binary and shape under $QWINO_BUILD_ROOT/network-figures/,
# so a second run (or a network sharing shapes with another) costs nothing (counts repeat to a
# few parts per million, so the cache changes no printed figure). The -any contenders' cache is
# named by what their counted runs execute instead of the binary's bytes: peer-conv-run links
# qwino too (statically; none of it runs between the two counts), so a change to src/ would
# otherwise measure XNNPACK again. Their name hashes peer-conv-run.cc, bench/peers/'s XNNPACK
# contender and contender list, RandomLayer, bench/CMakeLists.txt, the cross compiler's version
# and the run sysroot's XNNPACK, cpuinfo, pthreadpool and libc. Progress goes to stderr.
# Environment: QWINO_RULER (the ruler's folder, default ../shared/a72-ruler beside the
# repository), QWINO_BUILD_ROOT (default build/), QWINO_AARCH64_SYSROOT (default
# $QWINO_BUILD_ROOT/aarch64-sysroot), QWINO_BUILD_JOBS (default the number of CPUs).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ruler="${QWINO_RULER:-$repo/../shared/a72-ruler}"
build_root="${QWINO_BUILD_ROOT:-$repo/build}"
all_contenders="qwino,qwino-qs8,qwino-fp32,xnnpack-qu8-any,xnnpack-qs8-any,xnnpack-qu8,xnnpack-qs8,gemmlowp,onnxruntime"
core=a72 contender_list="qwino,xnnpack-qu8-any,xnnpack-qs8-any,gemmlowp" out_dir=""
usage() {
  echo "usage: bench/network-figures.sh [--core a72|n1|v1|n2] [--contenders $all_contenders]" \
       "[-o DIR] NETWORK.txt..." >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --core) [ $# -ge 2 ] || usage; core="$2"; shift 2 ;;
    --contenders) [ $# -ge 2 ] || usage; contender_list="$2"; shift 2 ;;
    -o) [ $# -ge 2 ] || usage; out_dir="$2"; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "network-figures.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || usage
case "$core" in a72|n1|v1|n2) ;; *) echo "network-figures.sh: --core takes a72, n1, v1 or n2" >&2; exit 2 ;; esac
IFS=, read -r -a contenders <<<"$contender_list"
for c in "${contenders[@]}"; do
  case ",$all_contenders," in
    *",$c,"*) ;;
    *) echo "network-figures.sh: unknown contender $c" >&2; usage ;;
  esac
done
fail() { echo "network-figures.sh: $*" >&2; exit 2; }
for list in "$@"; do [ -r "$list" ] || fail "cannot read $list"; done
# The bench/peers/ contender an -any contender runs (peer-conv-run -c NAME).
peer_name_of() {
  case "$1" in xnnpack-qu8-any) echo xnnpack ;; xnnpack-qs8-any) echo xnnpack-qs8 ;; esac
}
# Width of the tables' contender columns: the longest selected name, at least 11.
col=11
for c in "${contenders[@]}"; do [ ${#c} -le "$col" ] || col=${#c}; done
[ -x "$ruler/measure.sh" ] || fail "no ruler at $ruler (set QWINO_RULER)"
ruler="$(cd "$ruler" && pwd)"

needs_xnnpack=0 needs_gemmlowp=0 needs_peer_run=0
for c in "${contenders[@]}"; do
  case "$c" in
    xnnpack-*-any) needs_peer_run=1 ;;
    xnnpack-*) needs_xnnpack=1 ;;
    gemmlowp) needs_gemmlowp=1 ;;
  esac
done

# --- Builds: qwino-conv-run (and peer-conv-run) for aarch64, the ruler's peer drivers ---------
bash "$repo/scripts/install-deps.sh" aarch64 >&2
sysroot="${QWINO_AARCH64_SYSROOT:-$build_root/aarch64-sysroot}"
bash "$repo/cmake/aarch64-sysroot.sh" "$sysroot" >&2
dir="$build_root/aarch64-release"
cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DQWINO_BUILD_TESTS=OFF \
  -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/aarch64-linux-gnu.cmake" \
  -DQWINO_AARCH64_SYSROOT="$sysroot" >/dev/null
targets=(qwino-conv-run)
[ "$needs_peer_run" = 0 ] || targets+=(peer-conv-run)
cmake --build "$dir" -j "${QWINO_BUILD_JOBS:-$(nproc)}" --target "${targets[@]}" >/dev/null
qwino_run="$dir/bench/qwino-conv-run"
ort_run="$build_root/aarch64/integrations/onnxruntime/qwino-ort-run"
ort_models="$build_root/network-figures/ort-layer-models"
if [[ ",$contender_list," == *,onnxruntime,* ]]; then
  [ -x "$ort_run" ] || fail "$ort_run missing: configure build/aarch64 with the ORT folder and" \
                            "build qwino-ort-run (bench/onnxruntime-models-arm.sh's header)"
  mkdir -p "$ort_models"
  # A python3 with onnx and numpy: Debian's, if the first on PATH lacks them (pyenv).
  ort_python="${QWINO_PYTHON:-}"
  for p in python3 /usr/bin/python3; do
    [ -z "$ort_python" ] && "$p" -c 'import onnx, numpy' 2>/dev/null && ort_python="$p"
  done
  [ -n "$ort_python" ] || fail "no python3 with onnx and numpy (scripts/install-deps.sh onnxruntime)"
fi
peer_run="$dir/bench/peer-conv-run"
# The ruler's settings for this core: its build folder and qemu's -cpu / -L.
ruler_build="" run_cpu="" run_sysroot=""
eval "$(RULER_CORE="$core" bash -c '. "$1/env.sh" &&
  printf "ruler_build=%q run_cpu=%q run_sysroot=%q\n" "$BUILD_DIR" "$RUN_CPU" "$RUN_SYSROOT"' \
  _ "$ruler")"
if [ "$needs_xnnpack" = 1 ] && [ ! -x "$ruler_build/peer-xnnpack/xnn_conv.aarch64" ]; then
  "$ruler/peer-xnnpack/build.sh" >&2
fi
if [ "$needs_gemmlowp" = 1 ] && [ ! -x "$ruler_build/peer-gemmlowp/gemmlowp_conv.aarch64" ]; then
  "$ruler/peer-gemmlowp/build.sh" >&2
fi
# measure.sh builds the counting plugin and the (per-core) sysroot; run it once up front so
# that the first layer's figure is not mixed with that output.
RULER_CORE="$core" bash -c '. "$1/env.sh" && "$1/qemu-insn/build.sh" && "$1/sysroot.sh"' \
  _ "$ruler" >&2
# peer-conv-run's contenders: the XNNPACK it was linked against must be the one the ruler's
# sysroot loads, and the build must have found XNNPACK at all (a short run of each says so).
peer_libs=(libXNNPACK.so.0 libcpuinfo.so.0 libpthreadpool.so.0 libc.so.6)
if [ "$needs_peer_run" = 1 ]; then
  linked="$sysroot/usr/lib/aarch64-linux-gnu/libXNNPACK.so.0"
  loaded="$run_sysroot/usr/lib/aarch64-linux-gnu/libXNNPACK.so.0"
  if ! cmp -s "$linked" "$loaded"; then
    fail "peer-conv-run is linked against $linked, but the ruler's sysroot loads $loaded" \
         "(missing or another build): make both sysroots hold the same Debian libxnnpack0"
  fi
  for c in "${contenders[@]}"; do
    case "$c" in xnnpack-*-any) ;; *) continue ;; esac
    if ! probe=$(qemu-aarch64 -cpu "$run_cpu" -L "$run_sysroot" "$peer_run" \
                 -c "$(peer_name_of "$c")" 1 4 4 2 2 -k 1 -n 1 2>&1 >/dev/null); then
      fail "peer-conv-run cannot run $c: $(head -n 3 <<<"$probe")"
    fi
  done
fi

binary_of() {
  case "$1" in
    qwino|qwino-qs8|qwino-fp32) echo "$qwino_run" ;;
    onnxruntime) echo "$ort_run" ;;
    xnnpack-*-any) echo "$peer_run" ;;
    xnnpack-*) echo "$ruler_build/peer-xnnpack/xnn_conv.aarch64" ;;
    gemmlowp) echo "$ruler_build/peer-gemmlowp/gemmlowp_conv.aarch64" ;;
  esac
}
# Cache folders named by the core, the ruler's counting and model files and the contender's
# binary: a change to any of them measures again.
ruler_hash=$(cat "$ruler/measure.sh" "$ruler/a72-model.py" "$ruler/core-model.py" \
             "$ruler/n1-classes.json" "$ruler/qemu-insn/insn_count.c" 2>/dev/null |
             md5sum | cut -c1-8)
# What the -any contenders' counted runs execute (see the header): not peer-conv-run's bytes.
peer_run_hash() {
  {
    cat "$repo/bench/peer-conv-run.cc" "$repo/bench/peers/xnnpack-convolution.cc" \
        "$repo/bench/peers/contenders.cc" "$repo/bench/peers/contender.h" \
        "$repo/bench/random-layer.h" "$repo/bench/CMakeLists.txt"
    aarch64-linux-gnu-g++ --version | head -n 1
    for lib in "${peer_libs[@]}"; do cat "$run_sysroot/usr/lib/aarch64-linux-gnu/$lib"; done
  } | md5sum | cut -c1-12
}
declare -A cache_dir
for c in "${contenders[@]}"; do
  case "$c" in
    xnnpack-*-any) hash=$(peer_run_hash) ;;
    onnxruntime) hash=$(cat "$ort_run" "$repo/bench/ort-layer-model.py" | md5sum | cut -c1-12) ;;
    *) hash=$(md5sum "$(binary_of "$c")" | cut -c1-12) ;;
  esac
  cache_dir[$c]="$build_root/network-figures/$core-$ruler_hash/$c-$hash"
  mkdir -p "${cache_dir[$c]}"
done
source_label=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo "(not a git checkout)")
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 &&
   ! git -C "$repo" diff --quiet HEAD -- src include CMakeLists.txt 2>/dev/null; then
  source_label="$source_label with uncommitted changes in src/ or include/"
fi

# Arguments of one contender for one layer ({N} = repeats), or nothing if it cannot run it.
# Layer: h w cin cout k s padding(t,r,b,l) groups.
contender_args() {
  local c="$1" h="$2" w="$3" cin="$4" cout="$5" k="$6" s="$7" pad="$8" g="$9"
  local half=$((k / 2))
  case "$c" in
    qwino) echo "1 $h $w $cin $cout -k $k -s $s -p $pad -g $g -d qu8 -n {N}" ;;
    qwino-qs8) echo "1 $h $w $cin $cout -k $k -s $s -p $pad -g $g -d qs8 -n {N}" ;;
    qwino-fp32)
      echo "1 $h $w $cin $cout -k $k -s $s -p $pad -g $g -d qu8_qc8w -r fp32 -n {N}" ;;
    onnxruntime)
      local model="$ort_models/${h}x${w}x${cin}-${cout}-k$k-s$s-p$pad-g$g"
      [ -s "$model.npy" ] || "$ort_python" "$repo/bench/ort-layer-model.py" \
        "$h" "$w" "$cin" "$cout" "$k" "$s" "$pad" "$g" "$model.onnx" "$model.npy" >&2
      echo "$model.onnx --input x=$model.npy --repeat {N}" ;;
    xnnpack-*-any)
      echo "-c $(peer_name_of "$c") 1 $h $w $cin $cout -k $k -s $s -p $pad -g $g -n {N}" ;;
    xnnpack-*|gemmlowp)
      [ "$s" = 1 ] && [ "$g" = 1 ] && [ "$pad" = "$half,$half,$half,$half" ] || return 0
      case "$c" in
        xnnpack-*) echo "-d ${c#xnnpack-} -q -k $k -n {N} 1 $h $w $cin $cout" ;;
        gemmlowp) echo "-q -k $k -n {N} 1 $h $w $cin $cout" ;;
      esac ;;
  esac
}

# Modeled cycles of one run (cached): prints them, or "fail".
measure() {
  local c="$1" key="$2" macs="$3"; shift 3
  local file="${cache_dir[$c]}/$key.model"
  if [ ! -s "$file" ]; then
    local line
    if line=$("$ruler/measure.sh" --core "$core" --macs "$macs" -- "$(binary_of "$c")" "$@" \
              2>"$file.stderr" | grep '^MODEL'); then
      echo "$line" >"$file"
    else
      echo "network-figures.sh: $c failed on $key (see $file.stderr)" >&2
      echo "fail"
      return 0
    fi
  fi
  local model
  model=$(cat "$file")
  sed -n 's/.* cycles=\([^ ]*\).*/\1/p' <<<"$model"
}

# qwino's chosen algorithm on this core (cached; one plain qemu run, no counting).
algorithm_of() {
  local key="$1"; shift
  local file="${cache_dir[qwino]:-$build_root/network-figures/$core}/$key.algorithm"
  if [ ! -s "$file" ]; then
    qemu-aarch64 -cpu "$run_cpu" -L "$run_sysroot" "$qwino_run" "$@" -n 1 2>/dev/null |
      sed -n 's/.* algorithm=\([^ ]*\).*/\1/p' >"$file" || true
  fi
  cat "$file"
}

# The qwino contender a peer is compared with: the int8 one for XNNPACK's int8 path when it is
# measured, else the uint8 one; none for qwino's own rows.
reference_of() {
  case "$1" in
    qwino|qwino-qs8|qwino-fp32) echo "" ;;
    xnnpack-qs8|xnnpack-qs8-any)
      case ",$contender_list," in *,qwino-qs8,*) echo qwino-qs8 ;; *) echo qwino ;; esac ;;
    onnxruntime)
      case ",$contender_list," in *,qwino-fp32,*) echo qwino-fp32 ;; *) echo qwino ;; esac ;;
    *) echo qwino ;;
  esac
}

if [ -n "$out_dir" ]; then
  mkdir -p "$out_dir"
  csv="$out_dir/network-figures-$core.csv"
  printf '%s%s\n' "network,core,contender,layers_run,layers_total,macs_run,macs_total,cycles," \
    "macs_per_cycle,compared_with,compared_cycles_same_layers,qwino_speedup" >"$csv"
fi

for list in "$@"; do
  network=$(basename "$list" .txt)
  # Unique shapes in order of first appearance, with their summed counts and first name.
  declare -A count_of=() name_of=()
  keys=()
  while read -r name height width cin cout kernel stride padding groups count; do
    case "$name" in ''|'#'*) continue ;; esac
    key="${height}x${width}x${cin}-${cout}-k${kernel}-s${stride}-p${padding//,/.}-g${groups}"
    if [ -z "${count_of[$key]:-}" ]; then
      keys+=("$key"); count_of[$key]=0
      name_of[$key]="$name|$height|$width|$cin|$cout|$kernel|$stride|$padding|$groups"
    else
      first="${name_of[$key]%%|*}"
      name_of[$key]="${first%+}+|${name_of[$key]#*|}"
    fi
    count_of[$key]=$((count_of[$key] + count))
  done <"$list"

  echo "== $network: modeled $core (ruler: qemu-aarch64 -cpu $run_cpu, instruction counts," \
       "$core model), 1 thread, batch 1, qwino $source_label"
  echo "   direct-equivalent MACs per modeled cycle per layer (count = instances in the network)"
  header=$(printf '%-20s %5s %-32s %-18s' layer count shape "qwino algorithm")
  for c in "${contenders[@]}"; do header+=$(printf ' %*s' "$col" "$c"); done
  echo "$header"
  unset total_cycles run_macs run_layers qwino_same
  declare -A total_cycles=() run_macs=() run_layers=() qwino_same=()
  network_macs=0 network_layers=0
  index=0
  for key in "${keys[@]}"; do
    index=$((index + 1))
    IFS='|' read -r name height width cin cout kernel stride padding groups <<<"${name_of[$key]}"
    count=${count_of[$key]}
    IFS=, read -r top right bottom left <<<"$padding"
    oh=$(( (height + top + bottom - kernel) / stride + 1 ))
    ow=$(( (width + left + right - kernel) / stride + 1 ))
    macs=$(( oh * ow * cout * (cin / groups) * kernel * kernel ))
    network_macs=$((network_macs + macs * count))
    network_layers=$((network_layers + count))
    shape="${height}x${width}x${cin}>${cout} ${kernel}x${kernel}/${stride}"
    [ "$groups" = 1 ] || { [ "$groups" = "$cin" ] && shape+=" dw" || shape+=" g$groups"; }
    half=$((kernel / 2))
    [ "$padding" = "$half,$half,$half,$half" ] || shape+=" p$padding"
    algorithm="-"
    row=""
    declare -A cycles_of=()
    for c in "${contenders[@]}"; do
      args=$(contender_args "$c" "$height" "$width" "$cin" "$cout" "$kernel" "$stride" \
             "$padding" "$groups")
      if [ -z "$args" ]; then row+=$(printf ' %*s' "$col" "-"); continue; fi
      echo "network-figures.sh: [$network $index/${#keys[@]}] $core $c $name $shape" >&2
      # shellcheck disable=SC2086
      cycles=$(measure "$c" "$key" "$macs" $args)
      if [ "$cycles" = fail ] || [ -z "$cycles" ]; then row+=$(printf ' %*s' "$col" "fail"); continue; fi
      cycles_of[$c]=$cycles
      row+=$(awk -v m="$macs" -v y="$cycles" -v w="$col" 'BEGIN { printf " %*.2f", w, m / y }')
      if [ "$c" = qwino ]; then
        algorithm=$(algorithm_of "$key" 1 "$height" "$width" "$cin" "$cout" -k "$kernel" \
                    -s "$stride" -p "$padding" -g "$groups" -d qu8)
      fi
    done
    for c in "${contenders[@]}"; do
      [ -n "${cycles_of[$c]:-}" ] || continue
      total_cycles[$c]=$(( ${total_cycles[$c]:-0} + ${cycles_of[$c]} * count ))
      run_macs[$c]=$(( ${run_macs[$c]:-0} + macs * count ))
      run_layers[$c]=$(( ${run_layers[$c]:-0} + count ))
      reference=$(reference_of "$c")
      [ -z "$reference" ] || [ -z "${cycles_of[$reference]:-}" ] ||
        qwino_same[$c]=$(( ${qwino_same[$c]:-0} + ${cycles_of[$reference]} * count ))
    done
    unset cycles_of
    printf '%-20s %5s %-32s %-18s%s\n' "$name" "$count" "$shape" "$algorithm" "$row"
  done
  [ "$needs_xnnpack$needs_gemmlowp" = 00 ] ||
    echo "   -: the ruler's driver takes stride 1, padding k/2 on every side and one group only"
  echo
  echo "$network totals, modeled $core: layers weighted by their count; a peer's total covers" \
       "the layers it ran"
  printf '%-*s %12s %8s %12s %11s %-10s %12s %13s\n' "$col" contender "layers run" "MACs" "Mcycles" \
    "MACs/cycle" "vs" "its same" "qwino speedup"
  for c in "${contenders[@]}"; do
    reference=$(reference_of "$c")
    if [ -z "${total_cycles[$c]:-}" ]; then
      printf '%-*s %12s %8s %12s %11s %-10s %12s %13s\n' "$col" "$c" "0/$network_layers" "0%" - - - - -
      [ -z "${csv:-}" ] || echo "$network,$core,$c,0,$network_layers,0,$network_macs,,,,," >>"$csv"
      continue
    fi
    awk -v c="$c" -v ref="$reference" -v lr="${run_layers[$c]}" -v lt="$network_layers" \
        -v mr="${run_macs[$c]}" -v mt="$network_macs" -v y="${total_cycles[$c]}" \
        -v q="${qwino_same[$c]:-0}" -v net="$network" -v core="$core" -v csv="${csv:-}" \
        -v w="$col" 'BEGIN {
      same = q > 0 ? sprintf("%.2f", mr / q) : "-"
      speedup = q > 0 ? sprintf("%.2fx", y / q) : "-"
      printf "%-*s %12s %7.1f%% %12.2f %11.2f %-10s %12s %13s\n", w, c, lr "/" lt, 100 * mr / mt,
             y / 1e6, mr / y, ref == "" ? "-" : ref, same, speedup
      if (csv != "") {
        qs = q > 0 ? sprintf("%.0f", q) : ""
        ss = q > 0 ? sprintf("%.4f", y / q) : ""
        printf("%s,%s,%s,%d,%d,%.0f,%.0f,%.0f,%.4f,%s,%s,%s\n", net, core, c, lr, lt, mr, mt, y,
               mr / y, ref, qs, ss) >> csv
      }
    }'
  done
  echo "   layers run: layer instances the contender ran; MACs: their share of the network's MACs;"
  echo "   vs / its same: the qwino contender it is compared with and that one's MACs/cycle on"
  echo "   the same layers; qwino speedup: the contender's modeled cycles / qwino's on those layers"
  echo
  unset count_of name_of total_cycles run_macs run_layers qwino_same
done
[ -z "${csv:-}" ] || echo "wrote $csv" >&2
