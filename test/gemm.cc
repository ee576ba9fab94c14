// Tests of the GEMM micro-kernels: every remainder in mr, nr and k (main loops take 2 or 4 k at
// a time, so odd k, k % 4 and k < 4 are separate code paths; a SIMD kernel may also have one
// body per row count, e.g. 8-, 4-, 2- and 1-row blocks, so the remainder, stride, extremes and
// long-k tests sweep mr up to the kernel's MR), strided A and C, long k (accumulator
// wrap-around), int16 extremes, and garbage in B's padding (F(4x4,3x3) input-channel blocks).
// The same list runs for the scalar kernel against the independent oracle and for each SIMD
// kernel against the oracle plus its scalar twin; the tester packs B for each kernel's tile
// (MR x NR, k interleave KR). x86 kernels run only where the CPU has their ISA (GTEST_SKIP).
#include <gtest/gtest.h>

#include "gemm-tester.h"
#include "isa-check.h"
#include "qwino/ukernels.h"

// SUITE: test suite name; MR, NR, KR: the kernel's tile; CHECK: a statement run first in every
// test (skips the test when the CPU lacks the ISA).
#define QWINO_GEMM_TESTS(SUITE, gemm, twin, MR, NR, KR, CHECK)                             \
  TEST(SUITE, k_eq_4) {                                                                    \
    CHECK;                                                                                 \
    GemmTester().tile(MR, NR, KR).mr(MR).nr(NR).k(4).iterations(20).Test(gemm, twin);      \
  }                                                                                        \
  TEST(SUITE, k_eq_4_subtile) {                                                            \
    CHECK;                                                                                 \
    for (size_t mr = 1; mr <= MR; mr++) {                                                  \
      for (size_t nr = 1; nr <= NR; nr++) {                                                \
        GemmTester().tile(MR, NR, KR).mr(mr).nr(nr).k(4).Test(gemm, twin);                 \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  TEST(SUITE, k_lt_4) {                                                                    \
    CHECK;                                                                                 \
    for (size_t k = 1; k < 4; k++) {                                                       \
      GemmTester().tile(MR, NR, KR).mr(MR).nr(NR).k(k).iterations(20).Test(gemm, twin);    \
    }                                                                                      \
  }                                                                                        \
  TEST(SUITE, k_div_4) {                                                                   \
    CHECK;                                                                                 \
    for (size_t k = 8; k <= 40; k += 4) {                                                  \
      GemmTester().tile(MR, NR, KR).mr(MR).nr(NR).k(k).Test(gemm, twin);                   \
    }                                                                                      \
  }                                                                                        \
  TEST(SUITE, all_remainders) {                                                            \
    CHECK;                                                                                 \
    for (size_t k = 1; k <= 40; k++) {                                                     \
      for (size_t mr = 1; mr <= MR; mr++) {                                                \
        for (size_t nr = 1; nr <= NR; nr++) {                                              \
          GemmTester().tile(MR, NR, KR).mr(mr).nr(nr).k(k).iterations(1).Test(gemm, twin); \
        }                                                                                  \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  TEST(SUITE, strided_a) {                                                                 \
    CHECK;                                                                                 \
    for (size_t k = 1; k <= 40; k += 3) {                                                  \
      for (size_t mr = 1; mr <= MR; mr++) {                                                \
        GemmTester().tile(MR, NR, KR).mr(mr).nr(NR).k(k).a_stride(k + 5).Test(gemm, twin); \
        GemmTester().tile(MR, NR, KR).mr(mr).nr(NR).k(k).a_stride(64).Test(gemm, twin);    \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  TEST(SUITE, strided_c) {                                                                 \
    CHECK;                                                                                 \
    for (size_t k = 1; k <= 40; k += 3) {                                                  \
      for (size_t mr = 1; mr <= MR; mr++) {                                                \
        for (size_t nr = 1; nr <= NR; nr++) {                                              \
          GemmTester()                                                                     \
              .tile(MR, NR, KR)                                                            \
              .mr(mr)                                                                      \
              .nr(nr)                                                                      \
              .k(k)                                                                        \
              .c_stride(nr + 3)                                                            \
              .a_stride(k + 1)                                                             \
              .iterations(1)                                                               \
              .Test(gemm, twin);                                                           \
        }                                                                                  \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  TEST(SUITE, winograd_ranges) {                                                           \
    CHECK;                                                                                 \
    for (size_t k = 1; k <= 40; k++) {                                                     \
      GemmTester()                                                                         \
          .tile(MR, NR, KR)                                                                \
          .mr(MR)                                                                          \
          .nr(NR)                                                                          \
          .k(k)                                                                            \
          .values(GemmTester::Values::kWinograd)                                           \
          .Test(gemm, twin);                                                               \
      GemmTester()                                                                         \
          .tile(MR, NR, KR)                                                                \
          .mr(k % MR + 1)                                                                  \
          .nr((k * 3) % NR + 1)                                                            \
          .k(k)                                                                            \
          .values(GemmTester::Values::kWinograd)                                           \
          .Test(gemm, twin);                                                               \
    }                                                                                      \
  }                                                                                        \
  TEST(SUITE, int16_extremes) {                                                            \
    CHECK;                                                                                 \
    for (size_t k = 1; k <= 40; k++) {                                                     \
      for (size_t mr = 1; mr <= MR; mr++) {                                                \
        GemmTester()                                                                       \
            .tile(MR, NR, KR)                                                              \
            .mr(mr)                                                                        \
            .nr(NR)                                                                        \
            .k(k)                                                                          \
            .values(GemmTester::Values::kExtreme)                                          \
            .iterations(5)                                                                 \
            .Test(gemm, twin);                                                             \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  TEST(SUITE, garbage_b_padding) {                                                         \
    CHECK;                                                                                 \
    for (size_t k = 1; k <= 40; k++) {                                                     \
      for (size_t mr = 1; mr <= MR; mr++) {                                                \
        GemmTester()                                                                       \
            .tile(MR, NR, KR)                                                              \
            .mr(mr)                                                                        \
            .nr(k % NR + 1)                                                                \
            .k(k)                                                                          \
            .a_stride(k + (k & 1))                                                         \
            .padding(GemmTester::Padding::kGarbage)                                        \
            .iterations(2)                                                                 \
            .Test(gemm, twin);                                                             \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  TEST(SUITE, large_k) {                                                                   \
    CHECK;                                                                                 \
    for (size_t k : {64, 127, 128, 255, 256, 513, 1024}) {                                 \
      GemmTester().tile(MR, NR, KR).mr(MR).nr(NR).k(k).iterations(2).Test(gemm, twin);     \
      for (size_t mr = 1; mr < MR; mr++) {                                                 \
        GemmTester()                                                                       \
            .tile(MR, NR, KR)                                                              \
            .mr(mr)                                                                        \
            .nr(mr % 2 == 0 ? NR : 3)                                                      \
            .k(k)                                                                          \
            .a_stride(k + 8)                                                               \
            .c_stride(NR + 3)                                                              \
            .iterations(2)                                                                 \
            .values(GemmTester::Values::kExtreme)                                          \
            .Test(gemm, twin);                                                             \
      }                                                                                    \
    }                                                                                      \
  }

// One set of tests per kernel of the family's list (the scalar twin first).
#define QWINO_S16_GEMM(isa, ukernel, mr, nr, kr, k_padding, mac_cost)                            \
  QWINO_GEMM_TESTS(ukernel, ukernel, QWINO_TWIN_OF(ukernel, qwino_s16_gemm_ukernel_8x8__scalar), \
                   mr, nr, kr, QWINO_REQUIRE_ISA(isa))
#include "s16-gemm/s16-gemm.inc"
#undef QWINO_S16_GEMM
