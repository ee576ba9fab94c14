/*
 * Bias + requantization of int32 accumulators into uint8 (the direct path's output stage), AVX-512
 * (F + BW + VL): bit-exact twin of src/s32-qu8-requantize/s32-qu8-requantize-gemmlowp-scalar.c for
 * every accumulator, bias and parameter value.
 *
 * Channels sit in lanes, 64 per step (four zmm of 16 int32, one 64-byte store), then steps of
 * 16, the last one masked: masked loads read exactly `channels` values and the masked byte
 * store writes exactly `channels` bytes per pixel. The bias add (VPADDD) wraps modulo 2^32 like
 * qwino_wrapping_add_s32. The requantization and the narrowing are
 * src/qwino/requantization-avx512skx.h (shared with the output-transform kernels; its comment has
 * the argument for every step), with the left shift and the saturation fix compiled out for the
 * usual parameters.
 */
#include <immintrin.h>

#include "qwino/ukernels.h"
#include "qwino/requantization-avx512skx.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* acc + bias (wrapping) of the channels in `mask`, requantized; has_left_shift / may_saturate
 * are constants at each call. */
QWINO_INLINE __m512i requantize16(const int32_t* accumulators, const int32_t* bias,
                                  __mmask16 mask, const struct qwino_avx512_requantization* q,
                                  int has_left_shift, int may_saturate) {
  const __m512i x = _mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, accumulators),
                                     _mm512_maskz_loadu_epi32(mask, bias));
  return qwino_avx512_requantize_s32(x, q, has_left_shift, may_saturate);
}

QWINO_INLINE void requantize_pixels(size_t pixels, size_t channels, const int32_t* accumulators,
                                    size_t accumulator_stride, const int32_t* bias,
                                    uint8_t* output, size_t output_stride,
                                    const struct qwino_avx512_requantization* q,
                                    int has_left_shift, int may_saturate) {
  const __mmask16 all = (__mmask16) 0xFFFF;
  for (; pixels != 0; pixels--) {
    size_t c = 0;
    for (; c + 64 <= channels; c += 64) {
      const __m512i r0 =
          requantize16(accumulators + c, bias + c, all, q, has_left_shift, may_saturate);
      const __m512i r1 =
          requantize16(accumulators + c + 16, bias + c + 16, all, q, has_left_shift, may_saturate);
      const __m512i r2 =
          requantize16(accumulators + c + 32, bias + c + 32, all, q, has_left_shift, may_saturate);
      const __m512i r3 =
          requantize16(accumulators + c + 48, bias + c + 48, all, q, has_left_shift, may_saturate);
      _mm512_storeu_si512(output + c, qwino_avx512_narrow_clamp_4x16(r0, r1, r2, r3, q));
    }
    for (; c < channels; c += 16) {
      const size_t remaining = channels - c;
      const __mmask16 mask = remaining >= 16 ? all : (__mmask16) ((1u << remaining) - 1);
      const __m512i r =
          requantize16(accumulators + c, bias + c, mask, q, has_left_shift, may_saturate);
      _mm_mask_storeu_epi8(output + c, mask,
                           _mm512_castsi512_si128(qwino_avx512_narrow_clamp_4x16(r, r, r, r, q)));
    }
    accumulators += accumulator_stride;
    output += output_stride;
  }
}

void qwino_s32_qu8_requantize_gemmlowp_ukernel__avx512skx(
    size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride,
    const int32_t* bias, uint8_t* output, size_t output_stride,
    const union qwino_qu8_requantization_params* microparams) {
  const struct qwino_qu8_gemmlowp_params* params = &microparams->gemmlowp;
  const struct qwino_avx512_requantization q = qwino_avx512_requantization_init(params);
  if (qwino_avx512_requantization_is_plain(params)) {
    requantize_pixels(pixels, channels, accumulators, accumulator_stride, bias, output,
                      output_stride, &q, 0, 0);
  } else {
    requantize_pixels(pixels, channels, accumulators, accumulator_stride, bias, output,
                      output_stride, &q, 1, 1);
  }
}
