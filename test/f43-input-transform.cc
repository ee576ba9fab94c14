// Tests of the Winograd F(4x4,3x3) input transform micro-kernels: every channel count 1..40
// (SIMD kernels take 8 (NEON), 16 (AVX2) or 32 (AVX-512) channels per step, so the tail is its
// own path), slack in the position stride, zero points 0/128/255/random (the SIMD kernels
// correct for the zero point at one position only, so every zero point matters), padding
// positions (the operator's zero row), and the inputs that reach the largest |V| the zero point
// allows. x86 kernels are skipped where the CPU lacks their ISA.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "input-transform-tester.h"
#include "isa-check.h"
#include "qwino/ukernels.h"

#define QWINO_F43_INPUT_TRANSFORM_TESTS(SUITE, transform, twin, CHECK)                             \
  TEST(SUITE, channels_eq_8) {                                                                     \
    CHECK;                                                                                         \
    F43InputTransformTester().channels(8).iterations(20).Test(transform, twin);                    \
  }                                                                                                \
  TEST(SUITE, channels_1_to_40) {                                                                  \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      F43InputTransformTester().channels(channels).Test(transform, twin);                          \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, large_channels) {                                                                    \
    CHECK;                                                                                         \
    for (size_t channels : {64, 127, 128, 255, 256, 512}) {                                        \
      F43InputTransformTester().channels(channels).Test(transform, twin);                          \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, position_stride) {                                                                   \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      F43InputTransformTester()                                                                    \
          .channels(channels)                                                                      \
          .output_position_stride(channels + 1)                                                    \
          .Test(transform, twin);                                                                  \
      F43InputTransformTester()                                                                    \
          .channels(channels)                                                                      \
          .output_position_stride(channels + 17)                                                   \
          .Test(transform, twin);                                                                  \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, zero_points) {                                                                       \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      for (int zero_point : {0, 1, 127, 128, 254, 255}) {                                          \
        F43InputTransformTester()                                                                  \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .Test(transform, twin);                                                                \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, every_zero_point) {                                                                  \
    CHECK;                                                                                         \
    for (int zero_point = 0; zero_point <= 255; zero_point++) {                                    \
      F43InputTransformTester()                                                                    \
          .channels(11)                                                                            \
          .input_zero_point(static_cast<uint8_t>(zero_point))                                      \
          .iterations(1)                                                                           \
          .Test(transform, twin);                                                                  \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, random_zero_points) {                                                                \
    CHECK;                                                                                         \
    std::mt19937 rng(20240611);                                                                    \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      F43InputTransformTester()                                                                    \
          .channels(channels)                                                                      \
          .input_zero_point(static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 255)(rng))) \
          .Test(transform, twin);                                                                  \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, padding) {                                                                           \
    CHECK;                                                                                         \
    /* Edge tiles: top/bottom rows, left/right columns, corners, and everything padding. */        \
    const uint64_t kRow0 = UINT64_C(0x3F), kColumn0 = UINT64_C(0x041041041);                       \
    const uint64_t kAll = (UINT64_C(1) << 36) - 1;                                                 \
    const uint64_t kMasks[] = {                                                                    \
        kRow0,                         /* top */                                                   \
        kRow0 << 30,                   /* bottom */                                                \
        (kRow0 << 24) | (kRow0 << 30), /* two bottom rows */                                       \
        kColumn0,                      /* left */                                                  \
        kColumn0 << 5,                 /* right */                                                 \
        (kColumn0 << 4) | (kColumn0 << 5),                                                         \
        kRow0 | kColumn0, /* top-left corner */                                                    \
        (kRow0 << 30) | (kColumn0 << 5),                                                           \
        kRow0 | (kRow0 << 6) | (kColumn0 << 3) | (kColumn0 << 4) | (kColumn0 << 5),                \
        UINT64_C(1),                                                                               \
        UINT64_C(1) << 35,                                                                         \
        UINT64_C(1) << 7,                                                                          \
        kAll,                                                                                      \
        UINT64_C(0xA5A5A5A5A) & kAll};                                                             \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      for (uint64_t mask : kMasks) {                                                               \
        F43InputTransformTester()                                                                  \
            .channels(channels)                                                                    \
            .padding_mask(mask)                                                                    \
            .input_zero_point(static_cast<uint8_t>(channels * 37))                                 \
            .Test(transform, twin);                                                                \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, random_padding) {                                                                    \
    CHECK;                                                                                         \
    std::mt19937_64 rng(77);                                                                       \
    for (size_t i = 0; i < 200; i++) {                                                             \
      F43InputTransformTester()                                                                    \
          .channels(std::uniform_int_distribution<size_t>(1, 40)(rng))                             \
          .padding_mask(rng() & ((UINT64_C(1) << 36) - 1))                                         \
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
        F43InputTransformTester()                                                                  \
            .int8_input(true)                                                                      \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .Test(transform, twin);                                                                \
        F43InputTransformTester()                                                                  \
            .int8_input(true)                                                                      \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .values(F43InputTransformTester::Values::kExtreme)                                     \
            .Test(transform, twin);                                                                \
        F43InputTransformTester()                                                                  \
            .int8_input(true)                                                                      \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .values(F43InputTransformTester::Values::kMaxPosition)                                 \
            .Test(transform, twin);                                                                \
      }                                                                                            \
      F43InputTransformTester()                                                                    \
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
        F43InputTransformTester()                                                                  \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .values(F43InputTransformTester::Values::kExtreme)                                     \
            .iterations(10)                                                                        \
            .Test(transform, twin);                                                                \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, max_magnitude) {                                                                     \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      for (int zero_point : {0, 255, 128, 1, 254}) {                                               \
        F43InputTransformTester()                                                                  \
            .channels(channels)                                                                    \
            .input_zero_point(static_cast<uint8_t>(zero_point))                                    \
            .values(F43InputTransformTester::Values::kMaxPosition)                                 \
            .iterations(10)                                                                        \
            .Test(transform, twin);                                                                \
      }                                                                                            \
    }                                                                                              \
  }

// One set of tests per kernel of the family's list (the scalar twin first).
#define QWINO_QU8_WINOGRAD_F4X4_INPUT(isa, ukernel, value_cost)                                \
  QWINO_F43_INPUT_TRANSFORM_TESTS(                                                             \
      ukernel, ukernel, QWINO_TWIN_OF(ukernel, qwino_qu8_winograd_f4x4_input_ukernel__scalar), \
      QWINO_REQUIRE_ISA(isa))
#include "qu8-winograd-f4x4-input/qu8-winograd-f4x4-input.inc"
#undef QWINO_QU8_WINOGRAD_F4X4_INPUT
