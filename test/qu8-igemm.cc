// Tests of the 8-bit indirect GEMM kernels with fused requantization (src/qu8-igemm/): the
// s8-igemm tests' sweep (every row and column count of the tile, every kc remainder, taps in the
// padding, a_offset, both activation signs) with the output bytes checked against the composed
// oracles and the composed scalar twins, plus what the fusion adds: calls over several weight
// panels, the channel block's offset into the per-channel arrays, output strides, both modes,
// int8 outputs, per-channel and random parameters and extreme biases, and row terms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "isa-check.h"
#include "qu8-igemm-tester.h"
#include "qwino/ukernels.h"

using qwino_test::ShiftFor;

#define QWINO_QU8_IGEMM_TESTS(SUITE, kernel, MR, NR, KR, ABIAS, BBIAS, BMIN, ROWBLOCKS, INIT,     \
                              TWIN, MODE, CHECK)                                                  \
  TEST(SUITE, row_blocks) { /* more than MR rows where the entry takes them, else MR */           \
    CHECK;                                                                                        \
    const std::vector<size_t> row_counts =                                                        \
        (ROWBLOCKS) ? std::vector<size_t>{MR + 1, MR + 2, 2 * MR, 2 * MR + 1, 3 * MR + 2, 7 * MR} \
                    : std::vector<size_t>{MR};                                                    \
    for (size_t mr : row_counts) {                                                                \
      for (size_t nc : {size_t{NR}, 2 * size_t{NR} + 3}) {                                        \
        QU8IgemmTester()                                                                          \
            .b_min(BMIN)                                                                          \
            .b_bias(BBIAS)                                                                        \
            .row_blocks(ROWBLOCKS)                                                                \
            .mode(MODE)                                                                           \
            .mr(mr)                                                                               \
            .nr(nc)                                                                               \
            .kc(KR + 5)                                                                           \
            .ks(2)                                                                                \
            .row_terms(mr % 2 == 1)                                                               \
            .a_sign(nc % 2 ? 0x80 : 0x00)                                                         \
            .zero_taps(0x1)                                                                       \
            .output_stride(nc + 3)                                                                \
            .right_shift(ShiftFor(2 * (KR + 5), ABIAS))                                           \
            .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  /* Calls as wide as the operator's (up to 16 KB of panels): more columns than the i8mm          \
   * kernels stage at once (8 panels), with rows in blocks and a tail panel. */                   \
  TEST(SUITE, wide_calls) {                                                                       \
    CHECK;                                                                                        \
    for (size_t nc : {8 * size_t{NR} + 3, 17 * size_t{NR} + 8}) {                                 \
      QU8IgemmTester()                                                                            \
          .b_min(BMIN)                                                                            \
          .b_bias(BBIAS)                                                                          \
          .row_blocks(ROWBLOCKS)                                                                  \
          .mode(MODE)                                                                             \
          .mr((ROWBLOCKS) ? 2 * MR + 3 : MR)                                                      \
          .nr(nc)                                                                                 \
          .kc(KR + 3)                                                                             \
          .per_channel(true)                                                                      \
          .row_terms(nc % 2 == 1)                                                                 \
          .channel_offset(5)                                                                      \
          .output_stride(nc + 1)                                                                  \
          .right_shift(ShiftFor(KR + 3, ABIAS))                                                   \
          .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, full_tile) {                                                                        \
    CHECK;                                                                                        \
    for (size_t kc : {KR, 2 * KR, 5 * KR}) {                                                      \
      QU8IgemmTester()                                                                            \
          .b_min(BMIN)                                                                            \
          .b_bias(BBIAS)                                                                          \
          .mode(MODE)                                                                             \
          .mr(MR)                                                                                 \
          .nr(NR)                                                                                 \
          .kc(kc)                                                                                 \
          .right_shift(ShiftFor(kc, ABIAS))                                                       \
          .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, every_subtile_and_kc) {                                                             \
    CHECK;                                                                                        \
    for (size_t mr = 1; mr <= MR; mr++) {                                                         \
      for (size_t nr = 1; nr <= NR; nr++) {                                                       \
        for (size_t kc = 1; kc <= 3 * KR + 1; kc++) {                                             \
          const size_t ks = 1 + kc % 3;                                                           \
          QU8IgemmTester()                                                                        \
              .b_min(BMIN)                                                                        \
              .b_bias(BBIAS)                                                                      \
              .mode(MODE)                                                                         \
              .mr(mr)                                                                             \
              .nr(nr)                                                                             \
              .kc(kc)                                                                             \
              .ks(ks)                                                                             \
              .iterations(1)                                                                      \
              .right_shift(ShiftFor(kc* ks, ABIAS))                                               \
              .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                       \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  /* One tap of every length up to 49 (the NEON 2x8c16 kernels keep rows of 9-48 bytes in         \
   * registers for all the panels of a call): odd and even row counts, several panels with a      \
   * tail, both activation signs and modes' output types, a_offset and the zero row. */           \
  TEST(SUITE, one_tap_every_kc) {                                                                 \
    CHECK;                                                                                        \
    std::vector<size_t> row_counts{1, MR};                                                        \
    if (ROWBLOCKS) {                                                                              \
      row_counts.insert(row_counts.end(), {MR + 1, 2 * MR + 1});                                  \
    }                                                                                             \
    for (size_t kc = 1; kc <= 49; kc++) {                                                         \
      for (size_t mr : row_counts) {                                                              \
        for (size_t nc : {size_t{NR} - 1, 2 * size_t{NR} + 3}) {                                  \
          QU8IgemmTester()                                                                        \
              .b_min(BMIN)                                                                        \
              .b_bias(BBIAS)                                                                      \
              .row_blocks(ROWBLOCKS)                                                              \
              .mode(MODE)                                                                         \
              .mr(mr)                                                                             \
              .nr(nc)                                                                             \
              .kc(kc)                                                                             \
              .ks(1)                                                                              \
              .a_sign((kc + mr) % 2 ? 0x80 : 0x00)                                                \
              .int8_output(kc % 3 == 0)                                                           \
              .a_offset(kc % 4 == 1 ? 5 : 0)                                                      \
              .zero_taps(kc % 5 == 2 ? 0x1 : 0x0)                                                 \
              .row_terms(mr % 2 == 1)                                                             \
              .per_channel(nc % 2 == 1)                                                           \
              .output_stride(nc + 2)                                                              \
              .iterations(1)                                                                      \
              .right_shift(ShiftFor(kc, ABIAS))                                                   \
              .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                       \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, taps_and_padding) {                                                                 \
    CHECK;                                                                                        \
    for (size_t ks : {1, 2, 9, 25}) {                                                             \
      for (uint64_t zero_taps : {0x0ull, 0x5ull, ~0x0ull}) {                                      \
        QU8IgemmTester()                                                                          \
            .b_min(BMIN)                                                                          \
            .b_bias(BBIAS)                                                                        \
            .mode(MODE)                                                                           \
            .mr(MR)                                                                               \
            .nr(NR)                                                                               \
            .kc(KR + 3)                                                                           \
            .ks(ks)                                                                               \
            .zero_taps(zero_taps)                                                                 \
            .right_shift(ShiftFor((KR + 3) * ks, ABIAS))                                          \
            .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, offsets_signs_and_strides) {                                                        \
    CHECK;                                                                                        \
    for (uint8_t sign : {0x00, 0x80}) {                                                           \
      for (size_t offset : {0, 1, 16, 37}) {                                                      \
        for (size_t nr : {NR, NR - 1, (NR + 1) / 2}) {                                            \
          QU8IgemmTester()                                                                        \
              .b_min(BMIN)                                                                        \
              .b_bias(BBIAS)                                                                      \
              .mode(MODE)                                                                         \
              .mr(MR)                                                                             \
              .nr(nr)                                                                             \
              .kc(2 * KR + 5)                                                                     \
              .ks(3)                                                                              \
              .a_offset(offset)                                                                   \
              .a_sign(sign)                                                                       \
              .zero_taps(0x2)                                                                     \
              .channel_offset(offset)                                                             \
              .output_stride(NR + offset + 3)                                                     \
              .right_shift(ShiftFor(3 * (2 * KR + 5), ABIAS))                                     \
              .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                       \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, several_panels) {                                                                   \
    CHECK;                                                                                        \
    for (size_t nc : {NR + 1, NR + NR / 2, 2 * NR, 2 * NR + 5, 3 * NR - 1, 4 * NR + 3}) {         \
      for (size_t kc : {1, KR + 3, 3 * KR}) {                                                     \
        QU8IgemmTester()                                                                          \
            .b_min(BMIN)                                                                          \
            .b_bias(BBIAS)                                                                        \
            .mode(MODE)                                                                           \
            .mr(MR)                                                                               \
            .nr(nc)                                                                               \
            .kc(kc)                                                                               \
            .ks(1 + nc % 3)                                                                       \
            .channel_offset(nc % 7)                                                               \
            .output_stride(nc + 5)                                                                \
            .per_channel(true)                                                                    \
            .a_sign(nc % 2 ? 0x00 : 0x80)                                                         \
            .iterations(2)                                                                        \
            .right_shift(ShiftFor(kc*(1 + nc % 3), ABIAS))                                        \
            .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                         \
      }                                                                                           \
      QU8IgemmTester()                                                                            \
          .b_min(BMIN)                                                                            \
          .b_bias(BBIAS)                                                                          \
          .mode(MODE)                                                                             \
          .mr(MR > 1 ? MR - 1 : 1)                                                                \
          .nr(nc)                                                                                 \
          .kc(2 * KR + 1)                                                                         \
          .ks(3)                                                                                  \
          .random_params(true)                                                                    \
          .bias_values(qwino_test::BiasValues::kExtreme)                                          \
          .iterations(3)                                                                          \
          .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, int8_outputs_and_per_channel) {                                                     \
    CHECK;                                                                                        \
    for (bool int8 : {false, true}) {                                                             \
      for (size_t nr : {NR, NR - 3}) {                                                            \
        QU8IgemmTester()                                                                          \
            .b_min(BMIN)                                                                          \
            .b_bias(BBIAS)                                                                        \
            .mode(MODE)                                                                           \
            .mr(MR)                                                                               \
            .nr(nr)                                                                               \
            .kc(4 * KR + 1)                                                                       \
            .ks(2)                                                                                \
            .int8_output(int8)                                                                    \
            .a_sign(int8 ? 0x00 : 0x80)                                                           \
            .per_channel(true)                                                                    \
            .channel_offset(7)                                                                    \
            .iterations(5)                                                                        \
            .right_shift(ShiftFor(2 * (4 * KR + 1), ABIAS) - 3)                                   \
            .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, zero_points_and_clamps) {                                                           \
    CHECK;                                                                                        \
    for (int32_t zero_point : {0, 1, 127, 128, 254, 255}) {                                       \
      for (bool int8 : {false, true}) {                                                           \
        QU8IgemmTester()                                                                          \
            .b_min(BMIN)                                                                          \
            .b_bias(BBIAS)                                                                        \
            .mode(MODE)                                                                           \
            .mr(MR)                                                                               \
            .nr(NR)                                                                               \
            .kc(KR + 1)                                                                           \
            .ks(9)                                                                                \
            .int8_output(int8)                                                                    \
            .output_zero_point(zero_point)                                                        \
            .output_min(zero_point / 2)                                                           \
            .output_max(static_cast<uint8_t>(255 - zero_point / 3))                               \
            .right_shift(ShiftFor(9 * (KR + 1), ABIAS))                                           \
            .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, rectified_outputs) { /* output_min at or above the zero point, as with a ReLU */    \
    CHECK;                                                                                        \
    for (int32_t zero_point : {0, 3, 128, 200}) {                                                 \
      for (int32_t above : {0, 5}) {                                                              \
        for (bool int8 : {false, true}) {                                                         \
          QU8IgemmTester()                                                                        \
              .b_min(BMIN)                                                                        \
              .b_bias(BBIAS)                                                                      \
              .mode(MODE)                                                                         \
              .mr(MR)                                                                             \
              .nr(NR - 1)                                                                         \
              .kc(2 * KR + 3)                                                                     \
              .ks(3)                                                                              \
              .int8_output(int8)                                                                  \
              .per_channel(above != 0)                                                            \
              .output_zero_point(zero_point)                                                      \
              .output_min(static_cast<uint8_t>(zero_point + above))                               \
              .iterations(5)                                                                      \
              .right_shift(ShiftFor(3 * (2 * KR + 3), ABIAS) - 2)                                 \
              .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                       \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, random_parameters_and_biases) {                                                     \
    CHECK;                                                                                        \
    using Bias = qwino_test::BiasValues;                                                          \
    for (Bias bias : {Bias::kSmall, Bias::kFull, Bias::kExtreme}) {                               \
      for (bool int8 : {false, true}) {                                                           \
        QU8IgemmTester()                                                                          \
            .b_min(BMIN)                                                                          \
            .b_bias(BBIAS)                                                                        \
            .mode(MODE)                                                                           \
            .mr(MR)                                                                               \
            .nr(NR - 1)                                                                           \
            .kc(3 * KR + 2)                                                                       \
            .ks(4)                                                                                \
            .int8_output(int8)                                                                    \
            .random_params(true)                                                                  \
            .per_channel(true)                                                                    \
            .bias_values(bias)                                                                    \
            .iterations(20)                                                                       \
            .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, row_terms) {                                                                        \
    CHECK;                                                                                        \
    for (size_t mr = 1; mr <= MR; mr++) {                                                         \
      for (size_t nc : {size_t{1}, size_t{NR} / 2, size_t{NR}, 2 * size_t{NR} + 3}) {             \
        for (bool big : {false, true}) {                                                          \
          QU8IgemmTester()                                                                        \
              .b_min(BMIN)                                                                        \
              .b_bias(BBIAS)                                                                      \
              .mode(MODE)                                                                         \
              .mr(mr)                                                                             \
              .nr(nc)                                                                             \
              .kc(KR + 5)                                                                         \
              .ks(2)                                                                              \
              .row_terms(true)                                                                    \
              .a_sign(mr % 2 ? 0x80 : 0x00)                                                       \
              .zero_taps(0x1)                                                                     \
              .per_channel(big)                                                                   \
              .bias_values(big ? qwino_test::BiasValues::kFull : qwino_test::BiasValues::kSmall)  \
              .right_shift(ShiftFor(2 * (KR + 5), ABIAS))                                         \
              .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                       \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, extreme_values_and_large_k) {                                                       \
    CHECK;                                                                                        \
    for (uint8_t sign : {0x00, 0x80}) {                                                           \
      QU8IgemmTester()                                                                            \
          .b_min(BMIN)                                                                            \
          .b_bias(BBIAS)                                                                          \
          .mode(MODE)                                                                             \
          .mr(MR)                                                                                 \
          .nr(NR)                                                                                 \
          .kc(4 * KR + 2)                                                                         \
          .ks(4)                                                                                  \
          .a_sign(sign)                                                                           \
          .values(IgemmValues::kExtreme)                                                          \
          .right_shift(ShiftFor(64 * (4 * KR + 2), ABIAS))                                        \
          .iterations(10)                                                                         \
          .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                           \
    }                                                                                             \
    QU8IgemmTester()                                                                              \
        .b_min(BMIN)                                                                              \
        .b_bias(BBIAS)                                                                            \
        .mode(MODE)                                                                               \
        .mr(MR)                                                                                   \
        .nr(NR)                                                                                   \
        .kc(1024)                                                                                 \
        .ks(9)                                                                                    \
        .right_shift(ShiftFor(9216, ABIAS))                                                       \
        .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                             \
    QU8IgemmTester()                                                                              \
        .b_min(BMIN)                                                                              \
        .b_bias(BBIAS)                                                                            \
        .mode(MODE)                                                                               \
        .mr(MR)                                                                                   \
        .nr(NR)                                                                                   \
        .kc(4099)                                                                                 \
        .ks(1)                                                                                    \
        .right_shift(ShiftFor(4099, ABIAS))                                                       \
        .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                             \
  }

// One set of tests per entry of the family's list, against the composition of the scalar twins
// of its a_bias, b_bias and mode.
#define QWINO_QU8_IGEMM(isa, mode, ukernel, mr, nr, kr, a_bias, b_bias, b_min, row_blocks, \
                        resident_row_bytes, init_params)                                   \
  QWINO_QU8_IGEMM_TESTS(ukernel, ukernel, mr, nr, kr, a_bias, b_bias, b_min, row_blocks,   \
                        init_params, QWINO_FUSED_IGEMM_TWIN(a_bias, b_bias, mode),         \
                        qwino_requantization_##mode, QWINO_REQUIRE_ISA(isa))
#include "qu8-igemm/qu8-igemm.inc"
#undef QWINO_QU8_IGEMM
