/*
 * Bias + requantization of int32 accumulators into uint8 (the direct path's output stage),
 * portable C: the reference for every SIMD twin. It is qwino/requantization.h applied element
 * by element, with the bias add wrapping modulo 2^32 like TFLite's int32 add.
 */
#include "qwino/requantization.h"
#include "qwino/ukernels.h"

void qwino_s32_qu8_requantize_gemmlowp_ukernel__scalar(
    size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride,
    const int32_t* bias, uint8_t* output, size_t output_stride,
    const union qwino_qu8_requantization_params* microparams) {
  const struct qwino_qu8_gemmlowp_params* params = &microparams->gemmlowp;
  for (size_t p = 0; p < pixels; p++) {
    for (size_t c = 0; c < channels; c++) {
      output[c] = qwino_requantize(qwino_wrapping_add_s32(accumulators[c], bias[c]), params);
    }
    accumulators += accumulator_stride;
    output += output_stride;
  }
}
