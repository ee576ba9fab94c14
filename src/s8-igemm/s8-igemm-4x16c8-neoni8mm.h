/*
 * The accumulation of the 4x16c8 i8mm indirect GEMM (Armv8.6 SMMLA/UMMLA): the scheme and the
 * argument for it are at the top of src/s8-igemm/s8-igemm-4x16c8-neoni8mm.c. The tile in SMMLA's
 * block layout (qwino_i8mm_igemm_accumulate_blocks: the fused kernels,
 * src/qu8-igemm/qu8-igemm-4x16-neon-fused.h) or taken from and to the dot-product kernels' row
 * layout (qwino_i8mm_igemm_accumulate: the int32 stores of
 * src/s8-igemm/s8-igemm-4x16-neon-entries.h). Only for files built with i8mm.
 */
#ifndef QWINO_S8_IGEMM_4X16C8_NEONI8MM_H_
#define QWINO_S8_IGEMM_4X16C8_NEONI8MM_H_

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

#include "s8-igemm/s8-igemm-4x16c4-neondot.h"

/* acc += a (2 rows x 8 k) times b (2 columns x 8 k), the 2x2 block in lanes [r0c0 r0c1 r1c0 r1c1]:
 * SMMLA, or with `unsigned_mm` (a constant) UMMLA on the same bytes read as uint8. Both are asm
 * statements on the int8 registers: with GCC 12's vmmlaq_s32 the 4x16 loop copied an accumulator
 * for every second SMMLA (modeled V1, 3x3 28x28x128: 746k MOVs against 3.6M SMMLAs, 92.4 MACs a
 * cycle against 106.8 with the asm), and the unsigned intrinsic's reinterpretations invite the
 * same, as the dot-product kernels' UDOT (s8-igemm-4x16c4-neondot.h). */
#define QWINO_MMLA_ASM(acc, a, b, mnemonic)                                          \
  __extension__({                                                                    \
    int32x4_t qwino_mmla_ = (acc);                                                   \
    __asm__(mnemonic " %0.4s, %1.16b, %2.16b" : "+w"(qwino_mmla_) : "w"(a), "w"(b)); \
    qwino_mmla_;                                                                     \
  })
#define QWINO_MMLA(acc, a, b) \
  (unsigned_mm ? QWINO_MMLA_ASM(acc, a, b, "ummla") : QWINO_MMLA_ASM(acc, a, b, "smmla"))

/* The tile as SMMLA accumulates it: m<p><q> holds rows 2p, 2p + 1 and columns 2q, 2q + 1. */
struct qwino_i8mm_igemm_acc {
  int32x4_t m00, m01, m02, m03, m04, m05, m06, m07;
  int32x4_t m10, m11, m12, m13, m14, m15, m16, m17;
};

#define QWINO_I8MM_INLINE static inline __attribute__((always_inline))

QWINO_I8MM_INLINE int32x4_t qwino_i8mm_zip1(int32x4_t x, int32x4_t y) {
  return vreinterpretq_s32_s64(vzip1q_s64(vreinterpretq_s64_s32(x), vreinterpretq_s64_s32(y)));
}
QWINO_I8MM_INLINE int32x4_t qwino_i8mm_zip2(int32x4_t x, int32x4_t y) {
  return vreinterpretq_s32_s64(vzip2q_s64(vreinterpretq_s64_s32(x), vreinterpretq_s64_s32(y)));
}

/* Row layout to block layout and back: the two are each other's transposes of 64-bit halves
 * (r0c0 = [r0 col0 col1 | r0 col2 col3], m00 = [r0 col0 col1 | r1 col0 col1]), so one pairing
 * serves both ways: x, y become [x.lo y.lo] and [x.hi y.hi]. */
#define QWINO_I8MM_HALVES(lo, hi, x, y) \
  lo = qwino_i8mm_zip1(x, y);           \
  hi = qwino_i8mm_zip2(x, y);
#define QWINO_I8MM_FROM_ROWS(p, ra, rb)                                 \
  QWINO_I8MM_HALVES(m.m##p##0, m.m##p##1, acc.r##ra##c0, acc.r##rb##c0) \
  QWINO_I8MM_HALVES(m.m##p##2, m.m##p##3, acc.r##ra##c1, acc.r##rb##c1) \
  QWINO_I8MM_HALVES(m.m##p##4, m.m##p##5, acc.r##ra##c2, acc.r##rb##c2) \
  QWINO_I8MM_HALVES(m.m##p##6, m.m##p##7, acc.r##ra##c3, acc.r##rb##c3)
#define QWINO_I8MM_TO_ROWS(p, ra, rb)                                   \
  QWINO_I8MM_HALVES(acc.r##ra##c0, acc.r##rb##c0, m.m##p##0, m.m##p##1) \
  QWINO_I8MM_HALVES(acc.r##ra##c1, acc.r##rb##c1, m.m##p##2, m.m##p##3) \
  QWINO_I8MM_HALVES(acc.r##ra##c2, acc.r##rb##c2, m.m##p##4, m.m##p##5) \
  QWINO_I8MM_HALVES(acc.r##ra##c3, acc.r##rb##c3, m.m##p##6, m.m##p##7)

/* One step of 8 k: B's 8 column pairs (16 bytes each: column 2q's 8 values, then column
 * 2q + 1's), multiplied by the row pairs a01 and a23; with `half` (nr <= 8) only column pairs
 * 0..3, with `single_row` only a01. */
#define QWINO_I8MM_PAIR(p, a)                 \
  m.m##p##0 = QWINO_MMLA(m.m##p##0, a, b0);   \
  m.m##p##1 = QWINO_MMLA(m.m##p##1, a, b1);   \
  m.m##p##2 = QWINO_MMLA(m.m##p##2, a, b2);   \
  m.m##p##3 = QWINO_MMLA(m.m##p##3, a, b3);   \
  if (!half) {                                \
    m.m##p##4 = QWINO_MMLA(m.m##p##4, a, b4); \
    m.m##p##5 = QWINO_MMLA(m.m##p##5, a, b5); \
    m.m##p##6 = QWINO_MMLA(m.m##p##6, a, b6); \
    m.m##p##7 = QWINO_MMLA(m.m##p##7, a, b7); \
  }
#define QWINO_I8MM_STEP(a01, a23)                                 \
  do {                                                            \
    const int8x16_t b0 = vld1q_s8(w), b1 = vld1q_s8(w + 16);      \
    const int8x16_t b2 = vld1q_s8(w + 32), b3 = vld1q_s8(w + 48); \
    const int8x16_t b4 = half ? b0 : vld1q_s8(w + 64);            \
    const int8x16_t b5 = half ? b1 : vld1q_s8(w + 80);            \
    const int8x16_t b6 = half ? b2 : vld1q_s8(w + 96);            \
    const int8x16_t b7 = half ? b3 : vld1q_s8(w + 112);           \
    w += 128;                                                     \
    QWINO_I8MM_PAIR(0, a01)                                       \
    if (!single_row) {                                            \
      QWINO_I8MM_PAIR(1, a23)                                     \
    }                                                             \
  } while (0)

QWINO_I8MM_INLINE int8x16_t qwino_i8mm_pair(uint8x8_t row_a, uint8x8_t row_b, uint8x16_t sign,
                                            int flip) {
  return qwino_dot_igemm_a16(vcombine_u8(row_a, row_b), sign, flip);
}

/* The row pairs of the tile's A, 8 k at a time, each step given to STEP(a01, a23) (a statement
 * macro; with single_row, a23 repeats a01), in the order packed B has its 8-k steps: per tap,
 * per 8 k (`sign`, `flip`, `long_row` and `tail` as qwino_i8mm_igemm_accumulate_blocks sets
 * them). */
#define QWINO_I8MM_ROW_PAIRS(STEP)                                                               \
  for (size_t t = 0; t < ks; t++) {                                                              \
    const struct qwino_igemm_tap_rows rows = qwino_igemm_tap_rows(mr, ks, t, a, a_offset, zero); \
    const uint8_t *r0 = rows.r0, *r1 = rows.r1, *r2 = rows.r2, *r3 = rows.r3;                    \
    size_t k = 0;                                                                                \
    for (; k + 16 <= kc; k += 16) {                                                              \
      /* 16 k of each row; the ZIPs of 64-bit halves make the row pairs of each 8 k. */          \
      const int8x16_t x0 = qwino_dot_igemm_a16(vld1q_u8(r0 + k), sign, flip);                    \
      const int8x16_t x1 = qwino_dot_igemm_a16(vld1q_u8(r1 + k), sign, flip);                    \
      const int8x16_t x2 = single_row ? x0 : qwino_dot_igemm_a16(vld1q_u8(r2 + k), sign, flip);  \
      const int8x16_t x3 = single_row ? x1 : qwino_dot_igemm_a16(vld1q_u8(r3 + k), sign, flip);  \
      const int8x16_t a01_lo =                                                                   \
          vreinterpretq_s8_s64(vzip1q_s64(vreinterpretq_s64_s8(x0), vreinterpretq_s64_s8(x1)));  \
      const int8x16_t a23_lo =                                                                   \
          vreinterpretq_s8_s64(vzip1q_s64(vreinterpretq_s64_s8(x2), vreinterpretq_s64_s8(x3)));  \
      STEP(a01_lo, a23_lo);                                                                      \
      const int8x16_t a01_hi =                                                                   \
          vreinterpretq_s8_s64(vzip2q_s64(vreinterpretq_s64_s8(x0), vreinterpretq_s64_s8(x1)));  \
      const int8x16_t a23_hi =                                                                   \
          vreinterpretq_s8_s64(vzip2q_s64(vreinterpretq_s64_s8(x2), vreinterpretq_s64_s8(x3)));  \
      STEP(a01_hi, a23_hi);                                                                      \
    }                                                                                            \
    if (k + 8 <= kc) {                                                                           \
      const int8x16_t a01 = qwino_i8mm_pair(vld1_u8(r0 + k), vld1_u8(r1 + k), sign, flip);       \
      const int8x16_t a23 =                                                                      \
          single_row ? a01 : qwino_i8mm_pair(vld1_u8(r2 + k), vld1_u8(r3 + k), sign, flip);      \
      STEP(a01, a23);                                                                            \
      k += 8;                                                                                    \
    }                                                                                            \
    if (tail != 0) {                                                                             \
      /* Lanes past kc hold the sign byte or 0: B's padding (0, with either multiply) makes      \
       * them 0. */                                                                              \
      const int8x16_t a01 =                                                                      \
          qwino_i8mm_pair(qwino_dot_igemm_load_row_tail(r0 + k, tail, long_row),                 \
                          qwino_dot_igemm_load_row_tail(r1 + k, tail, long_row), sign, flip);    \
      const int8x16_t a23 =                                                                      \
          single_row ? a01                                                                       \
                     : qwino_i8mm_pair(qwino_dot_igemm_load_row_tail(r2 + k, tail, long_row),    \
                                       qwino_dot_igemm_load_row_tail(r3 + k, tail, long_row),    \
                                       sign, flip);                                              \
      STEP(a01, a23);                                                                            \
    }                                                                                            \
  }

/* m + the tile's sums in the block layout, with qwino_dot_igemm_accumulate's arguments and
 * meaning (unsigned_mm in the place of unsigned_dot: UMMLA on bytes ^ a_sign ^ 0x80 and B + 128,
 * a_bias and b_bias 128). */
QWINO_I8MM_INLINE struct qwino_i8mm_igemm_acc qwino_i8mm_igemm_accumulate_blocks(
    struct qwino_i8mm_igemm_acc m, size_t mr, size_t kc, size_t ks, const uint8_t* const* a,
    size_t a_offset, const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b, int flip,
    int half, int unsigned_mm, int single_row) {
  const uint8x16_t sign = vdupq_n_u8(unsigned_mm ? a_sign ^ 0x80 : a_sign);
  const int long_row = kc >= 8;
  const size_t tail = kc % 8;
  const int8_t* w = packed_b;
  QWINO_I8MM_ROW_PAIRS(QWINO_I8MM_STEP)
  return m;
}

/* The 8-k steps of ks taps of kc bytes: what packed B holds per column pair, and the row pairs
 * qwino_i8mm_pack_rows makes. */
QWINO_I8MM_INLINE size_t qwino_i8mm_steps(size_t kc, size_t ks) { return ks * ((kc + 7) / 8); }

/* Bytes of qwino_i8mm_pack_rows's packing: 32 per step. */
QWINO_I8MM_INLINE size_t qwino_i8mm_packed_rows_bytes(size_t kc, size_t ks) {
  return qwino_i8mm_steps(kc, ks) * 32;
}

#define QWINO_I8MM_STORE_PAIRS(a01, a23) \
  do {                                   \
    vst1q_s8(packed, a01);               \
    vst1q_s8(packed + 16, a23);          \
    packed += 32;                        \
  } while (0)

/* The row pairs of a block of 2 to 4 rows, as QWINO_I8MM_ROW_PAIRS makes them (XOR included),
 * one after the other: what qwino_i8mm_igemm_accumulate_packed reads instead of the rows, so that
 * a block of rows multiplied by several panels pays the loads' ZIPs once. */
QWINO_I8MM_INLINE void qwino_i8mm_pack_rows(int8_t* packed, size_t mr, size_t kc, size_t ks,
                                            const uint8_t* const* a, size_t a_offset,
                                            const uint8_t* zero, uint8_t a_sign, int flip,
                                            int unsigned_mm) {
  const uint8x16_t sign = vdupq_n_u8(unsigned_mm ? a_sign ^ 0x80 : a_sign);
  const int long_row = kc >= 8, single_row = 0;
  const size_t tail = kc % 8;
  QWINO_I8MM_ROW_PAIRS(QWINO_I8MM_STORE_PAIRS)
}

/* qwino_i8mm_igemm_accumulate_blocks on rows packed by qwino_i8mm_pack_rows (`steps`:
 * qwino_i8mm_steps). */
QWINO_I8MM_INLINE struct qwino_i8mm_igemm_acc qwino_i8mm_igemm_accumulate_packed(
    struct qwino_i8mm_igemm_acc m, const int8_t* packed_a, size_t steps, const int8_t* packed_b,
    int half, int unsigned_mm) {
  const int single_row = 0;
  const int8_t* w = packed_b;
  for (size_t s = 0; s < steps; s++) {
    const int8x16_t a01 = vld1q_s8(packed_a), a23 = vld1q_s8(packed_a + 16);
    packed_a += 32;
    QWINO_I8MM_STEP(a01, a23);
  }
  return m;
}

/* The same on the tile in the row layout, for kernels that store or requantize rows. */
QWINO_I8MM_INLINE struct qwino_dot_igemm_acc qwino_i8mm_igemm_accumulate(
    struct qwino_dot_igemm_acc acc, size_t mr, size_t kc, size_t ks, const uint8_t* const* a,
    size_t a_offset, const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b, int flip,
    int half, int unsigned_mm, int single_row) {
  struct qwino_i8mm_igemm_acc m;
  QWINO_I8MM_FROM_ROWS(0, 0, 1)
  QWINO_I8MM_FROM_ROWS(1, 2, 3)
  m = qwino_i8mm_igemm_accumulate_blocks(m, mr, kc, ks, a, a_offset, zero, a_sign, packed_b, flip,
                                         half, unsigned_mm, single_row);
  QWINO_I8MM_TO_ROWS(0, 0, 1)
  QWINO_I8MM_TO_ROWS(1, 2, 3)
  return acc;
}

#endif /* QWINO_S8_IGEMM_4X16C8_NEONI8MM_H_ */
