// peer-conv-run: qwino-conv-run's sibling for the contenders of bench/peers/ (qwino and the peer
// libraries this build found: XNNPACK qu8 and qs8/qc8, gemmlowp, oneDNN). It prepares one layer
// with RandomLayer's weights and data, runs it REPEATS times through the contender -c names and
// prints one line with the shape, the contender, what it ran and the median time per run.
//
// The layer is prepared once (operator creation, weight packing and setup are outside the runs),
// so an instruction-counting tool that subtracts a 1-repeat run from an 11-repeat run (the A72
// ruler's method) counts exactly ten runs: it measures the peers on any layer of
// bench/networks/*.txt or bench/layer-sets/*.txt, strided, "SAME"-padded, grouped or depthwise,
// not only on the layers the ruler's own peer drivers can express.
//
//   peer-conv-run -c CONTENDER BATCH H W CIN COUT [-k KERNEL] [-s STRIDE] [-p PADDING]
//                 [-g GROUPS] [-n REPEATS] [-t THREADS] [-z KERNEL_ZERO_POINT]
// CONTENDER: a name of contenders() (bench/peers/contenders.cc), e.g. qwino, qwino-qs8, xnnpack,
// xnnpack-qs8, gemmlowp, onednn; the usage message lists this build's. BATCH must be 1 (the
// contenders run batch-1 layers). CIN and COUT count all groups' channels; PADDING is one number
// or TOP,RIGHT,BOTTOM,LEFT (default KERNEL / 2 on every side), as qwino-conv-run takes them.
// -z: uint8 weights quantized asymmetrically with that zero point (RandomLayer::
// redraw_asymmetric_weights), for the contenders with uint8 weights; default: the symmetric ones.
// THREADS > 1: a pthreadpool of that many threads for qwino and XNNPACK, the thread count of
// gemmlowp and oneDNN (measure single-threaded under the ruler: spin loops get counted).
// The checksum is over the output as uint8 values (int8 contenders' bytes XOR 0x80, as
// Contender::output() gives them), so byte-exact contenders print the same one.
#include <pthreadpool.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "layer-arguments.h"
#include "peers/contender.h"
#include "random-layer.h"

namespace {

struct Options {
  std::string contender;
  LayerShape layer;
  size_t batch = 0;
  bool padding_given = false;
  size_t repeats = 10, threads = 1;
  int kernel_zero_point = -1;  // -1: the symmetric weights
};

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr,
               "peer-conv-run: %s\nusage: peer-conv-run -c CONTENDER BATCH H W CIN COUT "
               "[-k KERNEL] [-s STRIDE] [-p PAD|TOP,RIGHT,BOTTOM,LEFT] [-g GROUPS] [-n REPEATS] "
               "[-t THREADS] [-z KERNEL_ZERO_POINT]\n",
               message.c_str());
  std::exit(2);
}

size_t parse_size(const char* text) {
  size_t value = 0;
  if (!parse_positive_size(text, &value)) usage(std::string("not a positive integer: ") + text);
  return value;
}

void parse_padding_or_exit(const char* text, uint32_t padding[4]) {
  if (!parse_padding(text, padding)) {
    usage(std::string("bad padding (-p takes PAD or TOP,RIGHT,BOTTOM,LEFT): ") + text);
  }
}

Options parse(int argc, char** argv) {
  Options o;
  LayerShape& l = o.layer;
  l.network = "peer-conv-run";
  std::vector<size_t> positional;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg.size() == 2 && arg[0] == '-') {
      if (i + 1 >= argc) usage("missing value after " + arg);
      const char* value = argv[++i];
      switch (arg[1]) {
        case 'c':
          o.contender = value;
          break;
        case 'k':
          l.kernel = static_cast<uint32_t>(parse_size(value));
          break;
        case 's':
          l.stride = static_cast<uint32_t>(parse_size(value));
          break;
        case 'g':
          l.groups = static_cast<uint32_t>(parse_size(value));
          break;
        case 'p':
          parse_padding_or_exit(value, l.padding);
          o.padding_given = true;
          break;
        case 'n':
          o.repeats = parse_size(value);
          break;
        case 'z':
          if (!parse_kernel_zero_point(value, &o.kernel_zero_point)) usage("-z takes 1..255");
          break;
        case 't':
          o.threads = parse_size(value);
          break;
        default:
          usage("unknown option " + arg);
      }
    } else {
      positional.push_back(parse_size(argv[i]));
    }
  }
  if (o.contender.empty()) usage("-c CONTENDER is required");
  if (positional.size() != 5) usage("expected BATCH H W CIN COUT");
  o.batch = positional[0];
  l.height = positional[1];
  l.width = positional[2];
  l.input_channels = positional[3];
  l.output_channels = positional[4];
  if (o.batch != 1) usage("the contenders run batch 1 only");
  if (l.input_channels % l.groups != 0 || l.output_channels % l.groups != 0) {
    usage("CIN and COUT must be multiples of GROUPS");
  }
  if (!o.padding_given) {
    for (uint32_t& p : l.padding) p = l.kernel / 2;  // keeps the size for odd kernels
  }
  if (!l.valid()) usage("the padded input is smaller than the kernel");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const LayerShape& l = o.layer;
  pthreadpool_t pool = o.threads > 1 ? pthreadpool_create(o.threads) : nullptr;
  const std::vector<ContenderInfo> list = contenders(pool, o.threads);
  const auto info = std::find_if(list.begin(), list.end(),
                                 [&](const ContenderInfo& c) { return c.name == o.contender; });
  if (info == list.end()) {
    std::string message = "unknown contender " + o.contender + "; this build has:";
    for (const ContenderInfo& c : list) message += " " + c.name;
    for (const std::string& missing : missing_peers()) message += "\n  skipped: " + missing;
    usage(message);
  }

  RandomLayer data(l);
  if (o.kernel_zero_point >= 0) {
    data.redraw_asymmetric_weights(static_cast<uint8_t>(o.kernel_zero_point));
  }
  std::unique_ptr<Contender> contender = info->make();
  const std::string error = contender->prepare(l, data);
  if (!error.empty()) {
    std::fprintf(stderr, "peer-conv-run: %s cannot run %s: %s\n", o.contender.c_str(),
                 l.name().c_str(), error.c_str());
    return 1;
  }

  std::vector<double> seconds;
  seconds.reserve(o.repeats);
  for (size_t r = 0; r < o.repeats; r++) {
    const auto start = std::chrono::steady_clock::now();
    contender->run();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  const double median = seconds[seconds.size() / 2];
  const uint8_t* output = contender->output();
  unsigned checksum = 0;
  for (size_t i = 0; i < l.output_bytes(); i++) checksum = checksum * 31 + output[i];
  const std::string algorithm = contender->algorithm();
  std::printf(
      "shape=%zux%zux%zux%zu>%zu k=%u s=%u p=%u,%u,%u,%u g=%u threads=%zu contender=%s "
      "algorithm=%s macs=%.0f median_us=%.1f gmacs=%.2f checksum=%08x\n",
      o.batch, l.height, l.width, l.input_channels, l.output_channels, l.kernel, l.stride, l.top(),
      l.right(), l.bottom(), l.left(), l.groups, o.threads, o.contender.c_str(),
      algorithm.empty() ? "-" : algorithm.c_str(), l.macs(), median * 1e6, l.macs() / median * 1e-9,
      checksum);
  contender.reset();
  if (pool != nullptr) pthreadpool_destroy(pool);
  return 0;
}
