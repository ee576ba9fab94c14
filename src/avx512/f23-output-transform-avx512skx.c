/*
 * Winograd F(2x2,3x3) output transform + bias + requantization, AVX-512 (F + BW + VL):
 * bit-exact twin of src/scalar/f23-output-transform-scalar.c for every input, including wrapped
 * M values and requantization parameters outside the create-time ranges.
 *
 * Channels sit in lanes, 16 int32 per zmm. Why each step matches qwino/requantization.h:
 *  - A^T M A with vector add/sub wraps modulo 2^32 like the scalar uint32_t arithmetic; the
 *    arithmetic >> 2, the bias add and the left shift (VPSLLD by a uniform count) wrap too.
 *  - SaturatingRoundingDoublingHighMul(x, m) = floor((x * m + 2^30) / 2^31) (gemmlowp's
 *    truncating division with its sign-dependent nudge is the same integer): VPMULDQ forms the
 *    exact 64-bit products of the even lanes and, after a 32-bit shift, of the odd lanes; adding
 *    2^30 cannot overflow (|x * m| <= 2^62) and bits 31..62 of the sum are the result modulo
 *    2^32. The true result lies in [-2^31 + 1, 2^31]: it is never INT32_MIN, and 2^31 (only for
 *    x = m = INT32_MIN) wraps to exactly INT32_MIN, so lanes equal to INT32_MIN become
 *    INT32_MAX: the saturation.
 *  - RoundingDivideByPOT(x, e) is gemmlowp's formula itself: (x >> e) + ((x & mask) > (mask >> 1)
 *    + (x < 0)), mask = 2^e - 1. The comparison is the sign bit of (mask >> 1) + (x < 0) -
 *    (x & mask), whose terms lie in [0, 2^31 - 1], so the difference cannot wrap; e = 0 gives
 *    mask 0 and no increment.
 *  - The zero point add wraps; VPACKSSDW + VPACKUSWB saturate to [0, 255], which commutes with
 *    the final clamp because output_min/max are bytes; VPMAXUB before VPMINUB matches the
 *    scalar clamp order even when output_min > output_max.
 * Cost (about 125 vector instructions per 16 channels, ~3 per cycle on Zen 5): the four pixels
 * of 16 channels are narrowed together (two packs, one clamp, one VPERMD back to pixel order)
 * instead of a clamp and a VPMOVDB each, M is addressed from 4 row pointers (16 position
 * pointers made GCC spill), and the left shift and
 * the saturation fix are compiled out for the usual parameters (left_shift 0, multiplier not
 * INT32_MIN). Partial tiles store only rows x columns pixels; the channel tail (< 16) uses
 * masked loads and stores, so exactly `channels` values are read per position and bytes
 * written per pixel.
 */
#include <immintrin.h>

#include "qwino/ukernels.h"

struct requant_consts {
  __m128i left_shift;  /* count for VPSLLD */
  __m128i right_shift; /* count for VPSRAD */
  __m512i multiplier;
  __m512i nudge;       /* 2^30 in each 64-bit lane */
  __m512i remainder_mask;
  __m512i threshold;   /* remainder_mask >> 1 */
  __m512i zero_point;
  __m512i int32_min;
  __m512i int32_max;
  __m512i min;         /* bytes */
  __m512i max;         /* bytes */
  __m512i pixel_order; /* VPERMD indices: 4-byte groups back in pixel order */
};

/* HAS_LEFT_SHIFT: left_shift != 0; MAY_SATURATE: multiplier == INT32_MIN, the only multiplier
 * for which SaturatingRoundingDoublingHighMul can saturate. Both are constants at every call,
 * so the common case (left_shift 0, multiplier in [2^30, 2^31)) skips those instructions. */
static inline __attribute__((always_inline)) __m512i requantize16(
    __m512i y, __m512i bias, const struct requant_consts* q, int has_left_shift,
    int may_saturate) {
  __m512i x = _mm512_add_epi32(_mm512_srai_epi32(y, 2), bias);
  if (has_left_shift) {
    x = _mm512_sll_epi32(x, q->left_shift);
  }
  /* SaturatingRoundingDoublingHighMul */
  const __m512i even = _mm512_add_epi64(_mm512_mul_epi32(x, q->multiplier), q->nudge);
  const __m512i odd =
      _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), q->multiplier), q->nudge);
  __m512i h = _mm512_mask_blend_epi32((__mmask16) 0xAAAA, _mm512_srli_epi64(even, 31),
                                      _mm512_slli_epi64(odd, 1));
  if (may_saturate) {
    h = _mm512_mask_mov_epi32(h, _mm512_cmpeq_epi32_mask(h, q->int32_min), q->int32_max);
  }
  /* RoundingDivideByPOT: the increment is 1 when remainder > threshold, i.e. when
   * threshold - remainder (both in [0, 2^30]) is negative. */
  const __m512i remainder = _mm512_and_si512(h, q->remainder_mask);
  const __m512i threshold = _mm512_add_epi32(q->threshold, _mm512_srli_epi32(h, 31));
  const __m512i increment = _mm512_srli_epi32(_mm512_sub_epi32(threshold, remainder), 31);
  const __m512i r = _mm512_add_epi32(_mm512_sra_epi32(h, q->right_shift), increment);
  return _mm512_add_epi32(r, q->zero_point);
}

/* 16 channels of the 2x2 output block as bytes: 16-byte group p is pixel p = y * 2 + x.
 * m_row[i] points at position (i, 0) of these channels, positions (i, j) are j * stride
 * elements further (few live pointers: the kernel is short of general registers otherwise).
 * `mask` selects the channels to read (0xFFFF except in the tail). */
static inline __attribute__((always_inline)) __m512i output16(
    const int32_t* const m_row[4], size_t stride, const int32_t* bias, __mmask16 mask,
    const struct requant_consts* q, int has_left_shift, int may_saturate) {
  __m512i t0[4], t1[4];
  for (int j = 0; j < 4; j++) { /* A^T M: combine rows */
    const __m512i s0 = _mm512_maskz_loadu_epi32(mask, m_row[0] + j * stride);
    const __m512i s1 = _mm512_maskz_loadu_epi32(mask, m_row[1] + j * stride);
    const __m512i s2 = _mm512_maskz_loadu_epi32(mask, m_row[2] + j * stride);
    const __m512i s3 = _mm512_maskz_loadu_epi32(mask, m_row[3] + j * stride);
    const __m512i s12 = _mm512_sub_epi32(s1, s2);
    t0[j] = _mm512_add_epi32(_mm512_add_epi32(s0, s1), s2);
    t1[j] = _mm512_sub_epi32(s12, s3);
  }
  const __m512i vbias = _mm512_maskz_loadu_epi32(mask, bias);
  /* (A^T M) A: combine columns */
  const __m512i y00 = _mm512_add_epi32(_mm512_add_epi32(t0[0], t0[1]), t0[2]);
  const __m512i y01 = _mm512_sub_epi32(_mm512_sub_epi32(t0[1], t0[2]), t0[3]);
  const __m512i y10 = _mm512_add_epi32(_mm512_add_epi32(t1[0], t1[1]), t1[2]);
  const __m512i y11 = _mm512_sub_epi32(_mm512_sub_epi32(t1[1], t1[2]), t1[3]);
  /* Per 128-bit lane h (channels 4h..4h+3): pixels 00, 01, 10, 11, 4 bytes each. */
  const __m512i top =
      _mm512_packs_epi32(requantize16(y00, vbias, q, has_left_shift, may_saturate),
                         requantize16(y01, vbias, q, has_left_shift, may_saturate));
  const __m512i bottom =
      _mm512_packs_epi32(requantize16(y10, vbias, q, has_left_shift, may_saturate),
                         requantize16(y11, vbias, q, has_left_shift, may_saturate));
  __m512i bytes = _mm512_packus_epi16(top, bottom);
  bytes = _mm512_min_epu8(_mm512_max_epu8(bytes, q->min), q->max);
  return _mm512_permutexvar_epi32(q->pixel_order, bytes);
}

void qwino_f23_output_transform_ukernel__avx512skx(
    size_t channels, const int32_t* m, size_t m_position_stride, const int32_t* bias,
    uint8_t* output, size_t output_row_stride, size_t output_pixel_stride,
    size_t rows, size_t columns, const struct qwino_requantization_params* params) {
  struct requant_consts q;
  q.left_shift = _mm_cvtsi32_si128((int) params->left_shift);
  q.right_shift = _mm_cvtsi32_si128((int) params->right_shift);
  q.multiplier = _mm512_set1_epi32(params->multiplier);
  q.nudge = _mm512_set1_epi64(INT64_C(1) << 30);
  const uint32_t remainder_mask = (UINT32_C(1) << params->right_shift) - 1;
  q.remainder_mask = _mm512_set1_epi32((int32_t) remainder_mask);
  q.threshold = _mm512_set1_epi32((int32_t) (remainder_mask >> 1));
  q.zero_point = _mm512_set1_epi32(params->output_zero_point);
  q.int32_min = _mm512_set1_epi32(INT32_MIN);
  q.int32_max = _mm512_set1_epi32(INT32_MAX);
  q.min = _mm512_set1_epi8((char) params->output_min);
  q.max = _mm512_set1_epi8((char) params->output_max);
  q.pixel_order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const int has_left_shift = params->left_shift != 0;
  const int may_saturate = params->multiplier == INT32_MIN;

  const int32_t* m_row[4] = {m, m + 4 * m_position_stride, m + 8 * m_position_stride,
                             m + 12 * m_position_stride};
  uint8_t* o00 = output;
  uint8_t* o01 = output + output_pixel_stride;
  uint8_t* o10 = output + output_row_stride;
  uint8_t* o11 = o10 + output_pixel_stride;
  const int two_columns = columns > 1;
  const int two_rows = rows > 1;

  size_t c = 0;
#define QWINO_OUTPUT_TRANSFORM_LOOP(HAS_LEFT_SHIFT, MAY_SATURATE)                              \
  for (; c + 16 <= channels; c += 16) {                                                        \
    const int32_t* const rows_c[4] = {m_row[0] + c, m_row[1] + c, m_row[2] + c, m_row[3] + c}; \
    const __m512i bytes = output16(rows_c, m_position_stride, bias + c, (__mmask16) 0xFFFF, &q, \
                                   HAS_LEFT_SHIFT, MAY_SATURATE);                              \
    _mm_storeu_si128((__m128i*) (o00 + c), _mm512_castsi512_si128(bytes));                     \
    if (two_columns) {                                                                         \
      _mm_storeu_si128((__m128i*) (o01 + c), _mm512_extracti32x4_epi32(bytes, 1));             \
    }                                                                                          \
    if (two_rows) {                                                                            \
      _mm_storeu_si128((__m128i*) (o10 + c), _mm512_extracti32x4_epi32(bytes, 2));             \
      if (two_columns) {                                                                       \
        _mm_storeu_si128((__m128i*) (o11 + c), _mm512_extracti32x4_epi32(bytes, 3));           \
      }                                                                                        \
    }                                                                                          \
  }
  if (!has_left_shift && !may_saturate) {
    QWINO_OUTPUT_TRANSFORM_LOOP(0, 0)
  } else {
    QWINO_OUTPUT_TRANSFORM_LOOP(1, 1)
  }
#undef QWINO_OUTPUT_TRANSFORM_LOOP

  if (c < channels) {
    const __mmask16 mask = (__mmask16) ((1u << (channels - c)) - 1);
    const int32_t* const rows_c[4] = {m_row[0] + c, m_row[1] + c, m_row[2] + c, m_row[3] + c};
    const __m512i bytes = output16(rows_c, m_position_stride, bias + c, mask, &q, 1, 1);
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
