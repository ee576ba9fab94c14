// qwino_test::RequantizingTester<Tester>: the part that the testers of requantizing micro-kernels
// (RequantizeTester, F23OutputTransformTester, F43OutputTransformTester) share, as a CRTP base so
// that the fluent setters return the derived tester.
//
// Why it exists: the three kernel families take the same per-channel arrays and microparams
// (qwino/microparams.h) and must be probed in the same rare corners, so one piece of code holds
//  - the fluent requantization setters (gemmlowp form: multiplier, shifts, zero point, clamp),
//    the mode, the output type and per-channel variation, random_params() and bias_values();
//  - RequantizationCase: one iteration's per-channel values, the packed arrays and microparams
//    built from them, and the oracle (requantization-oracle.h, independent of src/) applied to
//    them;
//  - the drawing of per-iteration parameters (documented ranges, with extra weight on the ends
//    of the multiplier range, on multiplier 0 and on right_shift 0 and 31), of biases (small,
//    full int32, extremes), and of accumulators on (or next to) rounding ties of the parameters.
// The fp32 mode is driven by the same setters: a channel's scale is the real value
// multiplier * 2^(left_shift - right_shift - 31) rounded to float, so every sweep of the gemmlowp
// parameters is also a sweep of fp32 scales over 2^-32..2^8, and multiplier 2^30 gives powers of
// two, whose products with suitable accumulators land exactly on .5 (the round-half-even ties).
// Output values set or drawn (zero point, min, max) are in the offset-binary view (0..255, as for
// uint8); for int8 outputs the case turns them into the tensor's values by subtracting 128.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "qwino/microparams.h"

#include "guarded-buffer.h"
#include "requantization-oracle.h"

namespace qwino_test {

// kSmall: |bias| < 2^20; kFull: uniform int32; kExtreme: INT32_MIN/MAX and neighbours.
enum class BiasValues { kSmall, kFull, kExtreme };

// gemmlowp-form parameters of one channel (also the source of its fp32 scale).
struct ChannelRequantization {
  int32_t multiplier;
  uint32_t left_shift;
  uint32_t right_shift;
};

// One iteration's requantization: per-channel values, zero point and clamp in the tensor's type.
struct RequantizationCase {
  qwino_requantization_mode mode = qwino_requantization_gemmlowp;
  bool int8_output = false;
  std::vector<ChannelRequantization> channels;
  int32_t output_zero_point = 0;             // the tensor's
  int32_t output_min = 0, output_max = 255;  // the tensor's

  size_t arrays() const {
    return mode == qwino_requantization_fp32 ? QWINO_FP32_ARRAYS : QWINO_GEMMLOWP_ARRAYS;
  }
  float scale(size_t c) const {
    const ChannelRequantization& q = channels[c];
    return static_cast<float>(
        std::ldexp(static_cast<double>(q.multiplier),
                   static_cast<int>(q.left_shift) - static_cast<int>(q.right_shift) - 31));
  }
  // The arrays after the bias, with stride channels.size() (qwino/microparams.h's layout, written
  // here from its description).
  void FillChannelParams(int32_t* channel_params) const {
    const size_t n = channels.size();
    for (size_t c = 0; c < n; c++) {
      if (mode == qwino_requantization_fp32) {
        const float s = scale(c);
        std::memcpy(&channel_params[n + c], &s, sizeof(s));
      } else {
        channel_params[n + c] = channels[c].multiplier;
        channel_params[2 * n + c] = static_cast<int32_t>(channels[c].left_shift);
        channel_params[3 * n + c] = static_cast<int32_t>(channels[c].right_shift);
      }
    }
  }
  qwino_qu8_requantization_params Microparams(qwino_init_qu8_requantization_params_fn init,
                                              const int32_t* channel_params) const {
    qwino_output_quantization q{};
    q.channel_stride = channels.size();
    q.channels = channels.size();
    q.channel_params = channel_params;
    q.output_zero_point = output_zero_point;
    q.output_min = output_min;
    q.output_max = output_max;
    q.output_sign = int8_output ? 0x80 : 0;
    qwino_qu8_requantization_params microparams{};
    init(&microparams, &q);
    return microparams;
  }
  // The oracle: accumulator (bias included) of channel c -> the output byte.
  uint8_t Reference(int32_t accumulator, size_t c) const {
    const ChannelRequantization& q = channels[c];
    const int32_t value =
        mode == qwino_requantization_fp32
            ? ReferenceRequantizeFp32(accumulator, scale(c), output_zero_point, output_min,
                                      output_max)
            : ReferenceRequantize(accumulator, q.multiplier, q.left_shift, q.right_shift,
                                  output_zero_point, output_min, output_max);
    return static_cast<uint8_t>(value);  // int8 values: their two's complement byte
  }
  std::string Describe(size_t c) const {
    std::ostringstream out;
    out << (mode == qwino_requantization_fp32 ? "fp32" : "gemmlowp")
        << (int8_output ? " int8" : " uint8") << " output; channel " << c << ": multiplier "
        << channels[c].multiplier << ", left shift " << channels[c].left_shift << ", right shift "
        << channels[c].right_shift << ", scale " << scale(c) << "; zero point " << output_zero_point
        << ", clamp [" << output_min << ", " << output_max << "]";
    return out.str();
  }
};

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
  uint32_t right_shift() const { return params_.right_shift; }
  // In the offset-binary view (see above).
  Tester& output_zero_point(int32_t zero_point) {
    output_zero_point_ = zero_point;
    return self();
  }
  Tester& output_min(uint8_t min) {
    output_min_ = min;
    return self();
  }
  Tester& output_max(uint8_t max) {
    output_max_ = max;
    return self();
  }
  // The requantization mode of the kernel under test (its list entry's).
  Tester& mode(qwino_requantization_mode mode) {
    mode_ = mode;
    return self();
  }
  qwino_requantization_mode mode() const { return mode_; }
  Tester& int8_output(bool int8) {
    int8_output_ = int8;
    return self();
  }
  // Different parameters in every channel: drawn independently (random_params) or derived from
  // the ones set (right_shift + c, modulo 32; multiplier - 977 c, kept in [2^30, 2^31)).
  Tester& per_channel(bool per_channel) {
    per_channel_ = per_channel;
    return self();
  }
  // Draw new requantization parameters (within the documented ranges) every iteration.
  Tester& random_params(bool random) {
    random_params_ = random;
    return self();
  }
  bool random_params() const { return random_params_; }
  // With random per-channel parameters: no left shifts, and the right shifts of one iteration
  // within a window of this many values (a base drawn per iteration, at least 1): the
  // parameters under which kernels may requantize with a shift common to a block of channels
  // (0: shifts drawn as every other parameter).
  Tester& shift_window(uint32_t window) {
    shift_window_ = window;
    return self();
  }
  // The window's first shift instead of a drawn one (0: drawn), so that a test can walk every
  // window a kernel may treat apart.
  Tester& shift_base(uint32_t base) {
    shift_base_ = base;
    return self();
  }
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

  // The requantization of one iteration for `channels` channels: the parameters set, or new
  // ones if random_params().
  RequantizationCase IterationCase(std::mt19937& rng, size_t channels) const {
    RequantizationCase q;
    q.mode = mode_;
    q.int8_output = int8_output_;
    int32_t zero_point = output_zero_point_;
    int min = output_min_, max = output_max_;
    ChannelRequantization shared = params_;
    if (random_params()) {
      DrawOutput(rng, &zero_point, &min, &max);
      shared = DrawChannel(rng);
    }
    const uint32_t base = shift_window_ == 0 ? 0
                          : shift_base_ != 0
                              ? shift_base_
                              : std::uniform_int_distribution<uint32_t>(1, 32 - shift_window_)(rng);
    for (size_t c = 0; c < channels; c++) {
      ChannelRequantization channel = shared;
      if (per_channel_ && random_params()) {
        channel = DrawChannel(rng);
        if (shift_window_ != 0) {
          channel.left_shift = 0;
          channel.right_shift = base + static_cast<uint32_t>(rng() % shift_window_);
        }
      } else if (per_channel_) {
        channel.right_shift = static_cast<uint32_t>((shared.right_shift + c) % 32);
        const int64_t m = int64_t{shared.multiplier} - 977 * static_cast<int64_t>(c);
        channel.multiplier = shared.multiplier >= (INT32_C(1) << 30) && m < (INT64_C(1) << 30)
                                 ? static_cast<int32_t>(m + (INT64_C(1) << 30))
                                 : Wrap(m);
      }
      q.channels.push_back(channel);
    }
    const int32_t offset = int8_output_ ? 128 : 0;
    q.output_zero_point = Wrap(int64_t{zero_point} - offset);
    q.output_min = min - offset;
    q.output_max = max - offset;
    return q;
  }

  // bias[0 .. count) as bias_values() says.
  void DrawBias(std::mt19937& rng, int32_t* bias, size_t count) const {
    static const int32_t kExtremes[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 0, -1};
    for (size_t c = 0; c < count; c++) {
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

  // An accumulator (bias included) that lands on (or next to) a rounding tie of channel c.
  static int32_t DrawTieAccumulator(std::mt19937& rng, const RequantizationCase& q, size_t c) {
    return q.mode == qwino_requantization_fp32 ? DrawFp32TieAccumulator(rng, q, c)
                                               : DrawGemmlowpTieAccumulator(rng, q, c);
  }

 private:
  Tester& self() { return static_cast<Tester&>(*this); }

  // A target output value r (before the zero point) inside (or just outside) the clamp range.
  static int64_t DrawTarget(std::mt19937& rng, const RequantizationCase& q) {
    const int64_t low = int64_t{q.output_min} - q.output_zero_point - 2;
    const int64_t high = int64_t{q.output_max} - q.output_zero_point + 2;
    int64_t r =
        std::uniform_int_distribution<int64_t>(std::min(low, high), std::max(low, high))(rng);
    if (std::uniform_int_distribution<int>(0, 7)(rng) == 0) {
      r = std::uniform_int_distribution<int64_t>(-(int64_t{1} << 24), int64_t{1} << 24)(rng);
    }
    return r;
  }

  // gemmlowp: first a tie of RoundingDivideByPOT whose result, after the zero point, falls
  // inside (or just outside) the clamp range, so that rounding the wrong way shows in the output
  // byte; then a preimage under SQRDMULH (and the left shift); with the multiplier 2^30, odd
  // preimages are SQRDMULH's own ties. Sometimes an int32 limit instead, where the saturations
  // live.
  static int32_t DrawGemmlowpTieAccumulator(std::mt19937& rng, const RequantizationCase& c_case,
                                            size_t c) {
    const ChannelRequantization& q = c_case.channels[c];
    if (std::uniform_int_distribution<int>(0, 7)(rng) == 0) {
      static const int32_t kLimits[] = {INT32_MIN,
                                        INT32_MIN + 1,
                                        INT32_MAX,
                                        INT32_MAX - 1,
                                        INT32_MIN / 2,
                                        INT32_MAX / 2 + 1,
                                        0,
                                        -1,
                                        1};
      return kLimits[std::uniform_int_distribution<int>(0, 8)(rng)];
    }
    const uint32_t n = q.right_shift;
    const int64_t r = DrawTarget(rng, c_case);
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
      if (x < INT32_MIN || x > INT32_MAX) continue;
      if (ReferenceSaturatingRoundingDoublingHighMul(static_cast<int32_t>(x), q.multiplier) == s) {
        found = x;
        // Odd preimages with multiplier 2^30 are SQRDMULH ties too: prefer them sometimes.
        if ((x & 1) == 0 || (rng() & 1)) break;
      }
    }
    // Undo the left shift where the preimage allows it (otherwise a near-tie).
    return Wrap(q.left_shift < 32 ? FloorDiv(found, int64_t{1} << q.left_shift) : found);
  }

  // fp32: an accumulator whose product with the channel's scale is (r + 1/2) for a target r, or
  // the nearest integers to one; with power-of-two scales that product is exact, so it is a true
  // tie of the round-half-to-even. Sometimes values next to 2^24 and 2^25, where float32 no
  // longer holds every integer (the int32 -> float conversion rounds), or an int32 limit.
  static int32_t DrawFp32TieAccumulator(std::mt19937& rng, const RequantizationCase& q, size_t c) {
    switch (std::uniform_int_distribution<int>(0, 7)(rng)) {
      case 0: {
        static const int32_t kLimits[] = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, 0};
        return kLimits[std::uniform_int_distribution<int>(0, 4)(rng)];
      }
      case 1: {
        const int64_t base = (rng() & 1) ? (int64_t{1} << 24) : (int64_t{1} << 25);
        const int64_t value = base + std::uniform_int_distribution<int>(-9, 9)(rng);
        return Wrap((rng() & 1) ? value : -value);
      }
      default:
        break;
    }
    const double scale = q.scale(c);
    if (!(scale > 0.0)) {
      return static_cast<int32_t>(rng());
    }
    const double tie = (static_cast<double>(DrawTarget(rng, q)) + 0.5) / scale;
    if (!(std::fabs(tie) < 2147483000.0)) {
      return static_cast<int32_t>(rng());
    }
    static const int kDelta[] = {0, 0, 0, 1, -1};
    return static_cast<int32_t>(std::floor(tie)) +
           kDelta[std::uniform_int_distribution<int>(0, 4)(rng)];
  }

  // Output zero point (view 0..255) and clamp, with extra weight on the full range.
  static void DrawOutput(std::mt19937& rng, int32_t* zero_point, int* min, int* max) {
    *zero_point = std::uniform_int_distribution<int32_t>(0, 255)(rng);
    int a = std::uniform_int_distribution<int>(0, 255)(rng);
    int b = std::uniform_int_distribution<int>(0, 255)(rng);
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
      a = 0;
      b = 255;
    }
    *min = std::min(a, b);
    *max = std::max(a, b);
  }

  // One channel's parameters within the documented ranges (multiplier in [2^30, 2^31), or 0
  // for requantization scales below 2^-32 (fp32: scale 0.0f); left_shift 0..9, right_shift
  // 0..31), with extra weight on the ends of the multiplier and shift ranges.
  static ChannelRequantization DrawChannel(std::mt19937& rng) {
    ChannelRequantization q{};
    switch (std::uniform_int_distribution<int>(0, 6)(rng)) {
      case 0:  // the ends of [2^30, 2^31)
        q.multiplier = std::uniform_int_distribution<int>(0, 1)(rng) ? INT32_MAX : INT32_C(1) << 30;
        break;
      case 1:
        q.multiplier = INT32_MAX - std::uniform_int_distribution<int32_t>(0, 255)(rng);
        break;
      case 2:  // a channel whose scale is below 2^-32: every output is the zero point
        q.multiplier = 0;
        break;
      default:
        q.multiplier = std::uniform_int_distribution<int32_t>(INT32_C(1) << 30, INT32_MAX)(rng);
        break;
    }
    switch (std::uniform_int_distribution<int>(0, 7)(rng)) {
      case 0:
        q.left_shift = 1;
        break;
      case 1:
        q.left_shift = std::uniform_int_distribution<uint32_t>(2, 9)(rng);
        break;
      default:
        q.left_shift = 0;
        break;
    }
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
    return q;
  }

  ChannelRequantization params_{INT32_C(1) << 30, 0, 8};
  int32_t output_zero_point_ = 128;
  int output_min_ = 0, output_max_ = 255;
  qwino_requantization_mode mode_ = qwino_requantization_gemmlowp;
  bool int8_output_ = false;
  bool per_channel_ = false;
  bool random_params_ = false;
  uint32_t shift_window_ = 0;
  uint32_t shift_base_ = 0;
  BiasValues bias_values_ = BiasValues::kSmall;
};

}  // namespace qwino_test
