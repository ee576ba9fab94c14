// Tests of the 8x8 GEMM micro-kernels: every remainder in mr, nr and k (the main loop takes 4 k
// at a time, so k % 4 and k < 4 are separate code paths; a SIMD kernel may also have one body
// per row count, e.g. NEON's 8-, 4-, 2- and 1-row blocks, so the remainder, stride, extremes and
// long-k tests sweep mr), strided A and C, long k (accumulator wrap-around), and int16 extremes.
// The same list runs for the scalar kernel against the independent oracle and for each SIMD
// kernel against the oracle plus its scalar twin.
#include <gtest/gtest.h>

#include "gemm-tester.h"
#include "qwino/ukernels.h"

#define QWINO_GEMM_TESTS(SUITE, gemm, twin)                                                 \
  TEST(SUITE, k_eq_4) { GemmTester().mr(8).nr(8).k(4).iterations(20).Test(gemm, twin); }    \
  TEST(SUITE, k_eq_4_subtile) {                                                              \
    for (size_t mr = 1; mr <= 8; mr++) {                                                     \
      for (size_t nr = 1; nr <= 8; nr++) {                                                   \
        GemmTester().mr(mr).nr(nr).k(4).Test(gemm, twin);                                    \
      }                                                                                      \
    }                                                                                        \
  }                                                                                          \
  TEST(SUITE, k_lt_4) {                                                                      \
    for (size_t k = 1; k < 4; k++) {                                                         \
      GemmTester().mr(8).nr(8).k(k).iterations(20).Test(gemm, twin);                         \
    }                                                                                        \
  }                                                                                          \
  TEST(SUITE, k_div_4) {                                                                     \
    for (size_t k = 8; k <= 40; k += 4) {                                                    \
      GemmTester().mr(8).nr(8).k(k).Test(gemm, twin);                                        \
    }                                                                                        \
  }                                                                                          \
  TEST(SUITE, all_remainders) {                                                              \
    for (size_t k = 1; k <= 40; k++) {                                                       \
      for (size_t mr = 1; mr <= 8; mr++) {                                                   \
        for (size_t nr = 1; nr <= 8; nr++) {                                                 \
          GemmTester().mr(mr).nr(nr).k(k).iterations(1).Test(gemm, twin);                   \
        }                                                                                    \
      }                                                                                      \
    }                                                                                        \
  }                                                                                          \
  TEST(SUITE, strided_a) {                                                                   \
    for (size_t k = 1; k <= 40; k += 3) {                                                    \
      for (size_t mr = 1; mr <= 8; mr++) {                                                   \
        GemmTester().mr(mr).nr(8).k(k).a_stride(k + 5).Test(gemm, twin);                     \
        GemmTester().mr(mr).nr(8).k(k).a_stride(64).Test(gemm, twin);                        \
      }                                                                                      \
    }                                                                                        \
  }                                                                                          \
  TEST(SUITE, strided_c) {                                                                   \
    for (size_t k = 1; k <= 40; k += 3) {                                                    \
      for (size_t mr = 1; mr <= 8; mr++) {                                                   \
        for (size_t nr = 1; nr <= 8; nr++) {                                                 \
          GemmTester().mr(mr).nr(nr).k(k).c_stride(nr + 3).a_stride(k + 1).iterations(1)    \
              .Test(gemm, twin);                                                             \
        }                                                                                    \
      }                                                                                      \
    }                                                                                        \
  }                                                                                          \
  TEST(SUITE, winograd_ranges) {                                                             \
    for (size_t k = 1; k <= 40; k++) {                                                       \
      GemmTester().mr(8).nr(8).k(k).values(GemmTester::Values::kWinograd).Test(gemm, twin);  \
      GemmTester().mr(k % 8 + 1).nr((k * 3) % 8 + 1).k(k)                                   \
          .values(GemmTester::Values::kWinograd).Test(gemm, twin);                           \
    }                                                                                        \
  }                                                                                          \
  TEST(SUITE, int16_extremes) {                                                              \
    for (size_t k = 1; k <= 40; k++) {                                                       \
      for (size_t mr = 1; mr <= 8; mr++) {                                                   \
        GemmTester().mr(mr).nr(8).k(k).values(GemmTester::Values::kExtreme).iterations(5)    \
            .Test(gemm, twin);                                                               \
      }                                                                                      \
    }                                                                                        \
  }                                                                                          \
  TEST(SUITE, large_k) {                                                                     \
    for (size_t k : {64, 127, 128, 255, 256, 513, 1024}) {                                   \
      GemmTester().mr(8).nr(8).k(k).iterations(2).Test(gemm, twin);                          \
      for (size_t mr = 1; mr < 8; mr++) {                                                    \
        GemmTester().mr(mr).nr(mr % 2 == 0 ? 8 : 3).k(k).a_stride(k + 8).c_stride(11)       \
            .iterations(2).values(GemmTester::Values::kExtreme).Test(gemm, twin);            \
      }                                                                                      \
    }                                                                                        \
  }

QWINO_GEMM_TESTS(GEMM_8X8__SCALAR, qwino_gemm_ukernel_8x8__scalar, nullptr)

#if defined(__aarch64__)
QWINO_GEMM_TESTS(GEMM_8X8__NEON, qwino_gemm_ukernel_8x8__neon, qwino_gemm_ukernel_8x8__scalar)
#endif
