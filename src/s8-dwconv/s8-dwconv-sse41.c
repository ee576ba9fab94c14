/*
 * Depthwise convolution with fused requantization, SSE4.1, int16_tap_pairs weights (CR = 8):
 * bit-exact twin of qwino_s8_dwconv_*_ukernel_up8__scalar_madd (src/s8-dwconv/s8-dwconv-scalar.c)
 * for every input byte, a_sign, int16 weight, bias and the requantization parameters
 * src/qwino/requantization-sse41.h takes, for x86-64 CPUs without AVX2.
 *
 * Arithmetic (as in the AVX2 kernel, src/s8-dwconv/s8-dwconv-avx2.c). A = (int8) (byte ^ a_sign)
 * = x - 128 with x = byte ^ a_sign ^ 0x80 in [0, 255], so
 *   bias + sum_t A_t B_t = (bias - 128 sum_t B_t) + sum_t x_t B_t   (mod 2^32):
 * the accumulators start at the corrected bias (once per channel block and call, from the
 * weights: PMADDWD by 1 gives B_t + B_t+1 per channel) and multiply the zero-extended x, which
 * for uint8 activations (a_sign 0x80) is the byte itself (the body is specialised on the XOR).
 * Per tap pair (t, t + 1) and pixel: 8 bytes at each pointer, PUNPCKLBW of the two (channel c's
 * (t, t + 1) bytes next to each other), and PUNPCKL/HBW with zero for the int16 pairs of
 * channels 0-3 and 4-7, so that one PMADDWD with the pair's packed weights (channel c's (B_t,
 * B_t+1) int16 pair at ((j * 8 + c) * 2), 2 xmm per pair, loaded once for the 4 pixels) forms
 * x_t B_t + x_t+1 B_t+1 per channel. Exact: |x B| <= 255 * 32768, so a pair sum fits int32 for
 * every int16 weight; PADDD wraps modulo 2^32 like the scalar twin's unsigned sum. No PMADDUBSW:
 * it saturates to int16. An odd last tap pairs with itself: its partner weight is 0 in the
 * layout, so no pointer past `taps` is read.
 *
 * The SSE4.1 requantization works on blocks of 4 pixels x 4 channels (its gemmlowp right shifts
 * need the 4 pixels of one channel in one vector, see its comment), so the loops run over blocks
 * of 8 channels outside (per-channel values and the corrected bias prepared once per call) and
 * groups of 4 output pixels inside: 8 xmm of int32 accumulators (4 pixels x channels 0-3, 4-7).
 * Why CR = 8 and not 16: 4 pixels x 16 channels would need 16 accumulators, all of SSE's
 * registers, and spill in the tap loop.
 *
 * A last group of 1..3 pixels repeats the last real pixel's pointers in place of the missing
 * ones (reads stay on pointers the call names); their bytes are the last real pixel's, stored
 * again at its place. A last partial block (channels % 8 != 0) is computed as the block of the
 * last 8 channels, overlapping the previous one (those channels get the same bytes twice), with
 * its weights gathered from the two packed blocks they lie in into a stack buffer. With fewer
 * than 8 channels (or more than 2 * MAX_PAIRS taps for that buffer) the last 1..7 channels are
 * read exactly (the largest power of two of bytes at the start and at the end of the range,
 * overlapping, PSHUFB-merged), their per-channel values through staged arrays, and only those
 * bytes are stored; that block's code is out of line, once per form, and XORs with flipv (zero
 * for a_sign 0x80) instead of having a copy per XOR variant. So exactly `channels` bytes are read
 * at each pointer + input_offset and written per output pixel.
 */
#include <smmintrin.h>
#include <string.h>

#include "qwino/requantization-sse41.h"
#include "qwino/x86-partial-loads.h"
#include "qwino/ukernels.h"

#define CR 8
/* Tap pairs the stack buffer of an overlapping last block holds: 128 taps, 2 KiB. */
#define MAX_PAIRS 64

/* Exactly n (1..7) bytes at p, zero-extended to 8: the largest power of two L <= n bytes at p and
 * at p + n - L (they overlap where n < 2L, with the same bytes), the second moved to bytes
 * n - L.. by `shift` (a PSHUFB mask built once per call). */
struct partial {
  size_t n, width;
  __m128i shift;
};

static inline struct partial partial_init(size_t n) {
  struct partial t;
  t.n = n;
  t.width = n >= 4 ? 4 : n >= 2 ? 2 : 1;
  int8_t mask[16];
  for (size_t i = 0; i < 16; i++) {
    const size_t from = i - (n - t.width); /* wraps for i < n - L */
    mask[i] = (int8_t)(i >= n - t.width && i < n ? (int8_t)from : -1);
  }
  t.shift = _mm_loadu_si128((const __m128i*)mask);
  return t;
}

/* 8 bytes at p, or exactly t->n of them (t != NULL). */
QWINO_SSE41_INLINE __m128i load8(const uint8_t* p, const struct partial* t) {
  if (t == NULL) {
    return _mm_loadl_epi64((const __m128i*)p);
  }
  return _mm_or_si128(
      qwino_x86_load_bytes(p, t->width),
      _mm_shuffle_epi8(qwino_x86_load_bytes(p + t->n - t->width, t->width), t->shift));
}

/* Accumulates all taps of 4 pixels (pointer rows r[i]) x 8 channels at byte `offset` of each
 * pointer into acc[i][0..1]. w: the block's first pair at the 8 channels, pairs `wstride` int16
 * apart; part: NULL, or the exact loads of a block of fewer than 8 channels. */
QWINO_SSE41_INLINE void accumulate(__m128i acc[4][2], const uint8_t* const* const r[4], size_t taps,
                                   size_t offset, const int16_t* w, size_t wstride, __m128i flipv,
                                   int flip, const struct partial* part) {
  const __m128i zero = _mm_setzero_si128();
  for (size_t t = 0; t < taps; t += 2, w += wstride) {
    const size_t t1 = t + 1 < taps ? t + 1 : t; /* an odd last tap pairs with itself */
    const __m128i w0 = _mm_loadu_si128((const __m128i*)w);
    const __m128i w1 = _mm_loadu_si128((const __m128i*)(w + 8));
    for (int i = 0; i < 4; i++) {
      __m128i x = _mm_unpacklo_epi8(load8(r[i][t] + offset, part), load8(r[i][t1] + offset, part));
      if (flip) {
        x = _mm_xor_si128(x, flipv);
      }
      acc[i][0] = _mm_add_epi32(acc[i][0], _mm_madd_epi16(_mm_unpacklo_epi8(x, zero), w0));
      acc[i][1] = _mm_add_epi32(acc[i][1], _mm_madd_epi16(_mm_unpackhi_epi8(x, zero), w1));
    }
  }
}

/* 8 channels (the first `tail` of them with part != NULL) of every pixel: w their first weight
 * pair (pairs wstride int16 apart), p their per-channel values (arrays `stride` apart). */
QWINO_SSE41_INLINE void block8(size_t pixels, size_t taps, const uint8_t* const* input,
                               size_t input_pixel_step, size_t offset, const int16_t* w,
                               size_t wstride, const int32_t* p, size_t stride,
                               const struct qwino_sse41_requantization* q, uint8_t* output,
                               size_t output_pixel_stride, enum qwino_sse41_form form,
                               __m128i flipv, int flip, const struct partial* part) {
  const enum qwino_requantization_mode mode = QWINO_SSE41_MODE(form);
  int32_t values[QWINO_MAX_CHANNEL_ARRAYS][CR];
  if (part != NULL) {
    memset(values, 0, sizeof(values));
    const size_t arrays = qwino_sse41_channel_arrays(mode);
    for (size_t i = 0; i < arrays; i++) {
      memcpy(values[i], p + i * stride, part->n * sizeof(int32_t));
    }
    p = values[0];
    stride = CR;
  }
  struct qwino_sse41_channels k0 = qwino_sse41_load_channels(p, stride, form);
  struct qwino_sse41_channels k1 = qwino_sse41_load_channels(p + 4, stride, form);
  {
    const __m128i ones = _mm_set1_epi16(1);
    __m128i s0 = _mm_setzero_si128(), s1 = _mm_setzero_si128();
    for (size_t t = 0; t < taps; t += 2) {
      const int16_t* wj = w + (t / 2) * wstride;
      s0 = _mm_add_epi32(s0, _mm_madd_epi16(_mm_loadu_si128((const __m128i*)wj), ones));
      s1 = _mm_add_epi32(s1, _mm_madd_epi16(_mm_loadu_si128((const __m128i*)(wj + 8)), ones));
    }
    k0.bias = _mm_sub_epi32(k0.bias, _mm_slli_epi32(s0, 7));
    k1.bias = _mm_sub_epi32(k1.bias, _mm_slli_epi32(s1, 7));
  }
  for (size_t px = 0; px < pixels; px += 4) {
    const size_t count = pixels - px < 4 ? pixels - px : 4;
    const uint8_t* const* r[4];
    uint8_t* o[4];
    for (size_t i = 0; i < 4; i++) {
      const size_t pixel = px + (i < count ? i : count - 1);
      r[i] = input + pixel * input_pixel_step;
      o[i] = output + pixel * output_pixel_stride;
    }
    __m128i acc[4][2];
    for (int i = 0; i < 4; i++) {
      acc[i][0] = k0.bias;
      acc[i][1] = k1.bias;
    }
    accumulate(acc, r, taps, offset, w, wstride, flipv, flip, part);
    const __m128i b0 =
        qwino_sse41_requantize_4x4(acc[0][0], acc[1][0], acc[2][0], acc[3][0], &k0, q, form);
    const __m128i b1 =
        qwino_sse41_requantize_4x4(acc[0][1], acc[1][1], acc[2][1], acc[3][1], &k1, q, form);
    /* Dword i of b0 / b1 is pixel i's channels 0-3 / 4-7. */
    const __m128i p01 = _mm_unpacklo_epi32(b0, b1);
    const __m128i p23 = _mm_unpackhi_epi32(b0, b1);
    if (part != NULL) {
      uint8_t bytes[4][CR]; /* [pixel][channel] */
      _mm_storeu_si128((__m128i*)bytes[0], p01);
      _mm_storeu_si128((__m128i*)bytes[2], p23);
      for (size_t i = 0; i < count; i++) {
        memcpy(o[i], bytes[i], part->n);
      }
    } else {
      /* last pixel first: a repeated pixel stores its bytes again at its own place */
      _mm_storel_epi64((__m128i*)o[3], _mm_unpackhi_epi64(p23, p23));
      _mm_storel_epi64((__m128i*)o[2], p23);
      _mm_storel_epi64((__m128i*)o[1], _mm_unpackhi_epi64(p01, p01));
      _mm_storel_epi64((__m128i*)o[0], p01);
    }
  }
}

/* The exact-length block of the last 1..7 channels (fewer than 8 in the call, or too many taps for
 * the stack buffer of an overlapping block): out of line, once per form, XORing with flipv (zero
 * for a_sign 0x80) instead of a copy per XOR variant. */
#if defined(__clang__)
#define QWINO_OUT_OF_LINE static __attribute__((noinline))
#else
#define QWINO_OUT_OF_LINE static __attribute__((noinline, noclone))
#endif
#define QWINO_TAIL_INSTANCE(form)                                                                 \
  QWINO_OUT_OF_LINE void tail_##form(size_t pixels, size_t taps, const uint8_t* const* input,     \
                                     size_t input_pixel_step, size_t offset, const int16_t* w,    \
                                     const int32_t* p, size_t stride,                             \
                                     const struct qwino_sse41_requantization* q, uint8_t* output, \
                                     size_t output_pixel_stride, __m128i flipv, size_t tail) {    \
    const struct partial part = partial_init(tail);                                               \
    block8(pixels, taps, input, input_pixel_step, offset, w, CR * 2, p, stride, q, output,        \
           output_pixel_stride, form, flipv, 1, &part);                                           \
  }
QWINO_TAIL_INSTANCE(qwino_sse41_gemmlowp_shortcut_unsigned)
QWINO_TAIL_INSTANCE(qwino_sse41_gemmlowp_shortcut)
QWINO_TAIL_INSTANCE(qwino_sse41_gemmlowp_general_left_shift)
QWINO_TAIL_INSTANCE(qwino_sse41_fp32_unsigned)
QWINO_TAIL_INSTANCE(qwino_sse41_fp32)

#define QWINO_TAIL_CASE(form)                                                           \
  case form:                                                                            \
    tail_##form(pixels, taps, input, input_pixel_step, offset, w, p, stride, q, output, \
                output_pixel_stride, flipv, tail);                                      \
    break;

QWINO_SSE41_INLINE void call_tail(size_t pixels, size_t taps, const uint8_t* const* input,
                                  size_t input_pixel_step, size_t offset, const int16_t* w,
                                  const int32_t* p, size_t stride,
                                  const struct qwino_sse41_requantization* q, uint8_t* output,
                                  size_t output_pixel_stride, enum qwino_sse41_form form,
                                  __m128i flipv, size_t tail) {
  switch (form) {
    QWINO_TAIL_CASE(qwino_sse41_gemmlowp_shortcut_unsigned)
    QWINO_TAIL_CASE(qwino_sse41_gemmlowp_shortcut)
    QWINO_TAIL_CASE(qwino_sse41_gemmlowp_general_left_shift)
    QWINO_TAIL_CASE(qwino_sse41_fp32_unsigned)
    QWINO_TAIL_CASE(qwino_sse41_fp32)
  }
}

QWINO_SSE41_INLINE void dwconv(size_t channels, size_t pixels, size_t taps,
                               const uint8_t* const* input, size_t input_pixel_step,
                               size_t input_offset, uint8_t a_sign, const void* packed_weights,
                               const int32_t* channel_params, uint8_t* output,
                               size_t output_pixel_stride,
                               const union qwino_qu8_requantization_params* params,
                               enum qwino_sse41_form form, int flip) {
  const enum qwino_requantization_mode mode = QWINO_SSE41_MODE(form);
  const struct qwino_sse41_requantization q = qwino_sse41_requantization_init(params, mode);
  const size_t stride = qwino_sse41_channel_stride(params, mode);
  const __m128i flipv = _mm_set1_epi8((char)(a_sign ^ 0x80));
  const size_t pairs = (taps + 1) / 2;
  const size_t block_elements = pairs * CR * 2; /* int16 per block */
  const int16_t* weights = (const int16_t*)packed_weights;
  const size_t rest = channels % CR;
  if (rest != 0 && (channels < CR || pairs > MAX_PAIRS)) {
    const size_t c = channels - rest;
    call_tail(pixels, taps, input, input_pixel_step, input_offset + c,
              weights + (c / CR) * block_elements, channel_params + c, stride, &q, output + c,
              output_pixel_stride, form, flipv, rest);
    channels -= rest;
  }
  int16_t gathered[MAX_PAIRS * CR * 2];
  for (size_t c = 0; c < channels; c += CR) {
    const int16_t* w = weights + (c / CR) * block_elements;
    if (c + CR > channels) {
      /* The last 8 channels, overlapping the previous block: block c / CR's from `first` on,
       * then block c / CR + 1's first ones. */
      c = channels - CR;
      const size_t first = c % CR;
      for (size_t j = 0; j < pairs; j++) {
        const int16_t* wj = weights + (c / CR) * block_elements + j * CR * 2;
        memcpy(gathered + j * CR * 2, wj + first * 2, (CR - first) * 2 * sizeof(int16_t));
        memcpy(gathered + j * CR * 2 + (CR - first) * 2, wj + block_elements,
               first * 2 * sizeof(int16_t));
      }
      w = gathered;
    }
    block8(pixels, taps, input, input_pixel_step, input_offset + c, w, CR * 2, channel_params + c,
           stride, &q, output + c, output_pixel_stride, form, flipv, flip, NULL);
  }
}

/* One entry per mode; QWINO_SSE41_DISPATCH instantiates the body once per form of the mode, each
 * with and without the XOR (a_sign != 0x80). */
#define QWINO_DWCONV_CALL(form)                                                             \
  do {                                                                                      \
    if (a_sign == 0x80) {                                                                   \
      dwconv(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,         \
             packed_weights, channel_params, output, output_pixel_stride, params, form, 0); \
    } else {                                                                                \
      dwconv(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,         \
             packed_weights, channel_params, output, output_pixel_stride, params, form, 1); \
    }                                                                                       \
  } while (0)
#define QWINO_DWCONV_ENTRY(mode)                                                                \
  void qwino_s8_dwconv_##mode##_ukernel_up8__sse41_madd(                                        \
      size_t channels, size_t pixels, size_t taps, const uint8_t* const* input,                 \
      size_t input_pixel_step, size_t input_offset, uint8_t a_sign, const void* packed_weights, \
      const int32_t* channel_params, uint8_t* output, size_t output_pixel_stride,               \
      const union qwino_qu8_requantization_params* params) {                                    \
    QWINO_SSE41_DISPATCH(qwino_requantization_##mode, params, QWINO_DWCONV_CALL);               \
  }
QWINO_DWCONV_ENTRY(gemmlowp)
QWINO_DWCONV_ENTRY(fp32)
