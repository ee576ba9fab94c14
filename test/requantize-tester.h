// RequantizeTester: checks one requantize micro-kernel (qwino_requantize_ukernel_fn: int32
// accumulators + bias -> uint8, a block of pixels x channels).
//
// Why it looks like this: requantization bugs hide in rare corners (rounding ties, saturation,
// wrap-around), so the oracle is the test suite's own definition of TFLite's arithmetic
// (reference-convolution.h: SQRDMULH as saturate((2ab + 2^31) >> 32), RoundingDivideByPOT as
// round-half-away-from-zero on the magnitude, wrapping adds), composed here with the parameter
// struct's left shift and int32 zero point, not the formulas of qwino/requantization.h; so the
// scalar kernel is tested too. Accumulators come in three flavours: the range a convolution's
// GEMM produces, arbitrary int32 (the kernel is defined on all of them, bias adds wrap), and
// values steered so that accumulator + bias lands on (or next to) a rounding tie of the chosen
// parameters. Accumulators, bias and output end right before an inaccessible page (over-reads
// and over-writes crash, also under qemu), slack between pixels holds garbage (accumulators) or
// a sentinel that must survive (output), and SIMD kernels are compared with their scalar twin
// over the whole output buffer.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "qwino/params.h"
#include "qwino/ukernels.h"

#include "guarded-buffer.h"
#include "reference-convolution.h"

class RequantizeTester {
 public:
  // kGemm: |value| up to 2^8..2^30, what convolutions make; kFull: uniform int32;
  // kTies: accumulator + bias on rounding ties of the parameters.
  enum class AccumulatorValues { kGemm, kFull, kTies };
  // kSmall: |bias| < 2^20; kFull: uniform int32; kExtreme: INT32_MIN/MAX and neighbours.
  enum class BiasValues { kSmall, kFull, kExtreme };

  RequantizeTester& pixels(size_t pixels) { pixels_ = pixels; return *this; }
  size_t pixels() const { return pixels_; }
  RequantizeTester& channels(size_t channels) { channels_ = channels; return *this; }
  size_t channels() const { return channels_; }
  // int32 elements between pixels' accumulators; 0 means channels.
  RequantizeTester& accumulator_stride(size_t stride) {
    accumulator_stride_ = stride;
    return *this;
  }
  size_t accumulator_stride() const {
    return accumulator_stride_ == 0 ? channels() : accumulator_stride_;
  }
  // Bytes between output pixels; 0 means channels.
  RequantizeTester& output_stride(size_t stride) { output_stride_ = stride; return *this; }
  size_t output_stride() const { return output_stride_ == 0 ? channels() : output_stride_; }

  RequantizeTester& multiplier(int32_t multiplier) {
    params_.multiplier = multiplier;
    return *this;
  }
  RequantizeTester& left_shift(uint32_t shift) { params_.left_shift = shift; return *this; }
  RequantizeTester& right_shift(uint32_t shift) { params_.right_shift = shift; return *this; }
  RequantizeTester& output_zero_point(int32_t zero_point) {
    params_.output_zero_point = zero_point;
    return *this;
  }
  RequantizeTester& output_min(uint8_t min) { params_.output_min = min; return *this; }
  RequantizeTester& output_max(uint8_t max) { params_.output_max = max; return *this; }
  // Draw new requantization parameters (within the documented ranges) every iteration.
  RequantizeTester& random_params(bool random) { random_params_ = random; return *this; }
  bool random_params() const { return random_params_; }

  RequantizeTester& accumulator_values(AccumulatorValues values) {
    accumulator_values_ = values;
    return *this;
  }
  AccumulatorValues accumulator_values() const { return accumulator_values_; }
  RequantizeTester& bias_values(BiasValues values) { bias_values_ = values; return *this; }
  BiasValues bias_values() const { return bias_values_; }
  RequantizeTester& iterations(size_t iterations) { iterations_ = iterations; return *this; }
  size_t iterations() const { return iterations_; }
  RequantizeTester& seed(uint32_t seed) { seed_ = seed; return *this; }
  uint32_t seed() const { return seed_; }

  // The oracle: accumulator (bias added) -> output byte, for every parameter value.
  static uint8_t Reference(int32_t accumulator, const qwino_requantization_params& q) {
    const int32_t shifted =
        static_cast<int32_t>(static_cast<uint32_t>(accumulator) << q.left_shift);
    const int32_t scaled = qwino_test::ReferenceRoundingDivideByPOT(
        qwino_test::ReferenceSaturatingRoundingDoublingHighMul(shifted, q.multiplier),
        static_cast<int>(q.right_shift));
    const int32_t value = qwino_test::ReferenceWrappingAdd(scaled, q.output_zero_point);
    // The clamp in this order: output_max wins when output_min > output_max.
    return static_cast<uint8_t>(std::min<int32_t>(std::max<int32_t>(value, q.output_min),
                                                  q.output_max));
  }

  void Test(qwino_requantize_ukernel_fn requantize,
            qwino_requantize_ukernel_fn twin = nullptr) const {
    ASSERT_GE(pixels(), 1u);
    ASSERT_GE(channels(), 1u);
    ASSERT_GE(accumulator_stride(), channels());
    ASSERT_GE(output_stride(), channels());

    std::mt19937 rng(seed() ^ static_cast<uint32_t>(channels() * 2246822519u + pixels() * 97 +
                                                    params_.right_shift * 131));
    qwino_test::GuardedBuffer<int32_t> accumulators((pixels() - 1) * accumulator_stride() +
                                                    channels());
    qwino_test::GuardedBuffer<int32_t> bias(channels());
    const size_t output_size = (pixels() - 1) * output_stride() + channels();
    qwino_test::GuardedBuffer<uint8_t> output(output_size), output_twin(output_size);
    constexpr uint8_t kSentinel = 0xA5;

    for (size_t iteration = 0; iteration < iterations(); iteration++) {
      const qwino_requantization_params q = random_params() ? DrawParams(rng) : params_;
      DrawBias(rng, bias);
      DrawAccumulators(rng, q, bias, accumulators);
      std::fill(output.data(), output.data() + output_size, kSentinel);
      std::fill(output_twin.data(), output_twin.data() + output_size, kSentinel);

      requantize(pixels(), channels(), accumulators.data(), accumulator_stride(), bias.data(),
                 output.data(), output_stride(), &q);

      for (size_t p = 0; p < pixels(); p++) {
        for (size_t c = 0; c < channels(); c++) {
          const int32_t accumulator = qwino_test::ReferenceWrappingAdd(
              accumulators[p * accumulator_stride() + c], bias[c]);
          ASSERT_EQ(int{Reference(accumulator, q)}, int{output[p * output_stride() + c]})
              << "pixel " << p << ", channel " << c << " of " << pixels() << " x " << channels()
              << ", accumulator " << accumulators[p * accumulator_stride() + c] << " + bias "
              << bias[c] << "; multiplier " << q.multiplier << ", left shift " << q.left_shift
              << ", right shift " << q.right_shift << ", zero point " << q.output_zero_point
              << ", clamp [" << int{q.output_min} << ", " << int{q.output_max} << "]";
        }
        // The slack between pixels is not the kernel's to write.
        for (size_t i = channels(); i < output_stride() && p + 1 < pixels(); i++) {
          ASSERT_EQ(kSentinel, output[p * output_stride() + i])
              << "wrote slack byte " << i << " after pixel " << p;
        }
      }

      if (twin != nullptr) {
        twin(pixels(), channels(), accumulators.data(), accumulator_stride(), bias.data(),
             output_twin.data(), output_stride(), &q);
        ASSERT_EQ(0, std::memcmp(output.data(), output_twin.data(), output_size))
            << "differs from the scalar twin: " << pixels() << " x " << channels();
      }
    }
  }

 private:
  static int32_t Wrap(int64_t x) { return static_cast<int32_t>(static_cast<uint32_t>(x)); }

  static qwino_requantization_params DrawParams(std::mt19937& rng) {
    qwino_requantization_params q{};
    q.multiplier = std::uniform_int_distribution<int32_t>(INT32_C(1) << 30, INT32_MAX)(rng);
    q.left_shift = rng() % 5 == 0 ? 1 : 0;
    q.right_shift = std::uniform_int_distribution<uint32_t>(0, 31)(rng);
    q.output_zero_point = std::uniform_int_distribution<int32_t>(0, 255)(rng);
    const int a = std::uniform_int_distribution<int>(0, 255)(rng);
    const int b = std::uniform_int_distribution<int>(0, 255)(rng);
    const bool full_range = rng() % 3 == 0;
    q.output_min = static_cast<uint8_t>(full_range ? 0 : std::min(a, b));
    q.output_max = static_cast<uint8_t>(full_range ? 255 : std::max(a, b));
    return q;
  }

  void DrawBias(std::mt19937& rng, qwino_test::GuardedBuffer<int32_t>& bias) const {
    static const int32_t kExtremes[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 0, -1};
    for (size_t c = 0; c < channels(); c++) {
      switch (bias_values()) {
        case BiasValues::kSmall:
          bias[c] = std::uniform_int_distribution<int32_t>(-(1 << 20), 1 << 20)(rng);
          break;
        case BiasValues::kFull:
          bias[c] = static_cast<int32_t>(rng());
          break;
        case BiasValues::kExtreme:
          bias[c] = kExtremes[rng() % 6];
          break;
      }
    }
  }

  void DrawAccumulators(std::mt19937& rng, const qwino_requantization_params& q,
                        const qwino_test::GuardedBuffer<int32_t>& bias,
                        qwino_test::GuardedBuffer<int32_t>& accumulators) const {
    // The slack between pixels gets garbage: the kernel must not read it.
    for (size_t i = 0; i < accumulators.size(); i++) {
      accumulators[i] = static_cast<int32_t>(rng());
    }
    for (size_t p = 0; p < pixels(); p++) {
      for (size_t c = 0; c < channels(); c++) {
        int32_t& accumulator = accumulators[p * accumulator_stride() + c];
        switch (accumulator_values()) {
          case AccumulatorValues::kGemm: {
            const int32_t magnitude = INT32_C(1) << (8 + 2 * (rng() % 12));
            accumulator = std::uniform_int_distribution<int32_t>(-magnitude, magnitude)(rng);
            break;
          }
          case AccumulatorValues::kFull:
            break;
          case AccumulatorValues::kTies:
            accumulator = Wrap(int64_t{DrawTie(rng, q)} - bias[c]);
            break;
        }
      }
    }
  }

  // A value (bias included) whose requantization sits on or next to a rounding tie, with a
  // result near the clamp range so that rounding the wrong way changes the byte: first y, a tie
  // of RoundingDivideByPOT (y = r * 2^n +- 2^(n-1), +-1), then x with SQRDMULH(x << left_shift,
  // multiplier) == y; with the multiplier 2^30, odd x are SQRDMULH's own ties.
  static int32_t DrawTie(std::mt19937& rng, const qwino_requantization_params& q) {
    if (rng() % 8 == 0) {
      static const int32_t kLimits[] = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1,
                                        INT32_MIN / 2, INT32_MAX / 2 + 1, 0, -1, 1};
      return kLimits[rng() % 9];
    }
    const int64_t low = int64_t{q.output_min} - q.output_zero_point - 2;
    const int64_t high = int64_t{q.output_max} - q.output_zero_point + 2;
    const int64_t r =
        std::uniform_int_distribution<int64_t>(std::min(low, high), std::max(low, high))(rng);
    int64_t y = r;
    if (q.right_shift > 0) {
      const int64_t unit = int64_t{1} << q.right_shift;
      const int64_t limit = (int64_t{1} << 30) / unit;  // keeps y within SQRDMULH's range
      const int64_t base = std::max(-limit, std::min(limit - 1, r));
      static const int kNudge[] = {0, 0, 0, 1, -1};
      y = base * unit + (rng() % 2 == 0 ? unit / 2 : -unit / 2) + kNudge[rng() % 5];
    }
    if (q.multiplier <= 0) {
      return Wrap(y);  // no preimage search outside the documented multiplier range
    }
    // SQRDMULH(x, m) = floor((x * m + 2^30) / 2^31) is non-decreasing in x for m > 0.
    const int64_t scale = int64_t{1} << 31;
    const int64_t guess = y * scale / q.multiplier;
    int64_t found = guess;
    for (int64_t x = guess - 3; x <= guess + 3; x++) {
      if (x < INT32_MIN || x > INT32_MAX || (q.left_shift != 0 && x % 2 != 0)) continue;
      if (qwino_test::ReferenceSaturatingRoundingDoublingHighMul(static_cast<int32_t>(x),
                                                                 q.multiplier) == y) {
        found = x;
        if (x % 2 != 0 && rng() % 2 == 0) break;  // sometimes keep an odd preimage
      }
    }
    return Wrap(q.left_shift != 0 ? found / 2 : found);
  }

  size_t pixels_ = 1;
  size_t channels_ = 16;
  size_t accumulator_stride_ = 0;
  size_t output_stride_ = 0;
  qwino_requantization_params params_{INT32_C(1) << 30, 0, 8, 128, 0, 255};
  bool random_params_ = false;
  AccumulatorValues accumulator_values_ = AccumulatorValues::kGemm;
  BiasValues bias_values_ = BiasValues::kSmall;
  size_t iterations_ = 3;
  uint32_t seed_ = 0x9E3779B9u;
};
