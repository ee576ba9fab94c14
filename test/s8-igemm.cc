// Tests of the 8-bit indirect GEMM micro-kernels (src/s8-igemm/): every row and column count of
// the tile, every kc remainder of the k interleave and of three k steps (AMX's 64 bytes), 1 to 25
// taps, taps in the padding (the zero row), a_offset (the group's channels), both activation signs,
// strided C, the values whose products and pair sums reach the limits, and each SIMD kernel against
// its scalar twin.
#include <gtest/gtest.h>

#include <cstdint>

#include "igemm-tester.h"
#include "isa-check.h"
#include "qwino/ukernels.h"

using Values = IgemmTester::Values;

#define QWINO_IGEMM_TESTS(SUITE, igemm, twin, MR, NR, KR, KSTEP, ABIAS, BBIAS, BMIN, CHECK) \
  TEST(SUITE, full_tile) {                                                                  \
    CHECK;                                                                                  \
    for (size_t kc : {KR, 2 * KR, 5 * KR}) {                                                \
      IgemmTester().b_min(BMIN).b_bias(BBIAS).mr(MR).nr(NR).kc(kc).ks(1).Test(              \
          igemm, MR, NR, KR, ABIAS, twin, 4, 4, 16);                                        \
    }                                                                                       \
  }                                                                                         \
  TEST(SUITE, every_subtile_and_kc) {                                                       \
    CHECK;                                                                                  \
    for (size_t mr = 1; mr <= MR; mr++) {                                                   \
      for (size_t nr = 1; nr <= NR; nr++) {                                                 \
        for (size_t kc = 1; kc <= 3 * KR + 1; kc++) {                                       \
          IgemmTester()                                                                     \
              .b_min(BMIN)                                                                  \
              .b_bias(BBIAS)                                                                \
              .mr(mr)                                                                       \
              .nr(nr)                                                                       \
              .kc(kc)                                                                       \
              .ks(1 + kc % 3)                                                               \
              .iterations(1)                                                                \
              .Test(igemm, MR, NR, KR, ABIAS, twin, 4, 4, 16);                              \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  TEST(SUITE, every_kc_of_three_k_steps) {                                                  \
    CHECK;                                                                                  \
    for (size_t kc = 1; kc <= 3 * KSTEP + 1; kc++) {                                        \
      IgemmTester()                                                                         \
          .b_min(BMIN)                                                                      \
          .b_bias(BBIAS)                                                                    \
          .mr(1 + kc % MR)                                                                  \
          .nr(1 + (kc * 7) % NR)                                                            \
          .kc(kc)                                                                           \
          .ks(1 + kc % 3)                                                                   \
          .zero_taps(kc % 5 == 0 ? 0x2 : 0x0)                                               \
          .iterations(1)                                                                    \
          .Test(igemm, MR, NR, KR, ABIAS, twin, 4, 4, 16);                                  \
    }                                                                                       \
  }                                                                                         \
  TEST(SUITE, taps_and_padding) {                                                           \
    CHECK;                                                                                  \
    for (size_t ks : {1, 2, 3, 9, 25}) {                                                    \
      for (uint64_t zero_taps : {0x0ull, 0x1ull, 0x5ull, ~0x0ull}) {                        \
        IgemmTester()                                                                       \
            .b_min(BMIN)                                                                    \
            .b_bias(BBIAS)                                                                  \
            .mr(MR)                                                                         \
            .nr(NR)                                                                         \
            .kc(KR + 3)                                                                     \
            .ks(ks)                                                                         \
            .zero_taps(zero_taps)                                                           \
            .Test(igemm, MR, NR, KR, ABIAS, twin, 4, 4, 16);                                \
        IgemmTester()                                                                       \
            .b_min(BMIN)                                                                    \
            .b_bias(BBIAS)                                                                  \
            .mr(MR > 1 ? MR - 1 : 1)                                                        \
            .nr(NR)                                                                         \
            .kc(7)                                                                          \
            .ks(ks)                                                                         \
            .zero_taps(zero_taps)                                                           \
            .Test(igemm, MR, NR, KR, ABIAS, twin, 4, 4, 16);                                \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  TEST(SUITE, a_offset_sign_and_c_stride) {                                                 \
    CHECK;                                                                                  \
    for (uint8_t sign : {0x00, 0x80}) {                                                     \
      for (size_t offset : {0, 1, 16, 37}) {                                                \
        IgemmTester()                                                                       \
            .b_min(BMIN)                                                                    \
            .b_bias(BBIAS)                                                                  \
            .mr(MR)                                                                         \
            .nr(NR)                                                                         \
            .kc(2 * KR + 5)                                                                 \
            .ks(3)                                                                          \
            .a_offset(offset)                                                               \
            .a_sign(sign)                                                                   \
            .zero_taps(0x2)                                                                 \
            .c_stride(NR + 3)                                                               \
            .Test(igemm, MR, NR, KR, ABIAS, twin, 4, 4, 16);                                \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  TEST(SUITE, extreme_values) {                                                             \
    CHECK;                                                                                  \
    for (uint8_t sign : {0x00, 0x80}) {                                                     \
      for (size_t kc : {1, KR - 1, KR, 4 * KR + 2}) {                                       \
        IgemmTester()                                                                       \
            .b_min(BMIN)                                                                    \
            .b_bias(BBIAS)                                                                  \
            .mr(MR)                                                                         \
            .nr(NR)                                                                         \
            .kc(kc)                                                                         \
            .ks(4)                                                                          \
            .a_sign(sign)                                                                   \
            .values(Values::kExtreme)                                                       \
            .iterations(10)                                                                 \
            .Test(igemm, MR, NR, KR, ABIAS, twin, 4, 4, 16);                                \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  TEST(SUITE, large_k) {                                                                    \
    CHECK;                                                                                  \
    IgemmTester()                                                                           \
        .b_min(BMIN)                                                                        \
        .b_bias(BBIAS)                                                                      \
        .mr(MR)                                                                             \
        .nr(NR)                                                                             \
        .kc(1024)                                                                           \
        .ks(9)                                                                              \
        .values(Values::kExtreme)                                                           \
        .Test(igemm, MR, NR, KR, ABIAS, twin, 4, 4, 16);                                    \
    IgemmTester().b_min(BMIN).b_bias(BBIAS).mr(MR).nr(NR).kc(4099).ks(1).Test(              \
        igemm, MR, NR, KR, ABIAS, twin, 4, 4, 16);                                          \
  }

// One set of tests per kernel of the family's list (the scalar twins first, against the oracle
// alone), the others compared with the scalar twin of their a_bias and b_bias too.
#define QWINO_S8_IGEMM(isa, ukernel, mr, nr, kr, a_bias, b_bias, b_min, k_step, mac_cost,          \
                       tile_cost)                                                                  \
  QWINO_IGEMM_TESTS(                                                                               \
      ukernel, ukernel,                                                                            \
      a_bias == 0                                                                                  \
          ? (b_bias == 0 ? QWINO_TWIN_OF(ukernel, qwino_s8_igemm_ukernel_4x4c16__scalar)           \
                         : QWINO_TWIN_OF(ukernel, qwino_s8_igemm_bbias128_ukernel_4x4c16__scalar)) \
      : b_bias == 0                                                                                \
          ? QWINO_TWIN_OF(ukernel, qwino_s8_igemm_abias128_ukernel_4x4c16__scalar)                 \
          : QWINO_TWIN_OF(ukernel, qwino_s8_igemm_abias128_bbias128_ukernel_4x4c16__scalar),       \
      mr, nr, kr, k_step, a_bias, b_bias, b_min, QWINO_REQUIRE_ISA(isa))
#include "s8-igemm/s8-igemm.inc"
#undef QWINO_S8_IGEMM
