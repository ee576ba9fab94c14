/*
 * Winograd F(4x4,3x3) input transform, NEON: bit-exact twin of
 * src/qu8-winograd-f4x4-input/qu8-winograd-f4x4-input-scalar.c.
 *
 * Channels sit in lanes (doc/DESIGN.md section 3): one tile position of 8 channels is one int16x8
 * register, and V = B^T d B is two passes of the 6-point transform y = B^T x (first over each row
 * of the tile: t = d B, then over the columns of t: V = B^T t) with no transposes. Everything is
 * exact in int16 lanes: |d B| <= 10 * 255, |V| <= 100 * 255, and add/sub/shift wrap modulo 2^16,
 * so even an intermediate that left int16 would come back. No multiplies (4x is SHL #2, 2x is
 * x + x, 5x is folded into differences): nothing here needs F0, the multiply pipe of Cortex-A72.
 *
 * The zero point is not subtracted pixel by pixel. Rows 0 and 2..5 of B^T sum to zero and row 1
 * sums to -6, so B^T (x - z) B = B^T x B - 36 z at position (1,1) only. The first pass therefore
 * works on the raw bytes with widening USUBL/USHLL/USUBW (the 36 widening instructions the
 * subtraction would cost are the first operations of the transform anyway), and one subtraction
 * fixes position (1,1) at the end. Output 1 of the first pass comes out negated (one instruction
 * cheaper: 4x1 + 4x2 - x3 - x4 is two USUBW and an ADD); the second pass for that column swaps
 * the operands of its subtractions instead, at no cost.
 * int8 data (input_sign 0x80) takes the same path on the raw bytes read as int8, with the signed
 * widening instructions (SSUBL/SSHLL/SSUBW) instead: the int8 value of a byte b is
 * (b ^ 0x80) - 128, so the transform of the raw values is that of the scalar's b ^ 0x80 less
 * 36 * 128 at position (1,1), and the fix subtracts 36 (input_zero_point - 128) =
 * 36 (int8_t) (input_zero_point ^ 0x80) instead of 36 input_zero_point. Same instructions, same
 * cost; the body is specialised on the 8-bit type (a constant), so uint8 data costs what it did.
 * The first pass keeps its lanes as uint16 either way (the signed results reinterpreted):
 * add/sub/shift modulo 2^16 are the same operations.
 *
 * The second pass, v = B^T t for each column t (t0..t5 from the six rows of the first pass), is
 *   a = t4 - 4 t2, b = t3 - 4 t1, c = t4 - t2, f = t3 - t1,
 *   v0 = c + 4 (t0 - t2), v1 = a + b, v2 = a - b, v3 = c + 2f, v4 = c - 2f, v5 = t5 - (t3 + 4f)
 * (17 instructions), scheduled by tile rows so that at most 24 vectors are live instead of all
 * 36 (which spills): rows 0, 2, 4 give V row 0 and leave a, c; rows 1 and 3 give V rows 1..4
 * and leave h = t3 + 4f; row 5 gives V row 5. V is therefore produced in position order, and
 * stored with ST1 post-incremented by the position stride (inline assembly: GCC would keep 36
 * position offsets, which spill).
 * Per 8 channels and tile: 205 vector add/sub/shift (17 + 17 per row and column, plus the zero
 * point fix), 36 8-byte loads, 36 16-byte stores, and the reloads of the pixel pointers GCC does
 * not keep in registers: about 305 instructions, which on the shared ruler's A72 model is
 * ~102 cycles, decode and both ASIMD pipes about equally busy.
 *
 * The channel tail (< 8) must not read past `channels` bytes of any input pointer (the pointers
 * may be the last pixel of the tensor, or the operator's zero row): it is copied into a stack
 * buffer first, transformed into a stack buffer, and the valid values are copied out.
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* Widening steps on the raw bytes, unsigned (uint8 data) or signed (int8 data), modulo 2^16. */
QWINO_INLINE uint16x8_t widen_sub(uint8x8_t a, uint8x8_t b, int is_int8) { /* a - b */
  if (is_int8) {
    return vreinterpretq_u16_s16(vsubl_s8(vreinterpret_s8_u8(a), vreinterpret_s8_u8(b)));
  }
  return vsubl_u8(a, b);
}

QWINO_INLINE uint16x8_t widen_4x_sub(uint8x8_t a, uint8x8_t b, int is_int8) { /* 4 a - b */
  if (is_int8) {
    return vreinterpretq_u16_s16(
        vsubw_s8(vshll_n_s8(vreinterpret_s8_u8(a), 2), vreinterpret_s8_u8(b)));
  }
  return vsubw_u8(vshll_n_u8(a, 2), b);
}

/* First pass over the raw pixels x0..x5 of one tile row: t = B^T x, t[1] negated (see above). */
QWINO_INLINE void row_transform(uint8x8_t x0, uint8x8_t x1, uint8x8_t x2, uint8x8_t x3,
                                uint8x8_t x4, uint8x8_t x5, int16x8_t t[6], int is_int8) {
  const uint16x8_t c = widen_sub(x4, x2, is_int8);               /* x4 - x2 */
  const uint16x8_t p = widen_sub(x0, x2, is_int8);               /* x0 - x2 */
  const uint16x8_t f = widen_sub(x3, x1, is_int8);               /* x3 - x1 */
  const uint16x8_t e = vaddq_u16(f, f);                          /* 2 (x3 - x1) */
  const uint16x8_t q = widen_sub(x5, x3, is_int8);               /* x5 - x3 */
  const uint16x8_t na = widen_4x_sub(x2, x4, is_int8);           /* 4 x2 - x4 */
  const uint16x8_t nb = widen_4x_sub(x1, x3, is_int8);           /* 4 x1 - x3 */
  t[0] = vreinterpretq_s16_u16(vaddq_u16(c, vshlq_n_u16(p, 2))); /*  4x0      -5x2      +x4 */
  t[1] = vreinterpretq_s16_u16(vaddq_u16(na, nb));               /* -(  -4x1 -4x2 +x3 +x4) */
  t[2] = vreinterpretq_s16_u16(vsubq_u16(nb, na));               /*      4x1 -4x2 -x3 +x4 */
  t[3] = vreinterpretq_s16_u16(vaddq_u16(c, e));                 /*     -2x1  -x2 +2x3 +x4 */
  t[4] = vreinterpretq_s16_u16(vsubq_u16(c, e));                 /*      2x1  -x2 -2x3 +x4 */
  t[5] = vreinterpretq_s16_u16(vsubq_u16(q, vshlq_n_u16(f, 2))); /*      4x1      -5x3     +x5 */
}

QWINO_INLINE void load_row(const uint8_t* const input[36], size_t offset, int i, int16x8_t t[6],
                           int is_int8) {
  const uint8_t* const* row = input + i * 6;
  row_transform(vld1_u8(row[0] + offset), vld1_u8(row[1] + offset), vld1_u8(row[2] + offset),
                vld1_u8(row[3] + offset), vld1_u8(row[4] + offset), vld1_u8(row[5] + offset), t,
                is_int8);
}

/* *p = v, then p += stride bytes: one instruction (ST1 with register post-increment). */
QWINO_INLINE void store_next(int16_t** p, size_t stride, int16x8_t v) {
  __asm__("st1 {%2.8h}, [%0], %3" : "+r"(*p), "=m"(*(int16_t(*)[8]) * p) : "w"(v), "r"(stride));
}

/* One tile of 8 channels: input[p] + offset are the 8 bytes of pixel p; positions 0..35 of V go
 * to output, output + stride bytes, ... */
QWINO_INLINE void tile8(const uint8_t* const input[36], size_t offset, int16x8_t zero_point36,
                        int16_t* output, size_t stride, int is_int8) {
  int16x8_t a[6], c[6], h[6]; /* per column k of the first pass */
  {
    int16x8_t t0[6], t2[6], t4[6];
    load_row(input, offset, 0, t0, is_int8);
    load_row(input, offset, 2, t2, is_int8);
    load_row(input, offset, 4, t4, is_int8);
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      int16x8_t p;
      if (k != 1) {
        a[k] = vsubq_s16(t4[k], vshlq_n_s16(t2[k], 2));
        c[k] = vsubq_s16(t4[k], t2[k]);
        p = vsubq_s16(t0[k], t2[k]);
      } else { /* column 1 holds -t */
        a[k] = vsubq_s16(vshlq_n_s16(t2[k], 2), t4[k]);
        c[k] = vsubq_s16(t2[k], t4[k]);
        p = vsubq_s16(t2[k], t0[k]);
      }
      store_next(&output, stride, vaddq_s16(c[k], vshlq_n_s16(p, 2))); /* V(0, k) */
    }
  }
  {
    int16x8_t t1[6], t3[6];
    load_row(input, offset, 1, t1, is_int8);
    load_row(input, offset, 3, t3, is_int8);
    int16x8_t v[4][6];
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      int16x8_t b, f;
      if (k != 1) {
        b = vsubq_s16(t3[k], vshlq_n_s16(t1[k], 2));
        f = vsubq_s16(t3[k], t1[k]);
        h[k] = vaddq_s16(t3[k], vshlq_n_s16(f, 2));
      } else {
        b = vsubq_s16(vshlq_n_s16(t1[k], 2), t3[k]);
        f = vsubq_s16(t1[k], t3[k]);
        h[k] = vsubq_s16(t3[k], vshlq_n_s16(f, 2)); /* -(t3 + 4f) */
      }
      const int16x8_t e = vaddq_s16(f, f);
      v[0][k] = vaddq_s16(a[k], b);
      v[1][k] = vsubq_s16(a[k], b);
      v[2][k] = vaddq_s16(c[k], e);
      v[3][k] = vsubq_s16(c[k], e);
    }
    v[0][1] = vsubq_s16(v[0][1], zero_point36);
    _Pragma("GCC unroll 4") for (int l = 0; l < 4; l++) {
      _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
        store_next(&output, stride, v[l][k]); /* V(1 + l, k) */
      }
    }
  }
  {
    int16x8_t t5[6];
    load_row(input, offset, 5, t5, is_int8);
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      const int16x8_t v5 = k != 1 ? vsubq_s16(t5[k], h[k]) : vsubq_s16(h[k], t5[k]);
      store_next(&output, stride, v5); /* V(5, k) */
    }
  }
}

QWINO_INLINE void input_transform(size_t channels, const uint8_t* const* input,
                                  uint8_t input_zero_point, int16_t* output,
                                  size_t output_position_stride, int is_int8) {
  /* 36 z (int8: 36 (z - 128)) modulo 2^16: the true V(1,1) fits int16, so the wrapped
   * subtraction is exact. */
  const int32_t z = is_int8 ? (int32_t)input_zero_point - 128 : (int32_t)input_zero_point;
  const int16x8_t zero_point36 = vdupq_n_s16((int16_t)(36 * z));
  const size_t stride = output_position_stride * sizeof(int16_t);
  size_t c = 0;
  for (; c + 8 <= channels; c += 8) {
    tile8(input, c, zero_point36, output + c, stride, is_int8);
  }
  if (c < channels) {
    const size_t tail = channels - c;
    /* Lanes past the tail hold the zero point (any value would do: lanes are independent). */
    uint8_t buffer[36][8];
    const uint8_t* pointers[36];
    memset(buffer, input_zero_point, sizeof(buffer));
    for (int p = 0; p < 36; p++) {
      memcpy(buffer[p], input[p] + c, tail);
      pointers[p] = buffer[p];
    }
    int16_t v[36][8];
    tile8(pointers, 0, zero_point36, &v[0][0], sizeof(v[0]), is_int8);
    for (int p = 0; p < 36; p++) {
      memcpy(output + p * output_position_stride + c, v[p], tail * sizeof(int16_t));
    }
  }
}

void qwino_qu8_winograd_f4x4_input_ukernel__neon(size_t channels, const uint8_t* const* input,
                                                 uint8_t input_zero_point, uint8_t input_sign,
                                                 int16_t* output, size_t output_position_stride) {
  if (input_sign == 0) {
    input_transform(channels, input, input_zero_point, output, output_position_stride, 0);
  } else {
    input_transform(channels, input, input_zero_point, output, output_position_stride, 1);
  }
}
