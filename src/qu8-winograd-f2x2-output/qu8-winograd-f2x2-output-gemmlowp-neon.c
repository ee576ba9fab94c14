/*
 * Winograd F(2x2,3x3) output transform + bias + requantization, NEON: bit-exact twin of
 * src/qu8-winograd-f2x2-output/qu8-winograd-f2x2-output-gemmlowp-scalar.c for every input,
 * including wrapped M values and the extreme requantization parameters.
 *
 * Channels sit in lanes, 8 per step (two int32x4 halves per pixel; two pixels share one
 * uint8x16 for the narrowing and the clamp). On Cortex-A72 this kernel is bound by the two ASIMD
 * pipes (SQRDMULH and SRSHL take 2 cycles each on Q registers), so it is written to keep the
 * vector instruction count low; it costs about 3% of a 64-channel layer, less for wider ones.
 * Why each step matches the scalar definition in qwino/requantization.h:
 *  - A^T M A with vector ADD/SUB wraps modulo 2^32 like the scalar uint32_t arithmetic;
 *    SSRA #2 adds the arithmetic Y >> 2 to the bias with the same wrap-around as the scalar add.
 *  - The requantization is src/qwino/requantization-neon.h (shared with the F(4x4,3x3) kernel; its
 *    comment has the argument for each step).
 * The channel tail (< 8) is staged through stack buffers so that exactly `channels` values are
 * read per position and `channels` bytes written per pixel.
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/ukernels.h"
#include "qwino/requantization-neon.h"

/* left_shift is 1 only when the multiplier rounded up to 1.0, so the common case skips SSHL. */
static inline int32x4_t requantize4(int32x4_t y, int32x4_t bias,
                                    const struct qwino_neon_requantization* q,
                                    int has_left_shift) {
  return qwino_neon_requantize_s32x4(vsraq_n_s32(bias, y, 2), q, has_left_shift);
}

/* A^T M A for 4 channels: out[0..3] = pixels (0,0), (0,1), (1,0), (1,1). */
static inline void transform4(const int32_t* const m[16], size_t offset, int32x4_t out[4]) {
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

/* 8 channels of the 2x2 output block: row[y] holds pixel (y, 0) in its low and (y, 1) in its
 * high 8 bytes. */
static inline void output8(const int32_t* const m[16], size_t offset, const int32_t* bias,
                           const struct qwino_neon_requantization* q, int has_left_shift,
                           uint8x16_t row[2]) {
  int32x4_t lo[4], hi[4];
  transform4(m, offset, lo);
  transform4(m, offset + 4, hi);
  const int32x4_t bias_lo = vld1q_s32(bias);
  const int32x4_t bias_hi = vld1q_s32(bias + 4);
  int32x4_t r_lo[4], r_hi[4];
  for (int p = 0; p < 4; p++) {
    r_lo[p] = requantize4(lo[p], bias_lo, q, has_left_shift);
    r_hi[p] = requantize4(hi[p], bias_hi, q, has_left_shift);
  }
  for (int y = 0; y < 2; y++) {
    row[y] = qwino_neon_narrow_clamp_4x4(r_lo[y * 2], r_hi[y * 2], r_lo[y * 2 + 1],
                                         r_hi[y * 2 + 1], q);
  }
}

/* ST1 {v.d}[1]: no lane move on the ASIMD pipes. memcpy, because the lane-store intrinsics are
 * plain uint64_t stores in GCC's arm_neon.h, which would alias uint8_t output. */
static inline void store_high8(uint8_t* output, uint8x16_t x) {
  const uint64_t high = vgetq_lane_u64(vreinterpretq_u64_u8(x), 1);
  memcpy(output, &high, sizeof(high));
}

void qwino_qu8_winograd_f2x2_output_gemmlowp_ukernel__neon(
    size_t channels, const int32_t* m, size_t m_position_stride, const int32_t* bias,
    uint8_t* output, size_t output_row_stride, size_t output_pixel_stride,
    size_t rows, size_t columns, const union qwino_qu8_requantization_params* microparams) {
  const struct qwino_qu8_gemmlowp_params* params = &microparams->gemmlowp;
  const struct qwino_neon_requantization q = qwino_neon_requantization_init(params);
  const int has_left_shift = params->left_shift != 0;
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
#define QWINO_OUTPUT_TRANSFORM_LOOP(HAS_LEFT_SHIFT)                             \
  for (; c + 8 <= channels; c += 8) {                                           \
    uint8x16_t row[2];                                                          \
    output8(mp, c, bias + c, &q, HAS_LEFT_SHIFT, row);                          \
    vst1_u8(o00 + c, vget_low_u8(row[0]));                                      \
    if (two_columns) {                                                          \
      store_high8(o01 + c, row[0]);                                             \
    }                                                                           \
    if (two_rows) {                                                             \
      vst1_u8(o10 + c, vget_low_u8(row[1]));                                    \
      if (two_columns) {                                                        \
        store_high8(o11 + c, row[1]);                                           \
      }                                                                         \
    }                                                                           \
  }
  if (has_left_shift) {
    QWINO_OUTPUT_TRANSFORM_LOOP(1)
  } else {
    QWINO_OUTPUT_TRANSFORM_LOOP(0)
  }
#undef QWINO_OUTPUT_TRANSFORM_LOOP

  if (c < channels) {
    const size_t tail = channels - c;
    int32_t m_buffer[16][8];
    int32_t bias_buffer[8] = {0};
    memset(m_buffer, 0, sizeof(m_buffer));
    const int32_t* buffer_pointers[16];
    for (size_t p = 0; p < 16; p++) {
      memcpy(m_buffer[p], mp[p] + c, tail * sizeof(int32_t));
      buffer_pointers[p] = m_buffer[p];
    }
    memcpy(bias_buffer, bias + c, tail * sizeof(int32_t));
    uint8x16_t row[2];
    output8(buffer_pointers, 0, bias_buffer, &q, has_left_shift, row);
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
