// Tuning numbers: every constant that trades speed and nothing else, in one place per CPU family
// (as BLIS keeps its blocking parameters per architecture). Changing one changes no output byte.
// The reasons behind each value are in doc/DESIGN.md sections 5 (work split) and 6 (cost model);
// the measurements that set them (machines, layers, figures) are in doc/PERFORMANCE.md, "Tuning
// numbers", one entry per constant by name.
#ifndef QWINO_TUNING_H_
#define QWINO_TUNING_H_

#include <stddef.h>

/*
 * Cost model (src/algorithm-choice.cc): every family's list entry carries the cost of its kernel's
 * unit of work, in one unit for all families, so that a kernel set mixing ISAs is modeled as it
 * runs: a GEMM entry costs per multiply-accumulate, a transform or requantize entry per value it
 * transforms, im2cols or requantizes. A vector GEMM does 4-8 MACs per multiply instruction, a
 * vector transform a few instructions per 8 lanes: 2 MACs per value. The scalar costs
 * (QWINO_SCALAR_MAC_COST, QWINO_SCALAR_VALUE_COST) are measured ratios to the vector ones.
 */
#define QWINO_VECTOR_MAC_COST 1.0f
/* An 8-bit multiply-accumulate of the NEON indirect GEMM: 8 per cycle on the A72's multiply
 * pipe (SMULL/SMLAL on 8 lanes) against 4 for the int16 GEMM (doc/DESIGN.md section 6). */
#define QWINO_NEON_MAC8_COST 0.5f
/* An 8-bit multiply-accumulate of the x86 indirect GEMMs (SSE4.1 6x8c2, AVX2 6x16c2): the int16
 * GEMM's PMADDWD on int8 widened in the kernel (B once per k pair), so slower per MAC. The model
 * takes indirect below 2 / (cost - 1) outputs per group: 1.05 puts that at 40, within the range
 * where the two paths measured even. */
#define QWINO_X86_MAC8_COST 1.05f
/* The AVX2 pair GEMM (src/u8s8-gemm/u8s8-gemm-4x16c16-avx2.c): VPMADDUBSW + VPMADDWD + VPADDD
 * for 32 multiply-adds where the int16 GEMM takes four instructions, plus one VPSHUFB per 256
 * (25 against 32); the layers measured 1.2-1.3x faster than on the int16 GEMM (doc/PERFORMANCE.md,
 * "Kernel measurements"). Blocks the packing splits are not modeled: a layer whose splits make
 * the pair panels cost as much as the int16 ones keeps the int16 ones (src/convolution-direct.cc).
 */
#define QWINO_X86_PAIRS_MAC8_COST 0.8f
/* The AVX-512 VNNI GEMMs against the AVX-512 transforms and requantization (which cost
 * QWINO_VECTOR_VALUE_COST a value, like every vector transform): VPDPWSSD (int16 GEMM) does 32
 * MACs an instruction and VPDPBUSD (8-bit indirect GEMM) 64, where a transformed or requantized
 * value takes about two vector instructions for 16 lanes; the ratios are measured time shares. */
#define QWINO_X86_VNNI_MAC16_COST 0.19f
#define QWINO_X86_VNNI_MAC8_COST 0.08f
/* AVX-VNNI (VEX, 256 bits) against the AVX2 transforms and requantization: VPDPWSSD does 16 MACs
 * an instruction where the AVX2 int16 GEMM needs VPMADDWD + VPADDD, and VPDPBUSD 32, half of the
 * AVX-512 VNNI instructions' work at the same issue rate, so twice their costs. */
#define QWINO_X86_AVXVNNI_MAC16_COST 0.5f
#define QWINO_X86_AVXVNNI_MAC8_COST 0.16f
/* AMX-INT8 (src/s8-igemm/s8-igemm-abias128-16x64c4-amx.c): a TDPBUSD does 16K multiply-adds
 * where VPDPBUSD does 64, and the kernel copies each A row block of 64 bytes once per 64 columns;
 * its fixed work per call (tile configuration, the C tiles' store and copy, the release) is
 * larger than a VNNI kernel's. */
#define QWINO_X86_AMX_MAC8_COST 0.03f
#define QWINO_X86_AMX_TILE_COST 1024.0f
/* Rows of more than this many bytes (taps x channels) the AMX layers gather once per work item
 * and read as tiles (src/qu8-gemm/), instead of the indirect kernel gathering A per panel: its
 * stack holds 2048 bytes of a row block's rows (src/s8-igemm/s8-igemm-abias128-16x64c4-amx.h),
 * and below that the gather in the kernel, on L1-hot rows, beat the work item's copy. */
#define QWINO_X86_AMX_GATHERED_ROW_BYTES 2048
/* Their work item's working set (the gathered rows and C), which stays in L2 while one panel's B
 * passes the region's row blocks. */
#define QWINO_X86_AMX_GATHERED_REGION_BYTES (1024 * 1024)
/* An 8-bit multiply-accumulate of the dot-product indirect GEMM (SDOT, 4x16c4): 16 MACs per
 * instruction, two per cycle on Neoverse N1, against 4-lane SMLALs for the int16 GEMM
 * (doc/DESIGN.md section 6). Provisional until measured with the ruler's N1 model. */
#define QWINO_NEONDOT_MAC8_COST 0.15f
/* An 8-bit multiply-accumulate of the i8mm indirect GEMM (SMMLA, 4x16c8): 32 MACs per
 * instruction against SDOT's 16 at the same issue rate on Neoverse V1 and N2, so half the SDOT
 * kernel's cost. Provisional until measured with the ruler's V1 and N2 models. */
#define QWINO_NEONI8MM_MAC8_COST 0.075f
/* Winograd's packed weights, per byte and image (src/convolution-winograd.cc, part_cost):
 * F(4x4,3x3) keeps 36 int16 per channel pair, 8x the int8 weights, and a layer's items stream
 * them from L2 or farther once per image, which costs on deep layers of small maps (7x7x512: 18.9
 * MB for 49 pixels). The ARM ruler counts instructions and no cache misses, so the ARM model
 * leaves it out. */
#if defined(__x86_64__) || defined(_M_X64)
#define QWINO_WINOGRAD_WEIGHT_BYTE_COST 0.5
#else
#define QWINO_WINOGRAD_WEIGHT_BYTE_COST 0.0
#endif
/* F(2x2,3x3) tiles at the edges of an F(4x4,3x3) map (plan_winograd_tiling) need F(2x2,3x3)'s
 * packed weights too, 16 int16 per channel pair beside F(4x4,3x3)'s 36, streamed once more per
 * image. On x86 (Zen 3, 1 thread, against whole tiles) that gained 10-18% on 14x14x64,
 * 14x14x128 and 10x10x256 (1.7-6.8 MB of both packings), 2% on 14x14x256, nothing on 14x14x384
 * (15 MB), and lost 25% on 14x14x512 (27 MB: both packings then come from memory), which the
 * per-byte cost above cannot tell apart; so x86 takes the edges only up to this many bytes of
 * both packings. The ARM figures are the ruler's, which counts no cache misses: no limit. */
#if defined(__x86_64__) || defined(_M_X64)
#define QWINO_WINOGRAD_EDGE_WEIGHT_BYTES (8.0 * 1024 * 1024)
#else
#define QWINO_WINOGRAD_EDGE_WEIGHT_BYTES 1.0e30
#endif
/* Winograd's fixed work per int32 product (tiles x positions x output channels), in multiplies
 * of its GEMM: the GEMM's accumulator set-up and store of each product and the output
 * transform's load of it cost the same at any depth K, which the model's per-channel terms
 * leave out. Measured on x86 (VGG-16's 224x224 layer at K = 3 against K = 64), that fixed part is
 * worth 43-61 channels of GEMM; 8 is the value with which the model's choice moves only where
 * the measurements say it should (the 3-channel first layer: to the direct path on AVX2, 1.7x
 * faster, and to the indirect GEMM on AVX-VNNI, 2.2x) and no other 3x3 layer of the six networks
 * at the avx2, avxvnni and avx512 levels (doc/PERFORMANCE.md, "Tuning numbers"): the other x86
 * costs were fitted without it. The ARM ruler's counts were fitted without it too, so the ARM
 * model leaves it out. */
#if defined(__x86_64__) || defined(_M_X64)
#define QWINO_WINOGRAD_PRODUCT_MACS 8.0
#else
#define QWINO_WINOGRAD_PRODUCT_MACS 0.0
#endif
#define QWINO_SCALAR_MAC_COST 8.0f
#define QWINO_VECTOR_VALUE_COST 2.0f
#define QWINO_SCALAR_VALUE_COST 50.0f
/* The indirect GEMM's fixed work, in the same unit (a quarter of a cycle on the A72 and N1):
 * per call of its kernel (one mr x nr tile: accumulator set-up, reduction, stores), per tap a
 * call reads (the rows' pointers, the short rows' assembly), and per kernel row a gathered row
 * copies (src/convolution-indirect.cc). With these the model takes the int16 direct path on
 * shallow layers where the indirect kernel is decode-bound, and the gathered rows on a 7x7
 * first layer. */
#define QWINO_IGEMM_TILE_COST 128.0f
#define QWINO_IGEMM_TAP_COST 32.0f
/* The A72's 2x8 NEON kernel (src/s8-igemm/s8-igemm-2x8c16-neon-mlal.c) per tile: smaller than
 * the generic tile cost, which kept shallow layers on the int16 direct path although the
 * indirect GEMM ran them faster. */
#define QWINO_NEON_IGEMM_TILE_COST 56.0f
/* Per row and tap shorter than QWINO_IGEMM_SHORT_ROW_BYTES: the NEON kernels assemble rows of
 * fewer than 8 bytes from 4-, 2- and 1-byte loads (src/qwino/partial-loads.h); the x86 kernels
 * load a row of fewer bytes than their k interleave with a masked load and a register broadcast
 * (two more vector instructions than a broadcast from memory, each about a VPDPBUSD's slot,
 * QWINO_X86_VNNI_MAC8_COST x 64). With it the model gathers the 3-channel first layers on x86
 * (AVX-512 VNNI, MobileNet's 224x224x3>32 3x3/2: 190 -> 156 us; doc/PERFORMANCE.md). */
#if defined(__aarch64__) || defined(_M_ARM64)
#define QWINO_IGEMM_SHORT_ROW_COST 12.0f
#define QWINO_IGEMM_SHORT_ROW_BYTES(kr) 8
#else
#define QWINO_IGEMM_SHORT_ROW_COST 10.0f
#define QWINO_IGEMM_SHORT_ROW_BYTES(kr) (kr)
#endif
/* A gathered kernel row, per pixel: 80 is the ARM figure above (60-65 instructions); on x86 a
 * quarter of that (AVX-512 VNNI, 224x224x3>32 3x3/2: the copy's 20% of 156 us, about 2 cycles a
 * kernel row). */
#if defined(__x86_64__) || defined(_M_X64)
#define QWINO_IGEMM_GATHER_ROW_COST 20.0f
#else
#define QWINO_IGEMM_GATHER_ROW_COST 80.0f
#endif
/* The row sums of uint8 weights whose zero point is not 128 (src/s8-irsum/), per pixel: about one
 * more output channel's MACs for the bytes, plus this per tap the sums read (its pointer, the
 * zero-row test, the partial or masked load of a short row). */
#define QWINO_IRSUM_TAP_COST 30.0f
/* Dot-product cores, uint8 activations: the UDOT kernels (b_bias 128, src/s8-igemm/s8-igemm.inc)
 * skip the XOR of each 16 bytes of A a panel reads (half a cycle on the N1's two ASIMD pipes)
 * but need the row sums, whose UDOTs cost about one panel's XORs plus about this many cycles a
 * pixel. So a layer takes them when its XORs beyond one panel's save more, or when its weights
 * need the row sums anyway (src/convolution-indirect.cc). */
#define QWINO_NEONDOT_XOR_CYCLES 0.5
/* AVX-512 VNNI, int8 activations: the XOR-free kernels (a_bias 0, b_bias 128) save one XOR per 4
 * bytes of every row, tap and panel of 64 columns, an instruction slot of the VNNI ports, i.e.
 * one VPDPBUSD's 64 MACs at QWINO_X86_VNNI_MAC8_COST, and need the row sums (their cost model
 * term). MobileNet's 3-channel 3x3/2 first layer (9 taps of 3 bytes, one panel) ran 193 us with
 * them against 191 without, and the row sums' cost then gave it to the direct path (224 us). */
#define QWINO_X86_VNNI_XOR_COST 5.0
/* ... and, beyond the row sums' term of the cost model, this per pixel: their pass over A
 * (src/s8-irsum/) and the kernels' row terms cost more than the term says on shallow layers.
 * Zen 5, int8 1x1 layers, row sums against XORs (XORs = k quads x panels): XORs faster at 8-36
 * (112x112x32>16 56 against 83 us, 56x56x96>24 31 against 39, 28x28x144>32 10.4 against 12.5,
 * 56x56x64>64 46 against 50), row sums faster from 64 (56x56x64>256 188 against 204,
 * 56x56x128>128 175 against 196, 28x28x256>256 152 against 172, 7x7x1152>320 42 against 52).
 * Not where the XOR form's last panel is narrower and not the only one (112x112x16>96 217
 * against 190, 56x56x24>144 93 against 76: src/convolution-indirect.cc). */
#define QWINO_X86_VNNI_ROW_SUMS_PIXEL_COST 200.0
#define QWINO_NEONDOT_ROW_SUMS_PIXEL_CYCLES 12.0

#ifdef __cplusplus
namespace qwino {

// The fused indirect GEMM takes all of a work item's weight panels in one call when they total
// at most this (they then stay in L1 as the rows stream past; larger ones go a panel a call).
constexpr size_t kIgemmFusedPanelsBytes = 16 * 1024;
// The same for fused kernels that pack their rows once per call (row_blocks 2,
// src/qu8-igemm/qu8-igemm.inc: the i8mm kernels, whose cores have 64 KB of L1 data cache): each
// further panel of a call saves a packing's ZIPs. Modeled V1, int8, 3x3 56x56x64>64 (panels of
// 9 KB): 105.7 MACs/cycle with 16 KB (a panel a call), 113.2 with 40 KB (4).
constexpr size_t kIgemmPackedRowsPanelsBytes = 40 * 1024;

// The indirect GEMM and the depthwise path keep the pixel pointers of the whole set-up input
// from setup to setup up to this many bytes; beyond it each work item writes its own pointers
// into its scratch at every run. This bounds the scratch by the thread count and the region, not
// the image (qwino.h). The largest layers of the benchmark networks (224x224 inputs) stay below
// it, so they pay nothing per run: VGG-16's 224x224x64 3x3 layer on the indirect GEMM takes
// 3.4 MiB, a 112x112 3x3 depthwise layer 300 KiB. Per item the pointers cost a few instructions
// a tap, against a tap's whole row of multiplies.
constexpr size_t kMaxPrebuiltIndirectionBytes = 4 * 1024 * 1024;

struct WorkSplitTuning {
  // Working set of one work item (Winograd: V of its region plus M of one channel pass; direct:
  // the im2col rows A plus C) that keeps it in L2 with room to spare; the GEMM's B panel and the
  // A rows it streams stay in L1.
  size_t region_bytes_target;
  size_t max_region_tiles;
  // The direct path's regions: at most this many output pixels, so that an image gives several
  // items to share among threads.
  size_t max_direct_region_pixels;
  // With fewer items per thread than this, the last items leave threads idle (7 items on 2
  // threads: 4 + 3), so output channels are split.
  size_t items_per_thread;
};

// Cortex-A72 (1 MiB shared L2 per 4 cores, 32 KiB L1D) and x86-64 cores with 1 MiB of L2 per
// core: larger working sets were no faster on x86, so both use one set of numbers today.
#if defined(__aarch64__)
constexpr WorkSplitTuning kWorkSplitTuning = {128 * 1024, 64, 64, 4};
#else
constexpr WorkSplitTuning kWorkSplitTuning = {128 * 1024, 64, 64, 4};
#endif

}  // namespace qwino
#endif

#endif  // QWINO_TUNING_H_
