/*
 * 4x16 8-bit indirect GEMM with the requantization fused, ARMv8.2 dot product (SDOT), k
 * interleave 4 (both modes, uint8 and int8 outputs; contract: qwino_igemm_requantize_ukernel_fn
 * in src/qwino/ukernel-types.h). Bit-exact twin of the composition of the scalar kernels
 * qwino_s8_igemm_ukernel_4x4c16__scalar (the abias128_bbias128 kernels: ..._abias128_bbias128_...,
 * UDOT, see src/s8-igemm/s8-igemm-4x16c4-neondot.c) and qwino_s32_qu8_requantize_*_ukernel__scalar.
 * Built with -march=armv8.2-a+dotprod (its file name's suffix) and run only where cpuinfo reports
 * it.
 *
 * The accumulation is the s8-igemm kernel's (src/s8-igemm/s8-igemm-4x16c4-neondot.h, whose
 * source file's top comment has the scheme), starting from the bias (plus the row's term where
 * there are row terms) instead of 0: the sums wrap
 * modulo 2^32 in any order, so bias + sum is the requantize kernel's wrapping add. Each row's
 * four registers then take the requantize kernel's steps (src/qwino/requantization-neon.h, the
 * argument for each), per-channel vectors loaded once per tile, and one 16-byte store. What this
 * saves on Neoverse N1, where a Q-form store takes two ASIMD micro-ops besides its store ones:
 * per 16 outputs, the s8-igemm kernel's four int32 stores and the pass's four loads and four bias
 * adds, against a separate pass (src/s32-qu8-requantize/s32-qu8-requantize-neon.c), so that the
 * requantization costs about 1.4 ASIMD slots per output instead of about 2.7.
 *
 * Remainders: with nr < 16 the per-channel values are staged in a stack buffer (zeros past nr)
 * so that exactly nr values of each array are read, and each row's 16 bytes go through a stack
 * buffer so that exactly nr bytes are written; with nr <= 8 only the first two column registers
 * are multiplied and requantized (a layer of 24 or 40 outputs no longer pays for 32 or 48:
 * modeled N1, 1x1 56x56x96>24 16.0 -> 20.7 MACs/cycle, XNNPACK 16.3). Rows past mr are computed
 * and not stored. The clamp is left out when the bounds are the whole range of the output type
 * (the saturating narrowing gives that range already).
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"
#include "s8-igemm/s8-igemm-4x16c4-neondot.h"

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
  acc = qwino_dot_igemm_accumulate(acc, mr, kc, ks, a, a_offset, zero, a_sign, packed_b, flip, half,
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

#define QWINO_GEMMLOWP_BODY()                                                                    \
  const size_t panel_bytes = ks * ((kc + 3) / 4 * 4) * 16; /* bytes per panel of 16 columns */   \
  /* The general form covers the left shifts too (a shift by 0 changes nothing). */              \
  const int variant = qwino_neon_sign_by_xor(qwino_neon_gemmlowp_variant(&params->gemmlowp, 0)); \
  const int clamp = !qwino_neon_full_range(params, variant);                                     \
  switch (variant) { QWINO_NEON_GEMMLOWP_CASES_SIGN_BY_XOR(QWINO_FUSED_CASE) }
#define QWINO_FP32_BODY()                                                                      \
  const size_t panel_bytes = ks * ((kc + 3) / 4 * 4) * 16; /* bytes per panel of 16 columns */ \
  const int variant = qwino_neon_sign_by_xor(qwino_neon_fp32_variant(&params->fp32));          \
  const int clamp = !qwino_neon_full_range(params, variant);                                   \
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
QWINO_FUSED_ENTRY(qwino_qu8_igemm_gemmlowp_ukernel_4x16c4__neondot, QWINO_GEMMLOWP_BODY, 0)
QWINO_FUSED_ENTRY(qwino_qu8_igemm_fp32_ukernel_4x16c4__neondot, QWINO_FP32_BODY, 0)
QWINO_FUSED_ENTRY(qwino_qu8_igemm_abias128_bbias128_gemmlowp_ukernel_4x16c4__neondot,
                  QWINO_GEMMLOWP_BODY, 1)
QWINO_FUSED_ENTRY(qwino_qu8_igemm_abias128_bbias128_fp32_ukernel_4x16c4__neondot, QWINO_FP32_BODY,
                  1)
