/*
 * 6x64 8-bit indirect GEMM micro-kernel, AVX-512 VNNI (VPDPBUSD), k interleave 4, A biased by
 * 128: bit-exact twin of qwino_s8_igemm_abias128_ukernel_4x4c16__scalar
 * (src/s8-igemm/s8-igemm-4x4c16-scalar.c; contract: qwino_igemm_ukernel_fn in
 * src/qwino/ukernel-types.h with the list entry's a_bias of 128).
 *
 * Why biased. VPDPBUSD multiplies unsigned bytes by signed bytes, four products per int32 lane,
 * and adds their sum to the lane: exact (a product of u8 by s8 fits 16 bits, four of them 18) and
 * modulo 2^32 like the contract's sums. Its unsigned operand is A: the kernel multiplies
 * u = (int8_t) (byte ^ a_sign) + 128 = byte ^ a_sign ^ 0x80, which needs no XOR at all for uint8
 * activations (a_sign = 0x80) and one VPXORD per broadcast for int8 ones. The extra 128 x (the
 * column's weight sum) is folded into the bias at create (src/convolution-indirect.cc), so the
 * operator's bytes are the same as with the unbiased kernels. (VPMADDUBSW, the AVX2 instruction
 * of the same shape, saturates its int16 pair sums and is not exact for these operands.)
 *
 * Scheme. Packed B with KR = 4 is VPDPBUSD's operand layout: per 4 k, 64 columns x 4 values are
 * 256 contiguous bytes, four zmm registers of 16 columns each. Per 4 k of a tap: 4 B loads, 6 A
 * broadcasts (VPBROADCASTD from memory: a load, no vector ALU slot) and 24 VPDPBUSD for 1536
 * MACs, with 24 accumulators + 4 B + 1 A register (+ the XOR mask) of the 32. A tile of nr <= 48
 * columns runs the loop with ceil(nr / 16) registers of columns (the panel's other bytes are
 * skipped, not read), so layers of 16 to 48 output channels do not pay for 64.
 *
 * Why 6 x 64: tiles of 64 columns ran near the two 512-bit multiply ports' peak and those of 32
 * below it; 7x64 needs 33 registers with the int8 XOR mask, and 4x64 ran 15-30% slower than 6
 * rows on 16- and 32-column layers (more broadcasts per multiply; doc/PERFORMANCE.md, "Kernel
 * measurements").
 *
 * Remainders. Rows past mr re-read row mr - 1 (valid memory) and are not stored. Each row is read
 * for exactly kc bytes: the last kc % 4 are a masked load (fault-suppressed), and the lanes past
 * kc meet B's zero padding. Only nr columns are stored (masked stores).
 */
#include <immintrin.h>

#include "qwino/ukernels.h"
#include "s8-igemm/s8-igemm-abias128-6x64c4-avx512vnni.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

QWINO_INLINE void igemm(size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t* const* a,
                        size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                        const int8_t* packed_b, int32_t* c, size_t c_stride, int registers,
                        int flip_a, int swap) {
  __m512i acc[kQwinoVnniIgemmMR][4];
  qwino_vnni_igemm_zero(acc, registers);
  qwino_vnni_igemm_accumulate(acc, mr, kc, ks, a, a_offset, zero, a_sign, packed_b, registers,
                              flip_a, swap);
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
    if ((size_t)i < mr) {
#pragma GCC unroll 4
      for (int j = 0; j < registers; j++) {
        const size_t first = 16 * (size_t)j;
        const size_t columns = nr <= first ? 0 : nr - first < 16 ? nr - first : 16;
        _mm512_mask_storeu_epi32(c + i * c_stride + first, (__mmask16)((1u << columns) - 1),
                                 acc[i][j]);
      }
    }
  }
}

void qwino_s8_igemm_abias128_ukernel_6x64c4__avx512vnni(size_t mr, size_t nr, size_t kc, size_t ks,
                                                        const uint8_t* const* a, size_t a_offset,
                                                        const uint8_t* zero, uint8_t a_sign,
                                                        const int8_t* packed_b, int32_t* c,
                                                        size_t c_stride) {
#define QWINO_IGEMM_BODY(registers, flip_a) \
  igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, registers, flip_a, 0)
  QWINO_VNNI_IGEMM_DISPATCH(nr, a_sign, QWINO_IGEMM_BODY);
#undef QWINO_IGEMM_BODY
}

/* B unsigned (packed as its value + 128, the list's b_bias 128) and A signed: int8 activations
 * (a_sign 0) need no XOR. The body for other activations, which the operator never gives this
 * kernel (it takes the one above for them), XORs and runs the full 64-column tile: one body
 * instead of four. */
void qwino_s8_igemm_bbias128_ukernel_6x64c4__avx512vnni(size_t mr, size_t nr, size_t kc, size_t ks,
                                                        const uint8_t* const* a, size_t a_offset,
                                                        const uint8_t* zero, uint8_t a_sign,
                                                        const int8_t* packed_b, int32_t* c,
                                                        size_t c_stride) {
  if (a_sign != 0) {
    igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, 4, 1, 1);
    return;
  }
#define QWINO_IGEMM_BODY(registers, flip_a) \
  igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, registers, 0, 1)
  QWINO_VNNI_IGEMM_DISPATCH(nr, 0x80, QWINO_IGEMM_BODY);
#undef QWINO_IGEMM_BODY
}
