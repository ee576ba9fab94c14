// Tests of the Winograd F(2x2,3x3) output transform + requantization micro-kernels: every
// channel count 1..40 (SIMD kernels take 8 or 16 (AVX-512) channels per step; the tail is its
// own path), partial tiles (rows/columns 1..2), strides
// with slack, genuine and arbitrary int32 M, bias extremes (wrapping add), and the corners of
// TFLite requantization: rounding ties, right_shift 0..31, left_shift 1, multipliers at both ends
// of [2^30, 2^31), every output zero point, and output_min/max clamps.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "f23-output-transform-tester.h"
#include "isa-check.h"
#include "qwino/ukernels.h"
#include "requantization-sweeps.h"

using M = F23OutputTransformTester::MValues;
using Bias = F23OutputTransformTester::BiasValues;

#define QWINO_F23_OUTPUT_TRANSFORM_TESTS(SUITE, transform, twin, INIT, TWIN_INIT, CHECK, MODE)    \
  TEST(SUITE, channels_eq_8) {                                                                    \
    CHECK;                                                                                        \
    F23OutputTransformTester().mode(MODE).channels(8).iterations(20).Test(transform, twin, INIT,  \
                                                                          TWIN_INIT);             \
  }                                                                                               \
  TEST(SUITE, channels_rows_columns) {                                                            \
    CHECK;                                                                                        \
    for (size_t channels = 1; channels <= 40; channels++) {                                       \
      for (size_t rows = 1; rows <= 2; rows++) {                                                  \
        for (size_t columns = 1; columns <= 2; columns++) {                                       \
          F23OutputTransformTester()                                                              \
              .mode(MODE)                                                                         \
              .channels(channels)                                                                 \
              .rows(rows)                                                                         \
              .columns(columns)                                                                   \
              .Test(transform, twin, INIT, TWIN_INIT);                                            \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, large_channels) {                                                                   \
    CHECK;                                                                                        \
    for (size_t channels : {64, 127, 128, 256, 512}) {                                            \
      F23OutputTransformTester().mode(MODE).channels(channels).random_params(true).Test(          \
          transform, twin, INIT, TWIN_INIT);                                                      \
      F23OutputTransformTester()                                                                  \
          .mode(MODE)                                                                             \
          .channels(channels)                                                                     \
          .m_values(M::kFull)                                                                     \
          .bias_values(Bias::kFull)                                                               \
          .random_params(true)                                                                    \
          .Test(transform, twin, INIT, TWIN_INIT);                                                \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, strides) {                                                                          \
    CHECK;                                                                                        \
    for (size_t channels = 1; channels <= 40; channels++) {                                       \
      for (size_t rows = 1; rows <= 2; rows++) {                                                  \
        for (size_t columns = 1; columns <= 2; columns++) {                                       \
          F23OutputTransformTester()                                                              \
              .mode(MODE)                                                                         \
              .channels(channels)                                                                 \
              .rows(rows)                                                                         \
              .columns(columns)                                                                   \
              .m_position_stride(channels + 5)                                                    \
              .output_pixel_stride(channels + 3)                                                  \
              .output_row_stride(5 * channels + 11)                                               \
              .random_params(true)                                                                \
              .Test(transform, twin, INIT, TWIN_INIT);                                            \
        }                                                                                         \
      }                                                                                           \
      /* A one-pixel-wide image: the row stride is one pixel. */                                  \
      F23OutputTransformTester()                                                                  \
          .mode(MODE)                                                                             \
          .channels(channels)                                                                     \
          .rows(2)                                                                                \
          .columns(1)                                                                             \
          .output_row_stride(channels)                                                            \
          .Test(transform, twin, INIT, TWIN_INIT);                                                \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, arbitrary_m) {                                                                      \
    CHECK;                                                                                        \
    for (size_t channels = 1; channels <= 40; channels++) {                                       \
      for (size_t rows = 1; rows <= 2; rows++) {                                                  \
        for (size_t columns = 1; columns <= 2; columns++) {                                       \
          F23OutputTransformTester()                                                              \
              .mode(MODE)                                                                         \
              .channels(channels)                                                                 \
              .rows(rows)                                                                         \
              .columns(columns)                                                                   \
              .m_values(M::kFull)                                                                 \
              .bias_values(Bias::kFull)                                                           \
              .random_params(true)                                                                \
              .iterations(5)                                                                      \
              .Test(transform, twin, INIT, TWIN_INIT);                                            \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, bias_extremes) {                                                                    \
    CHECK;                                                                                        \
    for (size_t channels = 1; channels <= 40; channels++) {                                       \
      F23OutputTransformTester()                                                                  \
          .mode(MODE)                                                                             \
          .channels(channels)                                                                     \
          .bias_values(Bias::kExtreme)                                                            \
          .random_params(true)                                                                    \
          .iterations(5)                                                                          \
          .Test(transform, twin, INIT, TWIN_INIT);                                                \
      F23OutputTransformTester()                                                                  \
          .mode(MODE)                                                                             \
          .channels(channels)                                                                     \
          .bias_values(Bias::kExtreme)                                                            \
          .m_values(M::kFull)                                                                     \
          .random_params(true)                                                                    \
          .iterations(5)                                                                          \
          .Test(transform, twin, INIT, TWIN_INIT);                                                \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, right_shift_0_to_31) {                                                              \
    CHECK;                                                                                        \
    qwino_test::SweepRightShifts(                                                                 \
        {1, 7, 8, 9, 16, 23}, F23OutputTransformTester().mode(MODE).m_values(M::kTies),           \
        F23OutputTransformTester().mode(MODE).m_values(M::kFull).bias_values(Bias::kFull),        \
        F23OutputTransformTester().mode(MODE).m_values(M::kFull).bias_values(Bias::kExtreme),     \
        transform, twin, INIT, TWIN_INIT);                                                        \
  }                                                                                               \
  TEST(SUITE, rounding_ties) {                                                                    \
    CHECK;                                                                                        \
    qwino_test::SweepRoundingTies(                                                                \
        F23OutputTransformTester().mode(MODE).channels(19).m_values(M::kTies).iterations(4),      \
        F23OutputTransformTester().mode(MODE).channels(13).m_values(M::kTies).iterations(4),      \
        transform, twin, INIT, TWIN_INIT);                                                        \
  }                                                                                               \
  TEST(SUITE, output_zero_points) {                                                               \
    CHECK;                                                                                        \
    for (int32_t zero_point = 0; zero_point <= 255; zero_point++) {                               \
      F23OutputTransformTester()                                                                  \
          .mode(MODE)                                                                             \
          .channels(11)                                                                           \
          .output_zero_point(zero_point)                                                          \
          .right_shift(static_cast<uint32_t>(zero_point % 32))                                    \
          .Test(transform, twin, INIT, TWIN_INIT);                                                \
    }                                                                                             \
    /* Outside the byte range the gemmlowp add wraps; the kernels must agree on that too (the */  \
    /* fp32 zero point is a byte by contract). */                                                 \
    for (int32_t zero_point : {-1, 256, INT32_MIN, INT32_MAX}) {                                  \
      if (MODE != qwino_requantization_gemmlowp) break;                                           \
      F23OutputTransformTester()                                                                  \
          .mode(MODE)                                                                             \
          .channels(11)                                                                           \
          .output_zero_point(zero_point)                                                          \
          .right_shift(0)                                                                         \
          .m_values(M::kFull)                                                                     \
          .bias_values(Bias::kFull)                                                               \
          .Test(transform, twin, INIT, TWIN_INIT);                                                \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, output_clamps) {                                                                    \
    CHECK;                                                                                        \
    qwino_test::SweepOutputClamps(                                                                \
        F23OutputTransformTester().mode(MODE).channels(17).right_shift(6), transform, twin, INIT, \
        TWIN_INIT);                                                                               \
  }                                                                                               \
  TEST(SUITE, multipliers_outside_contract) {                                                     \
    CHECK;                                                                                        \
    qwino_test::SweepMultipliersOutsideContract(                                                  \
        F23OutputTransformTester()                                                                \
            .mode(MODE)                                                                           \
            .channels(9)                                                                          \
            .m_values(M::kTies)                                                                   \
            .bias_values(Bias::kExtreme)                                                          \
            .iterations(4),                                                                       \
        F23OutputTransformTester().mode(MODE).channels(9).m_values(M::kFull).bias_values(         \
            Bias::kFull),                                                                         \
        transform, twin, INIT, TWIN_INIT);                                                        \
  }                                                                                               \
  TEST(SUITE, int8_outputs_and_per_channel) {                                                     \
    CHECK;                                                                                        \
    qwino_test::SweepTypesAndChannels(                                                            \
        F23OutputTransformTester().mode(MODE).channels(37).m_values(M::kTies).iterations(6),      \
        F23OutputTransformTester().mode(MODE).channels(29).m_values(M::kFull).bias_values(        \
            Bias::kFull),                                                                         \
        transform, twin, INIT, TWIN_INIT);                                                        \
  }                                                                                               \
  TEST(SUITE, random_everything) {                                                                \
    CHECK;                                                                                        \
    std::mt19937 rng(123456789);                                                                  \
    for (size_t i = 0; i < 300; i++) {                                                            \
      const size_t channels = std::uniform_int_distribution<size_t>(1, 40)(rng);                  \
      F23OutputTransformTester()                                                                  \
          .mode(MODE)                                                                             \
          .channels(channels)                                                                     \
          .rows(1 + rng() % 2)                                                                    \
          .columns(1 + rng() % 2)                                                                 \
          .m_position_stride(channels + rng() % 9)                                                \
          .output_pixel_stride(channels + rng() % 5)                                              \
          .m_values(static_cast<M>(rng() % 3))                                                    \
          .bias_values(static_cast<Bias>(rng() % 3))                                              \
          .random_params(true)                                                                    \
          .seed(static_cast<uint32_t>(rng()))                                                     \
          .iterations(2)                                                                          \
          .Test(transform, twin, INIT, TWIN_INIT);                                                \
    }                                                                                             \
  }

// One set of tests per kernel of the family's list (the scalar twin first).
#define QWINO_QU8_WINOGRAD_F2X2_OUTPUT(isa, mode, ukernel, init_params, value_cost)    \
  QWINO_F23_OUTPUT_TRANSFORM_TESTS(                                                    \
      ukernel, ukernel,                                                                \
      QWINO_TWIN_OF(ukernel, qwino_qu8_winograd_f2x2_output_##mode##_ukernel__scalar), \
      init_params, qwino_init_qu8_##mode##_scalar_params, QWINO_REQUIRE_ISA(isa),      \
      qwino_requantization_##mode)
#include "qu8-winograd-f2x2-output/qu8-winograd-f2x2-output.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_OUTPUT
