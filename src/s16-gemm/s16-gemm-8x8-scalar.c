/*
 * 8x8 int16 x int16 -> int32 GEMM micro-kernel, portable C: the reference for every SIMD twin.
 *
 * B is packed in panels of 8 columns, k-major, with k padded to a multiple of 4 by zeros
 * (doc/DESIGN.md section 3). Products and sums wrap modulo 2^32 exactly like SMLAL: the Winograd
 * result is exact in that ring, so the wrap is harmless, and doing it in uint32_t keeps the C
 * code free of signed-overflow undefined behaviour.
 */
#include "qwino/ukernels.h"

void qwino_s16_gemm_ukernel_8x8__scalar(size_t mr, size_t nr, size_t k, const int16_t* a,
                                        size_t a_stride, const int16_t* packed_b, int32_t* c,
                                        size_t c_stride) {
  for (size_t i = 0; i < mr; i++) {
    uint32_t accumulators[8] = {0};
    const int16_t* a_row = a + i * a_stride;
    for (size_t kk = 0; kk < k; kk++) {
      const int32_t a_value = a_row[kk];
      for (size_t j = 0; j < 8; j++) {
        accumulators[j] += (uint32_t)(a_value * (int32_t)packed_b[kk * 8 + j]);
      }
    }
    for (size_t j = 0; j < nr; j++) {
      c[i * c_stride + j] = (int32_t)accumulators[j];
    }
  }
}
