// The create entry points (qwino_create_convolution2d_nhwc_qu8 / _q8 / _qs8 / _qs8_qc8w /
// _qu8_qc8w): each states its data types in one ConvolutionQuantization and hands it to
// create_convolution, which validates, computes the per-channel requantization values, chooses
// the algorithm and prepares the weights.
//
// 8-bit types enter the offset-binary view here (qwino/microparams.h): an int8 tensor is the
// uint8 tensor of its values + 128 with zero point + 128, so every algorithm, packer and
// exactness proof sees only uint8 values and zero points; int8 weights (symmetric) become
// w + 128 with kernel zero point 128, which leaves w - kernel_zero_point the caller's w.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>

#include "qwino.h"
#include "qwino/algorithm-choice.h"
#include "qwino/checked-size.h"
#include "qwino/common.h"
#include "qwino/algorithm.h"
#include "qwino/operator-registry.h"
#include "qwino/operator.h"
#include "qwino/quantization.h"

namespace {

// The flags that are not an algorithm's force flag (those come from the algorithm table).
constexpr uint32_t kOptionFlags = QWINO_FLAG_REQUANTIZE_FP32 | QWINO_FLAG_YIELD_WORKERS;

bool at_most_one_bit(uint32_t bits) { return (bits & (bits - 1)) == 0; }

bool valid_scale(float scale) { return std::isfinite(scale) && scale > 0.0f; }

// The quantization of one create call, in the tensors' own types.
struct ConvolutionQuantization {
  bool int8_activations;
  int32_t input_zero_point;  // the tensor's (int8 or uint8 value)
  float input_scale;
  bool int8_kernel;            // int8 symmetric weights (zero point 0)
  uint8_t kernel_zero_point;   // uint8 weights only
  const float* kernel_scales;  // one per tensor (per_channel false) or per output channel
  bool per_channel;
  const uint8_t* kernel;  // the caller's bytes
  const int32_t* bias;
  int32_t output_zero_point, output_min, output_max;  // the tensor's
  float output_scale;
  // TFLite mode: how the multiplier's scale product is formed (qwino/quantization.h): in float
  // for the uint8 per-tensor scheme (_qu8 / _q8, TFLite's uint8 kernels), in double for every
  // scheme with int8 weights (TFLite's int8 kernels).
  qwino::ScaleProduct scale_product;
};

// A TFLite-mode channel with multiplier 0 (M below 2^-32) requantizes every accumulator to 0
// whatever its shifts, since SaturatingRoundingDoublingHighMul(x, 0) = 0 (qwino/microparams.h).
// Its stored right shift is therefore free: it takes that of the nearest channel before it with
// a nonzero multiplier (of the first such channel after it, for the channels before that one; 1
// when no channel has one). The layer's kernels then see the shifts of its other channels: the
// init functions' positive_shift holds whenever it holds for those (the shortcut forms), and a
// block of channels keeps their span of shifts (s8-dwconv-columns-neon.c). Its left shift stays 0.
void give_zero_multipliers_neighbouring_shifts(size_t channels, int32_t* channel_params) {
  const int32_t* multiplier = channel_params + channels;
  int32_t* right_shift = channel_params + 3 * channels;
  size_t first = 0;
  while (first < channels && multiplier[first] == 0) {
    first++;
  }
  int32_t shift = first < channels ? right_shift[first] : 1;
  for (size_t c = 0; c < channels; c++) {
    if (multiplier[c] != 0) {
      shift = right_shift[c];
    } else {
      right_shift[c] = shift;
    }
  }
}

// Bias and the mode's per-channel arrays (qwino/microparams.h) into channel_params; false when a
// channel's requantization scale is outside the supported range (above 256, or not finite).
bool pack_channel_params(const ConvolutionQuantization& q, qwino_requantization_mode mode,
                         size_t channels, int32_t* channel_params) {
  for (size_t c = 0; c < channels; c++) {
    channel_params[c] = q.bias != nullptr ? q.bias[c] : 0;
    const float kernel_scale = q.kernel_scales[q.per_channel ? c : 0];
    if (mode == qwino_requantization_fp32) {
      float scale = 0.0f;
      if (!qwino::fp32_scale(q.input_scale, kernel_scale, q.output_scale, &scale)) {
        return false;
      }
      std::memcpy(&channel_params[channels + c], &scale, sizeof(scale));
    } else {
      int32_t multiplier = 0;
      uint32_t left_shift = 0, right_shift = 0;
      if (!qwino::quantize_multiplier(q.input_scale, kernel_scale, q.output_scale, q.scale_product,
                                      &multiplier, &left_shift, &right_shift)) {
        return false;
      }
      channel_params[channels + c] = multiplier;
      channel_params[2 * channels + c] = static_cast<int32_t>(left_shift);
      channel_params[3 * channels + c] = static_cast<int32_t>(right_shift);
    }
  }
  if (mode == qwino_requantization_gemmlowp) {
    give_zero_multipliers_neighbouring_shifts(channels, channel_params);
  }
  return true;
}

qwino_status create_convolution(const qwino::ConvolutionGeometry& geometry,
                                const ConvolutionQuantization& q, uint32_t flags,
                                qwino_operator_t* convolution_out) {
  const qwino_kernel_configs* kernels = qwino_kernels();
  if (kernels == nullptr) {
    return qwino_status_uninitialized;
  }
  const qwino::ConvolutionGeometry& g = geometry;
  const uint32_t force_flags = qwino::algorithm_force_flags();
  // Every count the operator allocates or indexes by must be an object this process could
  // hold: the weights (which also bound every packed size and K), the input and output channels
  // of a pixel, and the per-channel values.
  size_t kernel_bytes = 0, input_channels = 0, output_channels = 0, channel_bytes = 0;
  const bool sizes_fit =
      qwino::checked_product({g.groups, g.group_output_channels, g.kernel_height, g.kernel_width,
                              g.group_input_channels},
                             &kernel_bytes) &&
      kernel_bytes <= qwino::kMaxObjectBytes &&
      qwino::checked_product({g.groups, g.group_input_channels}, &input_channels) &&
      qwino::checked_product({g.groups, g.group_output_channels}, &output_channels) &&
      qwino::checked_array_bytes(output_channels, QWINO_MAX_CHANNEL_ARRAYS * sizeof(int32_t),
                                 &channel_bytes);
  if (convolution_out == nullptr || q.kernel == nullptr || !sizes_fit || kernel_bytes == 0 ||
      g.stride_height == 0 || g.stride_width == 0 || g.dilation_height == 0 ||
      g.dilation_width == 0 || !valid_scale(q.input_scale) || !valid_scale(q.output_scale) ||
      q.kernel_scales == nullptr || q.output_min > q.output_max ||
      (flags & ~(force_flags | kOptionFlags)) != 0 || !at_most_one_bit(flags & force_flags)) {
    return qwino_status_invalid_parameter;
  }
  // Only now that the sizes are known to be valid: the scales array has that many entries.
  for (size_t c = 0; c < (q.per_channel ? output_channels : 1); c++) {
    if (!valid_scale(q.kernel_scales[c])) {
      return qwino_status_invalid_parameter;
    }
  }
  const qwino_requantization_mode mode = (flags & QWINO_FLAG_REQUANTIZE_FP32) != 0
                                             ? qwino_requantization_fp32
                                             : qwino_requantization_gemmlowp;
  const size_t arrays =
      mode == qwino_requantization_fp32 ? QWINO_FP32_ARRAYS : QWINO_GEMMLOWP_ARRAYS;
  const uint8_t sign = q.int8_activations ? 0x80 : 0;
  try {
    auto op = std::make_unique<qwino_operator>();
    op->geometry = geometry;
    op->input_zero_point = static_cast<uint8_t>(q.input_zero_point + (sign != 0 ? 128 : 0));
    op->input_sign = sign;
    op->kernel_zero_point = q.int8_kernel ? 128 : q.kernel_zero_point;
    op->requantization = mode;
    op->yield_workers = (flags & QWINO_FLAG_YIELD_WORKERS) != 0;
    op->kernels = *kernels;
    // Copies first: what follows reads the operator's own copy, and weights too large to copy
    // fail here, before anything is read or computed from them.
    if (!op->channel_params.assign(arrays * output_channels, 0) ||
        !op->kernel.assign(q.kernel, kernel_bytes) ||
        !op->zero_pixel.assign(g.group_input_channels, static_cast<uint8_t>(q.input_zero_point))) {
      return qwino_status_out_of_memory;
    }
    if (!pack_channel_params(q, mode, output_channels, op->channel_params.data())) {
      return qwino_status_unsupported_parameter;
    }
    if (q.int8_kernel) {
      uint8_t* kernel = op->kernel.data();
      for (size_t i = 0; i < kernel_bytes; i++) {
        kernel[i] ^= 0x80;
      }
    }
    const auto range = std::minmax_element(op->kernel.data(), op->kernel.data() + kernel_bytes);
    op->kernel_fits_int8 = kernel_bytes != 0 && int{*range.first} - op->kernel_zero_point >= -128 &&
                           int{*range.second} - op->kernel_zero_point <= 127;
    qwino_output_quantization output{};
    output.channel_stride = output_channels;
    output.channels = output_channels;
    output.channel_params = op->channel_params.data();
    output.output_zero_point = q.output_zero_point;
    output.output_min = q.output_min;
    output.output_max = q.output_max;
    output.output_sign = sign;
    op->f23_output().init_params(&op->f23_output_params, &output);
    op->f43_output().init_params(&op->f43_output_params, &output);
    op->requantize().init_params(&op->requantize_params, &output);
    op->dwconv().init_params(&op->dwconv_params, &output);
    if (op->igemm_requantize().ukernel != nullptr) {
      op->igemm_requantize().init_params(&op->igemm_requantize_params, &output);
    }
    const qwino_status choice = qwino::decide_allowed_algorithms(op.get(), flags & force_flags);
    if (choice != qwino_status_success) {
      return choice;
    }
    if (!qwino::find_algorithm(op->algorithm)
             ->prepare(op.get(), qwino::kCreateOutputSize, qwino::kCreateOutputSize)) {
      return qwino_status_out_of_memory;
    }
    const qwino_operator_t handle = qwino::register_operator(op.get());
    if (handle == nullptr) {
      return qwino_status_out_of_memory;
    }
    op.release();  // owned by the handle table until qwino_delete_operator
    *convolution_out = handle;
    return qwino_status_success;
  } catch (...) {  // only allocations throw (std::bad_alloc, std::length_error)
    return qwino_status_out_of_memory;
  }
}

}  // namespace

#define QWINO_GEOMETRY_ARGUMENTS                                                             \
  qwino::ConvolutionGeometry {                                                               \
    input_padding_top, input_padding_right, input_padding_bottom, input_padding_left,        \
        kernel_height, kernel_width, subsampling_height, subsampling_width, dilation_height, \
        dilation_width, groups, group_input_channels, group_output_channels                  \
  }

extern "C" qwino_status qwino_create_convolution2d_nhwc_qu8(
    QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS, uint8_t input_zero_point, float input_scale,
    uint8_t kernel_zero_point, float kernel_scale, const uint8_t* kernel, const int32_t* bias,
    uint8_t output_zero_point, float output_scale, uint8_t output_min, uint8_t output_max,
    uint32_t flags, qwino_operator_t* convolution_out) {
  const ConvolutionQuantization q = {false,
                                     input_zero_point,
                                     input_scale,
                                     false,
                                     kernel_zero_point,
                                     &kernel_scale,
                                     false,
                                     kernel,
                                     bias,
                                     output_zero_point,
                                     output_min,
                                     output_max,
                                     output_scale,
                                     qwino::ScaleProduct::kFloat};
  return create_convolution(QWINO_GEOMETRY_ARGUMENTS, q, flags, convolution_out);
}

extern "C" qwino_status qwino_create_convolution2d_nhwc_q8(
    QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS, uint8_t input_zero_point, float input_scale,
    uint8_t kernel_zero_point, float kernel_scale, const uint8_t* kernel, const int32_t* bias,
    uint8_t output_zero_point, float output_scale, uint8_t output_min, uint8_t output_max,
    uint32_t flags, qwino_operator_t* convolution_out) {
  return qwino_create_convolution2d_nhwc_qu8(
      input_padding_top, input_padding_right, input_padding_bottom, input_padding_left,
      kernel_height, kernel_width, subsampling_height, subsampling_width, dilation_height,
      dilation_width, groups, group_input_channels, group_output_channels, input_zero_point,
      input_scale, kernel_zero_point, kernel_scale, kernel, bias, output_zero_point, output_scale,
      output_min, output_max, flags, convolution_out);
}

extern "C" qwino_status qwino_create_convolution2d_nhwc_qs8(
    QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS, int8_t input_zero_point, float input_scale,
    float kernel_scale, const int8_t* kernel, const int32_t* bias, int8_t output_zero_point,
    float output_scale, int8_t output_min, int8_t output_max, uint32_t flags,
    qwino_operator_t* convolution_out) {
  const ConvolutionQuantization q = {true,
                                     input_zero_point,
                                     input_scale,
                                     true,
                                     0,
                                     &kernel_scale,
                                     false,
                                     reinterpret_cast<const uint8_t*>(kernel),
                                     bias,
                                     output_zero_point,
                                     output_min,
                                     output_max,
                                     output_scale,
                                     qwino::ScaleProduct::kDouble};
  return create_convolution(QWINO_GEOMETRY_ARGUMENTS, q, flags, convolution_out);
}

extern "C" qwino_status qwino_create_convolution2d_nhwc_qs8_qc8w(
    QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS, int8_t input_zero_point, float input_scale,
    const float* kernel_scale, const int8_t* kernel, const int32_t* bias, int8_t output_zero_point,
    float output_scale, int8_t output_min, int8_t output_max, uint32_t flags,
    qwino_operator_t* convolution_out) {
  const ConvolutionQuantization q = {true,
                                     input_zero_point,
                                     input_scale,
                                     true,
                                     0,
                                     kernel_scale,
                                     true,
                                     reinterpret_cast<const uint8_t*>(kernel),
                                     bias,
                                     output_zero_point,
                                     output_min,
                                     output_max,
                                     output_scale,
                                     qwino::ScaleProduct::kDouble};
  return create_convolution(QWINO_GEOMETRY_ARGUMENTS, q, flags, convolution_out);
}

extern "C" qwino_status qwino_create_convolution2d_nhwc_qu8_qc8w(
    QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS, uint8_t input_zero_point, float input_scale,
    const float* kernel_scale, const int8_t* kernel, const int32_t* bias, uint8_t output_zero_point,
    float output_scale, uint8_t output_min, uint8_t output_max, uint32_t flags,
    qwino_operator_t* convolution_out) {
  const ConvolutionQuantization q = {false,
                                     input_zero_point,
                                     input_scale,
                                     true,
                                     0,
                                     kernel_scale,
                                     true,
                                     reinterpret_cast<const uint8_t*>(kernel),
                                     bias,
                                     output_zero_point,
                                     output_min,
                                     output_max,
                                     output_scale,
                                     qwino::ScaleProduct::kDouble};
  return create_convolution(QWINO_GEOMETRY_ARGUMENTS, q, flags, convolution_out);
}
