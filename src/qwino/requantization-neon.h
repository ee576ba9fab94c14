/*
 * Requantization on NEON, shared by the NEON output micro-kernels (F(2x2,3x3) and F(4x4,3x3)
 * output transforms, s32 requantize): the bit-exact vector form of both modes of
 * qwino/requantization.h, per output channel, for every int32 accumulator and every parameter
 * value of the documented ranges (qwino/microparams.h), channels in lanes.
 *
 * A kernel body is specialised on a variant, a compile-time constant: QWINO_NEON_FP32 or one of
 * three gemmlowp forms, with QWINO_NEON_INT8 for int8 outputs. A kernel's entries pick it once
 * per call with qwino_neon_gemmlowp_variant / qwino_neon_fp32_variant. Per 4 channels the kernel
 * loads the channel's vectors with qwino_neon_load_channels (bias excluded: the kernels add it
 * as before), requantizes 4 accumulators at a time with qwino_neon_requantize_s32x4 and narrows
 * 16 values to bytes with qwino_neon_narrow_4x4.
 *
 * gemmlowp, why each step matches qwino_requantize_gemmlowp:
 *  - The left shift (SSHL by the lane's left_shift, 0..9) wraps modulo 2^32 like the scalar
 *    uint32_t shift. Only QWINO_NEON_GEMMLOWP_LEFT_SHIFT does it (and loads the left shifts);
 *    the other forms are valid only when every channel has left_shift == 0, which the init
 *    function's has_left_shift == 0 (src/quantization.cc) says.
 *  - SQRDMULH is gemmlowp's SaturatingRoundingDoublingHighMul by definition (multipliers in
 *    [2^30, 2^31) can no longer make it saturate, but it would match the scalar code anyway).
 *  - RoundingDivideByPOT (round half away from zero) is TFLite's fixup: subtract 1 from negative
 *    values, then SRSHL by -right_shift rounds half up, computed without intermediate overflow;
 *    for x = q * 2^n + r that is q + (r > 2^(n-1)), exactly gemmlowp's rule. AND with the
 *    negated shift vector has the sign bit set only in lanes with right_shift > 0, so a lane with
 *    right_shift == 0 is left alone, as the scalar code does. The subtraction is a plain SSRA
 *    (one instruction instead of CMLT + SQADD) because it cannot wrap: SQRDMULH never returns
 *    INT32_MIN (a * b >= -2^62 + 2^31 unless a = b = INT32_MIN, which saturates to INT32_MAX).
 *    The shift counts are stored non-negative (qwino/microparams.h), so each load of 4 channels
 *    costs one NEG; the kernels load once per channel group and reuse it for every pixel.
 *  - The zero point add wraps (ADD on unsigned lanes). Narrowing:
 *      uint8 output: SQXTN + SQXTUN give clamp(v, 0, 255), which commutes with the final clamp
 *        because output_min/max are bytes; UMAX before UMIN matches the scalar clamp order even
 *        when output_min > output_max.
 *      int8 output: the scalar byte is clamp(v + 128, min, max) ^ 0x80 (min, max in the view).
 *        b -> b ^ 0x80 maps the bytes in unsigned order onto the int8 values in signed order
 *        (it is b - 128), so this equals clamp(clamp(v, -128, 127), min ^ 0x80, max ^ 0x80)
 *        taken in int8: SQXTN + SQXTN (signed) and SMAX before SMIN with the flipped bounds.
 *        The int8 path therefore costs what the uint8 path costs: no +128, no XOR.
 * On Cortex-A72, SQRDMULH (pipe F0) and SRSHL (pipe F1) take 2 cycles each on Q registers; the
 * other steps take either pipe (SSRA and the narrowing take F1).
 *
 * The shortcut form (QWINO_NEON_GEMMLOWP_SHORTCUT), taken when every channel has left_shift == 0
 * and right_shift > 0 (the init function's positive_shift: what create makes for every multiplier
 * below 0.5) and |output_zero_point| <= 32767 - 255, replaces the AND and the ADD per 4 values by
 * one SQADD per 8 values:
 *  - with right_shift > 0 in every lane the fixup is x + (x >> 31): the AND above only copies the
 *    sign bit;
 *  - after a rounding shift by >= 1, |x| <= 2^30, so x + zero_point cannot wrap, and the zero
 *    point can be added after SQXTN, with saturation, 8 lanes per instruction: where SQXTN
 *    saturates (|x| > 2^15 - 1) or SQADD does, the int16 result keeps the side of x +
 *    zero_point outside the output range ([0, 255], or [-128, 127] for int8), which the margin
 *    of 255 guarantees; elsewhere the int16 sum is exact, so the narrowing and the clamp give
 *    the bytes of the general sequence.
 *
 * fp32, why each step matches qwino_requantize_fp32:
 *  - SCVTF rounds the int32 to nearest even, FMUL rounds once to nearest even (FPCR's default
 *    mode, as C's float arithmetic), by the lane's scale, loaded as int32 and reinterpreted (the
 *    channel arrays are int32: no float* access).
 *  - FCVTNS rounds to nearest, ties to even, whatever FPCR says: qwino_round_half_to_even, for
 *    every f within int32 range; beyond it, it saturates to INT32_MIN / INT32_MAX.
 *  - The clamp comes after the rounding, in integers: with integer bounds lo <= hi, rounding is
 *    monotone and leaves integers alone, so round(clamp(f, lo, hi)) = clamp(round(f), lo, hi);
 *    with lo > hi both sides are hi (max last). FCVTNS's saturation is monotone too and keeps
 *    the side of the bounds (which are within int32 range), so clamping its result is exact
 *    for every f (qwino/microparams.h clamps first only to stay within int32 range, which the
 *    saturation already gives here). The integer clamp with the zero point added,
 *    clamp(r + output_zero_point, output_min, output_max) in the view with the bounds
 *    lo + output_zero_point and hi + output_zero_point (the view's output_min/max: the bounds
 *    are integers, made from bytes by the init function), is exactly the narrowing of the
 *    gemmlowp shortcut above with zero point output_zero_point (int8: output_zero_point - 128,
 *    the tensor's own), which is in [-128, 255], within the margin. So fp32 costs 3 float
 *    instructions per 4 values (each takes both ASIMD pipes of the A72 in Q form: clamping in
 *    float would add two more) plus the shortcut's narrowing.
 *  - QWINO_NEON_FP32_HALVES does the three steps on each half of the 4 lanes as D registers:
 *    every step rounds per lane, so the results are the same. On the A72 a D-form float
 *    instruction takes one cycle of either pipe where a Q-form one takes a cycle of both, so a
 *    kernel whose F0 is full of 8-bit multiplies (src/qu8-igemm/qu8-igemm-2x8c16-neon-mlal.c)
 *    moves the float work to F1 for 6 D-form instructions and 2 lane moves per 4 values,
 *    instead of taking 3 F0 cycles from the multiplies.
 */
#ifndef QWINO_REQUANTIZATION_NEON_H_
#define QWINO_REQUANTIZATION_NEON_H_

#include <arm_neon.h>
#include <stddef.h>
#include <string.h>

#include "qwino/microparams.h"

#define QWINO_NEON_INLINE static inline __attribute__((always_inline))

/* Kernel variants (a constant in every specialised body). */
enum {
  QWINO_NEON_GEMMLOWP_SHORTCUT = 0,   /* positive_shift, zero point within the margin */
  QWINO_NEON_GEMMLOWP_GENERAL = 1,    /* no channel shifts left */
  QWINO_NEON_GEMMLOWP_LEFT_SHIFT = 2, /* any shifts */
  QWINO_NEON_FP32 = 3,
  QWINO_NEON_INT8 = 4,        /* flag on any of the above: int8 outputs */
  QWINO_NEON_FP32_HALVES = 8, /* flag on QWINO_NEON_FP32: the float steps on D registers */
  QWINO_NEON_SIGN_BY_XOR = 16 /* flag on any form, instead of QWINO_NEON_INT8: one body for both
                                 output types (see qwino_neon_sign_by_xor) */
};

#define QWINO_NEON_FORM(variant) ((variant)&3)
#define QWINO_NEON_IS_INT8(variant) (((variant)&QWINO_NEON_INT8) != 0)
#define QWINO_NEON_IS_HALVES(variant) (((variant)&QWINO_NEON_FP32_HALVES) != 0)
#define QWINO_NEON_IS_SIGN_BY_XOR(variant) (((variant)&QWINO_NEON_SIGN_BY_XOR) != 0)

/* The fp32 variant of a call. */
static inline int qwino_neon_fp32_variant(const struct qwino_qu8_fp32_params* params) {
  return QWINO_NEON_FP32 | (params->output_sign != 0 ? QWINO_NEON_INT8 : 0);
}

/*
 * The gemmlowp variant of a call. with_general == 0 folds QWINO_NEON_GEMMLOWP_GENERAL into
 * QWINO_NEON_GEMMLOWP_LEFT_SHIFT (valid always: a shift by 0 changes nothing), for kernels that
 * keep one general body to save code.
 */
static inline int qwino_neon_gemmlowp_variant(const struct qwino_qu8_gemmlowp_params* params,
                                              int with_general) {
  const int int8 = params->output_sign != 0 ? QWINO_NEON_INT8 : 0;
  if (params->positive_shift && params->output_zero_point >= -(32767 - 255) &&
      params->output_zero_point <= 32767 - 255) {
    return QWINO_NEON_GEMMLOWP_SHORTCUT | int8;
  }
  if (with_general && !params->has_left_shift) {
    return QWINO_NEON_GEMMLOWP_GENERAL | int8;
  }
  return QWINO_NEON_GEMMLOWP_LEFT_SHIFT | int8;
}

/*
 * A variant of the two above for a kernel that keeps one body for both output types: the
 * narrowing works in the offset-binary view (uint8 steps, the view's zero point and bounds) and
 * the last step XORs the bytes with the output sign, a per-call vector (0x00 for uint8). That
 * costs one EOR per 16 outputs (and in the general gemmlowp forms one SQADD per 8, below) and
 * halves the kernel's bodies; kernels whose requantization is a large share of their
 * instructions (the depthwise ones) keep a body per type instead.
 * Why the view gives the same bytes: for int8 outputs the definition is
 * clamp(v + 128, output_min, output_max) ^ 0x80 with the bounds in the view
 * (qwino/microparams.h). Shortcut and fp32 add the view's zero point (the tensor's + 128 for
 * gemmlowp, already the view's for fp32) after SQXTN, within the margin of the shortcut above
 * (a view zero point is 0..255). The general gemmlowp forms add the tensor's zero point modulo
 * 2^32 as before, then 128 with SQADD on the int16 lanes: sat16(v) + 128 saturated and narrowed
 * with SQXTUN is clamp(v + 128, 0, 255) for every int32 v (beyond int16 range both sides are 0
 * or 255).
 */
static inline int qwino_neon_sign_by_xor(int variant) {
  return (variant & ~QWINO_NEON_INT8) | QWINO_NEON_SIGN_BY_XOR;
}

/* CASE(variant) for each variant qwino_neon_gemmlowp_variant(params, 0) returns: the cases of a
 * kernel entry's switch. */
#define QWINO_NEON_GEMMLOWP_CASES_WITHOUT_GENERAL(CASE) \
  CASE(QWINO_NEON_GEMMLOWP_SHORTCUT)                    \
  CASE(QWINO_NEON_GEMMLOWP_LEFT_SHIFT)                  \
  CASE(QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_INT8)  \
  CASE(QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_INT8)

/* The same after qwino_neon_sign_by_xor. */
#define QWINO_NEON_GEMMLOWP_CASES_SIGN_BY_XOR(CASE)           \
  CASE(QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_SIGN_BY_XOR) \
  CASE(QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_SIGN_BY_XOR)

/* Per-call constants of a variant. */
struct qwino_neon_requantization {
  int32x4_t zero_point;   /* gemmlowp general forms */
  int16x8_t zero_point16; /* gemmlowp shortcut, fp32: the tensor's zero point (sign by XOR: the
                             view's; 128 or 0 in the general gemmlowp forms) */
  uint8x16_t min;         /* in the narrowing's order: the view's, int8 ^ 0x80 */
  uint8x16_t max;
  uint8x16_t sign; /* sign by XOR: the output sign */
};

QWINO_NEON_INLINE struct qwino_neon_requantization qwino_neon_requantization_init(
    const union qwino_qu8_requantization_params* params, int variant) {
  struct qwino_neon_requantization k;
  const uint8_t flip = QWINO_NEON_IS_INT8(variant) ? 0x80 : 0;
  if (QWINO_NEON_FORM(variant) == QWINO_NEON_FP32) {
    const struct qwino_qu8_fp32_params* p = &params->fp32;
    const int32_t zero_point = p->output_zero_point; /* the view's */
    k.zero_point = vdupq_n_s32(0);
    k.zero_point16 = vdupq_n_s16((int16_t)(zero_point - (flip ? 128 : 0)));
    k.min = vdupq_n_u8((uint8_t)(((int32_t)p->output_min_less_zero_point + zero_point) ^ flip));
    k.max = vdupq_n_u8((uint8_t)(((int32_t)p->output_max_less_zero_point + zero_point) ^ flip));
    k.sign = vdupq_n_u8(p->output_sign);
  } else {
    const struct qwino_qu8_gemmlowp_params* p = &params->gemmlowp;
    const int32_t view_offset = p->output_sign != 0 ? 128 : 0;
    k.zero_point = vdupq_n_s32(p->output_zero_point);
    k.zero_point16 = vdupq_n_s16((int16_t)p->output_zero_point); /* shortcut: in range */
    if (QWINO_NEON_IS_SIGN_BY_XOR(variant)) {
      k.zero_point16 =
          vdupq_n_s16((int16_t)(QWINO_NEON_FORM(variant) == QWINO_NEON_GEMMLOWP_SHORTCUT
                                    ? p->output_zero_point + view_offset
                                    : view_offset));
    }
    k.min = vdupq_n_u8((uint8_t)(p->output_min ^ flip));
    k.max = vdupq_n_u8((uint8_t)(p->output_max ^ flip));
    k.sign = vdupq_n_u8(p->output_sign);
  }
  return k;
}

/* The mode's channel_stride. */
QWINO_NEON_INLINE size_t
qwino_neon_channel_stride(const union qwino_qu8_requantization_params* params, int variant) {
  return QWINO_NEON_FORM(variant) == QWINO_NEON_FP32 ? params->fp32.channel_stride
                                                     : params->gemmlowp.channel_stride;
}

/* The per-channel vectors of 4 channels beyond the bias. */
struct qwino_neon_channels {
  int32x4_t multiplier;  /* gemmlowp multiplier, or the fp32 scale's bits */
  int32x4_t left_shift;  /* QWINO_NEON_GEMMLOWP_LEFT_SHIFT only */
  int32x4_t right_shift; /* negated: SRSHL shifts right by a negative count */
};

/* The same as qwino_neon_load_channels from arrays whose right shifts a kernel staged negated. */
QWINO_NEON_INLINE struct qwino_neon_channels qwino_neon_load_negated_channels(
    const int32_t* channel_params, size_t stride, int variant) {
  struct qwino_neon_channels ch;
  ch.multiplier = vld1q_s32(channel_params + stride);
  ch.left_shift = vdupq_n_s32(0);
  ch.right_shift = vdupq_n_s32(0);
  if (QWINO_NEON_FORM(variant) != QWINO_NEON_FP32) {
    if (QWINO_NEON_FORM(variant) == QWINO_NEON_GEMMLOWP_LEFT_SHIFT) {
      ch.left_shift = vld1q_s32(channel_params + 2 * stride);
    }
    ch.right_shift = vld1q_s32(channel_params + 3 * stride);
  }
  return ch;
}

/* Channels c..c+3 of the packed arrays at channel_params + c, arrays `stride` values apart. */
QWINO_NEON_INLINE struct qwino_neon_channels qwino_neon_load_channels(const int32_t* channel_params,
                                                                      size_t stride, int variant) {
  struct qwino_neon_channels ch = qwino_neon_load_negated_channels(channel_params, stride, variant);
  ch.right_shift = vnegq_s32(ch.right_shift);
  return ch;
}

/* Number of per-channel arrays (bias included) a variant reads. */
QWINO_NEON_INLINE size_t qwino_neon_channel_arrays(int variant) {
  return QWINO_NEON_FORM(variant) == QWINO_NEON_FP32 ? QWINO_FP32_ARRAYS : QWINO_GEMMLOWP_ARRAYS;
}

/*
 * Channel tails: the first `tail` values of each array of the variant, copied into `buffer`
 * (arrays `width` values apart, zeros after the tail), so that the vector loads read exactly
 * `channels` values per array. Lanes are independent: the zeros only make defined lanes whose
 * results are never stored.
 */
QWINO_NEON_INLINE void qwino_neon_stage_channels(int32_t* buffer, size_t width,
                                                 const int32_t* channel_params, size_t stride,
                                                 size_t tail, int variant) {
  const size_t arrays = qwino_neon_channel_arrays(variant);
  memset(buffer, 0, arrays * width * sizeof(int32_t));
  for (size_t i = 0; i < arrays; i++) {
    memcpy(buffer + i * width, channel_params + i * stride, tail * sizeof(int32_t));
  }
}

/*
 * Accumulator (bias already added) -> the value before narrowing: gemmlowp general forms, the
 * requantized value with the zero point added; gemmlowp shortcut, without the zero point
 * (|value| <= 2^30); fp32, round(f) (saturated) without the zero point.
 */
QWINO_NEON_INLINE int32x4_t qwino_neon_requantize_s32x4(int32x4_t accumulator,
                                                        const struct qwino_neon_channels* ch,
                                                        const struct qwino_neon_requantization* k,
                                                        int variant) {
  const int form = QWINO_NEON_FORM(variant);
  if (form == QWINO_NEON_FP32 && QWINO_NEON_IS_HALVES(variant)) {
    const float32x4_t scale = vreinterpretq_f32_s32(ch->multiplier);
    const float32x2_t lo = vmul_f32(vcvt_f32_s32(vget_low_s32(accumulator)), vget_low_f32(scale));
    const float32x2_t hi = vmul_f32(vcvt_f32_s32(vget_high_s32(accumulator)), vget_high_f32(scale));
    return vcombine_s32(vcvtn_s32_f32(lo), vcvtn_s32_f32(hi));
  }
  if (form == QWINO_NEON_FP32) {
    const float32x4_t f =
        vmulq_f32(vcvtq_f32_s32(accumulator), vreinterpretq_f32_s32(ch->multiplier));
    return vcvtnq_s32_f32(f);
  }
  int32x4_t x = accumulator;
  if (form == QWINO_NEON_GEMMLOWP_LEFT_SHIFT) {
    x = vshlq_s32(x, ch->left_shift);
  }
  x = vqrdmulhq_s32(x, ch->multiplier);
  if (form == QWINO_NEON_GEMMLOWP_SHORTCUT) {
    x = vsraq_n_s32(x, x, 31);
    return vrshlq_s32(x, ch->right_shift);
  }
  x = vsraq_n_s32(x, vandq_s32(x, ch->right_shift), 31);
  x = vrshlq_s32(x, ch->right_shift);
  /* Unsigned: vaddq_s32 is a plain C + on signed vectors in GCC, undefined on overflow. */
  return vreinterpretq_s32_u32(
      vaddq_u32(vreinterpretq_u32_s32(x), vreinterpretq_u32_s32(k->zero_point)));
}

/*
 * The second half of qwino_neon_narrow_4x4_clamp (below): 16 values already narrowed to int16
 * with saturation (ab: a0..a3 b0..b3, cd likewise) -> the 16 output bytes. A kernel that
 * narrows otherwise (src/s8-dwconv/s8-dwconv-columns-neon.c shifts while narrowing) finishes
 * here.
 */
QWINO_NEON_INLINE uint8x16_t qwino_neon_narrow_s16x2_clamp(
    int16x8_t ab, int16x8_t cd, const struct qwino_neon_requantization* k, int variant, int clamp) {
  if (QWINO_NEON_FORM(variant) == QWINO_NEON_GEMMLOWP_SHORTCUT ||
      QWINO_NEON_FORM(variant) == QWINO_NEON_FP32 || QWINO_NEON_IS_SIGN_BY_XOR(variant)) {
    ab = vqaddq_s16(ab, k->zero_point16);
    cd = vqaddq_s16(cd, k->zero_point16);
  }
  if (QWINO_NEON_IS_SIGN_BY_XOR(variant)) {
    uint8x16_t bytes = vqmovun_high_s16(vqmovun_s16(ab), cd);
    if (clamp) {
      bytes = vminq_u8(vmaxq_u8(bytes, k->min), k->max);
    }
    return veorq_u8(bytes, k->sign);
  }
  if (QWINO_NEON_IS_INT8(variant)) {
    int8x16_t bytes = vqmovn_high_s16(vqmovn_s16(ab), cd);
    if (clamp) {
      bytes = vminq_s8(vmaxq_s8(bytes, vreinterpretq_s8_u8(k->min)), vreinterpretq_s8_u8(k->max));
    }
    return vreinterpretq_u8_s8(bytes);
  }
  uint8x16_t bytes = vqmovun_high_s16(vqmovun_s16(ab), cd);
  if (clamp) {
    bytes = vminq_u8(vmaxq_u8(bytes, k->min), k->max);
  }
  return bytes;
}

/*
 * Four values of qwino_neon_requantize_s32x4 (a, b, c, d) -> the 16 output bytes
 * a0..a3 b0..b3 c0..c3 d0..d3, in the tensor's type. clamp == 0 leaves out the clamp (MAX before
 * MIN), which a kernel may do when the bounds are the whole range of the output type: the
 * saturating narrowing already gives that range, so the clamp would be the identity.
 */
QWINO_NEON_INLINE uint8x16_t qwino_neon_narrow_4x4_clamp(int32x4_t a, int32x4_t b, int32x4_t c,
                                                         int32x4_t d,
                                                         const struct qwino_neon_requantization* k,
                                                         int variant, int clamp) {
  return qwino_neon_narrow_s16x2_clamp(vqmovn_high_s32(vqmovn_s32(a), b),
                                       vqmovn_high_s32(vqmovn_s32(c), d), k, variant, clamp);
}

/* Whether the clamp bounds are the whole range of the output type (in the narrowing's order): a
 * kernel may then leave the clamp out (qwino_neon_narrow_4x4_clamp). */
QWINO_NEON_INLINE int qwino_neon_full_range(const union qwino_qu8_requantization_params* params,
                                            int variant) {
  const struct qwino_neon_requantization k = qwino_neon_requantization_init(params, variant);
  const uint8_t lowest = QWINO_NEON_IS_INT8(variant) ? 0x80 : 0x00;
  return vgetq_lane_u8(k.min, 0) == lowest && vgetq_lane_u8(k.max, 0) == (uint8_t)(lowest - 1);
}

/*
 * Two values of qwino_neon_requantize_s32x4 (a, b) -> the 8 output bytes a0..a3 b0..b3, as
 * qwino_neon_narrow_4x4_clamp narrows four (the same steps on half as many lanes).
 */
QWINO_NEON_INLINE uint8x8_t qwino_neon_narrow_2x4_clamp(int32x4_t a, int32x4_t b,
                                                        const struct qwino_neon_requantization* k,
                                                        int variant, int clamp) {
  int16x8_t ab = vqmovn_high_s32(vqmovn_s32(a), b);
  if (QWINO_NEON_FORM(variant) == QWINO_NEON_GEMMLOWP_SHORTCUT ||
      QWINO_NEON_FORM(variant) == QWINO_NEON_FP32 || QWINO_NEON_IS_SIGN_BY_XOR(variant)) {
    ab = vqaddq_s16(ab, k->zero_point16);
  }
  if (QWINO_NEON_IS_SIGN_BY_XOR(variant)) {
    uint8x8_t bytes = vqmovun_s16(ab);
    if (clamp) {
      bytes = vmin_u8(vmax_u8(bytes, vget_low_u8(k->min)), vget_low_u8(k->max));
    }
    return veor_u8(bytes, vget_low_u8(k->sign));
  }
  if (QWINO_NEON_IS_INT8(variant)) {
    int8x8_t bytes = vqmovn_s16(ab);
    if (clamp) {
      bytes = vmin_s8(vmax_s8(bytes, vreinterpret_s8_u8(vget_low_u8(k->min))),
                      vreinterpret_s8_u8(vget_low_u8(k->max)));
    }
    return vreinterpret_u8_s8(bytes);
  }
  uint8x8_t bytes = vqmovun_s16(ab);
  if (clamp) {
    bytes = vmin_u8(vmax_u8(bytes, vget_low_u8(k->min)), vget_low_u8(k->max));
  }
  return bytes;
}

/* The first n of the bytes at out through a buffer, so that exactly n bytes are written (a
 * kernel's last, partial block of channels). */
QWINO_NEON_INLINE void qwino_neon_store_through_buffer(uint8_t* out, size_t n, uint8x16_t bytes) {
  uint8_t buffer[16];
  vst1q_u8(buffer, bytes);
  memcpy(out, buffer, n);
}

/* The first n (1..16) of the 16 bytes at out: one store when n == 16. */
QWINO_NEON_INLINE void qwino_neon_store_upto16(uint8_t* out, size_t n, uint8x16_t bytes) {
  if (n == 16) {
    vst1q_u8(out, bytes);
  } else {
    qwino_neon_store_through_buffer(out, n, bytes);
  }
}

/* The first n (1..8) of the 8 bytes at out: one store when n == 8. */
QWINO_NEON_INLINE void qwino_neon_store_upto8(uint8_t* out, size_t n, uint8x8_t bytes) {
  if (n == 8) {
    vst1_u8(out, bytes);
  } else {
    qwino_neon_store_through_buffer(out, n, vcombine_u8(bytes, bytes));
  }
}

QWINO_NEON_INLINE uint8x16_t qwino_neon_narrow_4x4(int32x4_t a, int32x4_t b, int32x4_t c,
                                                   int32x4_t d,
                                                   const struct qwino_neon_requantization* k,
                                                   int variant) {
  return qwino_neon_narrow_4x4_clamp(a, b, c, d, k, variant, 1);
}

#endif /* QWINO_REQUANTIZATION_NEON_H_ */
