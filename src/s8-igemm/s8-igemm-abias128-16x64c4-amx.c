/*
 * 16x64 8-bit indirect GEMM micro-kernel, AMX-INT8 (TDPBUSD on tiles), k interleave 4, A biased
 * by 128: bit-exact twin of qwino_s8_igemm_abias128_ukernel_4x4c16__scalar
 * (src/s8-igemm/s8-igemm-4x4c16-scalar.c; contract: qwino_igemm_ukernel_fn in
 * src/qwino/ukernel-types.h with the list entry's a_bias of 128). The scheme and the argument are
 * src/s8-igemm/s8-igemm-abias128-16x64c4-amx.h's; the fused forms
 * (src/qu8-igemm/qu8-igemm-abias128-16x64c4-amx.c) are what the operator runs wherever it can,
 * since they configure the tiles once per work item instead of once per 16x64 block. This one
 * serves the layers whose row terms differ per channel, and fixes the panel layout they share.
 */
#include <immintrin.h>

#include "qwino/ukernels.h"
#include "s8-igemm/s8-igemm-abias128-16x64c4-amx.h"

/* Only the mr x nr block of C is written. */
#define QWINO_AMX_STORE_C(m, block_mr, n, nr, block)                 \
  do {                                                               \
    for (size_t i = 0; i < (block_mr); i++) {                        \
      for (size_t j = 0; j < (nr); j += 16) {                        \
        const size_t columns = (nr)-j < 16 ? (nr)-j : 16;            \
        _mm512_mask_storeu_epi32(c + ((m) + i) * c_stride + (n) + j, \
                                 (__mmask16)((1u << columns) - 1),   \
                                 _mm512_load_si512(&(block)[i][j])); \
      }                                                              \
    }                                                                \
  } while (0)

void qwino_s8_igemm_abias128_ukernel_16x64c4__amx(size_t mr, size_t nr, size_t kc, size_t ks,
                                                  const uint8_t* const* a, size_t a_offset,
                                                  const uint8_t* zero, uint8_t a_sign,
                                                  const int8_t* packed_b, int32_t* c,
                                                  size_t c_stride) {
  QWINO_AMX_BLOCKS(mr, nr, kc, ks, a, a_offset, zero, a_sign, NULL, 0, packed_b, QWINO_AMX_STORE_C);
}
