/*
 * Depthwise convolution with fused requantization, portable C: the scalar twins of the SIMD
 * kernels, one per weight layout (qwino/ukernel-types.h). The sum is taken modulo 2^32 as the
 * contract says (unsigned arithmetic), so it equals any SIMD kernel's whatever order that one
 * adds in; the requantization is qwino/requantization.h element by element.
 */
#include "qwino/requantization.h"
#include "qwino/ukernels.h"

#define CR 8

/* B_t[c] (c < CR) of one block of the layout. */
static inline int32_t weight(const void* block, size_t taps, size_t t, size_t c,
                             enum qwino_dwconv_layout layout) {
  if (layout == qwino_dwconv_layout_int8_taps) {
    return ((const int8_t*)block)[t * CR + c];
  }
  if (layout == qwino_dwconv_layout_int8_col3) {
    return ((const int8_t*)block)[((t / 3) * CR + c) * 4 + t % 3];
  }
  if (layout == qwino_dwconv_layout_int8_col3_pairs ||
      layout == qwino_dwconv_layout_int8_col5_pairs) {
    return ((const int8_t*)block)[qwino_dwconv_column_pairs_index(qwino_dwconv_column_rows(layout),
                                                                  taps, t, c, CR)];
  }
  if (layout == qwino_dwconv_layout_int8_col5) {
    return ((const int8_t*)block)[(((t / 5) * 2 + t % 5 / 4) * CR + c) * 4 + t % 5 % 4];
  }
  return ((const int16_t*)block)[((t / 2) * CR + c) * 2 + t % 2];
}

static inline void dwconv(size_t channels, size_t pixels, size_t taps, const uint8_t* const* input,
                          size_t input_pixel_step, size_t input_offset, uint8_t a_sign,
                          const void* packed_weights, const int32_t* channel_params,
                          uint8_t* output, size_t output_pixel_stride,
                          const union qwino_qu8_requantization_params* params,
                          enum qwino_dwconv_layout layout, enum qwino_requantization_mode mode) {
  const size_t block_bytes = qwino_dwconv_block_bytes(layout, taps, CR);
  for (size_t p = 0; p < pixels; p++) {
    const uint8_t* const* pointers = input + p * input_pixel_step;
    for (size_t c = 0; c < channels; c++) {
      const void* block = (const char*)packed_weights + (c / CR) * block_bytes;
      uint32_t acc = (uint32_t)channel_params[c];
      for (size_t t = 0; t < taps; t++) {
        const int32_t a = (int8_t)(pointers[t][input_offset + c] ^ a_sign);
        acc += (uint32_t)(a * weight(block, taps, t, c % CR, layout));
      }
      output[c] = qwino_requantize_channel((int32_t)acc, channel_params, c, params, mode);
    }
    output += output_pixel_stride;
  }
}

#define QWINO_DWCONV_ENTRY(mode, suffix, layout)                                                  \
  void qwino_s8_dwconv_##mode##_ukernel_up8__##suffix(                                            \
      size_t channels, size_t pixels, size_t taps, const uint8_t* const* input,                   \
      size_t input_pixel_step, size_t input_offset, uint8_t a_sign, const void* packed_weights,   \
      const int32_t* channel_params, uint8_t* output, size_t output_pixel_stride,                 \
      const union qwino_qu8_requantization_params* params) {                                      \
    dwconv(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign, packed_weights, \
           channel_params, output, output_pixel_stride, params, qwino_dwconv_layout_##layout,     \
           qwino_requantization_##mode);                                                          \
  }
QWINO_DWCONV_ENTRY(gemmlowp, scalar, int8_taps)
QWINO_DWCONV_ENTRY(fp32, scalar, int8_taps)
QWINO_DWCONV_ENTRY(gemmlowp, scalar_madd, int16_tap_pairs)
QWINO_DWCONV_ENTRY(fp32, scalar_madd, int16_tap_pairs)
QWINO_DWCONV_ENTRY(gemmlowp, scalar_col3, int8_col3)
QWINO_DWCONV_ENTRY(fp32, scalar_col3, int8_col3)
QWINO_DWCONV_ENTRY(gemmlowp, scalar_col3_pairs, int8_col3_pairs)
QWINO_DWCONV_ENTRY(fp32, scalar_col3_pairs, int8_col3_pairs)
QWINO_DWCONV_ENTRY(gemmlowp, scalar_col5_pairs, int8_col5_pairs)
QWINO_DWCONV_ENTRY(fp32, scalar_col5_pairs, int8_col5_pairs)
QWINO_DWCONV_ENTRY(gemmlowp, scalar_col5, int8_col5)
QWINO_DWCONV_ENTRY(fp32, scalar_col5, int8_col5)
