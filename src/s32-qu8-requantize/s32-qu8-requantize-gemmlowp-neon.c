/*
 * Bias + requantization of int32 accumulators into uint8 (the direct path's output stage), NEON:
 * bit-exact twin of src/s32-qu8-requantize/s32-qu8-requantize-gemmlowp-scalar.c for every
 * accumulator, bias and parameter value.
 *
 * Channels sit in lanes, 16 per step (four int32x4, one uint8x16 store), then one step of 8;
 * the tail (< 8) is staged through stack buffers so that exactly `channels` values are read
 * and `channels` bytes written per pixel. The bias add is a vector ADD on unsigned lanes: it
 * wraps modulo 2^32 like qwino_wrapping_add_s32. The requantization is
 * src/qwino/requantization-neon.h (shared with the output-transform kernels; its comment has the
 * argument for every step), in one of three forms chosen once per call: the shortcut for the
 * parameters create() makes for multipliers below 0.5, the general sequence without the left
 * shift, and the general sequence with it.
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/ukernels.h"
#include "qwino/requantization-neon.h"

enum { kShortcut = 0, kGeneral = 1, kGeneralLeftShift = 2 };

#define QWINO_INLINE static inline __attribute__((always_inline))

/* acc + bias (wrapping), requantized; `form` is a constant at every call. */
QWINO_INLINE int32x4_t requantize4(const int32_t* accumulators, const int32_t* bias,
                                   const struct qwino_neon_requantization* q, int form) {
  const uint32x4_t sum = vaddq_u32(vreinterpretq_u32_s32(vld1q_s32(accumulators)),
                                   vreinterpretq_u32_s32(vld1q_s32(bias)));
  const int32x4_t x = vreinterpretq_s32_u32(sum);
  return form == kShortcut ? qwino_neon_requantize_positive_shift_s32x4(x, q)
                           : qwino_neon_requantize_s32x4(x, q, form == kGeneralLeftShift);
}

QWINO_INLINE uint8x16_t narrow(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d,
                               const struct qwino_neon_requantization* q, int form) {
  return form == kShortcut ? qwino_neon_narrow_add_zero_point_clamp_4x4(a, b, c, d, q)
                           : qwino_neon_narrow_clamp_4x4(a, b, c, d, q);
}

/* 8 channels -> the low 8 bytes (the high 8 repeat them). */
QWINO_INLINE uint8x8_t requantize8(const int32_t* accumulators, const int32_t* bias,
                                   const struct qwino_neon_requantization* q, int form) {
  const int32x4_t lo = requantize4(accumulators, bias, q, form);
  const int32x4_t hi = requantize4(accumulators + 4, bias + 4, q, form);
  return vget_low_u8(narrow(lo, hi, lo, hi, q, form));
}

QWINO_INLINE void requantize_pixels(size_t pixels, size_t channels, const int32_t* accumulators,
                                    size_t accumulator_stride, const int32_t* bias,
                                    uint8_t* output, size_t output_stride,
                                    const struct qwino_neon_requantization* q, int form) {
  for (; pixels != 0; pixels--) {
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
      const int32x4_t r0 = requantize4(accumulators + c, bias + c, q, form);
      const int32x4_t r1 = requantize4(accumulators + c + 4, bias + c + 4, q, form);
      const int32x4_t r2 = requantize4(accumulators + c + 8, bias + c + 8, q, form);
      const int32x4_t r3 = requantize4(accumulators + c + 12, bias + c + 12, q, form);
      vst1q_u8(output + c, narrow(r0, r1, r2, r3, q, form));
    }
    if (c + 8 <= channels) {
      vst1_u8(output + c, requantize8(accumulators + c, bias + c, q, form));
      c += 8;
    }
    if (c < channels) {
      const size_t tail = channels - c;
      int32_t accumulator_buffer[8] = {0};
      int32_t bias_buffer[8] = {0};
      memcpy(accumulator_buffer, accumulators + c, tail * sizeof(int32_t));
      memcpy(bias_buffer, bias + c, tail * sizeof(int32_t));
      uint8_t bytes[8];
      vst1_u8(bytes, requantize8(accumulator_buffer, bias_buffer, q, form));
      memcpy(output + c, bytes, tail);
    }
    accumulators += accumulator_stride;
    output += output_stride;
  }
}

void qwino_s32_qu8_requantize_gemmlowp_ukernel__neon(
    size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride,
    const int32_t* bias, uint8_t* output, size_t output_stride,
    const union qwino_qu8_requantization_params* microparams) {
  const struct qwino_qu8_gemmlowp_params* params = &microparams->gemmlowp;
  const struct qwino_neon_requantization q = qwino_neon_requantization_init(params);
  if (qwino_neon_requantization_positive_shift(params)) {
    requantize_pixels(pixels, channels, accumulators, accumulator_stride, bias, output,
                      output_stride, &q, kShortcut);
  } else if (params->left_shift == 0) {
    requantize_pixels(pixels, channels, accumulators, accumulator_stride, bias, output,
                      output_stride, &q, kGeneral);
  } else {
    requantize_pixels(pixels, channels, accumulators, accumulator_stride, bias, output,
                      output_stride, &q, kGeneralLeftShift);
  }
}
