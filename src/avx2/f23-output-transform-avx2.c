/*
 * Winograd F(2x2,3x3) output transform + bias + requantization, AVX2: bit-exact twin of
 * src/scalar/f23-output-transform-scalar.c for every input, including wrapped M values and
 * requantization parameters outside the create-time ranges.
 *
 * Channels sit in lanes, 8 int32 per ymm. Why each step matches qwino/requantization.h:
 *  - A^T M A with vector add/sub wraps modulo 2^32 like the scalar uint32_t arithmetic; the
 *    arithmetic >> 2, the bias add and the left shift (VPSLLD by a uniform count) wrap too.
 *  - SaturatingRoundingDoublingHighMul(x, m) = floor((x * m + 2^30) / 2^31) (gemmlowp's
 *    truncating division with its sign-dependent nudge is the same integer): VPMULDQ forms the
 *    exact 64-bit products of the even lanes and, after a 32-bit shift, of the odd lanes; adding
 *    2^30 cannot overflow (|x * m| <= 2^62) and bits 31..62 of the sum are the result modulo
 *    2^32 (a logical 64-bit shift is enough: the bits above are not kept). The true result lies
 *    in [-2^31 + 1, 2^31]: it is never INT32_MIN, and 2^31 (only for x = m = INT32_MIN) wraps
 *    to exactly INT32_MIN, so XOR with (h == INT32_MIN) turns those lanes into INT32_MAX: the
 *    saturation.
 *  - RoundingDivideByPOT(x, e) is gemmlowp's formula itself: (x >> e) + ((x & mask) > (mask >> 1)
 *    + (x < 0)), mask = 2^e - 1; every term is a small non-negative int32, so the signed compare
 *    is exact, and e = 0 gives mask 0 and no increment.
 *  - The zero point add wraps; VPACKSSDW + VPACKUSWB saturate to [0, 255], which commutes with
 *    the final clamp because output_min/max are bytes; VPMAXUB before VPMINUB matches the
 *    scalar clamp order even when output_min > output_max.
 * The four pixels of 8 channels are packed into one ymm (8 bytes each) with one VPERMD, since
 * the packs work within 128-bit lanes. The channel tail (< 8) is staged through stack buffers
 * so that exactly `channels` values are read per position and `channels` bytes written per pixel.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/ukernels.h"

struct requant_consts {
  __m128i left_shift;  /* count for VPSLLD */
  __m128i right_shift; /* count for VPSRAD */
  __m256i multiplier;
  __m256i nudge;       /* 2^30 in each 64-bit lane */
  __m256i remainder_mask;
  __m256i threshold;   /* remainder_mask >> 1 */
  __m256i zero_point;
  __m256i int32_min;
  __m256i min;         /* bytes */
  __m256i max;         /* bytes */
  __m256i pixel_order; /* VPERMD indices: 4-byte groups back in pixel order */
};

static inline __m256i requantize8(__m256i y, __m256i bias, const struct requant_consts* q) {
  __m256i x = _mm256_add_epi32(_mm256_srai_epi32(y, 2), bias);
  x = _mm256_sll_epi32(x, q->left_shift);
  /* SaturatingRoundingDoublingHighMul */
  const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, q->multiplier), q->nudge);
  const __m256i odd =
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), q->multiplier), q->nudge);
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  h = _mm256_xor_si256(h, _mm256_cmpeq_epi32(h, q->int32_min));
  /* RoundingDivideByPOT */
  const __m256i remainder = _mm256_and_si256(h, q->remainder_mask);
  const __m256i threshold = _mm256_sub_epi32(q->threshold, _mm256_srai_epi32(h, 31));
  __m256i r = _mm256_sra_epi32(h, q->right_shift);
  r = _mm256_sub_epi32(r, _mm256_cmpgt_epi32(remainder, threshold));
  return _mm256_add_epi32(r, q->zero_point);
}

/* 8 channels of the 2x2 output block: bytes 8p..8p+7 of the result are pixel p = y * 2 + x.
 * m_row[i] points at position (i, 0) of these channels, positions (i, j) are j * stride
 * elements further (few live pointers: the kernel is short of general registers otherwise). */
static inline __m256i output8(const int32_t* const m_row[4], size_t stride, const int32_t* bias,
                              const struct requant_consts* q) {
  __m256i t0[4], t1[4];
  for (int j = 0; j < 4; j++) { /* A^T M: combine rows */
    const __m256i s0 = _mm256_loadu_si256((const __m256i*) (m_row[0] + j * stride));
    const __m256i s1 = _mm256_loadu_si256((const __m256i*) (m_row[1] + j * stride));
    const __m256i s2 = _mm256_loadu_si256((const __m256i*) (m_row[2] + j * stride));
    const __m256i s3 = _mm256_loadu_si256((const __m256i*) (m_row[3] + j * stride));
    t0[j] = _mm256_add_epi32(_mm256_add_epi32(s0, s1), s2);
    t1[j] = _mm256_sub_epi32(_mm256_sub_epi32(s1, s2), s3);
  }
  const __m256i vbias = _mm256_loadu_si256((const __m256i*) bias);
  /* (A^T M) A: combine columns */
  const __m256i y00 = _mm256_add_epi32(_mm256_add_epi32(t0[0], t0[1]), t0[2]);
  const __m256i y01 = _mm256_sub_epi32(_mm256_sub_epi32(t0[1], t0[2]), t0[3]);
  const __m256i y10 = _mm256_add_epi32(_mm256_add_epi32(t1[0], t1[1]), t1[2]);
  const __m256i y11 = _mm256_sub_epi32(_mm256_sub_epi32(t1[1], t1[2]), t1[3]);
  /* Per 128-bit lane h (channels 4h..4h+3): pixels 00, 01, 10, 11, 4 bytes each. */
  const __m256i top = _mm256_packs_epi32(requantize8(y00, vbias, q), requantize8(y01, vbias, q));
  const __m256i bottom =
      _mm256_packs_epi32(requantize8(y10, vbias, q), requantize8(y11, vbias, q));
  __m256i bytes = _mm256_packus_epi16(top, bottom);
  bytes = _mm256_permutevar8x32_epi32(bytes, q->pixel_order);
  return _mm256_min_epu8(_mm256_max_epu8(bytes, q->min), q->max);
}

void qwino_f23_output_transform_ukernel__avx2(
    size_t channels, const int32_t* m, size_t m_position_stride, const int32_t* bias,
    uint8_t* output, size_t output_row_stride, size_t output_pixel_stride,
    size_t rows, size_t columns, const struct qwino_requantization_params* params) {
  struct requant_consts q;
  q.left_shift = _mm_cvtsi32_si128((int) params->left_shift);
  q.right_shift = _mm_cvtsi32_si128((int) params->right_shift);
  q.multiplier = _mm256_set1_epi32(params->multiplier);
  q.nudge = _mm256_set1_epi64x(INT64_C(1) << 30);
  const uint32_t remainder_mask = (UINT32_C(1) << params->right_shift) - 1;
  q.remainder_mask = _mm256_set1_epi32((int32_t) remainder_mask);
  q.threshold = _mm256_set1_epi32((int32_t) (remainder_mask >> 1));
  q.zero_point = _mm256_set1_epi32(params->output_zero_point);
  q.int32_min = _mm256_set1_epi32(INT32_MIN);
  q.min = _mm256_set1_epi8((char) params->output_min);
  q.max = _mm256_set1_epi8((char) params->output_max);
  q.pixel_order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);

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
    const __m256i bytes = output8(rows_c, m_position_stride, bias + c, &q);
    const __m128i top = _mm256_castsi256_si128(bytes);
    const __m128i bottom = _mm256_extracti128_si256(bytes, 1);
    _mm_storel_epi64((__m128i*) (o00 + c), top);
    if (two_columns) {
      _mm_storel_epi64((__m128i*) (o01 + c), _mm_unpackhi_epi64(top, top));
    }
    if (two_rows) {
      _mm_storel_epi64((__m128i*) (o10 + c), bottom);
      if (two_columns) {
        _mm_storel_epi64((__m128i*) (o11 + c), _mm_unpackhi_epi64(bottom, bottom));
      }
    }
  }
  if (c < channels) {
    const size_t tail = channels - c;
    /* Position p of the tail at m_buffer[p]: rows 4 positions apart, positions 8 apart. */
    int32_t m_buffer[16][8];
    int32_t bias_buffer[8] = {0};
    memset(m_buffer, 0, sizeof(m_buffer));
    for (size_t p = 0; p < 16; p++) {
      memcpy(m_buffer[p], m_row[p / 4] + (p % 4) * m_position_stride + c, tail * sizeof(int32_t));
    }
    memcpy(bias_buffer, bias + c, tail * sizeof(int32_t));
    const int32_t* const buffer_rows[4] = {m_buffer[0], m_buffer[4], m_buffer[8], m_buffer[12]};
    uint8_t bytes[32];
    _mm256_storeu_si256((__m256i*) bytes, output8(buffer_rows, 8, bias_buffer, &q));
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
