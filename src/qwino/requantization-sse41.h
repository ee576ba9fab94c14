/*
 * TFLite uint8 requantization on SSE4.1, shared by the SSE4.1 micro-kernels that end in uint8
 * (the F(2x2,3x3) output transform and the direct path's requantize kernel): the bit-exact vector
 * form of qwino_requantize() in qwino/requantization.h, for every int32 accumulator and every
 * parameter value (not only the ones create() makes). One copy of the argument and the code
 * instead of one per kernel; the AVX2 and AVX-512 twins are src/qwino/requantization-avx2.h and
 * src/qwino/requantization-avx512skx.h.
 *
 * Channels sit in lanes, 4 int32 per xmm. Why each step matches qwino/requantization.h:
 *  - The left shift (PSLLD by a uniform count) wraps modulo 2^32 like the scalar uint32_t shift.
 *  - SaturatingRoundingDoublingHighMul(x, m) = floor((x * m + 2^30) / 2^31): PMULDQ forms the
 *    exact 64-bit products of the even lanes and, after a 32-bit shift, of the odd lanes; adding
 *    2^30 cannot overflow and bits 31..62 of the sum are the result modulo 2^32. The true result
 *    is never INT32_MIN, and 2^31 (only for x = m = INT32_MIN) wraps to exactly INT32_MIN, so
 *    XOR with (h == INT32_MIN) turns those lanes into INT32_MAX: the saturation.
 *  - RoundingDivideByPOT(x, e) is gemmlowp's formula itself: (x >> e) + ((x & mask) > (mask >> 1)
 *    + (x < 0)), mask = 2^e - 1, with exact signed compares of small non-negative values.
 *  - The zero point add wraps; PACKSSDW + PACKUSWB saturate to [0, 255], which commutes with the
 *    final clamp because output_min/max are bytes; PMAXUB before PMINUB matches the scalar clamp
 *    order even when output_min > output_max.
 * The left shift is needed only when the multiplier rounded up to 1.0 and the saturation only
 * for multiplier == INT32_MIN, so callers pass has_left_shift / may_saturate as compile-time
 * constants: 0 leaves the instructions out (valid only when left_shift == 0, resp. multiplier
 * != INT32_MIN), 1 keeps them (valid always).
 */
#ifndef QWINO_SSE41_REQUANTIZE_SSE41_H_
#define QWINO_SSE41_REQUANTIZE_SSE41_H_

#include <smmintrin.h>
#include <stdint.h>

#include "qwino/microparams.h"

struct qwino_sse41_requantization {
  __m128i left_shift;  /* count for PSLLD */
  __m128i right_shift; /* count for PSRAD */
  __m128i multiplier;
  __m128i nudge;       /* 2^30 in each 64-bit lane */
  __m128i remainder_mask;
  __m128i threshold;   /* remainder_mask >> 1 */
  __m128i zero_point;
  __m128i int32_min;
  __m128i min;         /* bytes */
  __m128i max;         /* bytes */
};

static inline struct qwino_sse41_requantization qwino_sse41_requantization_init(
    const struct qwino_qu8_gemmlowp_params* params) {
  struct qwino_sse41_requantization q;
  q.left_shift = _mm_cvtsi32_si128((int) params->left_shift);
  q.right_shift = _mm_cvtsi32_si128((int) params->right_shift);
  q.multiplier = _mm_set1_epi32(params->multiplier);
  q.nudge = _mm_set1_epi64x(INT64_C(1) << 30);
  const uint32_t remainder_mask = (UINT32_C(1) << params->right_shift) - 1;
  q.remainder_mask = _mm_set1_epi32((int32_t) remainder_mask);
  q.threshold = _mm_set1_epi32((int32_t) (remainder_mask >> 1));
  q.zero_point = _mm_set1_epi32(params->output_zero_point);
  q.int32_min = _mm_set1_epi32(INT32_MIN);
  q.min = _mm_set1_epi8((char) params->output_min);
  q.max = _mm_set1_epi8((char) params->output_max);
  return q;
}

/* Whether the shortened sequence (has_left_shift = may_saturate = 0) is valid for params. */
static inline int qwino_sse41_requantization_is_plain(
    const struct qwino_qu8_gemmlowp_params* params) {
  return params->left_shift == 0 && params->multiplier != INT32_MIN;
}

/* Accumulator (bias already added) -> requantized value with the zero point added, before the
 * narrowing. */
static inline __attribute__((always_inline)) __m128i qwino_sse41_requantize_s32(
    __m128i x, const struct qwino_sse41_requantization* q, int has_left_shift, int may_saturate) {
  if (has_left_shift) {
    x = _mm_sll_epi32(x, q->left_shift);
  }
  /* SaturatingRoundingDoublingHighMul */
  const __m128i even = _mm_add_epi64(_mm_mul_epi32(x, q->multiplier), q->nudge);
  const __m128i odd = _mm_add_epi64(_mm_mul_epi32(_mm_srli_epi64(x, 32), q->multiplier), q->nudge);
  __m128i h = _mm_blend_epi16(_mm_srli_epi64(even, 31), _mm_slli_epi64(odd, 1), 0xCC);
  if (may_saturate) {
    h = _mm_xor_si128(h, _mm_cmpeq_epi32(h, q->int32_min));
  }
  /* RoundingDivideByPOT */
  const __m128i remainder = _mm_and_si128(h, q->remainder_mask);
  const __m128i threshold = _mm_sub_epi32(q->threshold, _mm_srai_epi32(h, 31));
  __m128i r = _mm_sra_epi32(h, q->right_shift);
  r = _mm_sub_epi32(r, _mm_cmpgt_epi32(remainder, threshold));
  return _mm_add_epi32(r, q->zero_point);
}

/* Four requantized vectors of 4 channels (a, b, c, d) -> 16 bytes a0..a3 b0..b3 c0..c3 d0..d3,
 * saturated to [0, 255] and clamped to [output_min, output_max]. */
static inline __attribute__((always_inline)) __m128i qwino_sse41_narrow_clamp_4x4(
    __m128i a, __m128i b, __m128i c, __m128i d, const struct qwino_sse41_requantization* q) {
  const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
  return _mm_min_epu8(_mm_max_epu8(bytes, q->min), q->max);
}

#endif /* QWINO_SSE41_REQUANTIZE_SSE41_H_ */
