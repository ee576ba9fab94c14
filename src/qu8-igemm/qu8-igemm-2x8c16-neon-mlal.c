/*
 * 2x8 8-bit indirect GEMM with the requantization fused, NEON, k interleave 16, written for the
 * Cortex-A72 (both modes, uint8 and int8 outputs; contract: qwino_igemm_requantize_ukernel_fn in
 * src/qwino/ukernel-types.h). Bit-exact twin of the composition of the scalar kernels
 * qwino_s8_igemm_ukernel_4x4c16__scalar and qwino_s32_qu8_requantize_*_ukernel__scalar.
 *
 * Per panel of 8 columns, the sums are the s8-igemm kernel's (SMULL + SMLAL2 + SADALP,
 * src/s8-igemm/s8-igemm-2x8c16-neon-mlal.h, which has the argument for their exactness),
 * started from the bias, with the row's term added after (the sums wrap modulo 2^32 in any
 * order, so this is the requantize kernel's wrapping add); the four int32x4 take the requantize
 * kernel's steps (src/qwino/requantization-neon.h) and one narrowing to 16 bytes, 8 per row.
 *
 * Why fused on the A72: the GEMM keeps F0 busy with one multiply per cycle and leaves F1 about
 * half idle (the SADALPs), so work done between panels runs beside the next panel's multiplies
 * instead of in a pass of its own, which would also store and reload every int32. The fp32 mode
 * uses the D-form float steps (QWINO_NEON_FP32_HALVES), which need not take F0 at all; the
 * gemmlowp mode's SQRDMULH is a multiply and takes F0 whatever the form (2 cycles per 4 values
 * against the GEMM's 16 k / 2 = 8 cycles per output of 128 k: its 0.5 cycle per output is what
 * separates the two modes on 1x1 layers).
 *
 * Remainders: any mr (the call walks row pairs); with nr < 8 the per-channel values are staged
 * (zeros past nr) so that exactly nr values of each array are read, and the bytes go through a
 * buffer so that exactly nr are written per row; row 1 of a last odd row is computed from zero
 * sums and not stored. One body serves both output types (qwino_neon_sign_by_xor: one EOR per
 * 16 outputs).
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"
#include "s8-igemm/s8-igemm-2x8c16-neon-mlal.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* The panel loop's kinds of accumulation (inline_general): 0 the body by pointer, 1 and 2 the
 * general path inlined (int8 and uint8 activations), QWINO_RESIDENT the resident rows. */
#define QWINO_RESIDENT 3

/* a + b modulo 2^32. */
QWINO_INLINE int32x4_t wrapping_add(int32x4_t a, int32x4_t b) {
  return vreinterpretq_s32_u32(vaddq_u32(vreinterpretq_u32_s32(a), vreinterpretq_u32_s32(b)));
}

/* One panel: the sums of `rows` (a constant, 1 or 2) rows x nr (1..8) columns, from the bias
 * in cp (per-channel arrays `stride` apart, 8 readable values each), requantized and stored. */
QWINO_INLINE void panel(const size_t rows, const int full, const int inline_general,
                        qwino_mlal_igemm_body body, const struct qwino_mlal_igemm_rows* r,
                        const struct qwino_mlal_resident_rows* res, const int8_t* b, size_t nr,
                        const int32_t* cp, size_t stride, const int32_t* row_terms, int32x4_t term0,
                        int32x4_t term1, uint8_t* output, size_t output_stride,
                        const struct qwino_neon_requantization* k, int variant, int clamp) {
  const struct qwino_mlal_igemm_sums sums =
      inline_general == QWINO_RESIDENT ? igemm_resident(rows, res, b, cp)
      : inline_general != 0 ? igemm_general(rows, inline_general == 2, r->kc, r->ks, r->a,
                                            r->a_offset, r->zero, r->a_sign, b, cp)
                            : body(r, b, cp);
  int32x4_t r0lo = sums.r0lo, r0hi = sums.r0hi, r1lo = sums.r1lo, r1hi = sums.r1hi;
  if (row_terms != NULL) {
    r0lo = wrapping_add(r0lo, term0), r0hi = wrapping_add(r0hi, term0);
    r1lo = wrapping_add(r1lo, term1), r1hi = wrapping_add(r1hi, term1);
  }
  const struct qwino_neon_channels ch_lo = qwino_neon_load_channels(cp, stride, variant);
  const struct qwino_neon_channels ch_hi = qwino_neon_load_channels(cp + 4, stride, variant);
  const int32x4_t v0 = qwino_neon_requantize_s32x4(r0lo, &ch_lo, k, variant);
  const int32x4_t v1 = qwino_neon_requantize_s32x4(r0hi, &ch_hi, k, variant);
  int32x4_t v2 = v0, v3 = v1;
  if (rows > 1) {
    v2 = qwino_neon_requantize_s32x4(r1lo, &ch_lo, k, variant);
    v3 = qwino_neon_requantize_s32x4(r1hi, &ch_hi, k, variant);
  }
  const uint8x16_t bytes = qwino_neon_narrow_4x4_clamp(v0, v1, v2, v3, k, variant, clamp);
  if (full) {
    vst1_u8(output, vget_low_u8(bytes));
    if (rows > 1) {
      vst1_u8(output + output_stride, vget_high_u8(bytes));
    }
  } else {
    /* Row 1's bytes in the high half, off the path of the full panels. */
    qwino_neon_store_upto16(output, nr, bytes);
    if (rows > 1) {
      qwino_neon_store_upto16(output + output_stride, nr, vextq_u8(bytes, bytes, 8));
    }
  }
}

/* All nc columns: the full panels in a loop with no call but the body's, then the last one of
 * 1..7 columns with its per-channel values staged. */
QWINO_INLINE void igemm_requantize(const size_t rows, const int inline_general, size_t nc,
                                   size_t kc, size_t ks, const uint8_t* const* a, size_t a_offset,
                                   const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b,
                                   const int32_t* channel_params, const int32_t* row_terms,
                                   uint8_t* output, size_t output_stride,
                                   const union qwino_qu8_requantization_params* params, int variant,
                                   int clamp) {
  const struct qwino_mlal_igemm_rows r = {rows, kc, ks, a, a_offset, zero, a_sign};
  const qwino_mlal_igemm_body body = inline_general == 0 ? qwino_mlal_igemm_choose(&r) : NULL;
  struct qwino_mlal_resident_rows res;
  if (inline_general == QWINO_RESIDENT) {
    qwino_mlal_load_resident_rows(rows, kc, a, a_offset, zero, a_sign, &res);
  }
  const size_t panel_bytes = ks * ((kc + 15) / 16 * 16) * 8;
  const struct qwino_neon_requantization k = qwino_neon_requantization_init(params, variant);
  const size_t stride = qwino_neon_channel_stride(params, variant);
  /* Rows past mr take row mr - 1's term (computed, not stored). */
  const int32x4_t term0 = row_terms != NULL ? vld1q_dup_s32(row_terms) : vdupq_n_s32(0);
  const int32x4_t term1 =
      row_terms != NULL ? vld1q_dup_s32(row_terms + (rows > 1 ? 1 : 0)) : vdupq_n_s32(0);
  const int8_t* b = packed_b;
  for (; nc >= 8; nc -= 8) {
    panel(rows, 1, inline_general, body, &r, &res, b, 8, channel_params, stride, row_terms, term0,
          term1, output, output_stride, &k, variant, clamp);
    b += panel_bytes;
    channel_params += 8;
    output += 8;
  }
  if (nc != 0) {
    int32_t staged[QWINO_MAX_CHANNEL_ARRAYS * 8];
    qwino_neon_stage_channels(staged, 8, channel_params, stride, nc, variant);
    panel(rows, 0, inline_general, body, &r, &res, b, nc, staged, 8, row_terms, term0, term1,
          output, output_stride, &k, variant, clamp);
  }
}

/* The call takes any number of rows (its list entry's row_blocks) and walks them two at a time,
 * so the variant and the clamp test are paid once per work item and run of panels rather than
 * per row pair. For rows of 9 bytes or more (the general path) the accumulation is inlined into
 * the panel loop, instantiated per variant and A sign, with the clamp always applied (2
 * instructions per 16 outputs): a call of the body per panel cost its register saves, the
 * caller's spills of the requantization constants and the operands' reloads, about 100
 * instructions per 16 outputs, a third of a 1x1 layer of 16-32 input channels (modeled A72,
 * int8: 112x112x32>16 5.38 -> 6.14 MACs/cycle, 56x56x24>144 4.99 -> 5.50, 112x112x16>96 4.18
 * -> 4.74, for 20 KB of code). Short rows (kc <= 8) keep the bodies by pointer, and the clamp is
 * left out there when the bounds are the whole range of the output type. */
#define QWINO_FUSED_ROWS(variant, rows, clamp)                                                     \
  igemm_requantize(rows, inline_general, nc, kc, ks, a + m * ks, a_offset, zero, a_sign, packed_b, \
                   channel_params, row_terms != NULL ? row_terms + m : NULL,                       \
                   output + m * output_stride, output_stride, params, variant, clamp)
#define QWINO_FUSED_PAIRS(variant, kind) \
  {                                      \
    const int inline_general = kind;     \
    for (; mr - m >= 2; m += 2) {        \
      if (clamp || kind != 0) {          \
        QWINO_FUSED_ROWS(variant, 2, 1); \
      } else {                           \
        QWINO_FUSED_ROWS(variant, 2, 0); \
      }                                  \
    }                                    \
  }
#define QWINO_FUSED_LAST_ROW(variant, kind, clamp) \
  if (m < mr) {                                    \
    const int inline_general = kind;               \
    QWINO_FUSED_ROWS(variant, 1, clamp);           \
  }
/* The left-shift form (multipliers of 0.5 and more, zero points beyond the shortcut's margin:
 * rare in trained layers) takes the bodies by pointer with the clamp for every row count
 * (QWINO_COMPACT_ROWS): one instantiation per row count instead of seven. */
#define QWINO_COMPACT_ROWS(variant)    \
  {                                    \
    const int inline_general = 0;      \
    for (; mr - m >= 2; m += 2) {      \
      QWINO_FUSED_ROWS(variant, 2, 1); \
    }                                  \
  }                                    \
  QWINO_FUSED_LAST_ROW(variant, 0, 1)
#define QWINO_IS_COMPACT(variant) (QWINO_NEON_FORM(variant) == QWINO_NEON_GEMMLOWP_LEFT_SHIFT)
#define QWINO_FUSED_CASE(variant)           \
  case variant: {                           \
    size_t m = 0;                           \
    if (QWINO_IS_COMPACT(variant)) {        \
      QWINO_COMPACT_ROWS(variant)           \
      break;                                \
    }                                       \
    if (general && a_sign == 0) {           \
      QWINO_FUSED_PAIRS(variant, 1)         \
    } else if (general) {                   \
      QWINO_FUSED_PAIRS(variant, 2)         \
    } else {                                \
      QWINO_FUSED_PAIRS(variant, 0)         \
    }                                       \
    QWINO_FUSED_LAST_ROW(variant, 0, clamp) \
  } break;
/* Resident rows (one tap of 9-48 bytes: 1x1 layers of 9-48 input channels), the last odd row
 * too: each row pair's loads once per call instead of once per panel (modeled A72, int8 TFLite
 * mode: 112x112x32>16 6.18 -> 6.88 MACs/cycle, 56x56x24>144 5.50 -> 6.05, 112x112x16>96 4.82
 * -> 5.39, 28x28x40>240 6.84 -> 7.27). */
#define QWINO_RESIDENT_CASE(variant)                 \
  case variant: {                                    \
    size_t m = 0;                                    \
    if (QWINO_IS_COMPACT(variant)) {                 \
      QWINO_COMPACT_ROWS(variant)                    \
      break;                                         \
    }                                                \
    QWINO_FUSED_PAIRS(variant, QWINO_RESIDENT)       \
    QWINO_FUSED_LAST_ROW(variant, QWINO_RESIDENT, 1) \
  } break;

void qwino_qu8_igemm_gemmlowp_ukernel_2x8c16__neon_mlal(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {
  /* The general form covers the left shifts too (a shift by 0 changes nothing). */
  const int variant = qwino_neon_sign_by_xor(qwino_neon_gemmlowp_variant(&params->gemmlowp, 0));
  const int clamp = !qwino_neon_full_range(params, variant);
  const int general = qwino_mlal_igemm_general_rows(kc);
  if (qwino_mlal_igemm_resident_rows(kc, ks)) {
    switch (variant) { QWINO_NEON_GEMMLOWP_CASES_SIGN_BY_XOR(QWINO_RESIDENT_CASE) }
  } else {
    switch (variant) { QWINO_NEON_GEMMLOWP_CASES_SIGN_BY_XOR(QWINO_FUSED_CASE) }
  }
}

/* The float steps in D form (QWINO_NEON_FP32_HALVES: off F0, for 20 more instructions and 8
 * more pipe-cycles per 16 outputs) where the rows are long enough for the multiplies to fill
 * F0, in Q form on resident rows, whose 1-3 blocks of 16 k leave F0 the room (modeled A72,
 * qu8_qc8w, resident rows in D / Q form: 112x112x32>16 6.20 / 6.73 MACs/cycle, 56x56x24>144
 * 5.40 / 5.95, 112x112x16>96 4.64 / 5.26, 28x28x40>240 6.75 / 6.96; 5.47, 4.74, 4.06 and 6.11
 * before the resident rows). */
void qwino_qu8_igemm_fp32_ukernel_2x8c16__neon_mlal(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {
  const int variant = qwino_neon_sign_by_xor(qwino_neon_fp32_variant(&params->fp32));
  const int clamp = !qwino_neon_full_range(params, variant);
  const int general = qwino_mlal_igemm_general_rows(kc);
  if (qwino_mlal_igemm_resident_rows(kc, ks)) {
    switch (variant) { QWINO_RESIDENT_CASE(QWINO_NEON_FP32 | QWINO_NEON_SIGN_BY_XOR) }
  } else {
    switch (variant | QWINO_NEON_FP32_HALVES) {
      QWINO_FUSED_CASE(QWINO_NEON_FP32 | QWINO_NEON_FP32_HALVES | QWINO_NEON_SIGN_BY_XOR)
    }
  }
}
#undef QWINO_FUSED_CASE
#undef QWINO_COMPACT_ROWS
#undef QWINO_IS_COMPACT
#undef QWINO_RESIDENT_CASE
#undef QWINO_FUSED_LAST_ROW
