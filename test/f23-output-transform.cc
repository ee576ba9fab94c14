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

#define QWINO_F23_OUTPUT_TRANSFORM_TESTS(SUITE, transform, twin, INIT, CHECK)                      \
  TEST(SUITE, channels_eq_8) {                                                                     \
    CHECK;                                                                                         \
    F23OutputTransformTester().channels(8).iterations(20).Test(transform, twin, INIT);             \
  }                                                                                                \
  TEST(SUITE, channels_rows_columns) {                                                             \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      for (size_t rows = 1; rows <= 2; rows++) {                                                   \
        for (size_t columns = 1; columns <= 2; columns++) {                                        \
          F23OutputTransformTester().channels(channels).rows(rows).columns(columns)                \
              .Test(transform, twin, INIT);                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, large_channels) {                                                                    \
    CHECK;                                                                                         \
    for (size_t channels : {64, 127, 128, 256, 512}) {                                             \
      F23OutputTransformTester().channels(channels).random_params(true).Test(transform, twin, INIT); \
      F23OutputTransformTester().channels(channels).m_values(M::kFull)                             \
          .bias_values(Bias::kFull).random_params(true).Test(transform, twin, INIT);               \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, strides) {                                                                           \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      for (size_t rows = 1; rows <= 2; rows++) {                                                   \
        for (size_t columns = 1; columns <= 2; columns++) {                                        \
          F23OutputTransformTester().channels(channels).rows(rows).columns(columns)                \
              .m_position_stride(channels + 5).output_pixel_stride(channels + 3)                   \
              .output_row_stride(5 * channels + 11).random_params(true).Test(transform, twin, INIT); \
        }                                                                                          \
      }                                                                                            \
      /* A one-pixel-wide image: the row stride is one pixel. */                                   \
      F23OutputTransformTester().channels(channels).rows(2).columns(1)                             \
          .output_row_stride(channels).Test(transform, twin, INIT);                                \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, arbitrary_m) {                                                                       \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      for (size_t rows = 1; rows <= 2; rows++) {                                                   \
        for (size_t columns = 1; columns <= 2; columns++) {                                        \
          F23OutputTransformTester().channels(channels).rows(rows).columns(columns)                \
              .m_values(M::kFull).bias_values(Bias::kFull).random_params(true)                     \
              .iterations(5).Test(transform, twin, INIT);                                          \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, bias_extremes) {                                                                     \
    CHECK;                                                                                         \
    for (size_t channels = 1; channels <= 40; channels++) {                                        \
      F23OutputTransformTester().channels(channels).bias_values(Bias::kExtreme)                    \
          .random_params(true).iterations(5).Test(transform, twin, INIT);                          \
      F23OutputTransformTester().channels(channels).bias_values(Bias::kExtreme)                    \
          .m_values(M::kFull).random_params(true).iterations(5).Test(transform, twin, INIT);       \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, right_shift_0_to_31) {                                                               \
    CHECK;                                                                                         \
    qwino_test::SweepRightShifts(                                                                  \
        {1, 7, 8, 9, 16, 23},                                                                      \
        F23OutputTransformTester().m_values(M::kTies),                                             \
        F23OutputTransformTester().m_values(M::kFull).bias_values(Bias::kFull),                    \
        F23OutputTransformTester().m_values(M::kFull).bias_values(Bias::kExtreme),                 \
        transform, twin, INIT);                                                                    \
  }                                                                                                \
  TEST(SUITE, rounding_ties) {                                                                     \
    CHECK;                                                                                         \
    qwino_test::SweepRoundingTies(                                                                 \
        F23OutputTransformTester().channels(19).m_values(M::kTies).iterations(4),                  \
        F23OutputTransformTester().channels(13).m_values(M::kTies).iterations(4),                  \
        transform, twin, INIT);                                                                    \
  }                                                                                                \
  TEST(SUITE, output_zero_points) {                                                                \
    CHECK;                                                                                         \
    for (int32_t zero_point = 0; zero_point <= 255; zero_point++) {                                \
      F23OutputTransformTester().channels(11).output_zero_point(zero_point)                        \
          .right_shift(static_cast<uint32_t>(zero_point % 32)).Test(transform, twin, INIT);        \
    }                                                                                              \
    /* Outside the byte range the add wraps; the kernels must agree on that too. */                \
    for (int32_t zero_point : {-1, 256, INT32_MIN, INT32_MAX}) {                                   \
      F23OutputTransformTester().channels(11).output_zero_point(zero_point).right_shift(0)         \
          .m_values(M::kFull).bias_values(Bias::kFull).Test(transform, twin, INIT);                \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, output_clamps) {                                                                     \
    CHECK;                                                                                         \
    qwino_test::SweepOutputClamps(                                                                 \
        F23OutputTransformTester().channels(17).right_shift(6), transform, twin, INIT);            \
  }                                                                                                \
  TEST(SUITE, multipliers_outside_contract) {                                                      \
    CHECK;                                                                                         \
    qwino_test::SweepMultipliersOutsideContract(                                                   \
        F23OutputTransformTester().channels(9).m_values(M::kTies).bias_values(Bias::kExtreme)      \
            .iterations(4),                                                                        \
        F23OutputTransformTester().channels(9).m_values(M::kFull).bias_values(Bias::kFull),        \
        transform, twin, INIT);                                                                    \
  }                                                                                                \
  TEST(SUITE, random_everything) {                                                                 \
    CHECK;                                                                                         \
    std::mt19937 rng(123456789);                                                                   \
    for (size_t i = 0; i < 300; i++) {                                                             \
      const size_t channels = std::uniform_int_distribution<size_t>(1, 40)(rng);                   \
      F23OutputTransformTester()                                                                   \
          .channels(channels)                                                                      \
          .rows(1 + rng() % 2)                                                                     \
          .columns(1 + rng() % 2)                                                                  \
          .m_position_stride(channels + rng() % 9)                                                 \
          .output_pixel_stride(channels + rng() % 5)                                               \
          .m_values(static_cast<M>(rng() % 3))                                                     \
          .bias_values(static_cast<Bias>(rng() % 3))                                               \
          .random_params(true)                                                                     \
          .seed(static_cast<uint32_t>(rng()))                                                      \
          .iterations(2)                                                                           \
          .Test(transform, twin, INIT);                                                            \
    }                                                                                              \
  }

// One set of tests per kernel of the family's list (the scalar twin first).
#define QWINO_QU8_WINOGRAD_F2X2_OUTPUT(isa, ukernel, init_params, value_cost) \
  QWINO_F23_OUTPUT_TRANSFORM_TESTS(ukernel, ukernel, QWINO_TWIN_OF(ukernel, qwino_qu8_winograd_f2x2_output_gemmlowp_ukernel__scalar), init_params, QWINO_REQUIRE_ISA(isa))
#include "qu8-winograd-f2x2-output/qu8-winograd-f2x2-output.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_OUTPUT
