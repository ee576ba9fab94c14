// qwino_test::RequantizingTester<Tester>: the part that the testers of requantizing micro-kernels
// (RequantizeTester, F23OutputTransformTester, F43OutputTransformTester) share, as a CRTP base so
// that the fluent setters return the derived tester.
//
// Why it exists: the three kernel families take the same qwino_qu8_gemmlowp_params and must be
// probed in the same rare corners, so one piece of code holds
//  - the fluent requantization-parameter setters, random_params() and bias_values();
//  - the oracle applied to qwino_qu8_gemmlowp_params (the arithmetic itself is in
//    requantization-oracle.h, independent of src/);
//  - the drawing of per-iteration parameters (documented ranges, with extra weight on the ends
//    of the multiplier range and on right_shift 0 and 31), of biases (small, full int32,
//    extremes), and of accumulators on (or next to) rounding ties of the parameters.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>

#include "qwino/microparams.h"

#include "guarded-buffer.h"
#include "requantization-oracle.h"

namespace qwino_test {

// kSmall: |bias| < 2^20; kFull: uniform int32; kExtreme: INT32_MIN/MAX and neighbours.
enum class BiasValues { kSmall, kFull, kExtreme };

// The oracle (requantization-oracle.h) for a qwino_qu8_gemmlowp_params: accumulator (bias
// added) -> output byte.
inline uint8_t ReferenceRequantize(int32_t accumulator, const qwino_qu8_gemmlowp_params& q) {
  return ReferenceRequantize(accumulator, q.multiplier, q.left_shift, q.right_shift,
                             q.output_zero_point, q.output_min, q.output_max);
}

template <class Tester>
class RequantizingTester {
 public:
  using BiasValues = qwino_test::BiasValues;

  Tester& multiplier(int32_t multiplier) {
    params_.multiplier = multiplier;
    return self();
  }
  Tester& left_shift(uint32_t shift) {
    params_.left_shift = shift;
    return self();
  }
  Tester& right_shift(uint32_t shift) {
    params_.right_shift = shift;
    return self();
  }
  Tester& output_zero_point(int32_t zero_point) {
    params_.output_zero_point = zero_point;
    return self();
  }
  Tester& output_min(uint8_t min) {
    params_.output_min = min;
    return self();
  }
  Tester& output_max(uint8_t max) {
    params_.output_max = max;
    return self();
  }
  const qwino_qu8_gemmlowp_params& params() const { return params_; }
  // Draw new requantization parameters (within the documented ranges) every iteration.
  Tester& random_params(bool random) {
    random_params_ = random;
    return self();
  }
  bool random_params() const { return random_params_; }
  Tester& bias_values(BiasValues values) {
    bias_values_ = values;
    return self();
  }
  BiasValues bias_values() const { return bias_values_; }

 protected:
  RequantizingTester() = default;

  static int32_t Wrap(int64_t x) { return static_cast<int32_t>(static_cast<uint32_t>(x)); }
  static int64_t FloorDiv(int64_t a, int64_t b) {  // b > 0
    return a >= 0 ? a / b : -((-a + b - 1) / b);
  }

  // Microparams for the parameters q, filled by init: the kernel's list entry's init function, or
  // the scalar twin's.
  static qwino_qu8_requantization_params Microparams(qwino_init_qu8_requantization_params_fn init,
                                                     const qwino_qu8_gemmlowp_params& q) {
    qwino_qu8_requantization_params microparams{};
    init(&microparams, q.multiplier, q.left_shift, q.right_shift,
         q.output_zero_point, q.output_min, q.output_max);
    return microparams;
  }
  static qwino_qu8_requantization_params TwinMicroparams(const qwino_qu8_gemmlowp_params& q) {
    return Microparams(qwino_init_qu8_gemmlowp_scalar_params, q);
  }

  // The parameters of one iteration: the ones set, or new ones if random_params().
  qwino_qu8_gemmlowp_params IterationParams(std::mt19937& rng) const {
    return random_params() ? DrawParams(rng) : params_;
  }

  // bias[0 .. bias.size()) as bias_values() says.
  void DrawBias(std::mt19937& rng, GuardedBuffer<int32_t>& bias) const {
    static const int32_t kExtremes[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 0, -1};
    for (size_t c = 0; c < bias.size(); c++) {
      switch (bias_values()) {
        case BiasValues::kSmall:
          bias[c] = std::uniform_int_distribution<int32_t>(-(1 << 20), 1 << 20)(rng);
          break;
        case BiasValues::kFull:
          bias[c] = static_cast<int32_t>(rng());
          break;
        case BiasValues::kExtreme:
          bias[c] = kExtremes[std::uniform_int_distribution<int>(0, 5)(rng)];
          break;
      }
    }
  }

  // An accumulator (bias included) that lands on (or next to) a rounding tie of q: first a tie
  // of RoundingDivideByPOT whose result, after the zero point, falls inside (or just outside)
  // the clamp range, so that rounding the wrong way shows in the output byte; then a preimage
  // under SQRDMULH (and the left shift); with the multiplier 2^30, odd preimages are SQRDMULH's
  // own ties. Sometimes an int32 limit instead, where the saturations live.
  static int32_t DrawTieAccumulator(std::mt19937& rng, const qwino_qu8_gemmlowp_params& q) {
    if (std::uniform_int_distribution<int>(0, 7)(rng) == 0) {
      // The int32 limits: the saturation of SQRDMULH and of the rounding fixup live there.
      static const int32_t kLimits[] = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1,
                                        INT32_MIN / 2, INT32_MAX / 2 + 1, 0, -1, 1};
      return kLimits[std::uniform_int_distribution<int>(0, 8)(rng)];
    }
    const uint32_t n = q.right_shift;
    const int64_t low = int64_t{q.output_min} - q.output_zero_point - 2;
    const int64_t high = int64_t{q.output_max} - q.output_zero_point + 2;
    int64_t r = std::uniform_int_distribution<int64_t>(std::min(low, high), std::max(low, high))(rng);
    if (std::uniform_int_distribution<int>(0, 7)(rng) == 0) {
      r = std::uniform_int_distribution<int64_t>(-(int64_t{1} << 24), int64_t{1} << 24)(rng);
    }
    int64_t s = r;  // n == 0: no tie in the shift; odd SQRDMULH preimages below give ties there
    if (n > 0) {
      // quotient * 2^n + 2^(n-1) rounds away from zero: both sides of r.
      int64_t quotient = r - static_cast<int64_t>(rng() & 1);
      const int64_t q_max = std::max<int64_t>(1, (int64_t{1} << 30) >> n);
      quotient = std::max(-q_max, std::min(q_max - 1, quotient));
      static const int kDelta[] = {0, 0, 0, 1, -1};
      s = quotient * (int64_t{1} << n) + (int64_t{1} << (n - 1)) +
          kDelta[std::uniform_int_distribution<int>(0, 4)(rng)];
    }
    if (q.multiplier <= 0) {
      return Wrap(s);  // no preimage search outside the documented multiplier range
    }
    // SQRDMULH(x, m) = floor((2 x m + 2^31) / 2^32) is non-decreasing in x for m > 0.
    const int64_t x0 = FloorDiv(s * (int64_t{1} << 31), q.multiplier);
    int64_t found = x0;
    for (int64_t delta = -4; delta <= 4; delta++) {
      const int64_t x = x0 + delta;
      if (x < INT32_MIN || x > INT32_MAX || (q.left_shift && (x & 1))) continue;
      if (ReferenceSaturatingRoundingDoublingHighMul(static_cast<int32_t>(x), q.multiplier) == s) {
        found = x;
        // Odd preimages with multiplier 2^30 are SQRDMULH ties too: prefer them sometimes.
        if ((x & 1) == 0 || (rng() & 1)) break;
      }
    }
    if (q.left_shift) found /= 2;
    return Wrap(found);
  }

 private:
  Tester& self() { return static_cast<Tester&>(*this); }

  // Parameters within the documented ranges (multiplier in [2^30, 2^31), left_shift 0 or 1,
  // right_shift 0..31, zero point 0..255, output_min <= output_max), with extra weight on the
  // ends of the multiplier and shift ranges and on the full clamp range.
  static qwino_qu8_gemmlowp_params DrawParams(std::mt19937& rng) {
    qwino_qu8_gemmlowp_params q{};
    switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
      case 0:  // the ends of [2^30, 2^31)
        q.multiplier = std::uniform_int_distribution<int>(0, 1)(rng) ? INT32_MAX : INT32_C(1) << 30;
        break;
      case 1:
        q.multiplier = INT32_MAX - std::uniform_int_distribution<int32_t>(0, 255)(rng);
        break;
      default:
        q.multiplier = std::uniform_int_distribution<int32_t>(INT32_C(1) << 30, INT32_MAX)(rng);
        break;
    }
    q.left_shift = std::uniform_int_distribution<int>(0, 4)(rng) == 0 ? 1 : 0;
    switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
      case 0:
        q.right_shift = 0;
        break;
      case 1:
        q.right_shift = 31;
        break;
      default:
        q.right_shift = std::uniform_int_distribution<uint32_t>(0, 31)(rng);
        break;
    }
    q.output_zero_point = std::uniform_int_distribution<int32_t>(0, 255)(rng);
    int a = std::uniform_int_distribution<int>(0, 255)(rng);
    int b = std::uniform_int_distribution<int>(0, 255)(rng);
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
      a = 0;
      b = 255;
    }
    q.output_min = static_cast<uint8_t>(std::min(a, b));
    q.output_max = static_cast<uint8_t>(std::max(a, b));
    return q;
  }

  qwino_qu8_gemmlowp_params params_{INT32_C(1) << 30, 0, 8, 128, 0, 255};
  bool random_params_ = false;
  BiasValues bias_values_ = BiasValues::kSmall;
};

}  // namespace qwino_test
