/*
 * Depthwise convolution with fused requantization, ARMv8.2 dot product (SDOT), int8_col3 weights
 * (kernels of 3 rows) in blocks of CR = 8 channels: bit-exact twin of
 * qwino_s8_dwconv_*_ukernel_up8__scalar_col3 (src/s8-dwconv/s8-dwconv-scalar.c; contract:
 * qwino_dwconv_ukernel_fn and enum qwino_dwconv_layout in qwino/ukernel-types.h) for every
 * input, both requantization modes, every per-channel parameter value of the documented ranges,
 * uint8 and int8 activations and outputs. Built with -march=armv8.2-a+dotprod (its file name's
 * suffix) and run only where cpuinfo reports it; written for Neoverse N1 / Cortex-A76.
 *
 * Why SDOT, and how (seed 004's idea: one SDOT adds 4 taps of a channel): SDOT multiplies the 4
 * bytes of a 32-bit lane by the 4 of another and adds the sum to the lane, so its 4 bytes must
 * be taps of one channel, while NHWC puts channels next to each other. A column of a 3-row
 * kernel is 3 taps reading 3 input rows at one x: its 3 pointers' 8 channels are transposed so
 * that lane c holds channel c's 3 bytes (and row 2's again as the 4th),
 *   ZIP1 (row 0, row 1), ZIP1 (row 2, row 2), then ZIP1 / ZIP2 of those as halfwords
 * (4 instructions for 8 channels), and one SDOT multiplies them by the packed [w0 w1 w2 0] of 4
 * channels: 2 SDOTs per column and 8 channels, against the NEON kernel's SMULL/SMLAL + SADDW
 * pairs (src/s8-dwconv/s8-dwconv-neon.c), whose multiplies all take pipe V0 of an N1.
 * The transposition pays only because neighbouring pixels share columns: the operator's pointers
 * are column-major with input_pixel_step = 3 x stride, so with 3 columns and step 3 (stride 1)
 * each pixel transposes one new column and reuses its left neighbour's other two (the pixel
 * loop is unrolled by 3 so that the three columns rotate through registers without copies), and
 * with step 6 (stride 2) two new and one reused. Any other step or column count transposes every
 * column of every pixel (correct for any layer of 3-row kernels; the operator sends only 3x3
 * layers of stride 1 and 2 here, src/convolution-depthwise.cc).
 * Per pixel and 8 channels at stride 1: 4 ZIPs, 6 SDOTs (2 EORs more for uint8 activations) and
 * the requantization of two vectors with its narrowing to 8 bytes; the bias is loaded per pixel
 * (load pipe), the 6 weight registers and the per-channel requantization vectors stay in
 * registers for the block's pixels (block of 8 channels outside, pixels inside).
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
#include <string.h>

#include "qwino/partial-loads.h"
#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"
#include "s8-dwconv/s8-dwconv-neon-entries.h"

#define CR 8
#define COLUMN_BYTES (CR * 4) /* one kernel column of a block: [w0 w1 w2 0] per channel */

/* A transposed column: channels 0-3 in lo, 4-7 in hi, lane c = channel c's bytes of rows 0, 1, 2
 * (and row 2 again). */
struct column {
  int8x16_t lo, hi;
};

/* 8 bytes at p (with `partial`, the first `count`, zeros above) in the low half, zeros above. */
QWINO_NEON_INLINE uint8x16_t load_row(const uint8_t* p, int partial, size_t count) {
  const uint8x8_t bytes = partial ? vcreate_u8(qwino_load_upto8(p, count)) : vld1_u8(p);
  return vcombine_u8(bytes, vdup_n_u8(0));
}

/* The column whose 3 pointers are at col (each + offset), transposed, XORed with vsign when
 * flip. */
QWINO_NEON_INLINE struct column transpose_column(const uint8_t* const* col, size_t offset,
                                                 uint8x16_t vsign, int flip, int partial,
                                                 size_t count) {
  const uint8x16_t r0 = load_row(col[0] + offset, partial, count);
  const uint8x16_t r1 = load_row(col[1] + offset, partial, count);
  const uint8x16_t r2 = load_row(col[2] + offset, partial, count);
  const uint16x8_t z01 = vreinterpretq_u16_u8(vzip1q_u8(r0, r1));
  const uint16x8_t z22 = vreinterpretq_u16_u8(vzip1q_u8(r2, r2));
  uint8x16_t lo = vreinterpretq_u8_u16(vzip1q_u16(z01, z22));
  uint8x16_t hi = vreinterpretq_u8_u16(vzip2q_u16(z01, z22));
  if (flip) {
    lo = veorq_u8(lo, vsign);
    hi = veorq_u8(hi, vsign);
  }
  struct column c = {vreinterpretq_s8_u8(lo), vreinterpretq_s8_u8(hi)};
  return c;
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
  const uint8x8_t bytes = qwino_neon_narrow_2x4_clamp(r0, r1, b->k, b->variant, clamp);
  if (partial) {
    uint8_t buffer[8];
    vst1_u8(buffer, bytes);
    memcpy(out, buffer, count);
  } else {
    vst1_u8(out, bytes);
  }
}

/* One pixel of a 3-column kernel from its transposed columns and the block's weights. */
QWINO_NEON_INLINE void pixel3(uint8_t* out, struct column c0, struct column c1,
                              struct column c2, const int8x16_t w[6], const struct block* b,
                              int clamp) {
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
#define QWINO_COLUMN(p, dx) \
  transpose_column(input + (p) * step + 3 * (dx), offset, vsign, flip, 0, CR)

/* 3 columns, step 3 (stride 1): pixel p's columns 0 and 1 are pixel p - 1's columns 1 and 2. The
 * three column slots rotate with each pixel (unrolled by 3: no register copies). */
QWINO_NEON_INLINE void pixels_stride1(size_t pixels, const uint8_t* const* input, size_t offset,
                                      uint8x16_t vsign, int flip, const int8x16_t w[6],
                                      uint8_t* output, const struct block* b, int clamp) {
  const size_t step = 3;
  struct column x = QWINO_COLUMN(0, 0), y = QWINO_COLUMN(0, 1), z;
  size_t p = 0;
#define QWINO_STRIDE1_PIXEL(c0, c1, c2)                           \
  do {                                                            \
    c2 = QWINO_COLUMN(p, 2);                                      \
    pixel3(output + p * b->output_stride, c0, c1, c2, w, b, clamp); \
    p++;                                                          \
  } while (0)
  while (p + 3 <= pixels) {
    QWINO_STRIDE1_PIXEL(x, y, z);
    QWINO_STRIDE1_PIXEL(y, z, x);
    QWINO_STRIDE1_PIXEL(z, x, y);
  }
  if (p < pixels) {
    QWINO_STRIDE1_PIXEL(x, y, z);
  }
  if (p < pixels) {
    QWINO_STRIDE1_PIXEL(y, z, x);
  }
#undef QWINO_STRIDE1_PIXEL
}

/* 3 columns, step 6 (stride 2): pixel p's column 0 is pixel p - 1's column 2 (unrolled by 2). */
QWINO_NEON_INLINE void pixels_stride2(size_t pixels, const uint8_t* const* input, size_t offset,
                                      uint8x16_t vsign, int flip, const int8x16_t w[6],
                                      uint8_t* output, const struct block* b, int clamp) {
  const size_t step = 6;
  struct column x = QWINO_COLUMN(0, 0), y, z;
  size_t p = 0;
#define QWINO_STRIDE2_PIXEL(c0, c1, c2)                           \
  do {                                                            \
    c1 = QWINO_COLUMN(p, 1);                                      \
    c2 = QWINO_COLUMN(p, 2);                                      \
    pixel3(output + p * b->output_stride, c0, c1, c2, w, b, clamp); \
    p++;                                                          \
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

/* Any step and column count, and the partial block: every column of every pixel transposed,
 * the weights loaded per column. */
QWINO_NEON_INLINE void pixels_any(size_t pixels, size_t columns, const uint8_t* const* input,
                                  size_t step, size_t offset, uint8x16_t vsign, int flip,
                                  const int8_t* weights, uint8_t* output, const struct block* b,
                                  int clamp, int partial, size_t count) {
  for (size_t p = 0; p < pixels; p++) {
    int32x4_t lo, hi;
    load_bias(b->bias, &lo, &hi);
    for (size_t dx = 0; dx < columns; dx++) {
      const struct column c =
          transpose_column(input + p * step + 3 * dx, offset, vsign, flip, partial, count);
      lo = vdotq_s32(lo, c.lo, vld1q_s8(weights + dx * COLUMN_BYTES));
      hi = vdotq_s32(hi, c.hi, vld1q_s8(weights + dx * COLUMN_BYTES + 16));
    }
    finish(output + p * b->output_stride, lo, hi, b, clamp, partial, count);
  }
}

QWINO_NEON_INLINE void dwconv(QWINO_NEON_DWCONV_BODY_PARAMETERS) {
  const struct qwino_neon_requantization* k = call->k;
  const size_t stride = call->stride;
  const uint8x16_t vsign = call->vsign;
  const size_t columns = taps / 3;
  const size_t block_bytes = columns * COLUMN_BYTES;
  const size_t full = channels & ~(size_t) (CR - 1);
  const size_t count = channels - full;
  struct block b;
  b.k = k;
  b.variant = variant;
  const int clamp = call->clamp;
  b.output_stride = output_pixel_stride;
  for (size_t c = 0; c < full; c += CR) {
    const int32_t* cp = channel_params + c;
    const int8_t* wb = weights + c / CR * block_bytes;
    b.bias = cp;
    b.ch_lo = qwino_neon_load_channels(cp, stride, variant);
    b.ch_hi = qwino_neon_load_channels(cp + 4, stride, variant);
    if (columns == 3 && (input_pixel_step == 3 || input_pixel_step == 6)) {
      const int8x16_t w[6] = {vld1q_s8(wb),      vld1q_s8(wb + 16), vld1q_s8(wb + 32),
                              vld1q_s8(wb + 48), vld1q_s8(wb + 64), vld1q_s8(wb + 80)};
      /* The clamp a constant in each loop (a branch per pixel cost a register copy). */
      if (input_pixel_step == 3 && clamp) {
        pixels_stride1(pixels, input, input_offset + c, vsign, flip, w, output + c, &b, 1);
      } else if (input_pixel_step == 3) {
        pixels_stride1(pixels, input, input_offset + c, vsign, flip, w, output + c, &b, 0);
      } else if (clamp) {
        pixels_stride2(pixels, input, input_offset + c, vsign, flip, w, output + c, &b, 1);
      } else {
        pixels_stride2(pixels, input, input_offset + c, vsign, flip, w, output + c, &b, 0);
      }
    } else {
      pixels_any(pixels, columns, input, input_pixel_step, input_offset + c, vsign, flip, wb,
                 output + c, &b, clamp, 0, CR);
    }
  }
  if (count != 0) {
    /* The last channels' per-channel arrays, staged once for all pixels. */
    int32_t staged[QWINO_MAX_CHANNEL_ARRAYS * CR];
    qwino_neon_stage_channels(staged, CR, channel_params + full, stride, count, variant);
    b.bias = staged;
    b.ch_lo = qwino_neon_load_channels(staged, CR, variant);
    b.ch_hi = qwino_neon_load_channels(staged + 4, CR, variant);
    pixels_any(pixels, columns, input, input_pixel_step, input_offset + full, vsign, flip,
               weights + full / CR * block_bytes, output + full, &b, clamp, 1, count);
  }
}

QWINO_NEON_DWCONV_ENTRIES(qwino_s8_dwconv_gemmlowp_ukernel_up8__neondot_col3,
                          qwino_s8_dwconv_fp32_ukernel_up8__neondot_col3)
