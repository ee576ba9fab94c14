/*
 * The 4x16 NEON indirect GEMM with the requantization fused, for a file that defines
 * QWINO_4X16_KR and either QWINO_4X16_ACCUMULATE (qwino_dot_igemm_accumulate and 4: SDOT/UDOT,
 * the tile in the row layout) or QWINO_4X16_BLOCKS (8: SMMLA/UMMLA,
 * qwino_i8mm_igemm_accumulate_blocks, the tile in SMMLA's 2x2 block layout) and then expands
 * QWINO_FUSED_ENTRY for its entry points. The scheme, the remainders and the measurements behind
 * the instantiations are at the top of src/qu8-igemm/qu8-igemm-4x16c4-neondot.c; the block
 * layout's at the top of src/qu8-igemm/qu8-igemm-4x16c8-neoni8mm.c.
 */
#ifndef QWINO_QU8_IGEMM_4X16_NEON_FUSED_H_
#define QWINO_QU8_IGEMM_4X16_NEON_FUSED_H_

#include <arm_neon.h>
#include <string.h>

#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* The tile function's parameters, in either layout: the kernel's, with nr <= 16 columns and
 * mr <= 4 rows, the variant's constants and the block layout's packed rows (or NULL). */
#define QWINO_4X16_TILE_PARAMETERS                                                                \
  size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t *const *a, size_t a_offset,           \
      const uint8_t *zero, uint8_t a_sign, const int8_t *packed_b, const int32_t *channel_params, \
      const int32_t *row_terms, uint8_t *output, size_t output_stride,                            \
      const union qwino_qu8_requantization_params *params, int flip, int half, int variant,       \
      int clamp, int unsigned_dot, int single_row, const int8_t *packed_a

#ifndef QWINO_4X16_BLOCKS
/* The channel arrays a tile reads: the packed ones, at the tile's first column. */
#define QWINO_4X16_TILE_CHANNELS(channel_params, n) ((channel_params) + (n))

QWINO_INLINE void igemm_requantize(QWINO_4X16_TILE_PARAMETERS) {
  (void)packed_a;
  size_t stride = qwino_neon_channel_stride(params, variant);
  int32_t staged[QWINO_MAX_CHANNEL_ARRAYS * 16];
  if (nr != 16) {
    qwino_neon_stage_channels(staged, 16, channel_params, stride, nr, variant);
    channel_params = staged;
    stride = 16;
  }
  const int32x4_t b0 = vld1q_s32(channel_params), b1 = vld1q_s32(channel_params + 4);
  const int32x4_t b2 = vld1q_s32(channel_params + 8), b3 = vld1q_s32(channel_params + 12);
  struct qwino_dot_igemm_acc acc = {b0, b1, b2, b3, b0, b1, b2, b3, b0, b1, b2, b3, b0, b1, b2, b3};
  if (row_terms != NULL) {
    /* Rows past mr take row mr - 1's term (computed, not stored). */
    const int32x4_t t0 = vld1q_dup_s32(row_terms);
    const int32x4_t t1 = vld1q_dup_s32(row_terms + (mr > 1 ? 1 : 0));
    const int32x4_t t2 = vld1q_dup_s32(row_terms + (mr > 2 ? 2 : mr - 1));
    const int32x4_t t3 = vld1q_dup_s32(row_terms + (mr > 3 ? 3 : mr - 1));
    acc.r0c0 = vaddq_s32(b0, t0), acc.r0c1 = vaddq_s32(b1, t0);
    acc.r0c2 = vaddq_s32(b2, t0), acc.r0c3 = vaddq_s32(b3, t0);
    acc.r1c0 = vaddq_s32(b0, t1), acc.r1c1 = vaddq_s32(b1, t1);
    acc.r1c2 = vaddq_s32(b2, t1), acc.r1c3 = vaddq_s32(b3, t1);
    acc.r2c0 = vaddq_s32(b0, t2), acc.r2c1 = vaddq_s32(b1, t2);
    acc.r2c2 = vaddq_s32(b2, t2), acc.r2c3 = vaddq_s32(b3, t2);
    acc.r3c0 = vaddq_s32(b0, t3), acc.r3c1 = vaddq_s32(b1, t3);
    acc.r3c2 = vaddq_s32(b2, t3), acc.r3c3 = vaddq_s32(b3, t3);
  }
  acc = QWINO_4X16_ACCUMULATE(acc, mr, kc, ks, a, a_offset, zero, a_sign, packed_b, flip, half,
                              unsigned_dot, single_row);
  const struct qwino_neon_requantization k = qwino_neon_requantization_init(params, variant);
  const struct qwino_neon_channels ch0 = qwino_neon_load_channels(channel_params, stride, variant);
  const struct qwino_neon_channels ch1 =
      qwino_neon_load_channels(channel_params + 4, stride, variant);
  const struct qwino_neon_channels ch2 =
      qwino_neon_load_channels(channel_params + 8, stride, variant);
  const struct qwino_neon_channels ch3 =
      qwino_neon_load_channels(channel_params + 12, stride, variant);
  /* With `half` only columns 0..7 are requantized (the narrowing repeats them). */
#define QWINO_REQUANTIZE_ROW(i)                                                                    \
  do {                                                                                             \
    const int32x4_t v0 = qwino_neon_requantize_s32x4(acc.r##i##c0, &ch0, &k, variant);             \
    const int32x4_t v1 = qwino_neon_requantize_s32x4(acc.r##i##c1, &ch1, &k, variant);             \
    const int32x4_t v2 = half ? v0 : qwino_neon_requantize_s32x4(acc.r##i##c2, &ch2, &k, variant); \
    const int32x4_t v3 = half ? v1 : qwino_neon_requantize_s32x4(acc.r##i##c3, &ch3, &k, variant); \
    const uint8x16_t bytes = qwino_neon_narrow_4x4_clamp(v0, v1, v2, v3, &k, variant, clamp);      \
    qwino_neon_store_upto16(output + i * output_stride, nr, bytes);                                \
  } while (0)
  QWINO_REQUANTIZE_ROW(0);
  if (mr > 1) QWINO_REQUANTIZE_ROW(1);
  if (mr > 2) QWINO_REQUANTIZE_ROW(2);
  if (mr > 3) QWINO_REQUANTIZE_ROW(3);
#undef QWINO_REQUANTIZE_ROW
}

#else /* QWINO_4X16_BLOCKS */

/* Values of one panel's staged channel arrays: QWINO_MAX_CHANNEL_ARRAYS arrays of 32 in the block
 * layout and a second copy of the biases (qwino_i8mm_stage_blocks). */
#define QWINO_I8MM_BIAS_COPY (QWINO_MAX_CHANNEL_ARRAYS * 32)
#define QWINO_I8MM_PANEL_VALUES (QWINO_I8MM_BIAS_COPY + 32)
/* Panels staged at once: 5 KB of stack. */
#define QWINO_I8MM_STAGE_PANELS 8
#define QWINO_4X16_TILE_CHANNELS(channel_params, n) \
  ((channel_params) + (n) / 16 * QWINO_I8MM_PANEL_VALUES)

/* The first `arrays` channel arrays of `columns` columns, a panel of 16 at a time, in the block
 * layout: value 4q + l of an array is column 2q + (l & 1)'s, the lanes of block accumulator
 * m<p><q> ([row 2p: 2q, 2q + 1 | row 2p + 1: 2q, 2q + 1]); columns past `columns` are 0. The
 * gemmlowp right shifts are staged negated, as SRSHL takes them
 * (qwino_neon_load_negated_channels): a NEG per block and tile less. The biases' copy starts the
 * second row pair's accumulators with loads where GCC would copy registers (8 MOVs a tile). */
QWINO_INLINE void qwino_i8mm_stage_blocks(int32_t* staged, const int32_t* channel_params,
                                          size_t stride, size_t columns, size_t arrays) {
  for (size_t n = 0; n < columns; n += 16) {
    int32_t* panel = staged + n / 16 * QWINO_I8MM_PANEL_VALUES;
    for (size_t i = 0; i < arrays; i++) {
      const int32_t* values = channel_params + i * stride + n;
      int32_t tail[16];
      if (columns - n < 16) {
        memset(tail, 0, sizeof(tail));
        memcpy(tail, values, (columns - n) * sizeof(int32_t));
        values = tail;
      }
      for (size_t j = 0; j < 4; j++) {
        const int32x4_t loaded = vld1q_s32(values + 4 * j);
        const int64x2_t v = vreinterpretq_s64_s32(
            i == QWINO_GEMMLOWP_RIGHT_SHIFT_ARRAY ? vnegq_s32(loaded) : loaded);
        const int32x4_t lo = vreinterpretq_s32_s64(vzip1q_s64(v, v));
        const int32x4_t hi = vreinterpretq_s32_s64(vzip2q_s64(v, v));
        vst1q_s32(panel + i * 32 + 8 * j, lo);
        vst1q_s32(panel + i * 32 + 8 * j + 4, hi);
        if (i == 0) {
          vst1q_s32(panel + QWINO_I8MM_BIAS_COPY + 8 * j, lo);
          vst1q_s32(panel + QWINO_I8MM_BIAS_COPY + 8 * j + 4, hi);
        }
      }
    }
  }
}

/* [t(a) t(a) t(b) t(b)]: the row terms of a block accumulator's two rows. */
QWINO_INLINE int32x4_t qwino_i8mm_row_pair_terms(const int32_t* row_terms, size_t a, size_t b) {
  return vcombine_s32(vld1_dup_s32(row_terms + a), vld1_dup_s32(row_terms + b));
}

/* The tile with channel_params at its panel's staged blocks: the accumulators start in the block
 * layout from them, and the requantization runs on the blocks (it is lane by lane, with the
 * staged channel values in the blocks' lanes); the narrowing then leaves 2-byte pairs of the two
 * rows alternating ([row a: 0, 1 | row b: 0, 1 | row a: 2, 3 | ...]), which one UZP1 and one
 * UZP2 of 16-bit lanes per row pair put in row order. */
QWINO_INLINE void igemm_requantize(QWINO_4X16_TILE_PARAMETERS) {
  const int32_t* blocks = channel_params;
  struct qwino_i8mm_igemm_acc m;
  m.m00 = vld1q_s32(blocks), m.m01 = vld1q_s32(blocks + 4);
  m.m02 = vld1q_s32(blocks + 8), m.m03 = vld1q_s32(blocks + 12);
  m.m04 = vld1q_s32(blocks + 16), m.m05 = vld1q_s32(blocks + 20);
  m.m06 = vld1q_s32(blocks + 24), m.m07 = vld1q_s32(blocks + 28);
  const int32_t* bias_copy = blocks + QWINO_I8MM_BIAS_COPY;
  m.m10 = vld1q_s32(bias_copy), m.m11 = vld1q_s32(bias_copy + 4);
  m.m12 = vld1q_s32(bias_copy + 8), m.m13 = vld1q_s32(bias_copy + 12);
  m.m14 = vld1q_s32(bias_copy + 16), m.m15 = vld1q_s32(bias_copy + 20);
  m.m16 = vld1q_s32(bias_copy + 24), m.m17 = vld1q_s32(bias_copy + 28);
  if (row_terms != NULL) {
    /* Rows past mr take row mr - 1's term (computed, not stored). */
    const int32x4_t t01 = qwino_i8mm_row_pair_terms(row_terms, 0, mr > 1 ? 1 : 0);
    const int32x4_t t23 =
        qwino_i8mm_row_pair_terms(row_terms, mr > 2 ? 2 : mr - 1, mr > 3 ? 3 : mr - 1);
    m.m00 = vaddq_s32(m.m00, t01), m.m01 = vaddq_s32(m.m01, t01);
    m.m02 = vaddq_s32(m.m02, t01), m.m03 = vaddq_s32(m.m03, t01);
    m.m04 = vaddq_s32(m.m04, t01), m.m05 = vaddq_s32(m.m05, t01);
    m.m06 = vaddq_s32(m.m06, t01), m.m07 = vaddq_s32(m.m07, t01);
    m.m10 = vaddq_s32(m.m10, t23), m.m11 = vaddq_s32(m.m11, t23);
    m.m12 = vaddq_s32(m.m12, t23), m.m13 = vaddq_s32(m.m13, t23);
    m.m14 = vaddq_s32(m.m14, t23), m.m15 = vaddq_s32(m.m15, t23);
    m.m16 = vaddq_s32(m.m16, t23), m.m17 = vaddq_s32(m.m17, t23);
  }
  if (packed_a != NULL) {
    m = qwino_i8mm_igemm_accumulate_packed(m, packed_a, qwino_i8mm_steps(kc, ks), packed_b, half,
                                           unsigned_dot);
  } else {
    m = qwino_i8mm_igemm_accumulate_blocks(m, mr, kc, ks, a, a_offset, zero, a_sign, packed_b, flip,
                                           half, unsigned_dot, single_row);
  }
  const struct qwino_neon_requantization k = qwino_neon_requantization_init(params, variant);
#define QWINO_REQUANTIZE_BLOCK(p, q)                                     \
  ({                                                                     \
    const struct qwino_neon_channels ch =                                \
        qwino_neon_load_negated_channels(blocks + 4 * (q), 32, variant); \
    qwino_neon_requantize_s32x4(m.m##p##q, &ch, &k, variant);            \
  })
  /* With `half` only column pairs 0..3 (columns 0..7) are requantized. */
#define QWINO_REQUANTIZE_PAIR(p, row_b_stored)                                                    \
  do {                                                                                            \
    const uint8x16_t x = qwino_neon_narrow_4x4_clamp(                                             \
        QWINO_REQUANTIZE_BLOCK(p, 0), QWINO_REQUANTIZE_BLOCK(p, 1), QWINO_REQUANTIZE_BLOCK(p, 2), \
        QWINO_REQUANTIZE_BLOCK(p, 3), &k, variant, clamp);                                        \
    const uint8x16_t y = half ? x                                                                 \
                              : qwino_neon_narrow_4x4_clamp(                                      \
                                    QWINO_REQUANTIZE_BLOCK(p, 4), QWINO_REQUANTIZE_BLOCK(p, 5),   \
                                    QWINO_REQUANTIZE_BLOCK(p, 6), QWINO_REQUANTIZE_BLOCK(p, 7),   \
                                    &k, variant, clamp);                                          \
    const uint16x8_t x16 = vreinterpretq_u16_u8(x), y16 = vreinterpretq_u16_u8(y);                \
    qwino_neon_store_upto16(output + 2 * (p)*output_stride, nr,                                   \
                            vreinterpretq_u8_u16(vuzp1q_u16(x16, y16)));                          \
    if (row_b_stored) {                                                                           \
      qwino_neon_store_upto16(output + (2 * (p) + 1) * output_stride, nr,                         \
                              vreinterpretq_u8_u16(vuzp2q_u16(x16, y16)));                        \
    }                                                                                             \
  } while (0)
  QWINO_REQUANTIZE_PAIR(0, mr > 1);
  if (mr > 2) QWINO_REQUANTIZE_PAIR(1, mr > 3);
#undef QWINO_REQUANTIZE_PAIR
#undef QWINO_REQUANTIZE_BLOCK
}

#endif /* QWINO_4X16_BLOCKS */

/* Instantiated per variant (both output types in one: qwino_neon_sign_by_xor, one EOR per row of
 * 16 outputs; modeled N1, MobileNetV2 0.7% and ResNet-50 0.1% more cycles, half the code), A
 * sign and column half, and for full tiles per clamp (2 instructions
 * per 16 outputs, but a run-time test costs about 25 instructions a tile, which decode-bound
 * shallow layers feel); half tiles test the clamp at run time. A call covers all nc columns, so
 * the variant, the clamp test and the register saves are paid once per row block, not per tile
 * (modeled N1: VGG's 224x224x3>64 conv1_1 11.7 -> 13.4 MACs/cycle with the operator passing its
 * 4 panels in one call). */
#define QWINO_FUSED_TILE(variant, flip, half, clamp, n, tile_nr, single_row)                       \
  igemm_requantize(mr, tile_nr, kc, ks, a, a_offset, zero, a_sign,                                 \
                   packed_b + (n) / 16 * panel_bytes, QWINO_4X16_TILE_CHANNELS(channel_params, n), \
                   row_terms, output + (n), output_stride, params, flip, half, variant, clamp,     \
                   unsigned_dot, single_row, packed_a)
/* The nc columns a panel of 16 at a time: full panels, then a last one of 9..15 or 1..8. A
 * block of one row (one_row, a constant: mr == 1) multiplies only that row, every panel with the
 * clamp tested at run time and all 16 columns (one instantiation more per variant and sign, not
 * four). */
#define QWINO_FUSED_SIGN(variant, flip)                                              \
  {                                                                                  \
    size_t n = 0;                                                                    \
    if (one_row) {                                                                   \
      for (; n < nc; n += 16) {                                                      \
        QWINO_FUSED_TILE(variant, flip, 0, clamp, n, QWINO_MIN(nc - n, 16), 1);      \
      }                                                                              \
    } else if (clamp) {                                                              \
      for (; n + 16 <= nc; n += 16) QWINO_FUSED_TILE(variant, flip, 0, 1, n, 16, 0); \
    } else {                                                                         \
      for (; n + 16 <= nc; n += 16) QWINO_FUSED_TILE(variant, flip, 0, 0, n, 16, 0); \
    }                                                                                \
    if (n >= nc) {                                                                   \
    } else if (nc - n > 8) {                                                         \
      QWINO_FUSED_TILE(variant, flip, 0, clamp, n, nc - n, 0);                       \
    } else {                                                                         \
      QWINO_FUSED_TILE(variant, flip, 1, clamp, n, nc - n, 0);                       \
    }                                                                                \
  }
/* unsigned_dot: a constant in each entry point; the bytes need no XOR at a_sign 0 (SDOT) or
 * 0x80 (UDOT). */
#define QWINO_FUSED_FLIP(a_sign, unsigned_dot) ((a_sign) != ((unsigned_dot) ? 0x80 : 0))
/* What the operator never or rarely sends, in one tile instantiation per function: flip 1 (the
 * XOR with a sign of 0 changes nothing), the clamp always, every panel through the remainder path
 * (an EOR per A vector, the clamp and a last panel's staging more than the full bodies). Those
 * are the left-shift form (multipliers of 0.5 and more, zero points beyond the shortcut's margin:
 * rare in trained layers) and int8 activations on the unsigned entries (UDOT / UMMLA, which the
 * operator takes only for uint8 ones: src/convolution-indirect.cc, sign_kernels). */
#define QWINO_FUSED_COMPACT(variant)                                       \
  for (size_t n = 0; n < nc; n += 16) {                                    \
    QWINO_FUSED_TILE(variant, 1, 0, 1, n, QWINO_MIN(nc - n, 16), one_row); \
  }
#define QWINO_FUSED_CASE(variant)                                     \
  case variant:                                                       \
    if (QWINO_NEON_FORM(variant) == QWINO_NEON_GEMMLOWP_LEFT_SHIFT) { \
      QWINO_FUSED_COMPACT(variant)                                    \
    } else if (!QWINO_FUSED_FLIP(a_sign, unsigned_dot)) {             \
      QWINO_FUSED_SIGN(variant, 0)                                    \
    } else if (unsigned_dot) {                                        \
      QWINO_FUSED_COMPACT(variant)                                    \
    } else {                                                          \
      QWINO_FUSED_SIGN(variant, 1)                                    \
    }                                                                 \
    break;

/* Bytes of one packed B panel: ks taps of kc rounded up to the k interleave, 16 columns. */
#define QWINO_4X16_PANEL_BYTES(kc, ks) \
  ((ks) * (((kc) + QWINO_4X16_KR - 1) / QWINO_4X16_KR * QWINO_4X16_KR) * 16)
/* Each mode's variant (the gemmlowp general form covers the left shifts too: a shift by 0 changes
 * nothing). */
#define QWINO_GEMMLOWP_BODY_VARIANT(params) \
  qwino_neon_sign_by_xor(qwino_neon_gemmlowp_variant(&(params)->gemmlowp, 0))
#define QWINO_FP32_BODY_VARIANT(params) \
  qwino_neon_sign_by_xor(qwino_neon_fp32_variant(&(params)->fp32))

#define QWINO_GEMMLOWP_BODY()                                \
  const size_t panel_bytes = QWINO_4X16_PANEL_BYTES(kc, ks); \
  const int variant = QWINO_GEMMLOWP_BODY_VARIANT(params);   \
  const int clamp = !qwino_neon_full_range(params, variant); \
  switch (variant) { QWINO_NEON_GEMMLOWP_CASES_SIGN_BY_XOR(QWINO_FUSED_CASE) }
#define QWINO_FP32_BODY()                                    \
  const size_t panel_bytes = QWINO_4X16_PANEL_BYTES(kc, ks); \
  const int variant = QWINO_FP32_BODY_VARIANT(params);       \
  const int clamp = !qwino_neon_full_range(params, variant); \
  switch (variant) { QWINO_FUSED_CASE(QWINO_NEON_FP32 | QWINO_NEON_SIGN_BY_XOR) }

#ifndef QWINO_4X16_BLOCKS
/* The row layout's entry point is the function that walks the rows. */
#define QWINO_4X16_ROWS_FUNCTION(name) void name
#define QWINO_4X16_STAGED_ENTRY(name, BODY)
#define QWINO_4X16_PACKED_ROWS_DECLARE
#define QWINO_4X16_PACK_ROWS const int8_t* packed_a = NULL;
#else
/* Largest packing of a block of rows (qwino_i8mm_packed_rows_bytes), on the stack: 3x3 layers of
 * 512 channels take 18 KB. */
#define QWINO_I8MM_PACKED_ROWS_MAX (20 * 1024)
/* A call of more than one panel packs each block of rows once for all of them where the packing
 * fits (its 4 loads, ZIPs and stores per 16 k against 4 ZIPs per 16 k and panel). */
#define QWINO_4X16_PACKED_ROWS_DECLARE            \
  int8_t packed_rows[QWINO_I8MM_PACKED_ROWS_MAX]; \
  const int pack = nc > 16 && qwino_i8mm_packed_rows_bytes(kc, ks) <= sizeof(packed_rows);
#define QWINO_4X16_PACK_ROWS                                                    \
  const int8_t* packed_a = NULL;                                                \
  if (pack) {                                                                   \
    qwino_i8mm_pack_rows(packed_rows, mr, kc, ks, a, a_offset, zero, a_sign,    \
                         QWINO_FUSED_FLIP(a_sign, unsigned_dot), unsigned_dot); \
    packed_a = packed_rows;                                                     \
  }
#define QWINO_4X16_ROWS_FUNCTION(name) static void name##_rows
/* The block layout's entry point stages the channel arrays of QWINO_I8MM_STAGE_PANELS panels at a
 * time and walks all rows over them: the staging (4 loads, 8 ZIPs and 8 stores an array and
 * panel) is paid once per call and panel, not per tile. */
#define QWINO_4X16_STAGED_ENTRY(name, BODY)                                                        \
  void name(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {                                                   \
    int32_t staged[QWINO_I8MM_STAGE_PANELS * QWINO_I8MM_PANEL_VALUES];                             \
    const size_t panel_bytes = QWINO_4X16_PANEL_BYTES(kc, ks);                                     \
    const int variant = BODY##_VARIANT(params);                                                    \
    for (size_t n = 0; n < nc; n += QWINO_I8MM_STAGE_PANELS * 16) {                                \
      const size_t columns = QWINO_MIN(nc - n, QWINO_I8MM_STAGE_PANELS * 16);                      \
      qwino_i8mm_stage_blocks(staged, channel_params + n,                                          \
                              qwino_neon_channel_stride(params, variant), columns,                 \
                              qwino_neon_channel_arrays(variant));                                 \
      name##_rows(mr, columns, kc, ks, a, a_offset, zero, a_sign, packed_b + n / 16 * panel_bytes, \
                  staged, row_terms, output + n, output_stride, params);                           \
    }                                                                                              \
  }
#endif

/* An entry point takes any number of rows (its list entry's row_blocks): blocks of 4 (the last
 * one of 2 or 3) through the body, a last block of one row through its own function (tested
 * inside the body, the one-row case cost shallow layers' calls about 12 instructions of register
 * spills). One call per work item and panel block instead of one per 4 rows saves shallow layers
 * the call's stack arguments and register saves, and the variant dispatch per block of rows. */
#define QWINO_FUSED_ENTRY(name, BODY, unsigned_value)                                       \
  static __attribute__((noinline)) void name##_one_row(QWINO_IGEMM_REQUANTIZE_PARAMETERS) { \
    const int unsigned_dot = unsigned_value, one_row = 1;                                   \
    const int8_t* packed_a = NULL;                                                          \
    BODY()                                                                                  \
  }                                                                                         \
  QWINO_4X16_ROWS_FUNCTION(name)(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {                       \
    const size_t rows = mr;                                                                 \
    const uint8_t* const* const a_rows = a;                                                 \
    const int32_t* const row_terms_rows = row_terms;                                        \
    uint8_t* const output_rows = output;                                                    \
    QWINO_4X16_PACKED_ROWS_DECLARE                                                          \
    size_t m = 0;                                                                           \
    for (; rows - m >= 2; m += 4) {                                                         \
      const size_t mr = rows - m < 4 ? rows - m : 4;                                        \
      const uint8_t* const* a = a_rows + m * ks;                                            \
      const int32_t* row_terms = row_terms_rows != NULL ? row_terms_rows + m : NULL;        \
      uint8_t* output = output_rows + m * output_stride;                                    \
      const int unsigned_dot = unsigned_value, one_row = 0;                                 \
      QWINO_4X16_PACK_ROWS                                                                  \
      BODY()                                                                                \
      if (rows - m <= 4) {                                                                  \
        return;                                                                             \
      }                                                                                     \
    }                                                                                       \
    name##_one_row(1, nc, kc, ks, a_rows + m * ks, a_offset, zero, a_sign, packed_b,        \
                   channel_params, row_terms_rows != NULL ? row_terms_rows + m : NULL,      \
                   output_rows + m * output_stride, output_stride, params);                 \
  }                                                                                         \
  QWINO_4X16_STAGED_ENTRY(name, BODY)

#endif /* QWINO_QU8_IGEMM_4X16_NEON_FUSED_H_ */
