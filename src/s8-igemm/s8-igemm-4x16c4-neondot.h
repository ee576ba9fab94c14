/*
 * The accumulation of the 4x16c4 SDOT indirect GEMM: the scheme and the argument for it are at
 * the top of src/s8-igemm/s8-igemm-4x16c4-neondot.c, which stores the int32 block;
 * src/qu8-igemm/qu8-igemm-4x16c4-neondot.c requantizes the same accumulators instead. Only for
 * files built with the dot-product extension.
 */
#ifndef QWINO_S8_IGEMM_4X16C4_NEONDOT_H_
#define QWINO_S8_IGEMM_4X16C4_NEONDOT_H_

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qwino/partial-loads.h"

#define QWINO_DOT_IGEMM_INLINE static inline __attribute__((always_inline))

/* The r = 1..7 bytes at p (p[0..r) only), in lanes 0..r-1, zeros above; kc >= 8 allows reading
 * the 8 bytes that end at p + r (the row's last 8). */
QWINO_DOT_IGEMM_INLINE uint8x8_t qwino_dot_igemm_load_row_tail(const uint8_t* p, size_t r,
                                                               int long_row) {
  if (long_row) {
    const uint8x8_t last8 = vld1_u8(p + r - 8);
    return vreinterpret_u8_u64(
        vshl_u64(vreinterpret_u64_u8(last8), vdup_n_s64(-(int64_t)(8 * (8 - r)))));
  }
  return vcreate_u8(qwino_load_upto8(p, r));
}

/* The four A rows of tap t (a_offset added except to the zero row); rows past mr read row
 * mr - 1's pointers. */
struct qwino_igemm_tap_rows {
  const uint8_t *r0, *r1, *r2, *r3;
};
QWINO_DOT_IGEMM_INLINE struct qwino_igemm_tap_rows qwino_igemm_tap_rows(
    size_t mr, size_t ks, size_t t, const uint8_t* const* a, size_t a_offset, const uint8_t* zero) {
  const size_t row1 = mr > 1 ? ks : 0;
  const size_t row2 = mr > 2 ? 2 * ks : row1;
  const size_t row3 = mr > 3 ? 3 * ks : row2;
  const uint8_t* r[4] = {a[t], a[row1 + t], a[row2 + t], a[row3 + t]};
  for (int i = 0; i < 4; i++) {
    r[i] = r[i] == zero ? r[i] : r[i] + a_offset;
  }
  const struct qwino_igemm_tap_rows rows = {r[0], r[1], r[2], r[3]};
  return rows;
}

/* The dot products by element on int8 vectors: SDOT, or with `unsigned_dot` (a constant) UDOT on
 * the same bytes read as uint8. UDOT is an asm statement on the int8 registers: through the
 * intrinsics' uint8 / uint32 reinterpretations GCC 12 copied accumulators (4 register moves per
 * 64 UDOTs) and spilled a B register. */
#define QWINO_UDOT_LANE(acc, b, a, lane)                                                  \
  __extension__({                                                                         \
    int32x4_t qwino_udot_ = (acc);                                                        \
    __asm__("udot %0.4s, %1.16b, %2.4b[" #lane "]" : "+w"(qwino_udot_) : "w"(b), "w"(a)); \
    qwino_udot_;                                                                          \
  })
#define QWINO_DOT_LANEQ(acc, b, a, lane) \
  (unsigned_dot ? QWINO_UDOT_LANE(acc, b, a, lane) : vdotq_laneq_s32(acc, b, a, lane))
#define QWINO_DOT_LANE(acc, b, a, lane) \
  (unsigned_dot ? QWINO_UDOT_LANE(acc, b, a, lane) : vdotq_lane_s32(acc, b, a, lane))

/* acc.r<i>c0..3 += 16 columns x 4 k of B (b0..b3) times the 4 k in lane `lane` of row i's A
 * register (DOT: QWINO_DOT_LANE for 8-byte A registers, QWINO_DOT_LANEQ for 16-byte ones); with
 * `half` (a constant: nr <= 8) only columns 0..7, c0 and c1, whose B registers are the first 32
 * of the 64 bytes (the panel stays 16 columns wide). */
#define QWINO_DOT_IGEMM_ROW(DOT, i, lane)             \
  acc.r##i##c0 = DOT(acc.r##i##c0, b0, a##i, lane);   \
  acc.r##i##c1 = DOT(acc.r##i##c1, b1, a##i, lane);   \
  if (!half) {                                        \
    acc.r##i##c2 = DOT(acc.r##i##c2, b2, a##i, lane); \
    acc.r##i##c3 = DOT(acc.r##i##c3, b3, a##i, lane); \
  }
#define QWINO_DOT_IGEMM_BLOCK(DOT, lane)               \
  do {                                                 \
    const int8x16_t b0 = vld1q_s8(w);                  \
    const int8x16_t b1 = vld1q_s8(w + 16);             \
    const int8x16_t b2 = half ? b0 : vld1q_s8(w + 32); \
    const int8x16_t b3 = half ? b1 : vld1q_s8(w + 48); \
    w += 64;                                           \
    QWINO_DOT_IGEMM_ROW(DOT, 0, lane)                  \
    if (!single_row) {                                 \
      QWINO_DOT_IGEMM_ROW(DOT, 1, lane)                \
      QWINO_DOT_IGEMM_ROW(DOT, 2, lane)                \
      QWINO_DOT_IGEMM_ROW(DOT, 3, lane)                \
    }                                                  \
  } while (0)
/* The empty asm makes the next block's B pointer depend on this block's last SDOT, so its B
 * loads come after it: GCC would otherwise load all 16 B registers of a 16-k step first and
 * spill accumulators (16 + 16 + 4 > 32). It emits nothing and holds no memory barrier. */
#define QWINO_DOT_IGEMM_ORDER()              \
  do {                                       \
    if (single_row) {                        \
      __asm__("" : "+r"(w), "+w"(acc.r0c3)); \
    } else if (half) {                       \
      __asm__("" : "+r"(w), "+w"(acc.r3c1)); \
    } else {                                 \
      __asm__("" : "+r"(w), "+w"(acc.r3c3)); \
    }                                        \
  } while (0)

QWINO_DOT_IGEMM_INLINE int8x8_t qwino_dot_igemm_a8(uint8x8_t bytes, uint8x8_t sign, int flip) {
  return vreinterpret_s8_u8(flip ? veor_u8(bytes, sign) : bytes);
}
QWINO_DOT_IGEMM_INLINE int8x16_t qwino_dot_igemm_a16(uint8x16_t bytes, uint8x16_t sign, int flip) {
  return vreinterpretq_s8_u8(flip ? veorq_u8(bytes, sign) : bytes);
}

/* The tile's accumulators: row i, columns 4 j .. 4 j + 3 in r<i>c<j>. Named fields of a value
 * (not an array behind a pointer), so that GCC keeps all 16 in registers across the loops. */
struct qwino_dot_igemm_acc {
  int32x4_t r0c0, r0c1, r0c2, r0c3, r1c0, r1c1, r1c2, r1c3;
  int32x4_t r2c0, r2c1, r2c2, r2c3, r3c0, r3c1, r3c2, r3c3;
};

/* acc + the tile's sums (qwino_igemm_ukernel_fn's arguments), rows past mr computed from row
 * mr - 1: of a b (SDOT), or with unsigned_dot of (a + 128)(b + 128), the bytes byte ^ a_sign ^
 * 0x80 and the packed bytes (b + 128) read as uint8 (UDOT: a_bias and b_bias 128). flip: the A
 * bytes need the XOR (a_sign != 0, or with unsigned_dot a_sign != 0x80); half: nr <= 8 (columns
 * 8..15, r<i>c2 and c3, left as they are); single_row: mr == 1 (rows 1-3 left as they are: a
 * 7x7 layer's 49 pixels end in a tile of one row, which then costs a quarter of a tile); all
 * four constants in every instantiation. */
QWINO_DOT_IGEMM_INLINE struct qwino_dot_igemm_acc qwino_dot_igemm_accumulate(
    struct qwino_dot_igemm_acc acc, size_t mr, size_t kc, size_t ks, const uint8_t* const* a,
    size_t a_offset, const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b, int flip,
    int half, int unsigned_dot, int single_row) {
  const uint8x16_t sign = vdupq_n_u8(unsigned_dot ? a_sign ^ 0x80 : a_sign);
  const int long_row = kc >= 8;
  const size_t tail = kc % 8;
  const int8_t* w = packed_b;
  for (size_t t = 0; t < ks; t++) {
    const struct qwino_igemm_tap_rows rows = qwino_igemm_tap_rows(mr, ks, t, a, a_offset, zero);
    const uint8_t *r0 = rows.r0, *r1 = rows.r1, *r2 = rows.r2, *r3 = rows.r3;
    size_t k = 0;
    for (; k + 16 <= kc; k += 16) {
      const int8x16_t a0 = qwino_dot_igemm_a16(vld1q_u8(r0 + k), sign, flip);
      const int8x16_t a1 = qwino_dot_igemm_a16(vld1q_u8(r1 + k), sign, flip);
      const int8x16_t a2 = qwino_dot_igemm_a16(vld1q_u8(r2 + k), sign, flip);
      const int8x16_t a3 = qwino_dot_igemm_a16(vld1q_u8(r3 + k), sign, flip);
      /* (With the XOR, one ordering point a step is enough: more made GCC copy registers.) */
      QWINO_DOT_IGEMM_BLOCK(QWINO_DOT_LANEQ, 0);
      if (!flip) QWINO_DOT_IGEMM_ORDER();
      QWINO_DOT_IGEMM_BLOCK(QWINO_DOT_LANEQ, 1);
      QWINO_DOT_IGEMM_ORDER();
      QWINO_DOT_IGEMM_BLOCK(QWINO_DOT_LANEQ, 2);
      if (!flip) QWINO_DOT_IGEMM_ORDER();
      QWINO_DOT_IGEMM_BLOCK(QWINO_DOT_LANEQ, 3);
    }
    if (k + 8 <= kc) {
      const uint8x8_t sign8 = vget_low_u8(sign);
      const int8x8_t a0 = qwino_dot_igemm_a8(vld1_u8(r0 + k), sign8, flip);
      const int8x8_t a1 = qwino_dot_igemm_a8(vld1_u8(r1 + k), sign8, flip);
      const int8x8_t a2 = qwino_dot_igemm_a8(vld1_u8(r2 + k), sign8, flip);
      const int8x8_t a3 = qwino_dot_igemm_a8(vld1_u8(r3 + k), sign8, flip);
      QWINO_DOT_IGEMM_BLOCK(QWINO_DOT_LANE, 0);
      QWINO_DOT_IGEMM_BLOCK(QWINO_DOT_LANE, 1);
      k += 8;
    }
    if (tail != 0) {
      const uint8x8_t sign8 = vget_low_u8(sign);
      const int8x8_t a0 =
          qwino_dot_igemm_a8(qwino_dot_igemm_load_row_tail(r0 + k, tail, long_row), sign8, flip);
      const int8x8_t a1 =
          qwino_dot_igemm_a8(qwino_dot_igemm_load_row_tail(r1 + k, tail, long_row), sign8, flip);
      const int8x8_t a2 =
          qwino_dot_igemm_a8(qwino_dot_igemm_load_row_tail(r2 + k, tail, long_row), sign8, flip);
      const int8x8_t a3 =
          qwino_dot_igemm_a8(qwino_dot_igemm_load_row_tail(r3 + k, tail, long_row), sign8, flip);
      /* Lanes past kc hold the sign byte or 0: B's padding (0, with either dot) makes them 0. */
      QWINO_DOT_IGEMM_BLOCK(QWINO_DOT_LANE, 0);
      if (tail > 4) {
        QWINO_DOT_IGEMM_BLOCK(QWINO_DOT_LANE, 1);
      }
    }
  }
  return acc;
}

#endif /* QWINO_S8_IGEMM_4X16C4_NEONDOT_H_ */
