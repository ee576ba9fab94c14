/*
 * 4x16 8-bit indirect GEMM micro-kernel, ARMv8.2 dot product (SDOT), k interleave 4 (c4):
 * bit-exact twin of src/s8-igemm/s8-igemm-4x4c16-scalar.c (contract: qwino_igemm_ukernel_fn in
 * src/qwino/ukernel-types.h), for the dot-product cores (Cortex-A55/A76, Neoverse N1: doc/DESIGN.md
 * section 6). Built with -march=armv8.2-a+dotprod (its file name's -neondot suffix, CMakeLists.txt)
 * and run only where cpuinfo reports the extension (src/init.cc, src/configs/), so the library
 * still runs on ARMv8.0.
 *
 * Packed B with KR = 4 is SDOT's operand layout: per 4 k, the 16 columns' 4 values each are 64
 * contiguous bytes, i.e. 4 q registers of 4 columns x 4 k. One SDOT by element multiplies such a
 * register by 4 k of one A row (a 32-bit lane of the A register) and adds the four products of
 * each column into its int32 lane: 16 MACs. Per 16 k the 4 x 16 tile takes 4 A loads (16 bytes
 * a row), 16 B loads and 64 SDOTs for 1024 MACs. On Neoverse N1 SDOT issues on both ASIMD pipes,
 * so the loop is SDOT-bound at 32 MACs per cycle with 84 instructions per 32 cycles (under the
 * 4-wide decode). The 16 accumulators plus 4 B and 4 A registers fit the 32 vector registers.
 * uint8 activations need A XORed with 0x80: one Q-form EOR per 16 k of a row, 4 per 64 SDOTs
 * (16 k a step rather than 8 halves that against D-form EORs). The abias128_bbias128 kernel
 * multiplies the bytes as they are with UDOT instead: A + 128 (a uint8 activation's own byte) by
 * B + 128, which the operator packs for it; what that adds, 128 x the row's sum of A + 128, the
 * operator takes off with the row sums it already computes for other weight zero points
 * (src/convolution-indirect.cc). It is the dot-product cores' kernel for uint8 activations: no
 * EOR, against one row sum a pixel (about 1/N of the multiplies). The loop is in
 * src/s8-igemm/s8-igemm-4x16c4-neondot.h, shared with the fused kernels of src/qu8-igemm/; the
 * stores and entry points in src/s8-igemm/s8-igemm-4x16-neon-entries.h, shared with the i8mm
 * kernel.
 *
 * Exactness: SDOT multiplies int8 by int8 (UDOT uint8 by uint8) into int32 exactly and adds
 * modulo 2^32 (the accumulators wrap like the contract's); a = (int8_t) (byte ^ a_sign), the XOR
 * done on the A vector (skipped when a_sign == 0: int8 activations; for UDOT, byte ^ a_sign ^
 * 0x80 = a + 128, skipped when a_sign == 0x80: uint8 activations). Bytes past kc in a row are
 * never read: steps of 16 k, then one of 8, then the last kc % 8 bytes, loaded as the row's
 * last 8 bytes shifted into place when kc >= 8, or assembled from 4-, 2- and 1-byte loads; the
 * lanes past kc meet B's zero padding. Rows past mr re-read row mr - 1 (valid memory) and are
 * not stored; columns past nr are B's zero padding and are not stored.
 */
#include "s8-igemm/s8-igemm-4x16c4-neondot.h"

#define QWINO_4X16_ACCUMULATE qwino_dot_igemm_accumulate
#include "s8-igemm/s8-igemm-4x16-neon-entries.h"

QWINO_4X16_IGEMM_ENTRY(qwino_s8_igemm_ukernel_4x16c4__neondot, 0)
QWINO_4X16_IGEMM_ENTRY(qwino_s8_igemm_abias128_bbias128_ukernel_4x16c4__neondot, 1)
