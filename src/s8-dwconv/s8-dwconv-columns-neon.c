/*
 * Depthwise convolution with fused requantization, NEON (ARMv8.0, no dot product), for kernels of
 * 3 and 5 rows (int8_col3_pairs and int8_col5_pairs weights), blocks of CR = 16 channels:
 * bit-exact twins of qwino_s8_dwconv_*_ukernel_up8__scalar_col3_pairs / _col5_pairs
 * (src/s8-dwconv/s8-dwconv-scalar.c; contract: qwino_dwconv_ukernel_fn and enum
 * qwino_dwconv_layout in qwino/ukernel-types.h) for every input, both requantization modes,
 * every per-channel parameter value of the documented ranges, uint8 and int8 activations and
 * outputs. Written for the Cortex-A72, whose 3x3 and 5x5 layers it takes
 * (src/configs/dwconv-config.cc, src/convolution-depthwise.cc); the tap-major kernel
 * (src/s8-dwconv/s8-dwconv-neon.c) stays the kernel of the others.
 *
 * Why (doc/DESIGN.md section 6): on the A72 every ASIMD instruction takes one of two pipes and
 * the 8-bit multiplies only F0, so a kernel's speed is its ASIMD pipe-cycles per output. The
 * tap-major kernel spends, per 16 channels of a 3x3 pixel, 18 on SMULL/SMLAL, 20 on SADDW (each
 * int16 lane of two products widened 4 lanes at a time) and 28 on the requantization: 66. This
 * one spends 54 to 58:
 *  - SADALP instead of SADDW. SADALP adds lanes 2i and 2i + 1 of 8 int16 lanes into int32 lane
 *    i, 8 lanes an instruction. For that the two lanes must be one channel, so the inputs of two
 *    taps are interleaved byte by byte (ST2 into a stack buffer: 2 ASIMD micro-ops for 32
 *    bytes) and the weights are packed so: SMULL of 8 such bytes gives [c0 t, c0 t', c1 t,
 *    c1 t', ...], SMLAL adds a second pair of taps (two products per int16 lane, which cannot
 *    wrap: |a b| <= 128 x 127), and one SADALP adds the four products of each channel. The
 *    interleaving is done once per input column and shared by the pixels that read it: the
 *    operator's pointers are column-major (input_pixel_step = rows x stride), a column's rows 0
 *    and 1 (and 2 and 3) are interleaved records, the last row of two neighbouring columns
 *    another, and the last row is also kept as it is. A 3x3 pixel then has 4 interleaved pairs
 *    (rows 0-1 of its three columns, row 2 of its first two) and one lone tap (row 2 of its
 *    third column): 18 multiplies, 8 SADALP, 4 SADDW, and 2 ST2 (4 micro-ops) per pixel at
 *    stride 1, 3 at stride 2. A 5x5 pixel has 12 pairs and a lone tap: 50 multiplies, 24 SADALP,
 *    4 SADDW and 3 ST2 against 50 multiplies and 52 SADDW; F0 (multiplies and SQRDMULH) and the
 *    load pipe bound it.
 *  - For 3 rows, a cheaper requantization (see below): 20 pipe-cycles instead of 28 for a block
 *    whose channels share one right shift, 24 for one whose shifts are close.
 * At stride 1 a 3x3 pixel is 54 or 58 pipe-cycles for 144 MACs, at most 5.33 or 4.97 MACs per
 * cycle on the ruler's A72 model against 4.36 (per pixel also about 70 instructions, below the
 * 3-wide decode's 81; the load and store pipes stay below 20 and 13 cycles). The column staging
 * is assembly (stage3_full).
 *
 * Requantization, gemmlowp shortcut (requantization-neon.h: every channel has left_shift 0 and
 * right_shift n >= 1): the result is floor((y' + 2^(n-1)) / 2^n) with y' = y + (y >> 31), y the
 * SQRDMULH product. With one n for the block (1 to 16: every per-tensor layer), SQRSHRN #n
 * computes it and narrows to int16 with saturation (block functions per n). For any K < n,
 * floor((floor(y' / 2^K) + 2^(j-1)) / 2^j) with j = n - K is the same number (floors of divisions
 * by powers of two nest). So SQSHRN #K narrows y' to int16 with a truncating shift by K, the same
 * for all 16 channels (an immediate: the block functions are instantiated per K), and SRSHL on
 * int16 lanes (8 a Q instruction, not 4) rounds by each channel's j. Where SQSHRN saturates, |y' /
 * 2^K| >= 2^15, the result has |value| >= 2^(15-j)
 * >= 256 for j <= 7 either way, which the zero point (within the output type's range) and the
 * final narrowing take to the same saturated byte; otherwise every step is exact. So a block
 * takes this when its shifts lie in [K + 1, K + 7] for one of the instantiated K (multiples of
 * 3 up to 18: any block whose shifts span at most 4, up to n = 25, and a span of up to 6 where
 * it lines up) and the zero point lies in the output type's range; other blocks, the other
 * gemmlowp forms, fp32 and 5 rows use qwino_neon_requantize_s32x4 as every NEON kernel does.
 *
 * Calls: any step and any multiple of the rows in taps are correct. The operator sends 3x3
 * layers of stride 1 and 2 (steps 3 and 6) and 5x5 layers of stride 1 (step 5), whose full
 * blocks run block_square: runs of up to MAX_COLUMNS staged columns shared by their pixels,
 * the weights (all of a 3x3 block, KEPT5 pairs of a 5x5 one) and per-channel vectors in
 * registers for the run. Any other block (a last block of fewer than 16 channels, other steps
 * or column counts) runs block_any: each pixel stages its own columns (up to MAX_COLUMNS at a
 * time), reads exactly `count` bytes of each row (zeros above, which meet the weights' zero
 * padding) and stores through a buffer. Blocks outside, pixels inside; one call of a block
 * function per span of blocks with the same requantization.
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/partial-loads.h"
#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"
#include "s8-dwconv/s8-dwconv-neon-entries.h"
#include "s8-dwconv/s8-dwconv-neon-tap.h"

#define CR 16

/* A staged column of a kernel of R rows (3 or 5): rows 0-1 (and 2-3) interleaved, 32 bytes each;
 * the last row of it and of the next column interleaved (32, where a pixel reads it); the last
 * row (16). */
#define RECORD_BYTES(R) ((R) / 2 * 32 + 48)
#define RECORD_H(R) ((R) / 2 * 32)
#define RECORD_LAST(R) ((R) / 2 * 32 + 32)
/* Columns staged at a time (a run's, or a pixel's of a wide kernel): up to 7168 bytes of stack;
 * a 56-wide row at stride 2 (MobileNets' 3x3/2 56x56 layers) fits one run. */
#define MAX_COLUMNS 64
/* 5x5 blocks keep the weights of their first KEPT5 interleaved pairs in registers (of 12), the
 * others are loaded per pixel: the load pipe binds a 5x5 pixel (about 61 cycles against F0's
 * 58), and more kept weights only made GCC spill them (modeled 14x14x480: 3 kept 6.20 MACs per
 * cycle, 5 6.48, 6 6.57, 7 6.55, 9 6.52). */
#define KEPT5 6

/* The requantization of a block (K, a constant in each block function): -1, the int32 one; 0 to
 * PRESHIFT_MAX in steps of PRESHIFT_STEP, the int16 rounding shift after a truncating SQSHRN
 * by K; UNIFORM(n), one right shift n (1 to UNIFORM_MAX) for all channels, SQRSHRN by n. */
#define PRESHIFT_STEP 3
#define PRESHIFT_MAX 18
#define ROUNDING_SHIFT_MAX 7
#define UNIFORM(n) (100 + (n))
#define UNIFORM_MAX 16 /* a power of two (an index mask in block_function) */
#define IS_UNIFORM(K) ((K) >= 100)

/*
 * acc0..acc3 (channels 0-3, 4-7, 8-11, 12-15) += the products of two interleaved pairs of taps:
 * x0 (lo: channels 0-7, hi: 8-15) by w0 and x1 by w1, two products per int16 lane, SADALP into
 * the accumulators. Inline assembly: the int16 products are scratch outputs (with intrinsics GCC
 * 12 copies them between registers).
 */
#define QWINO_PAIRS2(acc0, acc1, acc2, acc3, x0lo, x0hi, w0lo, w0hi, x1lo, x1hi, w1lo, w1hi)   \
  do {                                                                                         \
    int16x8_t p0_, p1_, p2_, p3_;                                                              \
    __asm__(                                                                                   \
        "smull  %[p0].8h, %[x0l].8b, %[w0l].8b\n\t"                                            \
        "smull2 %[p1].8h, %[x0l].16b, %[w0l].16b\n\t"                                          \
        "smull  %[p2].8h, %[x0h].8b, %[w0h].8b\n\t"                                            \
        "smull2 %[p3].8h, %[x0h].16b, %[w0h].16b\n\t"                                          \
        "smlal  %[p0].8h, %[x1l].8b, %[w1l].8b\n\t"                                            \
        "smlal2 %[p1].8h, %[x1l].16b, %[w1l].16b\n\t"                                          \
        "smlal  %[p2].8h, %[x1h].8b, %[w1h].8b\n\t"                                            \
        "smlal2 %[p3].8h, %[x1h].16b, %[w1h].16b\n\t"                                          \
        "sadalp %[a0].4s, %[p0].8h\n\t"                                                        \
        "sadalp %[a1].4s, %[p1].8h\n\t"                                                        \
        "sadalp %[a2].4s, %[p2].8h\n\t"                                                        \
        "sadalp %[a3].4s, %[p3].8h"                                                            \
        : [p0] "=&w"(p0_), [p1] "=&w"(p1_), [p2] "=&w"(p2_), [p3] "=&w"(p3_), [a0] "+w"(acc0), \
          [a1] "+w"(acc1), [a2] "+w"(acc2), [a3] "+w"(acc3)                                    \
        : [x0l] "w"(x0lo), [x0h] "w"(x0hi), [w0l] "w"(w0lo), [w0h] "w"(w0hi), [x1l] "w"(x1lo), \
          [x1h] "w"(x1hi), [w1l] "w"(w1lo), [w1h] "w"(w1hi));                                  \
  } while (0)

/* The same for one interleaved pair of taps (a wide kernel's odd one out). */
#define QWINO_PAIRS1(acc0, acc1, acc2, acc3, xlo, xhi, wlo, whi)                               \
  do {                                                                                         \
    int16x8_t p0_, p1_, p2_, p3_;                                                              \
    __asm__(                                                                                   \
        "smull  %[p0].8h, %[xl].8b, %[wl].8b\n\t"                                              \
        "smull2 %[p1].8h, %[xl].16b, %[wl].16b\n\t"                                            \
        "smull  %[p2].8h, %[xh].8b, %[wh].8b\n\t"                                              \
        "smull2 %[p3].8h, %[xh].16b, %[wh].16b\n\t"                                            \
        "sadalp %[a0].4s, %[p0].8h\n\t"                                                        \
        "sadalp %[a1].4s, %[p1].8h\n\t"                                                        \
        "sadalp %[a2].4s, %[p2].8h\n\t"                                                        \
        "sadalp %[a3].4s, %[p3].8h"                                                            \
        : [p0] "=&w"(p0_), [p1] "=&w"(p1_), [p2] "=&w"(p2_), [p3] "=&w"(p3_), [a0] "+w"(acc0), \
          [a1] "+w"(acc1), [a2] "+w"(acc2), [a3] "+w"(acc3)                                    \
        : [xl] "w"(xlo), [xh] "w"(xhi), [wl] "w"(wlo), [wh] "w"(whi));                         \
  } while (0)

/* 16 bytes at p, or its first count < 16 with zeros above, XORed with vsign when flip. */
QWINO_NEON_INLINE uint8x16_t load_row(const uint8_t* p, size_t count, uint8x16_t vsign, int flip) {
  uint8x16_t x;
  if (count == CR) {
    x = vld1q_u8(p);
  } else {
    const size_t low = count < 8 ? count : 8;
    const uint64_t high = count > 8 ? qwino_load_upto8(p + 8, count - 8) : 0;
    x = vcombine_u8(vcreate_u8(qwino_load_upto8(p, low)), vcreate_u8(high));
  }
  return flip ? veorq_u8(x, vsign) : x;
}

/*
 * Column x of a run (pointers col[0 .. R - 1], each + offset) into its record: rows 0 and 1 (and
 * 2 and 3) interleaved (ST2), the last row; with `pair`, also the last row of the column before
 * and this one interleaved into the record before. The ST2 operands are pinned to consecutive
 * registers (v28/v29, v30/v31) so that no copies are needed to form them.
 */
QWINO_NEON_INLINE void stage_column(const size_t R, uint8_t* record, const uint8_t* const* col,
                                    size_t offset, size_t count, uint8x16_t vsign, int flip,
                                    int pair) {
  for (size_t i = 0; i < R / 2; i++) {
    register uint8x16_t even __asm__("v28") = load_row(col[2 * i] + offset, count, vsign, flip);
    register uint8x16_t odd __asm__("v29") = load_row(col[2 * i + 1] + offset, count, vsign, flip);
    __asm__ volatile("st2 {%1.16b, %2.16b}, [%0]"
                     :
                     : "r"(record + 32 * i), "w"(even), "w"(odd)
                     : "memory");
  }
  register uint8x16_t last __asm__("v31") = load_row(col[R - 1] + offset, count, vsign, flip);
  vst1q_u8(record + RECORD_LAST(R), last);
  if (pair) {
    uint8_t* before = record - RECORD_BYTES(R);
    register uint8x16_t left __asm__("v30") = vld1q_u8(before + RECORD_LAST(R));
    __asm__ volatile("st2 {%1.16b, %2.16b}, [%0]"
                     :
                     : "r"(before + RECORD_H(R)), "w"(left), "w"(last)
                     : "memory");
  }
}

/*
 * Stages columns [0, columns) (column x's pointers at col + R x) into records: each with its
 * interleaved row pairs and last row, and the last rows of x and x + 1 interleaved for each
 * x % h_step == 0 (h_step 1 or 2) with x + 1 < columns. Inline in the fast paths (a call would
 * take the registers: GCC spilled the loop's pointers around it, about 60 instructions a run),
 * with their constants.
 */
QWINO_NEON_INLINE void stage_columns(const size_t R, uint8_t* records, const uint8_t* const* col,
                                     size_t columns, size_t h_step, size_t offset, size_t count,
                                     uint8x16_t vsign, int flip) {
  stage_column(R, records, col, offset, count, vsign, flip, 0);
  size_t x = 1;
  for (; x + 2 <= columns; x += 2) {
    stage_column(R, records + x * RECORD_BYTES(R), col + R * x, offset, count, vsign, flip, 1);
    if (h_step == 1) {
      stage_column(R, records + (x + 1) * RECORD_BYTES(R), col + R * (x + 1), offset, count, vsign,
                   flip, 1);
    } else {
      stage_column(R, records + (x + 1) * RECORD_BYTES(R), col + R * (x + 1), offset, count, vsign,
                   flip, 0);
    }
  }
  if (x < columns) {
    stage_column(R, records + x * RECORD_BYTES(R), col + R * x, offset, count, vsign, flip, 1);
  }
}

/* The same with nothing constant, for the paths that are not the kernel's purpose. */
static __attribute__((noinline)) void stage_columns_any(size_t R, uint8_t* records,
                                                        const uint8_t* const* col, size_t columns,
                                                        size_t h_step, size_t offset, size_t count,
                                                        uint8x16_t vsign, int flip) {
  if (R == 3) {
    stage_columns(3, records, col, columns, h_step, offset, count, vsign, flip);
  } else {
    stage_columns(5, records, col, columns, h_step, offset, count, vsign, flip);
  }
}

/* A block's per-channel requantization vectors (K >= 0: multipliers and the int16 shifts). */
struct block_requantization {
  struct qwino_neon_channels ch[4];
  int16x8_t shift16[2]; /* -(right_shift - K) of channels 0-7, 8-15 */
};

/* The per-channel vectors of 16 channels at cp (arrays `stride` apart). */
QWINO_NEON_INLINE struct block_requantization load_requantization(const int32_t* cp, size_t stride,
                                                                  const int variant, const int K) {
  struct block_requantization rq;
  for (size_t i = 0; i < 4; i++) {
    rq.ch[i] = qwino_neon_load_channels(cp + 4 * i, stride, variant);
  }
  rq.shift16[0] = rq.shift16[1] = vdupq_n_s16(0);
  if (K >= 0 && !IS_UNIFORM(K)) {
    const int32x4_t preshift = vdupq_n_s32(K);
    for (size_t i = 0; i < 2; i++) {
      /* ch[].right_shift holds -right_shift. */
      rq.shift16[i] = vmovn_high_s32(vmovn_s32(vaddq_s32(rq.ch[2 * i].right_shift, preshift)),
                                     vaddq_s32(rq.ch[2 * i + 1].right_shift, preshift));
    }
  }
  return rq;
}

/* y0 (channels 0-3), y1 (4-7) shifted right by K (truncating) and narrowed with saturation. */
QWINO_NEON_INLINE int16x8_t narrow_shifted(int32x4_t y0, int32x4_t y1, const int K) {
  switch (K) {
#define QWINO_NARROW_CASE(k) \
  case k:                    \
    return vqshrn_high_n_s32(vqshrn_n_s32(y0, k), y1, k);
    QWINO_NARROW_CASE(3)
    QWINO_NARROW_CASE(6)
    QWINO_NARROW_CASE(9)
    QWINO_NARROW_CASE(12)
    QWINO_NARROW_CASE(15)
#undef QWINO_NARROW_CASE
    case 18:
      /* SQSHRN takes at most 16 (the narrow width): 2 more with a plain shift first. */
      return vqshrn_high_n_s32(vqshrn_n_s32(vshrq_n_s32(y0, 2), 16), vshrq_n_s32(y1, 2), 16);
    default:
      return vqmovn_high_s32(vqmovn_s32(y0), y1);
  }
}

/* y0 (channels 0-3), y1 (4-7) shifted right by n (rounding, half up) and narrowed with
 * saturation: SQRSHRN, whose immediate is at most 16. */
QWINO_NEON_INLINE int16x8_t narrow_rounded(int32x4_t y0, int32x4_t y1, const int n) {
  switch (n) {
#define QWINO_ROUNDED_CASE(k) \
  case k:                     \
    return vqrshrn_high_n_s32(vqrshrn_n_s32(y0, k), y1, k);
    QWINO_ROUNDED_CASE(1)
    QWINO_ROUNDED_CASE(2)
    QWINO_ROUNDED_CASE(3)
    QWINO_ROUNDED_CASE(4)
    QWINO_ROUNDED_CASE(5)
    QWINO_ROUNDED_CASE(6)
    QWINO_ROUNDED_CASE(7)
    QWINO_ROUNDED_CASE(8)
    QWINO_ROUNDED_CASE(9)
    QWINO_ROUNDED_CASE(10)
    QWINO_ROUNDED_CASE(11)
    QWINO_ROUNDED_CASE(12)
    QWINO_ROUNDED_CASE(13)
    QWINO_ROUNDED_CASE(14)
    QWINO_ROUNDED_CASE(15)
#undef QWINO_ROUNDED_CASE
    default:
      return vqrshrn_high_n_s32(vqrshrn_n_s32(y0, 16), y1, 16);
  }
}

/* The four accumulators of 16 channels -> their 16 output bytes. */
QWINO_NEON_INLINE uint8x16_t requantize16(int32x4_t acc0, int32x4_t acc1, int32x4_t acc2,
                                          int32x4_t acc3, const struct block_requantization* rq,
                                          const struct qwino_neon_requantization* k,
                                          const int variant, const int K, int clamp) {
  uint8x16_t bytes;
  if (K < 0) {
    bytes = qwino_neon_narrow_4x4_clamp(qwino_neon_requantize_s32x4(acc0, &rq->ch[0], k, variant),
                                        qwino_neon_requantize_s32x4(acc1, &rq->ch[1], k, variant),
                                        qwino_neon_requantize_s32x4(acc2, &rq->ch[2], k, variant),
                                        qwino_neon_requantize_s32x4(acc3, &rq->ch[3], k, variant),
                                        k, variant, clamp);
  } else {
    /* y' = y + (y >> 31), y the SQRDMULH product (the shortcut's fixup, requantization-neon.h) */
    int32x4_t y[4];
    const int32x4_t acc[4] = {acc0, acc1, acc2, acc3};
    for (size_t i = 0; i < 4; i++) {
      y[i] = vqrdmulhq_s32(acc[i], rq->ch[i].multiplier);
      y[i] = vsraq_n_s32(y[i], y[i], 31);
    }
    int16x8_t v01, v23;
    if (IS_UNIFORM(K)) {
      /* floor((y' + 2^(n-1)) / 2^n) saturated to int16: SQRSHRN's rounding without
       * intermediate overflow; past int16 the zero point and the narrowing saturate as the
       * shortcut's. */
      v01 = narrow_rounded(y[0], y[1], K - UNIFORM(0));
      v23 = narrow_rounded(y[2], y[3], K - UNIFORM(0));
    } else {
      v01 = vrshlq_s16(narrow_shifted(y[0], y[1], K), rq->shift16[0]);
      v23 = vrshlq_s16(narrow_shifted(y[2], y[3], K), rq->shift16[1]);
    }
    bytes = qwino_neon_narrow_s16x2_clamp(v01, v23, k, variant, clamp);
  }
  return bytes;
}

/* The bias of 16 channels, reloaded per pixel (see load_bias16 in s8-dwconv-neon.c). */
QWINO_NEON_INLINE void load_bias(const int32_t* cp, int32x4_t* acc0, int32x4_t* acc1,
                                 int32x4_t* acc2, int32x4_t* acc3) {
  __asm__("" : "+r"(cp));
  *acc0 = vld1q_s32(cp);
  *acc1 = vld1q_s32(cp + 4);
  *acc2 = vld1q_s32(cp + 8);
  *acc3 = vld1q_s32(cp + 12);
}

/*
 * The interleaved pairs of a pixel of a square R x R kernel, in the order the layout packs their
 * weights (qwino_dwconv_column_pairs_index): row pair i of column kx (item kx x R / 2 + i), then
 * the last row of columns 2q and 2q + 1 (item R x R / 2 + q); the last row of the last column
 * is the lone tap after them. Record offset of item j from the pixel's first column record.
 */
QWINO_NEON_INLINE size_t item_offset(const size_t R, size_t j) {
  const size_t vertical = R * (R / 2);
  return j < vertical ? j / (R / 2) * RECORD_BYTES(R) + j % (R / 2) * 32
                      : (j - vertical) * 2 * RECORD_BYTES(R) + RECORD_H(R);
}

/* A square block's weights kept in registers: the first `kept` items' and, for R = 3, the lone
 * tap's. */
struct kept_weights {
  int8x16_t item[3 * 3 / 2 > KEPT5 ? 3 * 3 / 2 : KEPT5][2];
  int8x16_t lone;
};

QWINO_NEON_INLINE void load_kept(const size_t R, const size_t kept, const int8_t* w,
                                 struct kept_weights* kw) {
  for (size_t j = 0; j < kept; j++) {
    kw->item[j][0] = vld1q_s8(w + j * 2 * CR);
    kw->item[j][1] = vld1q_s8(w + j * 2 * CR + 16);
  }
  kw->lone = vld1q_s8(w + R * R / 2 * 2 * CR);
}

/*
 * A run of a square R x R block's pixels (R x R / 2 items, the first `kept` weights in kw, the
 * others at w); pixel i's first column record at records + i * record_step.
 */
QWINO_NEON_INLINE void run_square(const size_t R, const size_t kept, size_t pixels,
                                  const uint8_t* records, size_t record_step,
                                  const struct kept_weights* kw, const int8_t* w, const int32_t* cp,
                                  const struct block_requantization* rq,
                                  const struct qwino_neon_requantization* k, const int variant,
                                  const int K, int clamp, uint8_t* output,
                                  size_t output_pixel_stride) {
  const size_t items = R * R / 2;
  do {
    /* Opaque for 5 rows, so that GCC does not keep the loads of one pixel for the next
     * (neighbours read the same records): it rotated them through 16 register copies a pixel
     * (3 rows: it does not, and the barrier cost 1-2% at stride 2). */
    const int8_t* r = (const int8_t*)records;
    if (R == 5) {
      __asm__("" : "+r"(r));
    }
    int32x4_t a0, a1, a2, a3;
    load_bias(cp, &a0, &a1, &a2, &a3);
#pragma GCC unroll 16
    for (size_t j = 0; j < items; j += 2) {
      const int8_t* x0 = r + item_offset(R, j);
      const int8_t* x1 = r + item_offset(R, j + 1);
      const int8x16_t w0lo = j < kept ? kw->item[j][0] : vld1q_s8(w + j * 2 * CR);
      const int8x16_t w0hi = j < kept ? kw->item[j][1] : vld1q_s8(w + j * 2 * CR + 16);
      const int8x16_t w1lo = j + 1 < kept ? kw->item[j + 1][0] : vld1q_s8(w + (j + 1) * 2 * CR);
      const int8x16_t w1hi =
          j + 1 < kept ? kw->item[j + 1][1] : vld1q_s8(w + (j + 1) * 2 * CR + 16);
      QWINO_PAIRS2(a0, a1, a2, a3, vld1q_s8(x0), vld1q_s8(x0 + 16), w0lo, w0hi, vld1q_s8(x1),
                   vld1q_s8(x1 + 16), w1lo, w1hi);
    }
    QWINO_MAC16_ONE(a0, a1, a2, a3, vld1q_s8(r + (R - 1) * RECORD_BYTES(R) + RECORD_LAST(R)),
                    kw->lone);
    vst1q_u8(output, requantize16(a0, a1, a2, a3, rq, k, variant, K, clamp));
    records += record_step;
    output += output_pixel_stride;
  } while (--pixels != 0);
}

/*
 * One pixel of any number of columns (taps / R), staged MAX_COLUMNS at a time from its pointers
 * col; its interleaved pairs are multiplied two at a time, weights from the block w.
 */
QWINO_NEON_INLINE void pixel_wide(const size_t R, size_t columns, const uint8_t* const* col,
                                  uint8_t* records, size_t offset, size_t count, uint8x16_t vsign,
                                  int flip, const int8_t* w, const int32_t* cp,
                                  const struct block_requantization* rq,
                                  const struct qwino_neon_requantization* k, const int variant,
                                  const int K, int clamp, uint8_t* output) {
  int32x4_t a0, a1, a2, a3;
  load_bias(cp, &a0, &a1, &a2, &a3);
  const size_t vertical = R / 2; /* row pairs a column */
  const int8_t* last_weights = w + columns * vertical * 2 * CR;
  for (size_t first = 0; first < columns; first += MAX_COLUMNS) {
    const size_t staged = columns - first < MAX_COLUMNS ? columns - first : MAX_COLUMNS;
    stage_columns_any(R, records, col + R * first, staged, 2, offset, count, vsign, flip);
    const int8_t* pending = NULL;
    const int8_t* pending_w = NULL;
    /* The row pairs of every column, then the last row of each even column with the next. */
    for (size_t i = 0; i < staged * vertical + staged / 2; i++) {
      const int8_t* data;
      const int8_t* weights;
      if (i < staged * vertical) {
        const size_t x = i / vertical, pair = i % vertical;
        data = (const int8_t*)records + x * RECORD_BYTES(R) + pair * 32;
        weights = w + ((first + x) * vertical + pair) * 2 * CR;
      } else {
        const size_t x = 2 * (i - staged * vertical);
        data = (const int8_t*)records + x * RECORD_BYTES(R) + RECORD_H(R);
        weights = last_weights + (first + x) / 2 * 2 * CR;
      }
      if (pending == NULL) {
        pending = data;
        pending_w = weights;
        continue;
      }
      QWINO_PAIRS2(a0, a1, a2, a3, vld1q_s8(pending), vld1q_s8(pending + 16), vld1q_s8(pending_w),
                   vld1q_s8(pending_w + 16), vld1q_s8(data), vld1q_s8(data + 16), vld1q_s8(weights),
                   vld1q_s8(weights + 16));
      pending = NULL;
    }
    if (pending != NULL) {
      QWINO_PAIRS1(a0, a1, a2, a3, vld1q_s8(pending), vld1q_s8(pending + 16), vld1q_s8(pending_w),
                   vld1q_s8(pending_w + 16));
    }
    if ((columns & 1) && first + staged == columns) {
      QWINO_MAC16_ONE(
          a0, a1, a2, a3,
          vld1q_s8((const int8_t*)records + (staged - 1) * RECORD_BYTES(R) + RECORD_LAST(R)),
          vld1q_s8(last_weights + columns / 2 * 2 * CR));
    }
  }
  qwino_neon_store_upto16(output, count, requantize16(a0, a1, a2, a3, rq, k, variant, K, clamp));
}

/*
 * All pixels of one block of count (<= 16) channels of a kernel of R rows, any step and any
 * number of columns: offset = input_offset + its first channel, w its packed weights, cp its
 * per-channel arrays (`stride` apart), output its first channel in pixel 0. K: see the top
 * comment (-1: the int32 requantization).
 */
QWINO_NEON_INLINE void block_any(const size_t R, const int variant, const int K, size_t pixels,
                                 size_t taps, const uint8_t* const* input, size_t input_pixel_step,
                                 size_t offset, size_t count, const int8_t* w, const int32_t* cp,
                                 size_t stride, uint8_t* output, size_t output_pixel_stride,
                                 const struct qwino_neon_dwconv_call* call, int flip) {
  int32_t staged_params[QWINO_MAX_CHANNEL_ARRAYS * CR];
  if (count < CR) {
    qwino_neon_stage_channels(staged_params, CR, cp, stride, count, variant);
    cp = staged_params;
    stride = CR;
  }
  uint8_t records[MAX_COLUMNS * RECORD_BYTES(5)] __attribute__((aligned(16)));
  const struct block_requantization rq = load_requantization(cp, stride, variant, K);
  do {
    pixel_wide(R, taps / R, input, records, offset, count, call->vsign, flip, w, cp, &rq,
               qwino_neon_dwconv_constants(call, variant), variant, K, call->clamp, output);
    input += input_pixel_step;
    output += output_pixel_stride;
  } while (--pixels != 0);
}

/*
 * stage_columns for the full blocks of 3-row layers, in assembly: ST2 and STR with post-index
 * addressing (a pointer for the records, one for the interleaved last rows, each stepped by the
 * store itself), the column's pointers with one LDP and one LDR. GCC's form of the same loop
 * spent 17 instructions a column (flip), mostly on the stores' addresses; this one 10 (13 with
 * flip), which a 3x3 pixel pays once at stride 1 and twice at stride 2. At stride 2 the last
 * rows of an even column and the odd one after it are interleaved from registers (v30, v31:
 * no reload, and the odd column's last row, which no pixel reads alone, is not stored).
 */
#define QWINO_STRINGIFY_(x) #x
#define QWINO_STRINGIFY(x) QWINO_STRINGIFY_(x)
#define RECORD_LAST_3 64 /* RECORD_LAST(3) as a literal for the assembly */
/* Rows 0 and 1 into v28, v29, the last row into `last`. */
#define QWINO_COL3_LOAD(last)           \
  "ldr %[p2], [%[col], #16]\n\t"        \
  "ldp %[p0], %[p1], [%[col]], #24\n\t" \
  "ldr q28, [%[p0], %[off]]\n\t"        \
  "ldr q29, [%[p1], %[off]]\n\t"        \
  "ldr q" last ", [%[p2], %[off]]\n\t"
#define QWINO_COL3_FLIP(last)             \
  "eor v28.16b, v28.16b, %[sign].16b\n\t" \
  "eor v29.16b, v29.16b, %[sign].16b\n\t" \
  "eor v" last ".16b, v" last ".16b, %[sign].16b\n\t"
/* The last rows of the column before (its record's, 16 bytes before this one's pointer) and of
 * this one (v31), interleaved. */
#define QWINO_COL3_RELOAD_PAIR \
  "ldur q30, [%[v], #-16]\n\t" \
  "st2 {v30.16b, v31.16b}, [%[h]], %[hinc]\n\t"
#define QWINO_COL3_PAIR "st2 {v30.16b, v31.16b}, [%[h]], %[hinc]\n\t"
#define QWINO_COL3_LAST(last) "str q" last ", [%[v], #" QWINO_STRINGIFY(RECORD_LAST_3) "]\n\t"
#define QWINO_COL3_ROWS01 "st2 {v28.16b, v29.16b}, [%[v]], %[vinc]"
/* One column's assembly `code`, with the operands every form has, the form's own ones after
 * them (`outputs`, `inputs`: each empty or starting with a comma) and its clobbers. */
#define QWINO_COL3_ASM(code, outputs, inputs, ...)                                       \
  do {                                                                                   \
    const uint8_t* p0_;                                                                  \
    const uint8_t* p1_;                                                                  \
    const uint8_t* p2_;                                                                  \
    __asm__ volatile(                                                                    \
        code                                                                             \
        : [col] "+r"(col), [v] "+r"(v), [h] "+r"(h), [p0] "=&r"(p0_), [p1] "=&r"(p1_),   \
          [p2] "=&r"(p2_)outputs                                                         \
        : [off] "r"(offset), [vinc] "r"(vinc), [hinc] "r"(hinc), [sign] "w"(vsign)inputs \
        : __VA_ARGS__);                                                                  \
  } while (0)
#define QWINO_COL3(code) QWINO_COL3_ASM(code, , , "v28", "v29", "v30", "v31", "memory")
/* For stride 2: the even column's last row is an output pinned to v30, and the odd column takes
 * it as an input, so that it stays in v30 from one statement to the next. */
#define QWINO_COL3_EVEN_OUTPUT , [e] "=w"(last_even)
#define QWINO_COL3_ODD_INPUT , [e] "w"(last_even)
#define QWINO_COL3_EVEN_OUT(code) \
  QWINO_COL3_ASM(code, QWINO_COL3_EVEN_OUTPUT, , "v28", "v29", "memory")
#define QWINO_COL3_ODD_IN(code) \
  QWINO_COL3_ASM(code, , QWINO_COL3_ODD_INPUT, "v28", "v29", "v31", "memory")
/* A column with its last row in v<last>, stored; with `pair`, interleaved with the column
 * before's (reloaded). */
#define QWINO_COL3_STORED(last, pair)                                                 \
  do {                                                                                \
    if (flip && (pair)) {                                                             \
      QWINO_COL3(QWINO_COL3_LOAD(last) QWINO_COL3_FLIP(last)                          \
                     QWINO_COL3_RELOAD_PAIR QWINO_COL3_LAST(last) QWINO_COL3_ROWS01); \
    } else if (flip) {                                                                \
      QWINO_COL3(QWINO_COL3_LOAD(last) QWINO_COL3_FLIP(last) QWINO_COL3_LAST(last)    \
                     QWINO_COL3_ROWS01);                                              \
    } else if (pair) {                                                                \
      QWINO_COL3(QWINO_COL3_LOAD(last) QWINO_COL3_RELOAD_PAIR QWINO_COL3_LAST(last)   \
                     QWINO_COL3_ROWS01);                                              \
    } else {                                                                          \
      QWINO_COL3(QWINO_COL3_LOAD(last) QWINO_COL3_LAST(last) QWINO_COL3_ROWS01);      \
    }                                                                                 \
  } while (0)
/* Stride 2: an even column, its last row in v30 (last_even) and stored; the odd column after
 * it, its last row in v31, interleaved with v30, not stored alone. */
#define QWINO_COL3_EVEN                                                                     \
  do {                                                                                      \
    if (flip) {                                                                             \
      QWINO_COL3_EVEN_OUT(QWINO_COL3_LOAD("30") QWINO_COL3_FLIP("30") QWINO_COL3_LAST("30") \
                              QWINO_COL3_ROWS01);                                           \
    } else {                                                                                \
      QWINO_COL3_EVEN_OUT(QWINO_COL3_LOAD("30") QWINO_COL3_LAST("30") QWINO_COL3_ROWS01);   \
    }                                                                                       \
  } while (0)
#define QWINO_COL3_ODD                                                            \
  do {                                                                            \
    if (flip) {                                                                   \
      QWINO_COL3_ODD_IN(QWINO_COL3_LOAD("31") QWINO_COL3_FLIP("31")               \
                            QWINO_COL3_PAIR QWINO_COL3_ROWS01);                   \
    } else {                                                                      \
      QWINO_COL3_ODD_IN(QWINO_COL3_LOAD("31") QWINO_COL3_PAIR QWINO_COL3_ROWS01); \
    }                                                                             \
  } while (0)

QWINO_NEON_INLINE void stage3_full(uint8_t* records, const uint8_t* const* col, size_t columns,
                                   size_t step_columns, size_t offset, uint8x16_t vsign,
                                   const int flip) {
  uint8_t* v = records;
  uint8_t* h = records + RECORD_H(3);
  const size_t vinc = RECORD_BYTES(3), hinc = step_columns * RECORD_BYTES(3);
  if (step_columns == 1) {
    QWINO_COL3_STORED("31", 0);
    for (size_t x = 1; x < columns; x++) {
      QWINO_COL3_STORED("31", 1);
    }
  } else {
    /* columns is odd: even, then (odd, even) pairs. */
    register uint8x16_t last_even __asm__("v30");
    QWINO_COL3_EVEN;
    for (size_t x = 1; x + 2 <= columns; x += 2) {
      QWINO_COL3_ODD;
      QWINO_COL3_EVEN;
    }
  }
}

/*
 * A full block of a square R x R layer at stride 1 (or 2 for R = 3; step_columns: columns from
 * one pixel to the next), the case the kernel is for: the columns are staged inline, flip a
 * constant in each of the two stagings, which share the run's pixel loop (a copy of the whole
 * block per flip took 25 KB of the block functions, for one branch a run).
 */
QWINO_NEON_INLINE void block_square(const size_t R, const int variant, const int K, size_t pixels,
                                    const uint8_t* const* input, size_t step_columns, size_t offset,
                                    const int8_t* w, const int32_t* cp, size_t stride,
                                    uint8_t* output, size_t output_pixel_stride,
                                    const struct qwino_neon_dwconv_call* call, const int flip) {
  uint8_t records[MAX_COLUMNS * RECORD_BYTES(R)] __attribute__((aligned(16)));
  const size_t max_run = (MAX_COLUMNS - R) / step_columns + 1;
  const size_t kept = R == 3 ? R * R / 2 : KEPT5;
  do {
    const size_t run = pixels < max_run ? pixels : max_run;
    const size_t columns = (run - 1) * step_columns + R;
    if (R == 3) {
      if (flip) {
        stage3_full(records, input, columns, step_columns, offset, call->vsign, 1);
      } else {
        stage3_full(records, input, columns, step_columns, offset, call->vsign, 0);
      }
    } else if (flip) {
      stage_columns(R, records, input, columns, step_columns, offset, CR, call->vsign, 1);
    } else {
      stage_columns(R, records, input, columns, step_columns, offset, CR, call->vsign, 0);
    }
    const struct block_requantization rq = load_requantization(cp, stride, variant, K);
    struct kept_weights kw;
    load_kept(R, kept, w, &kw);
    run_square(R, kept, run, records, step_columns * RECORD_BYTES(R), &kw, w, cp, &rq,
               qwino_neon_dwconv_constants(call, variant), variant, K, call->clamp, output,
               output_pixel_stride);
    input += run * step_columns * R;
    output += run * output_pixel_stride;
    pixels -= run;
  } while (pixels != 0);
}

/* block_any for the blocks block_square does not take, one function per form and R for both
 * output types (qwino_neon_sign_by_xor): the int32 requantization (exact for any parameters;
 * such blocks are rare: a last block of fewer than 16 channels, other kernel sizes or steps). */
#define QWINO_ANY_BLOCK_FUNCTION(name, R, variant)                                                 \
  static __attribute__((noinline)) void name(                                                      \
      size_t pixels, size_t taps, const uint8_t* const* input, size_t input_pixel_step,            \
      size_t offset, size_t count, const int8_t* w, const int32_t* cp, size_t stride,              \
      uint8_t* output, size_t output_pixel_stride, const struct qwino_neon_dwconv_call* call,      \
      int flip) {                                                                                  \
    block_any(R, variant, -1, pixels, taps, input, input_pixel_step, offset, count, w, cp, stride, \
              output, output_pixel_stride, call, flip);                                            \
  }
#define QWINO_ANY_BLOCK_FUNCTIONS(R)                                                \
  QWINO_ANY_BLOCK_FUNCTION(any_block##R##_shortcut, R,                              \
                           QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_SIGN_BY_XOR)   \
  QWINO_ANY_BLOCK_FUNCTION(any_block##R##_left_shift, R,                            \
                           QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_SIGN_BY_XOR) \
  QWINO_ANY_BLOCK_FUNCTION(any_block##R##_fp32, R, QWINO_NEON_FP32 | QWINO_NEON_SIGN_BY_XOR)
QWINO_ANY_BLOCK_FUNCTIONS(3)
QWINO_ANY_BLOCK_FUNCTIONS(5)

/* One block: block_square where it applies, else the variant's any_block function. */
QWINO_NEON_INLINE void block(const size_t R, const int variant, const int K, size_t pixels,
                             size_t taps, const uint8_t* const* input, size_t input_pixel_step,
                             size_t offset, size_t count, const int8_t* w, const int32_t* cp,
                             size_t stride, uint8_t* output, size_t output_pixel_stride,
                             const struct qwino_neon_dwconv_call* call, int flip) {
  if (count == CR && taps == R * R &&
      (input_pixel_step == R || (R == 3 && input_pixel_step == 2 * R))) {
    block_square(R, variant, K, pixels, input, input_pixel_step / R, offset, w, cp, stride, output,
                 output_pixel_stride, call, flip);
    return;
  }
  /* The any-block functions serve both output types: one per form. */
  switch (QWINO_NEON_FORM(variant)) {
#define QWINO_ANY_BLOCK_CASE(form, suffix)                                                      \
  case form:                                                                                    \
    (R == 3 ? any_block3_##suffix : any_block5_##suffix)(pixels, taps, input, input_pixel_step, \
                                                         offset, count, w, cp, stride, output,  \
                                                         output_pixel_stride, call, flip);      \
    break;
    QWINO_ANY_BLOCK_CASE(QWINO_NEON_GEMMLOWP_SHORTCUT, shortcut)
    QWINO_ANY_BLOCK_CASE(QWINO_NEON_GEMMLOWP_LEFT_SHIFT, left_shift)
    QWINO_ANY_BLOCK_CASE(QWINO_NEON_FP32, fp32)
#undef QWINO_ANY_BLOCK_CASE
  }
}

/*
 * The block functions, one per R, variant and K (each its own register allocation): the blocks
 * of channels [0, channels) of a call's span of blocks that take the same function (one call per
 * span, not per block: the function's entry and set-up would cost 7 instructions per pixel of a
 * 14-pixel row), offset, w, cp and output at the span's first channel.
 */
#define QWINO_BLOCK_PARAMETERS                                                                     \
  size_t pixels, size_t taps, const uint8_t *const *input, size_t input_pixel_step, size_t offset, \
      size_t channels, const int8_t *w, const int32_t *cp, size_t stride, uint8_t *output,         \
      size_t output_pixel_stride, const struct qwino_neon_dwconv_call *call, int flip
#define QWINO_BLOCK_FUNCTION(name, R, variant, K)                                            \
  static __attribute__((noinline)) void name(QWINO_BLOCK_PARAMETERS) {                       \
    for (size_t c = 0; c < channels; c += CR) {                                              \
      block(R, variant, K, pixels, taps, input, input_pixel_step, offset + c,                \
            channels - c < CR ? channels - c : CR, w + c * taps, cp + c, stride, output + c, \
            output_pixel_stride, call, flip);                                                \
    }                                                                                        \
  }
typedef void (*block_fn)(QWINO_BLOCK_PARAMETERS);

/* 3 rows: the shortcut form per K (the int16 requantization pays: the ASIMD pipes, not F0,
 * bound a 3x3 pixel). 5 rows: the int32 requantization only (a 5x5 pixel's 50 multiplies and 8
 * SQRDMULH cycles on F0 bound it; the int16 shift would only relieve F1). */
#define QWINO_BLOCK_FUNCTIONS(prefix, variant)                                                  \
  QWINO_BLOCK_FUNCTION(prefix##_k0, 3, variant, 0)                                              \
  QWINO_BLOCK_FUNCTION(prefix##_k3, 3, variant, 3)                                              \
  QWINO_BLOCK_FUNCTION(prefix##_k6, 3, variant, 6)                                              \
  QWINO_BLOCK_FUNCTION(prefix##_k9, 3, variant, 9)                                              \
  QWINO_BLOCK_FUNCTION(prefix##_k12, 3, variant, 12)                                            \
  QWINO_BLOCK_FUNCTION(prefix##_k15, 3, variant, 15)                                            \
  QWINO_BLOCK_FUNCTION(prefix##_k18, 3, variant, 18)                                            \
  static const block_fn prefix##_k[] = {prefix##_k0,  prefix##_k3,  prefix##_k6, prefix##_k9,   \
                                        prefix##_k12, prefix##_k15, prefix##_k18};              \
  QWINO_BLOCK_FUNCTION(prefix##_n1, 3, variant, UNIFORM(1))                                     \
  QWINO_BLOCK_FUNCTION(prefix##_n2, 3, variant, UNIFORM(2))                                     \
  QWINO_BLOCK_FUNCTION(prefix##_n3, 3, variant, UNIFORM(3))                                     \
  QWINO_BLOCK_FUNCTION(prefix##_n4, 3, variant, UNIFORM(4))                                     \
  QWINO_BLOCK_FUNCTION(prefix##_n5, 3, variant, UNIFORM(5))                                     \
  QWINO_BLOCK_FUNCTION(prefix##_n6, 3, variant, UNIFORM(6))                                     \
  QWINO_BLOCK_FUNCTION(prefix##_n7, 3, variant, UNIFORM(7))                                     \
  QWINO_BLOCK_FUNCTION(prefix##_n8, 3, variant, UNIFORM(8))                                     \
  QWINO_BLOCK_FUNCTION(prefix##_n9, 3, variant, UNIFORM(9))                                     \
  QWINO_BLOCK_FUNCTION(prefix##_n10, 3, variant, UNIFORM(10))                                   \
  QWINO_BLOCK_FUNCTION(prefix##_n11, 3, variant, UNIFORM(11))                                   \
  QWINO_BLOCK_FUNCTION(prefix##_n12, 3, variant, UNIFORM(12))                                   \
  QWINO_BLOCK_FUNCTION(prefix##_n13, 3, variant, UNIFORM(13))                                   \
  QWINO_BLOCK_FUNCTION(prefix##_n14, 3, variant, UNIFORM(14))                                   \
  QWINO_BLOCK_FUNCTION(prefix##_n15, 3, variant, UNIFORM(15))                                   \
  QWINO_BLOCK_FUNCTION(prefix##_n16, 3, variant, UNIFORM(16))                                   \
  static const block_fn prefix##_n[] = {prefix##_n1,  prefix##_n2,  prefix##_n3,  prefix##_n4,  \
                                        prefix##_n5,  prefix##_n6,  prefix##_n7,  prefix##_n8,  \
                                        prefix##_n9,  prefix##_n10, prefix##_n11, prefix##_n12, \
                                        prefix##_n13, prefix##_n14, prefix##_n15, prefix##_n16};

QWINO_BLOCK_FUNCTIONS(block3_shortcut, QWINO_NEON_GEMMLOWP_SHORTCUT)
QWINO_BLOCK_FUNCTIONS(block3_shortcut_s8, QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_INT8)
QWINO_BLOCK_FUNCTION(block3_fp32, 3, QWINO_NEON_FP32, -1)
QWINO_BLOCK_FUNCTION(block3_fp32_s8, 3, QWINO_NEON_FP32 | QWINO_NEON_INT8, -1)
QWINO_BLOCK_FUNCTION(block5_shortcut, 5, QWINO_NEON_GEMMLOWP_SHORTCUT, -1)
QWINO_BLOCK_FUNCTION(block5_shortcut_s8, 5, QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_INT8, -1)
QWINO_BLOCK_FUNCTION(block5_fp32, 5, QWINO_NEON_FP32, -1)
QWINO_BLOCK_FUNCTION(block5_fp32_s8, 5, QWINO_NEON_FP32 | QWINO_NEON_INT8, -1)
/* One function for both output types (qwino_neon_sign_by_xor: one EOR per 16 outputs) for the
 * rare blocks: the general gemmlowp form (multipliers of 0.5 and more; its calls come with that
 * variant, src/s8-dwconv/s8-dwconv-neon-entries.h) and 3-row shortcut blocks whose shifts no K
 * covers. The other 5-row bodies keep one per type: the EOR cost the A72's 5x5 layers 1.5%
 * (modeled, EfficientNet-Lite0). */
QWINO_BLOCK_FUNCTION(block3_shortcut_int32, 3,
                     QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_SIGN_BY_XOR, -1)
QWINO_BLOCK_FUNCTION(block3_left_shift, 3, QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_SIGN_BY_XOR,
                     -1)
QWINO_BLOCK_FUNCTION(block5_left_shift, 5, QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_SIGN_BY_XOR,
                     -1)

/*
 * The requantization of a 3x3 block whose count channels have these right shifts (gemmlowp
 * shortcut): one shift n for all, within SQRSHRN's immediates: *uniform = n, return -1; else
 * *uniform = 0 and the smallest instantiated K >= the largest shift - ROUNDING_SHIFT_MAX, if it
 * is below the smallest shift and int16_allowed, else -1.
 */
static int block_shift(const int32_t* right_shift, size_t count, int int16_allowed, int* uniform) {
  int32_t low, high;
  if (count == CR) { /* every call's full blocks: vector min / max (a scalar loop costs ~100) */
    const int32x4_t s0 = vld1q_s32(right_shift), s1 = vld1q_s32(right_shift + 4);
    const int32x4_t s2 = vld1q_s32(right_shift + 8), s3 = vld1q_s32(right_shift + 12);
    low = vminvq_s32(vminq_s32(vminq_s32(s0, s1), vminq_s32(s2, s3)));
    high = vmaxvq_s32(vmaxq_s32(vmaxq_s32(s0, s1), vmaxq_s32(s2, s3)));
  } else {
    low = high = right_shift[0];
    for (size_t c = 1; c < count; c++) {
      low = right_shift[c] < low ? right_shift[c] : low;
      high = right_shift[c] > high ? right_shift[c] : high;
    }
  }
  *uniform = low == high && low >= 1 && low <= UNIFORM_MAX ? low : 0;
  if (*uniform != 0) {
    return -1;
  }
  const int32_t least = high - ROUNDING_SHIFT_MAX > 0 ? high - ROUNDING_SHIFT_MAX : 0;
  const int32_t K = (least + PRESHIFT_STEP - 1) / PRESHIFT_STEP * PRESHIFT_STEP;
  return int16_allowed && K <= PRESHIFT_MAX && K < low ? K : -1;
}

/* The block function of a block of a kernel of R rows for this variant (a constant in every
 * body). */
QWINO_NEON_INLINE block_fn block_function(const size_t R, const int variant, int int16_allowed,
                                          const int32_t* cp, size_t stride, size_t count) {
  if (R == 5) {
    switch (variant) {
      case QWINO_NEON_GEMMLOWP_SHORTCUT:
        return block5_shortcut;
      case QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_INT8:
        return block5_shortcut_s8;
      case QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_SIGN_BY_XOR:
        return block5_left_shift;
      case QWINO_NEON_FP32:
        return block5_fp32;
      default:
        return block5_fp32_s8;
    }
  }
  switch (variant) {
    case QWINO_NEON_GEMMLOWP_SHORTCUT:
    case QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_INT8: {
      int uniform;
      const int K = block_shift(cp + 3 * stride, count, int16_allowed, &uniform);
      const int int8 = QWINO_NEON_IS_INT8(variant);
      if (uniform != 0) {
        /* 1..16 as an index; the mask only keeps GCC 12's -Warray-bounds from a threaded path
         * it cannot rule out. */
        const size_t index = (size_t)(uniform - 1) & (UNIFORM_MAX - 1);
        return (int8 ? block3_shortcut_s8_n : block3_shortcut_n)[index];
      }
      if (K >= 0) {
        return (int8 ? block3_shortcut_s8_k : block3_shortcut_k)[K / PRESHIFT_STEP];
      }
      return block3_shortcut_int32;
    }
    case QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_SIGN_BY_XOR:
      return block3_left_shift;
    case QWINO_NEON_FP32:
      return block3_fp32;
    default:
      return block3_fp32_s8;
  }
}

/* A call of a kernel of R rows: spans of blocks with the same block function. */
QWINO_NEON_INLINE void dwconv(const size_t R, QWINO_NEON_DWCONV_BODY_PARAMETERS) {
  /* The int16 requantization needs the zero point within the output type's range. */
  const int zero_point = vgetq_lane_s16(call->k->zero_point16, 0);
  const int int16_allowed = QWINO_NEON_IS_INT8(variant) ? zero_point >= -128 && zero_point <= 127
                                                        : zero_point >= 0 && zero_point <= 255;
  size_t c = 0;
  block_fn fn = block_function(R, variant, int16_allowed, channel_params, call->stride,
                               channels < CR ? channels : CR);
  while (c < channels) {
    /* The span of blocks from c that take fn, and the function of the block after it. */
    size_t end = c + CR;
    block_fn next = NULL;
    for (; end < channels; end += CR) {
      next = block_function(R, variant, int16_allowed, channel_params + end, call->stride,
                            channels - end < CR ? channels - end : CR);
      if (next != fn) {
        break;
      }
    }
    end = end < channels ? end : channels;
    fn(pixels, taps, input, input_pixel_step, input_offset + c, end - c, weights + c * taps,
       channel_params + c, call->stride, output + c, output_pixel_stride, call, flip);
    c = end;
    fn = next;
  }
}

QWINO_NEON_DWCONV_ROWS_ENTRIES(dwconv, qwino_s8_dwconv_gemmlowp_ukernel_up16__neon_col3,
                               qwino_s8_dwconv_fp32_ukernel_up16__neon_col3,
                               qwino_s8_dwconv_gemmlowp_ukernel_up16__neon_col5,
                               qwino_s8_dwconv_fp32_ukernel_up16__neon_col5)
