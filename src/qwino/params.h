/*
 * Parameters handed to the micro-kernels. They are plain values computed once at create time,
 * so kernels of every ISA read the same numbers and only differ in how they evaluate them.
 */
#ifndef QWINO_PARAMS_H_
#define QWINO_PARAMS_H_

#include <stdint.h>

/*
 * Fixed-point form of the real multiplier M = input_scale * kernel_scale / output_scale, as
 * TFLite's QuantizeMultiplier produces it: M = multiplier * 2^(left_shift - right_shift - 31).
 * Requantizing an int32 accumulator x (gemmlowp's MultiplyByQuantizedMultiplier):
 *   RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x * 2^left_shift, multiplier),
 *                       right_shift) + output_zero_point, clamped to [output_min, output_max].
 * left_shift is 1 only when M rounds up to 1.0 in 31-bit fixed point; x * 2 then wraps modulo
 * 2^32 like the vector shift of the optimized TFLite kernels.
 */
struct qwino_requantization_params {
  int32_t multiplier;   /* [2^30, 2^31) */
  uint32_t left_shift;  /* 0 or 1 */
  uint32_t right_shift; /* 0..31 */
  int32_t output_zero_point;
  uint8_t output_min;
  uint8_t output_max;
};

#endif /* QWINO_PARAMS_H_ */
