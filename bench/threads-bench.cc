// qwino-threads-bench: google-benchmark of ResNet-18's four 3x3 layers run by qwino with 1, 2
// (and more, where the machine has the cores) pthreadpool threads: the scaling of region tiling
// across cores (doc/DESIGN.md section 5), for the automatic choice (algorithm:0) and forced
// F(2x2,3x3) (algorithm:1). Compare the `threads:1` and `threads:2` rows of a layer
// for the speedup (bench/thread-scaling.sh does it); the counter GMAC/s is direct-equivalent
// (H * W * Cin * Cout * 9).
#include <qwino.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "random-layer.h"

namespace {

void BM_resnet18_layer(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const size_t channels = static_cast<size_t>(state.range(1));
  const size_t threads = static_cast<size_t>(state.range(2));
  // 0: automatic choice, 1: forced F(2x2,3x3), 2: forced F(4x4,3x3)
  const uint32_t flags[] = {0, QWINO_FLAG_FORCE_WINOGRAD, QWINO_FLAG_FORCE_WINOGRAD_F4};
  const uint32_t algorithm_flags = flags[state.range(3)];
  if (qwino_initialize() != qwino_status_success) {
    state.SkipWithError("qwino_initialize failed");
    return;
  }
  const RandomLayer layer(1, size, size, channels, channels, 3);
  qwino_operator_t op = nullptr;
  if (qwino_create_convolution2d_nhwc_q8(
          1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, channels, channels, RandomLayer::kInputZeroPoint,
          RandomLayer::kInputScale, RandomLayer::kKernelZeroPoint, RandomLayer::kKernelScale,
          layer.kernel.data(), layer.bias.data(), RandomLayer::kOutputZeroPoint,
          RandomLayer::kOutputScale, 0, 255, algorithm_flags, &op) != qwino_status_success) {
    state.SkipWithError("create failed");
    return;
  }
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  std::vector<uint8_t> output(size * size * channels);
  if (qwino_setup_convolution2d_nhwc_q8(op, 1, size, size, layer.input.data(), channels,
                                        output.data(), channels, pool) != qwino_status_success) {
    state.SkipWithError("setup failed");
  } else {
    for (auto _ : state) {
      qwino_run_operator(op, pool);
      benchmark::ClobberMemory();
    }
    const double macs = double(size) * size * channels * channels * 9;
    state.counters["GMAC/s"] =
        benchmark::Counter(macs * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["scratch_KiB"] = double(qwino_operator_scratch_bytes(op)) / 1024;
    state.SetLabel(qwino_algorithm_name(qwino_operator_algorithm(op)));
  }
  if (pool != nullptr) pthreadpool_destroy(pool);
  qwino_delete_operator(op);
}

void resnet18_layers(benchmark::internal::Benchmark* b) {
  b->ArgNames({"hw", "c", "threads", "algorithm"});
  const long cores = std::max(2u, std::thread::hardware_concurrency());
  for (long algorithm : {0, 1}) {
    for (long size_channels : {56 * 1000 + 64, 28 * 1000 + 128, 14 * 1000 + 256, 7 * 1000 + 512}) {
      for (long threads = 1; threads <= cores; threads *= 2) {
        b->Args({size_channels / 1000, size_channels % 1000, threads, algorithm});
      }
    }
  }
  b->UseRealTime()->Unit(benchmark::kMillisecond);
  // With --benchmark_repetitions: the least disturbed repetition, next to google-benchmark's
  // mean and median (see bench/thread-scaling.sh for why on a shared machine).
  b->ComputeStatistics("min", [](const std::vector<double>& values) {
    return *std::min_element(values.begin(), values.end());
  });
}

BENCHMARK(BM_resnet18_layer)->Apply(resnet18_layers);

}  // namespace

BENCHMARK_MAIN();
