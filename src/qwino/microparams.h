/*
 * Microparams: what the output micro-kernels need to requantize, computed once at create by the
 * init function named in each kernel's list entry (the lists in src/<family>/<family>.inc).
 *
 * They are per requantization mode: today one mode, "gemmlowp" (TensorFlow Lite's fixed-point
 * QuantizeMultiplier / MultiplyByQuantizedMultiplier, doc/DESIGN.md section 1). A kernel is
 * written for one mode (its name says which: ..._gemmlowp_ukernel__<isa>) and reads its member of
 * the union. A mode may have per-ISA forms (constants pre-broadcast for a vector width); every
 * kernel today reads the scalar form, filled by qwino_init_qu8_gemmlowp_scalar_params. Values per
 * output channel (bias) are not here: they are indexed by channel and passed beside.
 */
#ifndef QWINO_MICROPARAMS_H_
#define QWINO_MICROPARAMS_H_

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
struct qwino_qu8_gemmlowp_params {
  int32_t multiplier;   /* [2^30, 2^31) */
  uint32_t left_shift;  /* 0 or 1 */
  uint32_t right_shift; /* 0..31 */
  int32_t output_zero_point;
  uint8_t output_min;
  uint8_t output_max;
};

union qwino_qu8_requantization_params {
  struct qwino_qu8_gemmlowp_params gemmlowp;
};

#ifdef __cplusplus
extern "C" {
#endif

/* Fills params->gemmlowp (the scalar form, read by every gemmlowp kernel today). */
void qwino_init_qu8_gemmlowp_scalar_params(union qwino_qu8_requantization_params* params,
                                           int32_t multiplier, uint32_t left_shift,
                                           uint32_t right_shift, int32_t output_zero_point,
                                           uint8_t output_min, uint8_t output_max);

/* The type of every init function in the lists. */
typedef void (*qwino_init_qu8_requantization_params_fn)(
    union qwino_qu8_requantization_params* params, int32_t multiplier, uint32_t left_shift,
    uint32_t right_shift, int32_t output_zero_point, uint8_t output_min, uint8_t output_max);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QWINO_MICROPARAMS_H_ */
