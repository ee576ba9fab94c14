// qwino-convolution-bench: google-benchmark cases for every contender (qwino automatic, qwino
// direct, and the peers this build has) on every suite layer, with the counter GMAC in
// direct-equivalent GMAC/s (H_out * W_out * Cin * Cout * k * k per run); plus, for qwino's
// Winograd path, the split of its time into input transform / GEMM / output transform (thesis
// table 3.9), which tells where Winograd loses on shallow layers.
//
//   qwino-convolution-bench [--threads=N] [google-benchmark flags, e.g. --benchmark_filter=vgg19]
// --threads sets every contender's thread count (default 1); the stage split is single-threaded.
//
// The stage split calls the three stages of every work item of a set-up operator (exposed by
// src/qwino/convolution-paths.h) with a clock around each, on the operator's own scratch.
#include <qwino.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "peers/contender.h"
#include "qwino/convolution-paths.h"
#include "qwino/operator-registry.h"
#include "qwino/operator.h"
#include "random-layer.h"

namespace {

void set_gmacs(benchmark::State& state, const LayerShape& layer) {
  state.counters["GMAC"] =
      benchmark::Counter(layer.macs() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void run_contender(benchmark::State& state, const ContenderInfo& info, const LayerShape& layer) {
  const RandomLayer data(layer);
  std::unique_ptr<Contender> contender = info.make();
  const std::string error = contender->prepare(layer, data);
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  contender->run();  // warm-up outside the timing
  for (auto _ : state) contender->run();
  set_gmacs(state, layer);
  state.SetLabel(contender->algorithm());
}

// Seconds accumulated per Winograd stage.
struct StageTimes {
  double input = 0, gemm = 0, output = 0;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One pass over every work item of a set-up Winograd operator, the three stages of each item
// timed separately (the same calls run_winograd_item makes, pass by pass).
void winograd_stages(const qwino_operator& op, char* scratch, StageTimes* times) {
  for (size_t item = 0; item < op.setup.work_items; item++) {
    const qwino::WinogradItem it = qwino::winograd_item(op, item, scratch);
    auto start = std::chrono::steady_clock::now();
    qwino::winograd_transform_input(op, it);
    times->input += seconds_since(start);
    for (size_t pass_start = 0; pass_start < it.channels; pass_start += it.schedule->channel_pass) {
      const qwino::WinogradItem pass = qwino::winograd_channel_pass(it, pass_start);
      start = std::chrono::steady_clock::now();
      qwino::winograd_multiply(op, pass);
      times->gemm += seconds_since(start);
      start = std::chrono::steady_clock::now();
      qwino::winograd_transform_output(op, pass);
      times->output += seconds_since(start);
    }
  }
}

void run_winograd_stages(benchmark::State& state, const LayerShape& layer) {
  const RandomLayer data(layer);
  qwino_operator_t op = nullptr;
  std::vector<uint8_t> output(layer.output_bytes());
  if (qwino_create_convolution2d_nhwc_q8(
          layer.top(), layer.right(), layer.bottom(), layer.left(), 3, 3, 1, 1, 1, 1, 1,
          layer.input_channels, layer.output_channels, RandomLayer::kInputZeroPoint,
          RandomLayer::kInputScale, RandomLayer::kKernelZeroPoint, RandomLayer::kKernelScale,
          data.kernel.data(), data.bias.data(), RandomLayer::kOutputZeroPoint,
          RandomLayer::kOutputScale, 0, 255, QWINO_FLAG_FORCE_WINOGRAD,
          &op) != qwino_status_success ||
      qwino_setup_convolution2d_nhwc_q8(op, 1, layer.height, layer.width, data.input.data(),
                                        layer.input_channels, output.data(), layer.output_channels,
                                        nullptr) != qwino_status_success) {
    qwino_delete_operator(op);
    state.SkipWithError("qwino Winograd operator could not be created/set up");
    return;
  }
  // The scratch of one task: a single-thread setup has exactly one.
  const qwino_operator& internals = *qwino::find_operator(op);
  char* scratch = internals.setup.scratch.get();
  StageTimes warm_up;
  winograd_stages(internals, scratch, &warm_up);
  // The stages must do the operator's work, no less: their bytes must be the operator's own.
  const std::vector<uint8_t> mirrored = output;
  if (qwino_run_operator(op, nullptr) != qwino_status_success || output != mirrored) {
    qwino_delete_operator(op);
    state.SkipWithError("stage loop output differs from qwino_run_operator's");
    return;
  }
  StageTimes times;
  for (auto _ : state) winograd_stages(internals, scratch, &times);
  const double total = times.input + times.gemm + times.output;
  state.counters["input_transform"] = times.input / total;
  state.counters["gemm"] = times.gemm / total;
  state.counters["output_transform"] = times.output / total;
  set_gmacs(state, layer);
  state.SetLabel(std::string(qwino_operator_isa_name(op)) + " kernels; 1 thread");
  qwino_delete_operator(op);
}

// Takes --threads=N out of argv (google-benchmark rejects flags it does not know).
size_t take_threads_flag(int* argc, char** argv) {
  size_t threads = 1;
  int kept = 1;
  for (int i = 1; i < *argc; i++) {
    if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      threads = std::max(1l, std::atol(argv[i] + 10));
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  return threads;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t threads = take_threads_flag(&argc, argv);
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  const std::vector<ContenderInfo> list = contenders(pool, threads);
  for (const std::string& missing : missing_peers()) {
    benchmark::AddCustomContext("skipped", missing);
  }
  benchmark::AddCustomContext("qwino kernels", qwino_isa_name());
  benchmark::AddCustomContext("threads per contender", std::to_string(threads));
  for (const LayerShape& layer : suite_layers()) {
    const std::string name = layer.network + "/" + layer.name();
    for (const ContenderInfo& info : list) {
      benchmark::RegisterBenchmark((info.name + "/" + name).c_str(), run_contender, info, layer)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
    if (layer.kernel == 3 && layer.stride == 1) {
      benchmark::RegisterBenchmark(("qwino-winograd-stages/" + name).c_str(), run_winograd_stages,
                                   layer)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (pool != nullptr) pthreadpool_destroy(pool);
  return 0;
}
