/*
 * 16x64 8-bit GEMM on the operator's gathered rows with the requantization fused, AMX-INT8, A
 * biased by 128 (both modes, uint8 and int8 outputs; contract: qwino_gemm_requantize_ukernel_fn
 * in src/qwino/ukernel-types.h). Bit-exact twin of the composition of
 * qwino_s8_igemm_abias128_ukernel_4x4c16__scalar (one tap, a_sign 0x80) and
 * qwino_s32_qu8_requantize_*_ukernel__scalar.
 *
 * The rows are TDPBUSD's A already (the unsigned bytes, 64-byte blocks of whole rows): each A tile
 * is one tile load from them, 16 rows a_stride apart, where the indirect kernel copies 16 rows per
 * tile from its pointers (src/s8-igemm/s8-igemm-abias128-16x64c4-amx.h, which has the scheme and
 * the order: panels outer, so that one panel's B stays in L2 for all the call's row blocks). The
 * requantization is src/qu8-igemm/qu8-igemm-abias128-16x64c4-amx.h's.
 */
#include "qu8-igemm/qu8-igemm-abias128-16x64c4-amx.h"
#include "qwino/ukernels.h"

/* The indirect kernels' row-pointer arguments, which rows make unused: a variable, not a null
 * pointer constant, for the pointer arithmetic of their (dead) gather in the shared body. */
#define QWINO_NO_POINTERS                   \
  const uint8_t* const* no_pointers = NULL; \
  const uint8_t* no_zero = NULL

void qwino_qu8_gemm_abias128_gemmlowp_ukernel_16x64c4__amx(QWINO_GEMM_REQUANTIZE_PARAMETERS) {
  QWINO_NO_POINTERS;
  QWINO_AMX_FUSED_GEMMLOWP(1, no_pointers, 0, no_zero, 0x80, a, a_stride);
}

void qwino_qu8_gemm_abias128_fp32_ukernel_16x64c4__amx(QWINO_GEMM_REQUANTIZE_PARAMETERS) {
  QWINO_NO_POINTERS;
  QWINO_AMX_FUSED(qwino_x86_fp32, 1, no_pointers, 0, no_zero, 0x80, a, a_stride);
}
