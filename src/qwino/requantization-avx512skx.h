/*
 * TFLite uint8 requantization on AVX-512 (F + BW + VL), shared by the AVX-512 output-transform
 * micro-kernels (F(2x2,3x3) and F(4x4,3x3)): the bit-exact vector form of qwino_requantize() in
 * qwino/requantization.h, for every int32 accumulator and every parameter value (not only the
 * ones create() makes). One copy of the argument and the code instead of one per kernel.
 *
 * Channels sit in lanes, 16 int32 per zmm. Why each step matches qwino/requantization.h:
 *  - The left shift (VPSLLD by a uniform count) wraps modulo 2^32 like the scalar uint32_t
 *    shift.
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
 * The left shift is needed only when the multiplier rounded up to 1.0 and the saturation only
 * for multiplier == INT32_MIN (the one multiplier for which SaturatingRoundingDoublingHighMul
 * can saturate), so callers pass has_left_shift / may_saturate as compile-time constants:
 * 0 leaves the instructions out (valid only when left_shift == 0, resp. multiplier !=
 * INT32_MIN), 1 keeps them (valid always).
 */
#ifndef QWINO_AVX512_REQUANTIZE_AVX512SKX_H_
#define QWINO_AVX512_REQUANTIZE_AVX512SKX_H_

#include <immintrin.h>
#include <stdint.h>

#include "qwino/microparams.h"

struct qwino_avx512_requantization {
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

static inline struct qwino_avx512_requantization qwino_avx512_requantization_init(
    const struct qwino_qu8_gemmlowp_params* params) {
  struct qwino_avx512_requantization q;
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
  return q;
}

/* Whether the shortened sequence (has_left_shift = may_saturate = 0) is valid for params. */
static inline int qwino_avx512_requantization_is_plain(
    const struct qwino_qu8_gemmlowp_params* params) {
  return params->left_shift == 0 && params->multiplier != INT32_MIN;
}

/* Accumulator (bias already added) -> requantized value with the zero point added, before the
 * narrowing. */
static inline __attribute__((always_inline)) __m512i qwino_avx512_requantize_s32(
    __m512i x, const struct qwino_avx512_requantization* q, int has_left_shift,
    int may_saturate) {
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

/* Four requantized vectors of 16 channels (a, b, c, d: e.g. four pixels) -> 64 bytes: a's 16
 * channels, then b's, c's, d's, saturated to [0, 255] and clamped to [output_min, output_max].
 * (The packs work within 128-bit lanes; one VPERMD restores the order.) */
static inline __attribute__((always_inline)) __m512i qwino_avx512_narrow_clamp_4x16(
    __m512i a, __m512i b, __m512i c, __m512i d, const struct qwino_avx512_requantization* q) {
  const __m512i ab = _mm512_packs_epi32(a, b);
  const __m512i cd = _mm512_packs_epi32(c, d);
  __m512i bytes = _mm512_packus_epi16(ab, cd);
  bytes = _mm512_min_epu8(_mm512_max_epu8(bytes, q->min), q->max);
  return _mm512_permutexvar_epi32(q->pixel_order, bytes);
}

#endif /* QWINO_AVX512_REQUANTIZE_AVX512SKX_H_ */
