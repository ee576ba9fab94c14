// Real-valued quantization parameters -> the fixed-point form the kernels use.
#ifndef QWINO_QUANTIZATION_H_
#define QWINO_QUANTIZATION_H_

#include <cstdint>

#include "qwino/microparams.h"

namespace qwino {

// TFLite's QuantizeMultiplier for M = input_scale * kernel_scale / output_scale, computed in
// double exactly as TFLite does. Returns false when M is outside [2^-32, 1) (or not finite).
bool compute_requantization_params(float input_scale, float kernel_scale, float output_scale,
                                   uint8_t output_zero_point, uint8_t output_min,
                                   uint8_t output_max, qwino_qu8_gemmlowp_params* params);

}  // namespace qwino

#endif  // QWINO_QUANTIZATION_H_
