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
 * Why 6 x 64 (measured on this project's x86 machine, Emerald Rapids, one thread, L1/L2-resident
 * panels, 1x1 128>128, 1x1 64>256 and 3x3 64>128 shapes; the kernels alone): 4x64, 6x64 and
 * 7x64 ran 355-390 GMAC/s (the two 512-bit multiply ports at about 3 GHz: 128 MACs a cycle are
 * 390), 8x32, 12x32 and 14x32 265-345; 7x64 needs 33 registers with the int8 XOR mask, and 4x64
 * ran 15-30% slower than 6 rows on 16- and 32-column layers (more broadcasts per multiply).
 *
 * Remainders. Rows past mr re-read row mr - 1 (valid memory) and are not stored. Each row is read
 * for exactly kc bytes: the last kc % 4 are a masked load (fault-suppressed), and the lanes past
 * kc meet B's zero padding. Only nr columns are stored (masked stores).
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

enum { kMR = 6, kNR = 64, kPanelQuadBytes = kNR * 4 };

/* The 4 bytes of A at p for one k quad, in every int32 lane, XORed with `flip` when `flip_a`. */
QWINO_INLINE __m512i broadcast_quad(const uint8_t* p, __m512i flip, int flip_a) {
  int32_t quad;
  memcpy(&quad, p, sizeof(quad));
  const __m512i a = _mm512_set1_epi32(quad);
  return flip_a ? _mm512_xor_si512(a, flip) : a;
}

/* The last r = 1..3 bytes of a row (exactly those read), zeros above, in every int32 lane. */
QWINO_INLINE __m512i broadcast_tail(const uint8_t* p, size_t r, __m512i flip, int flip_a) {
  const __m128i bytes = _mm_maskz_loadu_epi8((__mmask16) ((1u << r) - 1), p);
  const __m512i a = _mm512_broadcastd_epi32(bytes);
  return flip_a ? _mm512_xor_si512(a, flip) : a;
}

/* acc[i][j] += A quad of row i x B register j, for the `registers` column registers in use. */
QWINO_INLINE void multiply_quad(__m512i acc[kMR][4], const __m512i va[kMR], const int8_t* w,
                                int registers) {
  __m512i b[4];
#pragma GCC unroll 4
  for (int j = 0; j < registers; j++) {
    b[j] = _mm512_loadu_si512(w + 64 * j);
  }
#pragma GCC unroll 6
  for (int i = 0; i < kMR; i++) {
#pragma GCC unroll 4
    for (int j = 0; j < registers; j++) {
      acc[i][j] = _mm512_dpbusd_epi32(acc[i][j], va[i], b[j]);
    }
  }
}

QWINO_INLINE void igemm(size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t* const* a,
                        size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                        const int8_t* packed_b, int32_t* c, size_t c_stride, int registers,
                        int flip_a) {
  __m512i acc[kMR][4];
#pragma GCC unroll 6
  for (int i = 0; i < kMR; i++) {
#pragma GCC unroll 4
    for (int j = 0; j < registers; j++) {
      acc[i][j] = _mm512_setzero_si512();
    }
  }
  const __m512i flip = _mm512_set1_epi8((char) (a_sign ^ 0x80));
  /* Rows past mr read row mr - 1's pointers. */
  size_t row_start[kMR];
#pragma GCC unroll 6
  for (int i = 0; i < kMR; i++) {
    row_start[i] = ((size_t) i < mr ? (size_t) i : mr - 1) * ks;
  }
  const size_t tail = kc % 4;
  const int8_t* w = packed_b;
  for (size_t t = 0; t < ks; t++) {
    const uint8_t* r[kMR];
#pragma GCC unroll 6
    for (int i = 0; i < kMR; i++) {
      const uint8_t* row = a[row_start[i] + t];
      r[i] = row == zero ? row : row + a_offset;
    }
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) {
      __m512i va[kMR];
#pragma GCC unroll 6
      for (int i = 0; i < kMR; i++) {
        va[i] = broadcast_quad(r[i] + k, flip, flip_a);
      }
      multiply_quad(acc, va, w, registers);
      w += kPanelQuadBytes;
    }
    if (tail != 0) {
      __m512i va[kMR];
#pragma GCC unroll 6
      for (int i = 0; i < kMR; i++) {
        va[i] = broadcast_tail(r[i] + k, tail, flip, flip_a);
      }
      multiply_quad(acc, va, w, registers);
      w += kPanelQuadBytes;
    }
  }
#pragma GCC unroll 6
  for (int i = 0; i < kMR; i++) {
    if ((size_t) i < mr) {
#pragma GCC unroll 4
      for (int j = 0; j < registers; j++) {
        const size_t first = 16 * (size_t) j;
        const size_t columns = nr - first < 16 ? nr - first : 16;
        _mm512_mask_storeu_epi32(c + i * c_stride + first, (__mmask16) ((1u << columns) - 1),
                                 acc[i][j]);
      }
    }
  }
}

#define QWINO_IGEMM_REGISTERS(registers)                                                      \
  if (flip_a) {                                                                               \
    igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, registers, 1);    \
  } else {                                                                                    \
    igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, registers, 0);    \
  }

void qwino_s8_igemm_abias128_ukernel_6x64c4__avx512vnni(
    size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t* const* a, size_t a_offset,
    const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b, int32_t* c, size_t c_stride) {
  const int flip_a = a_sign != 0x80;
  if (nr > 48) {
    QWINO_IGEMM_REGISTERS(4)
  } else if (nr > 32) {
    QWINO_IGEMM_REGISTERS(3)
  } else if (nr > 16) {
    QWINO_IGEMM_REGISTERS(2)
  } else {
    QWINO_IGEMM_REGISTERS(1)
  }
}
