// Independent reference for qwino's tests: quantized convolution written straight from its
// definitions (doc/DESIGN.md section 1, qwino.h), deliberately sharing no code with src/.
//
//   acc = sum over taps inside the image of (x - input_zero_point) * (w - kernel_zero_point)
//         computed in int64 on the tensors' own values (uint8 or int8), then truncated to int32
//         (TFLite's int32 accumulator wraps mod 2^32)
//   acc = acc + bias[oc]                                   (int32, wrapping)
//   TFLite mode: out = clamp(MultiplyByQuantizedMultiplier_oc(acc) + output_zero_point, min, max)
//         (the zero-point add wraps in int32 before clamping); per output channel multipliers
//         from input_scale * kernel_scale[oc] / output_scale as TFLite forms them (in float for
//         uint8 weights, in double for int8 weights: ReferenceRealMultiplier)
//   fp32 mode:   out = clamp(round_half_even((float) acc * scale_oc) + output_zero_point, min, max)
//         with scale_oc = input_scale * kernel_scale[oc] / output_scale in float32
//
// The requantization primitives (SQRDMULH, RoundingDivideByPOT, the wrapping add and the
// accumulator -> byte oracle) live in requantization-oracle.h, the one independent definition
// that the micro-kernel testers use too; they are written in a different form from
// src/qwino/requantization.h on purpose, so that a shared misreading of gemmlowp cannot hide in
// both.
#ifndef QWINO_TEST_REFERENCE_CONVOLUTION_H_
#define QWINO_TEST_REFERENCE_CONVOLUTION_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "requantization-oracle.h"

namespace qwino_test {

// ---------------------------------------------------------------------------------------------
// Fixed-point requantization.

// TFLite's QuantizeMultiplier: m = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31);
// shift > 0 is a left shift of the accumulator, shift < 0 a rounding right shift. Multipliers
// too small for a shift of -31 are flushed to multiplier 0 and shift 0 (every output is the
// output zero point).
struct ReferenceMultiplier {
  int32_t multiplier = 0;
  int shift = 0;
};

// TFLite forms the real multiplier differently for its two integer schemes
// (tensorflow/lite/kernels/kernel_util.cc, doc/DESIGN.md section 10):
//   uint8 kernels (GetQuantizedConvolutionMultipler): double(float(input_scale * kernel_scale))
//                                                       / double(output_scale)
//   int8 kernels (PopulateConvolutionQuantizationParams): double(input_scale) *
//                                                       double(kernel_scale) / double(output_scale)
enum class ReferenceScaleProduct { kUint8Kernels, kInt8Kernels };

// Which of TFLite's kernels a qwino create function's bytes are: the uint8 ones for uint8
// weights with a zero point (_qu8 / _q8), the int8 ones for every int8-weight entry point.
inline ReferenceScaleProduct ReferenceScaleProductFor(bool int8_kernel) {
  return int8_kernel ? ReferenceScaleProduct::kInt8Kernels : ReferenceScaleProduct::kUint8Kernels;
}

inline double ReferenceRealMultiplier(float input_scale, float kernel_scale, float output_scale,
                                      ReferenceScaleProduct product) {
  double numerator = 0.0;
  if (product == ReferenceScaleProduct::kUint8Kernels) {
    volatile float rounded = input_scale * kernel_scale;  // a float, as in TFLite's expression
    numerator = rounded;
  } else {
    numerator = static_cast<double>(input_scale) * static_cast<double>(kernel_scale);
  }
  return numerator / static_cast<double>(output_scale);
}

// Whether qwino supports this requantization scale (qwino.h): finite, not negative, at most 256.
// (Scales formed from positive scales are positive, or 0 where a float product underflows;
// those below 2^-32 make the channel's outputs its output zero point in both modes.)
inline bool ReferenceMultiplierSupported(double m) {
  return std::isfinite(m) && m >= 0.0 && m <= 256.0;
}

// The fp32 mode's scale: float32 product, then float32 quotient.
inline float ReferenceFp32Scale(float input_scale, float kernel_scale, float output_scale) {
  const float product = input_scale * kernel_scale;
  return product / output_scale;
}

// QuantizeMultiplier for m >= 0 (tensorflow/lite/kernels/internal/quantization_util.cc): 0 for
// m = 0; otherwise frexp, round the mantissa to 31 fractional bits half away from zero
// (std::round), renormalise if it rounded up to 1.0, and then, if the exponent is below -31
// (m below 2^-32 that did not round up to it), multiplier 0 and shift 0.
inline ReferenceMultiplier ReferenceQuantizeMultiplier(double m) {
  ReferenceMultiplier result;  // {0, 0}
  if (m == 0.0) return result;
  int exponent = 0;
  const double mantissa = std::frexp(m, &exponent);  // m = mantissa * 2^exponent, [0.5, 1)
  int64_t fixed = static_cast<int64_t>(std::round(std::ldexp(mantissa, 31)));
  if (fixed == (int64_t{1} << 31)) {
    fixed = int64_t{1} << 30;
    exponent += 1;
  }
  if (exponent < -31) return result;
  result.multiplier = static_cast<int32_t>(fixed);
  result.shift = exponent;
  return result;
}

// The left and right parts of a multiplier's shift (a left shift for m >= 1, up to 9 for m up
// to 256).
inline uint32_t ReferenceLeftShift(ReferenceMultiplier m) {
  return m.shift > 0 ? static_cast<uint32_t>(m.shift) : 0;
}
inline uint32_t ReferenceRightShift(ReferenceMultiplier m) {
  return m.shift > 0 ? 0 : static_cast<uint32_t>(-m.shift);
}

// MultiplyByQuantizedMultiplier (requantization-oracle.h) for a ReferenceMultiplier.
inline int32_t ReferenceMultiplyByQuantizedMultiplier(int32_t x, ReferenceMultiplier m) {
  return ReferenceMultiplyByQuantizedMultiplier(x, m.multiplier, ReferenceLeftShift(m),
                                                ReferenceRightShift(m));
}

// Accumulator (bias included) -> output byte (requantization-oracle.h) for a ReferenceMultiplier.
inline uint8_t ReferenceRequantize(int32_t accumulator, ReferenceMultiplier m,
                                   uint8_t output_zero_point, uint8_t output_min,
                                   uint8_t output_max) {
  return static_cast<uint8_t>(
      ReferenceRequantize(accumulator, m.multiplier, ReferenceLeftShift(m), ReferenceRightShift(m),
                          int32_t{output_zero_point}, output_min, output_max));
}

// An operator's output quantization, per output channel, in the tensor's own values.
struct ReferenceOutputQuantization {
  bool fp32 = false;
  std::vector<ReferenceMultiplier> multipliers;  // TFLite mode
  std::vector<float> scales;                     // fp32 mode
  int32_t zero_point = 0, min = 0, max = 255;
};

// kernel_scales: one per output channel, or a single one for the whole tensor.
// product: the TFLite mode's rule (ReferenceScaleProductFor the operator's weights).
inline ReferenceOutputQuantization ReferenceOutput(bool fp32, ReferenceScaleProduct product,
                                                   float input_scale,
                                                   const std::vector<float>& kernel_scales,
                                                   float output_scale, size_t channels,
                                                   int32_t zero_point, int32_t min, int32_t max) {
  ReferenceOutputQuantization q;
  q.fp32 = fp32;
  q.zero_point = zero_point;
  q.min = min;
  q.max = max;
  for (size_t c = 0; c < channels; c++) {
    const float kernel_scale = kernel_scales[kernel_scales.size() == 1 ? 0 : c];
    if (fp32) {
      q.scales.push_back(ReferenceFp32Scale(input_scale, kernel_scale, output_scale));
    } else {
      q.multipliers.push_back(ReferenceQuantizeMultiplier(
          ReferenceRealMultiplier(input_scale, kernel_scale, output_scale, product)));
    }
  }
  return q;
}

// Whether every channel's scale is one qwino supports (in the mode's own arithmetic).
inline bool ReferenceOutputSupported(bool fp32, ReferenceScaleProduct product, float input_scale,
                                     const std::vector<float>& kernel_scales, float output_scale) {
  for (float kernel_scale : kernel_scales) {
    const double m =
        fp32 ? double{ReferenceFp32Scale(input_scale, kernel_scale, output_scale)}
             : ReferenceRealMultiplier(input_scale, kernel_scale, output_scale, product);
    if (!ReferenceMultiplierSupported(m)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Convolution.

struct ReferenceConvolutionShape {
  size_t batch_size = 1;
  size_t input_height = 1, input_width = 1;
  uint32_t padding_top = 0, padding_right = 0, padding_bottom = 0, padding_left = 0;
  uint32_t kernel_height = 1, kernel_width = 1;
  uint32_t stride_height = 1, stride_width = 1;
  uint32_t dilation_height = 1, dilation_width = 1;
  uint32_t groups = 1;
  size_t group_input_channels = 1, group_output_channels = 1;
  size_t input_pixel_stride = 1, output_pixel_stride = 1;

  // Output size (0 if the padded input is smaller than the dilated kernel).
  static size_t OutputSize(size_t input, uint32_t before, uint32_t after, uint32_t kernel,
                           uint32_t dilation, uint32_t stride) {
    const int64_t padded = static_cast<int64_t>(input) + before + after;
    const int64_t effective = (static_cast<int64_t>(kernel) - 1) * dilation + 1;
    return padded < effective ? 0 : static_cast<size_t>((padded - effective) / stride + 1);
  }
  size_t output_height() const {
    return OutputSize(input_height, padding_top, padding_bottom, kernel_height, dilation_height,
                      stride_height);
  }
  size_t output_width() const {
    return OutputSize(input_width, padding_left, padding_right, kernel_width, dilation_width,
                      stride_width);
  }
  size_t output_channels() const { return groups * group_output_channels; }
  size_t input_channels() const { return groups * group_input_channels; }
  size_t output_pixels() const { return batch_size * output_height() * output_width(); }
};

// int32 accumulators with bias, one per (output pixel, output channel):
// [batch][output_height][output_width][groups * group_output_channels].
// kernel: [groups][group_output_channels][kernel_height][kernel_width][group_input_channels].
// bias: groups * group_output_channels values, or nullptr for zeros.
// Input and kernel are uint8_t or int8_t, with zero points of the same type's values.
template <typename Input, typename Kernel>
inline std::vector<int32_t> ReferenceConvolutionAccumulators(
    const ReferenceConvolutionShape& s, const Input* input, int32_t input_zero_point,
    const Kernel* kernel, int32_t kernel_zero_point, const int32_t* bias) {
  const size_t oh = s.output_height(), ow = s.output_width(), oc_total = s.output_channels();
  std::vector<int32_t> accumulators(s.output_pixels() * oc_total);
  const size_t kernel_group_stride =
      s.group_output_channels * s.kernel_height * s.kernel_width * s.group_input_channels;
  for (size_t n = 0; n < s.batch_size; n++) {
    for (size_t oy = 0; oy < oh; oy++) {
      for (size_t ox = 0; ox < ow; ox++) {
        for (size_t g = 0; g < s.groups; g++) {
          for (size_t oc = 0; oc < s.group_output_channels; oc++) {
            int64_t sum = 0;
            for (size_t ky = 0; ky < s.kernel_height; ky++) {
              const int64_t iy = static_cast<int64_t>(oy * s.stride_height) +
                                 static_cast<int64_t>(ky * s.dilation_height) - s.padding_top;
              if (iy < 0 || iy >= static_cast<int64_t>(s.input_height)) continue;
              for (size_t kx = 0; kx < s.kernel_width; kx++) {
                const int64_t ix = static_cast<int64_t>(ox * s.stride_width) +
                                   static_cast<int64_t>(kx * s.dilation_width) - s.padding_left;
                if (ix < 0 || ix >= static_cast<int64_t>(s.input_width)) continue;
                const Input* x = input +
                                 ((n * s.input_height + static_cast<size_t>(iy)) * s.input_width +
                                  static_cast<size_t>(ix)) *
                                     s.input_pixel_stride +
                                 g * s.group_input_channels;
                const Kernel* w =
                    kernel + g * kernel_group_stride +
                    ((oc * s.kernel_height + ky) * s.kernel_width + kx) * s.group_input_channels;
                for (size_t ic = 0; ic < s.group_input_channels; ic++) {
                  sum += (int64_t{x[ic]} - input_zero_point) * (int64_t{w[ic]} - kernel_zero_point);
                }
              }
            }
            // int32 accumulator: keep the low 32 bits (two's complement), then the bias, wrapping.
            int32_t acc = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
            const size_t channel = g * s.group_output_channels + oc;
            if (bias != nullptr) acc = ReferenceWrappingAdd(acc, bias[channel]);
            accumulators[((n * oh + oy) * ow + ox) * oc_total + channel] = acc;
          }
        }
      }
    }
  }
  return accumulators;
}

// Requantized output bytes (uint8 values, or int8 values as their two's complement bytes), dense:
// [batch][output_height][output_width][groups * group_output_channels].
inline std::vector<uint8_t> ReferenceRequantizeAll(const std::vector<int32_t>& accumulators,
                                                   const ReferenceOutputQuantization& q) {
  const size_t channels = q.fp32 ? q.scales.size() : q.multipliers.size();
  std::vector<uint8_t> output(accumulators.size());
  for (size_t i = 0; i < accumulators.size(); i++) {
    const size_t c = i % channels;
    const int32_t value =
        q.fp32 ? ReferenceRequantizeFp32(accumulators[i], q.scales[c], q.zero_point, q.min, q.max)
               : ReferenceRequantize(accumulators[i], q.multipliers[c].multiplier,
                                     ReferenceLeftShift(q.multipliers[c]),
                                     ReferenceRightShift(q.multipliers[c]), q.zero_point, q.min,
                                     q.max);
    output[i] = static_cast<uint8_t>(value);
  }
  return output;
}

// Requantized output, dense, one multiplier for every channel (uint8).
inline std::vector<uint8_t> ReferenceRequantizeAll(const std::vector<int32_t>& accumulators,
                                                   ReferenceMultiplier m, uint8_t output_zero_point,
                                                   uint8_t output_min, uint8_t output_max) {
  std::vector<uint8_t> output(accumulators.size());
  for (size_t i = 0; i < accumulators.size(); i++) {
    output[i] = ReferenceRequantize(accumulators[i], m, output_zero_point, output_min, output_max);
  }
  return output;
}

// Largest |accumulator| (without bias) any input can produce with these weights for a 3x3
// kernel: max over output channels of sum |w - kzp| * max(izp, 255 - izp). The Winograd
// F(2x2,3x3) path is exact (and must be chosen by "auto") iff this is < 2^29.
inline int64_t ReferenceAccumulatorBound(const ReferenceConvolutionShape& s, const uint8_t* kernel,
                                         uint8_t input_zero_point, uint8_t kernel_zero_point) {
  const int64_t largest_input =
      input_zero_point > 255 - input_zero_point ? input_zero_point : 255 - input_zero_point;
  const size_t per_channel = s.kernel_height * s.kernel_width * s.group_input_channels;
  int64_t bound = 0;
  for (size_t oc = 0; oc < s.output_channels(); oc++) {
    int64_t sum = 0;
    for (size_t i = 0; i < per_channel; i++) {
      const int64_t d = int64_t{kernel[oc * per_channel + i]} - kernel_zero_point;
      sum += d < 0 ? -d : d;
    }
    if (sum * largest_input > bound) bound = sum * largest_input;
  }
  return bound;
}

}  // namespace qwino_test

#endif  // QWINO_TEST_REFERENCE_CONVOLUTION_H_
