/*
 * Depthwise convolution with fused requantization, AVX2 + AVX-VNNI, int16_tap_pairs weights
 * (CR = 32): the AVX2 kernel's body (src/s8-dwconv/s8-dwconv-avx2.h, the scheme and the argument)
 * with each tap pair's VPMADDWD + VPADDD one VEX-encoded VPDPWSSD: the same two products per
 * int32 lane, added without saturation, so the same sums modulo 2^32 (|x B| <= 255 * 32768). An
 * inline asm with register operands, as in the int16 GEMMs (GCC 12 copies a tied accumulator per
 * intrinsic call).
 */
#include <immintrin.h>

#define QWINO_S8_DWCONV_AVX2_MAC(acc, x, w) \
  __asm__("%{vex%} vpdpwssd %2, %1, %0" : "+x"(acc) : "x"(x), "x"(w))
#include "s8-dwconv/s8-dwconv-avx2.h"

QWINO_S8_DWCONV_AVX2_ENTRY(qwino_s8_dwconv_gemmlowp_ukernel_up32__avxvnni_dpwssd, gemmlowp)
QWINO_S8_DWCONV_AVX2_ENTRY(qwino_s8_dwconv_fp32_ukernel_up32__avxvnni_dpwssd, fp32)
