// Tests of the Winograd F(4x4,3x3) output transform micro-kernels (block sum, recovery of the
// exact accumulator from 576x modulo 2^32, bias, requantization): every channel count 1..40
// (SIMD kernels take 4 (NEON), 8 (AVX2) or 16 (AVX-512) channels per step, so the tail is its
// own path), partial tiles (rows/columns 1..4), 1..3 input-channel blocks in
// both layouts (blocks one after the other, blocks interleaved per position), strides with slack,
// genuine M (random data, and partials up to both ends of the exactness range [-2^25, 2^25)),
// arbitrary int32 M, bias extremes (wrapping adds), and the corners of TFLite requantization:
// rounding ties, right_shift 0..31, left_shift 1, multipliers at both ends of [2^30, 2^31),
// every output zero point, and output_min/max clamps. x86 kernels are skipped where the CPU
// lacks their ISA.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "f43-output-transform-tester.h"
#include "isa-check.h"
#include "qwino/ukernels.h"
#include "requantization-sweeps.h"

using M = F43OutputTransformTester::MValues;
using Bias = F43OutputTransformTester::BiasValues;

#define QWINO_F43_OUTPUT_TRANSFORM_TESTS(SUITE, transform, twin, INIT, TWIN_INIT, CHECK, MODE)   \
  TEST(SUITE, channels_eq_8) {                                                                   \
    CHECK;                                                                                       \
    F43OutputTransformTester().mode(MODE).channels(8).iterations(20).Test(transform, twin, INIT, \
                                                                          TWIN_INIT);            \
  }                                                                                              \
  TEST(SUITE, channels_rows_columns) {                                                           \
    CHECK;                                                                                       \
    for (size_t channels = 1; channels <= 40; channels++) {                                      \
      for (size_t rows = 1; rows <= 4; rows++) {                                                 \
        for (size_t columns = 1; columns <= 4; columns++) {                                      \
          F43OutputTransformTester()                                                             \
              .mode(MODE)                                                                        \
              .channels(channels)                                                                \
              .rows(rows)                                                                        \
              .columns(columns)                                                                  \
              .iterations(2)                                                                     \
              .Test(transform, twin, INIT, TWIN_INIT);                                           \
        }                                                                                        \
      }                                                                                          \
    }                                                                                            \
  }                                                                                              \
  TEST(SUITE, large_channels) {                                                                  \
    CHECK;                                                                                       \
    for (size_t channels : {64, 127, 128, 256, 512}) {                                           \
      F43OutputTransformTester().mode(MODE).channels(channels).random_params(true).Test(         \
          transform, twin, INIT, TWIN_INIT);                                                     \
      F43OutputTransformTester()                                                                 \
          .mode(MODE)                                                                            \
          .channels(channels)                                                                    \
          .blocks(2)                                                                             \
          .m_values(M::kFull)                                                                    \
          .bias_values(Bias::kFull)                                                              \
          .random_params(true)                                                                   \
          .Test(transform, twin, INIT, TWIN_INIT);                                               \
    }                                                                                            \
  }                                                                                              \
  TEST(SUITE, blocks) {                                                                          \
    CHECK;                                                                                       \
    for (size_t channels = 1; channels <= 40; channels++) {                                      \
      for (size_t blocks = 1; blocks <= 3; blocks++) {                                           \
        /* Blocks one after the other, with slack between them. */                               \
        F43OutputTransformTester()                                                               \
            .mode(MODE)                                                                          \
            .channels(channels)                                                                  \
            .blocks(blocks)                                                                      \
            .m_block_stride(36 * channels + 13)                                                  \
            .random_params(true)                                                                 \
            .Test(transform, twin, INIT, TWIN_INIT);                                             \
        /* Blocks interleaved inside each position (block stride < position stride). */          \
        F43OutputTransformTester()                                                               \
            .mode(MODE)                                                                          \
            .channels(channels)                                                                  \
            .blocks(blocks)                                                                      \
            .m_block_stride(channels + 3)                                                        \
            .m_position_stride(blocks*(channels + 3) + 1)                                        \
            .m_values(M::kDirect)                                                                \
            .random_params(true)                                                                 \
            .Test(transform, twin, INIT, TWIN_INIT);                                             \
        F43OutputTransformTester()                                                               \
            .mode(MODE)                                                                          \
            .channels(channels)                                                                  \
            .blocks(blocks)                                                                      \
            .rows(1 + channels % 4)                                                              \
            .columns(1 + channels / 4 % 4)                                                       \
            .m_values(M::kFull)                                                                  \
            .bias_values(Bias::kFull)                                                            \
            .random_params(true)                                                                 \
            .Test(transform, twin, INIT, TWIN_INIT);                                             \
      }                                                                                          \
    }                                                                                            \
  }                                                                                              \
  TEST(SUITE, strides) {                                                                         \
    CHECK;                                                                                       \
    for (size_t channels = 1; channels <= 40; channels++) {                                      \
      for (size_t rows = 1; rows <= 4; rows++) {                                                 \
        for (size_t columns = 1; columns <= 4; columns++) {                                      \
          F43OutputTransformTester()                                                             \
              .mode(MODE)                                                                        \
              .channels(channels)                                                                \
              .rows(rows)                                                                        \
              .columns(columns)                                                                  \
              .blocks(1 + (rows + columns) % 3)                                                  \
              .m_position_stride(channels + 5)                                                   \
              .m_block_stride(36 * (channels + 5) + 7)                                           \
              .output_pixel_stride(channels + 3)                                                 \
              .output_row_stride(9 * channels + 11)                                              \
              .random_params(true)                                                               \
              .iterations(1)                                                                     \
              .Test(transform, twin, INIT, TWIN_INIT);                                           \
        }                                                                                        \
      }                                                                                          \
      /* A one-pixel-wide image: the row stride is one pixel. */                                 \
      F43OutputTransformTester()                                                                 \
          .mode(MODE)                                                                            \
          .channels(channels)                                                                    \
          .rows(4)                                                                               \
          .columns(1)                                                                            \
          .output_row_stride(channels)                                                           \
          .Test(transform, twin, INIT, TWIN_INIT);                                               \
    }                                                                                            \
  }                                                                                              \
  TEST(SUITE, exactness_limit) {                                                                 \
    CHECK;                                                                                       \
    for (size_t channels = 1; channels <= 40; channels++) {                                      \
      for (size_t blocks = 1; blocks <= 3; blocks++) {                                           \
        F43OutputTransformTester()                                                               \
            .mode(MODE)                                                                          \
            .channels(channels)                                                                  \
            .blocks(blocks)                                                                      \
            .m_values(M::kDirect)                                                                \
            .random_params(true)                                                                 \
            .iterations(3)                                                                       \
            .Test(transform, twin, INIT, TWIN_INIT);                                             \
        F43OutputTransformTester()                                                               \
            .mode(MODE)                                                                          \
            .channels(channels)                                                                  \
            .blocks(blocks)                                                                      \
            .m_values(M::kDirect)                                                                \
            .bias_values(Bias::kExtreme)                                                         \
            .random_params(true)                                                                 \
            .Test(transform, twin, INIT, TWIN_INIT);                                             \
      }                                                                                          \
    }                                                                                            \
  }                                                                                              \
  TEST(SUITE, genuine_large) {                                                                   \
    CHECK;                                                                                       \
    for (size_t channels : {1, 7, 8, 9, 16, 21}) {                                               \
      for (size_t blocks = 1; blocks <= 3; blocks++) {                                           \
        F43OutputTransformTester()                                                               \
            .mode(MODE)                                                                          \
            .channels(channels)                                                                  \
            .blocks(blocks)                                                                      \
            .m_values(M::kGenuineLarge)                                                          \
            .random_params(true)                                                                 \
            .iterations(2)                                                                       \
            .Test(transform, twin, INIT, TWIN_INIT);                                             \
      }                                                                                          \
    }                                                                                            \
  }                                                                                              \
  TEST(SUITE, arbitrary_m) {                                                                     \
    CHECK;                                                                                       \
    for (size_t channels = 1; channels <= 40; channels++) {                                      \
      for (size_t rows = 1; rows <= 4; rows++) {                                                 \
        for (size_t columns = 1; columns <= 4; columns++) {                                      \
          F43OutputTransformTester()                                                             \
              .mode(MODE)                                                                        \
              .channels(channels)                                                                \
              .rows(rows)                                                                        \
              .columns(columns)                                                                  \
              .blocks(1 + (channels + rows) % 3)                                                 \
              .m_values(M::kFull)                                                                \
              .bias_values(Bias::kFull)                                                          \
              .random_params(true)                                                               \
              .iterations(2)                                                                     \
              .Test(transform, twin, INIT, TWIN_INIT);                                           \
        }                                                                                        \
      }                                                                                          \
    }                                                                                            \
  }                                                                                              \
  TEST(SUITE, bias_extremes) {                                                                   \
    CHECK;                                                                                       \
    for (size_t channels = 1; channels <= 40; channels++) {                                      \
      F43OutputTransformTester()                                                                 \
          .mode(MODE)                                                                            \
          .channels(channels)                                                                    \
          .bias_values(Bias::kExtreme)                                                           \
          .random_params(true)                                                                   \
          .iterations(5)                                                                         \
          .Test(transform, twin, INIT, TWIN_INIT);                                               \
      F43OutputTransformTester()                                                                 \
          .mode(MODE)                                                                            \
          .channels(channels)                                                                    \
          .bias_values(Bias::kExtreme)                                                           \
          .m_values(M::kFull)                                                                    \
          .blocks(2)                                                                             \
          .random_params(true)                                                                   \
          .iterations(5)                                                                         \
          .Test(transform, twin, INIT, TWIN_INIT);                                               \
    }                                                                                            \
  }                                                                                              \
  TEST(SUITE, right_shift_0_to_31) {                                                             \
    CHECK;                                                                                       \
    qwino_test::SweepRightShifts(                                                                \
        {1, 7, 8, 9, 16, 23}, F43OutputTransformTester().mode(MODE).m_values(M::kTies),          \
        F43OutputTransformTester().mode(MODE).m_values(M::kFull).bias_values(Bias::kFull),       \
        F43OutputTransformTester().mode(MODE).m_values(M::kFull).bias_values(Bias::kExtreme),    \
        transform, twin, INIT, TWIN_INIT);                                                       \
  }                                                                                              \
  TEST(SUITE, rounding_ties) {                                                                   \
    CHECK;                                                                                       \
    qwino_test::SweepRoundingTies(                                                               \
        F43OutputTransformTester().mode(MODE).channels(19).m_values(M::kTies).iterations(2),     \
        F43OutputTransformTester()                                                               \
            .mode(MODE)                                                                          \
            .channels(13)                                                                        \
            .blocks(2)                                                                           \
            .m_values(M::kTies)                                                                  \
            .iterations(2),                                                                      \
        transform, twin, INIT, TWIN_INIT);                                                       \
  }                                                                                              \
  TEST(SUITE, output_zero_points) {                                                              \
    CHECK;                                                                                       \
    for (int32_t zero_point = 0; zero_point <= 255; zero_point++) {                              \
      F43OutputTransformTester()                                                                 \
          .mode(MODE)                                                                            \
          .channels(11)                                                                          \
          .output_zero_point(zero_point)                                                         \
          .right_shift(static_cast<uint32_t>(zero_point % 32))                                   \
          .iterations(1)                                                                         \
          .Test(transform, twin, INIT, TWIN_INIT);                                               \
    }                                                                                            \
    /* Outside the byte range the add wraps; the kernels must agree on that too (and the NEON    \
       shortcut for zero points in [0, 255] must not be taken). */                               \
    for (int32_t zero_point : {-1, 256, -300, 1000, 65535, INT32_MIN, INT32_MAX}) {              \
      if (MODE != qwino_requantization_gemmlowp) break; /* fp32: a byte by contract */           \
      for (uint32_t shift : {0, 1, 8, 31}) {                                                     \
        F43OutputTransformTester()                                                               \
            .mode(MODE)                                                                          \
            .channels(11)                                                                        \
            .output_zero_point(zero_point)                                                       \
            .right_shift(shift)                                                                  \
            .m_values(M::kFull)                                                                  \
            .bias_values(Bias::kFull)                                                            \
            .Test(transform, twin, INIT, TWIN_INIT);                                             \
        F43OutputTransformTester()                                                               \
            .mode(MODE)                                                                          \
            .channels(11)                                                                        \
            .output_zero_point(zero_point)                                                       \
            .right_shift(shift)                                                                  \
            .m_values(M::kTies)                                                                  \
            .Test(transform, twin, INIT, TWIN_INIT);                                             \
      }                                                                                          \
    }                                                                                            \
  }                                                                                              \
  TEST(SUITE, output_clamps) {                                                                   \
    CHECK;                                                                                       \
    qwino_test::SweepOutputClamps(                                                               \
        F43OutputTransformTester().mode(MODE).channels(17).right_shift(6).iterations(1),         \
        transform, twin, INIT, TWIN_INIT);                                                       \
  }                                                                                              \
  TEST(SUITE, multipliers_outside_contract) {                                                    \
    CHECK;                                                                                       \
    qwino_test::SweepMultipliersOutsideContract(F43OutputTransformTester()                       \
                                                    .mode(MODE)                                  \
                                                    .channels(9)                                 \
                                                    .m_values(M::kTies)                          \
                                                    .bias_values(Bias::kExtreme)                 \
                                                    .iterations(2),                              \
                                                F43OutputTransformTester()                       \
                                                    .mode(MODE)                                  \
                                                    .channels(9)                                 \
                                                    .m_values(M::kFull)                          \
                                                    .bias_values(Bias::kFull)                    \
                                                    .iterations(2),                              \
                                                transform, twin, INIT, TWIN_INIT);               \
  }                                                                                              \
  TEST(SUITE, int8_outputs_and_per_channel) {                                                    \
    CHECK;                                                                                       \
    qwino_test::SweepTypesAndChannels(F43OutputTransformTester()                                 \
                                          .mode(MODE)                                            \
                                          .channels(37)                                          \
                                          .blocks(2)                                             \
                                          .m_values(M::kTies)                                    \
                                          .iterations(4),                                        \
                                      F43OutputTransformTester()                                 \
                                          .mode(MODE)                                            \
                                          .channels(29)                                          \
                                          .blocks(3)                                             \
                                          .m_values(M::kFull)                                    \
                                          .bias_values(Bias::kFull),                             \
                                      transform, twin, INIT, TWIN_INIT);                         \
  }                                                                                              \
  TEST(SUITE, random_everything) {                                                               \
    CHECK;                                                                                       \
    std::mt19937 rng(123456789);                                                                 \
    for (size_t i = 0; i < 300; i++) {                                                           \
      const size_t channels = std::uniform_int_distribution<size_t>(1, 40)(rng);                 \
      const size_t blocks = 1 + rng() % 3;                                                       \
      const size_t position_stride = channels + rng() % 9;                                       \
      F43OutputTransformTester()                                                                 \
          .mode(MODE)                                                                            \
          .channels(channels)                                                                    \
          .blocks(blocks)                                                                        \
          .rows(1 + rng() % 4)                                                                   \
          .columns(1 + rng() % 4)                                                                \
          .m_position_stride(position_stride)                                                    \
          .m_block_stride(36 * position_stride + rng() % 5)                                      \
          .output_pixel_stride(channels + rng() % 5)                                             \
          .m_values(static_cast<M>(rng() % 5))                                                   \
          .bias_values(static_cast<Bias>(rng() % 3))                                             \
          .random_params(true)                                                                   \
          .seed(static_cast<uint32_t>(rng()))                                                    \
          .iterations(2)                                                                         \
          .Test(transform, twin, INIT, TWIN_INIT);                                               \
    }                                                                                            \
  }

// One set of tests per kernel of the family's list (the scalar twin first).
#define QWINO_QU8_WINOGRAD_F4X4_OUTPUT(isa, mode, ukernel, init_params, value_cost)    \
  QWINO_F43_OUTPUT_TRANSFORM_TESTS(                                                    \
      ukernel, ukernel,                                                                \
      QWINO_TWIN_OF(ukernel, qwino_qu8_winograd_f4x4_output_##mode##_ukernel__scalar), \
      init_params, qwino_init_qu8_##mode##_scalar_params, QWINO_REQUIRE_ISA(isa),      \
      qwino_requantization_##mode)
#include "qu8-winograd-f4x4-output/qu8-winograd-f4x4-output.inc"
#undef QWINO_QU8_WINOGRAD_F4X4_OUTPUT
