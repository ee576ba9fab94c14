/*
 * TFLite uint8 requantization on AVX2, shared by the AVX2 output-transform micro-kernels
 * (F(2x2,3x3) and F(4x4,3x3)): the bit-exact vector form of qwino_requantize() in
 * qwino/requantization.h, for every int32 accumulator and every parameter value (not only the
 * ones create() makes). One copy of the argument and the code instead of one per kernel.
 *
 * Channels sit in lanes, 8 int32 per ymm. Why each step matches qwino/requantization.h:
 *  - The left shift (VPSLLD by a uniform count) wraps modulo 2^32 like the scalar uint32_t
 *    shift.
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
 * The left shift is needed only when the multiplier rounded up to 1.0 and the saturation only
 * for multiplier == INT32_MIN (the one multiplier for which SaturatingRoundingDoublingHighMul
 * can saturate), so callers pass has_left_shift / may_saturate as compile-time constants:
 * 0 leaves the instructions out (valid only when left_shift == 0, resp. multiplier !=
 * INT32_MIN), 1 keeps them (valid always).
 */
#ifndef QWINO_AVX2_REQUANTIZE_AVX2_H_
#define QWINO_AVX2_REQUANTIZE_AVX2_H_

#include <immintrin.h>
#include <stdint.h>

#include "qwino/microparams.h"

struct qwino_avx2_requantization {
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

static inline struct qwino_avx2_requantization qwino_avx2_requantization_init(
    const struct qwino_qu8_gemmlowp_params* params) {
  struct qwino_avx2_requantization q;
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
  return q;
}

/* Whether the shortened sequence (has_left_shift = may_saturate = 0) is valid for params. */
static inline int qwino_avx2_requantization_is_plain(
    const struct qwino_qu8_gemmlowp_params* params) {
  return params->left_shift == 0 && params->multiplier != INT32_MIN;
}

/* Accumulator (bias already added) -> requantized value with the zero point added, before the
 * narrowing. */
static inline __attribute__((always_inline)) __m256i qwino_avx2_requantize_s32(
    __m256i x, const struct qwino_avx2_requantization* q, int has_left_shift, int may_saturate) {
  if (has_left_shift) {
    x = _mm256_sll_epi32(x, q->left_shift);
  }
  /* SaturatingRoundingDoublingHighMul */
  const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, q->multiplier), q->nudge);
  const __m256i odd =
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), q->multiplier), q->nudge);
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  if (may_saturate) {
    h = _mm256_xor_si256(h, _mm256_cmpeq_epi32(h, q->int32_min));
  }
  /* RoundingDivideByPOT */
  const __m256i remainder = _mm256_and_si256(h, q->remainder_mask);
  const __m256i threshold = _mm256_sub_epi32(q->threshold, _mm256_srai_epi32(h, 31));
  __m256i r = _mm256_sra_epi32(h, q->right_shift);
  r = _mm256_sub_epi32(r, _mm256_cmpgt_epi32(remainder, threshold));
  return _mm256_add_epi32(r, q->zero_point);
}

/* Four requantized vectors of 8 channels (a, b, c, d: e.g. four pixels) -> 32 bytes: a's 8
 * channels, then b's, c's, d's, saturated to [0, 255] and clamped to [output_min, output_max].
 * (The packs work within 128-bit lanes; one VPERMD restores the order.) */
static inline __attribute__((always_inline)) __m256i qwino_avx2_narrow_clamp_4x8(
    __m256i a, __m256i b, __m256i c, __m256i d, const struct qwino_avx2_requantization* q) {
  const __m256i ab = _mm256_packs_epi32(a, b);
  const __m256i cd = _mm256_packs_epi32(c, d);
  __m256i bytes = _mm256_packus_epi16(ab, cd);
  bytes = _mm256_permutevar8x32_epi32(bytes, q->pixel_order);
  return _mm256_min_epu8(_mm256_max_epu8(bytes, q->min), q->max);
}

#endif /* QWINO_AVX2_REQUANTIZE_AVX2_H_ */
