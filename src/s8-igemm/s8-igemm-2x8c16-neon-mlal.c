/*
 * 2x8 8-bit indirect GEMM micro-kernel, NEON, k interleave 16 (c16): bit-exact twin of
 * src/s8-igemm/s8-igemm-4x4c16-scalar.c (contract: qwino_igemm_ukernel_fn in
 * src/qwino/ukernel-types.h). The accumulation, its exactness and its A72 throughput are
 * src/s8-igemm/s8-igemm-2x8c16-neon-mlal.h; this kernel stores the mr x nr block of the sums.
 */
#include <arm_neon.h>

#include "qwino/ukernels.h"
#include "s8-igemm/s8-igemm-2x8c16-neon-mlal.h"

/* The first nr (1..8) of the 8 sums lo (columns 0-3), hi (4-7) at out. */
static inline void store_row(int32_t* out, size_t nr, int32x4_t lo, int32x4_t hi) {
  if (nr == 8) {
    vst1q_s32(out, lo);
    vst1q_s32(out + 4, hi);
    return;
  }
  int32x4_t v = lo;
  if (nr & 4) {
    vst1q_s32(out, v);
    out += 4;
    v = hi;
  }
  if (nr & 2) {
    vst1_s32(out, vget_low_s32(v));
    out += 2;
    v = vextq_s32(v, v, 2);
  }
  if (nr & 1) {
    vst1q_lane_s32(out, v, 0);
  }
}

void qwino_s8_igemm_ukernel_2x8c16__neon_mlal(size_t mr, size_t nr, size_t kc, size_t ks,
                                              const uint8_t* const* a, size_t a_offset,
                                              const uint8_t* zero, uint8_t a_sign,
                                              const int8_t* packed_b, int32_t* c, size_t c_stride) {
  static const int32_t zeros[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const struct qwino_mlal_igemm_rows rows = {mr, kc, ks, a, a_offset, zero, a_sign};
  const struct qwino_mlal_igemm_sums sums = qwino_mlal_igemm_choose(&rows)(&rows, packed_b, zeros);
  store_row(c, nr, sums.r0lo, sums.r0hi);
  if (mr == 2) {
    store_row(c + c_stride, nr, sums.r1lo, sums.r1hi);
  }
}
