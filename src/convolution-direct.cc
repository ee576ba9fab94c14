// Direct convolution: the path for every valid convolution that Winograd does not cover (any
// kernel size, stride, dilation, or weights beyond Winograd's exactness bound).
//
// It is the plain definition of DESIGN.md section 1 with int32 accumulation modulo 2^32 (as
// TFLite's int32 accumulator), written for clarity rather than speed.
#include <cstdint>

#include "qwino/convolution-paths.h"
#include "qwino/operator.h"
#include "qwino/requantization.h"

namespace qwino {

void run_direct_item(const qwino_operator& op, size_t item) {
  const ConvolutionGeometry& g = op.geometry;
  const SetupState& s = op.setup;
  const size_t image = item / s.output_height;
  const size_t oy = item % s.output_height;
  const size_t taps = size_t{g.kernel_height} * g.kernel_width;
  const int32_t input_zero_point = op.input_zero_point;
  const int32_t kernel_zero_point = op.kernel_zero_point;
  for (size_t ox = 0; ox < s.output_width; ox++) {
    uint8_t* output =
        s.output + ((image * s.output_height + oy) * s.output_width + ox) * s.output_pixel_stride;
    for (size_t group = 0; group < g.groups; group++) {
      for (size_t oc = 0; oc < g.group_output_channels; oc++) {
        const size_t channel = group * g.group_output_channels + oc;
        const uint8_t* weights = op.kernel.data() + channel * taps * g.group_input_channels;
        uint32_t accumulator = 0;
        for (size_t ky = 0; ky < g.kernel_height; ky++) {
          const ptrdiff_t iy = static_cast<ptrdiff_t>(oy * g.stride_height + ky * g.dilation_height) -
                               static_cast<ptrdiff_t>(g.padding_top);
          if (iy < 0 || iy >= static_cast<ptrdiff_t>(s.input_height)) {
            continue;  // padding holds the zero point: contributes 0
          }
          for (size_t kx = 0; kx < g.kernel_width; kx++) {
            const ptrdiff_t ix = static_cast<ptrdiff_t>(ox * g.stride_width + kx * g.dilation_width) -
                                 static_cast<ptrdiff_t>(g.padding_left);
            if (ix < 0 || ix >= static_cast<ptrdiff_t>(s.input_width)) {
              continue;
            }
            const uint8_t* pixel =
                s.input + ((image * s.input_height + iy) * s.input_width + ix) * s.input_pixel_stride +
                group * g.group_input_channels;
            const uint8_t* tap_weights = weights + (ky * g.kernel_width + kx) * g.group_input_channels;
            for (size_t ic = 0; ic < g.group_input_channels; ic++) {
              accumulator += static_cast<uint32_t>((int32_t{pixel[ic]} - input_zero_point) *
                                                   (int32_t{tap_weights[ic]} - kernel_zero_point));
            }
          }
        }
        output[channel] = qwino_requantize(
            qwino_wrapping_add_s32(static_cast<int32_t>(accumulator), op.bias[channel]),
            &op.requantization);
      }
    }
  }
}

}  // namespace qwino
