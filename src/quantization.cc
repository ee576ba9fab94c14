// TFLite's QuantizeMultiplier, reproduced from its documented behaviour: frexp, round the
// mantissa to 31 fractional bits half away from zero, renormalise when rounding reaches 2^31,
// flush an exponent below -31 to multiplier 0; the fp32 scale; and the init functions of both
// modes' microparams.
#include "qwino/quantization.h"

#include <cmath>
#include <cstring>

namespace qwino {

bool quantize_multiplier(float input_scale, float kernel_scale, float output_scale,
                         ScaleProduct product, int32_t* multiplier, uint32_t* left_shift,
                         uint32_t* right_shift) {
  // volatile: the float product is rounded to float, whatever the compiler's contraction or
  // excess-precision settings (as in fp32_scale below).
  volatile float float_product = input_scale * kernel_scale;
  const double scale_product =
      product == ScaleProduct::kFloat
          ? static_cast<double>(float_product)
          : static_cast<double>(input_scale) * static_cast<double>(kernel_scale);
  const double m = scale_product / static_cast<double>(output_scale);
  if (!std::isfinite(m) || m < 0.0 || m > kMaxRequantizationScale) {
    return false;
  }
  *multiplier = 0;
  *left_shift = 0;
  *right_shift = 0;
  if (m == 0.0) {  // only where the float product underflows; TFLite's QuantizeMultiplier(0)
    return true;
  }
  int exponent = 0;
  const double mantissa = std::frexp(m, &exponent);  // [0.5, 1)
  auto fixed = static_cast<int64_t>(std::round(mantissa * 0x1.0p31));
  if (fixed == (INT64_C(1) << 31)) {
    fixed /= 2;
    exponent += 1;
  }
  // TFLite flushes an exponent below -31 (after the rounding above) to multiplier 0, shift 0:
  // every accumulator then requantizes to 0.
  if (exponent < -31) {
    return true;
  }
  // M in [2^-32, 256] gives exponent in [-31, 9].
  *multiplier = static_cast<int32_t>(fixed);
  *left_shift = exponent > 0 ? static_cast<uint32_t>(exponent) : 0;
  *right_shift = exponent < 0 ? static_cast<uint32_t>(-exponent) : 0;
  return true;
}

bool fp32_scale(float input_scale, float kernel_scale, float output_scale, float* scale) {
  // volatile: the product is rounded to float before the division, as the definition says,
  // whatever the compiler's contraction or excess-precision settings.
  volatile float product = input_scale * kernel_scale;
  const float s = product / output_scale;
  if (!std::isfinite(s) || s < 0.0f || double{s} > kMaxRequantizationScale) {
    return false;
  }
  // Below 2^-32, |(float) acc * s| < 0.5 for every int32 acc (|(float) acc| <= 2^31, and the
  // product rounds to at most 0.5 - 2^-25): it rounds to 0, as the product with 0.0f does.
  *scale = s < kFp32SmallestNonzeroScale ? 0.0f : s;
  return true;
}

}  // namespace qwino

extern "C" void qwino_init_qu8_gemmlowp_scalar_params(union qwino_qu8_requantization_params* params,
                                                      const struct qwino_output_quantization* q) {
  qwino_qu8_gemmlowp_params& p = params->gemmlowp;
  p = qwino_qu8_gemmlowp_params{};
  p.channel_stride = q->channel_stride;
  p.output_zero_point = q->output_zero_point;
  p.output_sign = q->output_sign;
  const int32_t offset = q->output_sign != 0 ? 128 : 0;
  p.output_min = static_cast<uint8_t>(q->output_min + offset);
  p.output_max = static_cast<uint8_t>(q->output_max + offset);
  const int32_t* left_shift = q->channel_params + 2 * q->channel_stride;
  const int32_t* right_shift = q->channel_params + 3 * q->channel_stride;
  bool has_left_shift = false, positive_shift = true;
  for (size_t c = 0; c < q->channels; c++) {
    has_left_shift = has_left_shift || left_shift[c] != 0;
    positive_shift = positive_shift && left_shift[c] == 0 && right_shift[c] > 0;
  }
  p.has_left_shift = has_left_shift;
  p.positive_shift = positive_shift;
}

extern "C" void qwino_init_qu8_fp32_scalar_params(union qwino_qu8_requantization_params* params,
                                                  const struct qwino_output_quantization* q) {
  qwino_qu8_fp32_params& p = params->fp32;
  p = qwino_qu8_fp32_params{};
  p.channel_stride = q->channel_stride;
  const int32_t offset = q->output_sign != 0 ? 128 : 0;
  p.output_zero_point = q->output_zero_point + offset;
  p.output_min_less_zero_point = static_cast<float>(q->output_min - q->output_zero_point);
  p.output_max_less_zero_point = static_cast<float>(q->output_max - q->output_zero_point);
  p.output_sign = q->output_sign;
}
