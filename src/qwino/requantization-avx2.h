/*
 * Requantization on AVX2, both modes of qwino/microparams.h with per-channel values, shared by the
 * AVX2 output micro-kernels (F(2x2,3x3) and F(4x4,3x3) output transforms, s32 requantize): the
 * bit-exact vector form of qwino_requantize_channel() in qwino/requantization.h for every int32
 * accumulator, every gemmlowp multiplier but INT32_MIN (outside the contract: 0 and [2^30, 2^31)),
 * every shift and zero point, and every finite fp32 scale. One copy of the argument and the code
 * instead of one per kernel; src/qwino/requantization-avx512skx.h is the same at twice the width
 * and reuses the forms and the dispatch below.
 *
 * Channels sit in lanes, 8 int32 per ymm; the kernels load the values of 8 channels at a time
 * from the packed arrays (qwino_avx2_load_channels), once per channel group and tile or, in the
 * requantize kernel, once per group for all pixels, so the per-channel preparation (two
 * instructions) is shared by every vector of the group.
 *
 * gemmlowp, why each step matches qwino_requantize_gemmlowp():
 *  - Left shift: VPSLLVD by each lane's left_shift (0..9) wraps modulo 2^32 like the scalar
 *    uint32_t shift.
 *  - SaturatingRoundingDoublingHighMul(x, m) = floor((x * m + 2^30) / 2^31) (gemmlowp's
 *    truncating division with its sign-dependent nudge is the same integer): VPMULDQ forms the
 *    exact 64-bit products of the even lanes, and of the odd lanes after both operands' odd
 *    lanes are moved down (VPSRLQ by 32; the multipliers' once per group); adding 2^30 cannot
 *    overflow (|x * m| < 2^62) and bits 31..62 of the sum are the result. For m != INT32_MIN the
 *    result h lies in [-2^31 + 1, 2^31 - 2] (|x| <= 2^31, |m| <= 2^31 - 1), so gemmlowp never
 *    saturates and no lane needs a fix.
 *  - RoundingDivideByPOT(h, n), n = right_shift 0..31, as TFLite's NEON kernels do it: subtract
 *    1 from negative values, h' = h + (h >> 31) (cannot wrap: h > INT32_MIN), then round half
 *    up: floor((h' + 2^(n-1)) / 2^n) = (h' >> n) + bit n-1 of h' for n >= 1. For h >= 0 that is
 *    gemmlowp's (h >> n) + ((h & mask) > (mask >> 1)); for h < 0 = q 2^n + rho (0 <= rho <
 *    2^n), h' is q 2^n + rho - 1 (rho >= 1) or (q - 1) 2^n + 2^n - 1 (rho = 0), which round to
 *    q + [rho > 2^(n-1)], gemmlowp's rule with its threshold (mask >> 1) + 1 for negative h.
 *    Per lane: VPSRAVD by n and by n - 1, the latter masked to its low bit; n - 1 is prepared
 *    once per group, modulo 2^32, so for n = 0 it is a count above 31, VPSRAVD fills the lane
 *    with the sign and the term is [h' < 0] = [h < 0]: r = h' + [h < 0] = h, the scalar
 *    identity (mask 0).
 *  - The zero point is added with VPADDD (wraps like qwino_wrapping_add_s32); VPACKSSDW then
 *    saturates to int16. uint8: VPACKUSWB saturates to [0, 255], which commutes with the clamp
 *    because output_min/max are bytes; VPMAXUB before VPMINUB is the scalar clamp order even
 *    when output_min > output_max. int8 (output_sign 0x80): the scalar clamps v + 128 to
 *    [0, 255] and stores it ^ 0x80; VPACKSSWB gives clamp(v, -128, 127) = clamp(v + 128, 0, 255)
 *    - 128, whose byte is that view byte ^ 0x80, and x -> x ^ 0x80 maps the unsigned order of
 *    view bytes onto the signed order of int8 bytes, so VPMAXSB / VPMINSB with output_min ^ 0x80
 *    and output_max ^ 0x80 clamp in the view and leave the tensor's byte: no XOR, and int8 costs
 *    what uint8 costs.
 *  Shortcut (params->gemmlowp.positive_shift: no left shift, every n >= 1; and the zero point
 *  in [-128, 255], as create makes it: outside, the general form wraps like the scalar add):
 *  - the rounding is ((h' >> (n - 1)) + 1) >> 1 = floor((floor(h' / 2^(n-1)) + 1) / 2) =
 *    floor((h' + 2^(n-1)) / 2^n) (nested floor divisions), one instruction fewer; the + 1 cannot
 *    wrap since h' <= 2^31 - 2;
 *  - then |r| <= 2^30, so r + output_zero_point cannot wrap, and the zero point is added after
 *    VPACKSSDW with VPADDSW, 16 lanes per instruction: where VPACKSSDW or VPADDSW saturate,
 *    both r + output_zero_point and the saturated int16 lie beyond [-32768 + 255, 32767 - 255]
 *    on the same side (the zero point is in [-128, 255]), outside the byte range, and elsewhere
 *    the int16 sum is exact, so the narrowing and the clamp give the bytes of the general
 *    sequence. The int16 zero point is the tensor's: with VPACKSSWB (int8) the sum is the
 *    tensor's value, with VPACKUSWB (uint8) the view's.
 *
 * fp32, why each step matches qwino_requantize_fp32(): VCVTDQ2PS rounds the int32 to nearest
 * even like the C conversion; VMULPS rounds the product once; VMAXPS then VMINPS clamp in the
 * scalar order (f is never NaN for a finite scale; -0 vs +0 rounds to the same integer);
 * VCVTPS2DQ rounds to nearest even under the default MXCSR rounding mode, like
 * qwino_round_half_to_even, and the clamped value is an integer in [-255, 255] after rounding.
 * VPACKSSDW is then exact, so is VPADDSW of the int16 zero point, and the sum is in [0, 255]:
 * uint8 adds the view's zero point and VPACKUSWB keeps it; int8 adds the view's zero point less
 * 128 and VPACKSSWB keeps the byte, (r + zero point) ^ 0x80 as the scalar stores. No byte clamp.
 *
 * Forms (and, with QWINO_X86_REQUANTIZATION_DISPATCH, output types) are compile-time constants
 * of the kernels' always-inline bodies, so each instantiation has only its own instructions; the
 * AVX2 and AVX-512 kernels take both output types in one body (QWINO_X86_SIGN_BY_XOR, below), the
 * SSE4.1 ones a body per type.
 */
#ifndef QWINO_REQUANTIZATION_AVX2_H_
#define QWINO_REQUANTIZATION_AVX2_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qwino/microparams.h"

/* The requantization forms a kernel body is specialised on (a compile-time constant). */
enum qwino_x86_requantization_form {
  qwino_x86_gemmlowp_positive_shift, /* positive_shift, zero point in [-128, 255]: the shortcut */
  /* the shortcut where the output's lower bound is at or above its zero point (a ReLU): no
   * rounding of negative ties (AVX-512 only, see qwino_x86_gemmlowp_rectified) */
  qwino_x86_gemmlowp_positive_shift_rectified,
  qwino_x86_gemmlowp_left_shift, /* every gemmlowp parameter (the general form) */
  qwino_x86_fp32
};

/* Whether the shortcut forms hold for `p` (see the top of the file): every channel shifts right
 * and the zero point is in [-128, 255]. */
static inline int qwino_x86_gemmlowp_shortcut(const struct qwino_qu8_gemmlowp_params* p) {
  return p->positive_shift && p->output_zero_point >= -128 && p->output_zero_point <= 255;
}

/*
 * The kernels' entries: call CALL(form, is_signed) with the constants that fit `params`
 * (is_signed: int8 output, output_sign 0x80). `mode` is the token gemmlowp or fp32. The general
 * gemmlowp form runs as the left-shift form (a shift by 0 changes nothing; the left_shift array is
 * always packed, qwino/microparams.h), one body for both output types (QWINO_X86_SIGN_BY_XOR,
 * below): layers outside the shortcut (multipliers of 0.5 and more) are rare in trained models,
 * so they do not get a body per type and form.
 */
#define QWINO_X86_REQUANTIZATION_DISPATCH(mode, params, CALL) \
  QWINO_X86_REQUANTIZATION_DISPATCH_##mode(params, CALL)
#define QWINO_X86_REQUANTIZATION_DISPATCH_gemmlowp(params, CALL)                   \
  do {                                                                             \
    const struct qwino_qu8_gemmlowp_params* qwino_dispatch_ = &(params)->gemmlowp; \
    if (!qwino_x86_gemmlowp_shortcut(qwino_dispatch_)) {                           \
      CALL(qwino_x86_gemmlowp_left_shift, QWINO_X86_SIGN_BY_XOR);                  \
    } else if (qwino_dispatch_->output_sign == 0) {                                \
      CALL(qwino_x86_gemmlowp_positive_shift, 0);                                  \
    } else {                                                                       \
      CALL(qwino_x86_gemmlowp_positive_shift, 1);                                  \
    }                                                                              \
  } while (0)
#define QWINO_X86_REQUANTIZATION_DISPATCH_fp32(params, CALL) \
  do {                                                       \
    if ((params)->fp32.output_sign == 0) {                   \
      CALL(qwino_x86_fp32, 0);                               \
    } else {                                                 \
      CALL(qwino_x86_fp32, 1);                               \
    }                                                        \
  } while (0)

/*
 * The is_signed value of a body that serves both output types: it narrows in the offset-binary
 * view (VPACKUSWB, unsigned clamp with the view's bounds, the view's zero point) and XORs the
 * bytes with the output sign, a per-call vector (0x00 for uint8): one VPXOR per 32 (AVX2) or 64
 * (AVX-512) outputs
 * instead of a second body. The view's bytes XOR 0x80 are the int8 bytes by the argument above
 * (the scalar definition is clamp(v + 128, min, max) ^ 0x80 in the view). Shortcut: the view's
 * zero point (the tensor's + 128, in [0, 255] for an int8 tensor) keeps K = 1 + 2z in the range
 * the argument needs. General forms: the int32 zero point stays the tensor's (its add wraps like
 * the scalar one) and VPADDSW adds 128 after VPACKSSDW: sat16(v) + 128, saturated and narrowed by
 * VPACKUSWB, is clamp(v + 128, 0, 255) for every int32 v. fp32: the view's zero point, as for
 * uint8. This header and the AVX-512 one implement it.
 */
#define QWINO_X86_SIGN_BY_XOR 2

/* QWINO_X86_REQUANTIZATION_DISPATCH for bodies that serve both output types: CALL(form,
 * QWINO_X86_SIGN_BY_XOR). */
#define QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR(mode, params, CALL) \
  QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR_##mode(params, CALL)
#define QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR_gemmlowp(params, CALL) \
  QWINO_X86_GEMMLOWP_DISPATCH_SIGN_BY_XOR(params, CALL, QWINO_X86_SHORTCUT_PLAIN)
/* The gemmlowp dispatch of the bodies for both output types, SHORTCUT(p, CALL) calling the
 * shortcut's form(s): QWINO_X86_SHORTCUT_PLAIN, or the AVX-512 header's
 * QWINO_AVX512_SHORTCUT_RECTIFIED. */
#define QWINO_X86_SHORTCUT_PLAIN(p, CALL) \
  CALL(qwino_x86_gemmlowp_positive_shift, QWINO_X86_SIGN_BY_XOR)
#define QWINO_X86_GEMMLOWP_DISPATCH_SIGN_BY_XOR(params, CALL, SHORTCUT)            \
  do {                                                                             \
    const struct qwino_qu8_gemmlowp_params* qwino_dispatch_ = &(params)->gemmlowp; \
    if (qwino_x86_gemmlowp_shortcut(qwino_dispatch_)) {                            \
      SHORTCUT(qwino_dispatch_, CALL);                                             \
    } else {                                                                       \
      CALL(qwino_x86_gemmlowp_left_shift, QWINO_X86_SIGN_BY_XOR);                  \
    }                                                                              \
  } while (0)
#define QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR_fp32(params, CALL) \
  CALL(qwino_x86_fp32, QWINO_X86_SIGN_BY_XOR)

/*
 * Whether the shortcut may skip h' = h + (h >> 31) (qwino_x86_gemmlowp_positive_shift_rectified):
 * where the output's lower bound is at or above its zero point, as in a layer with a ReLU. h' only
 * rounds negative ties away from zero; for h < 0 the exact RoundingDivideByPOT(h, n) is <= 0 and
 * so is floor((floor(h / 2^(n-1)) + 1) / 2) (floor(h / 2^(n-1)) <= -1), so both results are at
 * or below the zero point and the clamp gives output_min to both; for h >= 0 h' = h. In the view:
 * output_min against the tensor's zero point + 128 for int8.
 */
static inline int qwino_x86_gemmlowp_rectified(const struct qwino_qu8_gemmlowp_params* p) {
  return (int32_t)p->output_min >= p->output_zero_point + (p->output_sign != 0 ? 128 : 0);
}

#define QWINO_AVX2_INLINE static inline __attribute__((always_inline))

/* Kernel-wide values (the fields a form does not use are zero). */
struct qwino_avx2_requantization {
  size_t channel_stride;
  __m256i nudge;        /* gemmlowp: 2^30 in each 64-bit lane */
  __m256i one;          /* gemmlowp: 1 in each lane */
  __m256i zero_point;   /* gemmlowp general forms: int32 */
  __m256i zero_point16; /* shortcut and fp32: int16, for the narrowing (see above) */
  __m256i min;          /* gemmlowp: bytes, ^ 0x80 for int8 */
  __m256i max;
  __m256 min_less_zero_point; /* fp32 */
  __m256 max_less_zero_point;
  __m256i pixel_order; /* VPERMD indices: 4-byte groups back in pixel order */
  __m256i sign;        /* QWINO_X86_SIGN_BY_XOR: the output sign in every byte */
};

QWINO_AVX2_INLINE struct qwino_avx2_requantization qwino_avx2_requantization_init(
    const union qwino_qu8_requantization_params* params, int form, int is_signed) {
  struct qwino_avx2_requantization q;
  memset(&q, 0, sizeof(q));
  q.pixel_order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const int by_xor = is_signed == QWINO_X86_SIGN_BY_XOR;
  if (by_xor) {
    is_signed = 0; /* the view's zero point and bounds, below */
  }
  if (form == qwino_x86_fp32) {
    const struct qwino_qu8_fp32_params* p = &params->fp32;
    q.channel_stride = p->channel_stride;
    q.sign = _mm256_set1_epi8((char)p->output_sign);
    q.zero_point16 = _mm256_set1_epi16((int16_t)(p->output_zero_point - (is_signed ? 128 : 0)));
    q.min_less_zero_point = _mm256_set1_ps(p->output_min_less_zero_point);
    q.max_less_zero_point = _mm256_set1_ps(p->output_max_less_zero_point);
  } else {
    const struct qwino_qu8_gemmlowp_params* p = &params->gemmlowp;
    const char flip = (char)(is_signed ? 0x80 : 0);
    const int32_t view_offset = by_xor && p->output_sign != 0 ? 128 : 0;
    q.channel_stride = p->channel_stride;
    q.sign = _mm256_set1_epi8((char)p->output_sign);
    q.nudge = _mm256_set1_epi64x(INT64_C(1) << 30);
    q.one = _mm256_set1_epi32(1);
    q.zero_point = _mm256_set1_epi32(p->output_zero_point);
    /* The shortcut's zero point; by XOR the general forms' + 128 for int8 (see above). */
    q.zero_point16 = _mm256_set1_epi16((int16_t)(form == qwino_x86_gemmlowp_positive_shift
                                                     ? p->output_zero_point + view_offset
                                                     : view_offset));
    q.min = _mm256_set1_epi8((char)(p->output_min ^ flip));
    q.max = _mm256_set1_epi8((char)(p->output_max ^ flip));
  }
  return q;
}

/* The values of 8 channels, prepared for the form (unused fields zero). */
struct qwino_avx2_channels {
  __m256i bias;
  __m256i multiplier;           /* gemmlowp */
  __m256i multiplier_odd;       /* gemmlowp: the odd lanes' multipliers in the even lanes */
  __m256i left_shift;           /* qwino_x86_gemmlowp_left_shift */
  __m256i right_shift;          /* gemmlowp general forms */
  __m256i right_shift_less_one; /* gemmlowp: modulo 2^32 */
  __m256 scale;                 /* fp32 */
};

/* Channels c..c+7 of the packed arrays (qwino/microparams.h), p = channel_params + c. */
QWINO_AVX2_INLINE struct qwino_avx2_channels qwino_avx2_load_channels(
    const int32_t* p, size_t stride, const struct qwino_avx2_requantization* q, int form) {
  struct qwino_avx2_channels ch;
  const __m256i zero = _mm256_setzero_si256();
  ch.bias = _mm256_loadu_si256((const __m256i*)p);
  ch.multiplier = ch.multiplier_odd = ch.left_shift = ch.right_shift = zero;
  ch.right_shift_less_one = zero;
  ch.scale = _mm256_setzero_ps();
  if (form == qwino_x86_fp32) {
    /* The float's bits, reinterpreted in the register (no float* access to int32 memory). */
    ch.scale = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i*)(p + stride)));
    return ch;
  }
  ch.multiplier = _mm256_loadu_si256((const __m256i*)(p + stride));
  ch.multiplier_odd = _mm256_srli_epi64(ch.multiplier, 32);
  if (form == qwino_x86_gemmlowp_left_shift) {
    ch.left_shift = _mm256_loadu_si256((const __m256i*)(p + 2 * stride));
  }
  const __m256i right_shift = _mm256_loadu_si256((const __m256i*)(p + 3 * stride));
  if (form != qwino_x86_gemmlowp_positive_shift) {
    ch.right_shift = right_shift;
  }
  ch.right_shift_less_one = _mm256_sub_epi32(right_shift, q->one);
  return ch;
}

/* The first `count` (< 8) channels, the other lanes zero: the channel tail, staged so that
 * exactly `count` values of each array the form uses are read. */
QWINO_AVX2_INLINE struct qwino_avx2_channels qwino_avx2_load_channels_tail(
    const int32_t* p, size_t stride, size_t count, const struct qwino_avx2_requantization* q,
    int form) {
  int32_t buffer[QWINO_MAX_CHANNEL_ARRAYS][8];
  memset(buffer, 0, sizeof(buffer));
  const int arrays = form == qwino_x86_fp32 ? QWINO_FP32_ARRAYS : QWINO_GEMMLOWP_ARRAYS;
  for (int i = 0; i < arrays; i++) {
    if (i != 2 || form == qwino_x86_gemmlowp_left_shift) {
      memcpy(buffer[i], p + i * stride, count * sizeof(int32_t));
    }
  }
  return qwino_avx2_load_channels(&buffer[0][0], 8, q, form);
}

/* Accumulator (bias already added) -> the int32 the narrowing takes: gemmlowp general forms with
 * the zero point added, the shortcut and fp32 without (added in int16 by the narrowing). */
QWINO_AVX2_INLINE __m256i qwino_avx2_requantize(__m256i x, const struct qwino_avx2_channels* ch,
                                                const struct qwino_avx2_requantization* q,
                                                int form) {
  if (form == qwino_x86_fp32) {
    __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(x), ch->scale);
    f = _mm256_min_ps(_mm256_max_ps(f, q->min_less_zero_point), q->max_less_zero_point);
    return _mm256_cvtps_epi32(f);
  }
  if (form == qwino_x86_gemmlowp_left_shift) {
    x = _mm256_sllv_epi32(x, ch->left_shift);
  }
  /* SaturatingRoundingDoublingHighMul */
  const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, ch->multiplier), q->nudge);
  const __m256i odd =
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), ch->multiplier_odd), q->nudge);
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  /* RoundingDivideByPOT */
  h = _mm256_add_epi32(h, _mm256_srai_epi32(h, 31));
  if (form == qwino_x86_gemmlowp_positive_shift) {
    const __m256i half = _mm256_srav_epi32(h, ch->right_shift_less_one);
    return _mm256_srai_epi32(_mm256_add_epi32(half, q->one), 1);
  }
  const __m256i round = _mm256_and_si256(_mm256_srav_epi32(h, ch->right_shift_less_one), q->one);
  const __m256i r = _mm256_add_epi32(_mm256_srav_epi32(h, ch->right_shift), round);
  return _mm256_add_epi32(r, q->zero_point);
}

/* QWINO_X86_SIGN_BY_XOR's last steps on 32 bytes in the view (VPACKUSWB's): the clamp with the
 * view's bounds (fp32 clamped in float already), then the output sign. */
QWINO_AVX2_INLINE __m256i qwino_avx2_view_bytes_by_xor(__m256i view,
                                                       const struct qwino_avx2_requantization* q,
                                                       int form) {
  if (form != qwino_x86_fp32) {
    view = _mm256_min_epu8(_mm256_max_epu8(view, q->min), q->max);
  }
  return _mm256_xor_si256(view, q->sign);
}

/* Four requantized vectors of 8 channels (a, b, c, d: e.g. four pixels) -> 32 bytes: a's 8
 * channels, then b's, c's, d's, as the output tensor stores them. (The packs work within 128-bit
 * lanes; one VPERMD restores the order.) */
QWINO_AVX2_INLINE __m256i qwino_avx2_narrow_4x8(__m256i a, __m256i b, __m256i c, __m256i d,
                                                const struct qwino_avx2_requantization* q, int form,
                                                int is_signed) {
  __m256i ab = _mm256_packs_epi32(a, b);
  __m256i cd = _mm256_packs_epi32(c, d);
  if (form == qwino_x86_gemmlowp_positive_shift || form == qwino_x86_fp32 ||
      is_signed == QWINO_X86_SIGN_BY_XOR) {
    ab = _mm256_adds_epi16(ab, q->zero_point16);
    cd = _mm256_adds_epi16(cd, q->zero_point16);
  }
  if (is_signed == QWINO_X86_SIGN_BY_XOR) {
    return qwino_avx2_view_bytes_by_xor(
        _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), q->pixel_order), q, form);
  }
  __m256i bytes = is_signed ? _mm256_packs_epi16(ab, cd) : _mm256_packus_epi16(ab, cd);
  bytes = _mm256_permutevar8x32_epi32(bytes, q->pixel_order);
  if (form != qwino_x86_fp32) {
    bytes = is_signed ? _mm256_min_epi8(_mm256_max_epi8(bytes, q->min), q->max)
                      : _mm256_min_epu8(_mm256_max_epu8(bytes, q->min), q->max);
  }
  return bytes;
}

#endif /* QWINO_REQUANTIZATION_AVX2_H_ */
