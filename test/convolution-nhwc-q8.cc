// End-to-end tests of qwino_create/setup/run for uint8 NHWC convolution against the independent
// reference (reference-convolution.h), through ConvolutionOperatorTester:
//   (a) seeded random sweeps of shapes, zero points, clamps, groups and pixel strides, on the
//       Winograd path (auto and forced), the forced direct path, and non-3x3 shapes;
//   (b) named edge cases: the Winograd exactness bound, extreme inputs/weights/biases,
//       requantization scales at the ends of the supported range, narrow clamps, big layers,
//       repeated setup.
#include <qwino.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "convolution-operator-tester.h"

using qwino_test::ConvolutionOperatorTester;
using Mode = ConvolutionOperatorTester::Mode;
using Fill = ConvolutionOperatorTester::Fill;
using BiasMode = ConvolutionOperatorTester::BiasMode;

namespace {

// Every way to create an operator: automatic, forced F(2x2,3x3), forced direct, forced 8-bit
// indirect GEMM (create refuses it for weights it cannot take: the tester expects that), forced
// depthwise (refused unless every group has one input and one output channel), and
// forced F(4x4,3x3) when this build and kernel set have it.
std::vector<Mode> AllModes() {
  std::vector<Mode> modes = {Mode::kAuto, Mode::kForceWinograd, Mode::kForceDirect,
                             Mode::kForceIndirect, Mode::kForceDepthwise};
  if (qwino_test::WinogradF4Available()) modes.push_back(Mode::kForceWinogradF4);
  return modes;
}

// Which algorithms the tests of this process ran (printed after the sweeps).
void PrintObservedAlgorithms(const char* what) {
  std::string line;
  const auto& counts = qwino_test::ObservedAlgorithms();
  for (unsigned a = 0; a < counts.size(); a++) {
    if (counts[a] == 0) continue;
    line += std::string(line.empty() ? "" : ", ") +
            qwino_algorithm_name(static_cast<qwino_algorithm>(a)) + " " + std::to_string(counts[a]);
  }
  std::printf("[ algorithms ] %s (%s): %s setups\n", what, qwino_isa_name(), line.c_str());
}

// ------------------------------------------------------------------------------------------
// (a) Random sweeps.

int Uniform(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

// Channel counts: mostly small (fast), sometimes up to 70, hitting 1 and multiples of 8 +- 1.
size_t RandomChannels(std::mt19937& rng) {
  switch (Uniform(rng, 0, 5)) {
    case 0:
      return 1;
    case 1:
      return static_cast<size_t>(8 * Uniform(rng, 1, 4) + Uniform(rng, -1, 1));
    case 2:
      return static_cast<size_t>(Uniform(rng, 17, 70));
    default:
      return static_cast<size_t>(Uniform(rng, 1, 16));
  }
}

uint8_t RandomZeroPoint(std::mt19937& rng) {
  switch (Uniform(rng, 0, 4)) {
    case 0:
      return 0;
    case 1:
      return 128;
    case 2:
      return 255;
    default:
      return static_cast<uint8_t>(Uniform(rng, 0, 255));
  }
}

// Everything except the kernel geometry and the mode.
void RandomizeCommon(ConvolutionOperatorTester& t, std::mt19937& rng, bool small) {
  const int batch_pick = Uniform(rng, 0, 9);
  t.batch_size(batch_pick < 7 ? 1 : batch_pick < 9 ? 2 : 3);
  const int max_size = small ? 12 : 20;
  t.input_size(Uniform(rng, 1, max_size), Uniform(rng, 1, max_size));
  t.padding(Uniform(rng, 0, 2), Uniform(rng, 0, 2), Uniform(rng, 0, 2), Uniform(rng, 0, 2));
  const int group_pick = Uniform(rng, 0, 9);
  const uint32_t groups = group_pick < 7 ? 1 : static_cast<uint32_t>(Uniform(rng, 2, 4));
  t.groups(groups);
  size_t ic = RandomChannels(rng), oc = RandomChannels(rng);
  if (groups > 1) {
    ic = (ic + 1) / 2;
    oc = (oc + 1) / 2;
  }
  t.group_input_channels(ic).group_output_channels(oc);
  if (Uniform(rng, 0, 3) == 0) t.input_pixel_stride(groups * ic + Uniform(rng, 1, 17));
  if (Uniform(rng, 0, 3) == 0) t.output_pixel_stride(groups * oc + Uniform(rng, 1, 17));
  t.input_zero_point(RandomZeroPoint(rng)).kernel_zero_point(RandomZeroPoint(rng));
  switch (Uniform(rng, 0, 5)) {
    case 0:
      t.qmin(static_cast<uint8_t>(Uniform(rng, 0, 100)))
          .qmax(static_cast<uint8_t>(Uniform(rng, 150, 255)));
      break;
    case 1: {
      const int lo = Uniform(rng, 0, 250);
      t.qmin(static_cast<uint8_t>(lo)).qmax(static_cast<uint8_t>(lo + Uniform(rng, 0, 5)));
      break;
    }
    default:
      break;
  }
  switch (Uniform(rng, 0, 7)) {
    case 0:
      t.bias(BiasMode::kNull);
      break;
    case 1:
      t.bias(BiasMode::kFullRange);
      break;
    case 2:
      t.bias(BiasMode::kZero);
      break;
    default:
      t.bias(BiasMode::kRandom);
      break;
  }
  // Scales: the output scale follows from the accumulator range; vary the input/kernel ones.
  t.input_scale(std::ldexp(1.0f + Uniform(rng, 0, 1000) / 1000.0f, Uniform(rng, -8, 2)));
  t.kernel_scale(std::ldexp(1.0f + Uniform(rng, 0, 1000) / 1000.0f, Uniform(rng, -8, 2)));
  t.seed(static_cast<uint32_t>(rng()));
}

// Thread pools for a random case: all of 1, 2, 3, 4, 8 on every eighth case, one random count on
// the others (each pool costs thread wake-ups that dominate small cases on a loaded machine or
// under qemu; the named tests below all use the full set).
void RandomThreadCounts(ConvolutionOperatorTester& t, std::mt19937& rng, size_t case_index) {
  if (case_index % 8 == 0) {
    t.thread_counts({1, 2, 3, 4, 8});
  } else {
    const size_t counts[] = {2, 3, 4, 8};
    t.thread_counts({counts[Uniform(rng, 0, 3)]});
  }
}

// 3x3 stride 1: the shapes of the Winograd path. Padding is bumped where the input is too small.
ConvolutionOperatorTester Random3x3(std::mt19937& rng, bool small) {
  ConvolutionOperatorTester t;
  RandomizeCommon(t, rng, small);
  t.kernel_size(3).subsampling(1).dilation(1);
  const auto& s = t.shape();
  uint32_t pt = s.padding_top, pb = s.padding_bottom, pl = s.padding_left, pr = s.padding_right;
  while (s.input_height + pt + pb < 3) pb++;
  while (s.input_width + pl + pr < 3) pr++;
  t.padding(pt, pr, pb, pl);
  return t;
}

using DataType = ConvolutionOperatorTester::DataType;

// A data type and requantization mode for case i of an all-types sweep: every combination in
// turn, and the uint8 TFLite one only as often as the others; every eighth case lets int8
// weights be -128 (which the indirect GEMM refuses).
void PickTypes(ConvolutionOperatorTester& t, size_t case_index) {
  static const DataType kTypes[] = {DataType::kQU8, DataType::kQS8, DataType::kQS8QC8W,
                                    DataType::kQU8QC8W};
  t.datatype(kTypes[case_index % 4])
      .fp32(case_index / 4 % 2 == 1)
      .int8_weight_minus_128(case_index % 8 == 5);
}

void RunSweep(uint32_t seed, size_t cases, Mode mode, bool small, bool all_types = false) {
  ASSERT_EQ(qwino_status_success, qwino_initialize());
  qwino_test::ObservedAlgorithms() = {};
  std::mt19937 rng(seed);
  for (size_t i = 0; i < cases; i++) {
    ConvolutionOperatorTester t = Random3x3(rng, small);
    t.mode(mode);
    if (all_types) PickTypes(t, i);
    RandomThreadCounts(t, rng, i);
    SCOPED_TRACE("case " + std::to_string(i));
    t.Test();
    if (::testing::Test::HasFatalFailure() || ::testing::Test::HasNonfatalFailure()) return;
  }
  PrintObservedAlgorithms("sweep");
}

TEST(ConvolutionNhwcQ8Sweep, winograd_auto) { RunSweep(0xC0FFEE01, 90, Mode::kAuto, false); }

TEST(ConvolutionNhwcQ8Sweep, winograd_forced) {
  RunSweep(0xC0FFEE02, 50, Mode::kForceWinograd, false);
}

TEST(ConvolutionNhwcQ8Sweep, direct_forced_3x3) {
  RunSweep(0xC0FFEE03, 50, Mode::kForceDirect, true);
}

TEST(ConvolutionNhwcQ8Sweep, winograd_f4_forced) {
  ASSERT_EQ(qwino_status_success, qwino_initialize());
  if (!qwino_test::WinogradF4Available()) {
    GTEST_SKIP() << "no Winograd F(4x4,3x3) in this build or kernel set (" << qwino_isa_name()
                 << ")";
  }
  RunSweep(0xC0FFEE05, 50, Mode::kForceWinogradF4, false);
}

// int8 activations, int8 per-channel weights, uint8 activations with int8 weights, and the fp32
// requantization, through every algorithm.
TEST(ConvolutionNhwcQ8Sweep, types_and_modes_winograd_auto) {
  RunSweep(0xC0FFEE11, 64, Mode::kAuto, false, true);
}

TEST(ConvolutionNhwcQ8Sweep, types_and_modes_winograd_forced) {
  RunSweep(0xC0FFEE12, 32, Mode::kForceWinograd, false, true);
}

TEST(ConvolutionNhwcQ8Sweep, types_and_modes_winograd_f4_forced) {
  ASSERT_EQ(qwino_status_success, qwino_initialize());
  if (!qwino_test::WinogradF4Available()) {
    GTEST_SKIP() << "no Winograd F(4x4,3x3) in this build or kernel set (" << qwino_isa_name()
                 << ")";
  }
  RunSweep(0xC0FFEE15, 48, Mode::kForceWinogradF4, false, true);
}

TEST(ConvolutionNhwcQ8Sweep, types_and_modes_direct_forced) {
  RunSweep(0xC0FFEE13, 32, Mode::kForceDirect, true, true);
}

TEST(ConvolutionNhwcQ8Sweep, types_and_modes_indirect_forced) {
  RunSweep(0xC0FFEE16, 48, Mode::kForceIndirect, true, true);
}

void RunOtherShapes(uint32_t seed, bool all_types);

// Non-3x3 shapes (and 3x3 with stride or dilation): the direct path; forcing Winograd on them
// must fail with qwino_status_unsupported_parameter (the tester checks that too).
TEST(ConvolutionNhwcQ8Sweep, direct_other_shapes) { RunOtherShapes(0xC0FFEE04, false); }

TEST(ConvolutionNhwcQ8Sweep, types_and_modes_other_shapes) { RunOtherShapes(0xC0FFEE14, true); }

void RunOtherShapes(uint32_t seed, bool all_types) {
  ASSERT_EQ(qwino_status_success, qwino_initialize());
  qwino_test::ObservedAlgorithms() = {};
  const bool f4 = qwino_test::WinogradF4Available();
  std::mt19937 rng(seed);
  struct Geometry {
    uint32_t kh, kw, sh, sw, dh, dw;
  };
  const Geometry fixed[] = {
      {1, 1, 1, 1, 1, 1}, {5, 5, 1, 1, 1, 1}, {3, 3, 2, 2, 1, 1}, {3, 3, 1, 1, 2, 2},
      {1, 3, 1, 1, 1, 1}, {3, 1, 1, 1, 1, 1}, {2, 2, 1, 1, 1, 1}, {7, 7, 2, 2, 1, 1},
      {3, 3, 1, 2, 1, 1}, {3, 3, 2, 1, 1, 1}, {3, 3, 1, 1, 1, 2}, {1, 1, 2, 2, 1, 1},
  };
  for (size_t i = 0; i < 100; i++) {
    ConvolutionOperatorTester t;
    RandomizeCommon(t, rng, true);
    Geometry g;
    if (i < 2 * std::size(fixed)) {
      g = fixed[i % std::size(fixed)];
    } else {
      g = {static_cast<uint32_t>(Uniform(rng, 1, 5)), static_cast<uint32_t>(Uniform(rng, 1, 5)),
           static_cast<uint32_t>(Uniform(rng, 1, 3)), static_cast<uint32_t>(Uniform(rng, 1, 3)),
           static_cast<uint32_t>(Uniform(rng, 1, 3)), static_cast<uint32_t>(Uniform(rng, 1, 3))};
    }
    t.kernel_size(g.kh, g.kw).subsampling(g.sh, g.sw).dilation(g.dh, g.dw);
    const auto& s = t.shape();
    uint32_t pt = s.padding_top, pb = s.padding_bottom, pl = s.padding_left, pr = s.padding_right;
    while (s.input_height + pt + pb < (g.kh - 1) * g.dh + 1) pb++;
    while (s.input_width + pl + pr < (g.kw - 1) * g.dw + 1) pr++;
    t.padding(pt, pr, pb, pl);
    const int m = Uniform(rng, 0, 6);
    t.mode(m == 0         ? Mode::kForceDirect
           : m == 1       ? Mode::kForceWinograd
           : m == 2 && f4 ? Mode::kForceWinogradF4
           : m == 3       ? Mode::kForceIndirect
                          : Mode::kAuto);
    RandomThreadCounts(t, rng, i);
    if (all_types) PickTypes(t, i);
    SCOPED_TRACE("case " + std::to_string(i));
    t.Test();
    if (::testing::Test::HasFailure()) return;
  }
  PrintObservedAlgorithms("other shapes");
}

// Depthwise layers (one input and one output channel per group): 1 to 80 channels (every
// remainder of the kernels' channel blocks), 3x3 and 5x5 at strides 1 and 2 with symmetric and
// TensorFlow SAME (asymmetric) padding, then random kernels, strides and dilations; random zero
// points (uint8 weights beyond +-127 around theirs take two or three int8 slices per tap),
// pixel strides, batches and thread counts.
void RunDepthwise(uint32_t seed, size_t cases, Mode mode, bool all_types) {
  ASSERT_EQ(qwino_status_success, qwino_initialize());
  qwino_test::ObservedAlgorithms() = {};
  std::mt19937 rng(seed);
  for (size_t i = 0; i < cases; i++) {
    ConvolutionOperatorTester t;
    RandomizeCommon(t, rng, true);
    const uint32_t channels =
        i < 80 ? static_cast<uint32_t>(i + 1) : static_cast<uint32_t>(Uniform(rng, 1, 80));
    t.groups(channels)
        .group_input_channels(1)
        .group_output_channels(1)
        .input_pixel_stride(Uniform(rng, 0, 3) == 0 ? channels + Uniform(rng, 1, 9) : 0)
        .output_pixel_stride(Uniform(rng, 0, 3) == 0 ? channels + Uniform(rng, 1, 9) : 0);
    uint32_t k = 3, s = 1, d = 1;
    switch (i % 6) {
      case 0:
        k = 3, s = 1;
        break;
      case 1:
        k = 3, s = 2;
        break;
      case 2:
        k = 5, s = 1;
        break;
      case 3:
        k = 5, s = 2;
        break;
      default:
        k = static_cast<uint32_t>(Uniform(rng, 1, 7));
        s = static_cast<uint32_t>(Uniform(rng, 1, 3));
        d = static_cast<uint32_t>(Uniform(rng, 1, 2));
        break;
    }
    t.kernel_size(k).subsampling(s).dilation(d);
    if (i % 6 < 4 && rng() % 2 == 0) {
      // TensorFlow SAME: total padding (k - 1) for stride 1, the extra pixel at the end.
      const uint32_t total = s == 1 ? k - 1 : k - 2;
      t.padding(total / 2, total - total / 2, total - total / 2, total / 2);
    }
    const auto& sh = t.shape();
    uint32_t pt = sh.padding_top, pb = sh.padding_bottom, pl = sh.padding_left,
             pr = sh.padding_right;
    while (sh.input_height + pt + pb < (k - 1) * d + 1) pb++;
    while (sh.input_width + pl + pr < (k - 1) * d + 1) pr++;
    t.padding(pt, pr, pb, pl);
    t.mode(mode);
    if (all_types) PickTypes(t, i);
    RandomThreadCounts(t, rng, i);
    SCOPED_TRACE("case " + std::to_string(i));
    t.Test();
    if (::testing::Test::HasFailure()) return;
  }
  PrintObservedAlgorithms("depthwise");
}

TEST(ConvolutionNhwcQ8Sweep, depthwise_auto) { RunDepthwise(0xC0FFEE21, 120, Mode::kAuto, false); }

TEST(ConvolutionNhwcQ8Sweep, depthwise_forced) {
  RunDepthwise(0xC0FFEE22, 120, Mode::kForceDepthwise, false);
}

TEST(ConvolutionNhwcQ8Sweep, types_and_modes_depthwise) {
  RunDepthwise(0xC0FFEE23, 120, Mode::kForceDepthwise, true);
}

// ------------------------------------------------------------------------------------------
// (b) Named edge cases.

class ConvolutionNhwcQ8 : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(qwino_status_success, qwino_initialize()); }
};

// Winograd F(2x2,3x3) is exact iff max_oc sum|w - kzp| * max(izp, 255 - izp) < 2^29.
// kzp = 0, w = 255, izp = 0: the bound is 9 * C * 255 * 255 = 585225 * C:
// C = 917 -> 536651325 < 2^29 = 536870912 (Winograd), C = 918 -> 537236550 (direct only).
// All-255 input reaches the bound: 4 * acc overflows int32 for C = 918.
ConvolutionOperatorTester BoundLayer(size_t channels) {
  return ConvolutionOperatorTester()
      .input_size(4, 5)
      .padding(0, 1, 0, 0)
      .kernel_size(3)
      .group_input_channels(channels)
      .group_output_channels(2)
      .input_zero_point(0)
      .kernel_zero_point(0)
      .kernel_fill(Fill::kConstant, 255)
      .input_fill(Fill::kConstant, 255)
      .bias(BiasMode::kRandom)
      .thread_sweep(false);
}

TEST_F(ConvolutionNhwcQ8, winograd_bound_just_below_takes_winograd) {
  // Forced F(2x2,3x3) is accepted and the maximal accumulator comes out exact.
  for (Mode mode : AllModes()) BoundLayer(917).mode(mode).Test();
  // Random inputs at the extremes too.
  BoundLayer(917).input_fill(Fill::kExtremes).mode(Mode::kForceWinograd).thread_sweep(true).Test();
}

TEST_F(ConvolutionNhwcQ8, winograd_bound_just_above_falls_back_to_direct) {
  // Auto must not take F(2x2,3x3) (the tester's Expect()); forced F(2x2,3x3) must fail with
  // qwino_status_unsupported_parameter; F(4x4,3x3), if present, must split channels.
  for (Mode mode : AllModes()) BoundLayer(918).mode(mode).Test();
  BoundLayer(918).input_fill(Fill::kExtremes).mode(Mode::kAuto).Test();
}

// Exactly 2^29: izp = kzp = 128, C = 3641 gives 32769 taps per output channel; 32768 taps with
// w = 0 (|w - kzp| = 128) and one with w = kzp: bound = 32768 * 128 * 128 = 2^29 (not exact).
// All-zero input then produces acc = +2^29 exactly, which Winograd would turn into -2^29.
// With one tap at w = 255 (|w - kzp| = 127) the bound is 2^29 - 128: Winograd, exact.
// Only the last output channel carries the big weights (the bound is a max over channels).
ConvolutionOperatorTester ExactBoundLayer(bool at_bound) {
  constexpr size_t kChannels = 3641, kOutputs = 3, kTaps = 9 * kChannels;
  return ConvolutionOperatorTester()
      .input_size(4, 4)
      .padding(0)
      .kernel_size(3)
      .group_input_channels(kChannels)
      .group_output_channels(kOutputs)
      .input_zero_point(128)
      .kernel_zero_point(128)
      .input_scale(1.0f)
      .kernel_scale(std::ldexp(1.0f, -23))  // M = 2^-23: acc = +-2^29 -> +-64
      .output_scale(1.0f)
      .output_zero_point(128)
      .input_fill(Fill::kConstant, 0)
      .kernel_generator([at_bound](std::vector<uint8_t>& kernel, std::mt19937& rng) {
        std::uniform_int_distribution<int> small(120, 136);
        for (size_t i = 0; i < (kOutputs - 1) * kTaps; i++)
          kernel[i] = static_cast<uint8_t>(small(rng));
        uint8_t* last = kernel.data() + (kOutputs - 1) * kTaps;
        for (size_t i = 0; i < kTaps; i++) last[i] = 0;
        last[kTaps / 2] = 128;
        if (!at_bound) last[kTaps - 1] = 255;
      })
      .bias(BiasMode::kRandom)
      .bias_range(1000)
      .thread_sweep(false);
}

TEST_F(ConvolutionNhwcQ8, winograd_bound_exactly_2_pow_29_is_direct) {
  // Forced F(2x2,3x3): unsupported_parameter; auto: not F(2x2,3x3).
  for (Mode mode : AllModes()) ExactBoundLayer(true).mode(mode).Test();
  ExactBoundLayer(true).mode(Mode::kAuto).input_fill(Fill::kExtremes).Test();
}

TEST_F(ConvolutionNhwcQ8, winograd_bound_2_pow_29_minus_128_is_winograd) {
  for (Mode mode : AllModes()) ExactBoundLayer(false).mode(mode).Test();
  ExactBoundLayer(false).mode(Mode::kForceWinograd).input_fill(Fill::kExtremes).Test();
}

// The bound of a grouped layer is per output channel: only group 1 is too big.
TEST_F(ConvolutionNhwcQ8, winograd_bound_in_second_group) {
  ConvolutionOperatorTester t;
  t.input_size(5, 4)
      .padding(1)
      .kernel_size(3)
      .groups(2)
      .group_input_channels(918)
      .group_output_channels(2)
      .input_zero_point(0)
      .kernel_zero_point(0)
      .kernel_generator([](std::vector<uint8_t>& kernel, std::mt19937&) {
        for (size_t i = 0; i < kernel.size() / 2; i++) kernel[i] = 1;  // group 0: tiny
        for (size_t i = kernel.size() / 2; i < kernel.size(); i++) kernel[i] = 255;
      })
      .input_fill(Fill::kConstant, 255)
      .thread_sweep(false);
  for (Mode mode : AllModes()) t.mode(mode).Test();
}

// Constant inputs (0 / 255) with extreme weights and zero points, both paths.
TEST_F(ConvolutionNhwcQ8, extreme_inputs_and_weights) {
  const uint8_t zero_points[] = {0, 128, 255};
  const Fill kernel_fills[] = {Fill::kConstant, Fill::kConstant, Fill::kExtremes};
  const uint8_t kernel_values[] = {0, 255, 0};
  uint32_t seed = 1;
  for (uint8_t izp : zero_points) {
    for (uint8_t kzp : zero_points) {
      for (uint8_t x : {uint8_t{0}, uint8_t{255}}) {
        for (size_t k = 0; k < 3; k++) {
          for (Mode mode : AllModes()) {
            ConvolutionOperatorTester()
                .batch_size(2)
                .input_size(5, 6)
                .padding(1, 2, 0, 1)
                .kernel_size(3)
                .group_input_channels(19)
                .group_output_channels(9)
                .input_zero_point(izp)
                .kernel_zero_point(kzp)
                .input_fill(Fill::kConstant, x)
                .kernel_fill(kernel_fills[k], kernel_values[k])
                .bias(BiasMode::kRandom)
                .mode(mode)
                .seed(seed++)
                .thread_sweep(false)
                .Test();
            if (HasFailure()) return;
          }
        }
      }
    }
  }
}

// Random extreme (0/255) inputs and weights with the largest channel counts of the sweep.
TEST_F(ConvolutionNhwcQ8, extreme_random_bytes) {
  for (Mode mode : AllModes()) {
    for (uint8_t zp : {uint8_t{0}, uint8_t{255}}) {
      ConvolutionOperatorTester()
          .batch_size(2)
          .input_size(9, 7)
          .padding(1)
          .kernel_size(3)
          .group_input_channels(70)
          .group_output_channels(67)
          .input_zero_point(zp)
          .kernel_zero_point(static_cast<uint8_t>(255 - zp))
          .input_fill(Fill::kExtremes)
          .kernel_fill(Fill::kExtremes)
          .mode(mode)
          .Test();
    }
  }
}

// 1x1 images: every tap but the centre (or more) falls into padding.
TEST_F(ConvolutionNhwcQ8, one_pixel_images_with_padding) {
  uint32_t seed = 100;
  for (Mode mode : AllModes()) {
    ConvolutionOperatorTester()
        .batch_size(3)
        .input_size(1, 1)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(13)
        .group_output_channels(11)
        .mode(mode)
        .seed(seed++)
        .Test();
    ConvolutionOperatorTester()
        .batch_size(2)
        .input_size(1, 1)
        .padding(2)
        .kernel_size(3)
        .group_input_channels(8)
        .group_output_channels(16)
        .mode(mode)
        .seed(seed++)
        .Test();
    ConvolutionOperatorTester()
        .batch_size(1)
        .input_size(1, 1)
        .padding(2, 0, 0, 2)
        .kernel_size(3)
        .group_input_channels(5)
        .group_output_channels(3)
        .mode(mode)
        .seed(seed++)
        .Test();
    ConvolutionOperatorTester()
        .batch_size(3)
        .input_size(1, 1)
        .padding(0, 2, 2, 0)
        .kernel_size(3)
        .groups(3)
        .group_input_channels(4)
        .group_output_channels(7)
        .output_pixel_stride(25)
        .mode(mode)
        .seed(seed++)
        .Test();
    ConvolutionOperatorTester()
        .batch_size(1)
        .input_size(1, 2)
        .padding(1, 0, 1, 1)
        .kernel_size(3)
        .group_input_channels(1)
        .group_output_channels(1)
        .mode(mode)
        .seed(seed++)
        .Test();
  }
}

// Padding larger than the kernel: whole output rows/columns see only padding (bias only).
TEST_F(ConvolutionNhwcQ8, padding_only_outputs) {
  for (Mode mode : AllModes()) {
    ConvolutionOperatorTester()
        .input_size(2, 3)
        .padding(4, 3, 5, 4)
        .kernel_size(3)
        .group_input_channels(6)
        .group_output_channels(10)
        .mode(mode)
        .Test();
  }
  ConvolutionOperatorTester()
      .input_size(2, 2)
      .padding(3)
      .kernel_size(5)
      .subsampling(2)
      .group_input_channels(3)
      .group_output_channels(4)
      .Test();
}

// ResNet-18's last 3x3 layer: 7x7x512 -> 512 (Winograd with output-channel blocks per thread).
TEST_F(ConvolutionNhwcQ8, resnet18_7x7x512) {
  for (Mode mode : AllModes()) {
    if (mode == Mode::kForceDirect) continue;  // direct_512_channels
    ConvolutionOperatorTester()
        .input_size(7, 7)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(512)
        .group_output_channels(512)
        .mode(mode)
        .Test();
  }
}

// 512 channels on the direct path.
TEST_F(ConvolutionNhwcQ8, direct_512_channels) {
  ConvolutionOperatorTester()
      .input_size(3, 3)
      .padding(1)
      .kernel_size(3)
      .group_input_channels(512)
      .group_output_channels(512)
      .mode(Mode::kForceDirect)
      .thread_sweep(false)
      .Test();
  ConvolutionOperatorTester()
      .input_size(4, 3)
      .kernel_size(1)
      .group_input_channels(512)
      .group_output_channels(520)
      .Test();
}

// More tiles than one region holds, odd sizes, many regions per thread.
TEST_F(ConvolutionNhwcQ8, many_tiles) {
  for (Mode mode : AllModes()) {
    ConvolutionOperatorTester()
        .input_size(57, 45)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(16)
        .group_output_channels(24)
        .mode(mode)
        .Test();
    ConvolutionOperatorTester()
        .batch_size(2)
        .input_size(33, 2)
        .padding(0, 1, 1, 0)
        .kernel_size(3)
        .group_input_channels(3)
        .group_output_channels(5)
        .mode(mode)
        .Test();
  }
}

// Many groups, including depthwise-like (1 -> 1 per group) and pixel strides > channels.
TEST_F(ConvolutionNhwcQ8, many_groups) {
  for (Mode mode : AllModes()) {
    ConvolutionOperatorTester()
        .input_size(9, 10)
        .padding(1)
        .kernel_size(3)
        .groups(32)
        .group_input_channels(1)
        .group_output_channels(1)
        .mode(mode)
        .Test();
    ConvolutionOperatorTester()
        .batch_size(2)
        .input_size(6, 5)
        .padding(1, 0, 1, 0)
        .kernel_size(3)
        .groups(7)
        .group_input_channels(9)
        .group_output_channels(10)
        .input_pixel_stride(70)
        .output_pixel_stride(77)
        .mode(mode)
        .Test();
    // Past qwino.h's packing budget: no Winograd, and the direct path packs per work item.
    ConvolutionOperatorTester()
        .input_size(7, 6)
        .padding(1)
        .kernel_size(3)
        .groups(160)
        .group_input_channels(1)
        .group_output_channels(1)
        .mode(mode)
        .Test();
    ConvolutionOperatorTester()
        .batch_size(2)
        .input_size(5, 9)
        .padding(0, 2, 1, 1)
        .kernel_size(3)
        .subsampling(2, 1)
        .groups(150)
        .group_input_channels(2)
        .group_output_channels(3)
        .input_pixel_stride(301)
        .output_pixel_stride(455)
        .mode(mode)
        .Test();
  }
}

// Requantization scale 2^-32, the smallest supported: shift 31. Input at the zero point makes
// the accumulator equal the bias, so INT32_MIN/MAX reach the requantization directly.
TEST_F(ConvolutionNhwcQ8, requantization_scale_2_pow_minus_32) {
  for (Mode mode : AllModes()) {
    for (BiasMode bias : {BiasMode::kFullRange, BiasMode::kRandom}) {
      ConvolutionOperatorTester()
          .input_size(4, 5)
          .padding(1)
          .kernel_size(3)
          .group_input_channels(5)
          .group_output_channels(12)
          .input_scale(1.0f)
          .kernel_scale(std::ldexp(1.0f, -32))
          .output_scale(1.0f)
          .output_zero_point(128)
          .input_fill(Fill::kConstant, 127)
          .input_zero_point(127)
          .bias(bias)
          .mode(mode)
          .Test();
    }
    ConvolutionOperatorTester()
        .input_size(6, 6)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(40)
        .group_output_channels(8)
        .input_scale(1.0f)
        .kernel_scale(std::ldexp(1.0f, -32))
        .output_scale(1.0f)
        .output_zero_point(128)
        .bias(BiasMode::kFullRange)
        .mode(mode)
        .Test();
  }
}

// Near 2^-31 from below, so that the mantissa rounds up to 1.0: shift -30 after renormalising.
TEST_F(ConvolutionNhwcQ8, requantization_scale_rounds_up_near_2_pow_minus_31) {
  const float a = 1.0f + std::ldexp(1.0f, -22),
              b = (1.0f - std::ldexp(1.0f, -23)) * std::ldexp(1.0f, -31),
              c = 1.0f + std::ldexp(1.0f, -23);
  const qwino_test::ReferenceMultiplier m =
      qwino_test::ReferenceQuantizeMultiplier(qwino_test::ReferenceRealMultiplier(
          a, b, c, qwino_test::ReferenceScaleProduct::kUint8Kernels));
  ASSERT_EQ(int32_t{1} << 30, m.multiplier);
  ASSERT_EQ(-30, m.shift);
  for (Mode mode : AllModes()) {
    ConvolutionOperatorTester()
        .input_size(5, 4)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(7)
        .group_output_channels(9)
        .input_scale(a)
        .kernel_scale(b)
        .output_scale(c)
        .output_zero_point(127)
        .bias(BiasMode::kFullRange)
        .mode(mode)
        .Test();
  }
}

// Near 1: 1 - 2^-24 (no rounding up) and a product that rounds up to 1.0 in 31-bit fixed point
// (multiplier 2^30, shift +1: the accumulator is doubled, wrapping mod 2^32).
// Small accumulators (inputs and weights near their zero points) keep the outputs unclamped;
// full-range biases exercise the doubling's wrap-around.
ConvolutionOperatorTester NearOneLayer(float a, float b, float c) {
  return ConvolutionOperatorTester()
      .batch_size(2)
      .input_size(5, 7)
      .padding(1)
      .kernel_size(3)
      .group_input_channels(4)
      .group_output_channels(10)
      .input_zero_point(100)
      .kernel_zero_point(150)
      .input_scale(a)
      .kernel_scale(b)
      .output_scale(c)
      .output_zero_point(128)
      .input_generator([](std::vector<uint8_t>& x, std::mt19937& rng) {
        std::uniform_int_distribution<int> d(98, 102);
        for (auto& v : x) v = static_cast<uint8_t>(d(rng));
      })
      .kernel_generator([](std::vector<uint8_t>& w, std::mt19937& rng) {
        std::uniform_int_distribution<int> d(147, 153);
        for (auto& v : w) v = static_cast<uint8_t>(d(rng));
      })
      .bias(BiasMode::kRandom)
      .bias_range(40);
}

TEST_F(ConvolutionNhwcQ8, requantization_scale_just_below_1) {
  const float a = 1.0f - std::ldexp(1.0f, -24);
  const qwino_test::ReferenceMultiplier m =
      qwino_test::ReferenceQuantizeMultiplier(qwino_test::ReferenceRealMultiplier(
          a, 1.0f, 1.0f, qwino_test::ReferenceScaleProduct::kUint8Kernels));
  ASSERT_EQ(0, m.shift);
  ASSERT_EQ(int32_t{2147483520}, m.multiplier);  // (1 - 2^-24) * 2^31 = 2^31 - 2^7
  for (Mode mode : AllModes()) {
    NearOneLayer(a, 1.0f, 1.0f).mode(mode).Test();
    NearOneLayer(a, 1.0f, 1.0f).bias(BiasMode::kFullRange).mode(mode).Test();
  }
}

TEST_F(ConvolutionNhwcQ8, requantization_scale_rounds_up_to_1) {
  // With TFLite's int8 rule (double product), (1 + 2^-22)(1 - 2^-23) / (1 + 2^-23) =
  // 1 - 2^-45 / (1 + 2^-23): below 1, but within 2^-32. Its uint8 rule rounds the product to
  // the float 1 + 2^-23 first, so M is exactly 1; the multiplier is the same.
  const float a = 1.0f + std::ldexp(1.0f, -22), b = 1.0f - std::ldexp(1.0f, -23),
              c = 1.0f + std::ldexp(1.0f, -23);
  const double real =
      qwino_test::ReferenceRealMultiplier(a, b, c, qwino_test::ReferenceScaleProduct::kInt8Kernels);
  ASSERT_LT(real, 1.0);
  ASSERT_GE(real, 1.0 - std::ldexp(1.0, -32));
  ASSERT_EQ(1.0, qwino_test::ReferenceRealMultiplier(
                     a, b, c, qwino_test::ReferenceScaleProduct::kUint8Kernels));
  const qwino_test::ReferenceMultiplier m = qwino_test::ReferenceQuantizeMultiplier(real);
  ASSERT_EQ(int32_t{1} << 30, m.multiplier);
  ASSERT_EQ(1, m.shift);
  for (DataType type : {DataType::kQU8, DataType::kQS8}) {
    for (Mode mode : AllModes()) {
      NearOneLayer(a, b, c).datatype(type).mode(mode).Test();
      NearOneLayer(a, b, c).datatype(type).bias(BiasMode::kFullRange).mode(mode).Test();
      NearOneLayer(a, b, c)
          .datatype(type)
          .bias(BiasMode::kConstant, (1 << 30) + 5)
          .mode(mode)
          .Test();
      NearOneLayer(a, b, c)
          .datatype(type)
          .bias(BiasMode::kConstant, -(1 << 30) - 5)
          .mode(mode)
          .Test();
    }
  }
}

// The output zero point is added modulo 2^32 before clamping (src/qwino/requantization.h): with
// M = 1 - 2^-24 and a bias near INT32_MAX, scaled + 255 crosses INT32_MAX for some pixels (they
// wrap to negative and clamp to output_min) and not for others.
TEST_F(ConvolutionNhwcQ8, output_zero_point_add_wraps) {
  const float a = 1.0f - std::ldexp(1.0f, -24);
  for (Mode mode : AllModes()) {
    for (int32_t bias :
         {std::numeric_limits<int32_t>::max() - 100, std::numeric_limits<int32_t>::max() - 300}) {
      NearOneLayer(a, 1.0f, 1.0f)
          .output_zero_point(255)
          .bias(BiasMode::kConstant, bias)
          .mode(mode)
          .Test();
    }
  }
}

// Narrow clamps, down to a single value.
TEST_F(ConvolutionNhwcQ8, narrow_output_range) {
  const std::pair<uint8_t, uint8_t> ranges[] = {{100, 100}, {127, 129}, {0, 0},
                                                {255, 255}, {0, 1},     {254, 255}};
  uint32_t seed = 7;
  for (const auto& r : ranges) {
    for (Mode mode : AllModes()) {
      ConvolutionOperatorTester()
          .input_size(6, 5)
          .padding(1)
          .kernel_size(3)
          .group_input_channels(11)
          .group_output_channels(13)
          .qmin(r.first)
          .qmax(r.second)
          .mode(mode)
          .seed(seed++)
          .thread_sweep(false)
          .Test();
    }
  }
}

// Bias NULL is the same as all-zero bias; both against the reference.
TEST_F(ConvolutionNhwcQ8, bias_null_and_zero) {
  for (Mode mode : AllModes()) {
    for (BiasMode bias : {BiasMode::kNull, BiasMode::kZero}) {
      ConvolutionOperatorTester()
          .input_size(7, 6)
          .padding(1)
          .kernel_size(3)
          .group_input_channels(10)
          .group_output_channels(17)
          .bias(bias)
          .mode(mode)
          .seed(3)
          .Test();
    }
  }
}

// INT32_MAX / INT32_MIN biases: the bias add wraps modulo 2^32 like TFLite's int32 add.
TEST_F(ConvolutionNhwcQ8, extreme_biases) {
  const int32_t biases[] = {
      std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(),
      std::numeric_limits<int32_t>::max() - 1000, std::numeric_limits<int32_t>::min() + 1000};
  for (Mode mode : AllModes()) {
    for (int32_t b : biases) {
      // Fixed output scale so that wrapped and unwrapped accumulators land far apart.
      ConvolutionOperatorTester()
          .input_size(5, 5)
          .padding(1)
          .kernel_size(3)
          .group_input_channels(12)
          .group_output_channels(9)
          .input_scale(1.0f)
          .kernel_scale(std::ldexp(1.0f, -24))
          .output_scale(1.0f)
          .output_zero_point(128)
          .bias(BiasMode::kConstant, b)
          .mode(mode)
          .thread_sweep(false)
          .Test();
    }
    ConvolutionOperatorTester()
        .input_size(5, 5)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(12)
        .group_output_channels(31)
        .bias(BiasMode::kFullRange)
        .mode(mode)
        .Test();
  }
}

// One operator, set up again and again with new sizes, strides, pointers and pools.
TEST_F(ConvolutionNhwcQ8, setup_again_with_new_sizes) {
  using S = ConvolutionOperatorTester::SetupShape;
  const std::vector<S> sequence = {
      {1, 5, 7, 0, 0, 0},   {3, 12, 9, 40, 50, 0}, {1, 1, 1, 0, 0, 2},
      {2, 16, 16, 0, 0, 4}, {2, 16, 16, 0, 0, 4},  {1, 3, 30, 0, 33, 3},
      {1, 5, 7, 0, 0, 0},   {1, 20, 20, 0, 0, 8},  {2, 2, 3, 32, 0, 1},
  };
  for (Mode mode : AllModes()) {
    // Depthwise takes only groups of one channel: 23 of them.
    if (mode == Mode::kForceDepthwise) {
      for (DataType type : {DataType::kQU8, DataType::kQS8QC8W}) {
        ConvolutionOperatorTester()
            .padding(1)
            .kernel_size(3)
            .groups(23)
            .group_input_channels(1)
            .group_output_channels(1)
            .datatype(type)
            .mode(mode)
            .TestSetupSequence(sequence);
      }
      continue;
    }
    // The indirect GEMM needs int8 weights: every mode runs an int8 per-channel layer, and the
    // uint8 one where the mode takes it.
    if (mode != Mode::kForceIndirect) {
      ConvolutionOperatorTester()
          .padding(1)
          .kernel_size(3)
          .group_input_channels(23)
          .group_output_channels(29)
          .mode(mode)
          .TestSetupSequence(sequence);
    }
    ConvolutionOperatorTester()
        .padding(1)
        .kernel_size(3)
        .group_input_channels(23)
        .group_output_channels(29)
        .datatype(DataType::kQS8QC8W)
        .mode(mode)
        .TestSetupSequence(sequence);
  }
  // Direct-only shape too.
  const std::vector<S> strided = {{1, 9, 9, 0, 0, 0}, {2, 4, 17, 0, 0, 3}, {1, 9, 9, 0, 0, 2}};
  ConvolutionOperatorTester()
      .padding(2)
      .kernel_size(5)
      .subsampling(2)
      .group_input_channels(6)
      .group_output_channels(6)
      .TestSetupSequence(strided);
}

// Several runs of one setup give the same bytes each time (the tester runs each setup at least
// twice); here with all thread pools on a layer with a few regions.
TEST_F(ConvolutionNhwcQ8, repeated_runs_are_identical) {
  for (Mode mode : AllModes()) {
    ConvolutionOperatorTester()
        .batch_size(2)
        .input_size(19, 17)
        .padding(1, 0, 1, 2)
        .kernel_size(3)
        .group_input_channels(33)
        .group_output_channels(41)
        .iterations(2)
        .mode(mode)
        .Test();
  }
}

}  // namespace

// ------------------------------------------------------------------------------------------
// (c) int8 data, per-channel weights and the fp32 requantization (qwino.h).

const DataType kAllTypes[] = {DataType::kQU8, DataType::kQS8, DataType::kQS8QC8W,
                              DataType::kQU8QC8W};

// Zero points and clamps at the ends of both 8-bit types (in the view: 0 and 255 are -128 and
// 127 for int8 tensors), every algorithm, both requantization modes.
TEST_F(ConvolutionNhwcQ8, types_zero_point_extremes) {
  uint32_t seed = 100;
  for (DataType type : kAllTypes) {
    for (bool fp32 : {false, true}) {
      for (uint8_t zero_point : {0, 255, 128, 1}) {
        for (Mode mode : AllModes()) {
          ConvolutionOperatorTester()
              .input_size(6, 7)
              .padding(1)
              .kernel_size(3)
              .group_input_channels(13)
              .group_output_channels(19)
              .datatype(type)
              .fp32(fp32)
              .input_zero_point(zero_point)
              .kernel_zero_point(static_cast<uint8_t>(255 - zero_point))
              .output_zero_point(zero_point)
              .output_scale(0.75f)
              .input_fill(Fill::kExtremes)
              .kernel_fill(Fill::kExtremes)
              .qmin(zero_point == 1 ? 1 : 0)
              .qmax(zero_point == 1 ? 254 : 255)
              .mode(mode)
              .seed(seed++)
              .thread_sweep(false)
              .Test();
        }
      }
    }
  }
}

// Per-channel scales spanning the supported range: requantization scales from 2^-32 to 256 in
// one layer (left shifts up to 9 in the TFLite mode), every algorithm, both modes, both
// activation types; full-range biases reach the wrap-around of the left shift.
TEST_F(ConvolutionNhwcQ8, per_channel_scales_2_pow_minus_32_to_256) {
  const std::vector<float> scales = {
      std::ldexp(1.0f, -32),        256.0f, 1.0f,   0.5f,   1.5f, 255.75f,
      std::ldexp(1.0f, -20) * 1.1f, 3.0f,   0.999f, 100.0f, 2.0f};
  uint32_t seed = 200;
  for (DataType type : {DataType::kQS8QC8W, DataType::kQU8QC8W}) {
    for (bool fp32 : {false, true}) {
      for (Mode mode : AllModes()) {
        for (BiasMode bias : {BiasMode::kRandom, BiasMode::kFullRange}) {
          ConvolutionOperatorTester()
              .input_size(5, 6)
              .padding(1)
              .kernel_size(3)
              .group_input_channels(6)
              .group_output_channels(23)
              .datatype(type)
              .fp32(fp32)
              .input_scale(1.0f)
              .kernel_scales(scales)
              .output_scale(1.0f)
              .bias(bias)
              .bias_range(300)
              .input_generator([](std::vector<uint8_t>& x, std::mt19937& rng) {
                std::uniform_int_distribution<int> d(120, 136);  // near the zero point
                for (auto& v : x) v = static_cast<uint8_t>(d(rng));
              })
              .input_zero_point(128)
              .output_zero_point(128)
              .mode(mode)
              .seed(seed++)
              .thread_sweep(false)
              .Test();
        }
      }
    }
  }
}

// Per-tensor scales above 1 (TFLite's left shift, up to 9 at 256) and at 256 itself.
TEST_F(ConvolutionNhwcQ8, requantization_scales_above_1) {
  uint32_t seed = 300;
  for (float scale : {1.0f, 2.0f, 3.25f, 127.0f, 255.99f, 256.0f}) {
    for (DataType type : {DataType::kQU8, DataType::kQS8}) {
      for (bool fp32 : {false, true}) {
        for (Mode mode : AllModes()) {
          NearOneLayer(scale, 1.0f, 1.0f)
              .datatype(type)
              .fp32(fp32)
              .bias(BiasMode::kFullRange)
              .mode(mode)
              .seed(seed++)
              .thread_sweep(false)
              .Test();
        }
      }
    }
  }
}

// fp32: accumulators around 2^24 and 2^25, where float32 no longer holds every integer (the
// int32 -> float conversion rounds before the multiply), with scales that make many products
// land on .5 (powers of two): the round-half-to-even ties.
TEST_F(ConvolutionNhwcQ8, fp32_large_accumulators_and_ties) {
  uint32_t seed = 400;
  for (DataType type : kAllTypes) {
    for (int32_t bias : {1 << 24, (1 << 25) + 3, -(1 << 24) - 1}) {
      for (Mode mode : AllModes()) {
        NearOneLayer(std::ldexp(1.0f, -24), 1.0f, 1.0f)
            .datatype(type)
            .fp32(true)
            .bias(BiasMode::kConstant, bias)
            .mode(mode)
            .seed(seed++)
            .thread_sweep(false)
            .Test();
        NearOneLayer(0.5f, 1.0f, 1.0f)
            .datatype(type)
            .fp32(true)
            .bias(BiasMode::kRandom)
            .bias_range(1000)
            .mode(mode)
            .seed(seed++)
            .thread_sweep(false)
            .Test();
      }
    }
  }
}

// TFLite mode with int8 outputs: the (signed) output zero point is added modulo 2^32 before the
// clamp, as for uint8 (see output_zero_point_add_wraps).
TEST_F(ConvolutionNhwcQ8, int8_output_zero_point_add_wraps) {
  const float a = 1.0f - std::ldexp(1.0f, -24);
  for (Mode mode : AllModes()) {
    for (int32_t bias :
         {std::numeric_limits<int32_t>::max() - 100, std::numeric_limits<int32_t>::min() + 100}) {
      for (uint8_t zero_point : {255, 0}) {
        NearOneLayer(a, 1.0f, 1.0f)
            .datatype(DataType::kQS8)
            .output_zero_point(zero_point)
            .bias(BiasMode::kConstant, bias)
            .mode(mode)
            .Test();
      }
    }
  }
}

// ------------------------------------------------------------------------------------------
// TensorFlow Lite's multiplier rules and the left shift's int32 boundary, through every create
// function and every algorithm that takes the layer, as output values written here by hand.

enum class CreateFunction { kQU8, kQ8, kQS8, kQS8QC8W, kQU8QC8W };
constexpr CreateFunction kCreateFunctions[] = {CreateFunction::kQU8, CreateFunction::kQ8,
                                               CreateFunction::kQS8, CreateFunction::kQS8QC8W,
                                               CreateFunction::kQU8QC8W};
bool Int8Output(CreateFunction f) {
  return f == CreateFunction::kQS8 || f == CreateFunction::kQS8QC8W;
}

// The output value of a 1x1 layer of one channel whose input sits at its zero point, so that the
// accumulator is `bias`, with output zero point 128 (0 for int8 outputs: the same real value).
// Returns false when create refuses the flags (a forced algorithm that does not take the layer).
bool OneChannelOutput(CreateFunction f, float input_scale, float kernel_scale, float output_scale,
                      int32_t bias, uint32_t flags, int* value) {
  const uint8_t input_u8[2] = {77, 77};
  const int8_t input_s8[2] = {-51, -51};
  const uint8_t weight_u8 = 200;
  const int8_t weight_s8 = 73;
  uint8_t output[2] = {0xA5, 0xA5};
  qwino_operator_t op = nullptr;
  qwino_status status = qwino_status_success;
  switch (f) {
    case CreateFunction::kQU8:
    case CreateFunction::kQ8:
      status = (f == CreateFunction::kQU8 ? qwino_create_convolution2d_nhwc_qu8
                                          : qwino_create_convolution2d_nhwc_q8)(
          0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 77, input_scale, 31, kernel_scale, &weight_u8,
          &bias, 128, output_scale, 0, 255, flags, &op);
      break;
    case CreateFunction::kQS8:
      status = qwino_create_convolution2d_nhwc_qs8(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, -51,
                                                   input_scale, kernel_scale, &weight_s8, &bias, 0,
                                                   output_scale, -128, 127, flags, &op);
      break;
    case CreateFunction::kQS8QC8W:
      status = qwino_create_convolution2d_nhwc_qs8_qc8w(
          0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, -51, input_scale, &kernel_scale, &weight_s8, &bias,
          0, output_scale, -128, 127, flags, &op);
      break;
    case CreateFunction::kQU8QC8W:
      status = qwino_create_convolution2d_nhwc_qu8_qc8w(
          0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 77, input_scale, &kernel_scale, &weight_s8, &bias,
          128, output_scale, 0, 255, flags, &op);
      break;
  }
  if (status == qwino_status_unsupported_parameter && (flags & 0xFF) != 0) return false;
  EXPECT_EQ(qwino_status_success, status);
  if (status != qwino_status_success) return false;
  status = Int8Output(f)
               ? qwino_setup_convolution2d_nhwc_qs8(op, 1, 1, 2, input_s8, 1,
                                                    reinterpret_cast<int8_t*>(output), 1, nullptr)
               : qwino_setup_convolution2d_nhwc_qu8(op, 1, 1, 2, input_u8, 1, output, 1, nullptr);
  EXPECT_EQ(qwino_status_success, status);
  EXPECT_EQ(qwino_status_success, qwino_run_operator(op, nullptr));
  EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
  EXPECT_EQ(output[0], output[1]);
  *value = Int8Output(f) ? int{static_cast<int8_t>(output[0])} : int{output[0]};
  return true;
}

// Every force flag (those that do not take a 1x1 layer are refused and skipped), TFLite mode.
constexpr uint32_t kOneByOneFlags[] = {0, QWINO_FLAG_FORCE_DIRECT, QWINO_FLAG_FORCE_INDIRECT_GEMM,
                                       QWINO_FLAG_FORCE_DEPTHWISE};

// The issue tracker's witness (test/requantization.cc has its scalar half): TFLite's uint8
// convolution rounds input_scale * kernel_scale to float and writes 67; its int8 kernels form
// the product in double, which gives 68 (-60 around an int8 zero point of 0).
TEST_F(ConvolutionNhwcQ8, tflite_uint8_multiplier_witness) {
  const float input_scale = 0x1.ad3748p-8f, kernel_scale = 0x1.37f0b4p-9f,
              output_scale = 0x1.1de718p-9f;
  for (CreateFunction f : kCreateFunctions) {
    const bool uint8_weights = f == CreateFunction::kQU8 || f == CreateFunction::kQ8;
    const int expected = uint8_weights ? 67 : Int8Output(f) ? 68 - 128 : 68;
    for (uint32_t flags : kOneByOneFlags) {
      int value = 0;
      if (OneChannelOutput(f, input_scale, kernel_scale, output_scale, -8466, flags, &value)) {
        EXPECT_EQ(expected, value)
            << "create function " << static_cast<int>(f) << ", flags " << flags;
      }
    }
  }
  // Whole layers on every algorithm and type, against the reference (which follows each rule).
  uint32_t seed = 500;
  for (DataType type : kAllTypes) {
    for (Mode mode : AllModes()) {
      NearOneLayer(input_scale, kernel_scale, output_scale)
          .datatype(type)
          .bias(BiasMode::kRandom)
          .bias_range(20000)
          .mode(mode)
          .seed(seed++)
          .thread_sweep(false)
          .Test();
    }
  }
}

// M >= 1 takes TFLite's left shift, acc * 2^shift in int32. qwino wraps it modulo 2^32, as
// TFLite's reference kernels' `x * (1 << left_shift)` and gemmlowp's NEON ShiftLeft (SSHL) do
// (optimized kernels that saturate instead differ past the boundary). M = 4 (shift 3): accumulators
// 2^28 - 1 and -2^28 fit and requantize to 2^30 - 4 and -2^30 (255 and 0 after the clamp); 2^28
// wraps to -2^31 (0, where saturating would give 255) and -2^28 - 1 to 2^31 - 8 (255, not 0).
TEST_F(ConvolutionNhwcQ8, left_shift_wraps_at_int32_boundary) {
  const struct {
    int32_t accumulator;
    int uint8_value;
  } cases[] = {{(1 << 28) - 1, 255}, {1 << 28, 0},   {-(1 << 28), 0}, {-(1 << 28) - 1, 255},
               {(1 << 28) + 3, 0},   {1 << 27, 255}, {-(1 << 27), 0}};
  for (CreateFunction f : kCreateFunctions) {
    for (uint32_t flags : kOneByOneFlags) {
      for (const auto& c : cases) {
        int value = 0;
        if (OneChannelOutput(f, 2.0f, 2.0f, 1.0f, c.accumulator, flags, &value)) {
          EXPECT_EQ(Int8Output(f) ? c.uint8_value - 128 : c.uint8_value, value)
              << "create function " << static_cast<int>(f) << ", flags " << flags
              << ", accumulator " << c.accumulator;
        }
      }
    }
  }
  // 3x3 layers on every algorithm (Winograd included) with the accumulator at the boundary.
  uint32_t seed = 600;
  for (DataType type : kAllTypes) {
    for (Mode mode : AllModes()) {
      for (int32_t bias : {(1 << 28) - 1, 1 << 28, -(1 << 28), -(1 << 28) - 1}) {
        NearOneLayer(2.0f, 2.0f, 1.0f)
            .datatype(type)
            .input_fill(Fill::kConstant, 100)
            .bias(BiasMode::kConstant, bias)
            .mode(mode)
            .seed(seed++)
            .thread_sweep(false)
            .Test();
      }
    }
  }
}

// ------------------------------------------------------------------------------------------
// Requantization scales below 2^-32: the dead output channels of trained models (PaddleOCR's
// PP-OCRv4 text detector, quantized per channel, has weights ~1e-34 there, so M is 1e-36 to
// 1e-12). Both reference semantics give such a channel its output zero point, clamped:
// TFLite's QuantizeMultiplier flushes the multiplier to 0 (shift 0), and the fp32 product
// (float) acc * scale lies below 0.5 in magnitude. Layers mixing them with live channels, every
// data type, both modes, every algorithm that takes the layer, against the reference (which
// follows each rule on its own); a 1x1 layer checked by hand.

namespace {

const float kBelow2Pow32 = std::ldexp(1.0f - std::ldexp(1.0f, -24), -32);  // the float below

// Kernel scales, repeated over the output channels, with input and output scale 1 (so they are
// the requantization scales): dead ones between live ones below 0.5, which take only right
// shifts (the kernels' shortcut forms, now also with dead channels), 2^-32 itself among them.
const std::vector<float> kDeadAndRightShiftScales = {1e-36f,
                                                     std::ldexp(1.3f, -10),
                                                     std::ldexp(1.0f, -33),
                                                     std::ldexp(1.0f, -9),
                                                     kBelow2Pow32,
                                                     std::ldexp(1.7f, -11),
                                                     1e-12f,
                                                     std::ldexp(1.0f, -32),
                                                     std::ldexp(1.1f, -8),
                                                     1e-20f,
                                                     std::ldexp(1.5f, -9)};

// Dead ones between live ones of every kind: right shift 0 (M in [0.5, 1)), TFLite's left shift
// (M >= 1, up to 256), right shifts.
const std::vector<float> kDeadAndAnyScales = {
    1e-36f, 0.75f,  std::ldexp(1.0f, -33), 3.0f, kBelow2Pow32, std::ldexp(1.0f, -9),
    1e-12f, 256.0f, std::ldexp(1.0f, -32), 0.5f, 1e-30f};

// Depthwise layers: live scales of one right shift (8: M in [2^-9, 2^-8), the NEON column
// kernel's uniform-shift blocks) and of shifts 7 to 9 (its int16 blocks), with dead ones.
const std::vector<float> kDeadAndUniformShift = {std::ldexp(1.3f, -9), 1e-36f, std::ldexp(1.9f, -9),
                                                 std::ldexp(1.0f, -9), 1e-12f, std::ldexp(1.6f, -9),
                                                 std::ldexp(1.0f, -33)};
const std::vector<float> kDeadAndNearShifts = {
    std::ldexp(1.3f, -8),  kBelow2Pow32, std::ldexp(1.9f, -9),
    std::ldexp(1.2f, -10), 1e-36f,       std::ldexp(1.6f, -9),
    std::ldexp(1.0f, -8),  1e-20f,       std::ldexp(1.1f, -10)};

ConvolutionOperatorTester DeadChannelsLayer(const std::vector<float>& scales) {
  return ConvolutionOperatorTester()
      .input_size(5, 6)
      .padding(1)
      .kernel_size(3)
      .group_input_channels(6)
      .group_output_channels(23)
      .input_scale(1.0f)
      .kernel_scales(scales)
      .output_scale(1.0f)
      .output_zero_point(128)
      .bias_range(20000)
      .thread_sweep(false);
}

// Inputs near the zero point and small biases, for the scales up to 256.
ConvolutionOperatorTester DeadChannelsSmallAccumulators(const std::vector<float>& scales) {
  return DeadChannelsLayer(scales).bias_range(300).input_zero_point(128).input_generator(
      [](std::vector<uint8_t>& x, std::mt19937& rng) {
        std::uniform_int_distribution<int> d(120, 136);
        for (auto& v : x) v = static_cast<uint8_t>(d(rng));
      });
}

const DataType kPerChannelTypes[] = {DataType::kQS8QC8W, DataType::kQU8QC8W};

}  // namespace

TEST_F(ConvolutionNhwcQ8, dead_channels_between_right_shift_channels) {
  uint32_t seed = 700;
  for (DataType type : kPerChannelTypes) {
    for (bool fp32 : {false, true}) {
      for (Mode mode : AllModes()) {
        DeadChannelsLayer(kDeadAndRightShiftScales)
            .datatype(type)
            .fp32(fp32)
            .mode(mode)
            .seed(seed++)
            .Test();
        DeadChannelsLayer(kDeadAndRightShiftScales)
            .datatype(type)
            .fp32(fp32)
            .bias(BiasMode::kFullRange)
            .output_zero_point(60)
            .qmin(20)
            .qmax(230)
            .mode(mode)
            .seed(seed++)
            .Test();
      }
    }
  }
}

TEST_F(ConvolutionNhwcQ8, dead_channels_between_any_channels) {
  uint32_t seed = 800;
  for (DataType type : kPerChannelTypes) {
    for (bool fp32 : {false, true}) {
      for (Mode mode : AllModes()) {
        for (BiasMode bias : {BiasMode::kRandom, BiasMode::kFullRange}) {
          DeadChannelsSmallAccumulators(kDeadAndAnyScales)
              .datatype(type)
              .fp32(fp32)
              .bias(bias)
              .mode(mode)
              .seed(seed++)
              .Test();
        }
      }
    }
  }
}

// Other shapes: 1x1 (the indirect GEMM's and the direct path's wide tiles, 70 channels), 3x3
// stride 2, a grouped layer; the dead channels in whole blocks of channels too.
TEST_F(ConvolutionNhwcQ8, dead_channels_other_shapes) {
  std::vector<float> blocks(32, 1e-36f);  // channels 0-31 dead, then the mixed list
  blocks.insert(blocks.end(), kDeadAndRightShiftScales.begin(), kDeadAndRightShiftScales.end());
  uint32_t seed = 900;
  for (DataType type : kPerChannelTypes) {
    for (bool fp32 : {false, true}) {
      for (Mode mode : AllModes()) {
        DeadChannelsLayer(blocks)
            .input_size(7, 9)
            .padding(0)
            .kernel_size(1)
            .group_input_channels(40)
            .group_output_channels(70)
            .datatype(type)
            .fp32(fp32)
            .mode(mode)
            .seed(seed++)
            .Test();
        DeadChannelsLayer(kDeadAndRightShiftScales)
            .input_size(9, 8)
            .subsampling(2)
            .group_input_channels(5)
            .group_output_channels(19)
            .datatype(type)
            .fp32(fp32)
            .mode(mode)
            .seed(seed++)
            .Test();
        DeadChannelsLayer(kDeadAndAnyScales)
            .groups(3)
            .group_input_channels(4)
            .group_output_channels(9)
            .bias_range(300)
            .datatype(type)
            .fp32(fp32)
            .mode(mode)
            .seed(seed++)
            .Test();
      }
    }
  }
}

// Depthwise layers (3x3 and 5x5, strides 1 and 2: the NEON column kernel's blocks of 16
// channels), dead channels among live ones of one right shift and of close ones.
TEST_F(ConvolutionNhwcQ8, dead_channels_depthwise) {
  uint32_t seed = 1000;
  for (const std::vector<float>* scales : {&kDeadAndUniformShift, &kDeadAndNearShifts}) {
    for (DataType type : kPerChannelTypes) {
      for (bool fp32 : {false, true}) {
        for (Mode mode : AllModes()) {
          for (uint32_t kernel : {3u, 5u}) {
            for (uint32_t stride : {1u, 2u}) {
              ConvolutionOperatorTester()
                  .input_size(9, 10)
                  .padding(kernel / 2)
                  .kernel_size(kernel)
                  .subsampling(stride)
                  .groups(40)
                  .group_input_channels(1)
                  .group_output_channels(1)
                  .input_scale(1.0f)
                  .kernel_scales(*scales)
                  .output_scale(1.0f)
                  .output_zero_point(128)
                  .bias_range(5000)
                  .datatype(type)
                  .fp32(fp32)
                  .mode(mode)
                  .seed(seed++)
                  .thread_sweep(false)
                  .Test();
            }
          }
        }
      }
    }
  }
}

// Per tensor (_qu8, _qs8): a kernel scale so small that every channel is dead, so every output
// byte is the output zero point clamped to [qmin, qmax]; 2^-33, the float below 2^-32 and 1e-34
// (with input scale 0.5, output scale 2: M 2.5e-35).
TEST_F(ConvolutionNhwcQ8, per_tensor_dead_layer) {
  uint32_t seed = 1100;
  const std::pair<uint8_t, uint8_t> clamps[] = {{0, 255}, {0, 150}, {210, 255}};
  for (float kernel_scale : {std::ldexp(1.0f, -33), kBelow2Pow32, 1e-34f}) {
    const float input_scale = kernel_scale == 1e-34f ? 0.5f : 1.0f;
    const float output_scale = kernel_scale == 1e-34f ? 2.0f : 1.0f;
    for (DataType type : {DataType::kQU8, DataType::kQS8}) {
      for (bool fp32 : {false, true}) {
        for (Mode mode : AllModes()) {
          for (const auto& clamp : clamps) {
            ConvolutionOperatorTester()
                .input_size(5, 6)
                .padding(1)
                .kernel_size(3)
                .group_input_channels(7)
                .group_output_channels(12)
                .input_scale(input_scale)
                .kernel_scale(kernel_scale)
                .output_scale(output_scale)
                .output_zero_point(200)
                .qmin(clamp.first)
                .qmax(clamp.second)
                .bias(BiasMode::kFullRange)
                .datatype(type)
                .fp32(fp32)
                .mode(mode)
                .seed(seed++)
                .thread_sweep(false)
                .Test();
          }
        }
      }
    }
    // Depthwise.
    for (DataType type : {DataType::kQU8, DataType::kQS8}) {
      for (bool fp32 : {false, true}) {
        ConvolutionOperatorTester()
            .input_size(6, 6)
            .padding(1)
            .kernel_size(3)
            .groups(20)
            .group_input_channels(1)
            .group_output_channels(1)
            .input_scale(input_scale)
            .kernel_scale(kernel_scale)
            .output_scale(output_scale)
            .output_zero_point(77)
            .bias(BiasMode::kFullRange)
            .datatype(type)
            .fp32(fp32)
            .mode(Mode::kForceDepthwise)
            .seed(seed++)
            .thread_sweep(false)
            .Test();
      }
    }
  }
}

// Just below 2^-32 and yet kept: (1 + 2^-22)(1 - 2^-23) 2^-32 / (1 + 2^-23) is 2^-32 (1 - about
// 2^-45) in TFLite's int8 rule, whose 31-bit mantissa rounds up to 1.0, so QuantizeMultiplier
// renormalises to multiplier 2^30, shift -31 and does not flush it; the uint8 rule and the fp32
// scale are 2^-32 itself. Full-range biases reach outputs of -1, 0 and 1 around the zero point.
TEST_F(ConvolutionNhwcQ8, requantization_scale_rounds_up_to_2_pow_minus_32) {
  const float a = 1.0f + std::ldexp(1.0f, -22),
              b = (1.0f - std::ldexp(1.0f, -23)) * std::ldexp(1.0f, -32),
              c = 1.0f + std::ldexp(1.0f, -23);
  const double real =
      qwino_test::ReferenceRealMultiplier(a, b, c, qwino_test::ReferenceScaleProduct::kInt8Kernels);
  ASSERT_LT(real, std::ldexp(1.0, -32));
  const qwino_test::ReferenceMultiplier m = qwino_test::ReferenceQuantizeMultiplier(real);
  ASSERT_EQ(int32_t{1} << 30, m.multiplier);
  ASSERT_EQ(-31, m.shift);
  uint32_t seed = 1200;
  for (DataType type : kAllTypes) {
    for (bool fp32 : {false, true}) {
      for (Mode mode : AllModes()) {
        ConvolutionOperatorTester()
            .input_size(4, 5)
            .padding(1)
            .kernel_size(3)
            .group_input_channels(5)
            .group_output_channels(12)
            .input_scale(a)
            .kernel_scale(b)
            .kernel_scales({b})
            .output_scale(c)
            .output_zero_point(128)
            .bias(BiasMode::kFullRange)
            .datatype(type)
            .fp32(fp32)
            .mode(mode)
            .seed(seed++)
            .thread_sweep(false)
            .Test();
      }
    }
  }
}

// By hand: a 1x1 layer of one channel whose accumulator is its bias, every create function,
// every algorithm that takes it, both modes: a dead channel's output is the zero point (128, or
// 0 for int8 outputs) whatever the bias, INT32_MIN and INT32_MAX included.
TEST_F(ConvolutionNhwcQ8, dead_channel_output_is_the_zero_point) {
  const struct {
    float input, kernel, output;
  } scales[] = {{1.0f, 1e-34f, 1.0f},
                {1.0f, std::ldexp(1.0f, -33), 1.0f},
                {1.0f, kBelow2Pow32, 1.0f},
                {0.01f, 1e-30f, 100.0f}};
  const int32_t biases[] = {0,
                            1,
                            -1,
                            12345,
                            -987654,
                            std::numeric_limits<int32_t>::max(),
                            std::numeric_limits<int32_t>::min()};
  for (CreateFunction f : kCreateFunctions) {
    for (uint32_t mode_flag : {0u, QWINO_FLAG_REQUANTIZE_FP32}) {
      for (uint32_t flags : kOneByOneFlags) {
        for (const auto& s : scales) {
          for (int32_t bias : biases) {
            int value = -1000;
            if (OneChannelOutput(f, s.input, s.kernel, s.output, bias, flags | mode_flag, &value)) {
              EXPECT_EQ(Int8Output(f) ? 0 : 128, value)
                  << "create function " << static_cast<int>(f) << ", flags " << (flags | mode_flag)
                  << ", kernel scale " << s.kernel << ", bias " << bias;
            }
          }
        }
      }
    }
  }
  // The scale 2^-32 itself is live: INT32_MAX gives 128 + 0.5 rounded away (TFLite) -> 129,
  // INT32_MIN 128 - 0.5 -> 127; fp32 rounds the halves to even: 128 both.
  for (CreateFunction f : kCreateFunctions) {
    for (uint32_t flags : kOneByOneFlags) {
      int value = 0;
      const int zero = Int8Output(f) ? 0 : 128;
      if (OneChannelOutput(f, 1.0f, std::ldexp(1.0f, -32), 1.0f,
                           std::numeric_limits<int32_t>::max(), flags, &value)) {
        EXPECT_EQ(zero + 1, value) << "create function " << static_cast<int>(f);
      }
      if (OneChannelOutput(f, 1.0f, std::ldexp(1.0f, -32), 1.0f,
                           std::numeric_limits<int32_t>::min(), flags, &value)) {
        EXPECT_EQ(zero - 1, value) << "create function " << static_cast<int>(f);
      }
      if (OneChannelOutput(f, 1.0f, std::ldexp(1.0f, -32), 1.0f,
                           std::numeric_limits<int32_t>::max(), flags | QWINO_FLAG_REQUANTIZE_FP32,
                           &value)) {
        EXPECT_EQ(zero, value) << "create function " << static_cast<int>(f);
      }
    }
  }
}
