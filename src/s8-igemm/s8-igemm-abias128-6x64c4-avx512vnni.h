/*
 * The accumulation of the 6x64c4 AVX-512 VNNI indirect GEMM, A biased by 128: the scheme and the
 * argument for it are at the top of src/s8-igemm/s8-igemm-abias128-6x64c4-avx512vnni.c, which
 * stores the int32 block; src/qu8-igemm/qu8-igemm-abias128-6x64c4-avx512vnni.c requantizes the
 * same accumulators instead. Only for files built with AVX-512 VNNI.
 */
#ifndef QWINO_S8_IGEMM_ABIAS128_6X64C4_AVX512VNNI_H_
#define QWINO_S8_IGEMM_ABIAS128_6X64C4_AVX512VNNI_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define QWINO_VNNI_IGEMM_INLINE static inline __attribute__((always_inline))

enum { kQwinoVnniIgemmMR = 6, kQwinoVnniIgemmNR = 64, kQwinoVnniIgemmQuadBytes = 64 * 4 };

/* The 4 bytes of A at p for one k quad, in every int32 lane, XORed with `flip` when `flip_a`. */
QWINO_VNNI_IGEMM_INLINE __m512i qwino_vnni_igemm_broadcast_quad(const uint8_t* p, __m512i flip,
                                                                int flip_a) {
  int32_t quad;
  memcpy(&quad, p, sizeof(quad));
  const __m512i a = _mm512_set1_epi32(quad);
  return flip_a ? _mm512_xor_si512(a, flip) : a;
}

/* The last r = 1..3 bytes of a row (exactly those read), zeros above, in every int32 lane. */
QWINO_VNNI_IGEMM_INLINE __m512i qwino_vnni_igemm_broadcast_tail(const uint8_t* p, size_t r,
                                                                __m512i flip, int flip_a) {
  const __m128i bytes = _mm_maskz_loadu_epi8((__mmask16)((1u << r) - 1), p);
  const __m512i a = _mm512_broadcastd_epi32(bytes);
  return flip_a ? _mm512_xor_si512(a, flip) : a;
}

/* acc[i][j] += A quad of row i (its bytes at r[i] + k: 4, or the row's last `tail` = 1..3) x B
 * register j, for the `registers` column registers in use. Each row's broadcast address passes
 * through an empty asm that depends on the previous row's last VPDPBUSD, so GCC broadcasts one
 * row at a time: hoisting all six broadcasts (6 + 4 B + 24 accumulators > 32 registers) made it
 * spill two accumulators to the stack inside the loop. The asm emits nothing; the CPU still
 * issues the loads as early as it likes. */
QWINO_VNNI_IGEMM_INLINE void qwino_vnni_igemm_multiply_quad(
    __m512i acc[kQwinoVnniIgemmMR][4], const uint8_t* const r[kQwinoVnniIgemmMR], size_t k,
    size_t tail, __m512i flip, int flip_a, const int8_t* w, int registers) {
  __m512i b[4];
#pragma GCC unroll 4
  for (int j = 0; j < registers; j++) {
    b[j] = _mm512_loadu_si512(w + 64 * j);
  }
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
    const uint8_t* p = r[i] + k;
    if (i > 0) {
      __asm__("" : "+r"(p), "+v"(acc[i - 1][registers - 1]));
    }
    const __m512i va = tail == 0 ? qwino_vnni_igemm_broadcast_quad(p, flip, flip_a)
                                 : qwino_vnni_igemm_broadcast_tail(p, tail, flip, flip_a);
#pragma GCC unroll 4
    for (int j = 0; j < registers; j++) {
      acc[i][j] = _mm512_dpbusd_epi32(acc[i][j], va, b[j]);
    }
  }
}

/* acc[i][j] (j < registers: columns 16 j .. 16 j + 15) = the tile's sums of (A + 128) x B
 * (qwino_igemm_ukernel_fn's arguments), rows past mr computed from row mr - 1. flip_a: a_sign
 * != 0x80, a constant in every instantiation. */
QWINO_VNNI_IGEMM_INLINE void qwino_vnni_igemm_accumulate(__m512i acc[kQwinoVnniIgemmMR][4],
                                                         size_t mr, size_t kc, size_t ks,
                                                         const uint8_t* const* a, size_t a_offset,
                                                         const uint8_t* zero, uint8_t a_sign,
                                                         const int8_t* packed_b, int registers,
                                                         int flip_a) {
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
#pragma GCC unroll 4
    for (int j = 0; j < registers; j++) {
      acc[i][j] = _mm512_setzero_si512();
    }
  }
  const __m512i flip = _mm512_set1_epi8((char)(a_sign ^ 0x80));
  /* Rows past mr read row mr - 1's pointers. */
  size_t row_start[kQwinoVnniIgemmMR];
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
    row_start[i] = ((size_t)i < mr ? (size_t)i : mr - 1) * ks;
  }
  const size_t tail = kc % 4;
  const int8_t* w = packed_b;
  for (size_t t = 0; t < ks; t++) {
    const uint8_t* r[kQwinoVnniIgemmMR];
#pragma GCC unroll 6
    for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
      const uint8_t* row = a[row_start[i] + t];
      r[i] = row == zero ? row : row + a_offset;
    }
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) {
      qwino_vnni_igemm_multiply_quad(acc, r, k, 0, flip, flip_a, w, registers);
      w += kQwinoVnniIgemmQuadBytes;
    }
    if (tail != 0) {
      qwino_vnni_igemm_multiply_quad(acc, r, k, tail, flip, flip_a, w, registers);
      w += kQwinoVnniIgemmQuadBytes;
    }
  }
}

/* Calls BODY(registers, flip_a) with the constants of the call: ceil(nr / 16) column registers,
 * and whether A needs the XOR (int8 activations). */
#define QWINO_VNNI_IGEMM_DISPATCH(nr, a_sign, BODY) \
  do {                                              \
    const int qwino_flip_ = (a_sign) != 0x80;       \
    if ((nr) > 48) {                                \
      if (qwino_flip_)                              \
        BODY(4, 1);                                 \
      else                                          \
        BODY(4, 0);                                 \
    } else if ((nr) > 32) {                         \
      if (qwino_flip_)                              \
        BODY(3, 1);                                 \
      else                                          \
        BODY(3, 0);                                 \
    } else if ((nr) > 16) {                         \
      if (qwino_flip_)                              \
        BODY(2, 1);                                 \
      else                                          \
        BODY(2, 0);                                 \
    } else {                                        \
      if (qwino_flip_)                              \
        BODY(1, 1);                                 \
      else                                          \
        BODY(1, 0);                                 \
    }                                               \
  } while (0)

#endif /* QWINO_S8_IGEMM_ABIAS128_6X64C4_AVX512VNNI_H_ */
