/*
 * Bias + requantization of int32 accumulators into uint8 (the direct path's output stage), SSE4.1:
 * bit-exact twin of src/s32-qu8-requantize/s32-qu8-requantize-gemmlowp-scalar.c for every
 * accumulator, bias and parameter value, for x86-64 CPUs without AVX2.
 *
 * Channels sit in lanes, 16 per step (four xmm of 4 int32, one 16-byte store), then steps of 4;
 * the tail (< 4) is staged through stack buffers so that exactly `channels` values are read and
 * `channels` bytes written per pixel. The bias add (PADDD) wraps modulo 2^32 like
 * qwino_wrapping_add_s32. The requantization and the narrowing are src/qwino/requantization-sse41.h
 * (shared with the output-transform kernel; its comment has the argument for every step), with
 * the left shift and the saturation fix compiled out for the usual parameters.
 */
#include <smmintrin.h>
#include <string.h>

#include "qwino/ukernels.h"
#include "qwino/requantization-sse41.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* acc + bias (wrapping), requantized; has_left_shift / may_saturate are constants at each call. */
QWINO_INLINE __m128i requantize4(const int32_t* accumulators, const int32_t* bias,
                                 const struct qwino_sse41_requantization* q, int has_left_shift,
                                 int may_saturate) {
  const __m128i x = _mm_add_epi32(_mm_loadu_si128((const __m128i*) accumulators),
                                  _mm_loadu_si128((const __m128i*) bias));
  return qwino_sse41_requantize_s32(x, q, has_left_shift, may_saturate);
}

/* 4 channels -> the low 4 bytes, as an int32. */
QWINO_INLINE int32_t bytes4(const int32_t* accumulators, const int32_t* bias,
                            const struct qwino_sse41_requantization* q, int has_left_shift,
                            int may_saturate) {
  const __m128i r = requantize4(accumulators, bias, q, has_left_shift, may_saturate);
  return _mm_cvtsi128_si32(qwino_sse41_narrow_clamp_4x4(r, r, r, r, q));
}

QWINO_INLINE void requantize_pixels(size_t pixels, size_t channels, const int32_t* accumulators,
                                    size_t accumulator_stride, const int32_t* bias,
                                    uint8_t* output, size_t output_stride,
                                    const struct qwino_sse41_requantization* q,
                                    int has_left_shift, int may_saturate) {
  for (; pixels != 0; pixels--) {
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
      const __m128i r0 = requantize4(accumulators + c, bias + c, q, has_left_shift, may_saturate);
      const __m128i r1 =
          requantize4(accumulators + c + 4, bias + c + 4, q, has_left_shift, may_saturate);
      const __m128i r2 =
          requantize4(accumulators + c + 8, bias + c + 8, q, has_left_shift, may_saturate);
      const __m128i r3 =
          requantize4(accumulators + c + 12, bias + c + 12, q, has_left_shift, may_saturate);
      _mm_storeu_si128((__m128i*) (output + c), qwino_sse41_narrow_clamp_4x4(r0, r1, r2, r3, q));
    }
    for (; c + 4 <= channels; c += 4) {
      const int32_t bytes = bytes4(accumulators + c, bias + c, q, has_left_shift, may_saturate);
      memcpy(output + c, &bytes, sizeof(bytes));
    }
    if (c < channels) {
      const size_t tail = channels - c;
      int32_t accumulator_buffer[4] = {0};
      int32_t bias_buffer[4] = {0};
      memcpy(accumulator_buffer, accumulators + c, tail * sizeof(int32_t));
      memcpy(bias_buffer, bias + c, tail * sizeof(int32_t));
      const int32_t bytes =
          bytes4(accumulator_buffer, bias_buffer, q, has_left_shift, may_saturate);
      memcpy(output + c, &bytes, tail);
    }
    accumulators += accumulator_stride;
    output += output_stride;
  }
}

void qwino_s32_qu8_requantize_gemmlowp_ukernel__sse41(
    size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride,
    const int32_t* bias, uint8_t* output, size_t output_stride,
    const union qwino_qu8_requantization_params* microparams) {
  const struct qwino_qu8_gemmlowp_params* params = &microparams->gemmlowp;
  const struct qwino_sse41_requantization q = qwino_sse41_requantization_init(params);
  if (qwino_sse41_requantization_is_plain(params)) {
    requantize_pixels(pixels, channels, accumulators, accumulator_stride, bias, output,
                      output_stride, &q, 0, 0);
  } else {
    requantize_pixels(pixels, channels, accumulators, accumulator_stride, bias, output,
                      output_stride, &q, 1, 1);
  }
}
