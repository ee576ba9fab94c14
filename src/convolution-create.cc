// qwino_create_convolution2d_nhwc_q8: validate, choose the algorithm, prepare the weights.
#include <cmath>
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

constexpr uint32_t kForceFlags =
    QWINO_FLAG_FORCE_WINOGRAD_F2X2 | QWINO_FLAG_FORCE_DIRECT | QWINO_FLAG_FORCE_WINOGRAD_F4X4;

bool at_most_one_bit(uint32_t bits) { return (bits & (bits - 1)) == 0; }

bool valid_scale(float scale) { return std::isfinite(scale) && scale > 0.0f; }

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
  const qwino_kernel_configs* kernels = qwino_kernels();
  if (kernels == nullptr) {
    return qwino_status_uninitialized;
  }
  // Every count the operator allocates or indexes by must be an object this process could
  // hold: the weights (which also bound every packed size and K), the input and output channels
  // of a pixel, and the bias.
  size_t kernel_bytes = 0, input_channels = 0, output_channels = 0, bias_bytes = 0;
  const bool sizes_fit =
      qwino::checked_product({groups, group_output_channels, kernel_height, kernel_width,
                              group_input_channels},
                             &kernel_bytes) &&
      kernel_bytes <= qwino::kMaxObjectBytes &&
      qwino::checked_product({groups, group_input_channels}, &input_channels) &&
      qwino::checked_product({groups, group_output_channels}, &output_channels) &&
      qwino::checked_array_bytes(output_channels, sizeof(int32_t), &bias_bytes);
  if (convolution_out == nullptr || kernel == nullptr || !sizes_fit || kernel_bytes == 0 ||
      subsampling_height == 0 || subsampling_width == 0 || dilation_height == 0 ||
      dilation_width == 0 || !valid_scale(input_scale) || !valid_scale(kernel_scale) ||
      !valid_scale(output_scale) || output_min > output_max || (flags & ~kForceFlags) != 0 ||
      !at_most_one_bit(flags)) {
    return qwino_status_invalid_parameter;
  }
  qwino_qu8_gemmlowp_params requantization;
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
  try {
    auto op = std::make_unique<qwino_operator>();
    op->geometry = geometry;
    op->input_zero_point = input_zero_point;
    op->kernel_zero_point = kernel_zero_point;
    const auto init = [&](qwino_init_qu8_requantization_params_fn init_params,
                          qwino_qu8_requantization_params* params) {
      init_params(params, requantization.multiplier, requantization.left_shift,
                  requantization.right_shift, output_zero_point, output_min, output_max);
    };
    init(kernels->f23_output.init_params, &op->f23_output_params);
    init(kernels->f43_output.init_params, &op->f43_output_params);
    init(kernels->requantize.init_params, &op->requantize_params);
    op->kernels = *kernels;
    // Copies first: what follows reads the operator's own copy, and weights too large to copy
    // fail here, before anything is read or computed from them.
    if (!(bias != nullptr ? op->bias.assign(bias, output_channels)
                          : op->bias.assign(output_channels, 0)) ||
        !op->kernel.assign(kernel, kernel_bytes) ||
        !op->zero_pixel.assign(group_input_channels, input_zero_point)) {
      return qwino_status_out_of_memory;
    }
    const qwino_status choice = qwino::decide_allowed_algorithms(op.get(), flags);
    if (choice != qwino_status_success) {
      return choice;
    }
    if (!qwino::find_algorithm(op->algorithm)->prepare(op.get())) {
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
