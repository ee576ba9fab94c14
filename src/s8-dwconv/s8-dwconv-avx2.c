/*
 * Depthwise convolution with fused requantization, AVX2, int16_tap_pairs weights (CR = 16):
 * bit-exact twin of qwino_s8_dwconv_*_ukernel_up8__scalar_madd (src/s8-dwconv/s8-dwconv-scalar.c)
 * for every input byte, a_sign, weight in [-255, 255], bias and requantization parameter the
 * shared requantization (src/qwino/requantization-avx2.h) takes.
 *
 * Per output pixel (outer loop) and block of 16 channels (inner): two ymm of int32
 * accumulators (channels 0-7, 8-15) start at the bias; the taps go in pairs (t, t + 1): 16 input
 * bytes at each of the two pointers, XORed with a_sign (left out when a_sign is 0: the body is
 * specialised on it), interleaved byte by byte (PUNPCKLBW / PUNPCKHBW: channel c's (t, t + 1)
 * bytes next to each other) and sign-extended to int16 (VPMOVSXBW), so that one VPMADDWD with
 * the pair's packed weights (channel c's (B_t, B_t+1) int16 pair at ((j * 16 + c) * 2), 2 ymm per
 * pair) forms A_t B_t + A_t+1 B_t+1 per channel. Exact: |A| <= 128, |B| <= 255, so a pair sum is
 * below 2^17 in magnitude; VPADDD wraps modulo 2^32 like the scalar twin's unsigned sum (the
 * order of the adds does not matter modulo 2^32). No VPMADDUBSW: it saturates to int16.
 * An odd last tap pairs with itself: its partner weight is 0 in the layout, so the partner
 * bytes (tap t's again) contribute nothing and no pointer past `taps` is read.
 *
 * Channel remainder: a half block of 8 channels (8-byte loads, the block's first 8 weight
 * pairs), then the last 1..7 channels through 8-byte stack buffers that hold exactly the
 * remaining bytes of each pointer (zeros after them, times the zero weights past `channels`);
 * weights of a partial block keep the 16-channel stride. Per-channel values of the tail are
 * staged by qwino_avx2_load_channels_tail, and only the remaining bytes are stored. So exactly
 * `channels` bytes are read at each pointer + input_offset and written per output pixel.
 *
 * Requantization: qwino_avx2_requantize and qwino_avx2_narrow_4x8 (its comment has the argument
 * for each step), the form and output type constants of one always-inline body per
 * QWINO_X86_REQUANTIZATION_DISPATCH case, the bias the accumulators' initial value.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/requantization-avx2.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

#define CR 16

/* The interleaved (t, t + 1) bytes of 8 channels, XORed, as 8 int16 pairs. */
QWINO_INLINE __m256i pairs8(__m128i interleaved, __m128i sign, int flip) {
  if (flip) {
    interleaved = _mm_xor_si128(interleaved, sign);
  }
  return _mm256_cvtepi8_epi16(interleaved);
}

/* 8 channels (the low 8 bytes at each pointer) of all taps, added to acc. w: the weights of
 * those 8 channels' first pair; pairs CR * 2 int16 apart. */
QWINO_INLINE __m256i taps8(__m256i acc, const uint8_t* const* pointers, size_t taps,
                           size_t offset, const int16_t* w, __m128i sign, int flip) {
  size_t t = 0;
  for (; t + 2 <= taps; t += 2) {
    const __m128i x0 = _mm_loadl_epi64((const __m128i*) (pointers[t] + offset));
    const __m128i x1 = _mm_loadl_epi64((const __m128i*) (pointers[t + 1] + offset));
    const __m256i a = pairs8(_mm_unpacklo_epi8(x0, x1), sign, flip);
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(a, _mm256_loadu_si256((const __m256i*) w)));
    w += CR * 2;
  }
  if (t < taps) {
    const __m128i x0 = _mm_loadl_epi64((const __m128i*) (pointers[t] + offset));
    const __m256i a = pairs8(_mm_unpacklo_epi8(x0, x0), sign, flip);
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(a, _mm256_loadu_si256((const __m256i*) w)));
  }
  return acc;
}

QWINO_INLINE void dwconv(size_t channels, size_t pixels, size_t taps,
                         const uint8_t* const* input, size_t input_pixel_step,
                         size_t input_offset, uint8_t a_sign, const void* packed_weights,
                         const int32_t* channel_params, uint8_t* output,
                         size_t output_pixel_stride,
                         const union qwino_qu8_requantization_params* params, int form,
                         int is_signed, int flip) {
  const struct qwino_avx2_requantization q =
      qwino_avx2_requantization_init(params, form, is_signed);
  const size_t stride = q.channel_stride;
  const __m128i sign = _mm_set1_epi8((char) a_sign);
  const size_t block_elements = (taps + 1) / 2 * CR * 2; /* int16 per block */
  const int16_t* weights = (const int16_t*) packed_weights;
  for (size_t p = 0; p < pixels; p++) {
    const uint8_t* const* pointers = input + p * input_pixel_step;
    const int16_t* block = weights;
    size_t c = 0;
    for (; c + CR <= channels; c += CR) {
      const struct qwino_avx2_channels ch0 =
          qwino_avx2_load_channels(channel_params + c, stride, &q, form);
      const struct qwino_avx2_channels ch1 =
          qwino_avx2_load_channels(channel_params + c + 8, stride, &q, form);
      __m256i acc0 = ch0.bias;
      __m256i acc1 = ch1.bias;
      const size_t offset = input_offset + c;
      const int16_t* w = block;
      size_t t = 0;
      for (; t + 2 <= taps; t += 2) {
        __m128i x0 = _mm_loadu_si128((const __m128i*) (pointers[t] + offset));
        __m128i x1 = _mm_loadu_si128((const __m128i*) (pointers[t + 1] + offset));
        if (flip) {
          x0 = _mm_xor_si128(x0, sign);
          x1 = _mm_xor_si128(x1, sign);
        }
        const __m256i lo = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x0, x1));
        const __m256i hi = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(x0, x1));
        acc0 = _mm256_add_epi32(acc0,
                                _mm256_madd_epi16(lo, _mm256_loadu_si256((const __m256i*) w)));
        acc1 = _mm256_add_epi32(
            acc1, _mm256_madd_epi16(hi, _mm256_loadu_si256((const __m256i*) (w + 16))));
        w += CR * 2;
      }
      if (t < taps) {
        __m128i x0 = _mm_loadu_si128((const __m128i*) (pointers[t] + offset));
        if (flip) {
          x0 = _mm_xor_si128(x0, sign);
        }
        const __m256i lo = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x0, x0));
        const __m256i hi = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(x0, x0));
        acc0 = _mm256_add_epi32(acc0,
                                _mm256_madd_epi16(lo, _mm256_loadu_si256((const __m256i*) w)));
        acc1 = _mm256_add_epi32(
            acc1, _mm256_madd_epi16(hi, _mm256_loadu_si256((const __m256i*) (w + 16))));
      }
      const __m256i r0 = qwino_avx2_requantize(acc0, &ch0, &q, form);
      const __m256i r1 = qwino_avx2_requantize(acc1, &ch1, &q, form);
      const __m256i bytes = qwino_avx2_narrow_4x8(r0, r1, r0, r1, &q, form, is_signed);
      _mm_storeu_si128((__m128i*) (output + c), _mm256_castsi256_si128(bytes));
      block += block_elements;
    }
    if (c + 8 <= channels) {
      const struct qwino_avx2_channels ch =
          qwino_avx2_load_channels(channel_params + c, stride, &q, form);
      const __m256i acc = taps8(ch.bias, pointers, taps, input_offset + c, block, sign, flip);
      const __m256i r = qwino_avx2_requantize(acc, &ch, &q, form);
      const __m256i bytes = qwino_avx2_narrow_4x8(r, r, r, r, &q, form, is_signed);
      _mm_storel_epi64((__m128i*) (output + c), _mm256_castsi256_si128(bytes));
      c += 8;
    }
    if (c < channels) {
      /* 1..7 channels, at channel c % CR (0 or 8) of the block. */
      const size_t tail = channels - c;
      const struct qwino_avx2_channels ch =
          qwino_avx2_load_channels_tail(channel_params + c, stride, tail, &q, form);
      const int16_t* w = block + (c % CR) * 2;
      const size_t offset = input_offset + c;
      __m256i acc = ch.bias;
      size_t t = 0;
      for (; t < taps; t += 2) {
        uint8_t b0[8] = {0}, b1[8] = {0};
        memcpy(b0, pointers[t] + offset, tail);
        if (t + 1 < taps) {
          memcpy(b1, pointers[t + 1] + offset, tail);
        }
        const __m128i x0 = _mm_loadl_epi64((const __m128i*) b0);
        const __m128i x1 = _mm_loadl_epi64((const __m128i*) b1);
        const __m256i a = pairs8(_mm_unpacklo_epi8(x0, x1), sign, flip);
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(a, _mm256_loadu_si256((const __m256i*) w)));
        w += CR * 2;
      }
      const __m256i r = qwino_avx2_requantize(acc, &ch, &q, form);
      uint8_t bytes[16];
      _mm_storeu_si128((__m128i*) bytes, _mm256_castsi256_si128(
                                             qwino_avx2_narrow_4x8(r, r, r, r, &q, form,
                                                                   is_signed)));
      memcpy(output + c, bytes, tail);
    }
    output += output_pixel_stride;
  }
}

#define QWINO_DWCONV_BODY(form, is_signed)                                                    \
  do {                                                                                        \
    if (a_sign == 0) {                                                                        \
      dwconv(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,           \
             packed_weights, channel_params, output, output_pixel_stride, params, form,       \
             is_signed, 0);                                                                   \
    } else {                                                                                  \
      dwconv(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,           \
             packed_weights, channel_params, output, output_pixel_stride, params, form,       \
             is_signed, 1);                                                                   \
    }                                                                                         \
  } while (0)
#define QWINO_DWCONV_ENTRY(mode)                                                              \
  void qwino_s8_dwconv_##mode##_ukernel_up16__avx2_madd(                                     \
      size_t channels, size_t pixels, size_t taps, const uint8_t* const* input,               \
      size_t input_pixel_step, size_t input_offset, uint8_t a_sign,                           \
      const void* packed_weights, const int32_t* channel_params, uint8_t* output,             \
      size_t output_pixel_stride, const union qwino_qu8_requantization_params* params) {      \
    QWINO_X86_REQUANTIZATION_DISPATCH(mode, params, QWINO_DWCONV_BODY);                       \
  }
QWINO_DWCONV_ENTRY(gemmlowp)
QWINO_DWCONV_ENTRY(fp32)
