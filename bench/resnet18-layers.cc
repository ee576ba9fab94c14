// qwino-resnet18: the main job. Runs ResNet-18's four 3x3 layers (batch 1, pad 1) through qwino,
// checks the automatically chosen path (Winograd) byte for byte against the forced direct path,
// and prints a table of time per layer.
//
//   qwino-resnet18 [-n REPEATS] [-t THREADS]
// Exit status 1 if any layer's bytes differ.
#include <qwino.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "random-layer.h"

namespace {

struct Layer {
  size_t size, input_channels, output_channels;
};
constexpr Layer kLayers[] = {{56, 64, 64}, {28, 128, 128}, {14, 256, 256}, {7, 512, 512}};

void check(qwino_status status, const char* what) {
  if (status != qwino_status_success) {
    std::fprintf(stderr, "qwino-resnet18: %s failed with status %d\n", what, status);
    std::exit(2);
  }
}

// Runs one layer with the given flags; returns the median milliseconds and fills output.
double run_layer(const Layer& l, const RandomLayer& data, uint32_t flags, size_t repeats,
                 pthreadpool_t pool, std::vector<uint8_t>* output, const char** algorithm) {
  qwino_operator_t op = nullptr;
  check(qwino_create_convolution2d_nhwc_q8(
            1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, l.input_channels, l.output_channels,
            RandomLayer::kInputZeroPoint, RandomLayer::kInputScale, RandomLayer::kKernelZeroPoint,
            RandomLayer::kKernelScale, data.kernel.data(), data.bias.data(),
            RandomLayer::kOutputZeroPoint, RandomLayer::kOutputScale, 0, 255, flags, &op),
        "create");
  output->assign(l.size * l.size * l.output_channels, 0);
  check(qwino_setup_convolution2d_nhwc_q8(op, 1, l.size, l.size, data.input.data(),
                                          l.input_channels, output->data(), l.output_channels,
                                          pool),
        "setup");
  std::vector<double> ms;
  for (size_t r = 0; r < repeats; r++) {
    const auto start = std::chrono::steady_clock::now();
    check(qwino_run_operator(op, pool), "run");
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  *algorithm = qwino_algorithm_name(qwino_operator_algorithm(op));
  qwino_delete_operator(op);
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  size_t repeats = 15, threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "-n") == 0) repeats = std::max(1, std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "-t") == 0) threads = std::max(1, std::atoi(argv[i + 1]));
  }
  check(qwino_initialize(), "qwino_initialize");
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  std::printf("qwino %s kernels, %zu thread(s), median of %zu runs, batch 1, 3x3 pad 1\n\n",
              qwino_isa_name(), threads, repeats);
  std::printf("%-16s %-18s %12s %12s %9s %10s %8s\n", "layer", "auto algorithm", "auto ms",
              "direct ms", "speedup", "auto GMAC/s", "bytes");
  bool all_equal = true;
  for (const Layer& l : kLayers) {
    const RandomLayer data(1, l.size, l.size, l.input_channels, l.output_channels, 3);
    std::vector<uint8_t> fast, direct;
    const char* fast_algorithm = nullptr;
    const char* direct_algorithm = nullptr;
    const double fast_ms = run_layer(l, data, 0, repeats, pool, &fast, &fast_algorithm);
    const double direct_ms = run_layer(l, data, QWINO_FLAG_FORCE_DIRECT,
                                       std::max<size_t>(1, repeats / 5), pool, &direct,
                                       &direct_algorithm);
    const bool equal = fast == direct;
    all_equal = all_equal && equal;
    const double macs = double(l.size) * l.size * l.input_channels * l.output_channels * 9;
    char name[32];
    std::snprintf(name, sizeof(name), "%zux%zux%zu>%zu", l.size, l.size, l.input_channels,
                  l.output_channels);
    std::printf("%-16s %-18s %12.3f %12.3f %8.2fx %10.2f %8s\n", name, fast_algorithm, fast_ms,
                direct_ms, direct_ms / fast_ms, macs / fast_ms * 1e-6,
                equal ? "equal" : "DIFFER");
  }
  if (pool != nullptr) pthreadpool_destroy(pool);
  std::printf("\n%s\n", all_equal ? "all layers: Winograd output == direct output, byte for byte"
                                  : "ERROR: some layers differ between Winograd and direct");
  return all_equal ? 0 : 1;
}
