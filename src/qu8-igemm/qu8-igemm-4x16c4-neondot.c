/*
 * 4x16 8-bit indirect GEMM with the requantization fused, ARMv8.2 dot product (SDOT), k
 * interleave 4 (both modes, uint8 and int8 outputs; contract: qwino_igemm_requantize_ukernel_fn
 * in src/qwino/ukernel-types.h). Bit-exact twin of the composition of the scalar kernels
 * qwino_s8_igemm_ukernel_4x4c16__scalar (the abias128_bbias128 kernels: ..._abias128_bbias128_...,
 * UDOT, see src/s8-igemm/s8-igemm-4x16c4-neondot.c) and qwino_s32_qu8_requantize_*_ukernel__scalar.
 * Built with -march=armv8.2-a+dotprod (its file name's suffix) and run only where cpuinfo reports
 * it.
 *
 * The accumulation is the s8-igemm kernel's (src/s8-igemm/s8-igemm-4x16c4-neondot.h, whose
 * source file's top comment has the scheme; the code below is in
 * src/qu8-igemm/qu8-igemm-4x16-neon-fused.h, shared with the i8mm kernels), starting from the bias
 * (plus the row's term where there are row terms) instead of 0: the sums wrap modulo 2^32 in any
 * order, so bias + sum is the requantize kernel's wrapping add. Each row's four registers then take
 * the requantize kernel's steps (src/qwino/requantization-neon.h, the argument for each),
 * per-channel vectors loaded once per tile, and one 16-byte store. What this saves on Neoverse N1,
 * where a Q-form store takes two ASIMD micro-ops besides its store ones: per 16 outputs, the
 * s8-igemm kernel's four int32 stores and the pass's four loads and four bias adds, against a
 * separate pass (src/s32-qu8-requantize/s32-qu8-requantize-neon.c), so that the requantization
 * costs about 1.4 ASIMD slots per output instead of about 2.7.
 *
 * Remainders: with nr < 16 the per-channel values are staged in a stack buffer (zeros past nr)
 * so that exactly nr values of each array are read, and each row's 16 bytes go through a stack
 * buffer so that exactly nr bytes are written; with nr <= 8 only the first two column registers
 * are multiplied and requantized (a layer of 24 or 40 outputs no longer pays for 32 or 48:
 * modeled N1, 1x1 56x56x96>24 16.0 -> 20.7 MACs/cycle, XNNPACK 16.3). Rows past mr are computed
 * and not stored. The clamp is left out when the bounds are the whole range of the output type
 * (the saturating narrowing gives that range already).
 */
#include "s8-igemm/s8-igemm-4x16c4-neondot.h"

#define QWINO_4X16_ACCUMULATE qwino_dot_igemm_accumulate
#define QWINO_4X16_KR 4
#include "qu8-igemm/qu8-igemm-4x16-neon-fused.h"

QWINO_FUSED_ENTRY(qwino_qu8_igemm_gemmlowp_ukernel_4x16c4__neondot, QWINO_GEMMLOWP_BODY, 0)
QWINO_FUSED_ENTRY(qwino_qu8_igemm_fp32_ukernel_4x16c4__neondot, QWINO_FP32_BODY, 0)
QWINO_FUSED_ENTRY(qwino_qu8_igemm_abias128_bbias128_gemmlowp_ukernel_4x16c4__neondot,
                  QWINO_GEMMLOWP_BODY, 1)
QWINO_FUSED_ENTRY(qwino_qu8_igemm_abias128_bbias128_fp32_ukernel_4x16c4__neondot, QWINO_FP32_BODY,
                  1)
