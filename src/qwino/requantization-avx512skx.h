/*
 * Requantization on AVX-512 (F + BW + VL), both modes of qwino/microparams.h with per-channel
 * values, shared by the AVX-512 output micro-kernels (F(2x2,3x3) and F(4x4,3x3) output
 * transforms, s32 requantize): the bit-exact vector form of qwino_requantize_channel() in
 * qwino/requantization.h, for the same inputs as the AVX2 form.
 *
 * The instructions and the argument for each step are src/qwino/requantization-avx2.h's, at
 * twice the width (16 int32 channels per zmm): VPSLLVD for the left shift; VPMULDQ on the even
 * lanes and on the odd lanes moved down, + 2^30, bits 31..62 (h in [-2^31 + 1, 2^31 - 2] for
 * every multiplier but INT32_MIN, so no saturation fix); h' = h + (h >> 31), then
 * (h' >> n) + ((h' >> (n - 1)) & 1) with VPSRAVD (n - 1 modulo 2^32 makes n = 0 exact), or, in
 * the shortcut (positive_shift), y = h' >> (n - 1) finished after VPACKSSDW as
 * (y + 1 + 2z) >> 1 with VPADDSW and VPSRAW (see qwino_avx512_narrow_4x16_in_lanes); VPACKUSWB
 * + VPMAXUB/VPMINUB for uint8, VPACKSSWB + VPMAXSB/VPMINSB with the bounds ^ 0x80 for int8 (no
 * XOR). The rectified shortcut (qwino_x86_gemmlowp_rectified in the AVX2 header) also skips h'.
 * fp32: VCVTDQ2PS, VMULPS, VMINPS with the upper bound, VCVTPS2DQ, the int16 zero point, and the
 * lower bound clamped on the bytes with the narrowing's VPMAXUB/VPMAXSB instead of a VMAXPS per
 * vector: VCVTPS2DQ of a float below -2^31 gives INT32_MIN (the integer indefinite, never NaN
 * for a finite scale), below every byte as the exact value is, and rounds every other value
 * (at most output_max - zero point after VMINPS) to nearest even exactly; VPACKSSDW, VPADDSW and
 * the byte packs saturate monotonically, beyond the byte range, so the byte clamp gives the
 * scalar's clamp-then-round bytes (the AVX2 header's argument for the integer bounds).
 * The forms and the dispatch are the AVX2 header's.
 * Differences: the blend of even and odd lanes takes a mask register, and the channel tail uses
 * masked loads (fault-suppressing: exactly the lanes of the mask are read).
 */
#ifndef QWINO_REQUANTIZATION_AVX512SKX_H_
#define QWINO_REQUANTIZATION_AVX512SKX_H_

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qwino/microparams.h"
#include "qwino/requantization-avx2.h" /* the forms and QWINO_X86_REQUANTIZATION_DISPATCH */

#define QWINO_AVX512_INLINE static inline __attribute__((always_inline))

/* QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR with the rectified shortcut where it holds
 * (qwino_x86_gemmlowp_rectified): CALL(form, QWINO_X86_SIGN_BY_XOR). */
#define QWINO_AVX512_REQUANTIZATION_DISPATCH_SIGN_BY_XOR(mode, params, CALL) \
  QWINO_AVX512_REQUANTIZATION_DISPATCH_SIGN_BY_XOR_##mode(params, CALL)
#define QWINO_AVX512_SHORTCUT_RECTIFIED(p, CALL)                                \
  do {                                                                          \
    if (qwino_x86_gemmlowp_rectified(p)) {                                      \
      CALL(qwino_x86_gemmlowp_positive_shift_rectified, QWINO_X86_SIGN_BY_XOR); \
    } else {                                                                    \
      CALL(qwino_x86_gemmlowp_positive_shift, QWINO_X86_SIGN_BY_XOR);           \
    }                                                                           \
  } while (0)
#define QWINO_AVX512_REQUANTIZATION_DISPATCH_SIGN_BY_XOR_gemmlowp(params, CALL) \
  QWINO_X86_GEMMLOWP_DISPATCH_SIGN_BY_XOR(params, CALL, QWINO_AVX512_SHORTCUT_RECTIFIED)
/* QWINO_X86_REQUANTIZATION_DISPATCH (a body per output type) with the rectified shortcut. */
#define QWINO_AVX512_REQUANTIZATION_DISPATCH(mode, params, CALL) \
  QWINO_AVX512_REQUANTIZATION_DISPATCH_##mode(params, CALL)
#define QWINO_AVX512_REQUANTIZATION_DISPATCH_gemmlowp(params, CALL)                 \
  do {                                                                              \
    const struct qwino_qu8_gemmlowp_params* qwino_rectified_ = &(params)->gemmlowp; \
    if (qwino_x86_gemmlowp_shortcut(qwino_rectified_) &&                            \
        qwino_x86_gemmlowp_rectified(qwino_rectified_)) {                           \
      if (qwino_rectified_->output_sign == 0) {                                     \
        CALL(qwino_x86_gemmlowp_positive_shift_rectified, 0);                       \
      } else {                                                                      \
        CALL(qwino_x86_gemmlowp_positive_shift_rectified, 1);                       \
      }                                                                             \
    } else {                                                                        \
      QWINO_X86_REQUANTIZATION_DISPATCH_gemmlowp(params, CALL);                     \
    }                                                                               \
  } while (0)
#define QWINO_AVX512_REQUANTIZATION_DISPATCH_fp32(params, CALL) \
  QWINO_X86_REQUANTIZATION_DISPATCH_fp32(params, CALL)
#define QWINO_AVX512_REQUANTIZATION_DISPATCH_SIGN_BY_XOR_fp32(params, CALL) \
  CALL(qwino_x86_fp32, QWINO_X86_SIGN_BY_XOR)

/* Kernel-wide values (the fields a form does not use are zero). */
struct qwino_avx512_requantization {
  size_t channel_stride;
  __m512i nudge;        /* gemmlowp: 2^30 in each 64-bit lane */
  __m512i one;          /* gemmlowp: 1 in each lane */
  __m512i zero_point;   /* gemmlowp general forms: int32 */
  __m512i zero_point16; /* shortcut: 1 + 2 z, fp32: z; int16 */
  __m512i min;          /* bytes of the view, ^ 0x80 for int8 */
  __m512i max;
  __m512 max_less_zero_point; /* fp32 */
  __m512i pixel_order;        /* VPERMD indices: 4-byte groups back in pixel order */
  __m512i sign;               /* QWINO_X86_SIGN_BY_XOR: the output sign in every byte */
};

QWINO_AVX512_INLINE struct qwino_avx512_requantization qwino_avx512_requantization_init(
    const union qwino_qu8_requantization_params* params, int form, int is_signed) {
  struct qwino_avx512_requantization q;
  memset(&q, 0, sizeof(q));
  q.pixel_order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const int by_xor = is_signed == QWINO_X86_SIGN_BY_XOR;
  if (by_xor) {
    is_signed = 0; /* the view's zero point and bounds, below */
  }
  if (form == qwino_x86_fp32) {
    const struct qwino_qu8_fp32_params* p = &params->fp32;
    const char flip = (char)(is_signed ? 0x80 : 0);
    q.channel_stride = p->channel_stride;
    q.sign = _mm512_set1_epi8((char)p->output_sign);
    q.zero_point16 = _mm512_set1_epi16((int16_t)(p->output_zero_point - (is_signed ? 128 : 0)));
    q.max_less_zero_point = _mm512_set1_ps(p->output_max_less_zero_point);
    /* The byte bounds of the view (integers: the float bounds are integers less the zero point). */
    q.min = _mm512_set1_epi8(
        (char)(((int32_t)p->output_min_less_zero_point + p->output_zero_point) ^ flip));
    q.max = _mm512_set1_epi8(
        (char)(((int32_t)p->output_max_less_zero_point + p->output_zero_point) ^ flip));
  } else {
    const struct qwino_qu8_gemmlowp_params* p = &params->gemmlowp;
    const char flip = (char)(is_signed ? 0x80 : 0);
    const int32_t view_offset = by_xor && p->output_sign != 0 ? 128 : 0;
    q.channel_stride = p->channel_stride;
    q.sign = _mm512_set1_epi8((char)p->output_sign);
    q.zero_point16 = _mm512_set1_epi16((int16_t)view_offset); /* general forms, by XOR */
    q.nudge = _mm512_set1_epi64(INT64_C(1) << 30);
    q.one = _mm512_set1_epi32(1);
    q.zero_point = _mm512_set1_epi32(p->output_zero_point);
    /* The shortcut finishes in int16 (qwino_avx512_narrow_4x16_in_lanes): K = 1 + 2 z, z in
     * [-128, 255] there; the other forms add the int32 zero point instead. */
    if (form == qwino_x86_gemmlowp_positive_shift ||
        form == qwino_x86_gemmlowp_positive_shift_rectified) {
      q.zero_point16 = _mm512_set1_epi16((int16_t)(1 + 2 * (p->output_zero_point + view_offset)));
    }
    q.min = _mm512_set1_epi8((char)(p->output_min ^ flip));
    q.max = _mm512_set1_epi8((char)(p->output_max ^ flip));
  }
  return q;
}

/* The values of 16 channels, prepared for the form (unused fields zero). */
struct qwino_avx512_channels {
  __m512i bias;
  __m512i multiplier;           /* gemmlowp */
  __m512i multiplier_odd;       /* gemmlowp: the odd lanes' multipliers in the even lanes */
  __m512i left_shift;           /* qwino_x86_gemmlowp_left_shift */
  __m512i right_shift;          /* gemmlowp general forms */
  __m512i right_shift_less_one; /* gemmlowp: modulo 2^32 */
  __m512 scale;                 /* fp32 */
};

/* `mask` is the all-ones constant except in the channel tail: the full steps use plain loads. */
QWINO_AVX512_INLINE __m512i qwino_avx512_load_s32(const int32_t* p, __mmask16 mask) {
  if (mask == (__mmask16)0xFFFF) {
    return _mm512_loadu_si512(p);
  }
  return _mm512_maskz_loadu_epi32(mask, p);
}

/* The channels of `mask` from c on of the packed arrays (qwino/microparams.h),
 * p = channel_params + c; the other lanes zero. */
QWINO_AVX512_INLINE struct qwino_avx512_channels qwino_avx512_load_channels(
    const int32_t* p, size_t stride, __mmask16 mask, const struct qwino_avx512_requantization* q,
    int form) {
  struct qwino_avx512_channels ch;
  const __m512i zero = _mm512_setzero_si512();
  ch.bias = qwino_avx512_load_s32(p, mask);
  ch.multiplier = ch.multiplier_odd = ch.left_shift = ch.right_shift = zero;
  ch.right_shift_less_one = zero;
  ch.scale = _mm512_setzero_ps();
  if (form == qwino_x86_fp32) {
    /* The float's bits, reinterpreted in the register (no float* access to int32 memory). */
    ch.scale = _mm512_castsi512_ps(qwino_avx512_load_s32(p + stride, mask));
    return ch;
  }
  ch.multiplier = qwino_avx512_load_s32(p + stride, mask);
  ch.multiplier_odd = _mm512_srli_epi64(ch.multiplier, 32);
  if (form == qwino_x86_gemmlowp_left_shift) {
    ch.left_shift = qwino_avx512_load_s32(p + 2 * stride, mask);
  }
  const __m512i right_shift = qwino_avx512_load_s32(p + 3 * stride, mask);
  if (form != qwino_x86_gemmlowp_positive_shift &&
      form != qwino_x86_gemmlowp_positive_shift_rectified) {
    ch.right_shift = right_shift;
  }
  ch.right_shift_less_one = _mm512_sub_epi32(right_shift, q->one);
  return ch;
}

/* Accumulator (bias already added) -> the int32 the narrowing takes: gemmlowp general forms with
 * the zero point added, fp32 without (added in int16 by the narrowing), the shortcut only up to
 * y = h' >> (n - 1), which the narrowing finishes in int16 (see there). */
QWINO_AVX512_INLINE __m512i qwino_avx512_requantize(__m512i x,
                                                    const struct qwino_avx512_channels* ch,
                                                    const struct qwino_avx512_requantization* q,
                                                    int form) {
  if (form == qwino_x86_fp32) {
    /* Only the upper clamp in float (see the top of the file: the lower one is the bytes'). */
    const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(x), ch->scale);
    return _mm512_cvtps_epi32(_mm512_min_ps(f, q->max_less_zero_point));
  }
  if (form == qwino_x86_gemmlowp_left_shift) {
    x = _mm512_sllv_epi32(x, ch->left_shift);
  }
  /* SaturatingRoundingDoublingHighMul */
  const __m512i even = _mm512_add_epi64(_mm512_mul_epi32(x, ch->multiplier), q->nudge);
  const __m512i odd =
      _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), ch->multiplier_odd), q->nudge);
  __m512i h = _mm512_mask_blend_epi32((__mmask16)0xAAAA, _mm512_srli_epi64(even, 31),
                                      _mm512_slli_epi64(odd, 1));
  /* RoundingDivideByPOT */
  if (form == qwino_x86_gemmlowp_positive_shift_rectified) {
    return _mm512_srav_epi32(h, ch->right_shift_less_one); /* h' = h where it matters */
  }
  h = _mm512_add_epi32(h, _mm512_srai_epi32(h, 31));
  if (form == qwino_x86_gemmlowp_positive_shift) {
    return _mm512_srav_epi32(h, ch->right_shift_less_one);
  }
  const __m512i round = _mm512_and_si512(_mm512_srav_epi32(h, ch->right_shift_less_one), q->one);
  const __m512i r = _mm512_add_epi32(_mm512_srav_epi32(h, ch->right_shift), round);
  return _mm512_add_epi32(r, q->zero_point);
}

/* Four requantized vectors (a, b, c, d) -> 64 bytes, the packs working within 128-bit lanes:
 * lane L of the result holds a's, b's, c's and d's lane L (4 values each), in that order. Kernels
 * that keep their channels in that "lane order" (src/s8-dwconv/s8-dwconv-avx512vnni.c) store it
 * as it is. Shortcut form: the values are y = h' >> (n - 1), whose result is
 * floor((y + 1) / 2) + z = floor((y + K) / 2) with K = 1 + 2z in [-255, 511]; VPACKSSDW, VPADDSW
 * K and VPSRAW 1 compute it in int16 (the AVX2 depthwise kernel's form, whose comment has the
 * argument: where a saturation happens, the exact value and the result lie beyond the same byte
 * bound, so the clamp gives the same byte). */
QWINO_AVX512_INLINE __m512i qwino_avx512_narrow_4x16_in_lanes(
    __m512i a, __m512i b, __m512i c, __m512i d, const struct qwino_avx512_requantization* q,
    int form, int is_signed) {
  __m512i ab = _mm512_packs_epi32(a, b);
  __m512i cd = _mm512_packs_epi32(c, d);
  if (form == qwino_x86_gemmlowp_positive_shift ||
      form == qwino_x86_gemmlowp_positive_shift_rectified) {
    ab = _mm512_srai_epi16(_mm512_adds_epi16(ab, q->zero_point16), 1);
    cd = _mm512_srai_epi16(_mm512_adds_epi16(cd, q->zero_point16), 1);
  } else if (form == qwino_x86_fp32 || is_signed == QWINO_X86_SIGN_BY_XOR) {
    ab = _mm512_adds_epi16(ab, q->zero_point16);
    cd = _mm512_adds_epi16(cd, q->zero_point16);
  }
  if (is_signed == QWINO_X86_SIGN_BY_XOR) {
    const __m512i view = _mm512_packus_epi16(ab, cd);
    return _mm512_xor_si512(_mm512_min_epu8(_mm512_max_epu8(view, q->min), q->max), q->sign);
  }
  const __m512i bytes = is_signed ? _mm512_packs_epi16(ab, cd) : _mm512_packus_epi16(ab, cd);
  return is_signed ? _mm512_min_epi8(_mm512_max_epi8(bytes, q->min), q->max)
                   : _mm512_min_epu8(_mm512_max_epu8(bytes, q->min), q->max);
}

/* Four requantized vectors of 16 channels (a, b, c, d: e.g. four pixels) -> 64 bytes: a's 16
 * channels, then b's, c's, d's, as the output tensor stores them (one VPERMD after the in-lane
 * narrowing restores the order). */
QWINO_AVX512_INLINE __m512i qwino_avx512_narrow_4x16(__m512i a, __m512i b, __m512i c, __m512i d,
                                                     const struct qwino_avx512_requantization* q,
                                                     int form, int is_signed) {
  return _mm512_permutexvar_epi32(
      q->pixel_order, qwino_avx512_narrow_4x16_in_lanes(a, b, c, d, q, form, is_signed));
}

#endif /* QWINO_REQUANTIZATION_AVX512SKX_H_ */
