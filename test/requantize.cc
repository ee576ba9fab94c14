// Tests of the requantize micro-kernels (bias + TFLite requantization of the direct path's GEMM
// results): every channel count 1..80 (SIMD kernels take 16 (SSE4.1, NEON), 32 (AVX2) or 64
// (AVX-512) channels per main step, then smaller steps, then a tail), 1..9 pixels with strides
// with slack, GEMM-range and arbitrary int32 accumulators, bias extremes (wrapping add), and the
// corners of TFLite requantization: rounding ties, right_shift 0..31, left_shift 1, multipliers
// at both ends of [2^30, 2^31) and outside it, every output zero point (and some outside the
// byte range), and output_min/max clamps.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "isa-check.h"
#include "qwino/ukernels.h"
#include "requantization-sweeps.h"
#include "requantize-tester.h"

using Acc = RequantizeTester::AccumulatorValues;
using Bias = RequantizeTester::BiasValues;

#define QWINO_REQUANTIZE_TESTS(SUITE, requantize, twin, INIT, TWIN_INIT, CHECK, MODE)             \
  TEST(SUITE, channels_eq_16) {                                                                   \
    CHECK;                                                                                        \
    RequantizeTester().mode(MODE).channels(16).iterations(20).Test(requantize, twin, INIT,        \
                                                                   TWIN_INIT);                    \
  }                                                                                               \
  TEST(SUITE, channels_1_to_80) {                                                                 \
    CHECK;                                                                                        \
    for (size_t channels = 1; channels <= 80; channels++) {                                       \
      RequantizeTester().mode(MODE).channels(channels).random_params(true).Test(requantize, twin, \
                                                                                INIT, TWIN_INIT); \
      RequantizeTester()                                                                          \
          .mode(MODE)                                                                             \
          .channels(channels)                                                                     \
          .accumulator_values(Acc::kFull)                                                         \
          .bias_values(Bias::kFull)                                                               \
          .random_params(true)                                                                    \
          .Test(requantize, twin, INIT, TWIN_INIT);                                               \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, large_channels) {                                                                   \
    CHECK;                                                                                        \
    for (size_t channels : {127, 128, 255, 256, 512, 1000}) {                                     \
      RequantizeTester().mode(MODE).channels(channels).pixels(3).random_params(true).Test(        \
          requantize, twin, INIT, TWIN_INIT);                                                     \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, pixels_and_strides) {                                                               \
    CHECK;                                                                                        \
    for (size_t channels = 1; channels <= 72; channels++) {                                       \
      for (size_t pixels = 1; pixels <= 9; pixels += 4) {                                         \
        RequantizeTester().mode(MODE).channels(channels).pixels(pixels).random_params(true).Test( \
            requantize, twin, INIT, TWIN_INIT);                                                   \
        RequantizeTester()                                                                        \
            .mode(MODE)                                                                           \
            .channels(channels)                                                                   \
            .pixels(pixels)                                                                       \
            .accumulator_stride(channels + 1 + channels % 7)                                      \
            .output_stride(channels + 3)                                                          \
            .random_params(true)                                                                  \
            .Test(requantize, twin, INIT, TWIN_INIT);                                             \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, bias_extremes) {                                                                    \
    CHECK;                                                                                        \
    for (size_t channels = 1; channels <= 80; channels += 3) {                                    \
      RequantizeTester()                                                                          \
          .mode(MODE)                                                                             \
          .channels(channels)                                                                     \
          .pixels(2)                                                                              \
          .bias_values(Bias::kExtreme)                                                            \
          .random_params(true)                                                                    \
          .iterations(5)                                                                          \
          .Test(requantize, twin, INIT, TWIN_INIT);                                               \
      RequantizeTester()                                                                          \
          .mode(MODE)                                                                             \
          .channels(channels)                                                                     \
          .pixels(2)                                                                              \
          .bias_values(Bias::kExtreme)                                                            \
          .accumulator_values(Acc::kFull)                                                         \
          .random_params(true)                                                                    \
          .iterations(5)                                                                          \
          .Test(requantize, twin, INIT, TWIN_INIT);                                               \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, right_shift_0_to_31) {                                                              \
    CHECK;                                                                                        \
    qwino_test::SweepRightShifts(                                                                 \
        {1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 64, 65, 79},                                      \
        RequantizeTester().mode(MODE).accumulator_values(Acc::kTies),                             \
        RequantizeTester().mode(MODE).accumulator_values(Acc::kFull).bias_values(Bias::kFull),    \
        RequantizeTester().mode(MODE).accumulator_values(Acc::kFull).bias_values(Bias::kExtreme), \
        requantize, twin, INIT, TWIN_INIT);                                                       \
  }                                                                                               \
  TEST(SUITE, rounding_ties) {                                                                    \
    CHECK;                                                                                        \
    qwino_test::SweepRoundingTies(RequantizeTester()                                              \
                                      .mode(MODE)                                                 \
                                      .channels(37)                                               \
                                      .pixels(2)                                                  \
                                      .accumulator_values(Acc::kTies)                             \
                                      .iterations(4),                                             \
                                  RequantizeTester()                                              \
                                      .mode(MODE)                                                 \
                                      .channels(13)                                               \
                                      .pixels(3)                                                  \
                                      .accumulator_values(Acc::kTies)                             \
                                      .iterations(4),                                             \
                                  requantize, twin, INIT, TWIN_INIT);                             \
  }                                                                                               \
  TEST(SUITE, output_zero_points) {                                                               \
    CHECK;                                                                                        \
    for (int32_t zero_point = 0; zero_point <= 255; zero_point++) {                               \
      RequantizeTester()                                                                          \
          .mode(MODE)                                                                             \
          .channels(19)                                                                           \
          .output_zero_point(zero_point)                                                          \
          .right_shift(static_cast<uint32_t>(zero_point % 32))                                    \
          .Test(requantize, twin, INIT, TWIN_INIT);                                               \
    }                                                                                             \
    /* Outside the byte range the gemmlowp add wraps; the kernels must agree on that too (the */  \
    /* fp32 zero point is a byte by contract). */                                                 \
    for (int32_t zero_point : {-1, 256, INT32_MIN, INT32_MAX}) {                                  \
      if (MODE != qwino_requantization_gemmlowp) break;                                           \
      RequantizeTester()                                                                          \
          .mode(MODE)                                                                             \
          .channels(19)                                                                           \
          .output_zero_point(zero_point)                                                          \
          .right_shift(0)                                                                         \
          .accumulator_values(Acc::kFull)                                                         \
          .bias_values(Bias::kFull)                                                               \
          .Test(requantize, twin, INIT, TWIN_INIT);                                               \
      RequantizeTester()                                                                          \
          .mode(MODE)                                                                             \
          .channels(19)                                                                           \
          .output_zero_point(zero_point)                                                          \
          .right_shift(7)                                                                         \
          .accumulator_values(Acc::kTies)                                                         \
          .Test(requantize, twin, INIT, TWIN_INIT);                                               \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, output_clamps) {                                                                    \
    CHECK;                                                                                        \
    qwino_test::SweepOutputClamps(RequantizeTester().mode(MODE).channels(21).right_shift(6),      \
                                  requantize, twin, INIT, TWIN_INIT);                             \
  }                                                                                               \
  TEST(SUITE, multipliers_outside_contract) {                                                     \
    CHECK;                                                                                        \
    qwino_test::SweepMultipliersOutsideContract(RequantizeTester()                                \
                                                    .mode(MODE)                                   \
                                                    .channels(9)                                  \
                                                    .accumulator_values(Acc::kTies)               \
                                                    .bias_values(Bias::kExtreme)                  \
                                                    .iterations(4),                               \
                                                RequantizeTester()                                \
                                                    .mode(MODE)                                   \
                                                    .channels(41)                                 \
                                                    .accumulator_values(Acc::kFull)               \
                                                    .bias_values(Bias::kFull),                    \
                                                requantize, twin, INIT, TWIN_INIT);               \
  }                                                                                               \
  TEST(SUITE, int8_outputs_and_per_channel) {                                                     \
    CHECK;                                                                                        \
    qwino_test::SweepTypesAndChannels(                                                            \
        RequantizeTester().mode(MODE).channels(37).pixels(3).accumulator_values(Acc::kTies),      \
        RequantizeTester()                                                                        \
            .mode(MODE)                                                                           \
            .channels(29)                                                                         \
            .pixels(2)                                                                            \
            .accumulator_values(Acc::kFull)                                                       \
            .bias_values(Bias::kFull),                                                            \
        requantize, twin, INIT, TWIN_INIT);                                                       \
  }                                                                                               \
  TEST(SUITE, random_everything) {                                                                \
    CHECK;                                                                                        \
    std::mt19937 rng(987654321);                                                                  \
    for (size_t i = 0; i < 300; i++) {                                                            \
      const size_t channels = std::uniform_int_distribution<size_t>(1, 100)(rng);                 \
      RequantizeTester()                                                                          \
          .mode(MODE)                                                                             \
          .channels(channels)                                                                     \
          .pixels(1 + rng() % 6)                                                                  \
          .accumulator_stride(channels + rng() % 9)                                               \
          .output_stride(channels + rng() % 5)                                                    \
          .accumulator_values(static_cast<Acc>(rng() % 3))                                        \
          .bias_values(static_cast<Bias>(rng() % 3))                                              \
          .random_params(true)                                                                    \
          .seed(static_cast<uint32_t>(rng()))                                                     \
          .iterations(2)                                                                          \
          .Test(requantize, twin, INIT, TWIN_INIT);                                               \
    }                                                                                             \
  }

// One set of tests per kernel of the family's list (the scalar twin first).
#define QWINO_S32_QU8_REQUANTIZE(isa, mode, ukernel, init_params, value_cost)                      \
  QWINO_REQUANTIZE_TESTS(                                                                          \
      ukernel, ukernel, QWINO_TWIN_OF(ukernel, qwino_s32_qu8_requantize_##mode##_ukernel__scalar), \
      init_params, qwino_init_qu8_##mode##_scalar_params, QWINO_REQUIRE_ISA(isa),                  \
      qwino_requantization_##mode)
#include "s32-qu8-requantize/s32-qu8-requantize.inc"
#undef QWINO_S32_QU8_REQUANTIZE
