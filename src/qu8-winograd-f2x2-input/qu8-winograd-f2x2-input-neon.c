/*
 * Winograd F(2x2,3x3) input transform, NEON: bit-exact twin of
 * src/qu8-winograd-f2x2-input/qu8-winograd-f2x2-input-scalar.c.
 *
 * Channels sit in lanes (doc/DESIGN.md section 3), so one tile position of 8 channels is one
 * int16x8 register and B^T d B is 32 vector adds/subs with no transposes. The zero point is
 * subtracted by the widening subtraction itself, for uint8 data USUBL (uint8 - uint8 -> int16
 * modulo 2^16 is the exact signed difference, |d| <= 255); for int8 data SSUBL of the raw bytes
 * as int8 and the zero point (int8_t) (input_zero_point ^ 0x80): the int8 value of a byte b is
 * (b ^ 0x80) - 128 and that of the zero point z ^ 0x80 is z - 128, so the difference is
 * (b ^ 0x80) - z, the scalar d, at the same cost. The body is specialised on the 8-bit type (a
 * constant), so uint8 data costs what it did. |V| <= 4 * 255 fits int16, so every add is exact.
 *
 * On Cortex-A72 the kernel is bound by the store pipe (V is 32 bytes per channel and tile, the S
 * pipe moves 8 bytes per cycle), not by arithmetic: about 2% of a 64-channel layer.
 *
 * The channel tail (< 8) must not read past `channels` bytes of any input pointer (the pointers
 * may be the last pixel of the tensor, or the operator's zero row): it is copied into a stack
 * buffer first, and results are written back lane by lane.
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* d = (byte ^ input_sign) - input_zero_point for 8 channels; zero_point is input_zero_point for
 * uint8 data (is_int8 == 0) and input_zero_point ^ 0x80 for int8 data (see above). */
QWINO_INLINE int16x8_t load_difference(const uint8_t* input, uint8x8_t zero_point, int is_int8) {
  const uint8x8_t x = vld1_u8(input);
  if (is_int8) {
    return vsubl_s8(vreinterpret_s8_u8(x), vreinterpret_s8_u8(zero_point));
  }
  return vreinterpretq_s16_u16(vsubl_u8(x, zero_point));
}

/* B^T d B for 8 channels; d[0..15] row-major, the result overwrites v[0..15]. */
QWINO_INLINE void transform8(const int16x8_t d[16], int16x8_t v[16]) {
  int16x8_t t[16];
  for (int j = 0; j < 4; j++) { /* B^T d: combine rows */
    t[0 * 4 + j] = vsubq_s16(d[0 * 4 + j], d[2 * 4 + j]);
    t[1 * 4 + j] = vaddq_s16(d[1 * 4 + j], d[2 * 4 + j]);
    t[2 * 4 + j] = vsubq_s16(d[2 * 4 + j], d[1 * 4 + j]);
    t[3 * 4 + j] = vsubq_s16(d[1 * 4 + j], d[3 * 4 + j]);
  }
  for (int i = 0; i < 4; i++) { /* (B^T d) B: combine columns */
    v[i * 4 + 0] = vsubq_s16(t[i * 4 + 0], t[i * 4 + 2]);
    v[i * 4 + 1] = vaddq_s16(t[i * 4 + 1], t[i * 4 + 2]);
    v[i * 4 + 2] = vsubq_s16(t[i * 4 + 2], t[i * 4 + 1]);
    v[i * 4 + 3] = vsubq_s16(t[i * 4 + 1], t[i * 4 + 3]);
  }
}

QWINO_INLINE void input_transform(size_t channels, const uint8_t* const* input,
                                  uint8_t input_zero_point, int16_t* output,
                                  size_t output_position_stride, int is_int8) {
  const uint8_t sign = is_int8 ? 0x80 : 0;
  const uint8x8_t vzero_point = vdup_n_u8((uint8_t)(input_zero_point ^ sign));
  const uint8_t* in[16];
  for (int p = 0; p < 16; p++) {
    in[p] = input[p];
  }
  size_t c = 0;
  for (; c + 8 <= channels; c += 8) {
    int16x8_t d[16];
    for (int p = 0; p < 16; p++) {
      d[p] = load_difference(in[p] + c, vzero_point, is_int8);
    }
    int16x8_t v[16];
    transform8(d, v);
    int16_t* out = output + c;
    for (int p = 0; p < 16; p++) {
      vst1q_s16(out + p * output_position_stride, v[p]);
    }
  }
  if (c < channels) {
    const size_t tail = channels - c;
    /* Lanes past the tail hold the zero point, so they transform to 0 and are never stored. */
    uint8_t buffer[16][8];
    memset(buffer, input_zero_point ^ sign, sizeof(buffer));
    int16x8_t d[16];
    for (int p = 0; p < 16; p++) {
      memcpy(buffer[p], in[p] + c, tail);
      d[p] = load_difference(buffer[p], vzero_point, is_int8);
    }
    int16x8_t v[16];
    transform8(d, v);
    int16_t* out = output + c;
    for (int p = 0; p < 16; p++) {
      int16_t* o = out + p * output_position_stride;
      int16x8_t x = v[p];
      int16x4_t lo = vget_low_s16(x);
      size_t n = tail;
      if (n & 4) {
        vst1_s16(o, lo);
        o += 4;
        lo = vget_high_s16(x);
      }
      if (n & 2) {
        vst1_lane_s16(o, lo, 0);
        vst1_lane_s16(o + 1, lo, 1);
        o += 2;
        lo = vext_s16(lo, lo, 2);
      }
      if (n & 1) {
        vst1_lane_s16(o, lo, 0);
      }
    }
  }
}

void qwino_qu8_winograd_f2x2_input_ukernel__neon(size_t channels, const uint8_t* const* input,
                                                 uint8_t input_zero_point, uint8_t input_sign,
                                                 int16_t* output, size_t output_position_stride) {
  if (input_sign == 0) {
    input_transform(channels, input, input_zero_point, output, output_position_stride, 0);
  } else {
    input_transform(channels, input, input_zero_point, output, output_position_stride, 1);
  }
}
