/*
 * Winograd F(2x2,3x3) output transform + bias + requantization, AVX-512 (F + BW + VL): bit-exact
 * twin of src/qu8-winograd-f2x2-output/qu8-winograd-f2x2-output-scalar.c for every input,
 * including wrapped M values and requantization parameters outside the create-time ranges
 * (gemmlowp multipliers but INT32_MIN), both requantization modes, uint8 and int8 outputs.
 *
 * Channels sit in lanes, 16 int32 per zmm. A^T M A with vector add/sub wraps modulo 2^32 like
 * the scalar uint32_t arithmetic; the arithmetic >> 2 and the bias add wrap too. The
 * requantization is src/qwino/requantization-avx512skx.h (shared with the F(4x4,3x3) and
 * requantize kernels; the argument for every step is in it and in
 * src/qwino/requantization-avx2.h): the per-channel values of 16 channels are loaded and
 * prepared once for the tile's four pixels, and one always-inline body is specialised on the
 * mode and the gemmlowp form, for both output types
 * (QWINO_AVX512_REQUANTIZATION_DISPATCH_SIGN_BY_XOR: one VPXOR per 64 outputs). Cost (uint8
 * shortcut: about 115 vector instructions per 16 channels; doc/PERFORMANCE.md, "Kernel
 * measurements"): the four pixels of 16 channels are narrowed together (two packs, one clamp, one
 * VPERMD back to pixel order) instead of a clamp and a VPMOVDB each, and M is addressed from 4 row
 * pointers (16 position pointers made GCC spill). Partial tiles store only rows x columns pixels;
 * the channel tail (< 16) uses masked loads and stores, so exactly `channels` values are read per
 * position and per channel array and `channels` bytes written per pixel.
 */
#include <immintrin.h>

#include "qwino/requantization-avx512skx.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

QWINO_INLINE __m512i requantize16(__m512i y, const struct qwino_avx512_channels* ch,
                                  const struct qwino_avx512_requantization* q, int form) {
  return qwino_avx512_requantize(_mm512_add_epi32(_mm512_srai_epi32(y, 2), ch->bias), ch, q, form);
}

/* 16 channels of the 2x2 output block as bytes: 16-byte group p is pixel p = y * 2 + x.
 * m_row[i] points at position (i, 0) of these channels, positions (i, j) are j * stride
 * elements further (few live pointers: the kernel is short of general registers otherwise).
 * `mask` selects the channels to read (0xFFFF except in the tail). */
QWINO_INLINE __m512i output16(const int32_t* const m_row[4], size_t stride, __mmask16 mask,
                              const struct qwino_avx512_channels* ch,
                              const struct qwino_avx512_requantization* q, int form,
                              int is_signed) {
  __m512i t0[4], t1[4];
  for (int j = 0; j < 4; j++) { /* A^T M: combine rows */
    const __m512i s0 = qwino_avx512_load_s32(m_row[0] + j * stride, mask);
    const __m512i s1 = qwino_avx512_load_s32(m_row[1] + j * stride, mask);
    const __m512i s2 = qwino_avx512_load_s32(m_row[2] + j * stride, mask);
    const __m512i s3 = qwino_avx512_load_s32(m_row[3] + j * stride, mask);
    const __m512i s12 = _mm512_sub_epi32(s1, s2);
    t0[j] = _mm512_add_epi32(_mm512_add_epi32(s0, s1), s2);
    t1[j] = _mm512_sub_epi32(s12, s3);
  }
  /* (A^T M) A: combine columns */
  const __m512i y00 = _mm512_add_epi32(_mm512_add_epi32(t0[0], t0[1]), t0[2]);
  const __m512i y01 = _mm512_sub_epi32(_mm512_sub_epi32(t0[1], t0[2]), t0[3]);
  const __m512i y10 = _mm512_add_epi32(_mm512_add_epi32(t1[0], t1[1]), t1[2]);
  const __m512i y11 = _mm512_sub_epi32(_mm512_sub_epi32(t1[1], t1[2]), t1[3]);
  return qwino_avx512_narrow_4x16(requantize16(y00, ch, q, form), requantize16(y01, ch, q, form),
                                  requantize16(y10, ch, q, form), requantize16(y11, ch, q, form), q,
                                  form, is_signed);
}

QWINO_INLINE void output_transform(size_t channels, const int32_t* m, size_t m_position_stride,
                                   const int32_t* channel_params, uint8_t* output,
                                   size_t output_row_stride, size_t output_pixel_stride,
                                   size_t rows, size_t columns,
                                   const union qwino_qu8_requantization_params* params, int form,
                                   int is_signed) {
  const __mmask16 all = (__mmask16)0xFFFF;
  const struct qwino_avx512_requantization q =
      qwino_avx512_requantization_init(params, form, is_signed);
  const size_t stride = q.channel_stride;
  const int32_t* m_row[4] = {m, m + 4 * m_position_stride, m + 8 * m_position_stride,
                             m + 12 * m_position_stride};
  uint8_t* o00 = output;
  uint8_t* o01 = output + output_pixel_stride;
  uint8_t* o10 = output + output_row_stride;
  uint8_t* o11 = o10 + output_pixel_stride;
  const int two_columns = columns > 1;
  const int two_rows = rows > 1;

  size_t c = 0;
  for (; c + 16 <= channels; c += 16) {
    const int32_t* const rows_c[4] = {m_row[0] + c, m_row[1] + c, m_row[2] + c, m_row[3] + c};
    const struct qwino_avx512_channels ch =
        qwino_avx512_load_channels(channel_params + c, stride, all, &q, form);
    const __m512i bytes = output16(rows_c, m_position_stride, all, &ch, &q, form, is_signed);
    _mm_storeu_si128((__m128i*)(o00 + c), _mm512_castsi512_si128(bytes));
    if (two_columns) {
      _mm_storeu_si128((__m128i*)(o01 + c), _mm512_extracti32x4_epi32(bytes, 1));
    }
    if (two_rows) {
      _mm_storeu_si128((__m128i*)(o10 + c), _mm512_extracti32x4_epi32(bytes, 2));
      if (two_columns) {
        _mm_storeu_si128((__m128i*)(o11 + c), _mm512_extracti32x4_epi32(bytes, 3));
      }
    }
  }
  if (c < channels) {
    const __mmask16 mask = (__mmask16)((1u << (channels - c)) - 1);
    const int32_t* const rows_c[4] = {m_row[0] + c, m_row[1] + c, m_row[2] + c, m_row[3] + c};
    const struct qwino_avx512_channels ch =
        qwino_avx512_load_channels(channel_params + c, stride, mask, &q, form);
    const __m512i bytes = output16(rows_c, m_position_stride, mask, &ch, &q, form, is_signed);
    _mm_mask_storeu_epi8(o00 + c, mask, _mm512_castsi512_si128(bytes));
    if (two_columns) {
      _mm_mask_storeu_epi8(o01 + c, mask, _mm512_extracti32x4_epi32(bytes, 1));
    }
    if (two_rows) {
      _mm_mask_storeu_epi8(o10 + c, mask, _mm512_extracti32x4_epi32(bytes, 2));
      if (two_columns) {
        _mm_mask_storeu_epi8(o11 + c, mask, _mm512_extracti32x4_epi32(bytes, 3));
      }
    }
  }
}

#define QWINO_F23_OUTPUT_BODY(form, is_signed)                                                \
  output_transform(channels, m, m_position_stride, channel_params, output, output_row_stride, \
                   output_pixel_stride, rows, columns, params, form, is_signed)
#define QWINO_F23_OUTPUT_ENTRY(mode)                                                              \
  void qwino_qu8_winograd_f2x2_output_##mode##_ukernel__avx512skx(                                \
      size_t channels, const int32_t* m, size_t m_position_stride, const int32_t* channel_params, \
      uint8_t* output, size_t output_row_stride, size_t output_pixel_stride, size_t rows,         \
      size_t columns, const union qwino_qu8_requantization_params* params) {                      \
    QWINO_AVX512_REQUANTIZATION_DISPATCH_SIGN_BY_XOR(mode, params, QWINO_F23_OUTPUT_BODY);        \
  }
QWINO_F23_OUTPUT_ENTRY(gemmlowp)
QWINO_F23_OUTPUT_ENTRY(fp32)
