/*
 * Bias + requantization of int32 accumulators into 8-bit values (the direct path's output stage),
 * NEON: bit-exact twin of src/s32-qu8-requantize/s32-qu8-requantize-scalar.c for every
 * accumulator and bias and every parameter value of the documented ranges, both modes, uint8 and
 * int8 outputs.
 *
 * Channels sit in lanes, 16 per step (four int32x4, one 16-byte store), then one step of 8; the
 * tail (< 8) is staged through stack buffers so that exactly `channels` values are read per
 * pixel and per channel array and `channels` bytes written per pixel. The loop over channel
 * groups is the outer one: a group's bias and per-channel vectors (and the NEG of the right
 * shifts, qwino/requantization-neon.h) are loaded once and kept in registers for all the pixels
 * of the call (the direct path's region, whose accumulators are in cache), so the pixel loop
 * only loads accumulators. The bias add is a vector ADD on unsigned lanes: it wraps modulo 2^32
 * like qwino_wrapping_add_s32. The requantization is src/qwino/requantization-neon.h (shared with
 * the output-transform kernels; its comment has the argument for every step), in the variant
 * chosen once per call: fp32, or the gemmlowp shortcut for the parameters create makes for
 * multipliers below 0.5, the general sequence without the left shift, or with it; uint8 or int8.
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"

/* acc + bias (wrapping), requantized. */
QWINO_NEON_INLINE int32x4_t requantize4(const int32_t* accumulators, int32x4_t bias,
                                        const struct qwino_neon_channels* ch,
                                        const struct qwino_neon_requantization* k, int variant) {
  const uint32x4_t sum =
      vaddq_u32(vreinterpretq_u32_s32(vld1q_s32(accumulators)), vreinterpretq_u32_s32(bias));
  return qwino_neon_requantize_s32x4(vreinterpretq_s32_u32(sum), ch, k, variant);
}

/* 8 channels of every pixel, per-channel values at channel_params (arrays `stride` apart); with
 * `staged` (a constant), only the first `tail` (< 8) channels exist and go through buffers. */
QWINO_NEON_INLINE void group8(size_t pixels, const int32_t* accumulators, size_t accumulator_stride,
                              const int32_t* channel_params, size_t stride, uint8_t* output,
                              size_t output_stride, const struct qwino_neon_requantization* k,
                              int variant, int staged, size_t tail) {
  const int32x4_t bias_lo = vld1q_s32(channel_params);
  const int32x4_t bias_hi = vld1q_s32(channel_params + 4);
  const struct qwino_neon_channels ch_lo =
      qwino_neon_load_channels(channel_params, stride, variant);
  const struct qwino_neon_channels ch_hi =
      qwino_neon_load_channels(channel_params + 4, stride, variant);
  for (; pixels != 0; pixels--) {
    const int32_t* acc = accumulators;
    int32_t acc_buffer[8];
    if (staged) {
      memset(acc_buffer, 0, sizeof(acc_buffer));
      memcpy(acc_buffer, accumulators, tail * sizeof(int32_t));
      acc = acc_buffer;
    }
    const int32x4_t lo = requantize4(acc, bias_lo, &ch_lo, k, variant);
    const int32x4_t hi = requantize4(acc + 4, bias_hi, &ch_hi, k, variant);
    /* The high 8 bytes repeat the low 8. */
    const uint8x8_t bytes = vget_low_u8(qwino_neon_narrow_4x4(lo, hi, lo, hi, k, variant));
    qwino_neon_store_upto8(output, staged ? tail : 8, bytes);
    accumulators += accumulator_stride;
    output += output_stride;
  }
}

QWINO_NEON_INLINE void requantize(size_t pixels, size_t channels, const int32_t* accumulators,
                                  size_t accumulator_stride, const int32_t* channel_params,
                                  uint8_t* output, size_t output_stride,
                                  const union qwino_qu8_requantization_params* params,
                                  int variant) {
  const struct qwino_neon_requantization k = qwino_neon_requantization_init(params, variant);
  const size_t stride = qwino_neon_channel_stride(params, variant);
  size_t c = 0;
  for (; c + 16 <= channels; c += 16) {
    const int32_t* cp = channel_params + c;
    const int32x4_t b0 = vld1q_s32(cp), b1 = vld1q_s32(cp + 4);
    const int32x4_t b2 = vld1q_s32(cp + 8), b3 = vld1q_s32(cp + 12);
    const struct qwino_neon_channels ch0 = qwino_neon_load_channels(cp, stride, variant);
    const struct qwino_neon_channels ch1 = qwino_neon_load_channels(cp + 4, stride, variant);
    const struct qwino_neon_channels ch2 = qwino_neon_load_channels(cp + 8, stride, variant);
    const struct qwino_neon_channels ch3 = qwino_neon_load_channels(cp + 12, stride, variant);
    const int32_t* acc = accumulators + c;
    uint8_t* out = output + c;
    for (size_t p = pixels; p != 0; p--) {
      const int32x4_t r0 = requantize4(acc, b0, &ch0, &k, variant);
      const int32x4_t r1 = requantize4(acc + 4, b1, &ch1, &k, variant);
      const int32x4_t r2 = requantize4(acc + 8, b2, &ch2, &k, variant);
      const int32x4_t r3 = requantize4(acc + 12, b3, &ch3, &k, variant);
      vst1q_u8(out, qwino_neon_narrow_4x4(r0, r1, r2, r3, &k, variant));
      acc += accumulator_stride;
      out += output_stride;
    }
  }
  if (c + 8 <= channels) {
    group8(pixels, accumulators + c, accumulator_stride, channel_params + c, stride, output + c,
           output_stride, &k, variant, 0, 8);
    c += 8;
  }
  if (c < channels) {
    int32_t buffer[QWINO_MAX_CHANNEL_ARRAYS * 8];
    qwino_neon_stage_channels(buffer, 8, channel_params + c, stride, channels - c, variant);
    group8(pixels, accumulators + c, accumulator_stride, buffer, 8, output + c, output_stride, &k,
           variant, 1, channels - c);
  }
}

/* The entries: one specialised body per variant. */
#define QWINO_CASE(variant)                                                                \
  case variant:                                                                            \
    requantize(pixels, channels, accumulators, accumulator_stride, channel_params, output, \
               output_stride, params, variant);                                            \
    break;

void qwino_s32_qu8_requantize_gemmlowp_ukernel__neon(
    size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride,
    const int32_t* channel_params, uint8_t* output, size_t output_stride,
    const union qwino_qu8_requantization_params* params) {
  switch (qwino_neon_gemmlowp_variant(&params->gemmlowp, 1)) {
    QWINO_CASE(QWINO_NEON_GEMMLOWP_SHORTCUT)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_GENERAL)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_LEFT_SHIFT)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_INT8)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_GENERAL | QWINO_NEON_INT8)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_INT8)
  }
}

void qwino_s32_qu8_requantize_fp32_ukernel__neon(
    size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride,
    const int32_t* channel_params, uint8_t* output, size_t output_stride,
    const union qwino_qu8_requantization_params* params) {
  switch (qwino_neon_fp32_variant(&params->fp32)) {
    QWINO_CASE(QWINO_NEON_FP32)
    QWINO_CASE(QWINO_NEON_FP32 | QWINO_NEON_INT8)
  }
}
#undef QWINO_CASE
