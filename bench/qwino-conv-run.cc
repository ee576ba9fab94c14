// qwino-conv-run: create one convolution with random weights and data, run it REPEATS times and
// print one line with the shape, the algorithm and the median time per run.
//
// It links only qwino, cpuinfo and pthreadpool, so it runs wherever the library runs and under
// instruction-counting tools (the A72 ruler subtracts a 1-repeat run from an 11-repeat run, so
// everything but the runs themselves cancels out).
//
//   qwino-conv-run BATCH H W CIN COUT [-k KERNEL] [-s STRIDE] [-p PADDING] [-g GROUPS]
//                  [-n REPEATS] [-t THREADS]
//                  [-a auto|winograd|winograd-f4|direct|indirect|depthwise]
//                  [-d qu8|qs8|qs8_qc8w|qu8_qc8w] [-r gemmlowp|fp32] [-z KERNEL_ZERO_POINT]
// CIN and COUT count all groups' channels; PADDING is one number or TOP,RIGHT,BOTTOM,LEFT
// (default KERNEL / 2 on every side), so that any layer of bench/networks/ can be run alone.
// -d picks the data types (qwino.h; default qu8) and -r the requantization: int8 tensors hold the
// same random values shifted by -128, per-channel kernel scales vary by a few percent. -z (qu8
// only): uint8 weights quantized asymmetrically with that zero point, over the whole byte range
// (RandomLayer::redraw_asymmetric_weights), as uint8 models have them.
#include <qwino.h>

#include "layer-arguments.h"
#include "random-layer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Options {
  size_t batch = 0, height = 0, width = 0, input_channels = 0, output_channels = 0;
  uint32_t kernel = 3, stride = 1, groups = 1;
  bool padding_given = false;
  uint32_t padding[4] = {0, 0, 0, 0};  // top, right, bottom, left
  size_t repeats = 10, threads = 1;
  uint32_t flags = 0;
  std::string datatype = "qu8";
  bool requantize_fp32 = false;
  int kernel_zero_point = -1;  // -1: the symmetric weights
  bool relu = false;           // output_min = the output zero point (a fused ReLU)
};

[[noreturn]] void usage(const char* message) {
  std::fprintf(
      stderr,
      "qwino-conv-run: %s\nusage: qwino-conv-run BATCH H W CIN COUT [-k KERNEL] "
      "[-s STRIDE] [-p PAD|TOP,RIGHT,BOTTOM,LEFT] [-g GROUPS] [-n REPEATS] [-t THREADS] "
      "[-a auto|winograd|winograd-f4|direct|indirect|depthwise] [-d qu8|qs8|qs8_qc8w|qu8_qc8w] "
      "[-r gemmlowp|fp32] [-z KERNEL_ZERO_POINT] [-c none|relu]\n",
      message);
  std::exit(2);
}

size_t parse_size(const char* text) {
  size_t value = 0;
  if (!parse_positive_size(text, &value)) {
    usage((std::string("not a positive integer: ") + text).c_str());
  }
  return value;
}

void parse_padding_or_exit(const char* text, uint32_t padding[4]) {
  if (!parse_padding(text, padding)) {
    usage((std::string("bad padding (-p takes PAD or TOP,RIGHT,BOTTOM,LEFT): ") + text).c_str());
  }
}

Options parse(int argc, char** argv) {
  Options o;
  std::vector<size_t> positional;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg.size() == 2 && arg[0] == '-') {
      if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
      const char* value = argv[++i];
      switch (arg[1]) {
        case 'k':
          o.kernel = static_cast<uint32_t>(parse_size(value));
          break;
        case 's':
          o.stride = static_cast<uint32_t>(parse_size(value));
          break;
        case 'g':
          o.groups = static_cast<uint32_t>(parse_size(value));
          break;
        case 'p':
          parse_padding_or_exit(value, o.padding);
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
        case 'a':
          if (std::strcmp(value, "auto") == 0)
            o.flags = 0;
          else if (std::strcmp(value, "winograd") == 0)
            o.flags = QWINO_FLAG_FORCE_WINOGRAD;
          else if (std::strcmp(value, "winograd-f4") == 0)
            o.flags = QWINO_FLAG_FORCE_WINOGRAD_F4;
          else if (std::strcmp(value, "direct") == 0)
            o.flags = QWINO_FLAG_FORCE_DIRECT;
          else if (std::strcmp(value, "indirect") == 0)
            o.flags = QWINO_FLAG_FORCE_INDIRECT_GEMM;
          else if (std::strcmp(value, "depthwise") == 0)
            o.flags = QWINO_FLAG_FORCE_DEPTHWISE;
          else
            usage("-a takes auto, winograd, winograd-f4, direct, indirect or depthwise");
          break;
        case 'd':
          o.datatype = value;
          if (o.datatype != "qu8" && o.datatype != "qs8" && o.datatype != "qs8_qc8w" &&
              o.datatype != "qu8_qc8w") {
            usage("-d takes qu8, qs8, qs8_qc8w or qu8_qc8w");
          }
          break;
        case 'c':
          if (std::strcmp(value, "relu") == 0)
            o.relu = true;
          else if (std::strcmp(value, "none") != 0)
            usage("-c takes none or relu");
          break;
        case 'r':
          if (std::strcmp(value, "fp32") == 0)
            o.requantize_fp32 = true;
          else if (std::strcmp(value, "gemmlowp") != 0)
            usage("-r takes gemmlowp or fp32");
          break;
        default:
          usage(("unknown option " + arg).c_str());
      }
    } else {
      positional.push_back(parse_size(argv[i]));
    }
  }
  if (positional.size() != 5) usage("expected BATCH H W CIN COUT");
  o.batch = positional[0];
  o.height = positional[1];
  o.width = positional[2];
  o.input_channels = positional[3];
  o.output_channels = positional[4];
  if (o.input_channels % o.groups != 0 || o.output_channels % o.groups != 0) {
    usage("CIN and COUT must be multiples of GROUPS");
  }
  if (!o.padding_given) {
    for (uint32_t& p : o.padding) p = o.kernel / 2;  // keeps the size for odd kernels
  }
  return o;
}

void check(qwino_status status, const char* what) {
  if (status != qwino_status_success) {
    std::fprintf(stderr, "qwino-conv-run: %s failed with status %d\n", what, status);
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  check(qwino_initialize(), "qwino_initialize");

  RandomLayer layer(o.batch, o.height, o.width, o.input_channels, o.output_channels, o.kernel, 42,
                    o.groups);
  const uint32_t top = o.padding[0], right = o.padding[1], bottom = o.padding[2],
                 left = o.padding[3];
  const uint32_t flags = o.flags | (o.requantize_fp32 ? QWINO_FLAG_REQUANTIZE_FP32 : 0u);
  const bool int8_activations = o.datatype == "qs8" || o.datatype == "qs8_qc8w";
  // int8 weights are symmetric: the random weights centred on their zero point (128) become
  // int8 values centred on 0; int8 activations keep their zero point's offset too.
  if (o.kernel_zero_point >= 0) {
    if (o.datatype != "qu8") usage("-z needs -d qu8 (uint8 weights)");
    layer.redraw_asymmetric_weights(static_cast<uint8_t>(o.kernel_zero_point));
  }
  if (o.datatype != "qu8") {
    for (uint8_t& w : layer.kernel) w ^= 0x80;
  }
  if (int8_activations) {
    for (uint8_t& x : layer.input) x ^= 0x80;
  }
  std::vector<float> kernel_scales(o.output_channels);
  for (size_t c = 0; c < kernel_scales.size(); c++) {
    kernel_scales[c] = RandomLayer::kKernelScale * (1.0f + 0.01f * static_cast<float>(c % 7));
  }
  const auto* kernel_s8 = reinterpret_cast<const int8_t*>(layer.kernel.data());
  const int8_t izp_s8 = static_cast<int8_t>(RandomLayer::kInputZeroPoint - 128);
  const int8_t ozp_s8 = static_cast<int8_t>(RandomLayer::kOutputZeroPoint - 128);
  const uint32_t gic = static_cast<uint32_t>(o.input_channels / o.groups);
  const uint32_t goc = static_cast<uint32_t>(o.output_channels / o.groups);
  // The output clamp: the whole range, or from the zero point up (a ReLU fused into the layer).
  const uint8_t output_min = o.relu ? RandomLayer::kOutputZeroPoint : 0;
  const int8_t output_min_s8 = o.relu ? ozp_s8 : -128;
  qwino_operator_t op = nullptr;
  qwino_status created;
  if (o.datatype == "qs8") {
    created = qwino_create_convolution2d_nhwc_qs8(
        top, right, bottom, left, o.kernel, o.kernel, o.stride, o.stride, 1, 1, o.groups, gic, goc,
        izp_s8, RandomLayer::kInputScale, RandomLayer::kKernelScale, kernel_s8, layer.bias.data(),
        ozp_s8, RandomLayer::kOutputScale, output_min_s8, 127, flags, &op);
  } else if (o.datatype == "qs8_qc8w") {
    created = qwino_create_convolution2d_nhwc_qs8_qc8w(
        top, right, bottom, left, o.kernel, o.kernel, o.stride, o.stride, 1, 1, o.groups, gic, goc,
        izp_s8, RandomLayer::kInputScale, kernel_scales.data(), kernel_s8, layer.bias.data(),
        ozp_s8, RandomLayer::kOutputScale, output_min_s8, 127, flags, &op);
  } else if (o.datatype == "qu8_qc8w") {
    created = qwino_create_convolution2d_nhwc_qu8_qc8w(
        top, right, bottom, left, o.kernel, o.kernel, o.stride, o.stride, 1, 1, o.groups, gic, goc,
        RandomLayer::kInputZeroPoint, RandomLayer::kInputScale, kernel_scales.data(), kernel_s8,
        layer.bias.data(), RandomLayer::kOutputZeroPoint, RandomLayer::kOutputScale, output_min,
        255, flags, &op);
  } else {
    created = qwino_create_convolution2d_nhwc_qu8(
        top, right, bottom, left, o.kernel, o.kernel, o.stride, o.stride, 1, 1, o.groups, gic, goc,
        RandomLayer::kInputZeroPoint, RandomLayer::kInputScale, layer.kernel_zero_point,
        RandomLayer::kKernelScale, layer.kernel.data(), layer.bias.data(),
        RandomLayer::kOutputZeroPoint, RandomLayer::kOutputScale, output_min, 255, flags, &op);
  }
  check(created, "create");
  pthreadpool_t pool = o.threads > 1 ? pthreadpool_create(o.threads) : nullptr;
  if (o.height + top + bottom < o.kernel || o.width + left + right < o.kernel) {
    usage("the padded input is smaller than the kernel");
  }
  const size_t output_height = (o.height + top + bottom - o.kernel) / o.stride + 1;
  const size_t output_width = (o.width + left + right - o.kernel) / o.stride + 1;
  std::vector<uint8_t> output(o.batch * output_height * output_width * o.output_channels);
  check(
      int8_activations
          ? qwino_setup_convolution2d_nhwc_qs8(
                op, o.batch, o.height, o.width, reinterpret_cast<const int8_t*>(layer.input.data()),
                o.input_channels, reinterpret_cast<int8_t*>(output.data()), o.output_channels, pool)
          : qwino_setup_convolution2d_nhwc_qu8(op, o.batch, o.height, o.width, layer.input.data(),
                                               o.input_channels, output.data(), o.output_channels,
                                               pool),
      "setup");

  std::vector<double> seconds;
  for (size_t r = 0; r < o.repeats; r++) {
    const auto start = std::chrono::steady_clock::now();
    check(qwino_run_operator(op, pool), "run");
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  const double median = seconds[seconds.size() / 2];
  const double macs = double(o.batch) * output_height * output_width * o.output_channels *
                      (o.input_channels / o.groups) * o.kernel * o.kernel;
  unsigned checksum = 0;
  for (uint8_t y : output) checksum = checksum * 31 + y;
  std::printf(
      "shape=%zux%zux%zux%zu>%zu k=%u s=%u p=%u,%u,%u,%u g=%u threads=%zu type=%s "
      "requantization=%s clamp=%s algorithm=%s isa=%s macs=%.0f median_us=%.1f gmacs=%.2f "
      "checksum=%08x\n",
      o.batch, o.height, o.width, o.input_channels, o.output_channels, o.kernel, o.stride, top,
      right, bottom, left, o.groups, o.threads, o.datatype.c_str(),
      o.requantize_fp32 ? "fp32" : "gemmlowp", o.relu ? "relu" : "none",
      qwino_algorithm_name(qwino_operator_algorithm(op)), qwino_operator_isa_name(op), macs,
      median * 1e6, macs / median * 1e-9, checksum);
  qwino_delete_operator(op);
  if (pool != nullptr) pthreadpool_destroy(pool);
  return 0;
}
