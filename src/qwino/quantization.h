// Real-valued quantization parameters -> the per-channel values and microparams the kernels use
// (qwino/microparams.h).
#ifndef QWINO_QUANTIZATION_H_
#define QWINO_QUANTIZATION_H_

#include <cstdint>

#include "qwino/microparams.h"

namespace qwino {

// The range of requantization scales M = input_scale * kernel_scale / output_scale accepted in
// both modes: [2^-32, 256] (XNNPACK's range, with 256 included; above 1, gemmlowp's left shift).
constexpr double kMinRequantizationScale = 0x1.0p-32;
constexpr double kMaxRequantizationScale = 256.0;

// How TensorFlow Lite forms input_scale * kernel_scale before dividing by output_scale in
// double (doc/DESIGN.md section 10). Its uint8 convolution and depthwise convolution
// (GetQuantizedConvolutionMultipler) round the product to float first; its int8 ones
// (PopulateConvolutionQuantizationParams, per tensor or per channel) widen both factors to
// double. The two differ in the last bits of M, and so by one in some output bytes.
enum class ScaleProduct { kFloat, kDouble };

// TFLite's QuantizeMultiplier for M = input_scale * kernel_scale / output_scale, the product
// formed as `product` says. Returns false when M is not finite or outside the accepted range.
bool quantize_multiplier(float input_scale, float kernel_scale, float output_scale,
                         ScaleProduct product, int32_t* multiplier, uint32_t* left_shift,
                         uint32_t* right_shift);

// The fp32 mode's scale: input_scale * kernel_scale / output_scale in float32, in that order
// (ONNX Runtime's QLinearConv). Returns false when it is not finite or outside the range.
bool fp32_scale(float input_scale, float kernel_scale, float output_scale, float* scale);

}  // namespace qwino

#endif  // QWINO_QUANTIZATION_H_
