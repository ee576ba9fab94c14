/*
 * 8x32 int16 x int16 -> int32 GEMM micro-kernel, AVX-512 VNNI: bit-exact twin of
 * src/s16-gemm/s16-gemm-8x8-scalar.c (same products and sums modulo 2^32), and the kernel that
 * decides qwino's speed on x86 CPUs with AVX-512 VNNI (Ice Lake and later, Zen 4/5).
 *
 * VPDPWSSD (non-saturating) adds to each int32 lane the two products of a pair of int16:
 * acc += a[2p] * b[2p][j] + a[2p + 1] * b[2p + 1][j], exactly modulo 2^32 (each product fits
 * int32, the sum wraps; no saturation, unlike VPDPWSSDS). So B is packed with KR = 2: a zmm
 * register holds 16 columns x 2 k (element (kk, j) at ((kk / 2) * 32 + j) * 2 + kk % 2 of a
 * 32-column panel), and one A pair (a[i][2p], a[i][2p + 1]) broadcast as an int32 feeds all
 * 16 lanes. Per k pair: 2 B loads, 8 A broadcasts (load-port only), 16 VPDPWSSD = 512 MACs.
 *
 * Why 8 x 32: 16 zmm accumulators cover the multiply latency (about 4 cycles at 2 multiplies a
 * cycle), the two B registers and the broadcasts fit in the other 16, and each broadcast feeds
 * two multiplies; 8x32 ran at the VPDPWSSD peak, 16x16 and 8x16 below it (more loads per
 * multiply: doc/PERFORMANCE.md, "Kernel measurements"). NR = 32 also halves B traffic per row
 * versus NR = 16 when panels stream from L2/L3 (large layers).
 *
 * The multiply is an inline-asm VPDPWSSD with register operands: GCC 12 turns the
 * _mm512_dpwssd_epi32 intrinsic on an accumulator array into a register copy per multiply
 * (the destination is tied), which cost 40% here. The loads stay intrinsics.
 *
 * Remainders: mr == 8 runs the 8-row body, mr < 8 its binary decomposition into 4-, 2- and
 * 1-row bodies (time about proportional to the rows, as in the NEON kernel; see gemm_rows for
 * how the small bodies keep enough multiplies in flight). An odd k ends with one
 * A element zero-extended to a pair: never reads past k elements of a row, and the B row past
 * k is multiplied by 0 whatever it holds (the operator's F(4x4,3x3) input-channel blocks pass
 * k-slices of longer panels). B is read up to round_up(k, 2) rows. Columns >= nr are masked
 * off the stores.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/ukernels.h"

/* acc += pairwise products of b and a (int16 pairs), modulo 2^32. */
#define QWINO_DPWSSD(acc, b, a) __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(b), "v"(a))

static inline __m512i broadcast_pair(const int16_t* a) {
  int32_t pair;
  memcpy(&pair, a, sizeof(pair));
  return _mm512_set1_epi32(pair);
}

/* The last element of an odd k, zero-extended: the pair (a[0], 0). */
static inline __m512i broadcast_last(const int16_t* a) {
  return _mm512_set1_epi32((int32_t)(uint16_t)a[0]);
}

/* A block of `rows` (8, 4, 2 or 1; a constant at every call) rows of A times one B panel, with
 * `splits` (1, 2 or 4; a constant) independent sets of accumulators taking turns over the k
 * pairs and added at the end: fewer rows give fewer independent multiply chains, and without the
 * splits the 1- and 2-row bodies wait on VPDPWSSD's latency (measured 70 and 126 GMAC/s against
 * 240 for 8 rows). Integer addition is associative modulo 2^32, so the split sums are the same
 * bits. */
static inline __attribute__((always_inline)) void gemm_rows(const size_t rows, const size_t splits,
                                                            size_t nr, size_t k, const int16_t* a,
                                                            size_t a_stride, const int16_t* b,
                                                            int32_t* c, size_t c_stride) {
  __m512i acc[8][2][4];
  size_t kk = k;
  /* The first `splits` k pairs initialize the accumulators with VPMADDWD (the same pair sums as
   * VPDPWSSD into zero, including the 2^31 wrap): no zeroing, no zero register to copy. Sets
   * with no pair left (k < 2 * splits) start at zero and read no B. */
#pragma GCC unroll 4
  for (size_t s = 0; s < splits; s++) {
    if (kk == 0) {
#pragma GCC unroll 8
      for (size_t i = 0; i < rows; i++) {
        acc[i][0][s] = _mm512_setzero_si512();
        acc[i][1][s] = _mm512_setzero_si512();
      }
      continue;
    }
    const __m512i vb0 = _mm512_loadu_si512(b);
    const __m512i vb1 = _mm512_loadu_si512(b + 32);
    b += 64;
#pragma GCC unroll 8
    for (size_t i = 0; i < rows; i++) {
      const __m512i va =
          kk >= 2 ? broadcast_pair(a + i * a_stride) : broadcast_last(a + i * a_stride);
      acc[i][0][s] = _mm512_madd_epi16(vb0, va);
      acc[i][1][s] = _mm512_madd_epi16(vb1, va);
    }
    a += 2;
    kk = kk >= 2 ? kk - 2 : 0;
  }
  for (; kk >= 2 * splits; kk -= 2 * splits) {
#pragma GCC unroll 4
    for (size_t s = 0; s < splits; s++) {
      const __m512i vb0 = _mm512_loadu_si512(b + 64 * s);
      const __m512i vb1 = _mm512_loadu_si512(b + 64 * s + 32);
#pragma GCC unroll 8
      for (size_t i = 0; i < rows; i++) {
        const __m512i va = broadcast_pair(a + i * a_stride + 2 * s);
        QWINO_DPWSSD(acc[i][0][s], vb0, va);
        QWINO_DPWSSD(acc[i][1][s], vb1, va);
      }
    }
    b += 64 * splits;
    a += 2 * splits;
  }
  for (; kk >= 2; kk -= 2) {
    const __m512i vb0 = _mm512_loadu_si512(b);
    const __m512i vb1 = _mm512_loadu_si512(b + 32);
    b += 64;
#pragma GCC unroll 8
    for (size_t i = 0; i < rows; i++) {
      const __m512i va = broadcast_pair(a + i * a_stride);
      QWINO_DPWSSD(acc[i][0][0], vb0, va);
      QWINO_DPWSSD(acc[i][1][0], vb1, va);
    }
    a += 2;
  }
  if (kk != 0) {
    const __m512i vb0 = _mm512_loadu_si512(b);
    const __m512i vb1 = _mm512_loadu_si512(b + 32);
#pragma GCC unroll 8
    for (size_t i = 0; i < rows; i++) {
      const __m512i va = broadcast_last(a + i * a_stride);
      QWINO_DPWSSD(acc[i][0][0], vb0, va);
      QWINO_DPWSSD(acc[i][1][0], vb1, va);
    }
  }
  const uint32_t columns = nr >= 32 ? UINT32_C(0xFFFFFFFF) : (UINT32_C(1) << nr) - 1;
  const __mmask16 mask_lo = (__mmask16)columns;
  const __mmask16 mask_hi = (__mmask16)(columns >> 16);
#pragma GCC unroll 8
  for (size_t i = 0; i < rows; i++) {
#pragma GCC unroll 4
    for (size_t s = 1; s < splits; s++) {
      acc[i][0][0] = _mm512_add_epi32(acc[i][0][0], acc[i][0][s]);
      acc[i][1][0] = _mm512_add_epi32(acc[i][1][0], acc[i][1][s]);
    }
    _mm512_mask_storeu_epi32(c + i * c_stride, mask_lo, acc[i][0][0]);
    _mm512_mask_storeu_epi32(c + i * c_stride + 16, mask_hi, acc[i][1][0]);
  }
}

void qwino_s16_gemm_ukernel_8x32c2__avx512vnni(size_t mr, size_t nr, size_t k, const int16_t* a,
                                               size_t a_stride, const int16_t* packed_b, int32_t* c,
                                               size_t c_stride) {
  if (mr >= 8) {
    gemm_rows(8, 1, nr, k, a, a_stride, packed_b, c, c_stride);
    return;
  }
  if (mr & 4) {
    gemm_rows(4, 2, nr, k, a, a_stride, packed_b, c, c_stride);
    a += 4 * a_stride;
    c += 4 * c_stride;
  }
  if (mr & 2) {
    gemm_rows(2, 2, nr, k, a, a_stride, packed_b, c, c_stride);
    a += 2 * a_stride;
    c += 2 * c_stride;
  }
  if (mr & 1) {
    gemm_rows(1, 4, nr, k, a, a_stride, packed_b, c, c_stride);
  }
}
