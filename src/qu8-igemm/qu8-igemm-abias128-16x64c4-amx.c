/*
 * 16x64 8-bit indirect GEMM with the requantization fused, AMX-INT8, A biased by 128 (both
 * modes, uint8 and int8 outputs; contract: qwino_igemm_requantize_ukernel_fn in
 * src/qwino/ukernel-types.h). Bit-exact twin of the composition of
 * qwino_s8_igemm_abias128_ukernel_4x4c16__scalar and qwino_s32_qu8_requantize_*_ukernel__scalar.
 * The accumulation is src/s8-igemm/s8-igemm-abias128-16x64c4-amx.h's (A gathered from the row
 * pointers into blocks, a row block's A serving all the panels of a call where it fits), the
 * requantization src/qu8-igemm/qu8-igemm-abias128-16x64c4-amx.h's.
 */
#include "qu8-igemm/qu8-igemm-abias128-16x64c4-amx.h"
#include "qwino/ukernels.h"

void qwino_qu8_igemm_abias128_gemmlowp_ukernel_16x64c4__amx(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {
  QWINO_AMX_FUSED_GEMMLOWP(ks, a, a_offset, zero, a_sign, NULL, 0);
}

void qwino_qu8_igemm_abias128_fp32_ukernel_16x64c4__amx(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {
  QWINO_AMX_FUSED(qwino_x86_fp32, ks, a, a_offset, zero, a_sign, NULL, 0);
}
