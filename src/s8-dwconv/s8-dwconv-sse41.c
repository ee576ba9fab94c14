/*
 * Depthwise convolution with fused requantization, SSE4.1, int16_tap_pairs weights (CR = 8):
 * bit-exact twin of qwino_s8_dwconv_*_ukernel_up8__scalar_madd (src/s8-dwconv/s8-dwconv-scalar.c)
 * for every input byte, a_sign, weight in [-255, 255], bias and the requantization parameters
 * src/qwino/requantization-sse41.h takes, for x86-64 CPUs without AVX2.
 *
 * The SSE4.1 requantization works on blocks of 4 pixels x 4 channels (its gemmlowp right shifts
 * need the 4 pixels of one channel in one vector, see its comment), so the loops run over groups
 * of 4 output pixels outside and blocks of 8 channels inside: 8 xmm of int32 accumulators (4
 * pixels x channels 0-3, 4-7), started at the bias; the taps go in pairs (t, t + 1): 8 input
 * bytes at each of the two pointers of a pixel, interleaved byte by byte (PUNPCKLBW: channel c's
 * (t, t + 1) bytes next to each other), XORed with a_sign (left out when a_sign is 0: the body is
 * specialised on it; the XOR commutes with the interleaving) and sign-extended to int16
 * (PMOVSXBW for channels 0-3, PUNPCKHBW + PSRAW 8 for 4-7), so that one PMADDWD with the pair's
 * packed weights (channel c's (B_t, B_t+1) int16 pair at ((j * 8 + c) * 2), 2 xmm per pair, loaded
 * once for the 4 pixels) forms A_t B_t + A_t+1 B_t+1 per channel. Exact: |A| <= 128, |B| <= 255,
 * so a pair sum is below 2^17 in magnitude; PADDD wraps modulo 2^32 like the scalar twin's
 * unsigned sum. No PMADDUBSW: it saturates to int16. An odd last tap pairs with itself: its
 * partner weight is 0 in the layout, so no pointer past `taps` is read.
 * Why CR = 8 and not 16: 4 pixels x 16 channels would need 16 accumulators, all of SSE's
 * registers, and spill in the tap loop.
 *
 * A last group of 1..3 pixels repeats the last real pixel's pointers in place of the missing
 * ones (reads stay on pointers the call names); their bytes are the last real pixel's, stored
 * again at its place (full blocks) or not at all (the channel tail). The channel
 * remainder (1..7) goes through 8-byte stack buffers that hold exactly the remaining bytes of
 * each pointer (zeros after them, times the zero weights past `channels`), its per-channel
 * values through staged arrays (as in the SSE4.1 requantize kernel), and only the remaining
 * bytes are stored; its weights keep the 8-channel stride. So exactly `channels` bytes are read
 * at each pointer + input_offset and written per output pixel.
 */
#include <smmintrin.h>
#include <string.h>

#include "qwino/requantization-sse41.h"
#include "qwino/ukernels.h"

#define CR 8

/* 8 bytes at each pointer of the pair (channels 0-7) -> the int16 pairs of channels 0-3 (lo) and
 * 4-7 (hi), XORed. */
QWINO_SSE41_INLINE void pairs(__m128i x0, __m128i x1, __m128i sign, int flip, __m128i* lo,
                              __m128i* hi) {
  __m128i interleaved = _mm_unpacklo_epi8(x0, x1);
  if (flip) {
    interleaved = _mm_xor_si128(interleaved, sign);
  }
  *lo = _mm_cvtepi8_epi16(interleaved);
  *hi = _mm_srai_epi16(_mm_unpackhi_epi8(interleaved, interleaved), 8);
}

/* Accumulates all taps of 4 pixels (pointer rows r[i]) x 8 channels at byte `offset` of each
 * pointer into acc[i][0..1]. w: the block's first pair, at the 8 channels; TAIL: the bytes go
 * through buffers, `tail` of them. */
QWINO_SSE41_INLINE void accumulate(__m128i acc[4][2], const uint8_t* const* const r[4],
                                   size_t taps, size_t offset, const int16_t* w, __m128i sign,
                                   int flip, int is_tail, size_t tail) {
  for (size_t t = 0; t < taps; t += 2) {
    const size_t t1 = t + 1 < taps ? t + 1 : t; /* an odd last tap pairs with itself */
    const __m128i w0 = _mm_loadu_si128((const __m128i*) w);
    const __m128i w1 = _mm_loadu_si128((const __m128i*) (w + 8));
    for (int i = 0; i < 4; i++) {
      __m128i x0, x1;
      if (is_tail) {
        uint8_t b0[8] = {0}, b1[8] = {0};
        memcpy(b0, r[i][t] + offset, tail);
        memcpy(b1, r[i][t1] + offset, tail);
        x0 = _mm_loadl_epi64((const __m128i*) b0);
        x1 = _mm_loadl_epi64((const __m128i*) b1);
      } else {
        x0 = _mm_loadl_epi64((const __m128i*) (r[i][t] + offset));
        x1 = _mm_loadl_epi64((const __m128i*) (r[i][t1] + offset));
      }
      __m128i lo, hi;
      pairs(x0, x1, sign, flip, &lo, &hi);
      acc[i][0] = _mm_add_epi32(acc[i][0], _mm_madd_epi16(lo, w0));
      acc[i][1] = _mm_add_epi32(acc[i][1], _mm_madd_epi16(hi, w1));
    }
    w += CR * 2;
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
  const __m128i sign = _mm_set1_epi8((char) a_sign);
  const size_t block_elements = (taps + 1) / 2 * CR * 2; /* int16 per block */
  for (size_t p = 0; p < pixels; p += 4) {
    const size_t count = pixels - p < 4 ? pixels - p : 4;
    const uint8_t* const* r[4];
    uint8_t* o[4];
    for (size_t i = 0; i < 4; i++) {
      const size_t pixel = p + (i < count ? i : count - 1);
      r[i] = input + pixel * input_pixel_step;
      o[i] = output + pixel * output_pixel_stride;
    }
    const int16_t* block = (const int16_t*) packed_weights;
    size_t c = 0;
    for (; c + CR <= channels; c += CR) {
      const struct qwino_sse41_channels k0 =
          qwino_sse41_load_channels(channel_params + c, stride, form);
      const struct qwino_sse41_channels k1 =
          qwino_sse41_load_channels(channel_params + c + 4, stride, form);
      __m128i acc[4][2];
      for (int i = 0; i < 4; i++) {
        acc[i][0] = k0.bias;
        acc[i][1] = k1.bias;
      }
      accumulate(acc, r, taps, input_offset + c, block, sign, flip, 0, 0);
      const __m128i b0 =
          qwino_sse41_requantize_4x4(acc[0][0], acc[1][0], acc[2][0], acc[3][0], &k0, &q, form);
      const __m128i b1 =
          qwino_sse41_requantize_4x4(acc[0][1], acc[1][1], acc[2][1], acc[3][1], &k1, &q, form);
      /* Dword i of b0 / b1 is pixel i's channels 0-3 / 4-7. */
      const __m128i p01 = _mm_unpacklo_epi32(b0, b1);
      const __m128i p23 = _mm_unpackhi_epi32(b0, b1);
      _mm_storel_epi64((__m128i*) (o[0] + c), p01);
      _mm_storel_epi64((__m128i*) (o[1] + c), _mm_unpackhi_epi64(p01, p01));
      _mm_storel_epi64((__m128i*) (o[2] + c), p23);
      _mm_storel_epi64((__m128i*) (o[3] + c), _mm_unpackhi_epi64(p23, p23));
      block += block_elements;
    }
    if (c < channels) {
      const size_t tail = channels - c;
      int32_t values[QWINO_MAX_CHANNEL_ARRAYS][CR];
      memset(values, 0, sizeof(values));
      const size_t arrays = qwino_sse41_channel_arrays(mode);
      for (size_t i = 0; i < arrays; i++) {
        memcpy(values[i], channel_params + i * stride + c, tail * sizeof(int32_t));
      }
      const struct qwino_sse41_channels k0 = qwino_sse41_load_channels(values[0], CR, form);
      const struct qwino_sse41_channels k1 = qwino_sse41_load_channels(values[0] + 4, CR, form);
      __m128i acc[4][2];
      for (int i = 0; i < 4; i++) {
        acc[i][0] = k0.bias;
        acc[i][1] = k1.bias;
      }
      accumulate(acc, r, taps, input_offset + c, block, sign, flip, 1, tail);
      const __m128i b0 =
          qwino_sse41_requantize_4x4(acc[0][0], acc[1][0], acc[2][0], acc[3][0], &k0, &q, form);
      const __m128i b1 =
          qwino_sse41_requantize_4x4(acc[0][1], acc[1][1], acc[2][1], acc[3][1], &k1, &q, form);
      uint8_t bytes[4][CR]; /* [pixel][channel], as the unpacks leave them */
      _mm_storeu_si128((__m128i*) bytes[0], _mm_unpacklo_epi32(b0, b1));
      _mm_storeu_si128((__m128i*) bytes[2], _mm_unpackhi_epi32(b0, b1));
      for (size_t i = 0; i < count; i++) {
        memcpy(o[i] + c, bytes[i], tail);
      }
    }
  }
}

/* One entry per mode; QWINO_SSE41_DISPATCH instantiates the body once per form of the mode, each
 * with and without the a_sign XOR. */
#define QWINO_DWCONV_CALL(form)                                                               \
  do {                                                                                        \
    if (a_sign == 0) {                                                                        \
      dwconv(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,           \
             packed_weights, channel_params, output, output_pixel_stride, params, form, 0);   \
    } else {                                                                                  \
      dwconv(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,           \
             packed_weights, channel_params, output, output_pixel_stride, params, form, 1);   \
    }                                                                                         \
  } while (0)
#define QWINO_DWCONV_ENTRY(mode)                                                              \
  void qwino_s8_dwconv_##mode##_ukernel_up8__sse41_madd(                                     \
      size_t channels, size_t pixels, size_t taps, const uint8_t* const* input,               \
      size_t input_pixel_step, size_t input_offset, uint8_t a_sign,                           \
      const void* packed_weights, const int32_t* channel_params, uint8_t* output,             \
      size_t output_pixel_stride, const union qwino_qu8_requantization_params* params) {      \
    QWINO_SSE41_DISPATCH(qwino_requantization_##mode, params, QWINO_DWCONV_CALL);             \
  }
QWINO_DWCONV_ENTRY(gemmlowp)
QWINO_DWCONV_ENTRY(fp32)
