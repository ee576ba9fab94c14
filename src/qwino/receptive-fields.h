// Gathering receptive fields (im2col) for the paths that copy them instead of pointing at them:
// the direct path's int16 rows (x - izp, 0 in the padding; src/convolution-direct.cc) and the
// indirect GEMM's 8-bit rows for layers with few input channels per tap (the input bytes
// themselves, the zero point in the padding; src/convolution-indirect.cc). Both walk the
// geometry the same way, so the walk is written once: a row is taps-major with channels
// innermost ([kh][kw][ic], the order of the weights), and `Field` says what a run of input bytes
// becomes (`copy`) and what the padding holds (`pad`).
#ifndef QWINO_RECEPTIVE_FIELDS_H_
#define QWINO_RECEPTIVE_FIELDS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "qwino/operator.h"

namespace qwino {

// The kernel columns [begin, end) whose taps fall inside the input for an output column whose
// tap 0 reads input column x0 (which may be negative).
struct TapRange {
  size_t begin, end;
};
inline TapRange valid_taps(ptrdiff_t x0, size_t input_width, size_t kernel_width, size_t dilation) {
  const ptrdiff_t d = static_cast<ptrdiff_t>(dilation);
  const ptrdiff_t last = static_cast<ptrdiff_t>(input_width) - 1 - x0;  // largest kx * d allowed
  if (last < 0) {
    return {0, 0};
  }
  // (No divisions in the common undilated case: this runs once per output pixel.)
  const ptrdiff_t first = x0 >= 0 ? 0 : d == 1 ? -x0 : (-x0 + d - 1) / d;
  const size_t begin = std::min(kernel_width, static_cast<size_t>(first));
  const size_t end = std::min(kernel_width, static_cast<size_t>(d == 1 ? last : last / d) + 1);
  return {begin, std::max(begin, end)};
}

// The receptive fields of `pixels` consecutive output pixels (raster order from first_pixel) of
// one image and group of the setup, as rows `row_stride` elements apart starting at `rows` (only
// the first kernel taps x group input channels elements of a row are written).
//   field.pad(Element* dst, size_t n)                       n elements of padding
//   field.copy(const uint8_t* src, size_t n, Element* dst)  n input bytes
// `run` interior pixels whose sources are src_step bytes apart: each kernel row one run of
// row_taps input bytes, `pitch` bytes below the previous one. The run length is known to lie in
// [kLow, kHigh], so the copy's choice of pieces folds away.
template <size_t kLow, size_t kHigh, typename Element, typename Field>
inline void gather_interior_rows(const Field& f, const uint8_t* src, size_t src_step, size_t pitch,
                                 size_t kernel_height, size_t row_taps, Element* row,
                                 size_t row_stride, size_t run) {
  if (row_taps < kLow || row_taps > kHigh) __builtin_unreachable();
  for (size_t i = 0; i < run; i++, src += src_step, row += row_stride) {
    for (size_t ky = 0; ky < kernel_height; ky++) {
      f.copy(src + ky * pitch, row_taps, row + ky * row_taps);
    }
  }
}

// A function of its own so that its few values stay in registers (inlined into the gathering
// loop, they were spilled around every copy), with runs of 8 to 15 bytes (3x3 first layers' 3
// taps of 3 channels) in a loop of their own: modeled N1, MobileNet's 224x224x3>32 3x3/2 first
// layer 10.25 -> 12.58 MACs/cycle, VGG's 224x224x3>64 13.3 -> 14.2; the 7x7 layers' 21-byte
// rows lost 2% in such a loop and keep the general one.
template <typename Element, typename Field>
__attribute__((noinline)) void gather_interior_run(const Field f, const uint8_t* src,
                                                   size_t src_step, size_t pitch,
                                                   size_t kernel_height, size_t row_taps,
                                                   Element* row, size_t row_stride, size_t run) {
  if (row_taps >= 8 && row_taps < 16) {
    gather_interior_rows<8, 15>(f, src, src_step, pitch, kernel_height, row_taps, row, row_stride,
                                run);
  } else {
    gather_interior_rows<0, SIZE_MAX>(f, src, src_step, pitch, kernel_height, row_taps, row,
                                      row_stride, run);
  }
}

template <typename Element, typename Field>
void gather_receptive_fields(const qwino_operator& op, size_t image, size_t group,
                             size_t first_pixel, size_t pixels, Element* rows, size_t row_stride,
                             const Field& field) {
  // Local copies: the rows are written through Element pointers (bytes may alias anything), so
  // values read through references would be reloaded after every store.
  const Field f = field;
  const SetupState& s = op.setup;
  const ConvolutionGeometry& g = op.geometry;
  const size_t channels = g.group_input_channels;
  const size_t kernel_height = g.kernel_height, kernel_width = g.kernel_width;
  const size_t stride_height = g.stride_height, stride_width = g.stride_width;
  const size_t dilation_height = g.dilation_height, dilation_width = g.dilation_width;
  const ptrdiff_t padding_top = g.padding_top, padding_left = g.padding_left;
  const ptrdiff_t input_height = static_cast<ptrdiff_t>(s.input_height);
  const size_t input_width = s.input_width, output_width = s.output_width;
  const size_t pixel_stride = s.input_pixel_stride;
  const size_t row_taps = kernel_width * channels;  // elements per kernel row
  // Where the taps of one kernel row are one run of input bytes, take the run in one go.
  const bool contiguous_row = dilation_width == 1 && pixel_stride == channels;
  const uint8_t* input =
      s.input + image * s.input_height * input_width * pixel_stride + group * channels;
  // Bytes between input rows a kernel row apart, and the output columns whose taps all fall
  // inside the input horizontally (x0 >= 0 and the last tap < input_width).
  const size_t kernel_row_pitch = dilation_height * input_width * pixel_stride;
  const size_t reach = (kernel_width - 1) * dilation_width;
  const size_t first_inner_x =
      (static_cast<size_t>(padding_left) + stride_width - 1) / stride_width;
  const size_t inner_x_end =
      input_width + static_cast<size_t>(padding_left) >= reach + 1
          ? std::min(
                output_width,
                (input_width + static_cast<size_t>(padding_left) - reach - 1) / stride_width + 1)
          : 0;
  size_t oy = first_pixel / output_width;
  size_t ox = first_pixel % output_width;
  for (size_t p = 0; p < pixels; p++) {
    Element* row = rows + p * row_stride;
    const ptrdiff_t x0 = static_cast<ptrdiff_t>(ox * stride_width) - padding_left;
    const ptrdiff_t y0 = static_cast<ptrdiff_t>(oy * stride_height) - padding_top;
    // Interior pixels (every tap inside, each kernel row one run of bytes; most pixels of a
    // first layer): the run of them up to the row's last interior one, without the padding
    // logic or the per-pixel position arithmetic (their sources are stride_width pixels apart).
    if (contiguous_row && ox >= first_inner_x && ox < inner_x_end && y0 >= 0 &&
        y0 + static_cast<ptrdiff_t>((kernel_height - 1) * dilation_height) < input_height) {
      const uint8_t* src =
          input + (static_cast<size_t>(y0) * input_width + static_cast<size_t>(x0)) * pixel_stride;
      const size_t run = std::min(pixels - p, inner_x_end - ox);
      gather_interior_run(f, src, stride_width * pixel_stride, kernel_row_pitch, kernel_height,
                          row_taps, row, row_stride, run);
      p += run - 1;
      ox += run;
      if (ox == output_width) {
        ox = 0;
        oy++;
      }
      continue;
    }
    const TapRange taps = valid_taps(x0, input_width, kernel_width, dilation_width);
    const size_t ix =  // the first tap inside the input (when there is one)
        static_cast<size_t>(x0 + static_cast<ptrdiff_t>(taps.begin * dilation_width));
    for (size_t ky = 0; ky < kernel_height; ky++) {
      Element* dst = row + ky * row_taps;
      const ptrdiff_t iy =
          static_cast<ptrdiff_t>(oy * stride_height + ky * dilation_height) - padding_top;
      if (iy < 0 || iy >= input_height || taps.begin == taps.end) {
        f.pad(dst, row_taps);
        continue;
      }
      if (taps.begin != 0) {  // (most pixels have no padding: no calls for them)
        f.pad(dst, taps.begin * channels);
      }
      if (taps.end != kernel_width) {
        f.pad(dst + taps.end * channels, row_taps - taps.end * channels);
      }
      const uint8_t* src = input + (static_cast<size_t>(iy) * input_width + ix) * pixel_stride;
      if (contiguous_row) {
        f.copy(src, (taps.end - taps.begin) * channels, dst + taps.begin * channels);
      } else {
        const size_t tap_stride = dilation_width * pixel_stride;  // bytes
        for (size_t kx = taps.begin; kx < taps.end; kx++) {
          f.copy(src + (kx - taps.begin) * tap_stride, channels, dst + kx * channels);
        }
      }
    }
    if (++ox == output_width) {
      ox = 0;
      oy++;
    }
  }
}

// 8-bit rows' field (the indirect GEMM's gathered rows, the direct path's rows for the pair
// GEMM): the input bytes XOR `flip`, the input zero point XOR `flip` in the padding. With flip =
// the kernel's sign the rows hold the values it multiplies already: no XOR per row load (each
// row is read once per block of output channels).
struct InputBytes {
  uint8_t zero_point;  // as stored
  uint8_t flip;
  void pad(uint8_t* dst, size_t n) const {
    std::memset(dst, static_cast<uint8_t>(zero_point ^ flip), n);
  }
  // A kernel row's run is short (21 bytes for 7 taps of 3 channels) and copied once per kernel
  // row of every output pixel: fixed-size pieces the compiler turns into vector loads, XORs and
  // stores, the last one overlapping the previous (same bytes to the same places), instead of a
  // library call each.
  template <size_t kBytes>
  void piece(const uint8_t* src, uint8_t* dst) const {
    if (flip == 0) {  // int8 activations: a plain copy
      std::memcpy(dst, src, kBytes);
      return;
    }
    uint8_t bytes[kBytes];
    std::memcpy(bytes, src, kBytes);
    for (size_t i = 0; i < kBytes; i++) {
      bytes[i] ^= flip;
    }
    std::memcpy(dst, bytes, kBytes);
  }
  void copy(const uint8_t* src, size_t n, uint8_t* dst) const {
    if (n >= 16) {
      size_t i = 0;
      for (; i + 16 <= n; i += 16) {
        piece<16>(src + i, dst + i);
      }
      if (i != n) {
        piece<16>(src + n - 16, dst + n - 16);
      }
    } else if (n >= 8) {
      piece<8>(src, dst);
      piece<8>(src + n - 8, dst + n - 8);
    } else if (n >= 4) {
      piece<4>(src, dst);
      piece<4>(src + n - 4, dst + n - 4);
    } else {
      for (size_t i = 0; i < n; i++) {
        dst[i] = static_cast<uint8_t>(src[i] ^ flip);
      }
    }
  }
};

}  // namespace qwino

#endif  // QWINO_RECEPTIVE_FIELDS_H_
