// The test suite's one independent definition of TFLite's requantization arithmetic, shared by
// the operator reference (reference-convolution.h) and the testers of every requantizing
// micro-kernel (requantize, F(2x2,3x3) and F(4x4,3x3) output transforms).
//
// Why it exists: requantization bugs hide in rare corners (rounding ties, saturation,
// wrap-around), so the oracle is written from the mathematical definition and in a different
// form from src/qwino/requantization.h (SQRDMULH as "round((2ab + 2^31) / 2^32), saturate";
// RoundingDivideByPOT by sign and magnitude; wrapping adds as uint32 arithmetic), so that a
// shared misreading of gemmlowp cannot hide in both. It must include nothing from src/: it takes
// the parameter fields one by one, not qwino_qu8_gemmlowp_params. test/requantization.cc
// checks these primitives against exact 128-bit / double arithmetic and hand-computed values.
#ifndef QWINO_TEST_REQUANTIZATION_ORACLE_H_
#define QWINO_TEST_REQUANTIZATION_ORACLE_H_

#include <cmath>
#include <cstdint>
#include <limits>

namespace qwino_test {

// gemmlowp SaturatingRoundingDoublingHighMul == AArch64 SQRDMULH:
// saturate((2 * a * b + 2^31) >> 32), the shift being a floor (arithmetic) shift.
// 2ab + 2^31 fits int64 except for a = b = INT32_MIN, the one saturating case.
inline int32_t ReferenceSaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == std::numeric_limits<int32_t>::min() && b == std::numeric_limits<int32_t>::min()) {
    return std::numeric_limits<int32_t>::max();
  }
  const int64_t doubled = 2 * (static_cast<int64_t>(a) * static_cast<int64_t>(b));
  const int64_t rounded = doubled + (int64_t{1} << 31);
  // Floor division by 2^32 without relying on the implementation-defined >> of negatives.
  const int64_t divisor = int64_t{1} << 32;
  int64_t quotient = rounded / divisor;
  if (rounded % divisor != 0 && rounded < 0) {
    quotient -= 1;
  }
  return static_cast<int32_t>(quotient);
}

// gemmlowp RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero.
inline int32_t ReferenceRoundingDivideByPOT(int32_t x, int exponent) {
  if (exponent == 0) {
    return x;
  }
  const int64_t magnitude = x < 0 ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
  const int64_t rounded_magnitude = (magnitude + (int64_t{1} << (exponent - 1))) >> exponent;
  return static_cast<int32_t>(x < 0 ? -rounded_magnitude : rounded_magnitude);
}

// int32 addition modulo 2^32 (TFLite's int32 adds wrap).
inline int32_t ReferenceWrappingAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// gemmlowp MultiplyByQuantizedMultiplier with the shift given as its two parts:
// RoundingDivideByPOT(SQRDMULH(x << left_shift, multiplier), right_shift). The left shift
// (< 32) wraps modulo 2^32 like the vector shift of TFLite's optimized kernels.
inline int32_t ReferenceMultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier,
                                                      uint32_t left_shift, uint32_t right_shift) {
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left_shift);
  return ReferenceRoundingDivideByPOT(
      ReferenceSaturatingRoundingDoublingHighMul(shifted, multiplier),
      static_cast<int>(right_shift));
}

// gemmlowp mode, accumulator (bias included) -> the output value in the tensor's type (uint8
// 0..255 or int8 -128..127 as the caller's clamp bounds say), for every parameter value:
//   out = clamp(MultiplyByQuantizedMultiplier(accumulator) + output_zero_point,
//               output_min, output_max)
// with the zero-point add wrapping modulo 2^32 before the clamp. The clamp goes in this order:
// output_max wins when output_min > output_max.
inline int32_t ReferenceRequantize(int32_t accumulator, int32_t multiplier, uint32_t left_shift,
                                   uint32_t right_shift, int32_t output_zero_point,
                                   int32_t output_min, int32_t output_max) {
  int32_t value = ReferenceWrappingAdd(
      ReferenceMultiplyByQuantizedMultiplier(accumulator, multiplier, left_shift, right_shift),
      output_zero_point);
  if (value < output_min) value = output_min;
  if (value > output_max) value = output_max;
  return value;
}

// fp32 mode (ONNX Runtime's QLinearConv): the float32 product of (float) accumulator and scale,
// rounded once; then round half to even, + zero point, clamp (the definition's order: clamping
// after rounding, on the unbounded integer). The product is formed in double, where the product
// of two floats is exact, and rounded to float by the conversion (round to nearest even); the
// halfway test is done in double too.
inline int32_t ReferenceRequantizeFp32(int32_t accumulator, float scale, int32_t output_zero_point,
                                       int32_t output_min, int32_t output_max) {
  const float product =
      static_cast<float>(static_cast<double>(static_cast<float>(accumulator)) * double{scale});
  const double down = std::floor(double{product});
  const double fraction = double{product} - down;
  double rounded = down;
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(down, 2.0) != 0.0)) {
    rounded = down + 1.0;
  }
  // |product| <= 2^31 * 2^8 for the scales the tests use: exact in int64.
  int64_t value = static_cast<int64_t>(rounded) + output_zero_point;
  if (value < output_min) value = output_min;
  if (value > output_max) value = output_max;
  return static_cast<int32_t>(value);
}

}  // namespace qwino_test

#endif  // QWINO_TEST_REQUANTIZATION_ORACLE_H_
