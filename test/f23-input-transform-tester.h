// F23InputTransformTester: checks one Winograd F(2x2,3x3) input transform micro-kernel.
//
// Why it looks like this: the oracle multiplies the explicit matrices V = B^T d B in int64 (the
// matrix from DESIGN.md section 2, not the kernel's add/sub schedule), so a wrong sign or a
// swapped position in any kernel, scalar included, is caught. Every one of the 16 pixels is its
// own allocation of exactly `channels` bytes followed by an inaccessible page, so reading past
// `channels` bytes crashes even under qemu; positions in the padding share one zero-point row,
// as the operator passes them. The output is pre-filled with a sentinel to prove that only
// 16 x channels values are written when the position stride has slack. SIMD kernels are also
// compared with their scalar twin over the whole output buffer.
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

class F23InputTransformTester {
 public:
  // kRandom: uniform bytes; kExtreme: only 0 and 255, the inputs that reach |V| = 4 * 255.
  enum class Values { kRandom, kExtreme };

  F23InputTransformTester& channels(size_t channels) { channels_ = channels; return *this; }
  size_t channels() const { return channels_; }
  F23InputTransformTester& input_zero_point(uint8_t zero_point) {
    input_zero_point_ = zero_point;
    return *this;
  }
  uint8_t input_zero_point() const { return input_zero_point_; }
  // Elements between the 16 output positions; 0 means channels (dense).
  F23InputTransformTester& output_position_stride(size_t stride) {
    output_position_stride_ = stride;
    return *this;
  }
  size_t output_position_stride() const {
    return output_position_stride_ == 0 ? channels() : output_position_stride_;
  }
  // Bit p set: position p (row-major in the 4x4 tile) lies in the padding.
  F23InputTransformTester& padding_mask(uint16_t mask) { padding_mask_ = mask; return *this; }
  uint16_t padding_mask() const { return padding_mask_; }
  F23InputTransformTester& values(Values values) { values_ = values; return *this; }
  Values values() const { return values_; }
  F23InputTransformTester& iterations(size_t iterations) { iterations_ = iterations; return *this; }
  size_t iterations() const { return iterations_; }
  F23InputTransformTester& seed(uint32_t seed) { seed_ = seed; return *this; }
  uint32_t seed() const { return seed_; }

  void Test(qwino_input_transform_ukernel_fn transform,
            qwino_input_transform_ukernel_fn twin = nullptr) const {
    ASSERT_GE(channels(), 1u);
    ASSERT_GE(output_position_stride(), channels());
    static const int64_t kBT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};

    std::mt19937 rng(seed() ^ static_cast<uint32_t>(channels() * 7919u + padding_mask() +
                                                    input_zero_point() * 65537u));
    std::vector<qwino_test::GuardedBuffer<uint8_t>> pixels;
    for (size_t p = 0; p < 16; p++) {
      pixels.emplace_back(channels());
    }
    qwino_test::GuardedBuffer<uint8_t> zero_row(channels());
    std::fill(zero_row.data(), zero_row.data() + channels(), input_zero_point());
    const uint8_t* input[16];
    for (size_t p = 0; p < 16; p++) {
      input[p] = (padding_mask() >> p) & 1 ? zero_row.data() : pixels[p].data();
    }
    const size_t output_size = 15 * output_position_stride() + channels() + 9;
    std::vector<int16_t> output(output_size), output_twin(output_size);
    constexpr int16_t kSentinel = 0x5AA5;

    for (size_t iteration = 0; iteration < iterations(); iteration++) {
      for (size_t p = 0; p < 16; p++) {
        for (size_t c = 0; c < channels(); c++) {
          pixels[p][c] = values() == Values::kExtreme
                             ? static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 1)(rng) * 255)
                             : static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 255)(rng));
        }
      }
      std::fill(output.begin(), output.end(), kSentinel);
      std::fill(output_twin.begin(), output_twin.end(), kSentinel);

      transform(channels(), input, input_zero_point(), output.data(), output_position_stride());

      for (size_t c = 0; c < channels(); c++) {
        int64_t d[4][4], t[4][4];
        for (size_t p = 0; p < 16; p++) {
          d[p / 4][p % 4] = int64_t{input[p][c]} - int64_t{input_zero_point()};
        }
        for (size_t i = 0; i < 4; i++) {  // t = B^T d
          for (size_t j = 0; j < 4; j++) {
            t[i][j] = 0;
            for (size_t l = 0; l < 4; l++) t[i][j] += kBT[i][l] * d[l][j];
          }
        }
        for (size_t i = 0; i < 4; i++) {  // V = t B = t (B^T)^T
          for (size_t j = 0; j < 4; j++) {
            int64_t v = 0;
            for (size_t l = 0; l < 4; l++) v += t[i][l] * kBT[j][l];
            ASSERT_LE(v < 0 ? -v : v, 4 * 255);
            ASSERT_EQ(v, output[(i * 4 + j) * output_position_stride() + c])
                << "position " << i * 4 + j << ", channel " << c << " of " << channels()
                << ", zero point " << int{input_zero_point()} << ", padding mask 0x" << std::hex
                << padding_mask() << std::dec << ", stride " << output_position_stride();
          }
        }
      }
      for (size_t idx = 0; idx < output_size; idx++) {
        const size_t p = idx / output_position_stride(), c = idx % output_position_stride();
        if (!(p < 16 && c < channels())) {
          ASSERT_EQ(kSentinel, output[idx]) << "wrote outside 16 x channels at element " << idx;
        }
      }
      if (twin != nullptr) {
        twin(channels(), input, input_zero_point(), output_twin.data(), output_position_stride());
        ASSERT_EQ(0, std::memcmp(output.data(), output_twin.data(), output_size * sizeof(int16_t)))
            << "differs from the scalar twin: channels " << channels();
      }
    }
  }

 private:
  size_t channels_ = 8;
  uint8_t input_zero_point_ = 128;
  size_t output_position_stride_ = 0;
  uint16_t padding_mask_ = 0;
  Values values_ = Values::kRandom;
  size_t iterations_ = 3;
  uint32_t seed_ = 0x2545F491u;
};
