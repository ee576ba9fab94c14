/*
 * The body of the depthwise kernels with fused requantization for 256-bit vectors,
 * int16_tap_pairs weights (CR = 32): the AVX2 one (src/s8-dwconv/s8-dwconv-avx2.c) and the
 * AVX-VNNI one (src/s8-dwconv/s8-dwconv-avxvnni.c), which differ only in the step
 * QWINO_S8_DWCONV_AVX2_MAC(acc, x, w), acc += the pairwise products of the int16 pairs of x and
 * w modulo 2^32 (VPMADDWD + VPADDD, or one VPDPWSSD), that the including file defines, and
 * define their entry points with QWINO_S8_DWCONV_AVX2_ENTRY. Each is a
 * bit-exact twin of qwino_s8_dwconv_*_ukernel_up8__scalar_madd (src/s8-dwconv/s8-dwconv-scalar.c)
 * for every input byte, a_sign, int16 weight, bias and requantization parameter the shared
 * requantization (src/qwino/requantization-avx2.h) takes.
 *
 * Arithmetic. A = (int8) (byte ^ a_sign) = x - 128 with x = byte ^ a_sign ^ 0x80 in [0, 255] (for
 * any byte v, (int8) v = (v ^ 0x80) - 128), so
 *   bias + sum_t A_t B_t = (bias - 128 sum_t B_t) + sum_t x_t B_t   (mod 2^32).
 * The kernel starts the accumulators at bias - 128 sum_t B_t (once per channel block and call,
 * from the weights it prepares anyway: VPMADDWD by 1 gives B_t + B_t+1 per channel) and
 * multiplies the zero-extended x, which for uint8 activations (a_sign 0x80, the common case) is
 * the byte itself: no XOR (int8 activations XOR with 0x80; the common bodies are specialised on
 * it). Zero-extending is an unpack with a zero register, in-lane (VPMOVSXBW crosses lanes and
 * takes more than a cycle on AMD). One VPMADDWD multiplies the int16 pairs (x_t, x_t+1) of 8
 * channels by their (B_t, B_t+1) pairs: |x B| <= 255 * 32768, so a pair sum is exact in int32
 * for every int16 weight, and the VPADDD sums wrap modulo 2^32 like the scalar twin's (the order
 * of the adds does not matter modulo 2^32). No VPMADDUBSW: it saturates to int16. An odd last
 * tap pairs with itself: its partner weight is 0 in the layout, so no pointer past `taps` is
 * read.
 *
 * Main path, blocks of 32 channels (channels >= 32, at most 2 * MAX_PAIRS taps). One 32-byte load
 * per tap and pixel; VPUNPCKL/HBW of taps t and t + 1 interleave them within the 128-bit lanes,
 * and the unpacks of those with zero give the int16 pairs of four vectors in "lane order",
 *   vector k (0..3): channels 4k..4k+3 in the low lane, 16+4k..16+4k+3 in the high lane,
 * so that no shuffle crosses lanes (6 per tap pair and 32 channels, against 8 for VPUNPCK +
 * VPMOVSXBW on 16-byte loads). The block's weights are put in that order once per call
 * (VBROADCASTI128 + VPBLENDD, out of line: the same for every form) into a stack buffer which
 * every pixel reads, and so are the per-channel requantization values; the narrowing then needs
 * no VPERMD (VPACKSSDW of vectors 0, 1 and of 2, 3 gives channels 0-7 | 16-23 and 8-15 | 24-31,
 * the byte pack channels 0-15 | 16-31). Pixels go one at a time with four accumulators, software
 * pipelined: pixel p's first (up to four) tap pairs are interleaved with the requantization of
 * pixel p - 1, which keeps the out-of-order scheduler fed across the requantization's long chain
 * (one loop for every step: step 0 requantizes a dummy and stores nothing, the last step only
 * requantizes). Channels past the last multiple of 32: 1..16 of them as the last 16 channels in
 * the fallback's form below (weights gathered from the packed blocks they straddle into a stack
 * buffer), 17..31 as the block of the last 32 channels, which overlaps the previous block. The
 * channels both blocks compute get the same bytes twice.
 *
 * Fallback, 16 channels x 2 pixels (channels < 32, more than 2 * MAX_PAIRS taps, and the 16-channel
 * remainders above): a ymm holds 16 channels of two pixels, one per 128-bit lane (VINSERTI128), so
 * the in-lane unpacks give the natural channel order and the weights of 4 channels are one
 * VBROADCASTI128 from the packed block; pipelined like the main path. A last odd pixel repeats
 * the previous pixel's pointers (the same bytes are stored at its place, high lane first). With
 * fewer than 16 channels left, the last 16 overlap the previous ones when they lie in one packed
 * block; otherwise the last 1..15 are read exactly (the largest power of two of bytes at the
 * start and at the end of the range, overlapping, VPSHUFB-merged), their per-channel values
 * through staged arrays, and only those bytes are stored. Out of line, once per form and output
 * type, and XORing with flipv (zero for a_sign 0x80) instead of a copy per XOR variant. So exactly
 * `channels` bytes are read at each pointer + input_offset and written per output pixel, and
 * `channels` values of each per-channel array.
 *
 * Requantization: qwino_avx2_requantize (its comment has the argument for each step) on values
 * loaded in the kernel's lane order, except for the shortcut form (requantize() below), the form
 * constant of one always-inline body per QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR case (both
 * output types in one body);
 * the narrowing is qwino_avx2_narrow_4x8's without its VPERMD.
 */
#ifndef QWINO_S8_DWCONV_AVX2_H_
#define QWINO_S8_DWCONV_AVX2_H_

#ifndef QWINO_S8_DWCONV_AVX2_MAC
#error "define QWINO_S8_DWCONV_AVX2_MAC(acc, x, w) before including this header"
#endif

#include <immintrin.h>
#include <string.h>

#include "qwino/requantization-avx2.h"
#include "qwino/x86-partial-loads.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))
/* Out of line, one copy (no GCC clones specialised on constant arguments). */
#if defined(__clang__)
#define QWINO_OUT_OF_LINE static __attribute__((noinline))
#else
#define QWINO_OUT_OF_LINE static __attribute__((noinline, noclone))
#endif

#define CR 32
/* Tap pairs the main path's stack buffer holds: 64 taps (8x8), 4 KiB. */
#define MAX_PAIRS 32

/* --- shared pieces ------------------------------------------------------------------------ */

/* qwino_avx2_narrow_4x8 without the VPERMD (each 128-bit lane of the result holds the 16 bytes
 * of a's, b's, c's, d's low (low lane) or high (high lane) 4 lanes, in that order), taking
 * requantize()'s values. Shortcut form: those are y = h' >> (n - 1), whose r + zero point is
 * floor((y + 1) / 2) + z = floor((y + K) / 2), K = 1 + 2z in [-255, 511] (q->zero_point16 holds
 * K there); VPACKSSDW, VPADDSW K and VPSRAW 1 compute it in int16 (the SSE4.1 kernels' form,
 * src/qwino/requantization-sse41.h): exact where nothing saturates; where VPACKSSDW or VPADDSW
 * saturate upwards, the exact value and the result are both >= 16256 (y + K >= 32768 - 255, the
 * result is >= (32767 - 255) / 2), and downwards both <= -16129, so beyond every byte bound on
 * the same side, and the byte narrowing and the clamp give the general sequence's bytes. */
QWINO_INLINE __m256i narrow_in_lanes(__m256i a, __m256i b, __m256i c, __m256i d,
                                     const struct qwino_avx2_requantization* q, int form,
                                     int is_signed) {
  __m256i ab = _mm256_packs_epi32(a, b);
  __m256i cd = _mm256_packs_epi32(c, d);
  if (form == qwino_x86_gemmlowp_positive_shift) {
    ab = _mm256_srai_epi16(_mm256_adds_epi16(ab, q->zero_point16), 1);
    cd = _mm256_srai_epi16(_mm256_adds_epi16(cd, q->zero_point16), 1);
  } else if (form == qwino_x86_fp32 || is_signed == QWINO_X86_SIGN_BY_XOR) {
    ab = _mm256_adds_epi16(ab, q->zero_point16);
    cd = _mm256_adds_epi16(cd, q->zero_point16);
  }
  if (is_signed == QWINO_X86_SIGN_BY_XOR) {
    return qwino_avx2_view_bytes_by_xor(_mm256_packus_epi16(ab, cd), q, form);
  }
  __m256i bytes = is_signed ? _mm256_packs_epi16(ab, cd) : _mm256_packus_epi16(ab, cd);
  if (form != qwino_x86_fp32) {
    bytes = is_signed ? _mm256_min_epi8(_mm256_max_epi8(bytes, q->min), q->max)
                      : _mm256_min_epu8(_mm256_max_epu8(bytes, q->min), q->max);
  }
  return bytes;
}

/* qwino_avx2_requantize, but for the shortcut form (positive_shift, zero point in [-128, 255])
 * only up to y = h' >> (n - 1), which narrow_in_lanes finishes in int16 (see there):
 *  - the odd products' bits 31..62 go to the high dwords with VPADDQ (x + x), not VPSLLQ;
 *  - h' = h + (h >> 31) = h - [h < 0] as VPADDD of VPCMPGTD(0, h) (-1 where h < 0): the same
 *    integer without a shift (shifts share the shuffles' two pipes on AMD, the compare does not).
 * Every other step is the header's. */
QWINO_INLINE __m256i requantize(__m256i x, const struct qwino_avx2_channels* ch,
                                const struct qwino_avx2_requantization* q, int form) {
  if (form != qwino_x86_gemmlowp_positive_shift) {
    return qwino_avx2_requantize(x, ch, q, form);
  }
  const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, ch->multiplier), q->nudge);
  const __m256i odd =
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), ch->multiplier_odd), q->nudge);
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_add_epi64(odd, odd), 0xAA);
  h = _mm256_add_epi32(h, _mm256_cmpgt_epi32(_mm256_setzero_si256(), h));
  return _mm256_srav_epi32(h, ch->right_shift_less_one);
}

/* The per-channel values of the form from four vectors of each array (in whatever lane order the
 * caller loaded them; v[i][k] = array i, vector k), as qwino_avx2_load_channels prepares them. */
QWINO_INLINE void prepare_channels(const __m256i v[QWINO_MAX_CHANNEL_ARRAYS][4],
                                   const struct qwino_avx2_requantization* q, int form,
                                   struct qwino_avx2_channels ch[4]) {
  const __m256i zero = _mm256_setzero_si256();
  for (int k = 0; k < 4; k++) {
    ch[k].bias = v[0][k];
    ch[k].multiplier = ch[k].multiplier_odd = ch[k].left_shift = ch[k].right_shift = zero;
    ch[k].right_shift_less_one = zero;
    ch[k].scale = _mm256_setzero_ps();
    if (form == qwino_x86_fp32) {
      ch[k].scale = _mm256_castsi256_ps(v[1][k]);
      continue;
    }
    ch[k].multiplier = v[1][k];
    ch[k].multiplier_odd = _mm256_srli_epi64(v[1][k], 32);
    if (form == qwino_x86_gemmlowp_left_shift) {
      ch[k].left_shift = v[2][k];
    }
    if (form != qwino_x86_gemmlowp_positive_shift) {
      ch[k].right_shift = v[3][k];
    }
    ch[k].right_shift_less_one = _mm256_sub_epi32(v[3][k], q->one);
  }
}

/* The arrays the form reads (index 2, left_shift, only in the left-shift form). */
QWINO_INLINE int array_used(int i, int form) {
  if (form == qwino_x86_fp32) {
    return i < QWINO_FP32_ARRAYS;
  }
  return i != 2 || form == qwino_x86_gemmlowp_left_shift;
}

/* x = byte ^ a_sign ^ 0x80 (flip: a_sign != 0x80, then flipv holds a_sign ^ 0x80). */
QWINO_INLINE __m256i load_x32(const uint8_t* p, __m256i flipv, int flip) {
  const __m256i x = _mm256_loadu_si256((const __m256i*)p);
  return flip ? _mm256_xor_si256(x, flipv) : x;
}

/* acc[k] += the products of one tap pair: x0, x1 two taps of 32 channels (ymm) or of 16 channels
 * of two pixels (one per lane); w: the pair's 4 weight vectors, in the order of the unpacks. */
QWINO_INLINE void madd_pair(__m256i acc[4], __m256i x0, __m256i x1, __m256i w0, __m256i w1,
                            __m256i w2, __m256i w3) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i lo = _mm256_unpacklo_epi8(x0, x1);
  const __m256i hi = _mm256_unpackhi_epi8(x0, x1);
  QWINO_S8_DWCONV_AVX2_MAC(acc[0], _mm256_unpacklo_epi8(lo, zero), w0);
  QWINO_S8_DWCONV_AVX2_MAC(acc[1], _mm256_unpackhi_epi8(lo, zero), w1);
  QWINO_S8_DWCONV_AVX2_MAC(acc[2], _mm256_unpacklo_epi8(hi, zero), w2);
  QWINO_S8_DWCONV_AVX2_MAC(acc[3], _mm256_unpackhi_epi8(hi, zero), w3);
}

/* bias - 128 sum_t B_t, modulo 2^32 (weight_sum: VPMADDWD(weights, 1) summed over the pairs). */
QWINO_INLINE __m256i corrected_bias(__m256i bias, __m256i weight_sum) {
  return _mm256_sub_epi32(bias, _mm256_slli_epi32(weight_sum, 7));
}

/* --- main path: 32 channels in lane order ------------------------------------------------- */

/* 32 consecutive dwords (channels 0-31) -> lane order: vector k is channels 4k..4k+3 and
 * 16+4k..16+4k+3, two VBROADCASTI128 (plain loads) and a VPBLENDD each. */
QWINO_INLINE void load_lane_order(const void* p, __m256i out[4]) {
  const __m128i* v = (const __m128i*)p;
  for (int k = 0; k < 4; k++) {
    out[k] = _mm256_blend_epi32(_mm256_broadcastsi128_si256(_mm_loadu_si128(v + k)),
                                _mm256_broadcastsi128_si256(_mm_loadu_si128(v + 4 + k)), 0xF0);
  }
}

/* The 32 channels' per-channel values (p = channel_params at the block's first channel), in lane
 * order, with the corrected bias. weight_sum: per lane-order vector. */
QWINO_INLINE void load_channels32(const int32_t* p, size_t stride, const __m256i weight_sum[4],
                                  const struct qwino_avx2_requantization* q, int form,
                                  struct qwino_avx2_channels ch[4]) {
  __m256i v[QWINO_MAX_CHANNEL_ARRAYS][4];
  memset(v, 0, sizeof(v));
  for (int i = 0; i < QWINO_MAX_CHANNEL_ARRAYS; i++) {
    if (array_used(i, form)) {
      load_lane_order(p + i * stride, v[i]);
    }
  }
  for (int k = 0; k < 4; k++) {
    v[0][k] = corrected_bias(v[0][k], weight_sum[k]);
  }
  prepare_channels(v, q, form, ch);
}

/* One pixel's tap pairs [first, pairs) into acc (pointers r, weights in lane order). */
QWINO_INLINE void pixel_pairs32(__m256i acc[4], const uint8_t* const* r, size_t first, size_t taps,
                                size_t offset, const __m256i* wbuf, __m256i flipv, int flip) {
  const __m256i* w = wbuf + first * 4;
  size_t t = first * 2;
  for (; t + 2 <= taps; t += 2, w += 4) {
    madd_pair(acc, load_x32(r[t] + offset, flipv, flip), load_x32(r[t + 1] + offset, flipv, flip),
              w[0], w[1], w[2], w[3]);
  }
  if (t < taps) {
    const __m256i x = load_x32(r[t] + offset, flipv, flip);
    madd_pair(acc, x, x, w[0], w[1], w[2], w[3]);
  }
}

/* All pixels of 32 channels: weights of the block in wbuf (lane order), per-channel values in ch.
 * offset: the bytes' offset at each pointer; out: pixel 0's first byte. Software pipelined: step
 * p accumulates pixel p (p < pixels) with its first (up to four) full tap pairs interleaved with
 * the requantization of pixel p - 1 (stored if p > 0; step 0 requantizes a dummy, step `pixels`
 * accumulates nothing), one copy of the code for every step. */
QWINO_INLINE void block32(size_t pixels, size_t taps, const uint8_t* const* input,
                          size_t input_pixel_step, size_t offset, const __m256i* wbuf,
                          const struct qwino_avx2_channels ch[4],
                          const struct qwino_avx2_requantization* q, uint8_t* out,
                          size_t output_pixel_stride, int form, int is_signed, __m256i flipv,
                          int flip) {
  const size_t lead = taps / 2 < 4 ? taps / 2 : 4;
  __m256i acc[4] = {ch[0].bias, ch[1].bias, ch[2].bias, ch[3].bias};
  for (size_t p = 0; p <= pixels; p++) {
    const __m256i prev[4] = {acc[0], acc[1], acc[2], acc[3]};
    const int accumulate = p < pixels;
    const uint8_t* const* r = input + (accumulate ? p : 0) * input_pixel_step;
    __m256i v[4];
    for (int k = 0; k < 4; k++) {
      acc[k] = ch[k].bias;
    }
    for (size_t k = 0; k < 4; k++) {
      if (accumulate && k < lead) {
        const __m256i* w = wbuf + k * 4;
        madd_pair(acc, load_x32(r[2 * k] + offset, flipv, flip),
                  load_x32(r[2 * k + 1] + offset, flipv, flip), w[0], w[1], w[2], w[3]);
      }
      v[k] = requantize(prev[k], &ch[k], q, form);
    }
    if (accumulate) {
      pixel_pairs32(acc, r, lead, taps, offset, wbuf, flipv, flip);
    }
    if (p != 0) {
      _mm256_storeu_si256((__m256i*)(out + (p - 1) * output_pixel_stride),
                          narrow_in_lanes(v[0], v[1], v[2], v[3], q, form, is_signed));
    }
  }
}

/* --- fallback: 16 channels x 2 pixels ------------------------------------------------------ */

QWINO_INLINE __m256i bcast(const void* p) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i*)p));
}

/* 16 bytes of two pixels, one per lane, XORed as load_x32. */
QWINO_INLINE __m256i load_x16x2(const uint8_t* p0, const uint8_t* p1, __m256i flipv, int flip) {
  const __m256i x =
      _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i*)p0)),
                              _mm_loadu_si128((const __m128i*)p1), 1);
  return flip ? _mm256_xor_si256(x, flipv) : x;
}

/* Exactly n (1..15) bytes at p, zero-extended to 16: the largest power of two L <= n bytes at p
 * and at p + n - L (they overlap where n < 2L, with the same bytes), the second moved to bytes
 * n - L.. by `shift` (a VPSHUFB mask built once per call). */
struct partial {
  size_t n, width; /* width: L */
  __m128i shift;   /* bytes 0.. -> n - L.. */
  __m128i unshift; /* bytes n - L.. -> 0.., for store_partial */
};

static inline struct partial partial_init(size_t n) {
  struct partial t;
  t.n = n;
  t.width = n >= 8 ? 8 : n >= 4 ? 4 : n >= 2 ? 2 : 1;
  int8_t mask[16], unmask[16];
  for (size_t i = 0; i < 16; i++) {
    const size_t from = i - (n - t.width); /* wraps for i < n - L */
    mask[i] = (int8_t)(i >= n - t.width && i < n ? (int8_t)from : -1);
    unmask[i] = (int8_t)(i < t.width ? (int8_t)(i + n - t.width) : -1);
  }
  t.shift = _mm_loadu_si128((const __m128i*)mask);
  t.unshift = _mm_loadu_si128((const __m128i*)unmask);
  return t;
}

QWINO_INLINE void store_width(uint8_t* p, __m128i x, size_t width) {
  switch (width) {
    case 8:
      _mm_storel_epi64((__m128i*)p, x);
      break;
    case 4: {
      const int32_t v = _mm_cvtsi128_si32(x);
      memcpy(p, &v, sizeof(v));
      break;
    }
    case 2: {
      const uint16_t v = (uint16_t)_mm_cvtsi128_si32(x);
      memcpy(p, &v, sizeof(v));
      break;
    }
    default:
      *p = (uint8_t)_mm_cvtsi128_si32(x);
  }
}

/* Bytes 0..n-1 of x to p, exactly: L bytes at p and at p + n - L (the overlap gets the same
 * bytes twice). */
QWINO_INLINE void store_partial(uint8_t* p, __m128i x, const struct partial* t) {
  store_width(p, x, t->width);
  if (t->n != t->width) {
    store_width(p + t->n - t->width, _mm_shuffle_epi8(x, t->unshift), t->width);
  }
}

QWINO_INLINE __m128i load_partial(const uint8_t* p, const struct partial* t) {
  const __m128i x = qwino_x86_load_bytes(p, t->width);
  if (t->n == t->width) {
    return x;
  }
  return _mm_or_si128(
      x, _mm_shuffle_epi8(qwino_x86_load_bytes(p + t->n - t->width, t->width), t->shift));
}

/* Bytes at p + offset of pixel px's and px + 1's pointer (one per lane), XORed with flipv (zero
 * for a_sign 0x80: this path is not specialised on it): 16 in place, or the first `tail` through
 * load_partial. */
QWINO_INLINE __m256i load16x2(const uint8_t* p0, const uint8_t* p1, size_t offset,
                              const struct partial* part, size_t tail, __m256i flipv) {
  if (tail == 0) {
    return load_x16x2(p0 + offset, p1 + offset, flipv, 1);
  }
  const __m256i x = _mm256_inserti128_si256(_mm256_castsi128_si256(load_partial(p0 + offset, part)),
                                            load_partial(p1 + offset, part), 1);
  return _mm256_xor_si256(x, flipv);
}

/* Tap pairs [first, ceil(taps / 2)) of pixels px and px + 1 (px again past the last pixel). */
QWINO_INLINE void pair_pixels16(__m256i acc[4], const uint8_t* const* input, size_t px,
                                size_t pixels, size_t input_pixel_step, size_t first, size_t taps,
                                size_t offset, const int16_t* w, size_t wstride,
                                const struct partial* part, size_t tail, __m256i flipv) {
  const uint8_t* const* r0 = input + px * input_pixel_step;
  const uint8_t* const* r1 = input + (px + 1 < pixels ? px + 1 : px) * input_pixel_step;
  for (size_t t = first * 2; t < taps; t += 2) {
    const size_t t1 = t + 1 < taps ? t + 1 : t; /* an odd last tap pairs with itself */
    const int16_t* wj = w + (t / 2) * wstride;
    madd_pair(acc, load16x2(r0[t], r1[t], offset, part, tail, flipv),
              load16x2(r0[t1], r1[t1], offset, part, tail, flipv), bcast(wj), bcast(wj + 8),
              bcast(wj + 16), bcast(wj + 24));
  }
}

/* Pixel px's bytes (low lane) and px + 1's (high lane; stored first, and not at all past the last
 * pixel, where it is px's again): 16, or the first `tail`. */
QWINO_INLINE void store16x2(__m256i bytes, uint8_t* out, size_t px, size_t pixels,
                            size_t output_pixel_stride, const struct partial* part, size_t tail) {
  uint8_t* o0 = out + px * output_pixel_stride;
  uint8_t* o1 = out + (px + 1 < pixels ? px + 1 : px) * output_pixel_stride;
  if (tail != 0) {
    store_partial(o1, _mm256_extracti128_si256(bytes, 1), part);
    store_partial(o0, _mm256_castsi256_si128(bytes), part);
  } else {
    _mm_storeu_si128((__m128i*)o1, _mm256_extracti128_si256(bytes, 1));
    _mm_storeu_si128((__m128i*)o0, _mm256_castsi256_si128(bytes));
  }
}

/* 16 channels of every pixel. w: the channels' first weight pair (pairs wstride int16 apart);
 * p: their per-channel values (arrays `stride` apart); tail: 0 for 16 channels read in place,
 * else the first 1..15 channels, read exactly (load_partial). */
QWINO_INLINE void block16(size_t pixels, size_t taps, const uint8_t* const* input,
                          size_t input_pixel_step, size_t offset, const int16_t* w, size_t wstride,
                          const int32_t* p, size_t stride,
                          const struct qwino_avx2_requantization* q, uint8_t* out,
                          size_t output_pixel_stride, int form, int is_signed, __m256i flipv,
                          size_t tail) {
  const size_t pairs = (taps + 1) / 2;
  /* Channels 4k..4k+3 in both lanes. */
  __m256i v[QWINO_MAX_CHANNEL_ARRAYS][4];
  memset(v, 0, sizeof(v));
  int32_t staged[QWINO_MAX_CHANNEL_ARRAYS][16];
  if (tail != 0) {
    memset(staged, 0, sizeof(staged));
    for (int i = 0; i < QWINO_MAX_CHANNEL_ARRAYS; i++) {
      if (array_used(i, form)) {
        memcpy(staged[i], p + i * stride, tail * sizeof(int32_t));
      }
    }
    p = &staged[0][0];
    stride = 16;
  }
  for (int i = 0; i < QWINO_MAX_CHANNEL_ARRAYS; i++) {
    if (array_used(i, form)) {
      for (int k = 0; k < 4; k++) {
        v[i][k] = bcast(p + i * stride + 4 * k);
      }
    }
  }
  {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i s[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                    _mm256_setzero_si256()};
    for (size_t j = 0; j < pairs; j++) {
      for (int k = 0; k < 4; k++) {
        s[k] = _mm256_add_epi32(s[k], _mm256_madd_epi16(bcast(w + j * wstride + 8 * k), ones));
      }
    }
    for (int k = 0; k < 4; k++) {
      v[0][k] = corrected_bias(v[0][k], s[k]);
    }
  }
  struct qwino_avx2_channels ch[4];
  prepare_channels(v, q, form, ch);
  const struct partial part = partial_init(tail != 0 ? tail : 1);
  /* Software pipelined as block32, two pixels a step. */
  const size_t lead = taps / 2 < 4 ? taps / 2 : 4;
  __m256i acc[4] = {ch[0].bias, ch[1].bias, ch[2].bias, ch[3].bias};
  for (size_t px = 0; px < pixels + 2; px += 2) {
    const __m256i prev[4] = {acc[0], acc[1], acc[2], acc[3]};
    const int accumulate = px < pixels;
    const size_t px0 = accumulate ? px : 0, px1 = px0 + 1 < pixels ? px0 + 1 : px0;
    const uint8_t* const* r0 = input + px0 * input_pixel_step;
    const uint8_t* const* r1 = input + px1 * input_pixel_step;
    __m256i v[4];
    for (int k = 0; k < 4; k++) {
      acc[k] = ch[k].bias;
    }
    for (size_t k = 0; k < 4; k++) {
      if (accumulate && k < lead) {
        const int16_t* wj = w + k * wstride;
        madd_pair(acc, load16x2(r0[2 * k], r1[2 * k], offset, &part, tail, flipv),
                  load16x2(r0[2 * k + 1], r1[2 * k + 1], offset, &part, tail, flipv), bcast(wj),
                  bcast(wj + 8), bcast(wj + 16), bcast(wj + 24));
      }
      v[k] = requantize(prev[k], &ch[k], q, form);
    }
    if (accumulate) {
      pair_pixels16(acc, input, px, pixels, input_pixel_step, lead, taps, offset, w, wstride, &part,
                    tail, flipv);
    }
    if (px != 0) {
      store16x2(narrow_in_lanes(v[0], v[1], v[2], v[3], q, form, is_signed), out, px - 2, pixels,
                output_pixel_stride, &part, tail);
    }
  }
}

/* The last 1..8 channels (n) of every pixel, in natural order: 8 channels per ymm of int32 as the
 * pre-CR-32 kernel took them (the tap pair's bytes interleaved in an xmm and zero-extended with
 * VPMOVZXBW, the 8 weight pairs one load), 4 pixels a step so that one narrowing (VPERMD back to
 * pixel order) serves them; a block16 lane would hold 8 of 16 useful channels. Read exactly as
 * block16's tail (load_partial), per-channel values staged. */
QWINO_INLINE void block8(size_t pixels, size_t taps, const uint8_t* const* input,
                         size_t input_pixel_step, size_t offset, const int16_t* w, size_t wstride,
                         const int32_t* p, size_t stride, const struct qwino_avx2_requantization* q,
                         uint8_t* out, size_t output_pixel_stride, int form, int is_signed,
                         __m256i flipv, size_t n) {
  int32_t staged[QWINO_MAX_CHANNEL_ARRAYS][8];
  memset(staged, 0, sizeof(staged));
  for (int i = 0; i < QWINO_MAX_CHANNEL_ARRAYS; i++) {
    if (array_used(i, form)) {
      memcpy(staged[i], p + i * stride, n * sizeof(int32_t));
    }
  }
  struct qwino_avx2_channels ch = qwino_avx2_load_channels(&staged[0][0], 8, q, form);
  {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i sum = _mm256_setzero_si256();
    for (size_t t = 0; t < taps; t += 2) {
      sum = _mm256_add_epi32(
          sum,
          _mm256_madd_epi16(_mm256_loadu_si256((const __m256i*)(w + (t / 2) * wstride)), ones));
    }
    ch.bias = corrected_bias(ch.bias, sum);
  }
  const struct partial part = partial_init(n);
  const __m128i flip128 = _mm256_castsi256_si128(flipv);
  for (size_t px = 0; px < pixels; px += 4) {
    const uint8_t* const* r[4];
    for (size_t i = 0; i < 4; i++) {
      r[i] = input + (px + i < pixels ? px + i : pixels - 1) * input_pixel_step;
    }
    __m256i acc[4] = {ch.bias, ch.bias, ch.bias, ch.bias};
    for (size_t t = 0; t < taps; t += 2) {
      const size_t t1 = t + 1 < taps ? t + 1 : t; /* an odd last tap pairs with itself */
      const __m256i wj = _mm256_loadu_si256((const __m256i*)(w + (t / 2) * wstride));
#pragma GCC unroll 4
      for (int i = 0; i < 4; i++) {
        const __m128i x = _mm_xor_si128(_mm_unpacklo_epi8(load_partial(r[i][t] + offset, &part),
                                                          load_partial(r[i][t1] + offset, &part)),
                                        flip128);
        QWINO_S8_DWCONV_AVX2_MAC(acc[i], _mm256_cvtepu8_epi16(x), wj);
      }
    }
    __m256i v[4];
    for (int i = 0; i < 4; i++) {
      v[i] = requantize(acc[i], &ch, q, form);
    }
    /* pixel i's 8 channels at bytes 8 i */
    const __m256i bytes = _mm256_permutevar8x32_epi32(
        narrow_in_lanes(v[0], v[1], v[2], v[3], q, form, is_signed), q->pixel_order);
    const __m128i b01 = _mm256_castsi256_si128(bytes), b23 = _mm256_extracti128_si256(bytes, 1);
    const __m128i b[4] = {b01, _mm_unpackhi_epi64(b01, b01), b23, _mm_unpackhi_epi64(b23, b23)};
    for (size_t i = 0; i < 4 && px + i < pixels; i++) {
      store_partial(out + (px + i) * output_pixel_stride, b[i], &part);
    }
  }
}

/* The fallback paths out of line, once per form (the output type a runtime argument, the XOR
 * with flipv unconditional): they are not worth a copy in every body of the kernel. */
#define QWINO_BLOCK16_INSTANCE(form)                                                        \
  QWINO_OUT_OF_LINE void block16_##form(                                                    \
      size_t pixels, size_t taps, const uint8_t* const* input, size_t input_pixel_step,     \
      size_t offset, const int16_t* w, size_t wstride, const int32_t* p, size_t stride,     \
      const struct qwino_avx2_requantization* q, uint8_t* out, size_t output_pixel_stride,  \
      int is_signed, __m256i flipv, size_t tail) {                                          \
    if (tail == 0) { /* the 16-channel blocks in place, specialised */                      \
      block16(pixels, taps, input, input_pixel_step, offset, w, wstride, p, stride, q, out, \
              output_pixel_stride, form, is_signed, flipv, 0);                              \
    } else if (tail <= 8) {                                                                 \
      block8(pixels, taps, input, input_pixel_step, offset, w, wstride, p, stride, q, out,  \
             output_pixel_stride, form, is_signed, flipv, tail);                            \
    } else {                                                                                \
      block16(pixels, taps, input, input_pixel_step, offset, w, wstride, p, stride, q, out, \
              output_pixel_stride, form, is_signed, flipv, tail);                           \
    }                                                                                       \
  }
QWINO_BLOCK16_INSTANCE(qwino_x86_gemmlowp_positive_shift)
QWINO_BLOCK16_INSTANCE(qwino_x86_gemmlowp_left_shift)
QWINO_BLOCK16_INSTANCE(qwino_x86_fp32)

#define QWINO_BLOCK16_CASE(form)                                                                 \
  case form:                                                                                     \
    block16_##form(pixels, taps, input, input_pixel_step, offset, w, wstride, p, stride, q, out, \
                   output_pixel_stride, is_signed, flipv, tail);                                 \
    break;

/* The instance of block16 for the (constant) form. */
QWINO_INLINE void call_block16(size_t pixels, size_t taps, const uint8_t* const* input,
                               size_t input_pixel_step, size_t offset, const int16_t* w,
                               size_t wstride, const int32_t* p, size_t stride,
                               const struct qwino_avx2_requantization* q, uint8_t* out,
                               size_t output_pixel_stride, int form, int is_signed, __m256i flipv,
                               size_t tail) {
  switch (form) {
    QWINO_BLOCK16_CASE(qwino_x86_gemmlowp_positive_shift)
    QWINO_BLOCK16_CASE(qwino_x86_gemmlowp_left_shift)
    QWINO_BLOCK16_CASE(qwino_x86_fp32)
  }
}

/* The weight pairs of `count` channels from channel c0 on, which may straddle two packed blocks
 * (block_elements int16 apart), `pairs` pairs: into dst, count * 2 int16 per pair. */
static inline void gather_pairs(const int16_t* weights, size_t block_elements, size_t c0,
                                size_t count, size_t pairs, int16_t* dst) {
  const size_t first = c0 % CR;
  const size_t n0 = CR - first < count ? CR - first : count; /* in c0's block */
  for (size_t j = 0; j < pairs; j++) {
    const int16_t* wj = weights + (c0 / CR) * block_elements + j * CR * 2;
    memcpy(dst + j * count * 2, wj + first * 2, n0 * 2 * sizeof(int16_t));
    memcpy(dst + j * count * 2 + n0 * 2, wj + block_elements, (count - n0) * 2 * sizeof(int16_t));
  }
}

/* Channels c..c+31's weights (`pairs` pairs) in lane order into wbuf, and weight_sum[k] = the
 * sum over the taps of vector k's weights per channel (VPMADDWD by 1: B_t + B_t+1). Out of line:
 * the same for every form. */
QWINO_OUT_OF_LINE void lane_order_weights(const int16_t* weights, size_t block_elements, size_t c,
                                          size_t pairs, __m256i* wbuf, __m256i weight_sum[4]) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i s[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                  _mm256_setzero_si256()};
  for (size_t j = 0; j < pairs; j++) {
    __m256i w[4];
    if (c % CR == 0) {
      load_lane_order(weights + (c / CR) * block_elements + j * CR * 2, w);
    } else {
      int16_t gathered[CR * 2];
      gather_pairs(weights + j * CR * 2, block_elements, c, CR, 1, gathered);
      load_lane_order(gathered, w);
    }
    for (int k = 0; k < 4; k++) {
      s[k] = _mm256_add_epi32(s[k], _mm256_madd_epi16(w[k], ones));
      _mm256_store_si256(&wbuf[j * 4 + k], w[k]);
    }
  }
  for (int k = 0; k < 4; k++) {
    weight_sum[k] = s[k];
  }
}

/* --- the kernel ---------------------------------------------------------------------------- */

QWINO_INLINE void dwconv(size_t channels, size_t pixels, size_t taps, const uint8_t* const* input,
                         size_t input_pixel_step, size_t input_offset, uint8_t a_sign,
                         const void* packed_weights, const int32_t* channel_params, uint8_t* output,
                         size_t output_pixel_stride,
                         const union qwino_qu8_requantization_params* params, int form,
                         int is_signed, int flip) {
  struct qwino_avx2_requantization q = qwino_avx2_requantization_init(params, form, is_signed);
  if (form == qwino_x86_gemmlowp_positive_shift) {
    /* K = 1 + 2z with the zero point the header put there (the view's by XOR). */
    q.zero_point16 =
        _mm256_add_epi16(_mm256_add_epi16(q.zero_point16, q.zero_point16), _mm256_set1_epi16(1));
  }
  const size_t stride = q.channel_stride;
  const __m256i flipv = _mm256_set1_epi8((char)(a_sign ^ 0x80));
  const size_t pairs = (taps + 1) / 2;
  const size_t block_elements = pairs * CR * 2; /* int16 per packed block */
  const int16_t* weights = (const int16_t*)packed_weights;
  if (channels < CR || pairs > MAX_PAIRS) {
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
      call_block16(pixels, taps, input, input_pixel_step, input_offset + c,
                   weights + (c / CR) * block_elements + (c % CR) * 2, CR * 2, channel_params + c,
                   stride, &q, output + c, output_pixel_stride, form, is_signed, flipv, 0);
    }
    if (c < channels) {
      size_t tail = channels - c;
      if (channels >= 16 && (channels - 16) / CR == (channels - 1) / CR) {
        /* the last 16 channels (in one packed block), overlapping the previous ones */
        c = channels - 16;
        tail = 0;
      }
      call_block16(pixels, taps, input, input_pixel_step, input_offset + c,
                   weights + (c / CR) * block_elements + (c % CR) * 2, CR * 2, channel_params + c,
                   stride, &q, output + c, output_pixel_stride, form, is_signed, flipv, tail);
    }
    return;
  }
  __m256i wbuf[MAX_PAIRS * 4];
  const size_t rest = channels % CR;
  size_t end = channels; /* channels [0, end) in 32-channel blocks */
  if (rest != 0 && rest <= 16) {
    /* The last 16 channels as two pixels per register, cheaper than an overlapping 32-channel
     * block; their weights straddle two packed blocks unless rest == 16. */
    end = channels - rest;
    const size_t c = channels - 16;
    const int16_t* w = weights + (c / CR) * block_elements + (c % CR) * 2;
    size_t wstride = CR * 2;
    int16_t staged[MAX_PAIRS * 16 * 2];
    if (rest != 16) {
      gather_pairs(weights, block_elements, c, 16, pairs, staged);
      w = staged;
      wstride = 16 * 2;
    }
    call_block16(pixels, taps, input, input_pixel_step, input_offset + c, w, wstride,
                 channel_params + c, stride, &q, output + c, output_pixel_stride, form, is_signed,
                 flipv, 0);
  }
  for (size_t c = 0; c < end; c += CR) {
    if (c + CR > end) {
      c = end - CR; /* the last 32 channels, overlapping the previous block */
    }
    __m256i s[4];
    lane_order_weights(weights, block_elements, c, pairs, wbuf, s);
    struct qwino_avx2_channels ch[4];
    load_channels32(channel_params + c, stride, s, &q, form, ch);
    block32(pixels, taps, input, input_pixel_step, input_offset + c, wbuf, ch, &q, output + c,
            output_pixel_stride, form, is_signed, flipv, flip);
  }
}

/* The XOR-free body for uint8 activations only in the common forms (the others XOR with
 * flipv, zero for a_sign 0x80). */
#define QWINO_DWCONV_BODY(form, is_signed)                                                         \
  do {                                                                                             \
    if (a_sign == 0x80 && (form == qwino_x86_gemmlowp_positive_shift || form == qwino_x86_fp32)) { \
      dwconv(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,                \
             packed_weights, channel_params, output, output_pixel_stride, params, form, is_signed, \
             0);                                                                                   \
    } else {                                                                                       \
      dwconv(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,                \
             packed_weights, channel_params, output, output_pixel_stride, params, form, is_signed, \
             1);                                                                                   \
    }                                                                                              \
  } while (0)
/* The entry point `name` of the kernel in `mode` (gemmlowp or fp32). */
#define QWINO_S8_DWCONV_AVX2_ENTRY(name, mode)                                                 \
  void name(size_t channels, size_t pixels, size_t taps, const uint8_t* const* input,          \
            size_t input_pixel_step, size_t input_offset, uint8_t a_sign,                      \
            const void* packed_weights, const int32_t* channel_params, uint8_t* output,        \
            size_t output_pixel_stride, const union qwino_qu8_requantization_params* params) { \
    QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR(mode, params, QWINO_DWCONV_BODY);            \
  }

#endif /* QWINO_S8_DWCONV_AVX2_H_ */
