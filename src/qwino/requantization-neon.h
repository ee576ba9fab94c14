/*
 * TFLite uint8 requantization on NEON, shared by the NEON output-transform micro-kernels: the
 * bit-exact vector form of qwino_requantize() in qwino/requantization.h, for every int32
 * accumulator and every parameter value (not only the ones create() makes).
 *
 * Why each step matches the scalar definition:
 *  - The left shift (SSHL by left_shift, 0 or 1) wraps modulo 2^32 like the scalar uint32_t
 *    shift. It is only needed when the multiplier rounded up to 1.0, so callers pass
 *    has_left_shift as a compile-time constant: 0 leaves the SSHL out (valid only when
 *    left_shift == 0), 1 keeps it (valid always).
 *  - SQRDMULH is gemmlowp's SaturatingRoundingDoublingHighMul by definition.
 *  - RoundingDivideByPOT (round half away from zero) is TFLite's fixup: subtract 1 from negative
 *    values, then SRSHL by -right_shift rounds half up, computed without intermediate overflow;
 *    for x = q * 2^n + r that is q + (r > 2^(n-1)), exactly gemmlowp's rule. AND with the
 *    negative shift vector has the sign bit set only when right_shift > 0, so right_shift == 0
 *    leaves x alone, as the scalar code does. The subtraction is a plain SSRA (one instruction
 *    instead of CMLT + SQADD) because it cannot wrap: SQRDMULH never returns INT32_MIN
 *    (a * b >= -2^62 + 2^31 unless a = b = INT32_MIN, which saturates to INT32_MAX).
 *  - The zero point add wraps (ADD); SQXTN + SQXTUN saturate to [0, 255], which commutes with
 *    the final clamp because output_min/max are bytes; UMAX before UMIN matches the scalar
 *    clamp order even when output_min > output_max.
 * On Cortex-A72, SQRDMULH (pipe F0) and SRSHL (pipe F1) take 2 cycles each on Q registers; the
 * other steps take either pipe (SSRA and the narrowing take F1).
 *
 * The common case has a shortcut (qwino_neon_requantize_positive_shift_s32x4 +
 * qwino_neon_narrow_add_zero_point_clamp_4x4), valid when left_shift == 0, right_shift > 0 and
 * 0 <= output_zero_point <= 255 (what create() makes for every multiplier below 0.5), which
 * replaces the AND and the ADD per 4 values by one SQADD per 8 values:
 *  - with right_shift > 0 the fixup is x + (x >> 31): the AND above only copies the sign bit;
 *  - after a rounding shift by >= 1, |x| <= 2^30, so x + zero_point cannot wrap, and the zero
 *    point can be added after SQXTN, with saturation, 8 lanes per instruction: where SQXTN or
 *    SQADD saturate (to 32767 or -32768), x + zero_point is above 255 or below 0 anyway, and
 *    elsewhere the int16 sum is exact, so SQXTUN and the clamp give the bytes of the general
 *    sequence.
 */
#ifndef QWINO_NEON_REQUANTIZE_NEON_H_
#define QWINO_NEON_REQUANTIZE_NEON_H_

#include <arm_neon.h>

#include "qwino/microparams.h"

struct qwino_neon_requantization {
  int32x4_t left_shift;
  int32x4_t multiplier;
  int32x4_t right_shift; /* negated: SRSHL shifts right by a negative amount */
  int32x4_t zero_point;
  int16x8_t zero_point16; /* only meaningful when 0 <= output_zero_point <= 255 */
  uint8x16_t min;
  uint8x16_t max;
};

static inline struct qwino_neon_requantization qwino_neon_requantization_init(
    const struct qwino_qu8_gemmlowp_params* params) {
  struct qwino_neon_requantization q;
  q.left_shift = vdupq_n_s32((int32_t) params->left_shift);
  q.multiplier = vdupq_n_s32(params->multiplier);
  q.right_shift = vdupq_n_s32(-(int32_t) params->right_shift);
  q.zero_point = vdupq_n_s32(params->output_zero_point);
  q.zero_point16 = vdupq_n_s16((int16_t) params->output_zero_point);
  q.min = vdupq_n_u8(params->output_min);
  q.max = vdupq_n_u8(params->output_max);
  return q;
}

/* Accumulator (bias already added) -> value with the zero point added, before the narrowing. */
static inline int32x4_t qwino_neon_requantize_s32x4(int32x4_t accumulator,
                                                    const struct qwino_neon_requantization* q,
                                                    int has_left_shift) {
  int32x4_t x = accumulator;
  if (has_left_shift) {
    x = vshlq_s32(x, q->left_shift);
  }
  x = vqrdmulhq_s32(x, q->multiplier);
  x = vsraq_n_s32(x, vandq_s32(x, q->right_shift), 31);
  x = vrshlq_s32(x, q->right_shift);
  /* Unsigned: vaddq_s32 is a plain C + on signed vectors in GCC, undefined on overflow. */
  return vreinterpretq_s32_u32(
      vaddq_u32(vreinterpretq_u32_s32(x), vreinterpretq_u32_s32(q->zero_point)));
}

/* Four requantized int32x4 (a, b, c, d) -> 16 bytes a0..a3 b0..b3 c0..c3 d0..d3, saturated to
 * [0, 255] and clamped to [output_min, output_max]. */
static inline uint8x16_t qwino_neon_narrow_clamp_4x4(int32x4_t a, int32x4_t b, int32x4_t c,
                                                     int32x4_t d,
                                                     const struct qwino_neon_requantization* q) {
  const int16x8_t ab = vqmovn_high_s32(vqmovn_s32(a), b);
  const int16x8_t cd = vqmovn_high_s32(vqmovn_s32(c), d);
  const uint8x16_t bytes = vqmovun_high_s16(vqmovun_s16(ab), cd);
  return vminq_u8(vmaxq_u8(bytes, q->min), q->max);
}

/* The shortcut conditions (see above). */
static inline int qwino_neon_requantization_positive_shift(
    const struct qwino_qu8_gemmlowp_params* params) {
  return params->left_shift == 0 && params->right_shift > 0 && params->output_zero_point >= 0 &&
         params->output_zero_point <= 255;
}

/* Shortcut: accumulator (bias added) -> value before the zero point, |value| <= 2^30. */
static inline int32x4_t qwino_neon_requantize_positive_shift_s32x4(
    int32x4_t accumulator, const struct qwino_neon_requantization* q) {
  int32x4_t x = vqrdmulhq_s32(accumulator, q->multiplier);
  x = vsraq_n_s32(x, x, 31);
  return vrshlq_s32(x, q->right_shift);
}

/* Shortcut: four values from qwino_neon_requantize_positive_shift_s32x4 -> 16 bytes as
 * qwino_neon_narrow_clamp_4x4 orders them, zero point added. */
static inline uint8x16_t qwino_neon_narrow_add_zero_point_clamp_4x4(
    int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d,
    const struct qwino_neon_requantization* q) {
  const int16x8_t ab = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(a), b), q->zero_point16);
  const int16x8_t cd = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(c), d), q->zero_point16);
  const uint8x16_t bytes = vqmovun_high_s16(vqmovun_s16(ab), cd);
  return vminq_u8(vmaxq_u8(bytes, q->min), q->max);
}

#endif /* QWINO_NEON_REQUANTIZE_NEON_H_ */
