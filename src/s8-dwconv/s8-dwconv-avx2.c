/*
 * Depthwise convolution with fused requantization, AVX2, int16_tap_pairs weights (CR = 32): the
 * body is src/s8-dwconv/s8-dwconv-avx2.h (its top comment has the scheme and the argument), with
 * each tap pair's products added by VPMADDWD + VPADDD.
 */
#include <immintrin.h>

#define QWINO_S8_DWCONV_AVX2_MAC(acc, x, w) \
  (acc) = _mm256_add_epi32((acc), _mm256_madd_epi16((x), (w)))
#include "s8-dwconv/s8-dwconv-avx2.h"

QWINO_S8_DWCONV_AVX2_ENTRY(qwino_s8_dwconv_gemmlowp_ukernel_up32__avx2_madd, gemmlowp)
QWINO_S8_DWCONV_AVX2_ENTRY(qwino_s8_dwconv_fp32_ukernel_up32__avx2_madd, fp32)
