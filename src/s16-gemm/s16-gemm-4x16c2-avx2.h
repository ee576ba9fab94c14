/*
 * The body of the 4x16c2 int16 GEMM micro-kernels for 256-bit vectors, the AVX2 one
 * (src/s16-gemm/s16-gemm-4x16c2-avx2.c, whose top comment has the scheme and the remainders) and
 * the AVX-VNNI one (src/s16-gemm/s16-gemm-4x16c2-avxvnni.c): they differ only in the step
 * QWINO_S16_GEMM_4X16C2_MAC(acc, b, a), acc += the pairwise products of the int16 pairs of b and
 * a, modulo 2^32, which the including file defines.
 */
#ifndef QWINO_S16_GEMM_4X16C2_AVX2_H_
#define QWINO_S16_GEMM_4X16C2_AVX2_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qwino/avx2-int16-pairs.h"

#ifndef QWINO_S16_GEMM_4X16C2_MAC
#error "define QWINO_S16_GEMM_4X16C2_MAC(acc, b, a) before including this header"
#endif

/* The last element of an odd k, zero-extended: the pair (a[0], 0). */
static inline __attribute__((always_inline)) __m256i qwino_s16_gemm_4x16c2_broadcast_last(
    const int16_t* a) {
  return _mm256_set1_epi32((int32_t)(uint16_t)a[0]);
}

/* A block of `rows` (4, 2 or 1; a constant at every call) rows of A times one B panel. */
static inline __attribute__((always_inline)) void qwino_s16_gemm_4x16c2_gemm_rows(
    const size_t rows, size_t nr, size_t k, const int16_t* a, size_t a_stride, const int16_t* b,
    int32_t* c, size_t c_stride) {
  __m256i acc[4][2];
#pragma GCC unroll 4
  for (size_t i = 0; i < rows; i++) {
    acc[i][0] = _mm256_setzero_si256();
    acc[i][1] = _mm256_setzero_si256();
  }
  size_t kk = k;
  for (; kk >= 2; kk -= 2) {
    const __m256i vb0 = _mm256_loadu_si256((const __m256i*)b);
    const __m256i vb1 = _mm256_loadu_si256((const __m256i*)(b + 16));
    b += 32;
#pragma GCC unroll 4
    for (size_t i = 0; i < rows; i++) {
      const __m256i va = qwino_avx2_broadcast_pair(a + i * a_stride);
      QWINO_S16_GEMM_4X16C2_MAC(acc[i][0], vb0, va);
      QWINO_S16_GEMM_4X16C2_MAC(acc[i][1], vb1, va);
    }
    a += 2;
  }
  if (kk != 0) {
    const __m256i vb0 = _mm256_loadu_si256((const __m256i*)b);
    const __m256i vb1 = _mm256_loadu_si256((const __m256i*)(b + 16));
#pragma GCC unroll 4
    for (size_t i = 0; i < rows; i++) {
      const __m256i va = qwino_s16_gemm_4x16c2_broadcast_last(a + i * a_stride);
      QWINO_S16_GEMM_4X16C2_MAC(acc[i][0], vb0, va);
      QWINO_S16_GEMM_4X16C2_MAC(acc[i][1], vb1, va);
    }
  }
#pragma GCC unroll 4
  for (size_t i = 0; i < rows; i++) {
    qwino_avx2_store_int32_row16(c + i * c_stride, nr, acc[i][0], acc[i][1]);
  }
}

static inline __attribute__((always_inline)) void qwino_s16_gemm_4x16c2(
    size_t mr, size_t nr, size_t k, const int16_t* a, size_t a_stride, const int16_t* packed_b,
    int32_t* c, size_t c_stride) {
  if (mr >= 4) {
    qwino_s16_gemm_4x16c2_gemm_rows(4, nr, k, a, a_stride, packed_b, c, c_stride);
    return;
  }
  if (mr & 2) {
    qwino_s16_gemm_4x16c2_gemm_rows(2, nr, k, a, a_stride, packed_b, c, c_stride);
    a += 2 * a_stride;
    c += 2 * c_stride;
  }
  if (mr & 1) {
    qwino_s16_gemm_4x16c2_gemm_rows(1, nr, k, a, a_stride, packed_b, c, c_stride);
  }
}

#endif /* QWINO_S16_GEMM_4X16C2_AVX2_H_ */
