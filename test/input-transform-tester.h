// InputTransformTester<F23|F43>: checks one Winograd input transform micro-kernel,
// F(2x2,3x3) (4x4 tiles) or F(4x4,3x3) (6x6 tiles).
//
// Why it looks like this: the tester owns an independent definition of the transform (explicit
// int64 matrix products with the B^T of doc/DESIGN.md section 2, not the kernel's add/sub/shift
// schedule, and with the zero point subtracted from every pixel, which some kernels never do),
// so a wrong sign, a swapped position or a wrong zero-point correction in any kernel, scalar
// included, is caught. Every pixel of the tile is its own allocation of exactly `channels` bytes
// followed by an inaccessible page, so reading past `channels` bytes crashes even under qemu;
// positions in the padding share one zero-point row, as the operator passes them. The output is
// pre-filled with a sentinel to prove that only positions x channels values are written when the
// position stride has slack. Besides random bytes, the inputs include only-0-and-255 bytes and
// the patterns that drive one position of V to the largest magnitude the zero point allows
// (4 * 255 for F(2x2,3x3), 100 * 255 for F(4x4,3x3)), where an int16 overflow of an
// intermediate that is not modular would show. SIMD kernels are also compared with their scalar
// twin over the whole output buffer.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <random>
#include <vector>

#include "qwino/ukernels.h"

#include "guarded-buffer.h"

// B^T of each algorithm, and the largest |V| it can produce from inputs in [-255, 255].
struct F23InputTransform {
  static constexpr size_t kAlpha = 4;
  static constexpr int64_t kBT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  static constexpr int64_t kMaxMagnitude = 4 * 255;
};
struct F43InputTransform {
  static constexpr size_t kAlpha = 6;
  static constexpr int64_t kBT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                                        {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                                        {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  static constexpr int64_t kMaxMagnitude = 100 * 255;
};

template <typename Algorithm>
class InputTransformTester {
 public:
  // kRandom: uniform bytes; kExtreme: only 0 and 255; kMaxPosition: per channel, the bytes that
  // maximise (or minimise) one random position of V for the zero point: 255 where the
  // coefficient of the pixel in that position is positive, 0 where it is negative.
  enum class Values { kRandom, kExtreme, kMaxPosition };

  InputTransformTester& channels(size_t channels) {
    channels_ = channels;
    return *this;
  }
  size_t channels() const { return channels_; }
  InputTransformTester& input_zero_point(uint8_t zero_point) {
    input_zero_point_ = zero_point;
    return *this;
  }
  uint8_t input_zero_point() const { return input_zero_point_; }
  // int8 input: the bytes are int8 values, input_zero_point() is in the offset-binary view (the
  // int8 zero point + 128) and the kernel gets input_sign 0x80 (qwino/microparams.h).
  InputTransformTester& int8_input(bool int8) {
    int8_input_ = int8;
    return *this;
  }
  bool int8_input() const { return int8_input_; }
  uint8_t input_sign() const { return int8_input() ? 0x80 : 0; }
  // Elements between the output positions; 0 means channels (dense).
  InputTransformTester& output_position_stride(size_t stride) {
    output_position_stride_ = stride;
    return *this;
  }
  size_t output_position_stride() const {
    return output_position_stride_ == 0 ? channels() : output_position_stride_;
  }
  // Bit p set: position p (row-major in the alpha x alpha tile) lies in the padding.
  InputTransformTester& padding_mask(uint64_t mask) {
    padding_mask_ = mask;
    return *this;
  }
  uint64_t padding_mask() const { return padding_mask_; }
  InputTransformTester& values(Values values) {
    values_ = values;
    return *this;
  }
  Values values() const { return values_; }
  InputTransformTester& iterations(size_t iterations) {
    iterations_ = iterations;
    return *this;
  }
  size_t iterations() const { return iterations_; }
  InputTransformTester& seed(uint32_t seed) {
    seed_ = seed;
    return *this;
  }
  uint32_t seed() const { return seed_; }

  void Test(qwino_input_transform_ukernel_fn transform,
            qwino_input_transform_ukernel_fn twin = nullptr) const {
    ASSERT_GE(channels(), 1u);
    ASSERT_GE(output_position_stride(), channels());
    constexpr size_t kAlpha = Algorithm::kAlpha;
    constexpr size_t kPositions = kAlpha * kAlpha;
    const auto& kBT = Algorithm::kBT;

    std::mt19937 rng(seed() ^ static_cast<uint32_t>(channels() * 7919u + padding_mask() * 31 +
                                                    (padding_mask() >> 32) +
                                                    input_zero_point() * 65537u + input_sign()));
    std::vector<qwino_test::GuardedBuffer<uint8_t>> pixels;
    for (size_t p = 0; p < kPositions; p++) {
      pixels.emplace_back(channels());
    }
    qwino_test::GuardedBuffer<uint8_t> zero_row(channels());
    // The zero point as the tensor stores it.
    std::fill(zero_row.data(), zero_row.data() + channels(),
              static_cast<uint8_t>(input_zero_point() ^ input_sign()));
    const uint8_t* input[kPositions];
    for (size_t p = 0; p < kPositions; p++) {
      input[p] = (padding_mask() >> p) & 1 ? zero_row.data() : pixels[p].data();
    }
    const size_t output_size = (kPositions - 1) * output_position_stride() + channels() + 9;
    std::vector<int16_t> output(output_size), output_twin(output_size);
    constexpr int16_t kSentinel = 0x5AA5;

    for (size_t iteration = 0; iteration < iterations(); iteration++) {
      for (size_t c = 0; c < channels(); c++) {
        // Coefficient of pixel (k, l) in position (i, j): B^T[i][k] * B^T[j][l].
        const size_t target = std::uniform_int_distribution<size_t>(0, kPositions - 1)(rng);
        const int64_t sign = (rng() & 1) ? 1 : -1;
        for (size_t p = 0; p < kPositions; p++) {
          uint8_t value = 0;
          switch (values()) {
            case Values::kRandom:
              value = static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 255)(rng));
              break;
            case Values::kExtreme:
              value = static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 1)(rng) * 255);
              break;
            case Values::kMaxPosition: {
              const int64_t coefficient =
                  sign * kBT[target / kAlpha][p / kAlpha] * kBT[target % kAlpha][p % kAlpha];
              value = coefficient > 0 ? 255 : coefficient < 0 ? 0 : static_cast<uint8_t>(rng());
              break;
            }
          }
          pixels[p][c] = static_cast<uint8_t>(value ^ input_sign());  // drawn in the view
        }
      }
      std::fill(output.begin(), output.end(), kSentinel);
      std::fill(output_twin.begin(), output_twin.end(), kSentinel);

      transform(channels(), input, input_zero_point(), input_sign(), output.data(),
                output_position_stride());

      for (size_t c = 0; c < channels(); c++) {
        int64_t d[kAlpha][kAlpha], t[kAlpha][kAlpha];
        for (size_t p = 0; p < kPositions; p++) {
          // The tensor's value minus its zero point, from the bytes' own type.
          d[p / kAlpha][p % kAlpha] =
              int8_input()
                  ? int64_t{static_cast<int8_t>(input[p][c])} - (int64_t{input_zero_point()} - 128)
                  : int64_t{input[p][c]} - int64_t{input_zero_point()};
        }
        for (size_t i = 0; i < kAlpha; i++) {  // t = B^T d
          for (size_t j = 0; j < kAlpha; j++) {
            t[i][j] = 0;
            for (size_t l = 0; l < kAlpha; l++) t[i][j] += kBT[i][l] * d[l][j];
          }
        }
        for (size_t i = 0; i < kAlpha; i++) {  // V = t B = t (B^T)^T
          for (size_t j = 0; j < kAlpha; j++) {
            int64_t v = 0;
            for (size_t l = 0; l < kAlpha; l++) v += t[i][l] * kBT[j][l];
            ASSERT_LE(v < 0 ? -v : v, Algorithm::kMaxMagnitude);
            ASSERT_EQ(v, output[(i * kAlpha + j) * output_position_stride() + c])
                << "position " << i * kAlpha + j << ", channel " << c << " of " << channels()
                << ", zero point " << int{input_zero_point()} << (int8_input() ? " (int8)" : "")
                << ", padding mask 0x" << std::hex << padding_mask() << std::dec << ", stride "
                << output_position_stride();
          }
        }
      }
      for (size_t idx = 0; idx < output_size; idx++) {
        const size_t p = idx / output_position_stride(), c = idx % output_position_stride();
        if (!(p < kPositions && c < channels())) {
          ASSERT_EQ(kSentinel, output[idx])
              << "wrote outside " << kPositions << " x channels at element " << idx;
        }
      }
      if (twin != nullptr) {
        twin(channels(), input, input_zero_point(), input_sign(), output_twin.data(),
             output_position_stride());
        ASSERT_EQ(0, std::memcmp(output.data(), output_twin.data(), output_size * sizeof(int16_t)))
            << "differs from the scalar twin: channels " << channels();
      }
    }
  }

 private:
  size_t channels_ = 8;
  uint8_t input_zero_point_ = 128;
  bool int8_input_ = false;
  size_t output_position_stride_ = 0;
  uint64_t padding_mask_ = 0;
  Values values_ = Values::kRandom;
  size_t iterations_ = 3;
  uint32_t seed_ = 0x9E3779B9u;
};

using F23InputTransformTester = InputTransformTester<F23InputTransform>;
using F43InputTransformTester = InputTransformTester<F43InputTransform>;
