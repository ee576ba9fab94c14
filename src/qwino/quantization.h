// Real-valued quantization parameters -> the per-channel values and microparams the kernels use
// (qwino/microparams.h).
#ifndef QWINO_QUANTIZATION_H_
#define QWINO_QUANTIZATION_H_

#include <cstdint>

#include "qwino/microparams.h"

namespace qwino {

// The requantization scales M = input_scale * kernel_scale / output_scale accepted in both modes:
// every M up to 256 (XNNPACK's upper end, included; above 1, gemmlowp's left shift). Below 2^-32
// both reference semantics define a channel's output as its output zero point (clamped):
// TFLite's QuantizeMultiplier flushes an exponent below -31 to multiplier 0 and shift 0, and in
// the fp32 mode |(float) acc * scale| < 0.5 for every int32 acc, which rounds to 0. Such a
// channel gets multiplier 0 (shifts 0) or scale 0.0f here, which gives the same bytes.
constexpr double kMaxRequantizationScale = 256.0;
// The fp32 scales below this one are stored as 0.0f (no denormal products in the kernels).
constexpr float kFp32SmallestNonzeroScale = 0x1.0p-32f;

// How TensorFlow Lite forms input_scale * kernel_scale before dividing by output_scale in
// double (doc/DESIGN.md section 10). Its uint8 convolution and depthwise convolution
// (GetQuantizedConvolutionMultipler) round the product to float first; its int8 ones
// (PopulateConvolutionQuantizationParams, per tensor or per channel) widen both factors to
// double. The two differ in the last bits of M, and so by one in some output bytes.
enum class ScaleProduct { kFloat, kDouble };

// TFLite's QuantizeMultiplier for M = input_scale * kernel_scale / output_scale, the product
// formed as `product` says: multiplier in [2^30, 2^31) with its shifts, or multiplier 0 and both
// shifts 0 where M is 0 or its exponent after rounding lies below -31 (M below 2^-32, except the
// M in [2^-32 - 2^-64, 2^-32) that round up to 2^-32, as in TFLite). Returns false when M is not
// finite, negative or above 256.
bool quantize_multiplier(float input_scale, float kernel_scale, float output_scale,
                         ScaleProduct product, int32_t* multiplier, uint32_t* left_shift,
                         uint32_t* right_shift);

// The fp32 mode's scale: input_scale * kernel_scale / output_scale in float32, in that order
// (ONNX Runtime's QLinearConv), or 0.0f where that is below 2^-32 (the same bytes). Returns
// false when it is not finite, negative or above 256.
bool fp32_scale(float input_scale, float kernel_scale, float output_scale, float* scale);

}  // namespace qwino

#endif  // QWINO_QUANTIZATION_H_
