/*
 * The int32 stores and entry points of the 4x16 NEON indirect GEMM kernels, for a file that
 * defines QWINO_4X16_ACCUMULATE (qwino_dot_igemm_accumulate, SDOT/UDOT, or
 * qwino_i8mm_igemm_accumulate, SMMLA/UMMLA: the same arguments and the same row layout of the
 * tile) and then expands QWINO_4X16_IGEMM_ENTRY for the kernel with a_bias and b_bias 0 and for
 * the one with both 128 (the unsigned multiply), each instantiated without the A XOR where its
 * a_sign makes it unneeded.
 */
#ifndef QWINO_S8_IGEMM_4X16_NEON_ENTRIES_H_
#define QWINO_S8_IGEMM_4X16_NEON_ENTRIES_H_

#include <arm_neon.h>
#include <string.h>

#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

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
                        const int8_t* packed_b, int32_t* c, size_t c_stride, int flip,
                        int unsigned_multiply) {
  const int32x4_t z = vdupq_n_s32(0);
  struct qwino_dot_igemm_acc acc = {z, z, z, z, z, z, z, z, z, z, z, z, z, z, z, z};
  acc = QWINO_4X16_ACCUMULATE(acc, mr, kc, ks, a, a_offset, zero, a_sign, packed_b, flip, 0,
                              unsigned_multiply, 0);
  store_row(c, nr, acc.r0c0, acc.r0c1, acc.r0c2, acc.r0c3);
  if (mr > 1) store_row(c + c_stride, nr, acc.r1c0, acc.r1c1, acc.r1c2, acc.r1c3);
  if (mr > 2) store_row(c + 2 * c_stride, nr, acc.r2c0, acc.r2c1, acc.r2c2, acc.r2c3);
  if (mr > 3) store_row(c + 3 * c_stride, nr, acc.r3c0, acc.r3c1, acc.r3c2, acc.r3c3);
}

/* An entry point: unsigned_value 0 for the kernel with a_bias and b_bias 0 (no XOR at a_sign
 * 0), 1 for the one with both 128 (no XOR at a_sign 0x80). */
#define QWINO_4X16_IGEMM_ENTRY(name, unsigned_value)                                              \
  void name(size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t* const* a, size_t a_offset, \
            const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b, int32_t* c,              \
            size_t c_stride) {                                                                    \
    const int flip = a_sign != ((unsigned_value) ? 0x80 : 0);                                     \
    if (flip) {                                                                                   \
      igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, 1, unsigned_value); \
    } else {                                                                                      \
      igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, 0, unsigned_value); \
    }                                                                                             \
  }

#endif /* QWINO_S8_IGEMM_4X16_NEON_ENTRIES_H_ */
