// End-to-end tests of the indirect GEMM path (src/convolution-indirect.cc) against the
// independent reference, aimed at its gathered rows: layers with few input channels per tap
// (first layers, grouped layers of 1-4 channels a group) whose receptive fields each work item
// copies into 8-bit rows for a GEMM of one tap. The rows hold the zero point in the padding
// (every side, SAME's asymmetric padding, taps wholly outside the input), strided and dilated
// taps, pixel strides wider than the channels (no contiguous kernel rows) and groups. The random
// sweeps over shapes, types and modes are in convolution-nhwc-q8.cc.
#include <qwino.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "convolution-operator-tester.h"
#include "qwino/operator-registry.h"
#include "qwino/operator.h"

using qwino_test::ConvolutionOperatorTester;
using DataType = ConvolutionOperatorTester::DataType;
using Fill = ConvolutionOperatorTester::Fill;
using Mode = ConvolutionOperatorTester::Mode;

namespace {

class ConvolutionIndirect : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(qwino_status_success, qwino_initialize()); }
};

// Whether an int8 layer of this shape, forced onto the indirect GEMM, gathers rows with this
// CPU's kernel.
bool GathersRows(uint32_t kernel, size_t channels, size_t output_channels, uint32_t groups) {
  const size_t k = size_t{kernel} * kernel * channels;
  std::vector<int8_t> weights(groups * output_channels * k, 7);
  qwino_operator_t op = nullptr;
  EXPECT_EQ(qwino_status_success,
            qwino_create_convolution2d_nhwc_qs8_qc8w(
                0, 0, 0, 0, kernel, kernel, 1, 1, 1, 1, groups, channels, output_channels, 0, 0.5f,
                std::vector<float>(groups * output_channels, 0.01f).data(), weights.data(), nullptr,
                0, 0.75f, -128, 127, QWINO_FLAG_FORCE_INDIRECT_GEMM, &op));
  std::vector<int8_t> input(9 * 9 * groups * channels);
  std::vector<int8_t> output(9 * 9 * groups * output_channels);
  EXPECT_EQ(qwino_status_success,
            qwino_setup_convolution2d_nhwc_qs8(op, 1, 9, 9, input.data(), groups * channels,
                                               output.data(), groups * output_channels, nullptr));
  const bool gathered = qwino::find_operator(op)->indirect.gathered_rows;
  qwino_delete_operator(op);
  return gathered;
}

// Every kernel's k interleave (2 to 16) pads 3 channels a tap: a 7x7 layer of 3 channels
// gathers, and so do a 3x3 one and a grouped 5x5 one of one channel a group, with enough output
// channels to pay for the copies (qwino/tuning.h: with few, the model keeps the taps on some
// kernels); a layer of 64 channels (a multiple of every interleave) never does.
TEST_F(ConvolutionIndirect, gathers_rows_where_taps_waste_the_interleave) {
  EXPECT_TRUE(GathersRows(7, 3, 256, 1));
  EXPECT_TRUE(GathersRows(7, 3, 64, 1));  // ResNet's first layer
  EXPECT_TRUE(GathersRows(3, 3, 256, 1));
  EXPECT_TRUE(GathersRows(5, 1, 64, 2));
  EXPECT_FALSE(GathersRows(3, 64, 64, 1));
  EXPECT_FALSE(GathersRows(1, 3, 64, 1));
}

// The cost model counts the taps of rows that the CPU's fused kernel keeps for all the panels of
// a call (its list entry's resident_row_bytes: the A72's 2x8c16 kernel, 9-48 bytes) once per
// row block: there MobileNet's 3x3/2 first layer (27-byte gathered rows) takes the indirect GEMM
// (modeled A72: 5.72 MACs/cycle against the direct path's 3.72). Elsewhere the test has nothing
// to check.
TEST_F(ConvolutionIndirect, resident_rows_take_the_first_layer) {
  std::vector<int8_t> weights(32 * 27, 5);
  qwino_operator_t op = nullptr;
  ASSERT_EQ(qwino_status_success, qwino_create_convolution2d_nhwc_qs8_qc8w(
                                      0, 1, 1, 0, 3, 3, 2, 2, 1, 1, 1, 3, 32, 0, 0.5f,
                                      std::vector<float>(32, 0.01f).data(), weights.data(), nullptr,
                                      0, 0.75f, -128, 127, 0, &op));
  std::vector<int8_t> input(224 * 224 * 3), output(112 * 112 * 32);
  ASSERT_EQ(qwino_status_success,
            qwino_setup_convolution2d_nhwc_qs8(op, 1, 224, 224, input.data(), 3, output.data(), 32,
                                               nullptr));
  const qwino_operator* o = qwino::find_operator(op);
  const bool resident =
      o->igemm_requantize().ukernel != nullptr && o->igemm_requantize().resident_row_bytes >= 27;
  const qwino_algorithm chosen = qwino_operator_algorithm(op);
  qwino_delete_operator(op);
  if (!resident) {
    GTEST_SKIP() << "this CPU's fused GEMM keeps no 27-byte rows";
  }
  EXPECT_EQ(qwino_algorithm_indirect_gemm, chosen);
}

// First layers: ResNet's 7x7/2 (padding 3) and MobileNet's 3x3/2 SAME (padding at the end only)
// on small images, every data type and mode, extreme inputs and zero points.
TEST_F(ConvolutionIndirect, first_layers) {
  for (DataType type : {DataType::kQS8QC8W, DataType::kQU8, DataType::kQS8, DataType::kQU8QC8W}) {
    for (Mode mode : {Mode::kAuto, Mode::kForceIndirect}) {
      ConvolutionOperatorTester()
          .datatype(type)
          .mode(mode)
          .input_size(23, 19)
          .padding(3)
          .kernel_size(7)
          .subsampling(2)
          .group_input_channels(3)
          .group_output_channels(19)
          .Test();
      ConvolutionOperatorTester()
          .datatype(type)
          .mode(mode)
          .input_size(16, 17)
          .padding(0, 1, 1, 0)
          .kernel_size(3)
          .subsampling(2)
          .group_input_channels(3)
          .group_output_channels(32)
          .Test();
    }
  }
  for (uint8_t izp : {0, 255}) {
    ConvolutionOperatorTester()
        .datatype(DataType::kQS8QC8W)
        .mode(Mode::kForceIndirect)
        .input_size(12, 13)
        .padding(3)
        .kernel_size(7)
        .subsampling(2)
        .group_input_channels(3)
        .group_output_channels(16)
        .input_zero_point(izp)
        .input_fill(Fill::kExtremes)
        .kernel_fill(Fill::kExtremes)
        .Test();
  }
}

// uint8 weights with any zero point (the row terms, src/convolution-indirect.cc): weights over
// the whole byte range (b = w - 128 reaches -128 and 127, w - kzp beyond int8), zero points at
// the ends and around 128, the taps' path and gathered rows, padding, groups, both modes, every
// thread count, extreme inputs and input zero points.
TEST_F(ConvolutionIndirect, uint8_weights_any_zero_point) {
  for (uint8_t kzp : {0, 1, 64, 127, 128, 129, 200, 255}) {
    SCOPED_TRACE(int{kzp});
    for (Mode mode : {Mode::kAuto, Mode::kForceIndirect}) {
      ConvolutionOperatorTester()
          .datatype(DataType::kQU8)
          .mode(mode)
          .kernel_zero_point(kzp)
          .input_size(9, 10)
          .kernel_size(1)
          .group_input_channels(37)
          .group_output_channels(70)
          .fp32(kzp % 2 != 0)
          .thread_sweep(true)
          .Test();
      ConvolutionOperatorTester()
          .datatype(DataType::kQU8)
          .mode(mode)
          .kernel_zero_point(kzp)
          .input_size(13, 11)
          .padding(1)
          .kernel_size(3)
          .subsampling(2)
          .group_input_channels(19)
          .group_output_channels(33)
          .Test();
    }
    ConvolutionOperatorTester()
        .datatype(DataType::kQU8)
        .mode(Mode::kForceIndirect)
        .kernel_zero_point(kzp)
        .input_size(15, 14)
        .padding(3)
        .kernel_size(7)
        .subsampling(2)
        .group_input_channels(3)
        .group_output_channels(24)
        .Test();
    ConvolutionOperatorTester()
        .datatype(DataType::kQU8)
        .mode(Mode::kForceIndirect)
        .kernel_zero_point(kzp)
        .input_size(8, 9)
        .padding(2, 1, 0, 2)
        .kernel_size(3)
        .dilation(2, 1)
        .groups(3)
        .group_input_channels(5)
        .group_output_channels(6)
        .kernel_fill(Fill::kExtremes)
        .Test();
  }
  for (uint8_t izp : {0, 255}) {
    ConvolutionOperatorTester()
        .datatype(DataType::kQU8)
        .mode(Mode::kForceIndirect)
        .kernel_zero_point(77)
        .input_zero_point(izp)
        .input_size(7, 6)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(70)
        .group_output_channels(17)
        .input_fill(Fill::kExtremes)
        .kernel_fill(Fill::kExtremes)
        .Test();
  }
  // Output channels whose weights span 254 of the byte range, some from 0, some up to 255: on a
  // kernel that cannot multiply -128 (the NEON SMULL + SMLAL one) each channel gets its own
  // weight offset (127 or 128, gaps that differ per channel: the unfused pass adds them).
  const auto span_254 = [](size_t per_channel) {
    return [per_channel](std::vector<uint8_t>& kernel, std::mt19937& rng) {
      for (size_t oc = 0; oc < kernel.size() / per_channel; oc++) {
        const uint8_t low = (oc % 3 == 0) ? 0 : 1;
        for (size_t i = 0; i < per_channel; i++) {
          kernel[oc * per_channel + i] = static_cast<uint8_t>(low + rng() % 255);
        }
        kernel[oc * per_channel] = low;
        kernel[oc * per_channel + 1] = static_cast<uint8_t>(low + 254);
      }
    };
  };
  for (uint8_t kzp : {0, 127, 128, 201}) {
    ConvolutionOperatorTester()
        .datatype(DataType::kQU8)
        .mode(Mode::kForceIndirect)
        .kernel_zero_point(kzp)
        .input_size(9, 8)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(23)
        .group_output_channels(29)
        .kernel_generator(span_254(9 * 23))
        .thread_sweep(kzp == 127)
        .Test();
    // The gathered rows (a 7x7/2 layer of 3 channels).
    ConvolutionOperatorTester()
        .datatype(DataType::kQU8)
        .mode(Mode::kForceIndirect)
        .kernel_zero_point(kzp)
        .input_size(13, 12)
        .padding(3)
        .kernel_size(7)
        .subsampling(2)
        .group_input_channels(3)
        .group_output_channels(21)
        .kernel_generator(span_254(49 * 3))
        .Test();
  }
  // int8 weights of -128 (b = -128 in the taps' and the gathered rows' GEMM).
  for (DataType type : {DataType::kQS8QC8W, DataType::kQU8QC8W}) {
    ConvolutionOperatorTester()
        .datatype(type)
        .mode(Mode::kForceIndirect)
        .int8_weight_minus_128(true)
        .input_size(10, 9)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(21)
        .group_output_channels(18)
        .kernel_fill(Fill::kExtremes)
        .Test();
    ConvolutionOperatorTester()
        .datatype(type)
        .mode(Mode::kForceIndirect)
        .int8_weight_minus_128(true)
        .input_size(12, 11)
        .padding(3)
        .kernel_size(7)
        .subsampling(2)
        .group_input_channels(3)
        .group_output_channels(20)
        .Test();
  }
}

// Taps wholly outside the input (padding wider than the image), dilation, strides 1-3, pixel
// strides wider than the channels, groups of 1-4 channels, every thread count.
TEST_F(ConvolutionIndirect, gathered_rows_geometry) {
  for (size_t channels : {1, 2, 3, 4}) {
    SCOPED_TRACE(channels);
    ConvolutionOperatorTester()
        .datatype(DataType::kQS8QC8W)
        .mode(Mode::kForceIndirect)
        .input_size(3, 4)
        .padding(4, 5, 4, 5)
        .kernel_size(5)
        .group_input_channels(channels)
        .group_output_channels(9)
        .Test();
    ConvolutionOperatorTester()
        .datatype(DataType::kQS8QC8W)
        .mode(Mode::kForceIndirect)
        .input_size(17, 15)
        .padding(2)
        .kernel_size(3)
        .dilation(2, 3)
        .subsampling(3, 2)
        .group_input_channels(channels)
        .group_output_channels(24)
        .Test();
    ConvolutionOperatorTester()
        .datatype(DataType::kQU8)
        .mode(Mode::kForceIndirect)
        .input_size(11, 9)
        .padding(1)
        .kernel_size(3)
        .groups(5)
        .group_input_channels(channels)
        .group_output_channels(7)
        .input_pixel_stride(5 * channels + 3)
        .output_pixel_stride(5 * 7 + 2)
        .thread_sweep(true)
        .Test();
    ConvolutionOperatorTester()
        .datatype(DataType::kQS8)
        .mode(Mode::kForceIndirect)
        .batch_size(2)
        .input_size(30, 29)
        .padding(3)
        .kernel_size(7, 5)
        .subsampling(2)
        .group_input_channels(channels)
        .group_output_channels(40)
        .thread_counts({1, 2, 5})
        .Test();
  }
}

}  // namespace

// Images whose pointers would pass kMaxPrebuiltIndirectionBytes (4 MiB, qwino/tuning.h): each
// work item writes its region's pointers into its scratch at every run (the setup test checks
// that they are not built for the whole image). 256x256 3x3 outputs are 4.5 MiB of pointers;
// batches, groups (the same pointers, another channel offset), padding on every side, stride 2
// and dilation, every thread count.
TEST_F(ConvolutionIndirect, pointers_built_per_item_on_large_images) {
  for (DataType type : {DataType::kQS8QC8W, DataType::kQU8}) {
    ConvolutionOperatorTester()
        .datatype(type)
        .mode(Mode::kForceIndirect)
        .input_size(256, 256)
        .padding(1)
        .kernel_size(3)
        .group_input_channels(16)
        .group_output_channels(8)
        .Test();
  }
  ConvolutionOperatorTester()
      .datatype(DataType::kQS8)
      .mode(Mode::kForceIndirect)
      .batch_size(2)
      .input_size(181, 190)
      .padding(2, 1, 0, 3)
      .kernel_size(3)
      .groups(2)
      .group_input_channels(8)
      .group_output_channels(5)
      .thread_sweep(false)
      .Test();
  ConvolutionOperatorTester()
      .datatype(DataType::kQU8QC8W)
      .mode(Mode::kForceIndirect)
      .input_size(520, 515)
      .padding(1)
      .kernel_size(3)
      .subsampling(2)
      .dilation(2)
      .group_input_channels(8)
      .group_output_channels(4)
      .thread_sweep(false)
      .Test();
}

// Layers whose rows are longer than the AMX kernel keeps a row block's A (qwino/tuning.h,
// QWINO_X86_AMX_GATHERED_ROW_BYTES): on CPUs with the matrix kernels they gather their rows for
// the kernel on gathered rows (src/qu8-gemm/), in 64-byte blocks; elsewhere whatever the model
// takes. Every data type, both modes, padding, strides, dilation, groups, a wider pixel stride,
// two images and odd sizes (partial row blocks and panels), against the reference.
TEST_F(ConvolutionIndirect, deep_rows_on_the_matrix_kernels) {
  size_t matrix_rows = 0;
  for (DataType type : {DataType::kQU8QC8W, DataType::kQS8QC8W, DataType::kQU8}) {
    for (bool fp32 : {false, true}) {
      ConvolutionOperatorTester()
          .datatype(type)
          .fp32(fp32)
          .mode(Mode::kForceIndirect)
          .input_size(9, 11)
          .padding(1)
          .kernel_size(3)
          .group_input_channels(232)
          .group_output_channels(70)
          .thread_sweep(false)
          .Test();
      ConvolutionOperatorTester()
          .datatype(type)
          .fp32(fp32)
          .mode(Mode::kAuto)
          .batch_size(2)
          .input_size(8, 7)
          .padding(1, 0, 2, 1)
          .kernel_size(3)
          .subsampling(2)
          .dilation(1, 2)
          .groups(2)
          .group_input_channels(300)
          .group_output_channels(129)
          .input_pixel_stride(2 * 300 + 5)
          .thread_sweep(false)
          .Test();
    }
  }
  // Whether the layers above took the kernel on gathered rows where the CPU has it.
  const size_t k = 9 * 232;
  std::vector<int8_t> weights(70 * k, 5);
  qwino_operator_t op = nullptr;
  ASSERT_EQ(qwino_status_success, qwino_create_convolution2d_nhwc_qs8_qc8w(
                                      1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 232, 70, 0, 0.5f,
                                      std::vector<float>(70, 0.01f).data(), weights.data(), nullptr,
                                      0, 0.75f, -128, 127, QWINO_FLAG_FORCE_INDIRECT_GEMM, &op));
  std::vector<int8_t> input(9 * 11 * 232), output(9 * 11 * 70);
  ASSERT_EQ(qwino_status_success, qwino_setup_convolution2d_nhwc_qs8(
                                      op, 1, 9, 11, input.data(), 232, output.data(), 70, nullptr));
  const qwino_operator& internals = *qwino::find_operator(op);
  const bool has_rows_kernel =
      internals.kernels.matrix_rows_requantize[internals.requantization].ukernel != nullptr;
  const bool has_matrix_kernels = internals.kernels.igemm_matrix.ukernel != nullptr;
  if (internals.indirect.matrix_kernels && has_rows_kernel) {
    EXPECT_TRUE(internals.indirect.gathered_rows);
    EXPECT_EQ(0u, internals.setup.direct.gathered_row_bytes % 64);
    matrix_rows++;
  }
  qwino_delete_operator(op);
  if (has_matrix_kernels) {
    EXPECT_EQ(1u, matrix_rows) << "a CPU with matrix kernels did not take them";
  }
}
