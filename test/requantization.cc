// src's requantization (qwino/quantization.h, qwino/requantization.h) against the independent
// reference in reference-convolution.h and requantization-oracle.h, and the reference itself
// against exact arithmetic and hand-computed TFLite/gemmlowp values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "qwino/quantization.h"
#include "qwino/requantization.h"
#include "reference-convolution.h"

namespace {

using qwino_test::ReferenceMultiplier;
using qwino_test::ReferenceMultiplyByQuantizedMultiplier;
using qwino_test::ReferenceQuantizeMultiplier;
using qwino_test::ReferenceRealMultiplier;
using qwino_test::ReferenceRequantize;
using qwino_test::ReferenceRoundingDivideByPOT;
using qwino_test::ReferenceSaturatingRoundingDoublingHighMul;

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

// Interesting int32 values: extremes, powers of two and their neighbours, small numbers.
std::vector<int32_t> EdgeValues() {
  std::vector<int32_t> v = {kMin, kMin + 1, kMin + 2, kMax, kMax - 1, kMax - 2, 0,
                            1,    -1,       2,        -2,   3,        -3};
  for (int k = 1; k < 31; k++) {
    const int32_t p = int32_t{1} << k;
    for (int32_t d : {-1, 0, 1}) {
      v.push_back(p + d);
      v.push_back(-p + d);
    }
  }
  v.push_back(2147483520);  // (1 - 2^-24) * 2^31
  v.push_back(1610612736);  // 0.75 * 2^31
  return v;
}

// Exact value of the reference's definitions, with 128-bit integers / exact doubles.
int32_t ExactSqrdmulh(int32_t a, int32_t b) {
  const __int128 doubled = static_cast<__int128>(2) * a * b + (static_cast<__int128>(1) << 31);
  __int128 q = doubled / (static_cast<__int128>(1) << 32);
  if (doubled % (static_cast<__int128>(1) << 32) != 0 && doubled < 0) q -= 1;  // floor
  if (q > kMax) return kMax;
  return static_cast<int32_t>(q);
}

int32_t ExactRoundingDivideByPOT(int32_t x, int exponent) {
  // x / 2^exponent is exact in double (31 significant bits); std::round is half away from zero.
  return static_cast<int32_t>(std::round(std::ldexp(static_cast<double>(x), -exponent)));
}

// src's QuantizeMultiplier result (qwino/quantization.h).
struct SrcMultiplier {
  int32_t multiplier = 12345;
  uint32_t left_shift = 77, right_shift = 77;
};

// The src multiplier as a reference multiplier (shift = left - right).
ReferenceMultiplier FromSrc(const SrcMultiplier& p) {
  ReferenceMultiplier m;
  m.multiplier = p.multiplier;
  m.shift = static_cast<int>(p.left_shift) - static_cast<int>(p.right_shift);
  return m;
}

// TFLite's int8 rule (double product) unless told otherwise.
bool SrcQuantize(float a, float b, float c, SrcMultiplier* p,
                 qwino::ScaleProduct product = qwino::ScaleProduct::kDouble) {
  return qwino::quantize_multiplier(a, b, c, product, &p->multiplier, &p->left_shift,
                                    &p->right_shift);
}

// src's rule for the reference's.
qwino::ScaleProduct SrcProduct(qwino_test::ReferenceScaleProduct product) {
  return product == qwino_test::ReferenceScaleProduct::kUint8Kernels ? qwino::ScaleProduct::kFloat
                                                                     : qwino::ScaleProduct::kDouble;
}

constexpr qwino_test::ReferenceScaleProduct kBothProducts[] = {
    qwino_test::ReferenceScaleProduct::kUint8Kernels,
    qwino_test::ReferenceScaleProduct::kInt8Kernels};

// The gemmlowp microparams' per-tensor fields for an output in the tensor's own values.
qwino_qu8_gemmlowp_params GemmlowpOutput(int32_t zero_point, int32_t min, int32_t max, bool int8) {
  qwino_qu8_gemmlowp_params p{};
  p.output_zero_point = zero_point;
  p.output_min = static_cast<uint8_t>(min + (int8 ? 128 : 0));
  p.output_max = static_cast<uint8_t>(max + (int8 ? 128 : 0));
  p.output_sign = int8 ? 0x80 : 0;
  return p;
}

// ---------------------------------------------------------------------------------------------
// The reference against exact arithmetic (so that the comparisons below mean something).

TEST(RequantizationReference, sqrdmulh_is_exact_rounding_doubling_high_product) {
  const std::vector<int32_t> edges = EdgeValues();
  for (int32_t a : edges) {
    for (int32_t b : edges) {
      ASSERT_EQ(ExactSqrdmulh(a, b), ReferenceSaturatingRoundingDoublingHighMul(a, b))
          << a << " " << b;
    }
  }
  std::mt19937 rng(1);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  for (int i = 0; i < 200000; i++) {
    const int32_t a = any(rng), b = any(rng);
    ASSERT_EQ(ExactSqrdmulh(a, b), ReferenceSaturatingRoundingDoublingHighMul(a, b))
        << a << " " << b;
  }
}

TEST(RequantizationReference, rounding_divide_by_pot_is_exact_round_half_away) {
  const std::vector<int32_t> edges = EdgeValues();
  for (int e = 0; e <= 31; e++) {
    for (int32_t x : edges) {
      ASSERT_EQ(ExactRoundingDivideByPOT(x, e), ReferenceRoundingDivideByPOT(x, e))
          << x << " " << e;
    }
  }
}

// gemmlowp / TFLite values worked out by hand.
TEST(RequantizationReference, known_values) {
  // SaturatingRoundingDoublingHighMul: the one saturating case, and round half up.
  EXPECT_EQ(kMax, ReferenceSaturatingRoundingDoublingHighMul(kMin, kMin));
  EXPECT_EQ(kMax - 1, ReferenceSaturatingRoundingDoublingHighMul(kMax, kMax));
  EXPECT_EQ(-kMax, ReferenceSaturatingRoundingDoublingHighMul(kMin, kMax));
  EXPECT_EQ(1, ReferenceSaturatingRoundingDoublingHighMul(1, 1 << 30));    // 0.5 -> 1
  EXPECT_EQ(0, ReferenceSaturatingRoundingDoublingHighMul(-1, 1 << 30));   // -0.5 -> 0
  EXPECT_EQ(2, ReferenceSaturatingRoundingDoublingHighMul(3, 1 << 30));    // 1.5 -> 2
  EXPECT_EQ(-1, ReferenceSaturatingRoundingDoublingHighMul(-3, 1 << 30));  // -1.5 -> -1
  // RoundingDivideByPOT: ties away from zero.
  EXPECT_EQ(3, ReferenceRoundingDivideByPOT(5, 1));
  EXPECT_EQ(-3, ReferenceRoundingDivideByPOT(-5, 1));
  EXPECT_EQ(-1, ReferenceRoundingDivideByPOT(-1, 1));
  EXPECT_EQ(-1, ReferenceRoundingDivideByPOT(-5, 2));  // -1.25
  EXPECT_EQ(-2, ReferenceRoundingDivideByPOT(-6, 2));  // -1.5
  EXPECT_EQ(-1, ReferenceRoundingDivideByPOT(kMin, 31));
  EXPECT_EQ(1, ReferenceRoundingDivideByPOT(kMax, 31));
  EXPECT_EQ(1, ReferenceRoundingDivideByPOT(1 << 30, 31));
  EXPECT_EQ(0, ReferenceRoundingDivideByPOT((1 << 30) - 1, 31));
  EXPECT_EQ(kMin, ReferenceRoundingDivideByPOT(kMin, 0));
  // QuantizeMultiplier.
  EXPECT_EQ(1 << 30, ReferenceQuantizeMultiplier(0.5).multiplier);
  EXPECT_EQ(0, ReferenceQuantizeMultiplier(0.5).shift);
  EXPECT_EQ(1 << 30, ReferenceQuantizeMultiplier(0.25).multiplier);
  EXPECT_EQ(-1, ReferenceQuantizeMultiplier(0.25).shift);
  EXPECT_EQ(1610612736, ReferenceQuantizeMultiplier(0.75).multiplier);
  EXPECT_EQ(1 << 30, ReferenceQuantizeMultiplier(std::ldexp(1.0, -32)).multiplier);
  EXPECT_EQ(-31, ReferenceQuantizeMultiplier(std::ldexp(1.0, -32)).shift);
  EXPECT_EQ(1518500250,
            ReferenceQuantizeMultiplier(std::sqrt(0.5)).multiplier);  // 0.70710678 * 2^31
  // Below 2^-32 (an exponent below -31 after the rounding): flushed to multiplier 0, shift 0.
  for (double tiny : {std::ldexp(1.0, -33), std::ldexp(1.0 - std::ldexp(1.0, -24), -32),
                      std::ldexp(1.0 - std::ldexp(1.0, -31), -32), 1e-12, 1e-36, 0.0}) {
    EXPECT_EQ(0, ReferenceQuantizeMultiplier(tiny).multiplier) << tiny;
    EXPECT_EQ(0, ReferenceQuantizeMultiplier(tiny).shift) << tiny;
    for (int32_t x : EdgeValues()) {
      ASSERT_EQ(0, ReferenceMultiplyByQuantizedMultiplier(x, ReferenceQuantizeMultiplier(tiny)));
    }
  }
  // Within 2^-64 below 2^-32 the mantissa rounds up to 1.0: renormalised to 2^-32, kept.
  const double rounds_up = std::ldexp(1.0 - std::ldexp(1.0, -48), -32);
  EXPECT_EQ(1 << 30, ReferenceQuantizeMultiplier(rounds_up).multiplier);
  EXPECT_EQ(-31, ReferenceQuantizeMultiplier(rounds_up).shift);
  // MultiplyByQuantizedMultiplier: double rounding (half up, then half away from zero).
  const ReferenceMultiplier half = ReferenceQuantizeMultiplier(0.5);
  const ReferenceMultiplier quarter = ReferenceQuantizeMultiplier(0.25);
  const ReferenceMultiplier three_quarters = ReferenceQuantizeMultiplier(0.75);
  EXPECT_EQ(500, ReferenceMultiplyByQuantizedMultiplier(1000, half));
  EXPECT_EQ(501, ReferenceMultiplyByQuantizedMultiplier(1001, half));         // 500.5
  EXPECT_EQ(-500, ReferenceMultiplyByQuantizedMultiplier(-1001, half));       // -500.5
  EXPECT_EQ(2, ReferenceMultiplyByQuantizedMultiplier(6, quarter));           // 1.5
  EXPECT_EQ(-2, ReferenceMultiplyByQuantizedMultiplier(-6, quarter));         // -1.5
  EXPECT_EQ(-1, ReferenceMultiplyByQuantizedMultiplier(-2, quarter));         // -0.5
  EXPECT_EQ(-1, ReferenceMultiplyByQuantizedMultiplier(-2, three_quarters));  // -1.5
  EXPECT_EQ(2, ReferenceMultiplyByQuantizedMultiplier(2, three_quarters));    // 1.5
}

// ---------------------------------------------------------------------------------------------
// src against the reference.

TEST(Requantization, saturating_rounding_doubling_high_mul) {
  const std::vector<int32_t> edges = EdgeValues();
  for (int32_t a : edges) {
    for (int32_t b : edges) {
      ASSERT_EQ(ReferenceSaturatingRoundingDoublingHighMul(a, b),
                qwino_saturating_rounding_doubling_high_mul(a, b))
          << a << " " << b;
    }
  }
  std::mt19937 rng(2);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int32_t> multiplier(1 << 30, kMax);
  for (int i = 0; i < 300000; i++) {
    const int32_t a = any(rng), b = (i & 1) ? any(rng) : multiplier(rng);
    ASSERT_EQ(ReferenceSaturatingRoundingDoublingHighMul(a, b),
              qwino_saturating_rounding_doubling_high_mul(a, b))
        << a << " " << b;
  }
}

TEST(Requantization, rounding_divide_by_pot) {
  const std::vector<int32_t> edges = EdgeValues();
  std::mt19937 rng(3);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  for (uint32_t e = 0; e <= 31; e++) {
    for (int32_t x : edges) {
      ASSERT_EQ(ReferenceRoundingDivideByPOT(x, static_cast<int>(e)),
                qwino_rounding_divide_by_pot(x, e))
          << x << " " << e;
    }
    // Ties: x = (2k + 1) * 2^(e-1).
    if (e > 0) {
      for (int32_t k = -5; k <= 5; k++) {
        const int64_t tie = (2 * int64_t{k} + 1) * (int64_t{1} << (e - 1));
        if (tie < kMin || tie > kMax) continue;
        const int32_t x = static_cast<int32_t>(tie);
        ASSERT_EQ(ReferenceRoundingDivideByPOT(x, static_cast<int>(e)),
                  qwino_rounding_divide_by_pot(x, e))
            << x << " " << e;
      }
    }
    for (int i = 0; i < 20000; i++) {
      const int32_t x = any(rng);
      ASSERT_EQ(ReferenceRoundingDivideByPOT(x, static_cast<int>(e)),
                qwino_rounding_divide_by_pot(x, e))
          << x << " " << e;
    }
  }
}

// quantize_multiplier == QuantizeMultiplier of TFLite's real multiplier under each product rule
// (float product for its uint8 kernels, double for its int8 ones), multiplier 0 and shifts 0
// below 2^-32, and rejects exactly the multipliers above 256 (and the non-finite ones).
void CheckMultiplier(float input_scale, float kernel_scale, float output_scale,
                     qwino_test::ReferenceScaleProduct product) {
  const double real = ReferenceRealMultiplier(input_scale, kernel_scale, output_scale, product);
  SrcMultiplier p;
  const bool ok = SrcQuantize(input_scale, kernel_scale, output_scale, &p, SrcProduct(product));
  ASSERT_EQ(qwino_test::ReferenceMultiplierSupported(real), ok)
      << input_scale << " * " << kernel_scale << " / " << output_scale << " = " << real;
  if (!ok) return;
  const ReferenceMultiplier m = ReferenceQuantizeMultiplier(real);
  EXPECT_EQ(m.multiplier, p.multiplier) << real;
  EXPECT_EQ(m.shift, FromSrc(p).shift) << real;
  // Flushed exactly below 2^-32, except where the mantissa rounds up to 2^-32 itself.
  EXPECT_EQ(real < std::ldexp(1.0 - std::ldexp(1.0, -32), -32), p.multiplier == 0) << real;
  if (p.multiplier == 0) {
    EXPECT_EQ(0u, p.left_shift) << real;
    EXPECT_EQ(0u, p.right_shift) << real;
    return;
  }
  EXPECT_GE(p.multiplier, int32_t{1} << 30);
  EXPECT_LE(p.left_shift, 9u);
  EXPECT_LE(p.right_shift, 31u);
  EXPECT_TRUE(p.left_shift == 0 || p.right_shift == 0);
  // multiplier * 2^(shift - 31) is the real multiplier to 31 bits.
  EXPECT_LE(std::fabs(std::ldexp(static_cast<double>(p.multiplier), m.shift - 31) - real),
            std::ldexp(real, -31));
}

// Both TFLite rules, and the fp32 mode's scale.
void CheckScales(float input_scale, float kernel_scale, float output_scale) {
  for (qwino_test::ReferenceScaleProduct product : kBothProducts) {
    CheckMultiplier(input_scale, kernel_scale, output_scale, product);
  }
  // The fp32 mode's scale: the float32 product and quotient, same range; 0.0f below 2^-32.
  float scale = -1.0f;
  const float reference_scale =
      qwino_test::ReferenceFp32Scale(input_scale, kernel_scale, output_scale);
  const bool fp32_ok = qwino::fp32_scale(input_scale, kernel_scale, output_scale, &scale);
  ASSERT_EQ(qwino_test::ReferenceMultiplierSupported(reference_scale), fp32_ok)
      << input_scale << " * " << kernel_scale << " / " << output_scale << " = " << reference_scale
      << " in float";
  if (fp32_ok) {
    EXPECT_EQ(reference_scale < std::ldexp(1.0f, -32) ? 0.0f : reference_scale, scale);
  }
}

TEST(Requantization, quantize_multiplier_edges) {
  const float one = 1.0f;
  const float below_one = 1.0f - std::ldexp(1.0f, -24);
  const float up = 1.0f + std::ldexp(1.0f, -22), down = 1.0f - std::ldexp(1.0f, -23),
              c = 1.0f + std::ldexp(1.0f, -23);
  CheckScales(one, one, one);                              // 1: shift +1 (2^30 * 2^(1-31))
  CheckScales(below_one, one, one);                        // 1 - 2^-24: shift 0
  CheckScales(up, down, c);                                // rounds up to 1.0: shift +1
  CheckScales(one, std::ldexp(1.0f, -32), one);            // 2^-32: shift -31
  CheckScales(below_one, std::ldexp(1.0f, -32), one);      // just below 2^-32: multiplier 0
  CheckScales(one, std::ldexp(1.0f, -33), one);            // 2^-33: multiplier 0
  CheckScales(one, 1e-36f, one);                           // a dead channel's scale
  CheckScales(up, down * std::ldexp(1.0f, -31), c);        // rounds up to 2^-31: shift -30
  CheckScales(up, down * std::ldexp(1.0f, -32), c);        // rounds up to 2^-32 (below it): kept
  CheckScales(256.0f, one, one);                           // 256: shift +9, the largest
  CheckScales(256.0f, 1.0f + std::ldexp(1.0f, -23), one);  // just above 256: unsupported
  CheckScales(255.99f, one, one);
  CheckScales(0.5f, 0.5f, 0.5f);
  CheckScales(std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), one);
  CheckScales(std::numeric_limits<float>::denorm_min(), one, one);
  CheckScales(one, one, std::numeric_limits<float>::denorm_min());
  CheckScales(std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
              std::numeric_limits<float>::denorm_min());  // huge but finite in double
  CheckScales(std::numeric_limits<float>::infinity(), one, one);
  CheckScales(std::numeric_limits<float>::quiet_NaN(), one, one);

  SrcMultiplier p;
  ASSERT_TRUE(SrcQuantize(up, down, c, &p));
  EXPECT_EQ(int32_t{1} << 30, p.multiplier);
  EXPECT_EQ(1u, p.left_shift);
  EXPECT_EQ(0u, p.right_shift);
  ASSERT_TRUE(SrcQuantize(one, std::ldexp(1.0f, -32), one, &p));
  EXPECT_EQ(int32_t{1} << 30, p.multiplier);
  EXPECT_EQ(0u, p.left_shift);
  EXPECT_EQ(31u, p.right_shift);
  ASSERT_TRUE(SrcQuantize(256.0f, one, one, &p));
  EXPECT_EQ(int32_t{1} << 30, p.multiplier);
  EXPECT_EQ(9u, p.left_shift);
  EXPECT_EQ(0u, p.right_shift);
}

// Requantization scales below 2^-32 (PP-OCRv4's dead channels: weights ~1e-34 make M 1e-36 to
// 1e-12): TFLite's multiplier 0 with shifts 0, the fp32 scale 0.0f; and the scales just above,
// at and around the boundary, where TFLite's rounding decides.
TEST(Requantization, quantize_multiplier_below_2_pow_minus_32) {
  const float one = 1.0f;
  const struct {
    float a, b, c;
  } dead[] = {
      {one, 1e-36f, one},
      {one, 1e-34f, 0.01f},
      {one, 1e-12f, one},
      {one, std::ldexp(1.0f, -33), one},
      {one, std::ldexp(1.0f - std::ldexp(1.0f, -24), -32), one},  // the float below 2^-32
      {std::numeric_limits<float>::denorm_min(), one, one},
      {std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::denorm_min(), one},
      {1e-30f, 1e-30f, 1e30f},
  };
  for (const auto& s : dead) {
    SCOPED_TRACE(::testing::Message() << s.a << " * " << s.b << " / " << s.c);
    for (qwino::ScaleProduct product :
         {qwino::ScaleProduct::kFloat, qwino::ScaleProduct::kDouble}) {
      SrcMultiplier p;
      ASSERT_TRUE(SrcQuantize(s.a, s.b, s.c, &p, product));
      EXPECT_EQ(0, p.multiplier);
      EXPECT_EQ(0u, p.left_shift);
      EXPECT_EQ(0u, p.right_shift);
    }
    float scale = -1.0f;
    ASSERT_TRUE(qwino::fp32_scale(s.a, s.b, s.c, &scale));
    EXPECT_EQ(0.0f, scale);
    EXPECT_FALSE(std::signbit(scale));
    CheckScales(s.a, s.b, s.c);
  }
  // denorm_min * denorm_min underflows to 0 in float: M = 0 under the float rule (TFLite's
  // QuantizeMultiplier(0) is multiplier 0, shift 0 too); the double rule keeps 2^-298.
  ASSERT_EQ(0.0, ReferenceRealMultiplier(std::numeric_limits<float>::denorm_min(),
                                         std::numeric_limits<float>::denorm_min(), one,
                                         qwino_test::ReferenceScaleProduct::kUint8Kernels));
  // 2^-32 exactly stays: multiplier 2^30, right shift 31; fp32 keeps the scale.
  SrcMultiplier p;
  ASSERT_TRUE(SrcQuantize(one, std::ldexp(1.0f, -32), one, &p));
  EXPECT_EQ(int32_t{1} << 30, p.multiplier);
  EXPECT_EQ(31u, p.right_shift);
  float scale = 0.0f;
  ASSERT_TRUE(qwino::fp32_scale(one, std::ldexp(1.0f, -32), one, &scale));
  EXPECT_EQ(std::ldexp(1.0f, -32), scale);
  // 2^-16 (1 - 2^-23) * 2^-16 (1 + 2^-23) = 2^-32 (1 - 2^-46): below 2^-32, but its mantissa
  // rounds up to 1.0 in 31 bits, and TFLite tests the exponent after renormalising: kept, as
  // multiplier 2^30, right shift 31, under both rules (the float product is 2^-32 itself).
  const float a = std::ldexp(1.0f - std::ldexp(1.0f, -23), -16);
  const float b = std::ldexp(1.0f + std::ldexp(1.0f, -23), -16);
  ASSERT_LT(ReferenceRealMultiplier(a, b, one, qwino_test::ReferenceScaleProduct::kInt8Kernels),
            std::ldexp(1.0, -32));
  for (qwino::ScaleProduct product : {qwino::ScaleProduct::kFloat, qwino::ScaleProduct::kDouble}) {
    ASSERT_TRUE(SrcQuantize(a, b, one, &p, product));
    EXPECT_EQ(int32_t{1} << 30, p.multiplier);
    EXPECT_EQ(0u, p.left_shift);
    EXPECT_EQ(31u, p.right_shift);
  }
  CheckScales(a, b, one);
  // Above 256 and non-finite stay refused.
  EXPECT_FALSE(SrcQuantize(512.0f, one, one, &p));
  EXPECT_FALSE(qwino::fp32_scale(512.0f, one, one, &scale));
  EXPECT_FALSE(SrcQuantize(std::numeric_limits<float>::infinity(), one, one, &p));
  EXPECT_FALSE(qwino::fp32_scale(std::numeric_limits<float>::infinity(), one, one, &scale));
}

TEST(Requantization, quantize_multiplier_random) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-20, 10);
  size_t supported = 0;
  for (int i = 0; i < 100000; i++) {
    const float a = std::ldexp(mantissa(rng), exponent(rng));
    const float b = std::ldexp(mantissa(rng), exponent(rng));
    const float c = std::ldexp(mantissa(rng), exponent(rng));
    if (qwino_test::ReferenceMultiplierSupported(
            ReferenceRealMultiplier(a, b, c, qwino_test::ReferenceScaleProduct::kInt8Kernels))) {
      supported++;
    }
    CheckScales(a, b, c);
    if (HasFailure()) return;
  }
  EXPECT_GT(supported, 10000u);  // the sample is not all rejected
}

// TFLite's uint8 kernels round input_scale * kernel_scale to float before the division
// (GetQuantizedConvolutionMultipler), its int8 kernels do not. The witness: a 1x1 layer of one
// channel whose input sits at its zero point, so the accumulator is the bias, -8466; TFLite's
// uint8 convolution writes 67 where the double product gives 68.
constexpr float kWitnessInputScale = 0x1.ad3748p-8f;
constexpr float kWitnessKernelScale = 0x1.37f0b4p-9f;
constexpr float kWitnessOutputScale = 0x1.1de718p-9f;
constexpr int32_t kWitnessAccumulator = -8466;

TEST(Requantization, tflite_uint8_multiplier_witness) {
  SrcMultiplier uint8_rule, int8_rule;
  ASSERT_TRUE(SrcQuantize(kWitnessInputScale, kWitnessKernelScale, kWitnessOutputScale, &uint8_rule,
                          qwino::ScaleProduct::kFloat));
  ASSERT_TRUE(SrcQuantize(kWitnessInputScale, kWitnessKernelScale, kWitnessOutputScale, &int8_rule,
                          qwino::ScaleProduct::kDouble));
  EXPECT_NE(uint8_rule.multiplier, int8_rule.multiplier);
  const qwino_qu8_gemmlowp_params p = GemmlowpOutput(128, 0, 255, false);
  EXPECT_EQ(67, qwino_requantize_gemmlowp(kWitnessAccumulator, uint8_rule.multiplier,
                                          uint8_rule.left_shift, uint8_rule.right_shift, &p));
  EXPECT_EQ(68, qwino_requantize_gemmlowp(kWitnessAccumulator, int8_rule.multiplier,
                                          int8_rule.left_shift, int8_rule.right_shift, &p));
  for (qwino_test::ReferenceScaleProduct product : kBothProducts) {
    CheckMultiplier(kWitnessInputScale, kWitnessKernelScale, kWitnessOutputScale, product);
  }
}

// Scales with full 24-bit mantissas, where the float product often rounds away from the double
// one: src follows each rule, and the rules do give different multipliers (the sweep is not
// vacuous) and different bytes for accumulators whose scaled value lies next to a rounding
// boundary (the multipliers differ in their last bits, so only there).
TEST(Requantization, scale_product_rules_sweep) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-12, 0);
  const qwino_qu8_gemmlowp_params p = GemmlowpOutput(128, 0, 255, false);
  size_t different_multipliers = 0, different_bytes = 0;
  for (int i = 0; i < 20000; i++) {
    const float a = std::ldexp(mantissa(rng), exponent(rng));
    const float b = std::ldexp(mantissa(rng), exponent(rng));
    const float c = std::ldexp(mantissa(rng), exponent(rng) - 6);
    for (qwino_test::ReferenceScaleProduct product : kBothProducts) {
      CheckMultiplier(a, b, c, product);
    }
    if (HasFailure()) return;
    SrcMultiplier uint8_rule, int8_rule;
    if (!SrcQuantize(a, b, c, &uint8_rule, qwino::ScaleProduct::kFloat) ||
        !SrcQuantize(a, b, c, &int8_rule, qwino::ScaleProduct::kDouble) ||
        uint8_rule.multiplier == int8_rule.multiplier) {
      continue;
    }
    different_multipliers++;
    const double m = std::ldexp(
        static_cast<double>(uint8_rule.multiplier),
        static_cast<int>(uint8_rule.left_shift) - static_cast<int>(uint8_rule.right_shift) - 31);
    for (int k = 0; k < 100; k++) {
      // x m is within m / 2 of k + 1/2: below 128 + 100, so no clamp hides a difference.
      const double x = std::round((k + 0.5) / m);
      if (x > 1e9) break;
      const int32_t accumulator = static_cast<int32_t>(x);
      different_bytes +=
          qwino_requantize_gemmlowp(accumulator, uint8_rule.multiplier, uint8_rule.left_shift,
                                    uint8_rule.right_shift, &p) !=
          qwino_requantize_gemmlowp(accumulator, int8_rule.multiplier, int8_rule.left_shift,
                                    int8_rule.right_shift, &p);
    }
  }
  EXPECT_GT(different_multipliers, 1000u);
  EXPECT_GT(different_bytes, 0u);
}

// The whole gemmlowp output stage: accumulator -> byte, uint8 and int8 outputs.
void CheckRequantize(int32_t accumulator, const SrcMultiplier& m, int32_t zero_point, int32_t min,
                     int32_t max, bool int8) {
  const qwino_qu8_gemmlowp_params p = GemmlowpOutput(zero_point, min, max, int8);
  const int32_t expected = ReferenceRequantize(accumulator, m.multiplier, m.left_shift,
                                               m.right_shift, zero_point, min, max);
  ASSERT_EQ(
      int{static_cast<uint8_t>(expected)},
      int{qwino_requantize_gemmlowp(accumulator, m.multiplier, m.left_shift, m.right_shift, &p)})
      << "accumulator " << accumulator << ", multiplier " << m.multiplier << ", left "
      << m.left_shift << ", right " << m.right_shift << ", zero point " << zero_point << ", ["
      << min << ", " << max << "]" << (int8 ? " int8" : " uint8");
}

TEST(Requantization, requantize_edges) {
  const std::vector<int32_t> edges = EdgeValues();
  struct Scales {
    float a, b, c;
  };
  const float up = 1.0f + std::ldexp(1.0f, -22), down = 1.0f - std::ldexp(1.0f, -23),
              c = 1.0f + std::ldexp(1.0f, -23);
  const Scales scales[] = {
      {1.0f, std::ldexp(1.0f, -32), 1.0f},         // shift -31
      {1.0f, std::ldexp(1.0f, -33), 1.0f},         // multiplier 0: every output the zero point
      {1.0f, 1e-36f, 1.0f},                        // multiplier 0
      {1.0f - std::ldexp(1.0f, -24), 1.0f, 1.0f},  // shift 0, multiplier 2^31 - 128
      {up, down, c},                               // shift +1 (the accumulator doubles, wrapping)
      {0.5f, 1.0f, 1.0f},
      {0.75f, 1.0f, 1.0f},
      {1.0f, std::ldexp(1.0f, -16), 3.0f},
      {0.1f, 0.02f, 0.3f},
      {256.0f, 1.0f, 1.0f},  // shift +9
      {3.0f, 7.0f, 0.5f},    // 42: shift +6
  };
  for (const Scales& s : scales) {
    SrcMultiplier m;
    ASSERT_TRUE(SrcQuantize(s.a, s.b, s.c, &m));
    for (bool int8 : {false, true}) {
      const int32_t offset = int8 ? -128 : 0;
      for (int32_t zp : {0, 1, 127, 128, 255}) {
        for (auto range : {std::pair<int, int>{0, 255}, {0, 0}, {255, 255}, {100, 140}}) {
          for (int32_t x : edges) {
            CheckRequantize(x, m, zp + offset, range.first + offset, range.second + offset, int8);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

TEST(Requantization, requantize_random) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int32_t> small(-100000, 100000);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-40, 8);  // below -31: multiplier 0
  for (int i = 0; i < 2000; i++) {
    const float b = std::ldexp(mantissa(rng), exponent(rng));
    int lo = byte(rng), hi = byte(rng);
    if (lo > hi) std::swap(lo, hi);
    SrcMultiplier m;
    if (!SrcQuantize(1.0f, b, 2.0f, &m)) {
      continue;
    }
    const bool int8 = (i & 1) != 0;
    const int32_t offset = int8 ? -128 : 0;
    const int32_t zp = byte(rng) + offset;
    for (int j = 0; j < 100; j++) {
      CheckRequantize((j & 1) ? any(rng) : small(rng), m, zp, lo + offset, hi + offset, int8);
      if (HasFatalFailure()) return;
    }
  }
}

// Documented choices (src/qwino/requantization.h, microparams.h): the output zero point is added
// modulo 2^32 before clamping, and the left shift wraps.
TEST(Requantization, zero_point_add_and_left_shift_wrap) {
  SrcMultiplier m;
  ASSERT_TRUE(SrcQuantize(1.0f - std::ldexp(1.0f, -24), 1.0f, 1.0f, &m));
  qwino_qu8_gemmlowp_params p = GemmlowpOutput(255, 0, 255, false);
  const auto requantize = [&](int32_t x) {
    return qwino_requantize_gemmlowp(x, m.multiplier, m.left_shift, m.right_shift, &p);
  };
  // INT32_MAX * (1 - 2^-24) + 255 wraps to a negative number: clamps to output_min.
  EXPECT_EQ(0, requantize(kMax));
  EXPECT_EQ(0, ReferenceRequantize(kMax, m.multiplier, m.left_shift, m.right_shift, 255, 0, 255));
  // Without the wrap it would have been 255; far from the edge it is.
  EXPECT_EQ(255, requantize(1000));
  // int8: the signed zero point is added the same way. With the largest multiplier,
  // SQRDMULH(INT32_MIN, 2^31 - 1) = -2^31 + 1, and - 128 wraps to a large positive value, which
  // clamps to 127 (0x7F) where the unwrapped sum would have given -128 (0x80).
  p = GemmlowpOutput(-128, -128, 127, true);
  m = SrcMultiplier{kMax, 0, 0};
  EXPECT_EQ(0x7F, requantize(kMin));
  EXPECT_EQ(0x7F, static_cast<uint8_t>(ReferenceRequantize(kMin, kMax, 0, 0, -128, -128, 127)));
  EXPECT_EQ(0x80, requantize(-1000));

  const float up = 1.0f + std::ldexp(1.0f, -22), down = 1.0f - std::ldexp(1.0f, -23),
              c = 1.0f + std::ldexp(1.0f, -23);
  ASSERT_TRUE(SrcQuantize(up, down, c, &m));
  ASSERT_EQ(1u, m.left_shift);
  p = GemmlowpOutput(128, 0, 255, false);
  EXPECT_EQ(128 + 5, requantize(5));
  EXPECT_EQ(128 - 7, requantize(-7));
  // 2 * (2^30 + 5) wraps to -2^31 + 10: the result is -2^30 + 5, clamped to 0.
  EXPECT_EQ(0, requantize((1 << 30) + 5));
  EXPECT_EQ(0, ReferenceRequantize((1 << 30) + 5, m.multiplier, 1, 0, 128, 0, 255));
  EXPECT_EQ(255, requantize(-(1 << 30) - 5));
  EXPECT_EQ(255, ReferenceRequantize(-(1 << 30) - 5, m.multiplier, 1, 0, 128, 0, 255));
}

// The fp32 mode (qwino_requantize_fp32) against the oracle: ties of the round-half-to-even
// (products exactly on .5 with power-of-two scales), accumulators next to 2^24 and 2^25 (the
// int32 -> float conversion rounds), the int32 extremes (clamped before the conversion back), int8
// and uint8 outputs, every clamp.
TEST(Requantization, fp32_requantize) {
  std::vector<int32_t> values = EdgeValues();
  for (int32_t base : {1 << 24, 1 << 25, (1 << 24) * 3}) {
    for (int32_t d = -9; d <= 9; d++) {
      values.push_back(base + d);
      values.push_back(-base + d);
    }
  }
  for (int32_t k = -600; k <= 600; k++) values.push_back(2 * k + 1);  // odd: ties at scale 1/2
  const float scales[] = {0.5f, 0.25f, std::ldexp(1.0f, -32), 256.0f, 1.0f,
                          0.1f, 0.75f, std::ldexp(1.0f, -24), 3.0f,   1.0f / 3.0f};
  for (float scale : scales) {
    for (bool int8 : {false, true}) {
      const int32_t offset = int8 ? -128 : 0;
      for (int32_t zp : {0, 1, 128, 254, 255}) {
        for (auto range : {std::pair<int, int>{0, 255}, {0, 0}, {255, 255}, {100, 140}}) {
          qwino_qu8_fp32_params p{};
          p.output_zero_point = zp;  // the view's
          p.output_min_less_zero_point = static_cast<float>(range.first - zp);
          p.output_max_less_zero_point = static_cast<float>(range.second - zp);
          p.output_sign = int8 ? 0x80 : 0;
          for (int32_t x : values) {
            const int32_t expected = qwino_test::ReferenceRequantizeFp32(
                x, scale, zp + offset, range.first + offset, range.second + offset);
            ASSERT_EQ(int{static_cast<uint8_t>(expected)}, int{qwino_requantize_fp32(x, scale, &p)})
                << "accumulator " << x << ", scale " << scale << ", zero point " << zp
                << (int8 ? " (int8)" : "") << ", [" << range.first << ", " << range.second << "]";
          }
        }
      }
    }
  }
  // Scales below 2^-32, which create stores as 0.0f: the same bytes as the scale itself, for
  // every accumulator (|(float) x * scale| < 0.5 rounds to 0), every zero point and clamp.
  for (float tiny : {std::ldexp(1.0f - std::ldexp(1.0f, -24), -32), std::ldexp(1.0f, -33), 1e-12f,
                     1e-36f, std::numeric_limits<float>::denorm_min()}) {
    for (bool int8 : {false, true}) {
      const int32_t offset = int8 ? -128 : 0;
      for (int32_t zp : {0, 1, 128, 254, 255}) {
        for (auto range : {std::pair<int, int>{0, 255}, {0, 0}, {255, 255}, {100, 140}}) {
          qwino_qu8_fp32_params p{};
          p.output_zero_point = zp;
          p.output_min_less_zero_point = static_cast<float>(range.first - zp);
          p.output_max_less_zero_point = static_cast<float>(range.second - zp);
          p.output_sign = int8 ? 0x80 : 0;
          const int32_t clamped = std::min(std::max(zp, range.first), range.second) + offset;
          for (int32_t x : values) {
            ASSERT_EQ(clamped,
                      qwino_test::ReferenceRequantizeFp32(
                          x, tiny, zp + offset, range.first + offset, range.second + offset))
                << "accumulator " << x << ", scale " << tiny;
            ASSERT_EQ(int{static_cast<uint8_t>(clamped)}, int{qwino_requantize_fp32(x, 0.0f, &p)})
                << "accumulator " << x << ", scale " << tiny;
          }
        }
      }
    }
  }
  // Hand-computed ties: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, and 2^24 + 1 -> 2^24 as a float.
  qwino_qu8_fp32_params p{};
  p.output_zero_point = 128;
  p.output_min_less_zero_point = -128.0f;
  p.output_max_less_zero_point = 127.0f;
  EXPECT_EQ(130, qwino_requantize_fp32(5, 0.5f, &p));
  EXPECT_EQ(132, qwino_requantize_fp32(7, 0.5f, &p));
  EXPECT_EQ(126, qwino_requantize_fp32(-5, 0.5f, &p));
  EXPECT_EQ(128 + 64, qwino_requantize_fp32((1 << 24) + 1, std::ldexp(1.0f, -18), &p));
  EXPECT_EQ(2, qwino_test::ReferenceRequantizeFp32(5, 0.5f, 0, -128, 127));
  EXPECT_EQ(4, qwino_test::ReferenceRequantizeFp32(7, 0.5f, 0, -128, 127));
  EXPECT_EQ(-2, qwino_test::ReferenceRequantizeFp32(-5, 0.5f, 0, -128, 127));
}

TEST(Requantization, wrapping_add) {
  EXPECT_EQ(kMin, qwino_wrapping_add_s32(kMax, 1));
  EXPECT_EQ(kMax, qwino_wrapping_add_s32(kMin, -1));
  EXPECT_EQ(-2, qwino_wrapping_add_s32(kMax, kMax));
  EXPECT_EQ(0, qwino_wrapping_add_s32(kMin, kMin));
  EXPECT_EQ(qwino_test::ReferenceWrappingAdd(123456789, 2087654321),
            qwino_wrapping_add_s32(123456789, 2087654321));
}

}  // namespace
