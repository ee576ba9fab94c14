/*
 * 4x16 int16 x int16 -> int32 GEMM micro-kernel, AVX2: bit-exact twin of
 * src/s16-gemm/s16-gemm-8x8-scalar.c (same products and sums modulo 2^32).
 *
 * VPMADDWD multiplies int16 pairs and adds each pair into an int32 lane; then VPADDD
 * accumulates. Both wrap modulo 2^32: the only pair sum that leaves int32 is
 * (-32768)^2 + (-32768)^2 = 2^31, which VPMADDWD returns as 0x80000000, i.e. 2^31 modulo 2^32.
 * So B is packed with KR = 2: a ymm register holds 8 columns x 2 k (element (kk, j) at
 * ((kk / 2) * 16 + j) * 2 + kk % 2 of a 16-column panel), and one A pair broadcast as an int32
 * feeds all 8 lanes. Per k pair: 2 B loads, 4 broadcasts, 8 VPMADDWD + 8 VPADDD = 128 MACs.
 *
 * Why 4 x 16: 8 accumulators + 2 B + 1 A + product temporaries fit the 16 ymm registers without
 * spills, and each broadcast feeds two multiplies; 4x16 ran as fast as 6x16 and faster than 8x8
 * (one broadcast per multiply: doc/PERFORMANCE.md, "Kernel measurements"), keeps more registers
 * free (no spills on Haswell-era compilers either) and gives the operator finer row blocks.
 *
 * Remainders: mr == 4 runs the 4-row body, mr < 4 the 2- and 1-row bodies. An odd k ends with
 * one A element zero-extended to a pair: never reads past k elements of a row, and the B row
 * past k is multiplied by 0 whatever it holds (F(4x4,3x3) input-channel blocks pass k-slices of
 * longer panels). B is read up to round_up(k, 2) rows. Only nr columns are stored.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/ukernels.h"

/* acc += x (int32 lanes, modulo 2^32), in place. An inline-asm VPADDD because GCC 12 gives the
 * accumulator array a register copy per add otherwise (see the AVX-512 kernel). */
#define QWINO_ADD_IN_PLACE(acc, x) __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(x))

static inline __m256i broadcast_pair(const int16_t* a) {
  int32_t pair;
  memcpy(&pair, a, sizeof(pair));
  return _mm256_set1_epi32(pair);
}

/* The last element of an odd k, zero-extended: the pair (a[0], 0). */
static inline __m256i broadcast_last(const int16_t* a) {
  return _mm256_set1_epi32((int32_t)(uint16_t)a[0]);
}

static inline void store_row(int32_t* c, size_t nr, __m256i lo, __m256i hi) {
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

/* A block of `rows` (4, 2 or 1; a constant at every call) rows of A times one B panel. */
static inline __attribute__((always_inline)) void gemm_rows(const size_t rows, size_t nr, size_t k,
                                                            const int16_t* a, size_t a_stride,
                                                            const int16_t* b, int32_t* c,
                                                            size_t c_stride) {
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
      const __m256i va = broadcast_pair(a + i * a_stride);
      QWINO_ADD_IN_PLACE(acc[i][0], _mm256_madd_epi16(vb0, va));
      QWINO_ADD_IN_PLACE(acc[i][1], _mm256_madd_epi16(vb1, va));
    }
    a += 2;
  }
  if (kk != 0) {
    const __m256i vb0 = _mm256_loadu_si256((const __m256i*)b);
    const __m256i vb1 = _mm256_loadu_si256((const __m256i*)(b + 16));
#pragma GCC unroll 4
    for (size_t i = 0; i < rows; i++) {
      const __m256i va = broadcast_last(a + i * a_stride);
      QWINO_ADD_IN_PLACE(acc[i][0], _mm256_madd_epi16(vb0, va));
      QWINO_ADD_IN_PLACE(acc[i][1], _mm256_madd_epi16(vb1, va));
    }
  }
#pragma GCC unroll 4
  for (size_t i = 0; i < rows; i++) {
    store_row(c + i * c_stride, nr, acc[i][0], acc[i][1]);
  }
}

void qwino_s16_gemm_ukernel_4x16c2__avx2(size_t mr, size_t nr, size_t k, const int16_t* a,
                                         size_t a_stride, const int16_t* packed_b, int32_t* c,
                                         size_t c_stride) {
  if (mr >= 4) {
    gemm_rows(4, nr, k, a, a_stride, packed_b, c, c_stride);
    return;
  }
  if (mr & 2) {
    gemm_rows(2, nr, k, a, a_stride, packed_b, c, c_stride);
    a += 2 * a_stride;
    c += 2 * c_stride;
  }
  if (mr & 1) {
    gemm_rows(1, nr, k, a, a_stride, packed_b, c, c_stride);
  }
}
