// RequantizeTester: checks one requantize micro-kernel (qwino_requantize_ukernel_fn: int32
// accumulators + bias -> 8-bit values, a block of pixels x channels).
//
// Why it looks like this: requantization bugs hide in rare corners (rounding ties, saturation,
// wrap-around), so the oracle is the test suite's own definition of TFLite's arithmetic
// (requantization-oracle.h: SQRDMULH as saturate((2ab + 2^31) >> 32), RoundingDivideByPOT as
// round-half-away-from-zero on the magnitude, wrapping adds, with the parameter struct's left shift
// and int32 zero point), not the formulas of qwino/requantization.h; so the scalar kernel is tested
// too. The parameter setters and the drawing of parameters, biases and tie accumulators come from
// requantizing-tester.h, shared with the other requantizing kernels. Accumulators come in three
// flavours: the range a convolution's GEMM produces, arbitrary int32 (the kernel is defined on all
// of them, bias adds wrap), and values steered so that accumulator + bias lands on (or next to) a
// rounding tie of the chosen parameters. Accumulators, bias and output end right before an
// inaccessible page (over-reads and over-writes crash, also under qemu), slack between pixels holds
// garbage (accumulators) or a sentinel that must survive (output), and SIMD kernels are compared
// with their scalar twin over the whole output buffer.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "qwino/microparams.h"
#include "qwino/ukernels.h"

#include "guarded-buffer.h"
#include "requantization-oracle.h"
#include "requantizing-tester.h"

class RequantizeTester : public qwino_test::RequantizingTester<RequantizeTester> {
 public:
  // kGemm: |value| up to 2^8..2^30, what convolutions make; kFull: uniform int32;
  // kTies: accumulator + bias on rounding ties of the parameters.
  enum class AccumulatorValues { kGemm, kFull, kTies };

  RequantizeTester& pixels(size_t pixels) {
    pixels_ = pixels;
    return *this;
  }
  size_t pixels() const { return pixels_; }
  RequantizeTester& channels(size_t channels) {
    channels_ = channels;
    return *this;
  }
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
  RequantizeTester& output_stride(size_t stride) {
    output_stride_ = stride;
    return *this;
  }
  size_t output_stride() const { return output_stride_ == 0 ? channels() : output_stride_; }

  RequantizeTester& accumulator_values(AccumulatorValues values) {
    accumulator_values_ = values;
    return *this;
  }
  AccumulatorValues accumulator_values() const { return accumulator_values_; }
  RequantizeTester& iterations(size_t iterations) {
    iterations_ = iterations;
    return *this;
  }
  size_t iterations() const { return iterations_; }
  RequantizeTester& seed(uint32_t seed) {
    seed_ = seed;
    return *this;
  }
  uint32_t seed() const { return seed_; }

  // twin: the scalar twin to compare with (nullptr: none); init, twin_init: the kernels'
  // microparams init functions (their list entries').
  void Test(qwino_requantize_ukernel_fn requantize, qwino_requantize_ukernel_fn twin,
            qwino_init_qu8_requantization_params_fn init,
            qwino_init_qu8_requantization_params_fn twin_init) const {
    ASSERT_GE(pixels(), 1u);
    ASSERT_GE(channels(), 1u);
    ASSERT_GE(accumulator_stride(), channels());
    ASSERT_GE(output_stride(), channels());

    std::mt19937 rng(seed() ^ static_cast<uint32_t>(channels() * 2246822519u + pixels() * 97 +
                                                    right_shift() * 131 + mode() * 7));
    qwino_test::GuardedBuffer<int32_t> accumulators((pixels() - 1) * accumulator_stride() +
                                                    channels());
    // The bias, then the mode's per-channel arrays (qwino/microparams.h).
    qwino_test::GuardedBuffer<int32_t> channel_params(QWINO_MAX_CHANNEL_ARRAYS * channels());
    const int32_t* bias = channel_params.data();
    const size_t output_size = (pixels() - 1) * output_stride() + channels();
    qwino_test::GuardedBuffer<uint8_t> output(output_size), output_twin(output_size);
    constexpr uint8_t kSentinel = 0xA5;

    for (size_t iteration = 0; iteration < iterations(); iteration++) {
      const qwino_test::RequantizationCase q = IterationCase(rng, channels());
      DrawBias(rng, channel_params.data(), channels());
      q.FillChannelParams(channel_params.data());
      const qwino_qu8_requantization_params microparams = q.Microparams(init, bias);
      DrawAccumulators(rng, q, bias, accumulators);
      std::fill(output.data(), output.data() + output_size, kSentinel);
      std::fill(output_twin.data(), output_twin.data() + output_size, kSentinel);

      requantize(pixels(), channels(), accumulators.data(), accumulator_stride(), bias,
                 output.data(), output_stride(), &microparams);

      for (size_t p = 0; p < pixels(); p++) {
        for (size_t c = 0; c < channels(); c++) {
          const int32_t accumulator =
              qwino_test::ReferenceWrappingAdd(accumulators[p * accumulator_stride() + c], bias[c]);
          ASSERT_EQ(int{q.Reference(accumulator, c)}, int{output[p * output_stride() + c]})
              << "pixel " << p << " of " << pixels() << " x " << channels() << ", accumulator "
              << accumulators[p * accumulator_stride() + c] << " + bias " << bias[c] << "; "
              << q.Describe(c);
        }
        // The slack between pixels is not the kernel's to write.
        for (size_t i = channels(); i < output_stride() && p + 1 < pixels(); i++) {
          ASSERT_EQ(kSentinel, output[p * output_stride() + i])
              << "wrote slack byte " << i << " after pixel " << p;
        }
      }

      if (twin != nullptr) {
        const qwino_qu8_requantization_params twin_microparams = q.Microparams(twin_init, bias);
        twin(pixels(), channels(), accumulators.data(), accumulator_stride(), bias,
             output_twin.data(), output_stride(), &twin_microparams);
        ASSERT_EQ(0, std::memcmp(output.data(), output_twin.data(), output_size))
            << "differs from the scalar twin: " << pixels() << " x " << channels();
      }
    }
  }

 private:
  void DrawAccumulators(std::mt19937& rng, const qwino_test::RequantizationCase& q,
                        const int32_t* bias,
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
            accumulator = Wrap(int64_t{DrawTieAccumulator(rng, q, c)} - bias[c]);
            break;
        }
      }
    }
  }

  size_t pixels_ = 1;
  size_t channels_ = 16;
  size_t accumulator_stride_ = 0;
  size_t output_stride_ = 0;
  AccumulatorValues accumulator_values_ = AccumulatorValues::kGemm;
  size_t iterations_ = 3;
  uint32_t seed_ = 0x9E3779B9u;
};
