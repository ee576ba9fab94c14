/*
 * Winograd F(2x2,3x3) output transform + bias + requantization, NEON: bit-exact twin of
 * src/qu8-winograd-f2x2-output/qu8-winograd-f2x2-output-scalar.c for every input, including
 * wrapped M values, both requantization modes, every per-channel parameter value of the
 * documented ranges, uint8 and int8 outputs.
 *
 * Channels sit in lanes, 8 per step (two int32x4 halves per pixel; two pixels share one
 * uint8x16 for the narrowing and the clamp). On Cortex-A72 this kernel is bound by the two ASIMD
 * pipes (SQRDMULH and SRSHL take 2 cycles each on Q registers), so it is written to keep the
 * vector instruction count low; it costs about 3% of a 64-channel layer, less for wider ones.
 * Why each step matches the scalar definition in qwino/requantization.h:
 *  - A^T M A with vector ADD/SUB wraps modulo 2^32 like the scalar uint32_t arithmetic;
 *    SSRA #2 adds the arithmetic Y >> 2 to the bias with the same wrap-around as the scalar add.
 *  - The requantization is src/qwino/requantization-neon.h (shared with the F(4x4,3x3) and the
 *    requantize kernels; its comment has the argument for each step), in the variant chosen once
 *    per call, one for both output types (qwino_neon_sign_by_xor). The per-channel vectors (bias,
 * multiplier or scale, shifts) are loaded per group of 8 channels, once for the 4 pixels of the
 * tile; the gemmlowp shortcut form pays for those loads and the NEG of the right shifts (it saves
 * an AND and an ADD per 4 values, against a SQADD per 8). The channel tail (< 8) is staged through
 * stack buffers so that exactly `channels` values are read per position and per channel array and
 * `channels` bytes written per pixel.
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"

/* A^T M A for 4 channels: out[0..3] = pixels (0,0), (0,1), (1,0), (1,1). */
QWINO_NEON_INLINE void transform4(const int32_t* const m[16], size_t offset, int32x4_t out[4]) {
  /* Unsigned lanes: the sums wrap modulo 2^32 by design, and signed vector overflow would be
   * undefined behaviour in C (GCC's vaddq_s32 is a plain vector +). */
  uint32x4_t t0[4], t1[4];
  for (int j = 0; j < 4; j++) { /* A^T M: combine rows */
    const uint32x4_t s0 = vreinterpretq_u32_s32(vld1q_s32(m[0 * 4 + j] + offset));
    const uint32x4_t s1 = vreinterpretq_u32_s32(vld1q_s32(m[1 * 4 + j] + offset));
    const uint32x4_t s2 = vreinterpretq_u32_s32(vld1q_s32(m[2 * 4 + j] + offset));
    const uint32x4_t s3 = vreinterpretq_u32_s32(vld1q_s32(m[3 * 4 + j] + offset));
    t0[j] = vaddq_u32(vaddq_u32(s0, s1), s2);
    t1[j] = vsubq_u32(vsubq_u32(s1, s2), s3);
  }
  /* (A^T M) A: combine columns */
  out[0] = vreinterpretq_s32_u32(vaddq_u32(vaddq_u32(t0[0], t0[1]), t0[2]));
  out[1] = vreinterpretq_s32_u32(vsubq_u32(vsubq_u32(t0[1], t0[2]), t0[3]));
  out[2] = vreinterpretq_s32_u32(vaddq_u32(vaddq_u32(t1[0], t1[1]), t1[2]));
  out[3] = vreinterpretq_s32_u32(vsubq_u32(vsubq_u32(t1[1], t1[2]), t1[3]));
}

/* 8 channels of the 2x2 output block, per-channel values at channel_params (arrays `stride`
 * apart): row[y] holds pixel (y, 0) in its low and (y, 1) in its high 8 bytes. */
QWINO_NEON_INLINE void output8(const int32_t* const m[16], size_t offset,
                               const int32_t* channel_params, size_t stride,
                               const struct qwino_neon_requantization* k, int variant,
                               uint8x16_t row[2]) {
  int32x4_t lo[4], hi[4];
  transform4(m, offset, lo);
  transform4(m, offset + 4, hi);
  const int32x4_t bias_lo = vld1q_s32(channel_params);
  const int32x4_t bias_hi = vld1q_s32(channel_params + 4);
  const struct qwino_neon_channels ch_lo =
      qwino_neon_load_channels(channel_params, stride, variant);
  const struct qwino_neon_channels ch_hi =
      qwino_neon_load_channels(channel_params + 4, stride, variant);
  int32x4_t r_lo[4], r_hi[4];
  for (int p = 0; p < 4; p++) {
    r_lo[p] = qwino_neon_requantize_s32x4(vsraq_n_s32(bias_lo, lo[p], 2), &ch_lo, k, variant);
    r_hi[p] = qwino_neon_requantize_s32x4(vsraq_n_s32(bias_hi, hi[p], 2), &ch_hi, k, variant);
  }
  for (int y = 0; y < 2; y++) {
    row[y] = qwino_neon_narrow_4x4(r_lo[y * 2], r_hi[y * 2], r_lo[y * 2 + 1], r_hi[y * 2 + 1], k,
                                   variant);
  }
}

/* ST1 {v.d}[1]: no lane move on the ASIMD pipes. memcpy, because the lane-store intrinsics are
 * plain uint64_t stores in GCC's arm_neon.h, which would alias uint8_t output. */
QWINO_NEON_INLINE void store_high8(uint8_t* output, uint8x16_t x) {
  const uint64_t high = vgetq_lane_u64(vreinterpretq_u64_u8(x), 1);
  memcpy(output, &high, sizeof(high));
}

QWINO_NEON_INLINE void output_transform(size_t channels, const int32_t* m, size_t m_position_stride,
                                        const int32_t* channel_params, uint8_t* output,
                                        size_t output_row_stride, size_t output_pixel_stride,
                                        size_t rows, size_t columns,
                                        const union qwino_qu8_requantization_params* params,
                                        int variant) {
  const struct qwino_neon_requantization k = qwino_neon_requantization_init(params, variant);
  const size_t stride = qwino_neon_channel_stride(params, variant);
  const int two_columns = columns > 1;
  const int two_rows = rows > 1;

  const int32_t* mp[16];
  for (int p = 0; p < 16; p++) {
    mp[p] = m + p * m_position_stride;
  }
  uint8_t* o00 = output;
  uint8_t* o01 = output + output_pixel_stride;
  uint8_t* o10 = output + output_row_stride;
  uint8_t* o11 = o10 + output_pixel_stride;

  size_t c = 0;
  for (; c + 8 <= channels; c += 8) {
    uint8x16_t row[2];
    output8(mp, c, channel_params + c, stride, &k, variant, row);
    vst1_u8(o00 + c, vget_low_u8(row[0]));
    if (two_columns) {
      store_high8(o01 + c, row[0]);
    }
    if (two_rows) {
      vst1_u8(o10 + c, vget_low_u8(row[1]));
      if (two_columns) {
        store_high8(o11 + c, row[1]);
      }
    }
  }

  if (c < channels) {
    const size_t tail = channels - c;
    int32_t m_buffer[16][8];
    int32_t channel_buffer[QWINO_MAX_CHANNEL_ARRAYS * 8];
    memset(m_buffer, 0, sizeof(m_buffer));
    const int32_t* buffer_pointers[16];
    for (size_t p = 0; p < 16; p++) {
      memcpy(m_buffer[p], mp[p] + c, tail * sizeof(int32_t));
      buffer_pointers[p] = m_buffer[p];
    }
    qwino_neon_stage_channels(channel_buffer, 8, channel_params + c, stride, tail, variant);
    uint8x16_t row[2];
    output8(buffer_pointers, 0, channel_buffer, 8, &k, variant, row);
    uint8_t bytes[2][16];
    vst1q_u8(bytes[0], row[0]);
    vst1q_u8(bytes[1], row[1]);
    memcpy(o00 + c, bytes[0], tail);
    if (two_columns) {
      memcpy(o01 + c, bytes[0] + 8, tail);
    }
    if (two_rows) {
      memcpy(o10 + c, bytes[1], tail);
      if (two_columns) {
        memcpy(o11 + c, bytes[1] + 8, tail);
      }
    }
  }
}

/* The entries: one specialised body per variant. */
#define QWINO_CASE(variant)                                                                     \
  case variant:                                                                                 \
    output_transform(channels, m, m_position_stride, channel_params, output, output_row_stride, \
                     output_pixel_stride, rows, columns, params, variant);                      \
    break;

void qwino_qu8_winograd_f2x2_output_gemmlowp_ukernel__neon(
    size_t channels, const int32_t* m, size_t m_position_stride, const int32_t* channel_params,
    uint8_t* output, size_t output_row_stride, size_t output_pixel_stride, size_t rows,
    size_t columns, const union qwino_qu8_requantization_params* params) {
  switch (qwino_neon_sign_by_xor(qwino_neon_gemmlowp_variant(&params->gemmlowp, 1))) {
    QWINO_CASE(QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_SIGN_BY_XOR)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_GENERAL | QWINO_NEON_SIGN_BY_XOR)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_SIGN_BY_XOR)
  }
}

void qwino_qu8_winograd_f2x2_output_fp32_ukernel__neon(
    size_t channels, const int32_t* m, size_t m_position_stride, const int32_t* channel_params,
    uint8_t* output, size_t output_row_stride, size_t output_pixel_stride, size_t rows,
    size_t columns, const union qwino_qu8_requantization_params* params) {
  switch (qwino_neon_sign_by_xor(qwino_neon_fp32_variant(&params->fp32))) {
    QWINO_CASE(QWINO_NEON_FP32 | QWINO_NEON_SIGN_BY_XOR)
  }
}
#undef QWINO_CASE
