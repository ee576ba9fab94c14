/*
 * Row sums of the indirect GEMM's A, ARMv8.2 dot product: bit-exact twin of
 * src/s8-irsum/s8-irsum-scalar.c (contract: qwino_irsum_ukernel_fn in src/qwino/ukernel-types.h).
 * Built with -march=armv8.2-a+dotprod (its file name's suffix) and run only where cpuinfo
 * reports it.
 *
 * A dot product with a vector of ones adds 16 bytes into four int32 lanes in one instruction,
 * where the NEON kernel (src/s8-irsum/s8-irsum-neon.c) needs an EOR, a pairwise add into int16
 * and, now and then, a widening one: on Neoverse N1 the row sums share the vector pipes with the
 * SDOT GEMM they serve, so halving their vector operations is what counts. The two values of
 * a_sign the operator passes need no EOR at all: 0x80 (uint8 activations on the taps' pointers,
 * A = byte - 128): UDOT of the bytes, less 128 per byte once per row; 0 (int8 bytes, and the
 * gathered rows, which hold A already): SDOT of the bytes. Any other a_sign takes the EOR to
 * the unsigned A + 128 first. The int32 lanes wrap modulo 2^32, as the contract's sums do.
 *
 * Exactly kc bytes are read at each pointer: 16-byte loads, an 8-byte one, then the last 1..7
 * bytes as power-of-two pieces (src/qwino/partial-loads.h) with zeros above them, which add 0
 * to the dot products; with the EOR they hold the XOR's constant instead, whose known sum comes
 * off once per row.
 */
#include <arm_neon.h>

#include "qwino/partial-loads.h"
#include "qwino/ukernels.h"
#include "s8-irsum/s8-irsum-excess.h"

#define QWINO_IRSUM_INLINE static inline __attribute__((always_inline))

enum { kIrsumRaw, kIrsumSigned, kIrsumFlipped };

/* 16 bytes as the dot product's operand: the bytes themselves, or XOR flip. */
QWINO_IRSUM_INLINE uint8x16_t operand16(uint8x16_t bytes, uint8x16_t flip, int form) {
  return form == kIrsumFlipped ? veorq_u8(bytes, flip) : bytes;
}
QWINO_IRSUM_INLINE uint8x8_t operand8(uint8x8_t bytes, uint8x16_t flip, int form) {
  return form == kIrsumFlipped ? veor_u8(bytes, vget_low_u8(flip)) : bytes;
}
QWINO_IRSUM_INLINE uint32x4_t dot16(uint32x4_t acc, uint8x16_t v, int form) {
  if (form == kIrsumSigned) {
    return vreinterpretq_u32_s32(
        vdotq_s32(vreinterpretq_s32_u32(acc), vreinterpretq_s8_u8(v), vdupq_n_s8(1)));
  }
  return vdotq_u32(acc, v, vdupq_n_u8(1));
}
QWINO_IRSUM_INLINE uint32x2_t dot8(uint32x2_t acc, uint8x8_t v, int form) {
  if (form == kIrsumSigned) {
    return vreinterpret_u32_s32(
        vdot_s32(vreinterpret_s32_u32(acc), vreinterpret_s8_u8(v), vdup_n_s8(1)));
  }
  return vdot_u32(acc, v, vdup_n_u8(1));
}

QWINO_IRSUM_INLINE void irsum(size_t rows, size_t kc, size_t ks, const uint8_t* const* a,
                              size_t a_offset, const uint8_t* zero, uint8_t a_sign, int32_t* sums,
                              int form) {
  const uint8x16_t flip = vdupq_n_u8((uint8_t)(a_sign ^ 0x80));
  /* The SDOT form adds A itself; the others add A + 128, the tails' lanes past the row holding
   * the EOR's constant (0 without the EOR: a_sign ^ 0x80 is 0 in the raw form). */
  const uint32_t correction =
      form == kIrsumSigned ? 0 : qwino_irsum_excess(kc, ks, 8, (uint8_t)(a_sign ^ 0x80));
  for (size_t i = 0; i < rows; i++) {
    const uint8_t* const* pointers = a + i * ks;
    uint32x4_t acc0 = vdupq_n_u32(0), acc1 = vdupq_n_u32(0);
    uint32x2_t acc8 = vdup_n_u32(0);
    for (size_t t = 0; t < ks; t++) {
      const uint8_t* p = pointers[t];
      if (p != zero) {
        p += a_offset;
      }
      size_t n = kc;
      for (; n >= 32; n -= 32, p += 32) {
        acc0 = dot16(acc0, operand16(vld1q_u8(p), flip, form), form);
        acc1 = dot16(acc1, operand16(vld1q_u8(p + 16), flip, form), form);
      }
      if (n >= 16) {
        acc0 = dot16(acc0, operand16(vld1q_u8(p), flip, form), form);
        p += 16;
        n -= 16;
      }
      if (n >= 8) {
        acc8 = dot8(acc8, operand8(vld1_u8(p), flip, form), form);
        p += 8;
        n -= 8;
      }
      if (n != 0) {
        acc8 = dot8(acc8, operand8(vcreate_u8(qwino_load_upto8(p, n)), flip, form), form);
      }
    }
    const uint32_t total = vaddvq_u32(vaddq_u32(acc0, acc1)) + vaddv_u32(acc8);
    sums[i] = (int32_t)(total - correction);
  }
}

void qwino_s8_irsum_ukernel__neondot(size_t rows, size_t kc, size_t ks, const uint8_t* const* a,
                                     size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                                     int32_t* sums) {
  if (a_sign == 0x80) {
    irsum(rows, kc, ks, a, a_offset, zero, a_sign, sums, kIrsumRaw);
  } else if (a_sign == 0) {
    irsum(rows, kc, ks, a, a_offset, zero, a_sign, sums, kIrsumSigned);
  } else {
    irsum(rows, kc, ks, a, a_offset, zero, a_sign, sums, kIrsumFlipped);
  }
}
