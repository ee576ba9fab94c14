/*
 * Requantization on SSE4.1, both modes (qwino/microparams.h), shared by the SSE4.1 kernels that
 * end in 8-bit values (the F(2x2,3x3) output transform and the direct path's requantize kernel):
 * the bit-exact vector form of qwino_requantize_channel() in qwino/requantization.h for every
 * int32 accumulator and bias, every multiplier but INT32_MIN (the documented ones are 0 and
 * [2^30, 2^31); the others are outside it, and the tests try them too), every left_shift and
 * right_shift in 0..31, every zero point and clamp. One copy of the argument and the code
 * instead of one per kernel; the AVX2 and AVX-512 twins are src/qwino/requantization-avx2.h and
 * src/qwino/requantization-avx512skx.h.
 *
 * The unit of work is a block of 4 pixels x 4 channels (four xmm of 4 int32, one per pixel,
 * channels in lanes, bias already added), which comes out as 16 bytes in pixel order, 4
 * channels each; the per-channel values of the 4 channels are loaded once per block or, where a
 * kernel reuses them, once per channel group (struct qwino_sse41_channels).
 *
 * gemmlowp. SSE4.1 has no shift by a per-lane count (PSRAD/PSLLD take one count for every
 * lane); emulating one costs 6 to 7 instructions per vector (4 PSRAD with each lane's count + 3
 * blends, or two PMULDQ by 2^(31 - e) and their recombination). Transposing the block instead
 * costs 1 per vector: then each vector holds one channel (its 4 pixels) and every right shift is
 * one PSRAD/PSLLD with that channel's count (zero-extended into the low 64 bits, as the
 * instructions read it, once per channel group). Why each step matches qwino/requantization.h:
 *  - The left shift (the general form) is PMULLD by 2^left_shift, per lane,
 *    before the transposition: the product modulo 2^32 is the scalar uint32_t shift. 2^l is built
 *    as the float with exponent l (bits (l + 127) << 23) and CVTTPS2DQ, exact for l <= 30; l = 31
 *    gives 0x80000000 (the conversion's out-of-range value), which is 2^31 modulo 2^32 as well.
 *  - SaturatingRoundingDoublingHighMul(x, m) = floor((x * m + 2^30) / 2^31) (gemmlowp's
 *    truncating division with its sign-dependent nudge is the same integer): PMULDQ forms the
 *    exact 64-bit products of the even lanes and, after PSHUFD, of the odd lanes; for m !=
 *    INT32_MIN, |x * m| <= 2^62 - 2^31, so adding 2^30 cannot overflow, the true result h lies in
 *    [-2^31 + 1, 2^31 - 1] (no saturation: only INT32_MIN * INT32_MIN saturates), and bits 31..62
 *    of the sum are h (a logical 64-bit shift is enough: the bits above are not kept).
 *    The shift that moves bits 31..62 into place is >> 31 for a dword at the bottom of its qword
 *    and << 1 for one at the top, so the even products of pixel a are shifted down and those of
 *    pixel b up, and one PBLENDW gives [a0 b0 a2 b2]; the odd products the other way round give
 *    [b1 a1 b3 a3]. The same for pixels c, d, and one PUNPCKL/HQDQ per vector leaves channel j of
 *    the 4 pixels in vector j: [a0 b0 c0 d0], [b1 a1 d1 c1], [a2 b2 c2 d2], [b3 a3 d3 c3]. The
 *    final PSHUFB (`order`) puts the bytes back in pixel order.
 *  - RoundingDivideByPOT(h, e), rounding half away from zero, general form (e in 0..31), with
 *    q = h >> e and rem = h - q * 2^e in [0, 2^e): gemmlowp adds 1 when rem > 2^(e-1) - 1 + t,
 *    t = (h < 0). rem' = h << (32 - e) (PSLLD; the count 32 of e = 0 gives 0) is rem * 2^(32-e)
 *    as a uint32, a multiple of 2^(32-e), so for e >= 1 the condition is rem' >= 2^31 (t = 0)
 *    or rem' > 2^31 (t = 1), i.e. u > -1 + t with u = rem' - 2^31 (signed) and -1 + t = ~s,
 *    s = h >> 31. u > ~s is ~u < s, and ~u = rem' ^ 0x7FFFFFFF: one PXOR and one PCMPGTD(s, .)
 *    give the increment as a mask (q + 1 cannot wrap: q <= 2^30 - 1 when e >= 1). For e = 0,
 *    rem' = 0 and ~u = INT32_MAX: no increment, as in gemmlowp (mask 0). Two counts per channel
 *    (e and 32 - e).
 *  - General form, the rest: the zero point add wraps (PADDD); PACKSSDW saturates to int16, then
 *    PADDSW adds 128 for int8 outputs (0 for uint8), and PACKUSWB saturates to [0, 255]:
 *    together clamp(v + 128 * sign, 0, 255) (sat16 then a saturating + 128 then the unsigned
 *    narrowing give the same byte, see qwino/microparams.h), which commutes with the final clamp
 *    because output_min/max are bytes; PMAXUB before PMINUB matches the scalar clamp order even
 *    when output_min > output_max; PXOR with output_sign gives the tensor's byte.
 *  - Shortcut form (qwino_sse41_shortcut: positive_shift, i.e. left_shift == 0 and e >= 1 in
 *    every channel, and z = output_zero_point + 128 * sign in 0..255, which every documented zero
 *    point gives). With h' = h + (h >> 31) = h - t (no wrap: h > INT32_MIN) and y = h' >> (e - 1)
 *    (one count per channel, e - 1), r = floor((y + 1) / 2) = floor((h' + 2^(e-1)) / 2^e)
 *    (nested floors of divisions by positive integers compose), i.e. q + (rem >= 2^(e-1)) for
 *    h >= 0 and q + (rem - 1 >= 2^(e-1)) for h < 0: gemmlowp's rule. |r| <= 2^30, so
 *    r + output_zero_point does not wrap, and the byte before the clamp is clamp(r + z, 0, 255)
 *    with r + z = floor((y + K) / 2), K = 1 + 2z in [1, 511]. PACKSSDW, PADDSW K and PSRAW 1
 *    compute that for 8 lanes at once, without the int32 y + 1 (which wraps for y = INT32_MAX,
 *    possible for negative multipliers): where nothing saturates the result is exact; where
 *    PACKSSDW or PADDSW saturate to 32767 the exact value is >= 16384 and the result 16383,
 *    both above 255; where PACKSSDW saturates to -32768 (PADDSW cannot go lower, K >= 1) the
 *    exact value and the result (<= -16129) are both below 0. So PACKUSWB, the clamp and the
 *    PXOR give the bytes of the general form.
 *
 * fp32 (no transposition: every step is per lane). CVTDQ2PS rounds to nearest even like the C
 * conversion, MULPS rounds once like the scalar float multiply; MAXPS then MINPS is the scalar
 * clamp with max last (no NaN can occur: the accumulator and the scale are finite, and where
 * the scalar keeps -0.0 against a bound 0.0 the vector takes the bound, the same integer);
 * CVTPS2DQ rounds half to even under the default MXCSR rounding mode, which the library never
 * changes; the clamped result plus the view's zero point lies in [0, 255] (the bounds are
 * output_min/max less the zero point), so the narrowing does not saturate, and PXOR with
 * output_sign gives the tensor's byte.
 */
#ifndef QWINO_REQUANTIZATION_SSE41_H_
#define QWINO_REQUANTIZATION_SSE41_H_

#include <smmintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "qwino/microparams.h"

#define QWINO_SSE41_INLINE static inline __attribute__((always_inline))

/*
 * The forms of the code, a compile-time constant at each call (kernels instantiate their body
 * once per form, QWINO_SSE41_DISPATCH). The _unsigned forms leave out the int8 steps and are
 * valid only for output_sign == 0; the shortcut forms are valid only when qwino_sse41_shortcut;
 * the general form is valid always.
 */
enum qwino_sse41_form {
  qwino_sse41_gemmlowp_shortcut_unsigned,
  qwino_sse41_gemmlowp_shortcut,
  qwino_sse41_gemmlowp_general_left_shift,
  qwino_sse41_fp32_unsigned,
  qwino_sse41_fp32,
};

#define QWINO_SSE41_IS_FP32(form) ((form) >= qwino_sse41_fp32_unsigned)
#define QWINO_SSE41_MODE(form) \
  (QWINO_SSE41_IS_FP32(form) ? qwino_requantization_fp32 : qwino_requantization_gemmlowp)
#define QWINO_SSE41_IS_SHORTCUT(form) ((form) <= qwino_sse41_gemmlowp_shortcut)
#define QWINO_SSE41_IS_UNSIGNED(form) \
  ((form) == qwino_sse41_gemmlowp_shortcut_unsigned || (form) == qwino_sse41_fp32_unsigned)

/*
 * Whether the shortcut form is valid: positive_shift, and the int16 zero point in 0..255 (what
 * every documented zero point gives; others, which the tests also try, take the general form).
 */
static inline int qwino_sse41_shortcut(const struct qwino_qu8_gemmlowp_params* p) {
  const int32_t offset = p->output_sign != 0 ? 128 : 0;
  return p->positive_shift && p->output_zero_point >= -offset &&
         p->output_zero_point <= 255 - offset;
}

/*
 * Calls CALL(form) with the form for `params` as a constant; `mode` is a constant at each use,
 * so only that mode's forms are instantiated (the mode of a form: QWINO_SSE41_MODE). The general
 * form runs with the left shift (a shift by 0 changes nothing), as the AVX2 dispatch does
 * (qwino/requantization-avx2.h).
 */
#define QWINO_SSE41_DISPATCH(mode, params, CALL)            \
  do {                                                      \
    if ((mode) == qwino_requantization_fp32) {              \
      if ((params)->fp32.output_sign != 0) {                \
        CALL(qwino_sse41_fp32);                             \
      } else {                                              \
        CALL(qwino_sse41_fp32_unsigned);                    \
      }                                                     \
    } else if (qwino_sse41_shortcut(&(params)->gemmlowp)) { \
      if ((params)->gemmlowp.output_sign != 0) {            \
        CALL(qwino_sse41_gemmlowp_shortcut);                \
      } else {                                              \
        CALL(qwino_sse41_gemmlowp_shortcut_unsigned);       \
      }                                                     \
    } else {                                                \
      CALL(qwino_sse41_gemmlowp_general_left_shift);        \
    }                                                       \
  } while (0)

/* The per-channel arrays of either mode: their stride, and how many a tail has to stage. */
static inline size_t qwino_sse41_channel_stride(const union qwino_qu8_requantization_params* p,
                                                enum qwino_requantization_mode mode) {
  return mode == qwino_requantization_fp32 ? p->fp32.channel_stride : p->gemmlowp.channel_stride;
}

static inline size_t qwino_sse41_channel_arrays(enum qwino_requantization_mode mode) {
  return mode == qwino_requantization_fp32 ? QWINO_FP32_ARRAYS : QWINO_GEMMLOWP_ARRAYS;
}

/* Constants shared by every channel, once per call. */
struct qwino_sse41_requantization {
  __m128i nudge;      /* gemmlowp: 2^30 in each 64-bit lane */
  __m128i flip;       /* gemmlowp general: 0x7FFFFFFF */
  __m128i zero_point; /* gemmlowp general: int32; fp32: the view's zero point, int32 */
  __m128i rounding16; /* gemmlowp shortcut: int16 K = 1 + 2 * (output_zero_point + offset) */
  __m128i offset16;   /* gemmlowp general: int16 offset (128 for int8 outputs, else 0) */
  __m128i order;      /* gemmlowp: PSHUFB from the transposed order back to pixel order */
  __m128 fmin, fmax;  /* fp32: output_min/max_less_zero_point */
  __m128i min, max;   /* gemmlowp: bytes */
  __m128i sign;       /* bytes: output_sign */
};

static inline struct qwino_sse41_requantization qwino_sse41_requantization_init(
    const union qwino_qu8_requantization_params* p, enum qwino_requantization_mode mode) {
  struct qwino_sse41_requantization q;
  if (mode == qwino_requantization_fp32) {
    q.zero_point = _mm_set1_epi32(p->fp32.output_zero_point);
    q.fmin = _mm_set1_ps(p->fp32.output_min_less_zero_point);
    q.fmax = _mm_set1_ps(p->fp32.output_max_less_zero_point);
    q.sign = _mm_set1_epi8((char)p->fp32.output_sign);
    q.nudge = q.flip = q.rounding16 = q.offset16 = q.order = q.min = q.max = _mm_setzero_si128();
  } else {
    const struct qwino_qu8_gemmlowp_params* g = &p->gemmlowp;
    const int offset = g->output_sign != 0 ? 128 : 0;
    q.nudge = _mm_set1_epi64x(INT64_C(1) << 30);
    q.flip = _mm_set1_epi32(INT32_MAX);
    q.zero_point = _mm_set1_epi32(g->output_zero_point);
    /* Read only by the shortcut (z in 0..255); unsigned because init sees any int32 zero
     * point. */
    const uint32_t z = (uint32_t)g->output_zero_point + (uint32_t)offset;
    q.rounding16 = _mm_set1_epi16((short)(uint16_t)(1 + 2 * z));
    q.offset16 = _mm_set1_epi16((short)offset);
    /* Byte 4p + j (pixel p, channel j) comes from channel j's 4 bytes at 4j, where the pixels
     * are in order a b c d for even j and b a d c for odd j (see above). */
    q.order = _mm_setr_epi8(0, 5, 8, 13, 1, 4, 9, 12, 2, 7, 10, 15, 3, 6, 11, 14);
    q.min = _mm_set1_epi8((char)g->output_min);
    q.max = _mm_set1_epi8((char)g->output_max);
    q.sign = _mm_set1_epi8((char)g->output_sign);
    q.fmin = q.fmax = _mm_setzero_ps();
  }
  return q;
}

/* The per-channel values of 4 consecutive channels, in the forms the steps use. */
struct qwino_sse41_channels {
  __m128i bias;
  __m128i multiplier;     /* gemmlowp: lane j = channel j; fp32: the scale's bits */
  __m128i multiplier_odd; /* gemmlowp: channels 1 and 3 in dwords 0 and 2, for PMULDQ */
  __m128i left_factor;    /* gemmlowp with left shift: 2^left_shift */
  __m128i shift[4];       /* gemmlowp: PSRAD count of channel j (shortcut: right_shift - 1) */
  __m128i shift_up[4];    /* gemmlowp general: PSLLD count of channel j, 32 - right_shift */
};

/* Channel j's count (a lane of v) as a shift count: zero-extended into the low 64 bits. */
QWINO_SSE41_INLINE void qwino_sse41_counts(__m128i v, __m128i count[4]) {
  count[0] = _mm_cvtepu32_epi64(v);
  count[1] = _mm_srli_epi64(v, 32);
  count[2] = _mm_unpackhi_epi32(v, _mm_setzero_si128());
  count[3] = _mm_srli_si128(v, 12);
}

/* values: channel_params at the first of the 4 channels; stride: between the arrays. */
QWINO_SSE41_INLINE struct qwino_sse41_channels qwino_sse41_load_channels(
    const int32_t* values, size_t stride, enum qwino_sse41_form form) {
  struct qwino_sse41_channels k;
  k.bias = _mm_loadu_si128((const __m128i*)values);
  k.multiplier = _mm_loadu_si128((const __m128i*)(values + stride));
  if (QWINO_SSE41_IS_FP32(form)) {
    return k;
  }
  k.multiplier_odd = _mm_shuffle_epi32(k.multiplier, _MM_SHUFFLE(3, 3, 1, 1));
  if (form == qwino_sse41_gemmlowp_general_left_shift) {
    const __m128i left_shift = _mm_loadu_si128((const __m128i*)(values + 2 * stride));
    const __m128i exponent = _mm_slli_epi32(_mm_add_epi32(left_shift, _mm_set1_epi32(127)), 23);
    k.left_factor = _mm_cvttps_epi32(_mm_castsi128_ps(exponent));
  }
  const __m128i right_shift = _mm_loadu_si128((const __m128i*)(values + 3 * stride));
  if (QWINO_SSE41_IS_SHORTCUT(form)) {
    qwino_sse41_counts(_mm_sub_epi32(right_shift, _mm_set1_epi32(1)), k.shift);
  } else {
    qwino_sse41_counts(right_shift, k.shift);
    qwino_sse41_counts(_mm_sub_epi32(_mm_set1_epi32(32), right_shift), k.shift_up);
  }
  return k;
}

/* x * m + 2^30 for the even lanes of x, resp. the odd ones (m_odd: m's odd lanes at the even
 * positions, where PMULDQ reads them), as 64-bit lanes. */
QWINO_SSE41_INLINE __m128i qwino_sse41_even_products(__m128i x, __m128i m, __m128i nudge) {
  return _mm_add_epi64(_mm_mul_epi32(x, m), nudge);
}

QWINO_SSE41_INLINE __m128i qwino_sse41_odd_products(__m128i x, __m128i m_odd, __m128i nudge) {
  return _mm_add_epi64(_mm_mul_epi32(_mm_shuffle_epi32(x, _MM_SHUFFLE(3, 3, 1, 1)), m_odd), nudge);
}

/* Bits 31..62 of the 64-bit lanes of lo (moved down) and of hi (moved up), blended. */
QWINO_SSE41_INLINE __m128i qwino_sse41_high_bits(__m128i lo, __m128i hi) {
  return _mm_blend_epi16(_mm_srli_epi64(lo, 31), _mm_slli_epi64(hi, 1), 0xCC);
}

/* RoundingDivideByPOT of channel j's vector h by its count(s), as the form allows. */
QWINO_SSE41_INLINE __m128i qwino_sse41_divide(__m128i h, const struct qwino_sse41_channels* k,
                                              int j, const struct qwino_sse41_requantization* q,
                                              enum qwino_sse41_form form) {
  const __m128i s = _mm_srai_epi32(h, 31);
  if (QWINO_SSE41_IS_SHORTCUT(form)) {
    return _mm_sra_epi32(_mm_add_epi32(h, s), k->shift[j]); /* y; the rest is in int16 */
  }
  const __m128i not_u = _mm_xor_si128(_mm_sll_epi32(h, k->shift_up[j]), q->flip);
  return _mm_sub_epi32(_mm_sra_epi32(h, k->shift[j]), _mm_cmpgt_epi32(s, not_u));
}

/*
 * Pixels a, b, c, d of 4 channels (accumulators with the bias added) -> 16 bytes: a's 4
 * channels, then b's, c's, d's, requantized, clamped, in the tensor's type.
 */
QWINO_SSE41_INLINE __m128i qwino_sse41_requantize_4x4(__m128i a, __m128i b, __m128i c, __m128i d,
                                                      const struct qwino_sse41_channels* k,
                                                      const struct qwino_sse41_requantization* q,
                                                      enum qwino_sse41_form form) {
  __m128i bytes;
  if (QWINO_SSE41_IS_FP32(form)) {
    const __m128 scale = _mm_castsi128_ps(k->multiplier);
    __m128i r[4] = {a, b, c, d};
    for (int p = 0; p < 4; p++) {
      __m128 f = _mm_mul_ps(_mm_cvtepi32_ps(r[p]), scale);
      f = _mm_min_ps(_mm_max_ps(f, q->fmin), q->fmax);
      r[p] = _mm_add_epi32(_mm_cvtps_epi32(f), q->zero_point);
    }
    bytes = _mm_packus_epi16(_mm_packs_epi32(r[0], r[1]), _mm_packs_epi32(r[2], r[3]));
  } else {
    if (form == qwino_sse41_gemmlowp_general_left_shift) {
      a = _mm_mullo_epi32(a, k->left_factor);
      b = _mm_mullo_epi32(b, k->left_factor);
      c = _mm_mullo_epi32(c, k->left_factor);
      d = _mm_mullo_epi32(d, k->left_factor);
    }
    /* SaturatingRoundingDoublingHighMul, transposing (see above). */
    const __m128i m = k->multiplier, m_odd = k->multiplier_odd, n = q->nudge;
    const __m128i ab02 = qwino_sse41_high_bits(qwino_sse41_even_products(a, m, n),
                                               qwino_sse41_even_products(b, m, n));
    const __m128i ba13 = qwino_sse41_high_bits(qwino_sse41_odd_products(b, m_odd, n),
                                               qwino_sse41_odd_products(a, m_odd, n));
    const __m128i cd02 = qwino_sse41_high_bits(qwino_sse41_even_products(c, m, n),
                                               qwino_sse41_even_products(d, m, n));
    const __m128i dc13 = qwino_sse41_high_bits(qwino_sse41_odd_products(d, m_odd, n),
                                               qwino_sse41_odd_products(c, m_odd, n));
    __m128i h[4] = {_mm_unpacklo_epi64(ab02, cd02), _mm_unpacklo_epi64(ba13, dc13),
                    _mm_unpackhi_epi64(ab02, cd02), _mm_unpackhi_epi64(ba13, dc13)};
    for (int j = 0; j < 4; j++) {
      h[j] = qwino_sse41_divide(h[j], k, j, q, form);
    }
    __m128i w01, w23;
    if (QWINO_SSE41_IS_SHORTCUT(form)) {
      w01 = _mm_srai_epi16(_mm_adds_epi16(_mm_packs_epi32(h[0], h[1]), q->rounding16), 1);
      w23 = _mm_srai_epi16(_mm_adds_epi16(_mm_packs_epi32(h[2], h[3]), q->rounding16), 1);
    } else {
      w01 = _mm_packs_epi32(_mm_add_epi32(h[0], q->zero_point), _mm_add_epi32(h[1], q->zero_point));
      w23 = _mm_packs_epi32(_mm_add_epi32(h[2], q->zero_point), _mm_add_epi32(h[3], q->zero_point));
      w01 = _mm_adds_epi16(w01, q->offset16);
      w23 = _mm_adds_epi16(w23, q->offset16);
    }
    bytes = _mm_shuffle_epi8(_mm_packus_epi16(w01, w23), q->order);
    bytes = _mm_min_epu8(_mm_max_epu8(bytes, q->min), q->max);
  }
  if (!QWINO_SSE41_IS_UNSIGNED(form)) {
    bytes = _mm_xor_si128(bytes, q->sign);
  }
  return bytes;
}

#endif /* QWINO_REQUANTIZATION_SSE41_H_ */
