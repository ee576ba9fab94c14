/*
 * 4x16 int16 x int16 -> int32 GEMM micro-kernel, AVX2 + AVX-VNNI: bit-exact twin of
 * src/s16-gemm/s16-gemm-8x8-scalar.c, the AVX2 kernel (src/s16-gemm/s16-gemm-4x16c2-avx2.c, its
 * scheme, tile and remainders) with each VPMADDWD + VPADDD one VEX-encoded VPDPWSSD: the same
 * two products per int32 lane added to the accumulator without saturation, so the same sums
 * modulo 2^32 (the AVX-512 VNNI kernel's argument, src/s16-gemm/s16-gemm-8x32c2-avx512vnni.c),
 * in half the multiply-pipe instructions. An inline asm with register operands, as there (GCC
 * 12 copies a tied accumulator per intrinsic call).
 */
#include "qwino/ukernels.h"

#define QWINO_S16_GEMM_4X16C2_MAC(acc, b, a) \
  __asm__("%{vex%} vpdpwssd %2, %1, %0" : "+x"(acc) : "x"(b), "x"(a))
#include "s16-gemm/s16-gemm-4x16c2-avx2.h"

void qwino_s16_gemm_ukernel_4x16c2__avxvnni(size_t mr, size_t nr, size_t k, const int16_t* a,
                                            size_t a_stride, const int16_t* packed_b, int32_t* c,
                                            size_t c_stride) {
  qwino_s16_gemm_4x16c2(mr, nr, k, a, a_stride, packed_b, c, c_stride);
}
