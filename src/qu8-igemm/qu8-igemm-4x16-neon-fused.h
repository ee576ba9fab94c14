/*
 * The 4x16 NEON indirect GEMM with the requantization fused, for a file that defines
 * QWINO_4X16_ACCUMULATE and QWINO_4X16_KR (qwino_dot_igemm_accumulate and 4: SDOT/UDOT;
 * qwino_i8mm_igemm_accumulate and 8: SMMLA/UMMLA; the same arguments and row layout of the tile)
 * and then expands QWINO_FUSED_ENTRY for its entry points. The scheme, the remainders and the
 * measurements behind the instantiations are at the top of
 * src/qu8-igemm/qu8-igemm-4x16c4-neondot.c.
 */
#ifndef QWINO_QU8_IGEMM_4X16_NEON_FUSED_H_
#define QWINO_QU8_IGEMM_4X16_NEON_FUSED_H_

#include <arm_neon.h>
#include <string.h>

#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

QWINO_INLINE void igemm_requantize(size_t mr, size_t nr, size_t kc, size_t ks,
                                   const uint8_t* const* a, size_t a_offset, const uint8_t* zero,
                                   uint8_t a_sign, const int8_t* packed_b,
                                   const int32_t* channel_params, const int32_t* row_terms,
                                   uint8_t* output, size_t output_stride,
                                   const union qwino_qu8_requantization_params* params, int flip,
                                   int half, int variant, int clamp, int unsigned_dot,
                                   int single_row) {
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

/* Instantiated per variant (both output types in one: qwino_neon_sign_by_xor, one EOR per row of
 * 16 outputs; modeled N1, MobileNetV2 0.7% and ResNet-50 0.1% more cycles, half the code), A
 * sign and column half, and for full tiles per clamp (2 instructions
 * per 16 outputs, but a run-time test costs about 25 instructions a tile, which decode-bound
 * shallow layers feel); half tiles test the clamp at run time. A call covers all nc columns, so
 * the variant, the clamp test and the register saves are paid once per row block, not per tile
 * (modeled N1: VGG's 224x224x3>64 conv1_1 11.7 -> 13.4 MACs/cycle with the operator passing its
 * 4 panels in one call). */
#define QWINO_FUSED_TILE(variant, flip, half, clamp, n, tile_nr, single_row)                      \
  igemm_requantize(mr, tile_nr, kc, ks, a, a_offset, zero, a_sign,                                \
                   packed_b + (n) / 16 * panel_bytes, channel_params + (n), row_terms,            \
                   output + (n), output_stride, params, flip, half, variant, clamp, unsigned_dot, \
                   single_row)
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
#define QWINO_FUSED_CASE(variant)              \
  case variant:                                \
    if (a_sign == (unsigned_dot ? 0x80 : 0)) { \
      QWINO_FUSED_SIGN(variant, 0)             \
    } else {                                   \
      QWINO_FUSED_SIGN(variant, 1)             \
    }                                          \
    break;

#define QWINO_GEMMLOWP_BODY()                                                                      \
  const size_t panel_bytes = ks * ((kc + QWINO_4X16_KR - 1) / QWINO_4X16_KR * QWINO_4X16_KR) * 16; \
  /* The general form covers the left shifts too (a shift by 0 changes nothing). */                \
  const int variant = qwino_neon_sign_by_xor(qwino_neon_gemmlowp_variant(&params->gemmlowp, 0));   \
  const int clamp = !qwino_neon_full_range(params, variant);                                       \
  switch (variant) { QWINO_NEON_GEMMLOWP_CASES_SIGN_BY_XOR(QWINO_FUSED_CASE) }
#define QWINO_FP32_BODY()                                                                          \
  const size_t panel_bytes = ks * ((kc + QWINO_4X16_KR - 1) / QWINO_4X16_KR * QWINO_4X16_KR) * 16; \
  const int variant = qwino_neon_sign_by_xor(qwino_neon_fp32_variant(&params->fp32));              \
  const int clamp = !qwino_neon_full_range(params, variant);                                       \
  switch (variant) { QWINO_FUSED_CASE(QWINO_NEON_FP32 | QWINO_NEON_SIGN_BY_XOR) }

/* An entry point takes any number of rows (its list entry's row_blocks): blocks of 4 (the last
 * one of 2 or 3) through the body, a last block of one row through its own function (tested
 * inside the body, the one-row case cost shallow layers' calls about 12 instructions of register
 * spills). One call per work item and panel block instead of one per 4 rows saves shallow layers
 * the call's stack arguments and register saves, and the variant dispatch per block of rows. */
#define QWINO_FUSED_ENTRY(name, BODY, unsigned_value)                                       \
  static __attribute__((noinline)) void name##_one_row(QWINO_IGEMM_REQUANTIZE_PARAMETERS) { \
    const int unsigned_dot = unsigned_value, one_row = 1;                                   \
    BODY()                                                                                  \
  }                                                                                         \
  void name(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {                                            \
    const size_t rows = mr;                                                                 \
    const uint8_t* const* const a_rows = a;                                                 \
    const int32_t* const row_terms_rows = row_terms;                                        \
    uint8_t* const output_rows = output;                                                    \
    size_t m = 0;                                                                           \
    for (; rows - m >= 2; m += 4) {                                                         \
      const size_t mr = rows - m < 4 ? rows - m : 4;                                        \
      const uint8_t* const* a = a_rows + m * ks;                                            \
      const int32_t* row_terms = row_terms_rows != NULL ? row_terms_rows + m : NULL;        \
      uint8_t* output = output_rows + m * output_stride;                                    \
      const int unsigned_dot = unsigned_value, one_row = 0;                                 \
      BODY()                                                                                \
      if (rows - m <= 4) {                                                                  \
        return;                                                                             \
      }                                                                                     \
    }                                                                                       \
    name##_one_row(1, nc, kc, ks, a_rows + m * ks, a_offset, zero, a_sign, packed_b,        \
                   channel_params, row_terms_rows != NULL ? row_terms_rows + m : NULL,      \
                   output_rows + m * output_stride, output_stride, params);                 \
  }

#endif /* QWINO_QU8_IGEMM_4X16_NEON_FUSED_H_ */
