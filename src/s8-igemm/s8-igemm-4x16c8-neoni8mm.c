/*
 * 4x16 8-bit indirect GEMM micro-kernel, Armv8.6 int8 matrix multiply (SMMLA; UMMLA for the
 * abias128_bbias128 kernel), k interleave 8 (c8): bit-exact twin of
 * src/s8-igemm/s8-igemm-4x4c16-scalar.c (contract: qwino_igemm_ukernel_fn in
 * src/qwino/ukernel-types.h), for the i8mm cores (Neoverse V1/V2/N2, Cortex-A710 and later:
 * doc/DESIGN.md section 6). Built with -march=armv8.2-a+dotprod+i8mm (its file name's -neoni8mm
 * suffix, CMakeLists.txt) and run only where the configs find i8mm (src/init.cc, src/configs/).
 *
 * SMMLA multiplies a 2x8 int8 block of A (two rows' 8 k, one q register) by an 8x2 block of B
 * (two columns' 8 k, one q register) into a 2x2 int32 block: 32 MACs, against 16 for an SDOT.
 * Packed B with KR = 8 is its operand layout as it is: per 8 k, column n's 8 values then column
 * n + 1's, 16 bytes a column pair, 128 bytes for the panel's 16 columns (src/packing.cc). A row
 * pair's register is two rows' 8 k side by side: per 16 k, the four rows' 16-byte loads and four
 * ZIP1/ZIP2 of 64-bit halves give the pairs of both 8-k steps. So the 4 x 16 tile takes, per
 * 16 k, 4 A loads, 4 ZIPs (and 4 EORs for uint8 activations), 16 B loads and 32 SMMLAs for 1024
 * MACs: 36-40 ASIMD instructions for 32 SMMLA slots. The 16 block accumulators (rows 2p, 2p + 1
 * x columns 2q, 2q + 1) plus 8 B and 4-6 A registers fit the 32 vector registers. This kernel's
 * tile enters and leaves the loop in the dot-product kernels' row layout (16 ZIPs each way, once a
 * tile), so their int32 stores serve it unchanged; the fused kernels keep the block layout
 * (src/qu8-igemm/qu8-igemm-4x16c8-neoni8mm.c).
 *
 * Exactness: SMMLA multiplies int8 by int8 (UMMLA uint8 by uint8) into int32 exactly and adds
 * modulo 2^32, as the contract's accumulators wrap; the A bytes, the rows past mr and the bytes
 * past kc are handled as in the SDOT kernel (src/s8-igemm/s8-igemm-4x16c4-neondot.c): lanes past
 * kc meet B's zero padding, which KR = 8 makes a multiple of 8 k.
 */
#include "s8-igemm/s8-igemm-4x16c8-neoni8mm.h"

#define QWINO_4X16_ACCUMULATE qwino_i8mm_igemm_accumulate
#include "s8-igemm/s8-igemm-4x16-neon-entries.h"

QWINO_4X16_IGEMM_ENTRY(qwino_s8_igemm_ukernel_4x16c8__neoni8mm, 0)
QWINO_4X16_IGEMM_ENTRY(qwino_s8_igemm_abias128_bbias128_ukernel_4x16c8__neoni8mm, 1)
