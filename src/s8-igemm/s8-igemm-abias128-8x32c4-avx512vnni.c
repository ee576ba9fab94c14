/*
 * 8x32 8-bit indirect GEMM micro-kernel, AVX-512 VNNI (VPDPBUSD), k interleave 4, A biased by
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
 * Scheme. Packed B with KR = 4 is VPDPBUSD's operand layout: per 4 k, 32 columns x 4 values are
 * 128 contiguous bytes, two zmm registers of 16 columns each. Per 4 k of a tap: 2 B loads, 8 A
 * broadcasts (VPBROADCASTD from memory: a load, no vector ALU slot) and 16 VPDPBUSD for 512 MACs,
 * with 16 accumulators + 2 B + 1 A register (+ the XOR mask) of the 32. Layers with at most 16
 * output channels in the tile run a one-register loop (8 VPDPBUSD per 4 k), so 16- and
 * 24-channel layers do not pay for 32 columns.
 *
 * Remainders. Rows past mr re-read row mr - 1 (valid memory) and are not stored. Each row is read
 * for exactly kc bytes: the last kc % 4 are a masked load (fault-suppressed), and the lanes past
 * kc meet B's zero padding. Only nr columns are stored (masked stores).
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

enum { kMR = 8, kNR = 32 };

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

#define QWINO_ROW_POINTER(i)                                                                   \
  const uint8_t* r##i = a[row##i + t];                                                         \
  r##i = r##i == zero ? r##i : r##i + a_offset;

/* One k quad of every row: A from `load` (k or the tail), B from w (one or two registers). */
#define QWINO_QUAD_ROW(i, LOAD)                                                                \
  {                                                                                            \
    const __m512i va = LOAD(r##i);                                                             \
    acc##i##0 = _mm512_dpbusd_epi32(acc##i##0, va, b0);                                        \
    if (two) acc##i##1 = _mm512_dpbusd_epi32(acc##i##1, va, b1);                               \
  }
#define QWINO_QUAD(LOAD)                                                                       \
  do {                                                                                         \
    const __m512i b0 = _mm512_loadu_si512(w);                                                  \
    const __m512i b1 = two ? _mm512_loadu_si512(w + 64) : b0;                                  \
    w += 128;                                                                                  \
    QWINO_QUAD_ROW(0, LOAD)                                                                    \
    QWINO_QUAD_ROW(1, LOAD)                                                                    \
    QWINO_QUAD_ROW(2, LOAD)                                                                    \
    QWINO_QUAD_ROW(3, LOAD)                                                                    \
    QWINO_QUAD_ROW(4, LOAD)                                                                    \
    QWINO_QUAD_ROW(5, LOAD)                                                                    \
    QWINO_QUAD_ROW(6, LOAD)                                                                    \
    QWINO_QUAD_ROW(7, LOAD)                                                                    \
  } while (0)
#define QWINO_LOAD_K(r) broadcast_quad((r) + k, flip, flip_a)
#define QWINO_LOAD_TAIL(r) broadcast_tail((r) + k, tail, flip, flip_a)

#define QWINO_STORE_ROW(i)                                                                     \
  if (mr > i) {                                                                                \
    _mm512_mask_storeu_epi32(c + i * c_stride, mask0, acc##i##0);                              \
    if (two) _mm512_mask_storeu_epi32(c + i * c_stride + 16, mask1, acc##i##1);                \
  }

QWINO_INLINE void igemm(size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t* const* a,
                        size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                        const int8_t* packed_b, int32_t* c, size_t c_stride, int two,
                        int flip_a) {
  __m512i acc00 = _mm512_setzero_si512(), acc01 = acc00, acc10 = acc00, acc11 = acc00;
  __m512i acc20 = acc00, acc21 = acc00, acc30 = acc00, acc31 = acc00;
  __m512i acc40 = acc00, acc41 = acc00, acc50 = acc00, acc51 = acc00;
  __m512i acc60 = acc00, acc61 = acc00, acc70 = acc00, acc71 = acc00;
  const __m512i flip = _mm512_set1_epi8((char) (a_sign ^ 0x80));
  /* Rows past mr read row mr - 1's pointers. */
  const size_t row0 = 0;
  const size_t row1 = mr > 1 ? ks : row0;
  const size_t row2 = mr > 2 ? 2 * ks : row1;
  const size_t row3 = mr > 3 ? 3 * ks : row2;
  const size_t row4 = mr > 4 ? 4 * ks : row3;
  const size_t row5 = mr > 5 ? 5 * ks : row4;
  const size_t row6 = mr > 6 ? 6 * ks : row5;
  const size_t row7 = mr > 7 ? 7 * ks : row6;
  const size_t tail = kc % 4;
  const int8_t* w = packed_b;
  for (size_t t = 0; t < ks; t++) {
    QWINO_ROW_POINTER(0)
    QWINO_ROW_POINTER(1)
    QWINO_ROW_POINTER(2)
    QWINO_ROW_POINTER(3)
    QWINO_ROW_POINTER(4)
    QWINO_ROW_POINTER(5)
    QWINO_ROW_POINTER(6)
    QWINO_ROW_POINTER(7)
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) {
      QWINO_QUAD(QWINO_LOAD_K);
    }
    if (tail != 0) {
      QWINO_QUAD(QWINO_LOAD_TAIL);
    }
  }
  const __mmask16 mask0 = (__mmask16) (nr >= 16 ? 0xFFFF : (1u << nr) - 1);
  const __mmask16 mask1 = (__mmask16) (nr >= 32 ? 0xFFFF : nr > 16 ? (1u << (nr - 16)) - 1 : 0);
  QWINO_STORE_ROW(0)
  QWINO_STORE_ROW(1)
  QWINO_STORE_ROW(2)
  QWINO_STORE_ROW(3)
  QWINO_STORE_ROW(4)
  QWINO_STORE_ROW(5)
  QWINO_STORE_ROW(6)
  QWINO_STORE_ROW(7)
}

void qwino_s8_igemm_abias128_ukernel_8x32c4__avx512vnni(
    size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t* const* a, size_t a_offset,
    const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b, int32_t* c, size_t c_stride) {
  const int flip_a = a_sign != 0x80;
  if (nr > 16) {
    if (flip_a) {
      igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, 1, 1);
    } else {
      igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, 1, 0);
    }
  } else {
    /* One register of columns: the packed panel still holds 32 columns per k quad, so the
     * second register's bytes are skipped, not read. */
    if (flip_a) {
      igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, 0, 1);
    } else {
      igemm(mr, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride, 0, 0);
    }
  }
}
