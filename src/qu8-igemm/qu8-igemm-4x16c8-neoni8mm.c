/*
 * 4x16 8-bit indirect GEMM with the requantization fused, Armv8.6 int8 matrix multiply (SMMLA;
 * UMMLA for the abias128_bbias128 kernels), k interleave 8 (both modes, uint8 and int8 outputs;
 * contract: qwino_igemm_requantize_ukernel_fn in src/qwino/ukernel-types.h). Bit-exact twin of the
 * composition of the scalar kernels qwino_s8_igemm_ukernel_4x4c16__scalar
 * (..._abias128_bbias128_... for UMMLA) and qwino_s32_qu8_requantize_*_ukernel__scalar. Built with
 * i8mm (its file name's suffix) and run only where the configs find it.
 *
 * The accumulation is the s8-igemm i8mm kernel's (src/s8-igemm/s8-igemm-4x16c8-neoni8mm.h, whose
 * source file's top comment has the scheme); the remainders, the variants and the entry points are
 * the dot-product kernels' (src/qu8-igemm/qu8-igemm-4x16-neon-fused.h; the argument is at the top
 * of src/qu8-igemm/qu8-igemm-4x16c4-neondot.c), but the tile stays in SMMLA's 2x2 block layout
 * (QWINO_4X16_BLOCKS): each call stages its panels' channel arrays in that layout once, the
 * accumulators start from them, the requantization (lane by lane) runs on the blocks, and one
 * UZP1 and one UZP2 of 16-bit lanes per row pair put the narrowed bytes in row order. Taking the
 * tile to the row layout and back cost 32 ZIPs a tile, and GCC added about 44 register copies
 * around the loop; with them gone, modeled V1 (bench/network-figures.sh --core v1), int8: 1x1
 * 56x56x64>64 52.2 -> 67.7 MACs/cycle, 28x28x128>512 71.5 -> 84.9, 28x28x512>128 99.1 -> 104.8.
 * A call of several panels also packs each block of rows once (qwino_i8mm_pack_rows: the row
 * pairs as the ZIPs make them, up to QWINO_I8MM_PACKED_ROWS_MAX bytes on the stack), so its
 * tiles load ready row pairs instead of paying 4 ZIPs per 16 k and panel, and the operator gives
 * these kernels 40 KB of panels a call (row_blocks 2, src/qu8-igemm/qu8-igemm.inc): then 70.9,
 * 90.9 and 112.1, and 3x3 56x56x64>64 105.7 -> 113.2.
 */
#include "s8-igemm/s8-igemm-4x16c8-neoni8mm.h"

#define QWINO_4X16_BLOCKS 1
#define QWINO_4X16_KR 8
#include "qu8-igemm/qu8-igemm-4x16-neon-fused.h"

QWINO_FUSED_ENTRY(qwino_qu8_igemm_gemmlowp_ukernel_4x16c8__neoni8mm, QWINO_GEMMLOWP_BODY, 0)
QWINO_FUSED_ENTRY(qwino_qu8_igemm_fp32_ukernel_4x16c8__neoni8mm, QWINO_FP32_BODY, 0)
QWINO_FUSED_ENTRY(qwino_qu8_igemm_abias128_bbias128_gemmlowp_ukernel_4x16c8__neoni8mm,
                  QWINO_GEMMLOWP_BODY, 1)
QWINO_FUSED_ENTRY(qwino_qu8_igemm_abias128_bbias128_fp32_ukernel_4x16c8__neoni8mm, QWINO_FP32_BODY,
                  1)
