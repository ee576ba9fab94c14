/*
 * Scalar definition of both requantization modes (qwino/microparams.h). The scalar
 * micro-kernels use these functions; every SIMD kernel is tested to produce the same bytes.
 */
#ifndef QWINO_REQUANTIZATION_H_
#define QWINO_REQUANTIZATION_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "qwino/microparams.h"

/* Wrapping int32 arithmetic: signed overflow is undefined in C, so go through uint32_t. */
static inline int32_t qwino_wrapping_add_s32(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* gemmlowp SaturatingRoundingDoublingHighMul: the NEON SQRDMULH instruction. */
static inline int32_t qwino_saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) {
    return INT32_MAX;
  }
  const int64_t product = (int64_t)a * (int64_t)b;
  const int64_t nudge = product >= 0 ? (INT64_C(1) << 30) : (1 - (INT64_C(1) << 30));
  /* Division truncates towards zero, as in gemmlowp. */
  return (int32_t)((product + nudge) / (INT64_C(1) << 31));
}

/* gemmlowp RoundingDivideByPOT: divide by 2^exponent, rounding half away from zero. */
static inline int32_t qwino_rounding_divide_by_pot(int32_t x, uint32_t exponent) {
  const int64_t mask = (INT64_C(1) << exponent) - 1;
  const int64_t remainder = (int64_t)x & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (int32_t)(((int64_t)x >> exponent) + (remainder > threshold ? 1 : 0));
}

/* Clamp in the offset-binary view (max last), then back to the tensor's byte. */
static inline uint8_t qwino_clamp_to_byte(int64_t view_value, uint8_t output_min,
                                          uint8_t output_max, uint8_t output_sign) {
  int64_t value = view_value < output_min ? output_min : view_value;
  value = value > output_max ? output_max : value;
  return (uint8_t)((uint8_t)value ^ output_sign);
}

/* gemmlowp mode: accumulator (bias already added) -> output byte, for one channel's values. */
static inline uint8_t qwino_requantize_gemmlowp(int32_t accumulator, int32_t multiplier,
                                                uint32_t left_shift, uint32_t right_shift,
                                                const struct qwino_qu8_gemmlowp_params* params) {
  const int32_t shifted = (int32_t)((uint32_t)accumulator << left_shift);
  const int32_t scaled = qwino_rounding_divide_by_pot(
      qwino_saturating_rounding_doubling_high_mul(shifted, multiplier), right_shift);
  /* The zero point is added modulo 2^32, as the int32 add of TFLite's kernels. */
  const int32_t value = qwino_wrapping_add_s32(scaled, params->output_zero_point);
  return qwino_clamp_to_byte((int64_t)value + (params->output_sign ? 128 : 0), params->output_min,
                             params->output_max, params->output_sign);
}

/* Round to nearest, ties to even, independent of the floating-point rounding mode. */
static inline float qwino_round_half_to_even(float x) {
  const float down = floorf(x);
  const float fraction = x - down; /* exact */
  if (fraction > 0.5f || (fraction == 0.5f && fmodf(down, 2.0f) != 0.0f)) {
    return down + 1.0f;
  }
  return down;
}

/* fp32 mode: accumulator (bias already added) -> output byte, for one channel's scale. */
static inline uint8_t qwino_requantize_fp32(int32_t accumulator, float scale,
                                            const struct qwino_qu8_fp32_params* params) {
  float f = (float)accumulator * scale;
  f = f < params->output_min_less_zero_point ? params->output_min_less_zero_point : f;
  f = f > params->output_max_less_zero_point ? params->output_max_less_zero_point : f;
  const int32_t value = (int32_t)qwino_round_half_to_even(f) + params->output_zero_point;
  return (uint8_t)((uint8_t)value ^ params->output_sign);
}

/* Channel c's values from the packed arrays (qwino/microparams.h). */
static inline uint8_t qwino_requantize_gemmlowp_channel(
    int32_t accumulator, const int32_t* channel_params, size_t c,
    const struct qwino_qu8_gemmlowp_params* params) {
  const size_t stride = params->channel_stride;
  return qwino_requantize_gemmlowp(accumulator, channel_params[c + stride],
                                   (uint32_t)channel_params[c + 2 * stride],
                                   (uint32_t)channel_params[c + 3 * stride], params);
}

static inline uint8_t qwino_requantize_fp32_channel(int32_t accumulator,
                                                    const int32_t* channel_params, size_t c,
                                                    const struct qwino_qu8_fp32_params* params) {
  float scale;
  memcpy(&scale, &channel_params[c + params->channel_stride], sizeof(scale));
  return qwino_requantize_fp32(accumulator, scale, params);
}

/* Either mode; `mode` is a constant at every call in the scalar kernels. */
static inline uint8_t qwino_requantize_channel(int32_t accumulator, const int32_t* channel_params,
                                               size_t c,
                                               const union qwino_qu8_requantization_params* params,
                                               enum qwino_requantization_mode mode) {
  return mode == qwino_requantization_fp32
             ? qwino_requantize_fp32_channel(accumulator, channel_params, c, &params->fp32)
             : qwino_requantize_gemmlowp_channel(accumulator, channel_params, c, &params->gemmlowp);
}

#endif /* QWINO_REQUANTIZATION_H_ */
