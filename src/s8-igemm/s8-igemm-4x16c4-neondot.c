/*
 * 4x16 8-bit indirect GEMM micro-kernel, ARMv8.2 dot product (SDOT), k interleave 4 (c4):
 * bit-exact twin of src/s8-igemm/s8-igemm-4x4c16-scalar.c (contract: qwino_igemm_ukernel_fn in
 * src/qwino/ukernel-types.h), for the dot-product cores (Cortex-A55/A76, Neoverse N1: doc/DESIGN.md
 * section 6). Built with -march=armv8.2-a+dotprod (its file name's -neondot suffix, CMakeLists.txt)
 * and run only where cpuinfo reports the extension (src/init.cc), so the library still runs on
 * ARMv8.0.
 *
 * Packed B with KR = 4 is SDOT's operand layout: per 4 k, the 16 columns' 4 values each are 64
 * contiguous bytes, i.e. 4 q registers of 4 columns x 4 k. One SDOT by element multiplies such a
 * register by 4 k of one A row (a 32-bit lane of the A register) and adds the four products of
 * each column into its int32 lane: 16 MACs. Per 8 k the 4 x 16 tile takes 4 A loads (8 bytes a
 * row), 8 B loads and 32 SDOTs for 512 MACs. On Neoverse N1 SDOT issues on both ASIMD pipes, so
 * the loop is SDOT-bound at 32 MACs per cycle with 44 instructions per 16 cycles (under the
 * 4-wide decode). The 16 accumulators plus 4 B and 4 A registers fit the 32 vector registers.
 *
 * Exactness: SDOT multiplies int8 by int8 into int32 exactly and adds modulo 2^32 (the
 * accumulators wrap like the contract's); a = (int8_t) (byte ^ a_sign), the XOR done on the A
 * vector (skipped when a_sign == 0: int8 activations). Bytes past kc in a row are never read: the
 * last kc % 8 bytes are loaded as the row's last 8 bytes shifted into place when kc >= 8, or
 * assembled from 4-, 2- and 1-byte loads; the lanes past kc meet B's zero padding. Rows past mr
 * re-read row mr - 1 (valid memory) and are not stored; columns past nr are B's zero padding and
 * are not stored.
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* The r = 1..7 bytes at p (p[0..r) only), in lanes 0..r-1, zeros above; kc >= 8 allows reading
 * the 8 bytes that end at p + r (the row's last 8). */
QWINO_INLINE uint8x8_t load_row_tail(const uint8_t* p, size_t r, int long_row) {
  if (long_row) {
    const uint8x8_t last8 = vld1_u8(p + r - 8);
    return vreinterpret_u8_u64(
        vshl_u64(vreinterpret_u64_u8(last8), vdup_n_s64(-(int64_t) (8 * (8 - r)))));
  }
  uint64_t bits = 0;
  size_t at = 0;
  if (r & 4) {
    uint32_t v;
    memcpy(&v, p, 4);
    bits = v;
    at = 4;
  }
  if (r & 2) {
    uint16_t v;
    memcpy(&v, p + at, 2);
    bits |= (uint64_t) v << (8 * at);
    at += 2;
  }
  if (r & 1) {
    bits |= (uint64_t) p[at] << (8 * at);
  }
  return vcreate_u8(bits);
}

/* acc[i][0..3] += 16 columns x 4 k of B (b0..b3) times the 4 k in lane `lane` of a_i. */
#define QWINO_DOT_ROW(i, lane)                                                               \
  acc##i##0 = vdotq_lane_s32(acc##i##0, b0, a##i, lane);                                    \
  acc##i##1 = vdotq_lane_s32(acc##i##1, b1, a##i, lane);                                    \
  acc##i##2 = vdotq_lane_s32(acc##i##2, b2, a##i, lane);                                    \
  acc##i##3 = vdotq_lane_s32(acc##i##3, b3, a##i, lane);
#define QWINO_DOT_BLOCK(lane)                                                                \
  do {                                                                                       \
    const int8x16_t b0 = vld1q_s8(w);                                                        \
    const int8x16_t b1 = vld1q_s8(w + 16);                                                   \
    const int8x16_t b2 = vld1q_s8(w + 32);                                                   \
    const int8x16_t b3 = vld1q_s8(w + 48);                                                   \
    w += 64;                                                                                 \
    QWINO_DOT_ROW(0, lane)                                                                   \
    QWINO_DOT_ROW(1, lane)                                                                   \
    QWINO_DOT_ROW(2, lane)                                                                   \
    QWINO_DOT_ROW(3, lane)                                                                   \
  } while (0)

QWINO_INLINE int8x8_t signed_a(uint8x8_t bytes, uint8x8_t sign, int flip) {
  return vreinterpret_s8_u8(flip ? veor_u8(bytes, sign) : bytes);
}

QWINO_INLINE void store_row(int32_t* out, size_t nr, int32x4_t v0, int32x4_t v1, int32x4_t v2,
                            int32x4_t v3) {
  if (nr == 16) {
    vst1q_s32(out, v0);
    vst1q_s32(out + 4, v1);
    vst1q_s32(out + 8, v2);
    vst1q_s32(out + 12, v3);
    return;
  }
  int32_t full[16];
  vst1q_s32(full, v0);
  vst1q_s32(full + 4, v1);
  vst1q_s32(full + 8, v2);
  vst1q_s32(full + 12, v3);
  memcpy(out, full, nr * sizeof(int32_t));
}

QWINO_INLINE void igemm(size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t* const* a,
                        size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                        const int8_t* packed_b, int32_t* c, size_t c_stride, int flip) {
  int32x4_t acc00 = vdupq_n_s32(0), acc01 = acc00, acc02 = acc00, acc03 = acc00;
  int32x4_t acc10 = acc00, acc11 = acc00, acc12 = acc00, acc13 = acc00;
  int32x4_t acc20 = acc00, acc21 = acc00, acc22 = acc00, acc23 = acc00;
  int32x4_t acc30 = acc00, acc31 = acc00, acc32 = acc00, acc33 = acc00;
  const uint8x8_t sign = vdup_n_u8(a_sign);
  /* Rows past mr read row mr - 1's pointers. */
  const size_t row1 = mr > 1 ? ks : 0;
  const size_t row2 = mr > 2 ? 2 * ks : row1;
  const size_t row3 = mr > 3 ? 3 * ks : row2;
  const int long_row = kc >= 8;
  const size_t tail = kc % 8;
  const int8_t* w = packed_b;
  for (size_t t = 0; t < ks; t++) {
    const uint8_t* r0 = a[t];
    const uint8_t* r1 = a[row1 + t];
    const uint8_t* r2 = a[row2 + t];
    const uint8_t* r3 = a[row3 + t];
    r0 = r0 == zero ? r0 : r0 + a_offset;
    r1 = r1 == zero ? r1 : r1 + a_offset;
    r2 = r2 == zero ? r2 : r2 + a_offset;
    r3 = r3 == zero ? r3 : r3 + a_offset;
    size_t k = 0;
    for (; k + 8 <= kc; k += 8) {
      const int8x8_t a0 = signed_a(vld1_u8(r0 + k), sign, flip);
      const int8x8_t a1 = signed_a(vld1_u8(r1 + k), sign, flip);
      const int8x8_t a2 = signed_a(vld1_u8(r2 + k), sign, flip);
      const int8x8_t a3 = signed_a(vld1_u8(r3 + k), sign, flip);
      QWINO_DOT_BLOCK(0);
      QWINO_DOT_BLOCK(1);
    }
    if (tail != 0) {
      const int8x8_t a0 = signed_a(load_row_tail(r0 + k, tail, long_row), sign, flip);
      const int8x8_t a1 = signed_a(load_row_tail(r1 + k, tail, long_row), sign, flip);
      const int8x8_t a2 = signed_a(load_row_tail(r2 + k, tail, long_row), sign, flip);
      const int8x8_t a3 = signed_a(load_row_tail(r3 + k, tail, long_row), sign, flip);
      /* Lanes past kc hold the sign byte (0 ^ a_sign) or 0: B's padding makes them 0. */
      QWINO_DOT_BLOCK(0);
      if (tail > 4) {
        QWINO_DOT_BLOCK(1);
      }
    }
  }
  store_row(c, nr, acc00, acc01, acc02, acc03);
  if (mr > 1) store_row(c + c_stride, nr, acc10, acc11, acc12, acc13);
  if (mr > 2) store_row(c + 2 * c_stride, nr, acc20, acc21, acc22, acc23);
  if (mr > 3) store_row(c + 3 * c_stride, nr, acc30, acc31, acc32, acc33);
}

void qwino_s8_igemm_ukernel_4x16c4__neondot(size_t mr, size_t nr, size_t kc, size_t ks,
                                            const uint8_t* const* a, size_t a_offset,
                                            const uint8_t* zero, uint8_t a_sign,
                                            const int8_t* packed_b, int32_t* c,
                                            size_t c_stride) {
  if (a_sign == 0) {
    igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, 0);
  } else {
    igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, 1);
  }
}
