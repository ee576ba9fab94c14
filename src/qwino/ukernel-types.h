/*
 * Signatures of the micro-kernel families. Every ISA implements the same signatures; the
 * operator reaches them through the table in dispatch.h and never knows which ISA it runs.
 *
 * Winograd F(2x2,3x3) data layout (doc/DESIGN.md section 3): a tile is a 4x4 block of input pixels
 * (stride 2) producing a 2x2 block of output pixels. Channels are contiguous and innermost, so a
 * SIMD register holds one tile position of several channels and the transforms need no
 * transposes. The 16 transformed positions are 16 independent matrices ("position stride"
 * apart), multiplied by 16 GEMMs.
 */
#ifndef QWINO_UKERNEL_TYPES_H_
#define QWINO_UKERNEL_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#include "qwino/microparams.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Input transform of one tile: V = B^T (d - input_zero_point) B for each of `channels` channels,
 * with d = byte ^ input_sign: 8-bit data in the offset-binary view (qwino/microparams.h), so
 * input_sign is 0 for uint8 and 0x80 for int8 tensors, and input_zero_point is the view's.
 * F(2x2,3x3): 4x4 input tile, 16 positions; F(4x4,3x3): 6x6 input tile, 36 positions.
 * input[16 or 36]: pixel pointers of the tile, row-major; a position in the padding points to a
 *            row of `channels` bytes that are the zero point in the tensor's type
 *            (input_zero_point ^ input_sign), so it transforms to 0.
 * output:    V at output[p * output_position_stride + c], c < channels (int16).
 * Reads exactly `channels` bytes at each input pointer; writes exactly positions x channels values.
 */
typedef void (*qwino_input_transform_ukernel_fn)(size_t channels, const uint8_t* const* input,
                                                 uint8_t input_zero_point, uint8_t input_sign,
                                                 int16_t* output, size_t output_position_stride);

/*
 * C[mr x nr] = A[mr x k] * B[k x nr], int16 x int16 -> int32, modulo 2^32.
 * Each GEMM kernel has a tile MR x NR and a k interleave KR, declared in its dispatch table entry
 * (struct qwino_kernel_configs); the weights are packed for the kernel the dispatcher chose.
 * a:        row i at a + i * a_stride (elements), k values each; only rows < mr are read.
 * packed_b: one panel of round_up(k, 4) x NR values: element (kk, j) at
 *           ((kk / KR) * NR + j) * KR + kk % KR (KR = 1: k-major rows of NR, b[kk * NR + j]);
 *           zeros past k and past nr.
 * c:        row i at c + i * c_stride (elements); only the mr x nr block is written.
 * 1 <= mr <= MR, 1 <= nr <= NR, k >= 1.
 */
typedef void (*qwino_gemm_ukernel_fn)(size_t mr, size_t nr, size_t k, const int16_t* a,
                                      size_t a_stride, const int16_t* packed_b, int32_t* c,
                                      size_t c_stride);

/* One block of 16 k values of a row of the pair GEMM: k value i of the block is the row's byte
 * source + shuffle[i] (shuffle[i] < 16). */
struct qwino_pair_block {
  uint32_t source;
  uint8_t shuffle[16];
};
/*
 * The 8-bit GEMM on proven pairs (src/u8s8-gemm/u8s8-gemm.inc): C (int32) = the panel's initial
 * values + A x packed B (int8), exactly, for multiplies that add u8 x s8 products in pairs in
 * saturating int16 lanes (VPMADDUBSW). A row's k values are read through the panel's blocks:
 * block e's value i is (row byte block[e].source + block[e].shuffle[i]) ^ sign. The packing
 * (src/packing.cc, pack_u8s8_pair_weights) orders each block so that every pair of neighbouring
 * values (0 1, 2 3, ...) sums within int16 for every byte, or splits its weights in halves that do.
 * a:        row i at a + i * a_stride; every block reads 16 bytes from its source (the rows hold
 *           at least the largest source + 16 bytes); only rows < mr are read.
 * packed_b: one panel: QWINO_U8S8_GEMM_NR int32 initial values, then per block 256 bytes, value
 *           i of column n at qwino_pair_b_index(n, i); zeros past nr.
 * c:        row i at c + i * c_stride (elements); only the mr x nr block is written.
 * 1 <= mr <= MR, 1 <= nr <= QWINO_U8S8_GEMM_NR, blocks >= 1.
 */
#define QWINO_U8S8_GEMM_NR 16
/* Column n's 16 bytes of a block: the AVX2 kernel's register n / 8 * 4 + n % 4 holds columns
 * n and n + 4 in its two halves, so that two horizontal adds leave the 16 sums in order. */
static inline size_t qwino_pair_b_index(size_t n, size_t i) {
  return ((n / 8) * 4 + n % 4) * 32 + ((n / 4) % 2) * 16 + i;
}
typedef void (*qwino_u8s8_gemm_ukernel_fn)(size_t mr, size_t nr, size_t blocks, const uint8_t* a,
                                           size_t a_stride, const struct qwino_pair_block* block,
                                           uint8_t sign, const void* packed_b, int32_t* c,
                                           size_t c_stride);

/*
 * C[mr x nr] = sum over taps t < ks and channels k < kc of A_t[i][k] * B_t[k][j], int8 x int8 ->
 * int32 modulo 2^32: the indirect convolution's GEMM (doc/DESIGN.md section 3), whose A rows are
 * not copied but read where they are, through one pointer per output pixel and tap.
 * a:        row i's pointer for tap t at a[i * ks + t]: a pointer equal to `zero` is read as it
 *           is (a row of the input zero point, for taps in the padding), any other at
 *           pointer + a_offset (the group's first channel); exactly kc bytes each, rows < mr.
 *           A_t[i][k] = (int8_t) (byte ^ a_sign).
 * packed_b: one panel of ks x round_up(kc, KR) x NR values, per tap: element (k, j) at
 *           ((k / KR) * NR + j) * KR + k % KR; zeros past kc and past nr. Each kernel's MR, NR
 *           and KR are in its list entry (src/s8-igemm/s8-igemm.inc); the weights must lie in
 *           [-127, 127] (two products then fit int16, which the NEON kernels rely on).
 * c:        row i at c + i * c_stride (elements); only the mr x nr block is written.
 * 1 <= mr <= MR, 1 <= nr <= NR, kc >= 1, ks >= 1.
 */
typedef void (*qwino_igemm_ukernel_fn)(size_t mr, size_t nr, size_t kc, size_t ks,
                                       const uint8_t* const* a, size_t a_offset,
                                       const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b,
                                       int32_t* c, size_t c_stride);

/*
 * Row sums of the indirect GEMM's A (src/s8-irsum/): for each row i < rows,
 *   sums[i] = sum over taps t < ks and channels k < kc of A_t[i][k]   (modulo 2^32)
 * with A read exactly as qwino_igemm_ukernel_fn reads it (a[i * ks + t], `zero` read as it is,
 * any other pointer at + a_offset, exactly kc bytes each, A = (int8_t) (byte ^ a_sign)). The
 * indirect convolution needs them for uint8 weights whose zero point is not 128: it multiplies
 * w - 128 and adds (128 - kernel_zero_point) x the row's sum (src/convolution-indirect.cc).
 * rows >= 1, kc >= 1, ks >= 1.
 */
typedef void (*qwino_irsum_ukernel_fn)(size_t rows, size_t kc, size_t ks, const uint8_t* const* a,
                                       size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                                       int32_t* sums);

/*
 * The indirect GEMM above with the requantization fused (src/qu8-igemm/): the mr x nc block of
 * 8-bit outputs
 *   output[i * output_stride + j] = qwino_requantize_channel(
 *       wrapping_add(C[i][j], channel_params[j], row_terms[i]), j)
 * where C is what qwino_igemm_ukernel_fn computes from the same a, a_offset, zero, a_sign and
 * packed_b (with the list entry's a_bias added to every A value), and the bias, requantization
 * and channel_params are those of qwino_requantize_ukernel_fn below, in the kernel's mode.
 * nc:       any number of columns: ceil(nc / NR) panels of NR columns follow each other in
 *           packed_b, each ks x round_up(kc, KR) x NR bytes (the layout above, per panel).
 * channel_params: the per-channel arrays at the block's first channel.
 * row_terms: NULL (no row term: 0), or one value per row (rows < mr are read), added to every
 *           column of its row: the indirect convolution's per-pixel correction for uint8
 *           weights whose zero point is not 128 (src/convolution-indirect.cc).
 * output: row i at output + i * output_stride (bytes); exactly nc bytes are written per row.
 * 1 <= mr <= MR (any mr >= 1 for list entries with row_blocks, src/qu8-igemm/qu8-igemm.inc),
 * nc >= 1, kc >= 1, ks >= 1.
 */
typedef void (*qwino_igemm_requantize_ukernel_fn)(
    size_t mr, size_t nc, size_t kc, size_t ks, const uint8_t* const* a, size_t a_offset,
    const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b, const int32_t* channel_params,
    const int32_t* row_terms, uint8_t* output, size_t output_stride,
    const union qwino_qu8_requantization_params* params);

/*
 * The fused GEMM above on the rows the indirect convolution gathered (src/convolution-indirect.cc,
 * gathered rows; src/qu8-gemm/): row i of A at a + i * a_stride, its bytes the unsigned values the
 * kernel multiplies (A + 128 in the terms above: a_bias 128, no XOR), one tap of kc bytes, and
 * everything else as qwino_igemm_requantize_ukernel_fn with ks = 1. The kernel reads whole blocks:
 * round_up(mr, MR) rows and round_up(kc, K_BLOCK) bytes of each (its list entry's MR and k_block),
 * which the caller's buffer must hold (a_stride >= round_up(kc, K_BLOCK)); the bytes past kc meet
 * B's zeros, so they may hold anything. mr >= 1, nc >= 1, kc >= 1.
 */
typedef void (*qwino_gemm_requantize_ukernel_fn)(
    size_t mr, size_t nc, size_t kc, const uint8_t* a, size_t a_stride, const int8_t* packed_b,
    const int32_t* channel_params, const int32_t* row_terms, uint8_t* output, size_t output_stride,
    const union qwino_qu8_requantization_params* params);

/*
 * Depthwise convolution of `pixels` output pixels, all `channels` channels, with requantization
 * fused (the depthwise path, src/convolution-depthwise.cc; doc/DESIGN.md section 3):
 *   acc[p][c] = channel_params[c] + sum over taps t < taps of A_t[p][c] * B_t[c]   (mod 2^32)
 *   output[p * output_pixel_stride + c] = qwino_requantize_channel(acc[p][c], c)
 * with the requantization of the kernel's mode (qwino/requantization.h, channel_params as for the
 * output transforms below) for p < pixels, c < channels.
 * input:   pixel p's pointer for tap t at input[p * input_pixel_step + t]; exactly `channels`
 *          bytes are read at each pointer + input_offset (the first channel of the call, added
 *          to every pointer, padding rows included); A_t[p][c] = (int8_t)
 *          ((pointer + input_offset)[c] ^ a_sign). Padding
 *          taps point at a row of bytes that contributes what the operator wants (it folds that
 *          into the bias). input_pixel_step may be smaller than taps: neighbouring output pixels
 *          then share pointers (doc/DESIGN.md section 3).
 * packed_weights: blocks of CR channels (the kernel's list entry), zeros past `channels`, in the
 *          entry's layout (enum qwino_dwconv_layout): block b at
 *          packed_weights + b * qwino_dwconv_block_bytes(layout, taps, CR).
 * output:  only `channels` bytes per pixel are written.
 * pixels >= 1, channels >= 1, taps >= 1.
 */
typedef void (*qwino_dwconv_ukernel_fn)(size_t channels, size_t pixels, size_t taps,
                                        const uint8_t* const* input, size_t input_pixel_step,
                                        size_t input_offset, uint8_t a_sign,
                                        const void* packed_weights, const int32_t* channel_params,
                                        uint8_t* output, size_t output_pixel_stride,
                                        const union qwino_qu8_requantization_params* params);

/*
 * Weight layouts of the depthwise kernels, per block of CR channels:
 *  - int8_taps: taps x CR int8 values, tap-major: B_t[c] at t * CR + c (MNN's C16 packing:
 *    one load fills a register with one tap of CR channels). Every value in [-127, 127] (a pair
 *    of products then fits int16, which the NEON kernels rely on).
 *  - int16_tap_pairs: ceil(taps / 2) pairs x CR x 2 int16 values: B_t[c] at
 *    ((t / 2) * CR + c) * 2 + t % 2, so that one PMADDWD multiplies two taps of CR / 2 (SSE) or
 *    CR (AVX2, with CR int16 pairs in two registers) channels; a missing odd last tap is 0. Any
 *    value in [-255, 255].
 *  - int8_col3: for kernels of 3 rows (taps a multiple of 3: columns of 3 taps, column-major,
 *    as every layout's taps; input_pixel_step a multiple of 3), taps / 3 columns x CR x 4 int8
 *    values: B_t[c] at ((t / 3) * CR + c) * 4 + t % 3, and 0 at ((t / 3) * CR + c) * 4 + 3, so
 *    that one 4-byte lane holds a column's 3 taps of one channel (what one SDOT lane multiplies,
 *    src/s8-dwconv/s8-dwconv-columns-neondot.c). Every value in [-127, 127], as int8_taps.
 *  - int8_col5: the same for kernels of 5 rows (taps and input_pixel_step multiples of 5), each
 *    column of 5 taps as two such lane groups, rows 0-3 and row 4 with three zeros:
 *    taps / 5 columns x 2 x CR x 4 int8 values, B_t[c] at
 *    (((t / 5) * 2 + t % 5 / 4) * CR + c) * 4 + t % 5 % 4, zeros elsewhere.
 *  - int8_col3_pairs, int8_col5_pairs: for kernels of R = 3 or 5 rows (taps = R W,
 *    input_pixel_step a multiple of R), the taps of two rows or two columns interleaved byte by
 *    byte, so that the two bytes of one channel are neighbours (what SMULL + SADALP multiply and
 *    add, src/s8-dwconv/s8-dwconv-columns-neon.c): first, for each column kx < W, its rows 0
 *    and 1 (and 2 and 3), 2 x CR values a pair; then the last row of columns 2q and 2q + 1 for
 *    q < W / 2 (2 x CR each); then for odd W the last row of the last column alone (CR): B_t[c]
 *    at qwino_dwconv_column_pairs_index(R, taps, t, c, CR). taps x CR values, every one in
 *    [-127, 127].
 */
enum qwino_dwconv_layout {
  qwino_dwconv_layout_int8_taps = 0,
  qwino_dwconv_layout_int16_tap_pairs = 1,
  qwino_dwconv_layout_int8_col3 = 2,
  qwino_dwconv_layout_int8_col5 = 3,
  qwino_dwconv_layout_int8_col3_pairs = 4,
  qwino_dwconv_layout_int8_col5_pairs = 5
};

/* Where B_t[c] of an int8_col3_pairs (rows 3) or int8_col5_pairs (rows 5) block lives
 * (t = kx x rows + ky, c < cr). */
static inline size_t qwino_dwconv_column_pairs_index(size_t rows, size_t taps, size_t t, size_t c,
                                                     size_t cr) {
  const size_t columns = taps / rows, kx = t / rows, ky = t % rows, pairs = rows / 2;
  if (ky < rows - 1) {
    return ((kx * pairs + ky / 2) * cr + c) * 2 + ky % 2;
  }
  const size_t last_row = columns * pairs * 2 * cr;
  if (columns % 2 == 1 && kx == columns - 1) {
    return last_row + kx / 2 * 2 * cr + c;
  }
  return last_row + (kx / 2 * cr + c) * 2 + kx % 2;
}

/* The rows of the columns a layout groups (3 or 5), or 0 (taps one by one). */
static inline size_t qwino_dwconv_column_rows(enum qwino_dwconv_layout layout) {
  switch (layout) {
    case qwino_dwconv_layout_int8_col3:
    case qwino_dwconv_layout_int8_col3_pairs:
      return 3;
    case qwino_dwconv_layout_int8_col5:
    case qwino_dwconv_layout_int8_col5_pairs:
      return 5;
    default:
      return 0;
  }
}

static inline size_t qwino_dwconv_block_bytes(enum qwino_dwconv_layout layout, size_t taps,
                                              size_t cr) {
  switch (layout) {
    case qwino_dwconv_layout_int8_taps:
    case qwino_dwconv_layout_int8_col3_pairs:
    case qwino_dwconv_layout_int8_col5_pairs:
      return taps * cr;
    case qwino_dwconv_layout_int16_tap_pairs:
      return (taps + 1) / 2 * cr * 4;
    case qwino_dwconv_layout_int8_col3:
      return taps / 3 * cr * 4;
    case qwino_dwconv_layout_int8_col5:
      return taps / 5 * 2 * cr * 4;
  }
  return 0;
}

/*
 * Output transform of one tile, plus bias and requantization:
 *   out = requantize((A^T M A) / 4 + bias) for each of `channels` channels.
 * Every output kernel is written for one requantization mode (qwino/microparams.h) and takes
 * channel_params: channel c's bias at channel_params[c], its other per-channel values at
 * channel_params[c + i * params->channel_stride] (the mode's arrays); the result bytes are
 * qwino_requantize_channel (qwino/requantization.h) of the accumulator, for every int32 value.
 * m:      M at m[p * m_position_stride + c] (int32, the GEMM results modulo 2^32).
 * channel_params: the per-channel arrays of the mode, at the first channel.
 * output: pixel (y, x) of the 2x2 block at output + y * output_row_stride + x *
 *         output_pixel_stride (bytes); only y < rows and x < columns are written (1..2 each),
 *         and only `channels` bytes per pixel.
 */
typedef void (*qwino_f23_output_transform_ukernel_fn)(
    size_t channels, const int32_t* m, size_t m_position_stride, const int32_t* channel_params,
    uint8_t* output, size_t output_row_stride, size_t output_pixel_stride, size_t rows,
    size_t columns, const union qwino_qu8_requantization_params* params);

/*
 * Output transform of one F(4x4,3x3) tile, plus bias and requantization (channel_params as
 * above):
 *   out = requantize(sum over blocks b of recover(Ã^T M_b Ã) + bias)
 * with Ã^T = A^T diag(6,4,4,1,1,24) = [6 4 4 1 1 0; 0 4 -4 2 -2 0; 0 4 4 4 4 0; 0 4 -4 8 -8 24].
 * Ã^T M_b Ã is 576 x the exact partial accumulator of input-channel block b, modulo 2^32
 * (doc/DESIGN.md section 2); recover(Y) = sign-extend-from-26-bits(((uint32) Y >> 6) * 9^-1 mod
 * 2^26), exact because the operator keeps every block's partial accumulator below 2^25 in
 * magnitude. Partial sums, bias and requantization then wrap like TFLite's int32 arithmetic.
 * m:      block b, position p (0..35) at m[b * m_block_stride + p * m_position_stride + c].
 * output: pixel (y, x) of the 4x4 block at output + y * output_row_stride + x *
 *         output_pixel_stride (bytes); only y < rows and x < columns are written (1..4 each),
 *         and only `channels` bytes per pixel.
 */
typedef void (*qwino_f43_output_transform_ukernel_fn)(
    size_t channels, size_t blocks, const int32_t* m, size_t m_position_stride,
    size_t m_block_stride, const int32_t* channel_params, uint8_t* output, size_t output_row_stride,
    size_t output_pixel_stride, size_t rows, size_t columns,
    const union qwino_qu8_requantization_params* params);

/*
 * Bias + requantization of a block of int32 accumulators (the GEMM results of the direct path)
 * into 8-bit values, `pixels` output pixels of `channels` channels each:
 *   output[p * output_stride + c] = qwino_requantize_channel(
 *       wrapping_add(accumulators[p * accumulator_stride + c], channel_params[c]), c)
 * for p < pixels, c < channels, with qwino_requantize_channel and the wrapping (modulo 2^32,
 * TFLite's int32) add of qwino/requantization.h: bit-exact for every int32 accumulator and bias
 * and every parameter value. channel_params as for the output transforms above.
 * accumulator_stride: int32 elements between pixels (>= channels).
 * output_stride:      bytes between pixels (>= channels); a block of consecutive pixels of an
 *                     NHWC image is one such row, whatever the image width.
 * Reads exactly `channels` values per pixel and per channel array, writes exactly
 * `channels` bytes per pixel. pixels >= 1, channels >= 1.
 */
typedef void (*qwino_requantize_ukernel_fn)(size_t pixels, size_t channels,
                                            const int32_t* accumulators, size_t accumulator_stride,
                                            const int32_t* channel_params, uint8_t* output,
                                            size_t output_stride,
                                            const union qwino_qu8_requantization_params* params);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QWINO_UKERNEL_TYPES_H_ */
