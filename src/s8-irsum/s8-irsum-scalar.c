/*
 * Row sums of the indirect GEMM's A, portable C: the twin every SIMD kernel of
 * src/s8-irsum/s8-irsum.inc is compared with (contract: qwino_irsum_ukernel_fn in
 * src/qwino/ukernel-types.h).
 *
 * It reads A exactly as src/s8-igemm/s8-igemm-4x4c16-scalar.c does: the pointer of row i and
 * tap t at a[i * ks + t], taken as it is when it equals `zero` (a padding tap) and advanced by
 * a_offset otherwise, kc bytes from there, each turned into (int8_t) (byte ^ a_sign). The sum
 * runs in uint32_t, so it wraps modulo 2^32 like the int32 it is stored as, free of
 * signed-overflow undefined behaviour.
 */
#include "qwino/ukernels.h"

void qwino_s8_irsum_ukernel__scalar(size_t rows, size_t kc, size_t ks, const uint8_t* const* a,
                                    size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                                    int32_t* sums) {
  for (size_t i = 0; i < rows; i++) {
    uint32_t sum = 0;
    for (size_t t = 0; t < ks; t++) {
      const uint8_t* row = a[i * ks + t];
      if (row != zero) {
        row += a_offset;
      }
      for (size_t k = 0; k < kc; k++) {
        sum += (uint32_t)(int32_t)(int8_t)(row[k] ^ a_sign);
      }
    }
    sums[i] = (int32_t)sum;
  }
}
