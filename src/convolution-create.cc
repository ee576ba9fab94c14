// qwino_create_convolution2d_nhwc_q8: validate, choose the algorithm, prepare the weights.
#include <cmath>
#include <memory>
#include <new>

#include "qwino.h"
#include "qwino/common.h"
#include "qwino/operator-registry.h"
#include "qwino/operator.h"
#include "qwino/quantization.h"
#include "qwino/winograd-weights.h"

namespace {

constexpr uint32_t kKnownFlags = QWINO_FLAG_FORCE_WINOGRAD | QWINO_FLAG_FORCE_DIRECT;

bool valid_scale(float scale) { return std::isfinite(scale) && scale > 0.0f; }

// Product of the sizes, or 0 when it overflows size_t (or a factor is 0).
size_t checked_product(std::initializer_list<size_t> factors) {
  size_t product = 1;
  for (size_t factor : factors) {
    if (factor == 0 || __builtin_mul_overflow(product, factor, &product)) {
      return 0;
    }
  }
  return product;
}

bool winograd_f23_shape(const qwino::ConvolutionGeometry& g) {
  return g.kernel_height == 3 && g.kernel_width == 3 && g.stride_height == 1 &&
         g.stride_width == 1 && g.dilation_height == 1 && g.dilation_width == 1;
}

// Whether Y = 4 * acc cannot overflow int32 for any input, in every group.
bool f23_exact(const uint8_t* kernel, const qwino::ConvolutionGeometry& g,
               uint8_t input_zero_point, uint8_t kernel_zero_point) {
  const size_t group_kernel_elements = g.group_output_channels * 9 * g.group_input_channels;
  for (size_t group = 0; group < g.groups; group++) {
    if (qwino::winograd_accumulator_bound(kernel + group * group_kernel_elements,
                                          g.group_input_channels, g.group_output_channels, 0,
                                          g.group_input_channels, input_zero_point,
                                          kernel_zero_point) >= qwino::kF23AccumulatorLimit) {
      return false;
    }
  }
  return true;
}

void prepare_direct(qwino_operator* op, const uint8_t* kernel, size_t kernel_elements) {
  op->centered_kernel.resize(kernel_elements);
  for (size_t i = 0; i < kernel_elements; i++) {
    op->centered_kernel[i] = static_cast<int16_t>(int32_t{kernel[i]} - op->kernel_zero_point);
  }
}

bool prepare_winograd_f23(qwino_operator* op, const uint8_t* kernel) {
  const qwino::ConvolutionGeometry& g = op->geometry;
  const size_t nr = op->kernels.gemm_nr;
  const size_t panels = qwino_divide_round_up(g.group_output_channels, nr);
  op->packed_panel_stride = qwino::winograd_packed_panel_elements(g.group_input_channels, nr);
  op->packed_position_stride = panels * op->packed_panel_stride;
  op->packed_group_stride = 16 * op->packed_position_stride;
  op->packed_weights = qwino::allocate_aligned<int16_t>(g.groups * op->packed_group_stride);
  if (!op->packed_weights) {
    return false;
  }
  const size_t group_kernel_elements = g.group_output_channels * 9 * g.group_input_channels;
  for (size_t group = 0; group < g.groups; group++) {
    qwino::pack_winograd_weights(kernel + group * group_kernel_elements, g.group_input_channels,
                                 g.group_output_channels, op->kernel_zero_point,
                                 qwino::kF23KernelTransform, nr, op->kernels.gemm_kr,
                                 op->packed_weights.get() + group * op->packed_group_stride);
  }
  op->zero_pixel.assign(g.group_input_channels, op->input_zero_point);
  return true;
}

}  // namespace

extern "C" qwino_status qwino_create_convolution2d_nhwc_q8(
    uint32_t input_padding_top, uint32_t input_padding_right, uint32_t input_padding_bottom,
    uint32_t input_padding_left, uint32_t kernel_height, uint32_t kernel_width,
    uint32_t subsampling_height, uint32_t subsampling_width, uint32_t dilation_height,
    uint32_t dilation_width, uint32_t groups, size_t group_input_channels,
    size_t group_output_channels, uint8_t input_zero_point, float input_scale,
    uint8_t kernel_zero_point, float kernel_scale, const uint8_t* kernel, const int32_t* bias,
    uint8_t output_zero_point, float output_scale, uint8_t output_min, uint8_t output_max,
    uint32_t flags, qwino_operator_t* convolution_out) {
  const qwino_kernel_table* kernels = qwino_kernels();
  if (kernels == nullptr) {
    return qwino_status_uninitialized;
  }
  const size_t kernel_elements =
      checked_product({groups, group_output_channels, kernel_height, kernel_width,
                       group_input_channels});
  if (convolution_out == nullptr || kernel == nullptr || kernel_elements == 0 ||
      checked_product({groups, group_input_channels}) == 0 ||
      checked_product({groups, group_output_channels}) == 0 || subsampling_height == 0 ||
      subsampling_width == 0 || dilation_height == 0 || dilation_width == 0 ||
      !valid_scale(input_scale) || !valid_scale(kernel_scale) || !valid_scale(output_scale) ||
      output_min > output_max || (flags & ~kKnownFlags) != 0 ||
      (flags & kKnownFlags) == kKnownFlags) {
    return qwino_status_invalid_parameter;
  }
  qwino_requantization_params requantization;
  if (!qwino::compute_requantization_params(input_scale, kernel_scale, output_scale,
                                            output_zero_point, output_min, output_max,
                                            &requantization)) {
    return qwino_status_unsupported_parameter;
  }
  const qwino::ConvolutionGeometry geometry = {
      input_padding_top, input_padding_right, input_padding_bottom, input_padding_left,
      kernel_height,     kernel_width,        subsampling_height,   subsampling_width,
      dilation_height,   dilation_width,      groups,               group_input_channels,
      group_output_channels};
  const bool winograd_exact =
      winograd_f23_shape(geometry) &&
      f23_exact(kernel, geometry, input_zero_point, kernel_zero_point);
  if ((flags & QWINO_FLAG_FORCE_WINOGRAD) != 0 && !winograd_exact) {
    return qwino_status_unsupported_parameter;
  }
  const bool use_winograd = winograd_exact && (flags & QWINO_FLAG_FORCE_DIRECT) == 0;

  try {
    auto op = std::make_unique<qwino_operator>();
    op->geometry = geometry;
    op->input_zero_point = input_zero_point;
    op->kernel_zero_point = kernel_zero_point;
    op->requantization = requantization;
    op->kernels = *kernels;
    const size_t output_channels = size_t{groups} * group_output_channels;
    op->bias.assign(output_channels, 0);
    if (bias != nullptr) {
      op->bias.assign(bias, bias + output_channels);
    }
    if (use_winograd) {
      op->algorithm = qwino_algorithm_winograd_f2x2_3x3;
      if (!prepare_winograd_f23(op.get(), kernel)) {
        return qwino_status_out_of_memory;
      }
    } else {
      op->algorithm = qwino_algorithm_direct;
      prepare_direct(op.get(), kernel, kernel_elements);
    }
    if (!qwino::register_operator(op.get())) {
      return qwino_status_out_of_memory;
    }
    *convolution_out = op.release();
    return qwino_status_success;
  } catch (const std::bad_alloc&) {
    return qwino_status_out_of_memory;
  }
}
