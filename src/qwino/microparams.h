/*
 * Microparams: what the output micro-kernels need to requantize, computed once at create by the
 * init functions named in each kernel's list entry (the lists in src/<family>/<family>.inc).
 *
 * Two requantization modes (doc/DESIGN.md section 1), one member of the union each; a kernel is
 * written for one mode (its name says which: ..._gemmlowp_ukernel__<isa>, ..._fp32_ukernel__<isa>):
 *  - gemmlowp: TensorFlow Lite's fixed-point QuantizeMultiplier / MultiplyByQuantizedMultiplier,
 *    per output channel (TFLite's uint8 convolution and its int8 ConvPerChannel);
 *  - fp32: float32 scale per output channel, one float multiply rounded to nearest even (ONNX
 *    Runtime's QLinearConv, XNNPACK's fp32 requantization, PyTorch).
 *
 * Per-channel values. An output kernel receives one int32 pointer, `channel_params`, at the first
 * channel it writes; the values of channel c (relative to that pointer) are
 *   channel_params[c + i * channel_stride]   for the i-th array of the mode:
 *   gemmlowp: i = 0 bias, 1 multiplier, 2 left_shift, 3 right_shift   (QWINO_GEMMLOWP_ARRAYS)
 *   fp32:     i = 0 bias, 1 scale (the float's bits)                   (QWINO_FP32_ARRAYS)
 * with channel_stride in the microparams (the operator's output channel count): the arrays are
 * packed at create beside the weights, so a kernel loads a vector of any of them as it loads the
 * bias. Per-tensor quantization is the case where every channel holds the same values.
 *
 * 8-bit types. Kernels compute in the unsigned (offset-binary) view of 8-bit data: an int8 value
 * v is the byte v ^ 0x80 = v + 128 of that view, and an int8 zero point z the view's z + 128, so
 * x - z is the same integer in both views. The input transforms take `input_sign` (0 for uint8,
 * 0x80 for int8) and use (byte ^ input_sign) - input_zero_point; the output kernels clamp to
 * output_min/max given in the view and store byte ^ output_sign. What is not shifted is noted
 * below: gemmlowp's output zero point is the tensor's own (signed for int8), because it is added
 * modulo 2^32 before the clamp, as TFLite's int32 add does.
 */
#ifndef QWINO_MICROPARAMS_H_
#define QWINO_MICROPARAMS_H_

#include <stddef.h>
#include <stdint.h>

/* The requantization modes, as indices of the per-mode kernel configs (dispatch.h). */
enum qwino_requantization_mode {
  qwino_requantization_gemmlowp = 0,
  qwino_requantization_fp32 = 1,
  qwino_requantization_mode_count = 2
};

/* Per-channel arrays of each mode, in the order above. */
#define QWINO_GEMMLOWP_ARRAYS 4
#define QWINO_FP32_ARRAYS 2
#define QWINO_MAX_CHANNEL_ARRAYS 4
/* gemmlowp's arrays: bias, multiplier, left_shift, right_shift (fp32's: bias, scale). */
#define QWINO_GEMMLOWP_RIGHT_SHIFT_ARRAY 3

/*
 * gemmlowp. Per channel: M = multiplier * 2^(left_shift - right_shift - 31) as TFLite's
 * QuantizeMultiplier produces it (multiplier in [2^30, 2^31), left_shift 0..9 (M up to 256),
 * right_shift 0..31; create makes at most one of the shifts nonzero, kernels take both), or
 * multiplier 0 for M below 2^-32 (TFLite's flush to zero), whose channel requantizes every
 * accumulator to 0 + output_zero_point whatever its shifts: create gives it left_shift 0 and the
 * right_shift of a neighbouring channel (src/convolution-create.cc), so has_left_shift and
 * positive_shift below are those of the other channels (positive_shift holds when every channel
 * has multiplier 0), and every form of every kernel takes it.
 * Requantizing an int32 accumulator x (bias added, modulo 2^32):
 *   v = RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x * 2^left_shift, multiplier),
 *                           right_shift) + output_zero_point        (shift and add modulo 2^32)
 *   byte = clamp(v + (output_sign ? 128 : 0), output_min, output_max) ^ output_sign
 * (the clamp in exact integers, max last: output_max wins when output_min > output_max).
 */
struct qwino_qu8_gemmlowp_params {
  size_t channel_stride;
  int32_t output_zero_point; /* the tensor's: 0..255 for uint8, -128..127 for int8 outputs */
  uint8_t output_min;        /* offset-binary view */
  uint8_t output_max;        /* offset-binary view */
  uint8_t output_sign;       /* 0 or 0x80 */
  /* Facts about the channels, for kernels that specialise (computed by the init function): */
  uint8_t has_left_shift; /* some channel has left_shift > 0 */
  uint8_t positive_shift; /* every channel has left_shift == 0 and right_shift > 0 */
};

/*
 * fp32. Per channel: scale = input_scale * kernel_scale[c] / output_scale in float32, in that
 * order, or 0.0f where that is below 2^-32 (every product then rounds to 0 either way).
 * Requantizing an int32 accumulator x (bias added, modulo 2^32):
 *   f = clamp((float) x * scale, output_min_less_zero_point, output_max_less_zero_point)
 *   byte = (round_half_to_even(f) + output_zero_point) ^ output_sign
 * (float multiply rounded once to nearest even; clamp max last). Because the bounds are integers,
 * clamping before rounding gives the same integer as rounding and then clamping the
 * (unbounded) result, which is the definition; clamping first keeps every value in int32 range
 * for the vector conversions, whatever the accumulator and the scale.
 */
struct qwino_qu8_fp32_params {
  size_t channel_stride;
  float output_min_less_zero_point; /* output_min - output_zero_point, in the view */
  float output_max_less_zero_point; /* output_max - output_zero_point, in the view */
  int32_t output_zero_point;        /* offset-binary view: 0..255 */
  uint8_t output_sign;              /* 0 or 0x80 */
};

union qwino_qu8_requantization_params {
  struct qwino_qu8_gemmlowp_params gemmlowp;
  struct qwino_qu8_fp32_params fp32;
};

/*
 * What create knows about an operator's output quantization, mode-independent; the init
 * functions turn it into microparams. Zero point, min and max as the tensor has them (int8
 * values for an int8 output).
 */
struct qwino_output_quantization {
  size_t channel_stride;         /* the operator's output channel count */
  size_t channels;               /* channels whose per-channel values init may read (<= stride) */
  const int32_t* channel_params; /* the packed arrays (see above) */
  int32_t output_zero_point;
  int32_t output_min;
  int32_t output_max;
  uint8_t output_sign; /* 0 (uint8 output) or 0x80 (int8 output) */
};

#ifdef __cplusplus
extern "C" {
#endif

/* The type of every init function in the lists. */
typedef void (*qwino_init_qu8_requantization_params_fn)(
    union qwino_qu8_requantization_params* params, const struct qwino_output_quantization* q);

/* Fill params->gemmlowp / params->fp32: the scalar forms, read by every kernel today. */
void qwino_init_qu8_gemmlowp_scalar_params(union qwino_qu8_requantization_params* params,
                                           const struct qwino_output_quantization* q);
void qwino_init_qu8_fp32_scalar_params(union qwino_qu8_requantization_params* params,
                                       const struct qwino_output_quantization* q);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QWINO_MICROPARAMS_H_ */
