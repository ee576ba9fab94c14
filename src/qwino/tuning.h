// Tuning numbers: every constant that trades speed and nothing else, in one place per CPU family
// (as BLIS keeps its blocking parameters per architecture). Changing one changes no output byte.
// The reasons behind each value are in doc/DESIGN.md sections 5 (work split) and 6 (cost model).
#ifndef QWINO_TUNING_H_
#define QWINO_TUNING_H_

#include <stddef.h>

/*
 * Cost model (src/algorithm-choice.cc): every family's list entry carries the cost of its kernel's
 * unit of work, in one unit for all families, so that a kernel set mixing ISAs is modeled as it
 * runs: a GEMM entry costs per multiply-accumulate, a transform or requantize entry per value it
 * transforms, im2cols or requantizes. A vector GEMM does 4-8 MACs per multiply instruction, a
 * vector transform a few instructions per 8 lanes: 2 MACs per value.
 * The scalar costs are measured (x86-64, Zen 5, one thread, bench/qwino-conv-run): the scalar
 * GEMM ran F(2x2,3x3) on 56x56x64 7.4x slower than the SSE4.1 one (hence 8). With the SSE4.1
 * GEMM and F(2x2,3x3) transforms but scalar F(4x4,3x3) transforms (the SSE4.1 set has none),
 * F(2x2,3x3) won 56x56x64 (1.91 against 2.21 ms) and 14x14x256 (1.37 / 1.51), F(4x4,3x3) won
 * 28x28x128 (1.51 / 1.61) and 7x7x512 (1.70 / 1.80): the model agrees with all four for a
 * scalar transform cost between 49 and 53 MACs per value.
 */
#define QWINO_VECTOR_MAC_COST 1.0f
/* An 8-bit multiply-accumulate of the NEON indirect GEMM: 8 per cycle on the A72's multiply
 * pipe (SMULL/SMLAL on 8 lanes) against 4 for the int16 GEMM (doc/DESIGN.md section 6). */
#define QWINO_NEON_MAC8_COST 0.5f
/* An 8-bit multiply-accumulate of the x86 indirect GEMMs (SSE4.1 6x8c2, AVX2 6x16c2): the int16
 * GEMM's PMADDWD on int8 widened in the kernel (B once per k pair), so slower per MAC. Measured
 * on Zen 3 (EPYC, one thread): the kernels alone, L1-resident, AVX2 ~62 GMAC/s against ~72 for
 * the int16 4x16c2 (1.15 per MAC), SSE4.1 ~27 against ~32.5 for 4x8c2 (1.2). Whole qs8_qc8w
 * layers (bench/qwino-conv-run, indirect against direct, medians of interleaved runs): 1x1
 * 28x28x128>128 1.07x the time, 1x1 56x56x64>256 1.12x, 3x3/2 56x56x64>128 1.08x, 7x7/2
 * 224x224x3>64 3.1x (3 channels a tap); about even for 1x1 and 3x3/2 layers with 32 to 64
 * outputs, indirect 1.1-1.8x faster for grouped layers with 16 or 32 outputs per group (the
 * direct path's im2col costs more there than its 2 per value). The model takes indirect below
 * 2 / (cost - 1) outputs per group (even channel counts): 1.05 puts that at 40, within the
 * measured even range. */
#define QWINO_X86_MAC8_COST 1.05f
/* The AVX-512 VNNI GEMMs against the AVX-512 transforms and requantization (which cost
 * QWINO_VECTOR_VALUE_COST a value, like every vector transform): VPDPWSSD (int16 GEMM) does 32
 * MACs an instruction and VPDPBUSD (8-bit indirect GEMM) 64, where a transformed or requantized
 * value takes about two vector instructions for 16 lanes. Measured on Emerald Rapids (one
 * thread, perf record on bench/qwino-conv-run): VGG's 224x224x3>64 with F(4x4,3x3) spent 2.6x
 * as long in the output transform (144 values a pixel) as in the GEMM (576 MACs a pixel): 0.19
 * per int16 MAC; the same layer on the indirect GEMM spent 0.9x as long requantizing (64 values
 * a pixel) as multiplying (1792 8-bit MACs a pixel): 0.08 per 8-bit MAC. */
#define QWINO_X86_VNNI_MAC16_COST 0.19f
#define QWINO_X86_VNNI_MAC8_COST 0.08f
/* An 8-bit multiply-accumulate of the dot-product indirect GEMM (SDOT, 4x16c4): 16 MACs per
 * instruction, two per cycle on Neoverse N1, against 4-lane SMLALs for the int16 GEMM (doc/DESIGN.md
 * section 6). Provisional until measured with the ruler's N1 model. */
#define QWINO_NEONDOT_MAC8_COST 0.15f
/* Winograd's packed weights, per byte and image (src/convolution-winograd.cc, winograd_cost):
 * F(4x4,3x3) keeps 36 int16 per channel pair, 8x the int8 weights, and a layer's items stream
 * them from L2 or farther once per image, which costs on deep layers of small maps (7x7x512: 18.9
 * MB for 49 pixels). Measured on Emerald Rapids (one thread, bench/qwino-conv-run -d qu8_qc8w,
 * indirect GEMM against forced F(4x4,3x3), us): 14x14x256 348 / 390 and 7x7x512 392 / 807, which
 * the arithmetic alone puts the other way; 28x28x128 354 / 241 and 56x56x64 370 / 311. 0.5 per
 * byte orders all four as measured (0.35 < c < 2.7 does). The ARM ruler counts instructions and
 * no cache misses, so the ARM model leaves it out (its 7x7x512 F(4x4,3x3) is 12.2 MACs/cycle
 * against the indirect GEMM's 8 at most). */
#if defined(__x86_64__) || defined(_M_X64)
#define QWINO_WINOGRAD_WEIGHT_BYTE_COST 0.5
#else
#define QWINO_WINOGRAD_WEIGHT_BYTE_COST 0.0
#endif
#define QWINO_SCALAR_MAC_COST 8.0f
#define QWINO_VECTOR_VALUE_COST 2.0f
#define QWINO_SCALAR_VALUE_COST 50.0f
/* The indirect GEMM's fixed work, in the same unit (a quarter of a cycle on the A72 and N1):
 * per call of its kernel (one mr x nr tile: accumulator set-up, reduction, stores), per tap a
 * call reads (the rows' pointers, the short rows' assembly), and per kernel row a gathered row
 * copies (src/convolution-indirect.cc). Measured with the ruler (modeled A72 and N1, qs8_qc8w):
 * the 2x8 NEON kernel spent about 100 a tile over its MACs and requantization on 1x1
 * 112x112x27>32, the 4x16 SDOT one about 180 there and about 680 a tile of 9 taps of 3 channels
 * (MobileNet's first layer), and gathering a kernel row took 60-65 instructions (16-20 cycles).
 * With these the model takes the int16 direct path on shallow layers where the indirect kernel
 * is decode-bound (112x112x16>96 on the A72: 3.56 against 3.39 MACs/cycle, and MobileNet's
 * first layer: 3.72 against 3.39) and the gathered rows on a 7x7 first layer (7.54 against
 * 3.95 on the A72, 23.6 against 7.4 on the N1). */
#define QWINO_IGEMM_TILE_COST 128.0f
#define QWINO_IGEMM_TAP_COST 32.0f
/* The A72's 2x8 NEON kernel (src/s8-igemm/s8-igemm-2x8c16-neon-mlal.c) per tile, re-measured at
 * 711bccf with the ruler (qs8_qc8w, -a indirect): 112x112x16>96 ran 4.14 MACs/cycle, 371 cycles
 * a pixel, which the terms above and its MACs and requantization put at 1152 + 6 tiles x this;
 * with 128 the model kept that layer and the 3-channel 3x3/2 first layer on the int16 direct
 * path (3.56 and 3.72 against 4.14 and 4.35 on the indirect GEMM). */
#define QWINO_NEON_IGEMM_TILE_COST 56.0f
/* Per row and tap of fewer than 8 bytes, which the NEON kernels assemble from 4-, 2- and 1-byte
 * loads (src/qwino/partial-loads.h): measured with the N1 model on MobileNet's 224x224x3>32 3x3/2
 * first layer on the taps' pointers (3 bytes a row), about 1300 instructions a 4x16 tile where
 * the terms above put 890, i.e. about 12 a row and tap. With it that layer takes the gathered
 * rows (one row of 27 bytes a pixel) on the N1 (5.3 -> 8.0 MACs/cycle); the A72 keeps the direct
 * path. The x86 VNNI kernel loads a short row with one masked load (no such cost: there the taps
 * measured 1.7x faster than gathered rows on that layer), so the term is ARM's only. */
#if defined(__aarch64__) || defined(_M_ARM64)
#define QWINO_IGEMM_SHORT_ROW_COST 12.0f
#else
#define QWINO_IGEMM_SHORT_ROW_COST 0.0f
#endif
/* A gathered kernel row, per pixel: 80 is the ARM figure above. On x86 half that: measured on
 * Emerald Rapids (one thread, bench/qwino-conv-run -d qu8_qc8w -r fp32, interleaved medians),
 * ResNet's 7x7/2 224x224x3>64 first layer ran 670 us gathered against 880 on the taps' pointers,
 * where 80 had kept the taps; VGG's and MobileNet's 3-channel 3x3 first layers keep the taps
 * either way (unchanged, 1000 and 190 us). */
#if defined(__x86_64__) || defined(_M_X64)
#define QWINO_IGEMM_GATHER_ROW_COST 40.0f
#else
#define QWINO_IGEMM_GATHER_ROW_COST 80.0f
#endif
/* The row sums of uint8 weights whose zero point is not 128 (src/s8-irsum/), per pixel: about one
 * more output channel's MACs for the bytes, plus this per tap the sums read (its pointer, the
 * zero-row test, the partial or masked load of a short row). Measured on Emerald Rapids (one
 * thread, bench/qwino-conv-run -z 119 against the symmetric weights): ResNet's 7x7/2 first layer
 * on the taps' pointers (49 taps of 3 bytes) took 1875 us against 926, about 30 a tap with the
 * terms above putting its GEMM at 1414 a pixel; so with these weights it takes the gathered
 * rows (one tap of 147 bytes). */
#define QWINO_IRSUM_TAP_COST 30.0f
/* Dot-product cores, uint8 activations: the UDOT kernels (b_bias 128, src/s8-igemm/s8-igemm.inc)
 * skip the XOR of each 16 bytes of A a panel reads (half a cycle on the N1's two ASIMD pipes)
 * but need the row sums, whose UDOTs cost about one panel's XORs plus about this many cycles a
 * pixel. So a layer takes them when its XORs beyond one panel's save more, or when its weights
 * need the row sums anyway (src/convolution-indirect.cc). Modeled N1, uint8, UDOT / SDOT with
 * the XOR: 1x1 14x14x384>64 28.79 / 27.88 and 7x7x960>160 30.67 / 29.17 (saving 36 and 270
 * cycles a pixel), 28x28x32>192 15.61 / 15.89 (11), 56x56x64>64 20.41 / 20.71 (6),
 * 112x112x32>16 11.14 / 14.58 (0). */
#define QWINO_NEONDOT_XOR_CYCLES 0.5
#define QWINO_NEONDOT_ROW_SUMS_PIXEL_CYCLES 12.0

#ifdef __cplusplus
namespace qwino {

// The fused indirect GEMM takes all of a work item's weight panels in one call when they total
// at most this (they then stay in L1 as the rows stream past; larger ones go a panel a call).
// Modeled N1: VGG's 224x224x3>64 conv1_1 (4 panels of 448 bytes) 11.7 -> 13.4 MACs/cycle, the
// 1x1 28x28x128>128 layer (8 panels of 2 KiB) 25.6 -> 25.8.
constexpr size_t kIgemmFusedPanelsBytes = 16 * 1024;

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

// Cortex-A72 (1 MiB shared L2 per 4 cores, 32 KiB L1D) and the x86-64 cores measured (Zen 5,
// 1 MiB L2 per core): larger working sets (256-512 KiB) were no faster on x86, so both use one
// set of numbers today.
#if defined(__aarch64__)
constexpr WorkSplitTuning kWorkSplitTuning = {128 * 1024, 64, 64, 4};
#else
constexpr WorkSplitTuning kWorkSplitTuning = {128 * 1024, 64, 64, 4};
#endif

}  // namespace qwino
#endif

#endif  // QWINO_TUNING_H_
