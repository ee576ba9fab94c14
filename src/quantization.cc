// TFLite's QuantizeMultiplier, reproduced from its documented behaviour: frexp, round the
// mantissa to 31 fractional bits half away from zero, renormalise when rounding reaches 2^31.
#include "qwino/quantization.h"

#include <cmath>

namespace qwino {

bool compute_requantization_params(float input_scale, float kernel_scale, float output_scale,
                                   uint8_t output_zero_point, uint8_t output_min,
                                   uint8_t output_max, qwino_qu8_gemmlowp_params* params) {
  const double multiplier =
      static_cast<double>(input_scale) * static_cast<double>(kernel_scale) /
      static_cast<double>(output_scale);
  if (!std::isfinite(multiplier) || multiplier < 0x1.0p-32 || multiplier >= 1.0) {
    return false;
  }
  int exponent = 0;
  const double mantissa = std::frexp(multiplier, &exponent);  // [0.5, 1)
  auto fixed = static_cast<int64_t>(std::round(mantissa * 0x1.0p31));
  if (fixed == (INT64_C(1) << 31)) {
    fixed /= 2;
    exponent += 1;
  }
  // M in [2^-32, 1) gives exponent in [-31, 0], or 1 when the mantissa rounded up to 1.0.
  params->multiplier = static_cast<int32_t>(fixed);
  params->left_shift = exponent > 0 ? static_cast<uint32_t>(exponent) : 0;
  params->right_shift = exponent < 0 ? static_cast<uint32_t>(-exponent) : 0;
  params->output_zero_point = output_zero_point;
  params->output_min = output_min;
  params->output_max = output_max;
  return true;
}

}  // namespace qwino

extern "C" void qwino_init_qu8_gemmlowp_scalar_params(union qwino_qu8_requantization_params* params,
                                                      int32_t multiplier, uint32_t left_shift,
                                                      uint32_t right_shift,
                                                      int32_t output_zero_point,
                                                      uint8_t output_min, uint8_t output_max) {
  params->gemmlowp.multiplier = multiplier;
  params->gemmlowp.left_shift = left_shift;
  params->gemmlowp.right_shift = right_shift;
  params->gemmlowp.output_zero_point = output_zero_point;
  params->gemmlowp.output_min = output_min;
  params->gemmlowp.output_max = output_max;
}
