/*
 * Winograd F(2x2,3x3) output transform + bias + requantization, SSE4.1: bit-exact twin of
 * src/qu8-winograd-f2x2-output/qu8-winograd-f2x2-output-scalar.c, both requantization modes,
 * for every input and the parameter values that src/qwino/requantization-sse41.h lists, for
 * x86-64 CPUs without AVX2.
 *
 * Channels sit in lanes, 8 per step (two xmm of 4 int32 per pixel). A^T M A with vector add/sub
 * wraps modulo 2^32 like the scalar uint32_t arithmetic; the arithmetic >> 2 and the bias add
 * wrap too. The 4 pixels of the 2x2 block are exactly the block of 4 pixels x 4 channels that
 * src/qwino/requantization-sse41.h requantizes (its comment has the argument for every step),
 * twice per step (each half's per-channel values are loaded with it: every call is one tile);
 * PUNPCKL/HDQ then join the two halves' bytes into the two output rows.
 * The channel tail (< 8) is staged through stack buffers so that exactly `channels` values are
 * read per position and per channel array and `channels` bytes written per pixel.
 */
#include <smmintrin.h>
#include <string.h>

#include "qwino/requantization-sse41.h"
#include "qwino/ukernels.h"

/* A^T M A for 4 channels: y[0..3] = pixels (0,0), (0,1), (1,0), (1,1). m_row[i] points at
 * position (i, 0), positions (i, j) are j * stride elements further (few live pointers: the
 * kernel is short of general registers otherwise). */
QWINO_SSE41_INLINE void transform4(const int32_t* const m_row[4], size_t stride, size_t offset,
                                   __m128i y[4]) {
  __m128i t0[4], t1[4];
  for (int j = 0; j < 4; j++) { /* A^T M: combine rows */
    const __m128i s0 = _mm_loadu_si128((const __m128i*)(m_row[0] + j * stride + offset));
    const __m128i s1 = _mm_loadu_si128((const __m128i*)(m_row[1] + j * stride + offset));
    const __m128i s2 = _mm_loadu_si128((const __m128i*)(m_row[2] + j * stride + offset));
    const __m128i s3 = _mm_loadu_si128((const __m128i*)(m_row[3] + j * stride + offset));
    t0[j] = _mm_add_epi32(_mm_add_epi32(s0, s1), s2);
    t1[j] = _mm_sub_epi32(_mm_sub_epi32(s1, s2), s3);
  }
  /* (A^T M) A: combine columns */
  y[0] = _mm_add_epi32(_mm_add_epi32(t0[0], t0[1]), t0[2]);
  y[1] = _mm_sub_epi32(_mm_sub_epi32(t0[1], t0[2]), t0[3]);
  y[2] = _mm_add_epi32(_mm_add_epi32(t1[0], t1[1]), t1[2]);
  y[3] = _mm_sub_epi32(_mm_sub_epi32(t1[1], t1[2]), t1[3]);
}

/* 4 channels of the 2x2 block -> 16 bytes: pixel (0,0)'s 4 channels, then (0,1), (1,0), (1,1).
 * values: the 4 channels' per-channel values, arrays `stride` apart. */
QWINO_SSE41_INLINE __m128i output4(const int32_t* const m_row[4], size_t m_stride, size_t offset,
                                   const int32_t* values, size_t stride,
                                   const struct qwino_sse41_requantization* q,
                                   enum qwino_sse41_form form) {
  __m128i y[4];
  transform4(m_row, m_stride, offset, y);
  const struct qwino_sse41_channels k = qwino_sse41_load_channels(values, stride, form);
  for (int p = 0; p < 4; p++) {
    y[p] = _mm_add_epi32(_mm_srai_epi32(y[p], 2), k.bias);
  }
  return qwino_sse41_requantize_4x4(y[0], y[1], y[2], y[3], &k, q, form);
}

/* 8 channels of the 2x2 output block: row[y] holds pixel (y, 0) in its low and (y, 1) in its
 * high 8 bytes. */
QWINO_SSE41_INLINE void output8(const int32_t* const m_row[4], size_t m_stride,
                                const int32_t* values, size_t stride,
                                const struct qwino_sse41_requantization* q,
                                enum qwino_sse41_form form, __m128i row[2]) {
  const __m128i lo = output4(m_row, m_stride, 0, values, stride, q, form);
  const __m128i hi = output4(m_row, m_stride, 4, values + 4, stride, q, form);
  row[0] = _mm_unpacklo_epi32(lo, hi);
  row[1] = _mm_unpackhi_epi32(lo, hi);
}

QWINO_SSE41_INLINE void output_transform(size_t channels, const int32_t* m,
                                         size_t m_position_stride, const int32_t* channel_params,
                                         uint8_t* output, size_t output_row_stride,
                                         size_t output_pixel_stride, size_t rows, size_t columns,
                                         const union qwino_qu8_requantization_params* params,
                                         enum qwino_sse41_form form) {
  const enum qwino_requantization_mode mode = QWINO_SSE41_MODE(form);
  const struct qwino_sse41_requantization q = qwino_sse41_requantization_init(params, mode);
  const size_t stride = qwino_sse41_channel_stride(params, mode);
  const size_t arrays = qwino_sse41_channel_arrays(mode);

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
    __m128i row[2];
    const int32_t* const rows_c[4] = {m_row[0] + c, m_row[1] + c, m_row[2] + c, m_row[3] + c};
    output8(rows_c, m_position_stride, channel_params + c, stride, &q, form, row);
    _mm_storel_epi64((__m128i*)(o00 + c), row[0]);
    if (two_columns) {
      _mm_storeh_pi((__m64*)(o01 + c), _mm_castsi128_ps(row[0]));
    }
    if (two_rows) {
      _mm_storel_epi64((__m128i*)(o10 + c), row[1]);
      if (two_columns) {
        _mm_storeh_pi((__m64*)(o11 + c), _mm_castsi128_ps(row[1]));
      }
    }
  }
  if (c < channels) {
    const size_t tail = channels - c;
    /* Position p of the tail at m_buffer[p]: rows 4 positions apart, positions 8 apart; the
     * per-channel arrays 8 apart. */
    int32_t m_buffer[16][8];
    int32_t values[QWINO_MAX_CHANNEL_ARRAYS][8];
    memset(m_buffer, 0, sizeof(m_buffer));
    memset(values, 0, sizeof(values));
    for (size_t p = 0; p < 16; p++) {
      memcpy(m_buffer[p], m_row[p / 4] + (p % 4) * m_position_stride + c, tail * sizeof(int32_t));
    }
    for (size_t i = 0; i < arrays; i++) {
      memcpy(values[i], channel_params + i * stride + c, tail * sizeof(int32_t));
    }
    const int32_t* const buffer_rows[4] = {m_buffer[0], m_buffer[4], m_buffer[8], m_buffer[12]};
    __m128i row[2];
    output8(buffer_rows, 8, values[0], 8, &q, form, row);
    uint8_t bytes[2][16];
    _mm_storeu_si128((__m128i*)bytes[0], row[0]);
    _mm_storeu_si128((__m128i*)bytes[1], row[1]);
    memcpy(o00 + c, bytes[0], tail);
    if (two_columns) {
      memcpy(o01 + c, bytes[0] + 8, tail);
    }
    if (two_rows) {
      memcpy(o10 + c, bytes[1], tail);
      if (two_columns) {
        memcpy(o11 + c, bytes[1] + 8, tail);
      }
    }
  }
}

/* One entry per mode; QWINO_SSE41_DISPATCH instantiates the body once per form of the mode. */
#define QWINO_F23_OUTPUT_CALL(form)                                                           \
  output_transform(channels, m, m_position_stride, channel_params, output, output_row_stride, \
                   output_pixel_stride, rows, columns, params, form)
#define QWINO_F23_OUTPUT_ENTRY(mode)                                                              \
  void qwino_qu8_winograd_f2x2_output_##mode##_ukernel__sse41(                                    \
      size_t channels, const int32_t* m, size_t m_position_stride, const int32_t* channel_params, \
      uint8_t* output, size_t output_row_stride, size_t output_pixel_stride, size_t rows,         \
      size_t columns, const union qwino_qu8_requantization_params* params) {                      \
    QWINO_SSE41_DISPATCH(qwino_requantization_##mode, params, QWINO_F23_OUTPUT_CALL);             \
  }
QWINO_F23_OUTPUT_ENTRY(gemmlowp)
QWINO_F23_OUTPUT_ENTRY(fp32)
