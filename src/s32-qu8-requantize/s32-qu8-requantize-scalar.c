/*
 * Bias + requantization of int32 accumulators into 8-bit values (the direct path's output stage),
 * portable C: the reference for every SIMD twin. It is qwino/requantization.h applied element
 * by element, with the bias add wrapping modulo 2^32 like TFLite's int32 add; one body serves both
 * requantization modes.
 */
#include "qwino/requantization.h"
#include "qwino/ukernels.h"

static inline void requantize(size_t pixels, size_t channels, const int32_t* accumulators,
                              size_t accumulator_stride, const int32_t* channel_params,
                              uint8_t* output, size_t output_stride,
                              const union qwino_qu8_requantization_params* params,
                              enum qwino_requantization_mode mode) {
  for (size_t p = 0; p < pixels; p++) {
    for (size_t c = 0; c < channels; c++) {
      output[c] =
          qwino_requantize_channel(qwino_wrapping_add_s32(accumulators[c], channel_params[c]),
                                   channel_params, c, params, mode);
    }
    accumulators += accumulator_stride;
    output += output_stride;
  }
}

#define QWINO_REQUANTIZE_ENTRY(mode)                                                          \
  void qwino_s32_qu8_requantize_##mode##_ukernel__scalar(                                     \
      size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride, \
      const int32_t* channel_params, uint8_t* output, size_t output_stride,                   \
      const union qwino_qu8_requantization_params* params) {                                  \
    requantize(pixels, channels, accumulators, accumulator_stride, channel_params, output,    \
               output_stride, params, qwino_requantization_##mode);                           \
  }
QWINO_REQUANTIZE_ENTRY(gemmlowp)
QWINO_REQUANTIZE_ENTRY(fp32)
