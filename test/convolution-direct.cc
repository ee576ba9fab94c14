// End-to-end tests of the direct path (im2col + GEMM + requantize, src/convolution-direct.cc)
// against the independent reference, aimed at what its schedule cuts and its shortcuts: regions
// of output pixels that wrap around image rows and end mid-row, several regions per image and
// several images, output-channel blocks (few pixels, many threads) with a partial last block,
// the pointwise shortcut (1x1, stride 1, no padding, dense input: one conversion pass per region)
// and the shapes just outside it, K not a multiple of the GEMM's k step, and accumulators that
// wrap modulo 2^32. Every Test() also checks the thread counts 1, 2, 3, 4, 8 unless told
// otherwise; the scratch bound is checked through the API.
#include <qwino.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "convolution-operator-tester.h"

using qwino_test::ConvolutionOperatorTester;
using Mode = ConvolutionOperatorTester::Mode;
using Fill = ConvolutionOperatorTester::Fill;

namespace {

class ConvolutionDirect : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(qwino_status_success, qwino_initialize()); }
};

// 1x1, stride 1, no padding: the pointwise shortcut when the input is dense and has one group,
// the general im2col otherwise (pixel stride > channels, groups). Channel counts around the
// GEMM tiles (NR 8, 16, 32; KR 2) and the requantize kernels' steps (4, 8, 16, 32, 64).
TEST_F(ConvolutionDirect, pointwise) {
  for (size_t channels : {1, 7, 8, 9, 31, 32, 33, 64, 100}) {
    SCOPED_TRACE(channels);
    ConvolutionOperatorTester()
        .batch_size(2)
        .input_size(11, 13)
        .kernel_size(1)
        .group_input_channels(channels)
        .group_output_channels(channels + 3)
        .mode(Mode::kForceDirect)
        .Test();
    ConvolutionOperatorTester()
        .input_size(9, 10)
        .kernel_size(1)
        .group_input_channels(channels)
        .group_output_channels(17)
        .input_pixel_stride(channels + 5)
        .mode(Mode::kForceDirect)
        .Test();
    ConvolutionOperatorTester()
        .input_size(5, 7)
        .kernel_size(1)
        .groups(3)
        .group_input_channels(channels)
        .group_output_channels(5)
        .mode(Mode::kForceDirect)
        .Test();
  }
  // 1x1 with padding (padding pixels are rows of zeros) and with stride: not pointwise.
  ConvolutionOperatorTester()
      .input_size(6, 5)
      .padding(1, 0, 2, 1)
      .kernel_size(1)
      .group_input_channels(24)
      .group_output_channels(40)
      .Test();
  ConvolutionOperatorTester()
      .batch_size(3)
      .input_size(15, 9)
      .kernel_size(1)
      .subsampling(2)
      .group_input_channels(64)
      .group_output_channels(48)
      .Test();
}

// Many regions per image, regions that wrap around output rows and end mid-row, several images.
TEST_F(ConvolutionDirect, regions_across_rows_and_images) {
  ConvolutionOperatorTester()
      .batch_size(2)
      .input_size(37, 29)
      .padding(1)
      .kernel_size(3)
      .subsampling(2)
      .group_input_channels(12)
      .group_output_channels(20)
      .Test();
  ConvolutionOperatorTester()
      .batch_size(3)
      .input_size(23, 31)
      .kernel_size(1)
      .group_input_channels(16)
      .group_output_channels(16)
      .Test();
  ConvolutionOperatorTester()
      .input_size(40, 3)
      .padding(2)
      .kernel_size(5)
      .group_input_channels(5)
      .group_output_channels(9)
      .Test();
  ConvolutionOperatorTester()
      .input_size(3, 70)
      .padding(0, 1, 0, 1)
      .kernel_size(1, 3)
      .group_input_channels(6)
      .group_output_channels(7)
      .mode(Mode::kForceDirect)
      .Test();
}

// Few output pixels and many output channels: with threads the schedule splits the channels
// into blocks of whole GEMM panels, the last one partial.
TEST_F(ConvolutionDirect, channel_blocks) {
  for (size_t output_channels : {1, 70, 200, 333}) {
    SCOPED_TRACE(output_channels);
    ConvolutionOperatorTester()
        .input_size(2, 3)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(19)
        .group_output_channels(output_channels)
        .mode(Mode::kForceDirect)
        .Test();
    ConvolutionOperatorTester()
        .input_size(1, 1)
        .kernel_size(1)
        .groups(2)
        .group_input_channels(8)
        .group_output_channels(output_channels)
        .Test();
  }
}

// Long and odd K (taps x channels): 7x7 dilated, 5x5 with 3 channels (K = 75), 2x3 kernels.
TEST_F(ConvolutionDirect, long_and_odd_k) {
  ConvolutionOperatorTester()
      .input_size(16, 15)
      .padding(3)
      .kernel_size(7)
      .dilation(2)
      .group_input_channels(64)
      .group_output_channels(24)
      .thread_counts({3})
      .Test();
  ConvolutionOperatorTester()
      .input_size(12, 12)
      .padding(2)
      .kernel_size(5)
      .group_input_channels(3)
      .group_output_channels(33)
      .Test();
  ConvolutionOperatorTester()
      .input_size(7, 9)
      .padding(1, 0, 0, 1)
      .kernel_size(2, 3)
      .subsampling(1, 2)
      .dilation(2, 1)
      .group_input_channels(13)
      .group_output_channels(10)
      .Test();
}

// Accumulators beyond int32: K = 40000 taps of (x - izp) (w - kzp) = +-255^2 sum to
// +-2.6e9, and K = 140000 taps of random 0/255 bytes (zero points 0) to about 2.3e9, so the int32
// accumulator (and the GEMM) wraps; the bytes must still be the reference's.
TEST_F(ConvolutionDirect, accumulators_wrap) {
  for (uint8_t input_zero_point : {0, 255}) {
    ConvolutionOperatorTester()
        .input_size(2, 2)
        .kernel_size(1)
        .group_input_channels(40000)
        .group_output_channels(5)
        .input_fill(Fill::kConstant, 255 - input_zero_point)
        .kernel_fill(Fill::kConstant, 255)
        .input_zero_point(input_zero_point)
        .kernel_zero_point(0)
        .thread_counts({2})
        .Test();
  }
  ConvolutionOperatorTester()
      .input_size(2, 2)
      .kernel_size(1)
      .group_input_channels(140000)
      .group_output_channels(5)
      .input_fill(Fill::kExtremes)
      .kernel_fill(Fill::kExtremes)
      .input_zero_point(0)
      .kernel_zero_point(0)
      .thread_counts({2})
      .Test();
}

// Scratch is per task and bounded by the thread count and the layer, not by the image size.
TEST_F(ConvolutionDirect, scratch_is_bounded_by_threads_not_image_size) {
  const size_t channels = 32;
  std::vector<uint8_t> kernel(channels * 3 * 3 * channels, 7);
  qwino_operator_t op = nullptr;
  ASSERT_EQ(qwino_status_success,
            qwino_create_convolution2d_nhwc_q8(1, 1, 1, 1, 3, 3, 2, 2, 1, 1, 1, channels, channels,
                                               128, 0.5f, 128, 0.5f, kernel.data(), nullptr, 128,
                                               1.0f, 0, 255, QWINO_FLAG_FORCE_DIRECT, &op));
  ASSERT_EQ(qwino_algorithm_direct, qwino_operator_algorithm(op));
  pthreadpool_t pool = pthreadpool_create(2);
  size_t reference_bytes = 0;
  for (size_t size : {64, 128, 256}) {
    std::vector<uint8_t> input(size * size * channels, 1), output(size * size * channels);
    ASSERT_EQ(qwino_status_success,
              qwino_setup_convolution2d_nhwc_q8(op, 1, size, size, input.data(), channels,
                                                output.data(), channels, pool));
    const size_t bytes = qwino_operator_scratch_bytes(op);
    EXPECT_GT(bytes, 0u);
    if (reference_bytes == 0) reference_bytes = bytes;
    EXPECT_EQ(reference_bytes, bytes) << "scratch grew with the image at " << size;
    ASSERT_EQ(qwino_status_success, qwino_run_operator(op, pool));
  }
  std::vector<uint8_t> input(64 * 64 * channels, 1), output(64 * 64 * channels);
  ASSERT_EQ(qwino_status_success,
            qwino_setup_convolution2d_nhwc_q8(op, 1, 64, 64, input.data(), channels, output.data(),
                                              channels, nullptr));
  EXPECT_LE(2 * qwino_operator_scratch_bytes(op), reference_bytes);
  pthreadpool_destroy(pool);
  EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
}

}  // namespace
