// Tests of the Winograd F(2x2,3x3) input transform micro-kernels: every channel count 1..40 (SIMD
// kernels take 8 (NEON, SSE4.1), 16 (AVX2) or 32 (AVX-512) channels per step, so the tail is its
// own path), slack in the position stride, zero points 0/128/255/random, padding positions (the
// operator's zero row), and the extreme inputs that reach |V| = 4 * 255.
#include <gtest/gtest.h>

#include "input-transform-tester.h"
#include "isa-check.h"
#include "qwino/ukernels.h"

#define QWINO_F23_INPUT_TRANSFORM_TESTS(SUITE, transform, twin, CHECK)                             \
  TEST(SUITE, channels_eq_8) {                                                                     \
    CHECK;                                                                                         \
    F23InputTransformTester().channels(8).iterations(20).Test(transform, twin);                    \
  }                                                                                                \
  TEST(SUITE, channels_1_to_40) {                                                                  \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      F23InputTransformTester().channels(channels).Test(transform, twin);                          \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, large_channels) {                                                                    \
    CHECK;                                                                                         \
    for (size_t channels : {64, 127, 128, 255, 256, 512}) {                                        \
      F23InputTransformTester().channels(channels).Test(transform, twin);                          \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, position_stride) {                                                                   \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      F23InputTransformTester()                                                                    \
          .channels(channels)                                                                      \
          .output_position_stride(channels + 1)                                                    \
          .Test(transform, twin);                                                                  \
      F23InputTransformTester()                                                                    \
          .channels(channels)                                                                      \
          .output_position_stride(channels + 17)                                                   \
          .Test(transform, twin);                                                                  \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, zero_points) {                                                                       \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      for (int zero_point : {0, 1, 127, 128, 254, 255}) {                                          \
        F23InputTransformTester()                                                                  \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .Test(transform, twin);                                                                \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, random_zero_points) {                                                                \
    CHECK;                                                                                         \
    std::mt19937 rng(20240611);                                                                    \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      F23InputTransformTester()                                                                    \
          .channels(channels)                                                                      \
          .input_zero_point(static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 255)(rng))) \
          .Test(transform, twin);                                                                  \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, padding) {                                                                           \
    CHECK;                                                                                         \
    /* Edge tiles: top/bottom rows, left/right columns, corners, and everything padding. */        \
    static const uint16_t kMasks[] = {0x000F, 0xF000, 0x1111, 0x8888, 0x111F, 0xF888, 0xCCCC,      \
                                      0xFF00, 0x00FF, 0x8000, 0x0001, 0xFFFF, 0xA5A5};             \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      for (uint16_t mask : kMasks) {                                                               \
        F23InputTransformTester()                                                                  \
            .channels(channels)                                                                    \
            .padding_mask(mask)                                                                    \
            .input_zero_point(static_cast<uint8_t>(channels * 37))                                 \
            .Test(transform, twin);                                                                \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, random_padding) {                                                                    \
    CHECK;                                                                                         \
    std::mt19937 rng(77);                                                                          \
    for (size_t i = 0; i < 200; i++) {                                                             \
      F23InputTransformTester()                                                                    \
          .channels(std::uniform_int_distribution<size_t>(1, 40)(rng))                             \
          .padding_mask(static_cast<uint16_t>(rng()))                                              \
          .input_zero_point(static_cast<uint8_t>(rng()))                                           \
          .output_position_stride(0)                                                               \
          .iterations(1)                                                                           \
          .Test(transform, twin);                                                                  \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, int8_inputs) {                                                                       \
    CHECK;                                                                                         \
    std::mt19937 rng(8128);                                                                        \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      for (int zero_point : {0, 1, 127, 128, 255}) {                                               \
        F23InputTransformTester()                                                                  \
            .int8_input(true)                                                                      \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .Test(transform, twin);                                                                \
        F23InputTransformTester()                                                                  \
            .int8_input(true)                                                                      \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .values(F23InputTransformTester::Values::kExtreme)                                     \
            .Test(transform, twin);                                                                \
        F23InputTransformTester()                                                                  \
            .int8_input(true)                                                                      \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .values(F23InputTransformTester::Values::kMaxPosition)                                 \
            .Test(transform, twin);                                                                \
      }                                                                                            \
      F23InputTransformTester()                                                                    \
          .int8_input(true)                                                                        \
          .channels(channels)                                                                      \
          .padding_mask(rng())                                                                     \
          .input_zero_point(static_cast<uint8_t>(rng()))                                           \
          .Test(transform, twin);                                                                  \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, extreme_values) {                                                                    \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      for (int zero_point : {0, 255, 128}) {                                                       \
        F23InputTransformTester()                                                                  \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .values(F23InputTransformTester::Values::kExtreme)                                     \
            .iterations(10)                                                                        \
            .Test(transform, twin);                                                                \
      }                                                                                            \
    }                                                                                              \
  }

// One set of tests per kernel of the family's list (the scalar twin first).
#define QWINO_QU8_WINOGRAD_F2X2_INPUT(isa, ukernel, value_cost)                                \
  QWINO_F23_INPUT_TRANSFORM_TESTS(                                                             \
      ukernel, ukernel, QWINO_TWIN_OF(ukernel, qwino_qu8_winograd_f2x2_input_ukernel__scalar), \
      QWINO_REQUIRE_ISA(isa))
#include "qu8-winograd-f2x2-input/qu8-winograd-f2x2-input.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_INPUT
