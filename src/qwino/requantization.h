/*
 * Scalar definition of TFLite's uint8 requantization. The scalar micro-kernels and the direct
 * convolution use these functions; every SIMD kernel is tested to produce the same bytes.
 */
#ifndef QWINO_REQUANTIZATION_H_
#define QWINO_REQUANTIZATION_H_

#include <stdint.h>

#include "qwino/microparams.h"

/* Wrapping int32 arithmetic: signed overflow is undefined in C, so go through uint32_t. */
static inline int32_t qwino_wrapping_add_s32(int32_t a, int32_t b) {
  return (int32_t) ((uint32_t) a + (uint32_t) b);
}

/* gemmlowp SaturatingRoundingDoublingHighMul: the NEON SQRDMULH instruction. */
static inline int32_t qwino_saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) {
    return INT32_MAX;
  }
  const int64_t product = (int64_t) a * (int64_t) b;
  const int64_t nudge = product >= 0 ? (INT64_C(1) << 30) : (1 - (INT64_C(1) << 30));
  /* Division truncates towards zero, as in gemmlowp. */
  return (int32_t) ((product + nudge) / (INT64_C(1) << 31));
}

/* gemmlowp RoundingDivideByPOT: divide by 2^exponent, rounding half away from zero. */
static inline int32_t qwino_rounding_divide_by_pot(int32_t x, uint32_t exponent) {
  const int64_t mask = (INT64_C(1) << exponent) - 1;
  const int64_t remainder = (int64_t) x & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (int32_t) (((int64_t) x >> exponent) + (remainder > threshold ? 1 : 0));
}

/* Accumulator (bias already added) -> output byte. */
static inline uint8_t qwino_requantize(int32_t accumulator,
                                       const struct qwino_qu8_gemmlowp_params* params) {
  const int32_t shifted = (int32_t) ((uint32_t) accumulator << params->left_shift);
  const int32_t scaled = qwino_rounding_divide_by_pot(
      qwino_saturating_rounding_doubling_high_mul(shifted, params->multiplier),
      params->right_shift);
  /* The zero point is added modulo 2^32, as the vector add of the optimized TFLite kernels. */
  int32_t value = qwino_wrapping_add_s32(scaled, params->output_zero_point);
  value = value < params->output_min ? params->output_min : value;
  value = value > params->output_max ? params->output_max : value;
  return (uint8_t) value;
}

#endif /* QWINO_REQUANTIZATION_H_ */
