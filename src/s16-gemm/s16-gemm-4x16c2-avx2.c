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
 *
 * The body is src/s16-gemm/s16-gemm-4x16c2-avx2.h, shared with the AVX-VNNI kernel, which does
 * each VPMADDWD + VPADDD in one VPDPWSSD.
 */
#include "qwino/ukernels.h"

/* acc += the pair products. VPADDD is an inline asm in place because GCC 12 gives the
 * accumulator array a register copy per add otherwise (see the AVX-512 kernel). */
#define QWINO_S16_GEMM_4X16C2_MAC(acc, b, a) \
  __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(_mm256_madd_epi16(b, a)))
#include "s16-gemm/s16-gemm-4x16c2-avx2.h"

void qwino_s16_gemm_ukernel_4x16c2__avx2(size_t mr, size_t nr, size_t k, const int16_t* a,
                                         size_t a_stride, const int16_t* packed_b, int32_t* c,
                                         size_t c_stride) {
  qwino_s16_gemm_4x16c2(mr, nr, k, a, a_stride, packed_b, c, c_stride);
}
