/*
 * The pieces every AVX2-width GEMM of int16 pairs (KR = 2) shares: one A pair broadcast as an
 * int32 to all 8 lanes, and a row of 16 int32 columns (two ymm registers) stored for exactly nr
 * of them. Used by the int16 GEMM's body (src/s16-gemm/s16-gemm-4x16c2-avx2.h, the AVX2 and
 * AVX-VNNI kernels) and the AVX2 8-bit indirect GEMM, which widens its bytes to such pairs
 * (src/s8-igemm/s8-igemm-6x16c2-avx2.c). Only for files built with AVX2.
 */
#ifndef QWINO_AVX2_INT16_PAIRS_H_
#define QWINO_AVX2_INT16_PAIRS_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* acc += x (int32 lanes, modulo 2^32), in place. An inline-asm VPADDD because GCC 12 gives an
 * array of accumulators a register copy per add otherwise (a move per accumulator and k step
 * in the AVX2 GEMMs' loops), and runs out of registers. */
#define QWINO_AVX2_ADD_IN_PLACE(acc, x) __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(x))

static inline __m256i qwino_avx2_broadcast_pair(const int16_t* a) {
  int32_t pair;
  memcpy(&pair, a, sizeof(pair));
  return _mm256_set1_epi32(pair);
}

/* Columns 0..nr-1 (nr >= 1; 16 at most are stored) of a row held as lo (0..7) and hi (8..15). */
static inline void qwino_avx2_store_int32_row16(int32_t* c, size_t nr, __m256i lo, __m256i hi) {
  if (nr >= 16) {
    _mm256_storeu_si256((__m256i*)c, lo);
    _mm256_storeu_si256((__m256i*)(c + 8), hi);
    return;
  }
  if (nr & 8) {
    _mm256_storeu_si256((__m256i*)c, lo);
    c += 8;
    lo = hi;
  }
  __m128i x = _mm256_castsi256_si128(lo);
  if (nr & 4) {
    _mm_storeu_si128((__m128i*)c, x);
    c += 4;
    x = _mm256_extracti128_si256(lo, 1);
  }
  if (nr & 2) {
    _mm_storel_epi64((__m128i*)c, x);
    c += 2;
    x = _mm_unpackhi_epi64(x, x);
  }
  if (nr & 1) {
    *c = _mm_cvtsi128_si32(x);
  }
}

#endif /* QWINO_AVX2_INT16_PAIRS_H_ */
