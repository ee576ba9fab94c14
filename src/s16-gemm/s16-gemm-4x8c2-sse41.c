/*
 * 4x8 int16 x int16 -> int32 GEMM micro-kernel, SSE4.1: bit-exact twin of
 * src/s16-gemm/s16-gemm-8x8-scalar.c (same products and sums modulo 2^32).
 *
 * The kernel set for x86-64 CPUs without AVX2 (pre-Haswell cores, and the Atom-class cores of
 * low-end PCs: Goldmont, Tremont, which have SSE4.2 but no AVX): PMADDWD does 8 MACs per
 * instruction where the scalar kernel does one. Same scheme as the AVX2 kernel at half width:
 * PMADDWD multiplies int16 pairs into int32 lanes (exact modulo 2^32; the one pair sum that
 * leaves int32, 2 * (-32768)^2 = 2^31, comes back as 0x80000000), PADDD accumulates, B is
 * packed with KR = 2 (element (kk, j) at ((kk / 2) * 8 + j) * 2 + kk % 2 of an 8-column panel)
 * and one A pair is broadcast as an int32. 8 accumulators + 2 B + A + temporaries fit the
 * 16 xmm registers. Per k pair: 2 B loads, 4 broadcasts, 8 PMADDWD + 8 PADDD = 64 MACs.
 *
 * Remainders: mr == 4 runs the 4-row body, mr < 4 the 2- and 1-row bodies. An odd k ends with
 * one A element zero-extended to a pair: never reads past k elements of a row, and the B row
 * past k is multiplied by 0 whatever it holds (F(4x4,3x3) input-channel blocks pass k-slices of
 * longer panels). B is read up to round_up(k, 2) rows. Only nr columns are stored.
 */
#include <smmintrin.h>
#include <string.h>

#include "qwino/ukernels.h"

/* acc += x (int32 lanes, modulo 2^32), in place. An inline-asm PADDD because GCC 12 gives the
 * accumulator array register copies otherwise (see the AVX2 and AVX-512 kernels). */
#define QWINO_ADD_IN_PLACE(acc, x) __asm__("paddd %1, %0" : "+x"(acc) : "x"(x))

static inline __m128i broadcast_pair(const int16_t* a) {
  int32_t pair;
  memcpy(&pair, a, sizeof(pair));
  return _mm_set1_epi32(pair);
}

/* The last element of an odd k, zero-extended: the pair (a[0], 0). */
static inline __m128i broadcast_last(const int16_t* a) {
  return _mm_set1_epi32((int32_t)(uint16_t)a[0]);
}

static inline void store_row(int32_t* c, size_t nr, __m128i lo, __m128i hi) {
  if (nr >= 8) {
    _mm_storeu_si128((__m128i*)c, lo);
    _mm_storeu_si128((__m128i*)(c + 4), hi);
    return;
  }
  if (nr & 4) {
    _mm_storeu_si128((__m128i*)c, lo);
    c += 4;
    lo = hi;
  }
  if (nr & 2) {
    _mm_storel_epi64((__m128i*)c, lo);
    c += 2;
    lo = _mm_unpackhi_epi64(lo, lo);
  }
  if (nr & 1) {
    *c = _mm_cvtsi128_si32(lo);
  }
}

/* A block of `rows` (4, 2 or 1; a constant at every call) rows of A times one B panel. */
static inline __attribute__((always_inline)) void gemm_rows(const size_t rows, size_t nr, size_t k,
                                                            const int16_t* a, size_t a_stride,
                                                            const int16_t* b, int32_t* c,
                                                            size_t c_stride) {
  __m128i acc[4][2];
#pragma GCC unroll 4
  for (size_t i = 0; i < rows; i++) {
    acc[i][0] = _mm_setzero_si128();
    acc[i][1] = _mm_setzero_si128();
  }
  size_t kk = k;
  for (; kk >= 2; kk -= 2) {
    const __m128i vb0 = _mm_loadu_si128((const __m128i*)b);
    const __m128i vb1 = _mm_loadu_si128((const __m128i*)(b + 8));
    b += 16;
#pragma GCC unroll 4
    for (size_t i = 0; i < rows; i++) {
      const __m128i va = broadcast_pair(a + i * a_stride);
      QWINO_ADD_IN_PLACE(acc[i][0], _mm_madd_epi16(vb0, va));
      QWINO_ADD_IN_PLACE(acc[i][1], _mm_madd_epi16(vb1, va));
    }
    a += 2;
  }
  if (kk != 0) {
    const __m128i vb0 = _mm_loadu_si128((const __m128i*)b);
    const __m128i vb1 = _mm_loadu_si128((const __m128i*)(b + 8));
#pragma GCC unroll 4
    for (size_t i = 0; i < rows; i++) {
      const __m128i va = broadcast_last(a + i * a_stride);
      QWINO_ADD_IN_PLACE(acc[i][0], _mm_madd_epi16(vb0, va));
      QWINO_ADD_IN_PLACE(acc[i][1], _mm_madd_epi16(vb1, va));
    }
  }
#pragma GCC unroll 4
  for (size_t i = 0; i < rows; i++) {
    store_row(c + i * c_stride, nr, acc[i][0], acc[i][1]);
  }
}

void qwino_s16_gemm_ukernel_4x8c2__sse41(size_t mr, size_t nr, size_t k, const int16_t* a,
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
