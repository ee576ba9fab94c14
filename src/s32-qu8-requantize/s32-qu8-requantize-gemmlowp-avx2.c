/*
 * Bias + requantization of int32 accumulators into uint8 (the direct path's output stage), AVX2:
 * bit-exact twin of src/s32-qu8-requantize/s32-qu8-requantize-gemmlowp-scalar.c for every
 * accumulator, bias and parameter value.
 *
 * Channels sit in lanes, 32 per step (four ymm of 8 int32, one 32-byte store), then steps of 8;
 * the tail (< 8) is staged through stack buffers so that exactly `channels` values are read and
 * `channels` bytes written per pixel. The bias add (VPADDD) wraps modulo 2^32 like
 * qwino_wrapping_add_s32. The requantization and the narrowing are src/qwino/requantization-avx2.h
 * (shared with the output-transform kernels; its comment has the argument for every step), with
 * the left shift and the saturation fix compiled out for the usual parameters.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/ukernels.h"
#include "qwino/requantization-avx2.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* acc + bias (wrapping), requantized; has_left_shift / may_saturate are constants at each call. */
QWINO_INLINE __m256i requantize8(const int32_t* accumulators, const int32_t* bias,
                                 const struct qwino_avx2_requantization* q, int has_left_shift,
                                 int may_saturate) {
  const __m256i x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i*) accumulators),
                                     _mm256_loadu_si256((const __m256i*) bias));
  return qwino_avx2_requantize_s32(x, q, has_left_shift, may_saturate);
}

/* 8 channels -> the low 8 bytes. */
QWINO_INLINE __m128i bytes8(const int32_t* accumulators, const int32_t* bias,
                            const struct qwino_avx2_requantization* q, int has_left_shift,
                            int may_saturate) {
  const __m256i r = requantize8(accumulators, bias, q, has_left_shift, may_saturate);
  return _mm256_castsi256_si128(qwino_avx2_narrow_clamp_4x8(r, r, r, r, q));
}

QWINO_INLINE void requantize_pixels(size_t pixels, size_t channels, const int32_t* accumulators,
                                    size_t accumulator_stride, const int32_t* bias,
                                    uint8_t* output, size_t output_stride,
                                    const struct qwino_avx2_requantization* q,
                                    int has_left_shift, int may_saturate) {
  for (; pixels != 0; pixels--) {
    size_t c = 0;
    for (; c + 32 <= channels; c += 32) {
      const __m256i r0 = requantize8(accumulators + c, bias + c, q, has_left_shift, may_saturate);
      const __m256i r1 =
          requantize8(accumulators + c + 8, bias + c + 8, q, has_left_shift, may_saturate);
      const __m256i r2 =
          requantize8(accumulators + c + 16, bias + c + 16, q, has_left_shift, may_saturate);
      const __m256i r3 =
          requantize8(accumulators + c + 24, bias + c + 24, q, has_left_shift, may_saturate);
      _mm256_storeu_si256((__m256i*) (output + c), qwino_avx2_narrow_clamp_4x8(r0, r1, r2, r3, q));
    }
    for (; c + 8 <= channels; c += 8) {
      _mm_storel_epi64((__m128i*) (output + c),
                       bytes8(accumulators + c, bias + c, q, has_left_shift, may_saturate));
    }
    if (c < channels) {
      const size_t tail = channels - c;
      int32_t accumulator_buffer[8] = {0};
      int32_t bias_buffer[8] = {0};
      memcpy(accumulator_buffer, accumulators + c, tail * sizeof(int32_t));
      memcpy(bias_buffer, bias + c, tail * sizeof(int32_t));
      uint8_t bytes[16];
      _mm_storeu_si128((__m128i*) bytes,
                       bytes8(accumulator_buffer, bias_buffer, q, has_left_shift, may_saturate));
      memcpy(output + c, bytes, tail);
    }
    accumulators += accumulator_stride;
    output += output_stride;
  }
}

void qwino_s32_qu8_requantize_gemmlowp_ukernel__avx2(
    size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride,
    const int32_t* bias, uint8_t* output, size_t output_stride,
    const union qwino_qu8_requantization_params* microparams) {
  const struct qwino_qu8_gemmlowp_params* params = &microparams->gemmlowp;
  const struct qwino_avx2_requantization q = qwino_avx2_requantization_init(params);
  if (qwino_avx2_requantization_is_plain(params)) {
    requantize_pixels(pixels, channels, accumulators, accumulator_stride, bias, output,
                      output_stride, &q, 0, 0);
  } else {
    requantize_pixels(pixels, channels, accumulators, accumulator_stride, bias, output,
                      output_stride, &q, 1, 1);
  }
}
