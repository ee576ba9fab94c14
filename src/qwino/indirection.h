// The pixel pointers of QNNPACK's indirection buffers (seed 002), as the indirect GEMM
// (src/convolution-indirect.cc) and the depthwise path (src/convolution-depthwise.cc) build them:
// a tap reads the input pixel under it, or a row of input zero points where it falls into the
// padding.
#ifndef QWINO_INDIRECTION_H_
#define QWINO_INDIRECTION_H_

#include <cstddef>
#include <cstdint>

#include "qwino/operator.h"

namespace qwino {

// The input coordinate (row or column, possibly outside the input) that tap k of output
// coordinate o reads.
inline ptrdiff_t tap_coordinate(size_t o, uint32_t stride, size_t k, uint32_t dilation,
                                uint32_t padding) {
  return static_cast<ptrdiff_t>(o * stride + k * dilation) - static_cast<ptrdiff_t>(padding);
}

// The first pixel of input row iy of `image`, or nullptr where the row lies in the padding.
inline const uint8_t* input_row_or_null(const SetupState& s, size_t image, ptrdiff_t iy) {
  return iy >= 0 && iy < static_cast<ptrdiff_t>(s.input_height)
             ? s.input + (image * s.input_height + static_cast<size_t>(iy)) * s.input_width *
                             s.input_pixel_stride
             : nullptr;
}

// The pixel at column ix of input_row (from input_row_or_null), or `zero` in the padding.
inline const uint8_t* tap_pixel(const SetupState& s, const uint8_t* input_row, ptrdiff_t ix,
                                const uint8_t* zero) {
  return input_row != nullptr && ix >= 0 && ix < static_cast<ptrdiff_t>(s.input_width)
             ? input_row + static_cast<size_t>(ix) * s.input_pixel_stride
             : zero;
}

}  // namespace qwino

#endif  // QWINO_INDIRECTION_H_
