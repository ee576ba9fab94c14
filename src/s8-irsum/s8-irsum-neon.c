/*
 * Row sums of the indirect GEMM's A, NEON: bit-exact twin of src/s8-irsum/s8-irsum-scalar.c
 * (contract: qwino_irsum_ukernel_fn in src/qwino/ukernel-types.h).
 *
 * EOR with a_sign turns 16 bytes into the int8 values A directly, and SADALP (vpadalq_s8) adds
 * neighbouring pairs of them into the 8 int16 lanes of an accumulator: one instruction per 16
 * bytes after the EOR, as the 8-bit indirect GEMM's NEON kernel accumulates its products
 * (src/s8-igemm/s8-igemm-2x8c16-neon-mlal.c). A pair lies in [-256, 254], so an int16 lane
 * holds 64 such adds (at most 16384 in magnitude) with room to spare: every 64 blocks of 16
 * bytes, and at the end of each tap's row, a second SADALP (vpadalq_s16) widens the int16 lanes
 * into int32x4, whose adds wrap modulo 2^32 as the contract's sums do, and so does the final
 * ADDV. The 32-byte steps use two int16 accumulators, so consecutive SADALPs do not wait on one
 * another.
 *
 * Exactly kc bytes are read at each pointer: 16-byte loads while 16 bytes remain, then the last
 * 1..15 as an 8-byte load and power-of-two pieces (src/qwino/partial-loads.h); the lanes past
 * the row hold a_sign after the EOR, and a mask clears them before they are added.
 */
#include <arm_neon.h>

#include "qwino/partial-loads.h"
#include "qwino/ukernels.h"

/* 16 bytes 0xFF, then 16 zeros: the 16 bytes at kLaneMask + 16 - n keep the first n lanes. */
static const uint8_t kLaneMask[32] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

/* The 1..15 bytes at p in the low lanes, zeros above; reads exactly n bytes. */
static inline __attribute__((always_inline)) uint8x16_t load_tail(const uint8_t* p, size_t n) {
  if (n & 8) {
    return vcombine_u8(vld1_u8(p), vcreate_u8(qwino_load_upto8(p + 8, n & 7)));
  }
  return vcombine_u8(vcreate_u8(qwino_load_upto8(p, n)), vdup_n_u8(0));
}

void qwino_s8_irsum_ukernel__neon(size_t rows, size_t kc, size_t ks, const uint8_t* const* a,
                                  size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                                  int32_t* sums) {
  /* Blocks of 16 bytes an int16 accumulator takes before it is widened (see above). */
  enum { kMaxBlocks = 64 };
  const uint8x16_t sign = vdupq_n_u8(a_sign);
  const size_t tail = kc & 15;
  const uint8x16_t tail_mask = vld1q_u8(kLaneMask + 16 - tail);
  for (size_t i = 0; i < rows; i++) {
    const uint8_t* const* pointers = a + i * ks;
    int32x4_t acc = vdupq_n_s32(0);
    for (size_t t = 0; t < ks; t++) {
      const uint8_t* p = pointers[t];
      if (p != zero) {
        p += a_offset;
      }
      size_t n = kc;
      while (n >= 32) {
        /* Pairs of blocks, each int16 accumulator taking one block of the pair. */
        size_t pairs = QWINO_MIN(n / 32, (size_t)kMaxBlocks);
        n -= pairs * 32;
        int16x8_t acc0 = vdupq_n_s16(0);
        int16x8_t acc1 = vdupq_n_s16(0);
        do {
          const int8x16_t x0 = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(p), sign));
          const int8x16_t x1 = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(p + 16), sign));
          p += 32;
          acc0 = vpadalq_s8(acc0, x0);
          acc1 = vpadalq_s8(acc1, x1);
        } while (--pairs != 0);
        acc = vpadalq_s16(acc, acc0);
        acc = vpadalq_s16(acc, acc1);
      }
      if (n >= 16) {
        const int8x16_t x = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(p), sign));
        acc = vpadalq_s16(acc, vpaddlq_s8(x));
        p += 16;
        n -= 16;
      }
      if (n != 0) {
        const uint8x16_t u = vandq_u8(veorq_u8(load_tail(p, n), sign), tail_mask);
        acc = vpadalq_s16(acc, vpaddlq_s8(vreinterpretq_s8_u8(u)));
      }
    }
    sums[i] = (int32_t)vaddvq_u32(vreinterpretq_u32_s32(acc));
  }
}
