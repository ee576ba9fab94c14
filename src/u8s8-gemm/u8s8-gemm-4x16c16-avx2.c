/*
 * Pair GEMM micro-kernel, AVX2, 16 columns and up to 4 rows a call, one row at a time
 * (qwino_u8s8_gemm_ukernel_fn): bit-exact twin of src/u8s8-gemm/u8s8-gemm-4x16c16-scalar.c on the
 * panels pack_u8s8_pair_weights makes.
 *
 * Exactness. VPMADDUBSW multiplies A's bytes (unsigned) by B's (signed) and adds each pair of
 * neighbouring products in an int16 lane with saturation. The packing put side by side only
 * weights (b0, b1) whose positive parts add up to at most 128 and whose negative parts to at least
 * -128 (or halves of weights, which always do), so for any bytes x0, x1 <= 255 the pair sum lies
 * in [-32640, 32640] and never saturates. VPMADDWD by ones adds two pair sums exactly into int32,
 * VPADDD accumulates modulo 2^32 and the final horizontal adds too, as the twin's uint32_t sums.
 *
 * Why: on a CPU whose vector unit issues about three of these instructions a cycle (the Zen 3
 * EPYC of doc/PERFORMANCE.md, "Kernel measurements"), 32 multiply-adds take VPMADDUBSW + VPMADDWD
 * + VPADDD, three instructions, where the int16 GEMM takes two VPMADDWD and two VPADDD. The
 * block's 16 k values sit in both halves of one register (VBROADCASTI128, then VPSHUFB into the
 * packing's order: one instruction per 16 k values and row, shared by the 16 columns), and each
 * B register holds 16 k values of two columns, so no broadcast per k quad is needed; per block
 * and row: 8 B loads, 1 + 8 x 3 vector instructions for 256 MACs, 8 accumulators of 4 partial
 * sums per column, added horizontally at the end of the row.
 */
#include <immintrin.h>

#include "qwino/avx2-int16-pairs.h"
#include "qwino/ukernels.h"

static inline __attribute__((always_inline)) void gemm_row(
    size_t nr, size_t blocks, const uint8_t* a, const struct qwino_pair_block* block,
    const int xor_sign, __m256i vsign, const __m256i* init, const int8_t* b, int32_t* c) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc[8];
#pragma GCC unroll 8
  for (int j = 0; j < 8; j++) {
    acc[j] = _mm256_setzero_si256();
  }
  for (size_t e = 0; e < blocks; e++, b += 256) {
    const __m256i order =
        _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i*)block[e].shuffle));
    __m256i x = _mm256_shuffle_epi8(
        _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i*)(a + block[e].source))), order);
    if (xor_sign) {
      x = _mm256_xor_si256(x, vsign);
    }
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
      const __m256i w = _mm256_loadu_si256((const __m256i*)(b + 32 * j));
      QWINO_AVX2_ADD_IN_PLACE(acc[j], _mm256_madd_epi16(_mm256_maddubs_epi16(x, w), ones));
    }
  }
  // Register j holds columns (j / 4) * 8 + j % 4 (low half) and that + 4 (high half), 4 partial
  // sums each: two horizontal adds leave columns 0-3 | 4-7 (and 8-11 | 12-15) in order.
  const __m256i lo =
      _mm256_hadd_epi32(_mm256_hadd_epi32(acc[0], acc[1]), _mm256_hadd_epi32(acc[2], acc[3]));
  const __m256i hi =
      _mm256_hadd_epi32(_mm256_hadd_epi32(acc[4], acc[5]), _mm256_hadd_epi32(acc[6], acc[7]));
  qwino_avx2_store_int32_row16(c, nr, _mm256_add_epi32(lo, _mm256_loadu_si256(init)),
                               _mm256_add_epi32(hi, _mm256_loadu_si256(init + 1)));
}

void qwino_u8s8_gemm_ukernel_4x16c16__avx2(size_t mr, size_t nr, size_t blocks, const uint8_t* a,
                                           size_t a_stride, const struct qwino_pair_block* block,
                                           uint8_t sign, const void* packed_b, int32_t* c,
                                           size_t c_stride) {
  const __m256i* init = (const __m256i*)packed_b;
  const int8_t* b = (const int8_t*)packed_b + QWINO_U8S8_GEMM_NR * sizeof(int32_t);
  const __m256i vsign = _mm256_set1_epi8((char)sign);
  for (size_t r = 0; r < mr; r++) {
    if (sign != 0) {
      gemm_row(nr, blocks, a + r * a_stride, block, 1, vsign, init, b, c + r * c_stride);
    } else {
      gemm_row(nr, blocks, a + r * a_stride, block, 0, vsign, init, b, c + r * c_stride);
    }
  }
}
