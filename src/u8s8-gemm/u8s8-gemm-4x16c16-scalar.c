/*
 * Scalar twin of the pair GEMM (src/u8s8-gemm/u8s8-gemm.inc): qwino_u8s8_gemm_ukernel_fn's
 * products and sums in plain C. Every product u8 x s8 is exact and the sums are taken modulo 2^32
 * (uint32_t), as the SIMD kernels' int32 lanes wrap; the SIMD kernels equal it wherever the
 * packing's pair proof holds, which their tester checks over every remainder.
 */
#include <stdint.h>

#include "qwino/ukernels.h"

void qwino_u8s8_gemm_ukernel_4x16c16__scalar(size_t mr, size_t nr, size_t blocks, const uint8_t* a,
                                             size_t a_stride, const struct qwino_pair_block* block,
                                             uint8_t sign, const void* packed_b, int32_t* c,
                                             size_t c_stride) {
  const int32_t* init = (const int32_t*)packed_b;
  const int8_t* b = (const int8_t*)(init + QWINO_U8S8_GEMM_NR);
  for (size_t r = 0; r < mr; r++) {
    for (size_t n = 0; n < nr; n++) {
      uint32_t sum = (uint32_t)init[n];
      for (size_t e = 0; e < blocks; e++) {
        for (size_t i = 0; i < 16; i++) {
          const uint8_t x =
              (uint8_t)(a[r * a_stride + block[e].source + block[e].shuffle[i]] ^ sign);
          sum += (uint32_t)((int32_t)x * (int32_t)b[e * 256 + qwino_pair_b_index(n, i)]);
        }
      }
      c[r * c_stride + n] = (int32_t)sum;
    }
  }
}
