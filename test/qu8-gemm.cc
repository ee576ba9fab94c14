// Tests of the fused GEMM kernels on gathered rows (src/qu8-gemm/): the rows in one buffer as the
// operator gathers them (round_up(kc, k_block) bytes apart, round_up(mr, MR) rows, ending right
// before an inaccessible page, garbage past kc), checked like the fused indirect kernels
// (qu8-igemm-tester.h: the composed oracles and the composed scalar twins, byte for byte) over
// every kc up to three k blocks, row counts past MR, several panels, both modes, int8 outputs,
// per-channel and random parameters, extreme biases, row terms and a deep K.
#include <gtest/gtest.h>

#include <cstdint>

#include "isa-check.h"
#include "qu8-igemm-tester.h"
#include "qwino/ukernels.h"

using qwino_test::ShiftFor;

namespace {

// The tester for a kernel on gathered rows of its list entry's b_min, b_bias, k_block and mode.
[[maybe_unused]] QU8IgemmTester RowsTester(int32_t b_min, uint32_t b_bias, size_t k_block,
                                           qwino_requantization_mode mode) {
  return QU8IgemmTester()
      .b_min(b_min)
      .b_bias(b_bias)
      .row_blocks(true)
      .gathered_rows(k_block)
      .a_sign(0x80)
      .mode(mode);
}

}  // namespace

#define QWINO_QU8_GEMM_TESTS(SUITE, kernel, MR, NR, KR, ABIAS, BBIAS, BMIN, KBLOCK, INIT, TWIN,   \
                             MODE, CHECK)                                                         \
  TEST(SUITE, every_kc_of_three_k_blocks) {                                                       \
    CHECK;                                                                                        \
    for (size_t kc = 1; kc <= 3 * KBLOCK + 1; kc++) {                                             \
      RowsTester(BMIN, BBIAS, KBLOCK, MODE)                                                       \
          .mr(1 + kc % (2 * MR + 1))                                                              \
          .nr(1 + (kc * 13) % (2 * NR + 5))                                                       \
          .kc(kc)                                                                                 \
          .row_terms(kc % 3 == 0)                                                                 \
          .iterations(1)                                                                          \
          .right_shift(ShiftFor(kc, ABIAS))                                                       \
          .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, rows_and_columns) {                                                                 \
    CHECK;                                                                                        \
    for (size_t mr = 1; mr <= 3 * MR + 1; mr++) {                                                 \
      for (size_t nc : {size_t{1}, size_t{17}, size_t{NR} - 1, size_t{NR}, 3 * size_t{NR} + 7}) { \
        RowsTester(BMIN, BBIAS, KBLOCK, MODE)                                                     \
            .mr(mr)                                                                               \
            .nr(nc)                                                                               \
            .kc(KBLOCK + 5)                                                                       \
            .output_stride(nc + 3)                                                                \
            .channel_offset(mr % 5)                                                               \
            .iterations(1)                                                                        \
            .right_shift(ShiftFor(KBLOCK + 5, ABIAS))                                             \
            .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, int8_outputs_parameters_and_biases) {                                               \
    CHECK;                                                                                        \
    using Bias = qwino_test::BiasValues;                                                          \
    for (Bias bias : {Bias::kSmall, Bias::kFull, Bias::kExtreme}) {                               \
      for (bool int8 : {false, true}) {                                                           \
        RowsTester(BMIN, BBIAS, KBLOCK, MODE)                                                     \
            .mr(MR + 3)                                                                           \
            .nr(NR + 9)                                                                           \
            .kc(2 * KBLOCK + 36)                                                                  \
            .int8_output(int8)                                                                    \
            .random_params(true)                                                                  \
            .per_channel(true)                                                                    \
            .bias_values(bias)                                                                    \
            .row_terms(int8)                                                                      \
            .iterations(10)                                                                       \
            .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, extreme_values_and_deep_k) {                                                        \
    CHECK;                                                                                        \
    for (size_t kc : {size_t{4608}, size_t{2049}}) {                                              \
      RowsTester(BMIN, BBIAS, KBLOCK, MODE)                                                       \
          .mr(2 * MR + 5)                                                                         \
          .nr(2 * NR + 1)                                                                         \
          .kc(kc)                                                                                 \
          .values(IgemmValues::kExtreme)                                                          \
          .right_shift(ShiftFor(kc, ABIAS))                                                       \
          .Test(kernel, MR, NR, KR, ABIAS, INIT, TWIN);                                           \
    }                                                                                             \
  }

// One set of tests per entry of the family's list, against the composition of the scalar twins
// of its a_bias, b_bias and mode (one tap, a_sign 0x80: the rows' bytes as A + 128).
#define QWINO_QU8_GEMM(isa, mode, ukernel, mr, nr, kr, a_bias, b_bias, b_min, k_block,            \
                       init_params)                                                               \
  QWINO_QU8_GEMM_TESTS(ukernel, ukernel, mr, nr, kr, a_bias, b_bias, b_min, k_block, init_params, \
                       QWINO_FUSED_IGEMM_TWIN(a_bias, b_bias, mode), qwino_requantization_##mode, \
                       QWINO_REQUIRE_ISA(isa))
#include "qu8-gemm/qu8-gemm.inc"
#undef QWINO_QU8_GEMM
