/*
 * Row sums of the indirect GEMM's A, AVX-512 (F + BW): bit-exact twin of
 * src/s8-irsum/s8-irsum-scalar.c (contract: qwino_irsum_ukernel_fn in src/qwino/ukernel-types.h).
 *
 * The SSE4.1 kernel's method (src/s8-irsum/s8-irsum-sse41.c) on 64 bytes: the bytes XOR
 * a_sign ^ 0x80 are the unsigned A + 128, VPSADBW against zero adds them 8 at a time into 64-bit
 * lanes that no row can overflow, and 128 x kc x ks comes off once per row, modulo 2^32.
 * The last 1..63 bytes of each pointer's row are one masked byte load (BW), which reads exactly
 * kc bytes and faults on none past them; its masked-off lanes take the value `flip`, so the XOR
 * turns them into zeros that the PSADBW ignores, with no separate masking step. A row of up to
 * 64 bytes (most taps of the layers the indirect convolution runs) is thus a single load.
 */
#include <immintrin.h>

#include "qwino/ukernels.h"
#include "s8-irsum/s8-irsum-excess.h"

/* The 64-bit lane sums of one row's bytes (XOR flip: the unsigned A + 128). */
static inline __attribute__((always_inline)) __m512i row_lanes(const uint8_t* const* pointers,
                                                               size_t kc, size_t ks,
                                                               size_t a_offset, const uint8_t* zero,
                                                               __m512i flip, __mmask64 tail_mask) {
  const __m512i vzero = _mm512_setzero_si512();
  __m512i acc = vzero;
  for (size_t t = 0; t < ks; t++) {
    const uint8_t* p = pointers[t];
    if (p != zero) {
      p += a_offset;
    }
    size_t n = kc;
    for (; n >= 64; n -= 64, p += 64) {
      const __m512i u = _mm512_xor_si512(_mm512_loadu_si512((const void*)p), flip);
      acc = _mm512_add_epi64(acc, _mm512_sad_epu8(u, vzero));
    }
    if (n != 0) {
      const __m512i u = _mm512_xor_si512(_mm512_mask_loadu_epi8(flip, tail_mask, p), flip);
      acc = _mm512_add_epi64(acc, _mm512_sad_epu8(u, vzero));
    }
  }
  return acc;
}

/* Two rows' lanes -> per 128-bit lane (row a's pair sum, row b's pair sum). */
static inline __attribute__((always_inline)) __m512i pair(__m512i a, __m512i b) {
  return _mm512_add_epi64(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
}

/* Four 128-bit lanes per input: (x lanes 0+1, x lanes 2+3, y lanes 0+1, y lanes 2+3). */
static inline __attribute__((always_inline)) __m512i fold(__m512i x, __m512i y) {
  return _mm512_add_epi64(_mm512_shuffle_i64x2(x, y, 0x88), _mm512_shuffle_i64x2(x, y, 0xDD));
}

void qwino_s8_irsum_ukernel__avx512skx(size_t rows, size_t kc, size_t ks, const uint8_t* const* a,
                                       size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                                       int32_t* sums) {
  const __m512i flip = _mm512_set1_epi8((char)(a_sign ^ 0x80));
  const size_t tail = kc & 63;
  const __mmask64 tail_mask = _cvtu64_mask64(tail != 0 ? UINT64_MAX >> (64 - tail) : 0);
  /* The masked loads' lanes past the row are 0 after the XOR. */
  const uint32_t bias = qwino_irsum_excess(kc, ks, 64, 0);
  size_t i = 0;
  /* Eight rows at a time: their lanes reduced together (unpacks, 128-bit shuffles and adds, 21
   * instructions for the eight, where a row's own horizontal sum takes about 7), one store of
   * 8 sums; the other rows one at a time. */
  for (; i + 8 <= rows; i += 8) {
    __m512i r[8];
    for (int j = 0; j < 8; j++) {
      r[j] = row_lanes(a + (i + (size_t)j) * ks, kc, ks, a_offset, zero, flip, tail_mask);
    }
    const __m512i quarter0 = fold(pair(r[0], r[1]), pair(r[2], r[3]));
    const __m512i quarter1 = fold(pair(r[4], r[5]), pair(r[6], r[7]));
    /* Lanes in row order 0..7: each 128-bit lane of quarter0 and quarter1 holds a row pair's
     * halves, and the last fold adds them. */
    const __m512i totals = fold(quarter0, quarter1);
    const __m256i low = _mm512_cvtepi64_epi32(totals); /* modulo 2^32 */
    _mm256_storeu_si256((__m256i*)(sums + i),
                        _mm256_sub_epi32(low, _mm256_set1_epi32((int32_t)bias)));
  }
  for (; i < rows; i++) {
    const __m512i acc = row_lanes(a + i * ks, kc, ks, a_offset, zero, flip, tail_mask);
    const uint64_t total = (uint64_t)_mm512_reduce_add_epi64(acc);
    sums[i] = (int32_t)((uint32_t)total - bias);
  }
}
