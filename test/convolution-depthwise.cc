// End-to-end tests of the depthwise path (src/convolution-depthwise.cc) against the independent
// reference, aimed at what it does on its own: the weight slices (uint8 weights 255 away from
// their zero point take three int8 slices per tap in the int8_taps layout), padding rows reached
// by every tap, channel blocks split among threads (few rows), the rows whose pointers each work
// item builds in its scratch (past the setup-time indirection budget), and the automatic choice
// of the path on the depthwise layers of the benchmark networks. The random sweeps over shapes,
// types and modes are in convolution-nhwc-q8.cc (ConvolutionNhwcQ8Sweep.*depthwise*).
#include <qwino.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "convolution-operator-tester.h"

using qwino_test::ConvolutionOperatorTester;
using Mode = ConvolutionOperatorTester::Mode;
using Fill = ConvolutionOperatorTester::Fill;

namespace {

class ConvolutionDepthwise : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(qwino_status_success, qwino_initialize()); }
};

ConvolutionOperatorTester Depthwise(uint32_t channels) {
  return ConvolutionOperatorTester().groups(channels).group_input_channels(1).group_output_channels(
      1);
}

// Weights 255 away from the zero point (kzp 0 and 255), inputs 255 away from theirs, on a
// MobileNet-like 3x3 stride-2 SAME layer (padding only at the end) and a 5x5 stride-1 one.
TEST_F(ConvolutionDepthwise, extreme_weights_and_inputs) {
  for (Mode mode : {Mode::kAuto, Mode::kForceDepthwise}) {
    for (uint8_t kzp : {0, 255}) {
      for (uint8_t izp : {0, 255}) {
        Depthwise(37)
            .input_size(9, 11)
            .padding(0, 1, 1, 0)
            .kernel_size(3)
            .subsampling(2)
            .kernel_zero_point(kzp)
            .kernel_fill(Fill::kConstant, static_cast<uint8_t>(255 - kzp))
            .input_zero_point(izp)
            .input_fill(Fill::kConstant, static_cast<uint8_t>(255 - izp))
            .mode(mode)
            .Test();
        Depthwise(33)
            .input_size(8, 7)
            .padding(2)
            .kernel_size(5)
            .kernel_zero_point(kzp)
            .kernel_fill(Fill::kExtremes)
            .input_zero_point(izp)
            .input_fill(Fill::kExtremes)
            .mode(mode)
            .Test();
      }
    }
  }
}

// One output row and few rows: the channels are split into blocks (whole cache lines) so that
// threads share the work; pixel strides wider than the channels.
TEST_F(ConvolutionDepthwise, channel_blocks) {
  for (uint32_t channels : {64, 65, 200, 1024}) {
    SCOPED_TRACE(channels);
    Depthwise(channels)
        .input_size(1, 5)
        .padding(1)
        .kernel_size(3)
        .mode(Mode::kForceDepthwise)
        .Test();
    Depthwise(channels)
        .batch_size(2)
        .input_size(7, 7)
        .padding(1)
        .kernel_size(3)
        .input_pixel_stride(channels + 3)
        .output_pixel_stride(channels + 9)
        .mode(Mode::kForceDepthwise)
        .Test();
  }
}

// uint8 weights as a uint8 model has them: within 127 of the zero point but for a few channels
// (every 16-, 32- or 64-channel block of the int8_taps kernels takes 1, 2 or 3 slices, so runs
// of blocks with different slice counts alternate within a row and an item), with channel
// counts of one to several blocks, threads splitting the channels, and rows built per item.
TEST_F(ConvolutionDepthwise, slices_per_block) {
  for (uint8_t kzp : {0, 100, 255}) {
    // Channel c's weights: 1, 2 or 3 slices' worth of distance from kzp (c % 41, c % 23 far).
    const auto generator = [kzp](std::vector<uint8_t>& kernel, std::mt19937& rng) {
      const size_t taps = 9;
      for (size_t c = 0; c < kernel.size() / taps; c++) {
        const int reach = c % 41 == 7 ? 255 : c % 23 == 3 ? 200 : 127;
        for (size_t t = 0; t < taps; t++) {
          const int w = int{kzp} + static_cast<int>(rng() % (2 * reach + 1)) - reach;
          kernel[c * taps + t] = static_cast<uint8_t>(std::clamp(w, 0, 255));
        }
      }
    };
    for (uint32_t channels : {16, 40, 144, 200}) {
      SCOPED_TRACE(channels);
      Depthwise(channels)
          .input_size(5, 9)
          .padding(1)
          .kernel_size(3)
          .kernel_zero_point(kzp)
          .kernel_generator(generator)
          .mode(Mode::kForceDepthwise)
          .thread_counts({1, 3})
          .Test();
    }
    Depthwise(96)
        .input_size(9, 8)
        .padding(0, 1, 1, 0)
        .kernel_size(3)
        .subsampling(2)
        .kernel_zero_point(kzp)
        .kernel_generator(generator)
        .Test();
  }
}

// The layers the dot-product CPUs' column kernels take (src/s8-dwconv/s8-dwconv-columns-neondot.c:
// 3x3 at stride 1 or 2 in x, 5x5 at stride 1, weights within 127 of the zero point: int8
// symmetric ones, uint8 ones around 128): output widths that leave every remainder of their pixel
// loops (unrolled by 3 at stride 1, by 2 at stride 2, by 5 over the 5x5 columns), TensorFlow SAME
// padding, strides that differ in y and x, both requantization modes, channel counts around their
// 8-channel blocks, threads. On other CPUs the same layers run the CPU's kernel.
TEST_F(ConvolutionDepthwise, column_kernel_layers) {
  using DataType = ConvolutionOperatorTester::DataType;
  const auto within_127 = [](std::vector<uint8_t>& kernel, std::mt19937&) {
    for (uint8_t& w : kernel) w = std::max<uint8_t>(w, 1);
  };
  const uint32_t strides[][2] = {{1, 1}, {2, 2}, {2, 1}, {1, 2}};
  for (const auto& stride : strides) {
    // Width 19 at stride 2: two groups of 4 output pixels and a remainder (the AVX-512 VNNI
    // kernel's column carried between groups); 21 channels: a full block of 8 or 16 and a rest.
    for (size_t width : {1, 2, 3, 4, 5, 7, 10, 13, 19}) {
      for (uint32_t channels : {3, 8, 21}) {
        SCOPED_TRACE(testing::Message() << "stride " << stride[0] << "x" << stride[1] << " width "
                                        << width << " channels " << channels);
        // SAME: the left padding is 0 only at stride 2 with an even width.
        const uint32_t pad_x = stride[1] == 2 && width % 2 == 0 ? 0 : 1;
        Depthwise(channels)
            .input_size(4, width)
            .padding(1, 1, 1, pad_x)
            .kernel_size(3)
            .subsampling(stride[0], stride[1])
            .datatype(DataType::kQS8QC8W)
            .fp32(width % 2 == 0)
            .thread_counts({1, 2})
            .Test();
        Depthwise(channels)
            .input_size(3, width)
            .padding(1, 1, 1, pad_x)
            .kernel_size(3)
            .subsampling(stride[0], stride[1])
            .kernel_zero_point(128)
            .kernel_generator(within_127)
            .fp32(width % 2 == 1)
            .Test();
        // 5x5: stride 1 in x takes the 5-row kernel, stride 2 the CPU's kernel.
        const uint32_t pad5_x = stride[1] == 2 && width % 2 == 0 ? 1 : 2;
        Depthwise(channels)
            .input_size(5, width)
            .padding(2, 2, 2, pad5_x)
            .kernel_size(5)
            .subsampling(stride[0], stride[1])
            .datatype(DataType::kQS8QC8W)
            .fp32(width % 2 == 1)
            .thread_counts({1, 2})
            .Test();
        Depthwise(channels)
            .input_size(6, width + 5)
            .padding(2)
            .kernel_size(5)
            .subsampling(stride[0], stride[1])
            .kernel_zero_point(128)
            .kernel_generator(within_127)
            .fp32(width % 2 == 0)
            .Test();
      }
    }
  }
}

// 360 rows of 2000 pixels: 17 MB of pointers, past the setup-time budget (4 MiB,
// kMaxPrebuiltIndirectionBytes), so every work item builds its row's pointers in its scratch (a
// bounded row's worth per thread): stride 1 and SAME stride 2, a dilated row (every pixel's taps
// listed), and uint8 weights far from their zero point (rows of 2 and 3 slices a tap).
TEST_F(ConvolutionDepthwise, rows_built_per_item) {
  Depthwise(2)
      .input_size(360, 2000)
      .padding(1)
      .kernel_size(3)
      .mode(Mode::kForceDepthwise)
      .thread_counts({1, 3})
      .Test();
  Depthwise(3)
      .input_size(361, 1999)
      .padding(0, 1, 1, 0)
      .kernel_size(3)
      .subsampling(2)
      .mode(Mode::kForceDepthwise)
      .thread_sweep(false)
      .Test();
  Depthwise(2)
      .input_size(300, 1200)
      .padding(2, 1, 2, 3)
      .kernel_size(3)
      .dilation(2)
      .mode(Mode::kForceDepthwise)
      .thread_sweep(false)
      .Test();
  const auto far_weights = [](std::vector<uint8_t>& kernel, std::mt19937& rng) {
    for (uint8_t& w : kernel) w = static_cast<uint8_t>(rng() % 2 == 0 ? 255 : rng() % 256);
  };
  Depthwise(17)
      .input_size(300, 700)
      .padding(1)
      .kernel_size(3)
      .kernel_zero_point(0)
      .kernel_generator(far_weights)
      .mode(Mode::kForceDepthwise)
      .thread_sweep(false)
      .Test();
}

// The depthwise layers of the benchmark networks (bench/networks/) take the depthwise path
// automatically with this CPU's kernels, in every data type.
TEST_F(ConvolutionDepthwise, automatic_choice_on_network_layers) {
  struct Layer {
    size_t size, channels;
    uint32_t kernel, stride;
  };
  const Layer layers[] = {{112, 32, 3, 1}, {56, 144, 3, 1}, {14, 576, 3, 1}, {14, 512, 3, 1},
                          {112, 96, 3, 2}, {56, 144, 3, 2}, {14, 480, 5, 1}, {7, 1024, 3, 1}};
  for (const Layer& l : layers) {
    for (uint32_t flags : {0u, uint32_t{QWINO_FLAG_REQUANTIZE_FP32}}) {
      std::vector<uint8_t> kernel(l.channels * l.kernel * l.kernel, 100);
      std::vector<uint8_t> input(l.size * l.size * l.channels, 1);
      std::vector<uint8_t> output(l.size * l.size * l.channels);
      const uint32_t pad = l.kernel / 2;
      qwino_operator_t op = nullptr;
      ASSERT_EQ(qwino_status_success,
                qwino_create_convolution2d_nhwc_qu8(
                    pad, pad, pad, pad, l.kernel, l.kernel, l.stride, l.stride, 1, 1,
                    static_cast<uint32_t>(l.channels), 1, 1, 128, 0.5f, 127, 0.01f, kernel.data(),
                    nullptr, 127, 0.75f, 0, 255, flags, &op));
      ASSERT_EQ(qwino_status_success,
                qwino_setup_convolution2d_nhwc_qu8(op, 1, l.size, l.size, input.data(), l.channels,
                                                   output.data(), l.channels, nullptr));
      EXPECT_EQ(qwino_algorithm_depthwise, qwino_operator_algorithm(op))
          << l.size << "x" << l.size << "x" << l.channels << " " << l.kernel << "x" << l.kernel
          << "/" << l.stride << " flags " << flags << ", kernels " << qwino_isa_name();
      EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
    }
  }
}

}  // namespace
