/*
 * Winograd F(2x2,3x3) output transform + bias + requantization, AVX2: bit-exact twin of
 * src/qu8-winograd-f2x2-output/qu8-winograd-f2x2-output-scalar.c for every input, including
 * wrapped M values and requantization parameters outside the create-time ranges (gemmlowp
 * multipliers but INT32_MIN), both requantization modes, uint8 and int8 outputs.
 *
 * Channels sit in lanes, 8 int32 per ymm. A^T M A with vector add/sub wraps modulo 2^32 like the
 * scalar uint32_t arithmetic; the arithmetic >> 2 and the bias add wrap too. The requantization is
 * src/qwino/requantization-avx2.h (shared with the F(4x4,3x3) and requantize kernels; its comment
 * has the argument for every step): the per-channel values of 8 channels are loaded and prepared
 * once for the tile's four pixels, and one always-inline body is specialised on the mode and the
 * gemmlowp form, for both output types (QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR). The four
 * pixels of 8
 * channels are packed into one ymm (8 bytes each) with one VPERMD, since the packs work within
 * 128-bit lanes. The channel tail (< 8) is staged through stack buffers so that exactly
 * `channels` values are read per position and per channel array and `channels` bytes written per
 * pixel.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/requantization-avx2.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

QWINO_INLINE __m256i requantize8(__m256i y, const struct qwino_avx2_channels* ch,
                                 const struct qwino_avx2_requantization* q, int form) {
  return qwino_avx2_requantize(_mm256_add_epi32(_mm256_srai_epi32(y, 2), ch->bias), ch, q, form);
}

/* 8 channels of the 2x2 output block: bytes 8p..8p+7 of the result are pixel p = y * 2 + x.
 * m_row[i] points at position (i, 0) of these channels, positions (i, j) are j * stride
 * elements further (few live pointers: the kernel is short of general registers otherwise). */
QWINO_INLINE __m256i output8(const int32_t* const m_row[4], size_t stride,
                             const struct qwino_avx2_channels* ch,
                             const struct qwino_avx2_requantization* q, int form, int is_signed) {
  __m256i t0[4], t1[4];
  for (int j = 0; j < 4; j++) { /* A^T M: combine rows */
    const __m256i s0 = _mm256_loadu_si256((const __m256i*)(m_row[0] + j * stride));
    const __m256i s1 = _mm256_loadu_si256((const __m256i*)(m_row[1] + j * stride));
    const __m256i s2 = _mm256_loadu_si256((const __m256i*)(m_row[2] + j * stride));
    const __m256i s3 = _mm256_loadu_si256((const __m256i*)(m_row[3] + j * stride));
    t0[j] = _mm256_add_epi32(_mm256_add_epi32(s0, s1), s2);
    t1[j] = _mm256_sub_epi32(_mm256_sub_epi32(s1, s2), s3);
  }
  /* (A^T M) A: combine columns */
  const __m256i y00 = _mm256_add_epi32(_mm256_add_epi32(t0[0], t0[1]), t0[2]);
  const __m256i y01 = _mm256_sub_epi32(_mm256_sub_epi32(t0[1], t0[2]), t0[3]);
  const __m256i y10 = _mm256_add_epi32(_mm256_add_epi32(t1[0], t1[1]), t1[2]);
  const __m256i y11 = _mm256_sub_epi32(_mm256_sub_epi32(t1[1], t1[2]), t1[3]);
  return qwino_avx2_narrow_4x8(requantize8(y00, ch, q, form), requantize8(y01, ch, q, form),
                               requantize8(y10, ch, q, form), requantize8(y11, ch, q, form), q,
                               form, is_signed);
}

QWINO_INLINE void output_transform(size_t channels, const int32_t* m, size_t m_position_stride,
                                   const int32_t* channel_params, uint8_t* output,
                                   size_t output_row_stride, size_t output_pixel_stride,
                                   size_t rows, size_t columns,
                                   const union qwino_qu8_requantization_params* params, int form,
                                   int is_signed) {
  const struct qwino_avx2_requantization q =
      qwino_avx2_requantization_init(params, form, is_signed);
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
  for (; c + 8 <= channels; c += 8) {
    const int32_t* const rows_c[4] = {m_row[0] + c, m_row[1] + c, m_row[2] + c, m_row[3] + c};
    const struct qwino_avx2_channels ch =
        qwino_avx2_load_channels(channel_params + c, stride, &q, form);
    const __m256i bytes = output8(rows_c, m_position_stride, &ch, &q, form, is_signed);
    const __m128i top = _mm256_castsi256_si128(bytes);
    const __m128i bottom = _mm256_extracti128_si256(bytes, 1);
    _mm_storel_epi64((__m128i*)(o00 + c), top);
    if (two_columns) {
      _mm_storel_epi64((__m128i*)(o01 + c), _mm_unpackhi_epi64(top, top));
    }
    if (two_rows) {
      _mm_storel_epi64((__m128i*)(o10 + c), bottom);
      if (two_columns) {
        _mm_storel_epi64((__m128i*)(o11 + c), _mm_unpackhi_epi64(bottom, bottom));
      }
    }
  }
  if (c < channels) {
    const size_t tail = channels - c;
    /* Position p of the tail at m_buffer[p]: rows 4 positions apart, positions 8 apart. */
    int32_t m_buffer[16][8];
    memset(m_buffer, 0, sizeof(m_buffer));
    for (size_t p = 0; p < 16; p++) {
      memcpy(m_buffer[p], m_row[p / 4] + (p % 4) * m_position_stride + c, tail * sizeof(int32_t));
    }
    const struct qwino_avx2_channels ch =
        qwino_avx2_load_channels_tail(channel_params + c, stride, tail, &q, form);
    const int32_t* const buffer_rows[4] = {m_buffer[0], m_buffer[4], m_buffer[8], m_buffer[12]};
    uint8_t bytes[32];
    _mm256_storeu_si256((__m256i*)bytes, output8(buffer_rows, 8, &ch, &q, form, is_signed));
    memcpy(o00 + c, bytes, tail);
    if (two_columns) {
      memcpy(o01 + c, bytes + 8, tail);
    }
    if (two_rows) {
      memcpy(o10 + c, bytes + 16, tail);
      if (two_columns) {
        memcpy(o11 + c, bytes + 24, tail);
      }
    }
  }
}

#define QWINO_F23_OUTPUT_BODY(form, is_signed)                                                \
  output_transform(channels, m, m_position_stride, channel_params, output, output_row_stride, \
                   output_pixel_stride, rows, columns, params, form, is_signed)
#define QWINO_F23_OUTPUT_ENTRY(mode)                                                              \
  void qwino_qu8_winograd_f2x2_output_##mode##_ukernel__avx2(                                     \
      size_t channels, const int32_t* m, size_t m_position_stride, const int32_t* channel_params, \
      uint8_t* output, size_t output_row_stride, size_t output_pixel_stride, size_t rows,         \
      size_t columns, const union qwino_qu8_requantization_params* params) {                      \
    QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR(mode, params, QWINO_F23_OUTPUT_BODY);           \
  }
QWINO_F23_OUTPUT_ENTRY(gemmlowp)
QWINO_F23_OUTPUT_ENTRY(fp32)
