/*
 * The entry points of the NEON depthwise kernel files (src/s8-dwconv/s8-dwconv-neon.c,
 * src/s8-dwconv/s8-dwconv-columns-neon.c, src/s8-dwconv/s8-dwconv-columns-neondot.c): each file
 * defines
 *   QWINO_NEON_INLINE void fn(QWINO_NEON_DWCONV_BODY_PARAMETERS)
 * for each kernel, and these macros make specialised bodies of it (per requantization variant,
 * src/qwino/requantization-neon.h, and flip, the XOR of uint8 activations: the pairs that models
 * use, the others served by them) and the switch cases that pick a body once per call. Each body
 * is its own function, so each gets its own register allocation.
 */
#ifndef QWINO_S8_DWCONV_NEON_ENTRIES_H_
#define QWINO_S8_DWCONV_NEON_ENTRIES_H_

#include <arm_neon.h>
#include <stddef.h>

#include "qwino/requantization-neon.h"

/* What a call's bodies share, made once per call. */
struct qwino_neon_dwconv_call {
  const struct qwino_neon_requantization *k;
  /* The constants of the call's variant after qwino_neon_sign_by_xor, for the bodies that serve
   * both output types (qwino_neon_dwconv_constants). */
  const struct qwino_neon_requantization *k_by_xor;
  size_t stride;    /* of the per-channel arrays (qwino_neon_channel_stride) */
  uint8x16_t vsign; /* a_sign in every byte */
  int clamp;        /* the bounds clamp something (qwino_neon_full_range) */
};

/* The body function's parameters: the call's but a_sign and params (in call), and the body's
 * constants. */
#define QWINO_NEON_DWCONV_BODY_PARAMETERS                                         \
  size_t channels, size_t pixels, size_t taps, const uint8_t *const *input,       \
      size_t input_pixel_step, size_t input_offset, const int8_t *weights,        \
      const int32_t *channel_params, uint8_t *output, size_t output_pixel_stride, \
      const struct qwino_neon_dwconv_call *call, int variant, int flip

/* The constants of a body's variant: the call's, or those after qwino_neon_sign_by_xor. */
QWINO_NEON_INLINE const struct qwino_neon_requantization *qwino_neon_dwconv_constants(
    const struct qwino_neon_dwconv_call *call, int variant) {
  return QWINO_NEON_IS_SIGN_BY_XOR(variant) ? call->k_by_xor : call->k;
}

#define QWINO_NEON_DWCONV_BODY(name, fn, variant, flip)                                         \
  static __attribute__((noinline)) void name(QWINO_DWCONV_PARAMETERS) {                         \
    const struct qwino_neon_requantization k = qwino_neon_requantization_init(params, variant); \
    const struct qwino_neon_requantization k_by_xor =                                           \
        qwino_neon_requantization_init(params, qwino_neon_sign_by_xor(variant));                \
    const struct qwino_neon_dwconv_call call = {                                                \
        &k, &k_by_xor, qwino_neon_channel_stride(params, variant), vdupq_n_u8(a_sign),          \
        !qwino_neon_full_range(params, variant)};                                               \
    fn(channels, pixels, taps, input, input_pixel_step, input_offset,                           \
       (const int8_t *)packed_weights, channel_params, output, output_pixel_stride, &call,      \
       variant, flip);                                                                          \
  }
#define QWINO_NEON_DWCONV_BODIES(name, fn, variant)         \
  QWINO_NEON_DWCONV_BODY(name##_int8_input, fn, variant, 0) \
  QWINO_NEON_DWCONV_BODY(name##_uint8_input, fn, variant, 1)

#define QWINO_NEON_DWCONV_CASE(variant, name)                                                  \
  case variant:                                                                                \
    (a_sign != 0 ? name##_uint8_input : name##_int8_input)(                                    \
        channels, pixels, taps, input, input_pixel_step, input_offset, a_sign, packed_weights, \
        channel_params, output, output_pixel_stride, params);                                  \
    break;

/* The bodies of a form with one per output type: uint8 outputs with flip 1 (for int8
 * activations too: the XOR with an a_sign of 0 changes nothing), int8 outputs with flip 0 (uint8
 * activations: the uint8 body in the view below). Activations and outputs of the same type are
 * what models have (TensorFlow Lite's int8, ONNX Runtime's uint8); the mixed pairs pay an EOR
 * per input vector, or a pass over the outputs, and save two bodies of 4-8 KB per form. */
#define QWINO_NEON_DWCONV_TYPE_BODIES(name, fn, variant) \
  QWINO_NEON_DWCONV_BODY(name##_uint8, fn, variant, 1)   \
  QWINO_NEON_DWCONV_BODY(name##_s8_int8, fn, variant | QWINO_NEON_INT8, 0)

/* int8 outputs of uint8 activations: the uint8 outputs of the same call in the offset-binary
 * view (the tensor's zero point + 128 for gemmlowp, fp32's already the view's; the bounds are the
 * view's in both: qwino/microparams.h), then each byte XORed with 0x80, which is the int8 byte of
 * the view's value. */
QWINO_NEON_INLINE union qwino_qu8_requantization_params qwino_neon_dwconv_uint8_view(
    const union qwino_qu8_requantization_params *params, int fp32) {
  union qwino_qu8_requantization_params view = *params;
  if (fp32) {
    view.fp32.output_sign = 0;
  } else {
    view.gemmlowp.output_zero_point += 128;
    view.gemmlowp.output_sign = 0;
  }
  return view;
}
QWINO_NEON_INLINE void qwino_neon_dwconv_flip_outputs(uint8_t *output, size_t pixels,
                                                      size_t channels, size_t output_pixel_stride) {
  const uint8x16_t sign = vdupq_n_u8(0x80);
  for (size_t p = 0; p < pixels; p++, output += output_pixel_stride) {
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
      vst1q_u8(output + c, veorq_u8(vld1q_u8(output + c), sign));
    }
    for (; c < channels; c++) {
      output[c] ^= 0x80;
    }
  }
}
#define QWINO_NEON_DWCONV_TYPE_CASES(variant, name, fp32)                                   \
  case variant:                                                                             \
    name##_uint8(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,     \
                 packed_weights, channel_params, output, output_pixel_stride, params);      \
    break;                                                                                  \
  case variant | QWINO_NEON_INT8:                                                           \
    if (a_sign == 0) {                                                                      \
      name##_s8_int8(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign, \
                     packed_weights, channel_params, output, output_pixel_stride, params);  \
    } else {                                                                                \
      const union qwino_qu8_requantization_params view =                                    \
          qwino_neon_dwconv_uint8_view(params, fp32);                                       \
      name##_uint8(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,   \
                   packed_weights, channel_params, output, output_pixel_stride, &view);     \
      qwino_neon_dwconv_flip_outputs(output, pixels, channels, output_pixel_stride);        \
    }                                                                                       \
    break;

/* The left-shift form's one body, for both output types and both activation types: flip 1 (the
 * XOR with a_sign, 0 for int8 activations, changes nothing) and the sign by XOR. The form serves
 * multipliers of 0.5 and more and zero points beyond the shortcut's margin, which trained layers
 * rarely have, so it pays an EOR per input vector and one per 16 outputs for a quarter of the
 * form's bodies (doc/PERFORMANCE.md, "Code size"). */
#define QWINO_NEON_DWCONV_LEFT_SHIFT_BODY(fn) \
  QWINO_NEON_DWCONV_BODY(fn##_left_shift, fn, \
                         QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_SIGN_BY_XOR, 1)
#define QWINO_NEON_DWCONV_LEFT_SHIFT_CALL(fn)                                            \
  fn##_left_shift(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign, \
                  packed_weights, channel_params, output, output_pixel_stride, params);  \
  break;

/* The two entry points of the body function fn (QWINO_NEON_DWCONV_BODY_PARAMETERS),
 * gemmlowp_entry and fp32_entry, with their bodies (named after fn). The gemmlowp one folds the
 * general form into the left-shift one (a shift by 0 changes nothing: qwino_neon_gemmlowp_variant
 * with with_general 0), which saves code for a form that only layers with a zero point beyond
 * the shortcut's margin take. */
#define QWINO_NEON_DWCONV_ENTRIES(fn, gemmlowp_entry, fp32_entry)                  \
  QWINO_NEON_DWCONV_TYPE_BODIES(fn##_shortcut, fn, QWINO_NEON_GEMMLOWP_SHORTCUT)   \
  QWINO_NEON_DWCONV_LEFT_SHIFT_BODY(fn)                                            \
  QWINO_NEON_DWCONV_TYPE_BODIES(fn##_fp32, fn, QWINO_NEON_FP32)                    \
  void gemmlowp_entry(QWINO_DWCONV_PARAMETERS) {                                   \
    switch (qwino_neon_gemmlowp_variant(&params->gemmlowp, 0)) {                   \
      QWINO_NEON_DWCONV_TYPE_CASES(QWINO_NEON_GEMMLOWP_SHORTCUT, fn##_shortcut, 0) \
      case QWINO_NEON_GEMMLOWP_LEFT_SHIFT:                                         \
      case QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_INT8:                       \
        QWINO_NEON_DWCONV_LEFT_SHIFT_CALL(fn)                                      \
    }                                                                              \
  }                                                                                \
  void fp32_entry(QWINO_DWCONV_PARAMETERS) {                                       \
    switch (qwino_neon_fp32_variant(&params->fp32)) {                              \
      QWINO_NEON_DWCONV_TYPE_CASES(QWINO_NEON_FP32, fn##_fp32, 1)                  \
    }                                                                              \
  }

/* The same with one body per form for both output types (qwino_neon_sign_by_xor: one EOR per
 * 16 outputs), half the code, for a kernel whose layers are rare enough not to need the
 * per-type bodies (the tap-major kernel's: sizes other than the column kernels' 3x3 and 5x5). */
#define QWINO_NEON_DWCONV_ENTRIES_SIGN_BY_XOR(fn, gemmlowp_entry, fp32_entry)                      \
  QWINO_NEON_DWCONV_BODIES(fn##_shortcut, fn,                                                      \
                           QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_SIGN_BY_XOR)                  \
  QWINO_NEON_DWCONV_LEFT_SHIFT_BODY(fn)                                                            \
  QWINO_NEON_DWCONV_BODIES(fn##_fp32, fn, QWINO_NEON_FP32 | QWINO_NEON_SIGN_BY_XOR)                \
  void gemmlowp_entry(QWINO_DWCONV_PARAMETERS) {                                                   \
    switch (qwino_neon_sign_by_xor(qwino_neon_gemmlowp_variant(&params->gemmlowp, 0))) {           \
      QWINO_NEON_DWCONV_CASE(QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_SIGN_BY_XOR, fn##_shortcut) \
      case QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_SIGN_BY_XOR:                                \
        QWINO_NEON_DWCONV_LEFT_SHIFT_CALL(fn)                                                      \
    }                                                                                              \
  }                                                                                                \
  void fp32_entry(QWINO_DWCONV_PARAMETERS) {                                                       \
    switch (qwino_neon_sign_by_xor(qwino_neon_fp32_variant(&params->fp32))) {                      \
      QWINO_NEON_DWCONV_CASE(QWINO_NEON_FP32 | QWINO_NEON_SIGN_BY_XOR, fn##_fp32)                  \
    }                                                                                              \
  }

/* The entries of a file whose body function fn takes the kernel's rows first
 * (fn(rows, QWINO_NEON_DWCONV_BODY_PARAMETERS)): its 3-row and its 5-row kernels. */
#define QWINO_NEON_DWCONV_ROWS_ENTRIES(fn, gemmlowp3_entry, fp32_3_entry, gemmlowp5_entry,        \
                                       fp32_5_entry)                                              \
  QWINO_NEON_INLINE void fn##3(QWINO_NEON_DWCONV_BODY_PARAMETERS) {                               \
    fn(3, channels, pixels, taps, input, input_pixel_step, input_offset, weights, channel_params, \
       output, output_pixel_stride, call, variant, flip);                                         \
  }                                                                                               \
  QWINO_NEON_INLINE void fn##5(QWINO_NEON_DWCONV_BODY_PARAMETERS) {                               \
    fn(5, channels, pixels, taps, input, input_pixel_step, input_offset, weights, channel_params, \
       output, output_pixel_stride, call, variant, flip);                                         \
  }                                                                                               \
  QWINO_NEON_DWCONV_ENTRIES(fn##3, gemmlowp3_entry, fp32_3_entry)                                 \
  QWINO_NEON_DWCONV_ENTRIES(fn##5, gemmlowp5_entry, fp32_5_entry)

#endif /* QWINO_S8_DWCONV_NEON_ENTRIES_H_ */
