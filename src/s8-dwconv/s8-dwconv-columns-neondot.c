/*
 * Depthwise convolution with fused requantization, ARMv8.2 dot product (SDOT), for kernels of 3
 * rows (int8_col3 weights) and of 5 rows (int8_col5), blocks of CR = 8 channels: bit-exact twins
 * of qwino_s8_dwconv_*_ukernel_up8__scalar_col3 / _col5 (src/s8-dwconv/s8-dwconv-scalar.c;
 * contract: qwino_dwconv_ukernel_fn and enum qwino_dwconv_layout in qwino/ukernel-types.h) for
 * every input, both requantization modes, every per-channel parameter value of the documented
 * ranges, uint8 and int8 activations and outputs. Built with -march=armv8.2-a+dotprod (its file
 * name's suffix) and run only where cpuinfo reports it; written for Neoverse N1 / Cortex-A76.
 *
 * Why SDOT, and how (seed 004's idea: one SDOT adds 4 taps of a channel): SDOT multiplies the 4
 * bytes of a 32-bit lane by the 4 of another and adds the sum to the lane, so its 4 bytes must
 * be taps of one channel, while NHWC puts channels next to each other. A kernel column is the
 * taps that read the input rows at one x: its pointers' 8 channels are transposed so that lane c
 * holds channel c's bytes of rows 0-2 (and row 2 again) for 3 rows, of rows 0-3 plus a second
 * lane group with row 4 for 5 rows,
 *   3 rows (full blocks): rows 0 and 1 in one register, row 2 in the next, two TBLs (3 ASIMD
 *   instructions for 8 channels with the insert of row 1);
 *   otherwise ZIP1 (row 0, row 1), ZIP1 (row 2, row 2 or row 3), then ZIP1 / ZIP2 of those as
 *   halfwords (4 instructions for 8 channels; 3 more for row 4),
 * and one SDOT multiplies a lane group by the
 * packed [w0 w1 w2 0] or [w0 w1 w2 w3] / [w4 0 0 0] of 4 channels: 2 (or 4) SDOTs per column and
 * 8 channels, against the NEON kernel's SMULL/SMLAL + SADDW pairs
 * (src/s8-dwconv/s8-dwconv-neon.c), whose multiplies all take pipe V0 of an N1.
 * The transposition pays only because neighbouring pixels share columns: the operator's pointers
 * are column-major with input_pixel_step = rows x stride. With 3 columns and step 3 (stride 1)
 * each pixel transposes one new column and reuses its left neighbour's other two (the pixel
 * loop is unrolled by 3 so that the three columns rotate through registers), with step 6
 * (stride 2) two new and one reused; with 5 columns and step 5 each column is transposed once
 * and multiplied into the 5 pixels that read it (input-stationary, 5 accumulator slots). Any
 * other step or column count transposes every column of every pixel (correct for any layer of
 * such kernels; the operator sends 3x3 layers of stride 1 and 2 and 5x5 ones of stride 1 here,
 * src/convolution-depthwise.cc).
 * Per pixel and 8 channels at stride 1: 3x3, 3 transposing instructions (6 at stride 2) and 6
 * SDOTs; 5x5, 7 ZIPs and 20 SDOTs (2 or 4
 * EORs more for uint8 activations), and the requantization of two vectors with its narrowing to
 * 8 bytes; the bias is loaded per pixel (load pipe), the per-channel requantization vectors (and
 * for 3x3 the 6 weight registers) stay in registers for the block's pixels (block of 8 channels
 * outside, pixels inside).
 *
 * Exactness: a = (int8_t) (byte ^ a_sign) lies in [-128, 127], the layout's b in [-128, 127];
 * each SDOT adds 4 products (the 4th times the packed 0) to the int32 lane modulo 2^32, as the
 * contract's accumulators do: the scalar twin's sum whatever the order.
 *
 * Channel remainder (channels % 8): the last block reads exactly `count` bytes of each row
 * (qwino_load_upto8; the lanes above are 0 and meet the weights' zero padding), stages its
 * per-channel arrays and stores through a buffer, transposing every column of every pixel.
 * Requantization: src/qwino/requantization-neon.h, variant chosen once per call; the clamp is
 * skipped when the bounds are the whole range of the output type (each pixel loop instantiated
 * with and without it).
 */
#include <arm_neon.h>

#include "qwino/partial-loads.h"
#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"
#include "s8-dwconv/s8-dwconv-neon-entries.h"

#define CR 8

/* Bytes of one kernel column of a block: [w0 w1 w2 0] per channel (3 rows), or [w0..w3] and
 * [w4 0 0 0] per channel (5 rows). */
#define COLUMN_BYTES(rows) ((rows) == 3 ? CR * 4 : 2 * CR * 4)

/* A transposed column: lane c of lo / hi (channels 0-3 / 4-7) holds channel c's bytes of rows
 * 0, 1, 2 (and row 2 again) of a 3-row column, of rows 0-3 of a 5-row one; lane c of lo4 / hi4
 * holds a 5-row column's row 4 four times (the packed [w4 0 0 0] takes the first). */
struct column {
  int8x16_t lo, hi, lo4, hi4;
};

/* 8 bytes at p (with `partial`, the first `count`, zeros above) in the low half, zeros above. */
QWINO_NEON_INLINE uint8x16_t load_row(const uint8_t* p, int partial, size_t count) {
  const uint8x8_t bytes = partial ? vcreate_u8(qwino_load_upto8(p, count)) : vld1_u8(p);
  return vcombine_u8(bytes, vdup_n_u8(0));
}

QWINO_NEON_INLINE int8x16_t flip_bytes(uint8x16_t bytes, uint8x16_t vsign, int flip) {
  return vreinterpretq_s8_u8(flip ? veorq_u8(bytes, vsign) : bytes);
}

/* TBL indices into the table [row 0 | row 1], [row 2 | 0] that give lo and hi of a 3-row
 * column of a full block: channel c's bytes of rows 0, 1, 2, 2. */
static const uint8_t kGatherColumn3[2][16] = {
    {0, 8, 16, 16, 1, 9, 17, 17, 2, 10, 18, 18, 3, 11, 19, 19},
    {4, 12, 20, 20, 5, 13, 21, 21, 6, 14, 22, 22, 7, 15, 23, 23}};

/* lo, hi of a full block's 3-row column: two TBLs of the register pair [row 0 | row 1],
 * [row 2 | 0], whose only other ASIMD instruction is the insert of row 1 (3 against the ZIPs'
 * 4; the N1 runs a TBL of one or two table registers as one micro-op on either ASIMD pipe, as
 * it does a ZIP: the ruler's class table). A TBL's table registers are consecutive, and GCC 12
 * builds an intrinsic's pair in memory, so the pair is pinned to v28/v29 or v30/v31; `pair`
 * alternates between neighbouring columns (with one pair GCC copied a column's rows into it,
 * one register move a column). 5 rows keep the ZIPs: with four registers pinned the 5x5 loop,
 * which holds 10 accumulators, ran 4-6% slower. */
#define QWINO_GATHER_COLUMN3(reg01, reg2)                                                          \
  do {                                                                                             \
    register uint8x16_t rows01 __asm__(reg01) =                                                    \
        vcombine_u8(vld1_u8(col[0] + offset), vld1_u8(col[1] + offset));                           \
    register uint8x16_t rows2 __asm__(reg2) = vcombine_u8(vld1_u8(col[2] + offset), vdup_n_u8(0)); \
    __asm__("tbl %0.16b, {%1.16b, %2.16b}, %3.16b"                                                 \
            : "=w"(lo)                                                                             \
            : "w"(rows01), "w"(rows2), "w"(vld1q_u8(kGatherColumn3[0])));                          \
    __asm__("tbl %0.16b, {%1.16b, %2.16b}, %3.16b"                                                 \
            : "=w"(hi)                                                                             \
            : "w"(rows01), "w"(rows2), "w"(vld1q_u8(kGatherColumn3[1])));                          \
  } while (0)

/* The column of `rows` (3 or 5, a constant) pointers at col (each + offset), transposed, XORed
 * with vsign when flip: 3 rows of a full block with the TBLs above; else (5 rows, or the partial
 * block, which reads exactly `count` bytes of each row) ZIP1 of the rows in pairs (row 2, or
 * row 4, with itself), then ZIP1 / ZIP2 of those as halfwords. */
QWINO_NEON_INLINE struct column transpose_column(const size_t rows, const uint8_t* const* col,
                                                 size_t offset, uint8x16_t vsign, int flip,
                                                 int partial, size_t count, int pair) {
  struct column c;
  if (rows == 3 && !partial) {
    uint8x16_t lo, hi;
    if (pair) {
      QWINO_GATHER_COLUMN3("v28", "v29");
    } else {
      QWINO_GATHER_COLUMN3("v30", "v31");
    }
    c.lo = flip_bytes(lo, vsign, flip);
    c.hi = flip_bytes(hi, vsign, flip);
    c.lo4 = c.hi4 = c.lo;
    return c;
  }
  const uint8x16_t r0 = load_row(col[0] + offset, partial, count);
  const uint8x16_t r1 = load_row(col[1] + offset, partial, count);
  const uint8x16_t r2 = load_row(col[2] + offset, partial, count);
  const uint8x16_t r3 = rows == 5 ? load_row(col[3] + offset, partial, count) : r2;
  const uint16x8_t z01 = vreinterpretq_u16_u8(vzip1q_u8(r0, r1));
  const uint16x8_t z23 = vreinterpretq_u16_u8(vzip1q_u8(r2, r3));
  c.lo = flip_bytes(vreinterpretq_u8_u16(vzip1q_u16(z01, z23)), vsign, flip);
  c.hi = flip_bytes(vreinterpretq_u8_u16(vzip2q_u16(z01, z23)), vsign, flip);
  c.lo4 = c.hi4 = c.lo;
  if (rows == 5) {
    const uint8x16_t r4 = load_row(col[4] + offset, partial, count);
    const uint16x8_t z44 = vreinterpretq_u16_u8(vzip1q_u8(r4, r4));
    c.lo4 = flip_bytes(vreinterpretq_u8_u16(vzip1q_u16(z44, z44)), vsign, flip);
    c.hi4 = flip_bytes(vreinterpretq_u8_u16(vzip2q_u16(z44, z44)), vsign, flip);
  }
  return c;
}

/* lo, hi += column t times the block's column at w (COLUMN_BYTES(rows)). */
QWINO_NEON_INLINE void multiply_column(const size_t rows, int32x4_t* lo, int32x4_t* hi,
                                       struct column t, const int8_t* w) {
  *lo = vdotq_s32(*lo, t.lo, vld1q_s8(w));
  *hi = vdotq_s32(*hi, t.hi, vld1q_s8(w + 16));
  if (rows == 5) {
    *lo = vdotq_s32(*lo, t.lo4, vld1q_s8(w + 32));
    *hi = vdotq_s32(*hi, t.hi4, vld1q_s8(w + 48));
  }
}

/* The bias of 8 channels, loaded for each pixel: the empty asm makes the pointer opaque, so that
 * the compiler does not keep the loop-invariant bias in registers and copy it into the
 * accumulators (2 MOVs on the ASIMD pipes per pixel instead of one LDP on the load pipe). */
QWINO_NEON_INLINE void load_bias(const int32_t* cp, int32x4_t* lo, int32x4_t* hi) {
  __asm__("" : "+r"(cp));
  *lo = vld1q_s32(cp);
  *hi = vld1q_s32(cp + 4);
}

/* What a block's pixels share. */
struct block {
  const int32_t* bias;
  struct qwino_neon_channels ch_lo, ch_hi;
  const struct qwino_neon_requantization* k;
  int variant;
  size_t output_stride;
};

/* lo, hi (channels 0-3, 4-7) -> 8 output bytes at out (the first `count` with `partial`). */
QWINO_NEON_INLINE void finish(uint8_t* out, int32x4_t lo, int32x4_t hi, const struct block* b,
                              int clamp, int partial, size_t count) {
  const int32x4_t r0 = qwino_neon_requantize_s32x4(lo, &b->ch_lo, b->k, b->variant);
  const int32x4_t r1 = qwino_neon_requantize_s32x4(hi, &b->ch_hi, b->k, b->variant);
  qwino_neon_store_upto8(out, partial ? count : CR,
                         qwino_neon_narrow_2x4_clamp(r0, r1, b->k, b->variant, clamp));
}

/* The 3-row loops carry only the two registers a 3-row column fills (the unused pair of a
 * struct column through their rotation cost register copies). */
struct column3 {
  int8x16_t lo, hi;
};
QWINO_NEON_INLINE struct column3 column3_of(struct column c) {
  struct column3 c3 = {c.lo, c.hi};
  return c3;
}

/* One pixel of a 3-column kernel from its transposed columns and the block's weights. */
QWINO_NEON_INLINE void pixel3(uint8_t* out, struct column3 c0, struct column3 c1, struct column3 c2,
                              const int8x16_t w[6], const struct block* b, int clamp) {
  int32x4_t lo, hi;
  load_bias(b->bias, &lo, &hi);
  lo = vdotq_s32(lo, c0.lo, w[0]);
  hi = vdotq_s32(hi, c0.hi, w[1]);
  lo = vdotq_s32(lo, c1.lo, w[2]);
  hi = vdotq_s32(hi, c1.hi, w[3]);
  lo = vdotq_s32(lo, c2.lo, w[4]);
  hi = vdotq_s32(hi, c2.hi, w[5]);
  finish(out, lo, hi, b, clamp, 0, CR);
}

/* Pixel p's column dx of a full block. */
#define QWINO_COLUMN(p, dx, pair) \
  column3_of(transpose_column(3, input + (p)*step + 3 * (dx), offset, vsign, flip, 0, CR, pair))

/* 3 columns, step 3 (stride 1): pixel p's columns 0 and 1 are pixel p - 1's columns 1 and 2. The
 * three column slots rotate with each pixel (unrolled by 3: no register copies). */
QWINO_NEON_INLINE void pixels_stride1(size_t pixels, const uint8_t* const* input, size_t offset,
                                      uint8x16_t vsign, int flip, const int8x16_t w[6],
                                      uint8_t* output, const struct block* b, int clamp) {
  const size_t step = 3;
  struct column3 x = QWINO_COLUMN(0, 0, 0), y = QWINO_COLUMN(0, 1, 1), z;
  size_t p = 0;
#define QWINO_STRIDE1_PIXEL(c0, c1, c2, pair)                       \
  do {                                                              \
    c2 = QWINO_COLUMN(p, 2, pair);                                  \
    pixel3(output + p * b->output_stride, c0, c1, c2, w, b, clamp); \
    p++;                                                            \
  } while (0)
  while (p + 3 <= pixels) {
    QWINO_STRIDE1_PIXEL(x, y, z, 0);
    QWINO_STRIDE1_PIXEL(y, z, x, 1);
    QWINO_STRIDE1_PIXEL(z, x, y, 0);
  }
  if (p < pixels) {
    QWINO_STRIDE1_PIXEL(x, y, z, 0);
  }
  if (p < pixels) {
    QWINO_STRIDE1_PIXEL(y, z, x, 1);
  }
#undef QWINO_STRIDE1_PIXEL
}

/* 3 columns, step 6 (stride 2): pixel p's column 0 is pixel p - 1's column 2 (unrolled by 2). */
QWINO_NEON_INLINE void pixels_stride2(size_t pixels, const uint8_t* const* input, size_t offset,
                                      uint8x16_t vsign, int flip, const int8x16_t w[6],
                                      uint8_t* output, const struct block* b, int clamp) {
  const size_t step = 6;
  struct column3 x = QWINO_COLUMN(0, 0, 0), y, z;
  size_t p = 0;
#define QWINO_STRIDE2_PIXEL(c0, c1, c2)                             \
  do {                                                              \
    c1 = QWINO_COLUMN(p, 1, 1);                                     \
    c2 = QWINO_COLUMN(p, 2, 0);                                     \
    pixel3(output + p * b->output_stride, c0, c1, c2, w, b, clamp); \
    p++;                                                            \
  } while (0)
  while (p + 2 <= pixels) {
    QWINO_STRIDE2_PIXEL(x, y, z);
    QWINO_STRIDE2_PIXEL(z, y, x);
  }
  if (p < pixels) {
    QWINO_STRIDE2_PIXEL(x, y, z);
  }
#undef QWINO_STRIDE2_PIXEL
}
#undef QWINO_COLUMN

/*
 * 5 columns, step 5 (stride 1), input-stationary: column u (pointers at input + 5 u) is
 * transposed once and multiplied into the 5 pixels that read it, u - 4 .. u (pixel p takes it as
 * its column u - p). Five accumulator slots rotate with the columns (unrolled by 5): pixel u's
 * slot starts at the bias when column u arrives, pixel u - 4's is complete after it and is
 * requantized. Columns 0 .. pixels + 3 exist. The first 4 columns are peeled, multiplied only into
 * the pixels from 0 on (else a 14-pixel row would spend 10 of its 70 column products on pixels
 * before 0); the slots of pixels from `pixels` on add the last columns and are never stored.
 */
QWINO_NEON_INLINE void pixels5_stride1(size_t pixels, const uint8_t* const* input, size_t offset,
                                       uint8x16_t vsign, int flip, const int8_t* w, uint8_t* output,
                                       const struct block* b, int clamp) {
  int32x4_t x0lo, x0hi, x1lo, x1hi, x2lo, x2hi, x3lo, x3hi, x4lo, x4hi;
  const size_t end = pixels + 4;
  size_t u = 0;
  /* Column u, multiplied into pixel u - dx's slot s<dx> for dx < n (n: 5, or u + 1 while the
   * first columns are peeled). */
#define QWINO_COLUMN5(n, s0, s1, s2, s3, s4)                                                   \
  do {                                                                                         \
    const struct column t = transpose_column(5, input + 5 * u, offset, vsign, flip, 0, CR, 0); \
    load_bias(b->bias, &s0##lo, &s0##hi);                                                      \
    multiply_column(5, &s0##lo, &s0##hi, t, w);                                                \
    if (n > 1) multiply_column(5, &s1##lo, &s1##hi, t, w + COLUMN_BYTES(5));                   \
    if (n > 2) multiply_column(5, &s2##lo, &s2##hi, t, w + 2 * COLUMN_BYTES(5));               \
    if (n > 3) multiply_column(5, &s3##lo, &s3##hi, t, w + 3 * COLUMN_BYTES(5));               \
    if (n > 4) {                                                                               \
      multiply_column(5, &s4##lo, &s4##hi, t, w + 4 * COLUMN_BYTES(5));                        \
      finish(output + (u - 4) * b->output_stride, s4##lo, s4##hi, b, clamp, 0, CR);            \
    }                                                                                          \
    u++;                                                                                       \
  } while (0)
  QWINO_COLUMN5(1, x0, x4, x3, x2, x1);
  QWINO_COLUMN5(2, x1, x0, x4, x3, x2);
  QWINO_COLUMN5(3, x2, x1, x0, x4, x3);
  QWINO_COLUMN5(4, x3, x2, x1, x0, x4);
  while (u + 5 <= end) {
    QWINO_COLUMN5(5, x4, x3, x2, x1, x0);
    QWINO_COLUMN5(5, x0, x4, x3, x2, x1);
    QWINO_COLUMN5(5, x1, x0, x4, x3, x2);
    QWINO_COLUMN5(5, x2, x1, x0, x4, x3);
    QWINO_COLUMN5(5, x3, x2, x1, x0, x4);
  }
  if (u < end) {
    QWINO_COLUMN5(5, x4, x3, x2, x1, x0);
  }
  if (u < end) {
    QWINO_COLUMN5(5, x0, x4, x3, x2, x1);
  }
  if (u < end) {
    QWINO_COLUMN5(5, x1, x0, x4, x3, x2);
  }
  if (u < end) {
    QWINO_COLUMN5(5, x2, x1, x0, x4, x3);
  }
#undef QWINO_COLUMN5
}

/* Any step and column count, and the partial block: every column of every pixel transposed,
 * the weights loaded per column. */
QWINO_NEON_INLINE void pixels_any(const size_t rows, size_t pixels, size_t columns,
                                  const uint8_t* const* input, size_t step, size_t offset,
                                  uint8x16_t vsign, int flip, const int8_t* weights,
                                  uint8_t* output, const struct block* b, int clamp, int partial,
                                  size_t count) {
  for (size_t p = 0; p < pixels; p++) {
    int32x4_t lo, hi;
    load_bias(b->bias, &lo, &hi);
    for (size_t dx = 0; dx < columns; dx++) {
      const struct column t = transpose_column(rows, input + p * step + rows * dx, offset, vsign,
                                               flip, partial, count, (int)(dx & 1));
      multiply_column(rows, &lo, &hi, t, weights + dx * COLUMN_BYTES(rows));
    }
    finish(output + p * b->output_stride, lo, hi, b, clamp, partial, count);
  }
}

/* A block's pixels with the loop that fits its layer: the sliding ones for 3 columns at
 * stride 1 and 2 and 5 columns at stride 1, each with the clamp a constant (a branch per pixel
 * cost a register copy); else every column of every pixel. */
QWINO_NEON_INLINE void block_pixels(const size_t rows, size_t pixels, size_t columns,
                                    const uint8_t* const* input, size_t step, size_t offset,
                                    uint8x16_t vsign, int flip, const int8_t* wb, uint8_t* output,
                                    const struct block* b, int clamp) {
  if (rows == 3 && columns == 3 && (step == 3 || step == 6)) {
    const int8x16_t w[6] = {vld1q_s8(wb),      vld1q_s8(wb + 16), vld1q_s8(wb + 32),
                            vld1q_s8(wb + 48), vld1q_s8(wb + 64), vld1q_s8(wb + 80)};
    if (step == 3 && clamp) {
      pixels_stride1(pixels, input, offset, vsign, flip, w, output, b, 1);
    } else if (step == 3) {
      pixels_stride1(pixels, input, offset, vsign, flip, w, output, b, 0);
    } else if (clamp) {
      pixels_stride2(pixels, input, offset, vsign, flip, w, output, b, 1);
    } else {
      pixels_stride2(pixels, input, offset, vsign, flip, w, output, b, 0);
    }
  } else if (rows == 5 && columns == 5 && step == 5 && clamp) {
    pixels5_stride1(pixels, input, offset, vsign, flip, wb, output, b, 1);
  } else if (rows == 5 && columns == 5 && step == 5) {
    pixels5_stride1(pixels, input, offset, vsign, flip, wb, output, b, 0);
  } else {
    pixels_any(rows, pixels, columns, input, step, offset, vsign, flip, wb, output, b, clamp, 0,
               CR);
  }
}

/* The kernel of `rows` rows (3 or 5, a constant): blocks of 8 channels outside, pixels inside. */
QWINO_NEON_INLINE void dwconv_columns(const size_t rows, QWINO_NEON_DWCONV_BODY_PARAMETERS) {
  const size_t columns = taps / rows;
  const size_t block_bytes = columns * COLUMN_BYTES(rows);
  const size_t full = channels & ~(size_t)(CR - 1);
  const size_t count = channels - full;
  struct block b;
  b.k = qwino_neon_dwconv_constants(call, variant);
  b.variant = variant;
  b.output_stride = output_pixel_stride;
  for (size_t c = 0; c < full; c += CR) {
    const int32_t* cp = channel_params + c;
    b.bias = cp;
    b.ch_lo = qwino_neon_load_channels(cp, call->stride, variant);
    b.ch_hi = qwino_neon_load_channels(cp + 4, call->stride, variant);
    block_pixels(rows, pixels, columns, input, input_pixel_step, input_offset + c, call->vsign,
                 flip, weights + c / CR * block_bytes, output + c, &b, call->clamp);
  }
  if (count != 0) {
    /* The last channels' per-channel arrays, staged once for all pixels. */
    int32_t staged[QWINO_MAX_CHANNEL_ARRAYS * CR];
    qwino_neon_stage_channels(staged, CR, channel_params + full, call->stride, count, variant);
    b.bias = staged;
    b.ch_lo = qwino_neon_load_channels(staged, CR, variant);
    b.ch_hi = qwino_neon_load_channels(staged + 4, CR, variant);
    pixels_any(rows, pixels, columns, input, input_pixel_step, input_offset + full, call->vsign,
               flip, weights + full / CR * block_bytes, output + full, &b, call->clamp, 1, count);
  }
}

QWINO_NEON_DWCONV_ROWS_ENTRIES(dwconv_columns, qwino_s8_dwconv_gemmlowp_ukernel_up8__neondot_col3,
                               qwino_s8_dwconv_fp32_ukernel_up8__neondot_col3,
                               qwino_s8_dwconv_gemmlowp_ukernel_up8__neondot_col5,
                               qwino_s8_dwconv_fp32_ukernel_up8__neondot_col5)
