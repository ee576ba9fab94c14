/*
 * The accumulation of the 6x16c4 AVX-VNNI indirect GEMM, A biased by 128: the scheme and the
 * argument for it are at the top of src/s8-igemm/s8-igemm-abias128-6x16c4-avxvnni.c, which
 * stores the int32 block; src/qu8-igemm/qu8-igemm-abias128-6x16c4-avxvnni.c requantizes the same
 * accumulators instead. Only for files built with AVX2 + AVX-VNNI.
 */
#ifndef QWINO_S8_IGEMM_ABIAS128_6X16C4_AVXVNNI_H_
#define QWINO_S8_IGEMM_ABIAS128_6X16C4_AVXVNNI_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qwino/partial-loads.h"

#define QWINO_AVXVNNI_IGEMM_INLINE static inline __attribute__((always_inline))

enum { kQwinoAvxvnniIgemmMR = 6, kQwinoAvxvnniIgemmNR = 16, kQwinoAvxvnniIgemmQuadBytes = 16 * 4 };

/* The 4 bytes of A at p for one k quad (or the row's last `tail` = 1..3, zeros above: exactly
 * those are read) in every int32 lane, XORed with `flip` when `flip_a`. */
QWINO_AVXVNNI_IGEMM_INLINE __m256i qwino_avxvnni_igemm_broadcast(const uint8_t* p, size_t tail,
                                                                 __m256i flip, int flip_a) {
  int32_t quad;
  if (tail == 0) {
    memcpy(&quad, p, sizeof(quad));
  } else {
    quad = (int32_t)qwino_load_upto8(p, tail);
  }
  const __m256i a = _mm256_set1_epi32(quad);
  return flip_a ? _mm256_xor_si256(a, flip) : a;
}

/* acc[i][j] += A quad of row i (its bytes at r[i] + k) x B register j, for the `registers`
 * column registers in use. As in the AVX-512 kernel, each row's broadcast address passes through
 * an empty asm that depends on the previous row's last VPDPBUSD, so GCC broadcasts one row at a
 * time (12 accumulators + 2 B + 1 A + the XOR mask are all 16 registers). */
QWINO_AVXVNNI_IGEMM_INLINE void qwino_avxvnni_igemm_multiply_quad(
    __m256i acc[kQwinoAvxvnniIgemmMR][2], const uint8_t* const r[kQwinoAvxvnniIgemmMR], size_t k,
    size_t tail, __m256i flip, int flip_a, const int8_t* w, int registers) {
  __m256i b[2];
#pragma GCC unroll 2
  for (int j = 0; j < registers; j++) {
    b[j] = _mm256_loadu_si256((const __m256i*)(w + 32 * j));
  }
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoAvxvnniIgemmMR; i++) {
    const uint8_t* p = r[i] + k;
    if (i > 0) {
      __asm__("" : "+r"(p), "+x"(acc[i - 1][registers - 1]));
    }
    const __m256i va = qwino_avxvnni_igemm_broadcast(p, tail, flip, flip_a);
#pragma GCC unroll 2
    for (int j = 0; j < registers; j++) {
      acc[i][j] = _mm256_dpbusd_avx_epi32(acc[i][j], va, b[j]);
    }
  }
}

/* acc[i][j] (j < registers: columns 8 j .. 8 j + 7) = the tile's sums of (A + 128) x B
 * (qwino_igemm_ukernel_fn's arguments), rows past mr computed from row mr - 1. flip_a: a_sign
 * != 0x80, a constant in every instantiation. */
QWINO_AVXVNNI_IGEMM_INLINE void qwino_avxvnni_igemm_accumulate(
    __m256i acc[kQwinoAvxvnniIgemmMR][2], size_t mr, size_t kc, size_t ks, const uint8_t* const* a,
    size_t a_offset, const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b, int registers,
    int flip_a) {
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoAvxvnniIgemmMR; i++) {
#pragma GCC unroll 2
    for (int j = 0; j < registers; j++) {
      acc[i][j] = _mm256_setzero_si256();
    }
  }
  const __m256i flip = _mm256_set1_epi8((char)(a_sign ^ 0x80));
  /* Rows past mr read row mr - 1's pointers. */
  size_t row_start[kQwinoAvxvnniIgemmMR];
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoAvxvnniIgemmMR; i++) {
    row_start[i] = ((size_t)i < mr ? (size_t)i : mr - 1) * ks;
  }
  const size_t tail = kc % 4;
  const int8_t* w = packed_b;
  for (size_t t = 0; t < ks; t++) {
    const uint8_t* r[kQwinoAvxvnniIgemmMR];
#pragma GCC unroll 6
    for (int i = 0; i < kQwinoAvxvnniIgemmMR; i++) {
      const uint8_t* row = a[row_start[i] + t];
      r[i] = row == zero ? row : row + a_offset;
    }
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) {
      qwino_avxvnni_igemm_multiply_quad(acc, r, k, 0, flip, flip_a, w, registers);
      w += kQwinoAvxvnniIgemmQuadBytes;
    }
    if (tail != 0) {
      qwino_avxvnni_igemm_multiply_quad(acc, r, k, tail, flip, flip_a, w, registers);
      w += kQwinoAvxvnniIgemmQuadBytes;
    }
  }
}

/* Calls BODY(registers, flip_a) with the constants of the call: ceil(nr / 8) column registers,
 * and whether A needs the XOR (int8 activations). */
#define QWINO_AVXVNNI_IGEMM_DISPATCH(nr, a_sign, BODY) \
  do {                                                 \
    const int qwino_flip_ = (a_sign) != 0x80;          \
    if ((nr) > 8) {                                    \
      if (qwino_flip_)                                 \
        BODY(2, 1);                                    \
      else                                             \
        BODY(2, 0);                                    \
    } else {                                           \
      if (qwino_flip_)                                 \
        BODY(1, 1);                                    \
      else                                             \
        BODY(1, 0);                                    \
    }                                                  \
  } while (0)

#endif /* QWINO_S8_IGEMM_ABIAS128_6X16C4_AVXVNNI_H_ */
