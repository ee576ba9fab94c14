/*
 * 6x16 8-bit indirect GEMM micro-kernel, AVX2 + AVX-VNNI (VEX-encoded VPDPBUSD on ymm), k
 * interleave 4, A biased by 128: bit-exact twin of qwino_s8_igemm_abias128_ukernel_4x4c16__scalar
 * (src/s8-igemm/s8-igemm-4x4c16-scalar.c; contract: qwino_igemm_ukernel_fn in
 * src/qwino/ukernel-types.h with the list entry's a_bias of 128). For the CPUs with AVX-VNNI and
 * no AVX-512 (Intel's client cores since Alder Lake), where the AVX2 kernel widens to int16 and
 * multiplies with VPMADDWD: 16 MACs and an add per pair of instructions against 32 per VPDPBUSD.
 *
 * Why biased: as in the AVX-512 VNNI kernel (src/s8-igemm/s8-igemm-abias128-6x64c4-avx512vnni.c,
 * whose top comment has the argument): VPDPBUSD multiplies u = byte ^ a_sign ^ 0x80, the A value
 * plus 128, by the signed weight, exactly and modulo 2^32, and the operator folds 128 x the
 * column's weight sum into the bias at create. uint8 activations need no XOR; int8 ones one VPXOR
 * per broadcast.
 *
 * Scheme. Packed B with KR = 4 is VPDPBUSD's operand layout: per 4 k, 16 columns x 4 values are
 * 64 contiguous bytes, two ymm registers of 8 columns each. Per 4 k of a tap: 2 B loads, 6 A
 * broadcasts (VPBROADCASTD from memory: a load, no vector ALU slot) and 12 VPDPBUSD for 384
 * MACs, in 12 accumulators + 2 B + 1 A registers (+ the XOR mask) of the 16. A tile of nr <= 8
 * columns runs with one register of columns and skips the panel's other 32 bytes per quad.
 *
 * Remainders. Rows past mr re-read row mr - 1 (valid memory) and are not stored. Each row is read
 * for exactly kc bytes: the last kc % 4 through 1- and 2-byte loads (qwino/partial-loads.h), and
 * the lanes past kc meet B's zero padding. Only nr columns are stored (VPMASKMOVD).
 */
#include <immintrin.h>

#include "qwino/ukernels.h"
#include "s8-igemm/s8-igemm-abias128-6x16c4-avxvnni.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* Lanes 0..columns-1 set (columns 0..8). */
QWINO_INLINE __m256i column_mask(size_t columns) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)columns),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

QWINO_INLINE void igemm(size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t* const* a,
                        size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                        const int8_t* packed_b, int32_t* c, size_t c_stride, int registers,
                        int flip_a) {
  __m256i acc[kQwinoVnniIgemmMR][2];
  qwino_vnni_igemm_zero(acc, registers);
  qwino_vnni_igemm_accumulate(acc, mr, kc, ks, a, a_offset, zero, a_sign, packed_b, registers,
                              flip_a, 0);
  const size_t last = nr - 8 * (size_t)(registers - 1); /* columns of the last register, 1..8 */
  const __m256i last_mask = column_mask(last);
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
    if ((size_t)i < mr) {
      int32_t* row = c + i * c_stride;
      if (registers == 2) {
        _mm256_storeu_si256((__m256i*)row, acc[i][0]);
      }
      int* tail = (int*)(row + 8 * (registers - 1));
      if (last == 8) {
        _mm256_storeu_si256((__m256i*)tail, acc[i][registers - 1]);
      } else {
        _mm256_maskstore_epi32(tail, last_mask, acc[i][registers - 1]);
      }
    }
  }
}

void qwino_s8_igemm_abias128_ukernel_6x16c4__avxvnni(size_t mr, size_t nr, size_t kc, size_t ks,
                                                     const uint8_t* const* a, size_t a_offset,
                                                     const uint8_t* zero, uint8_t a_sign,
                                                     const int8_t* packed_b, int32_t* c,
                                                     size_t c_stride) {
#define QWINO_IGEMM_BODY(registers, flip_a) \
  igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, registers, flip_a)
  QWINO_VNNI_IGEMM_DISPATCH(nr, a_sign, QWINO_IGEMM_BODY);
#undef QWINO_IGEMM_BODY
}
