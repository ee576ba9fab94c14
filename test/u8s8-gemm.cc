// Tests of the pair GEMM micro-kernels (src/u8s8-gemm/u8s8-gemm.inc) on panels made by the real
// packer (pack_u8s8_pair_weights): every row count up to the kernel's MR, every column count up
// to 16, k from 1 to 80 (whole blocks and a partial last one), both signs, strided rows, and three
// kinds of weights: bell-shaped like trained ones (pairs reordered), uniform over the whole int8
// range (most blocks split) and the extremes (-128 and 127 with bytes 0 and 255, where a
// saturating pair sum would show). Each result is compared with an oracle written here, in k
// order and without the packing's blocks, and with the scalar twin byte for byte; every packed
// pair is checked against VPMADDUBSW's int16 bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "isa-check.h"
#include "qwino/packing.h"
#include "qwino/ukernels.h"

namespace {

enum class Weights { bell, uniform, extremes };

struct PairGemmCase {
  size_t mr = 1, nr = 1, k = 16, row_stride = 0;
  uint8_t sign = 0;
  Weights weights = Weights::bell;
  uint32_t seed = 1;
};

void Check(qwino_u8s8_gemm_ukernel_fn gemm, qwino_u8s8_gemm_ukernel_fn twin, size_t max_mr,
           const PairGemmCase& t) {
  std::mt19937 rng(t.seed);
  const size_t k = t.k;
  std::vector<uint8_t> kernel(t.nr * k);  // stored as b + 128, kernel zero point 128
  std::normal_distribution<double> bell(0.0, 40.0);
  std::uniform_int_distribution<int> any(-128, 127);
  for (size_t i = 0; i < kernel.size(); i++) {
    int b = 0;
    switch (t.weights) {
      case Weights::bell:
        b = static_cast<int>(std::clamp(bell(rng), -128.0, 127.0));
        break;
      case Weights::uniform:
        b = any(rng);
        break;
      case Weights::extremes:
        b = (rng() & 1) ? 127 : -128;
        break;
    }
    kernel[i] = static_cast<uint8_t>(b + 128);
  }
  const int32_t factor = std::uniform_int_distribution<int32_t>(-255, 255)(rng);
  qwino::PairWeights packed;
  qwino::pack_u8s8_pair_weights(kernel.data(), k, t.nr, 128, factor, &packed);
  ASSERT_EQ(packed.first_block.size(), 2u);
  const size_t blocks = packed.first_block[1];
  ASSERT_GE(blocks, (k + 15) / 16);
  ASSERT_EQ(packed.bytes.size(), qwino::pair_panel_bytes(blocks));

  // The proof the kernels rely on: every neighbouring pair of every column fits int16 for every
  // byte (255 x the positive part <= 32767, 255 x the negative part >= -32768).
  const int8_t* b = packed.bytes.data() + 64;
  for (size_t e = 0; e < blocks; e++) {
    for (size_t n = 0; n < QWINO_U8S8_GEMM_NR; n++) {
      for (size_t i = 0; i < 16; i += 2) {
        const int32_t b0 = b[e * 256 + qwino_pair_b_index(n, i)];
        const int32_t b1 = b[e * 256 + qwino_pair_b_index(n, i + 1)];
        ASSERT_LE(255 * (std::max(b0, 0) + std::max(b1, 0)), 32767);
        ASSERT_GE(255 * (std::min(b0, 0) + std::min(b1, 0)), -32768);
      }
    }
  }

  const size_t row_stride = std::max(t.row_stride, (k + 15) / 16 * 16);
  std::vector<uint8_t> a(t.mr * row_stride);
  for (uint8_t& x : a) {
    x = t.weights == Weights::extremes ? static_cast<uint8_t>((rng() & 1) ? 255 : 0)
                                       : static_cast<uint8_t>(rng());
  }
  const size_t c_stride = t.nr + 3;
  std::vector<int32_t> c(t.mr * c_stride, 0x5A5A5A5A), c_twin(c);
  gemm(t.mr, t.nr, blocks, a.data(), row_stride, packed.blocks.data(), t.sign, packed.bytes.data(),
       c.data(), c_stride);
  for (size_t r = 0; r < t.mr; r++) {
    for (size_t n = 0; n < t.nr; n++) {
      uint32_t expected = 0;
      for (size_t kk = 0; kk < k; kk++) {
        const int32_t w = int32_t{kernel[n * k + kk]} - 128;
        expected += static_cast<uint32_t>(factor) * static_cast<uint32_t>(w);
        expected += static_cast<uint32_t>(int32_t{uint8_t(a[r * row_stride + kk] ^ t.sign)} * w);
      }
      ASSERT_EQ(static_cast<int32_t>(expected), c[r * c_stride + n])
          << "row " << r << " column " << n << " of " << t.mr << "x" << t.nr << ", k " << k;
    }
    for (size_t n = t.nr; n < c_stride; n++) {
      ASSERT_EQ(c[r * c_stride + n], 0x5A5A5A5A) << "wrote past nr";
    }
  }
  if (twin != nullptr) {
    twin(t.mr, t.nr, blocks, a.data(), row_stride, packed.blocks.data(), t.sign,
         packed.bytes.data(), c_twin.data(), c_stride);
    ASSERT_EQ(c, c_twin);
  }
  ASSERT_LE(t.mr, max_mr);
}

}  // namespace

#define QWINO_U8S8_GEMM_TESTS(SUITE, gemm, twin, MR, CHECK)                                 \
  TEST(SUITE, every_remainder) {                                                            \
    CHECK;                                                                                  \
    for (size_t mr = 1; mr <= MR; mr++) {                                                   \
      for (size_t nr = 1; nr <= QWINO_U8S8_GEMM_NR; nr++) {                                 \
        for (size_t k : {1, 7, 16, 17, 33, 48}) {                                           \
          PairGemmCase t;                                                                   \
          t.mr = mr, t.nr = nr, t.k = k, t.seed = uint32_t(mr * 1000 + nr * 100 + k);       \
          Check(gemm, twin, MR, t);                                                         \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  TEST(SUITE, k_1_to_80_both_signs) {                                                       \
    CHECK;                                                                                  \
    for (size_t k = 1; k <= 80; k++) {                                                      \
      for (uint8_t sign : {uint8_t{0}, uint8_t{0x80}}) {                                    \
        PairGemmCase t;                                                                     \
        t.mr = MR, t.nr = QWINO_U8S8_GEMM_NR, t.k = k, t.sign = sign, t.seed = uint32_t(k); \
        Check(gemm, twin, MR, t);                                                           \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  TEST(SUITE, uniform_weights_split_blocks) {                                               \
    CHECK;                                                                                  \
    for (size_t k : {16, 40, 64, 200}) {                                                    \
      for (size_t nr : {1, 5, 16}) {                                                        \
        PairGemmCase t;                                                                     \
        t.mr = MR, t.nr = nr, t.k = k, t.weights = Weights::uniform, t.sign = 0x80;         \
        t.seed = uint32_t(k + nr);                                                          \
        Check(gemm, twin, MR, t);                                                           \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  TEST(SUITE, extreme_weights_and_bytes) {                                                  \
    CHECK;                                                                                  \
    for (size_t k : {2, 16, 31, 128}) {                                                     \
      for (uint32_t seed = 1; seed <= 4; seed++) {                                          \
        PairGemmCase t;                                                                     \
        t.mr = MR, t.nr = QWINO_U8S8_GEMM_NR, t.k = k, t.weights = Weights::extremes;       \
        t.seed = seed;                                                                      \
        Check(gemm, twin, MR, t);                                                           \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  TEST(SUITE, strided_rows_long_k) {                                                        \
    CHECK;                                                                                  \
    for (size_t k : {64, 300, 1024}) {                                                      \
      PairGemmCase t;                                                                       \
      t.mr = MR, t.nr = 11, t.k = k, t.row_stride = k + 37, t.sign = 0x80, t.seed = 7;      \
      Check(gemm, twin, MR, t);                                                             \
    }                                                                                       \
  }

// One set of tests per kernel of the family's list (the scalar twin first).
#define QWINO_U8S8_GEMM(isa, ukernel, mr, mac_cost)                                          \
  QWINO_U8S8_GEMM_TESTS(ukernel, ukernel,                                                    \
                        QWINO_TWIN_OF(ukernel, qwino_u8s8_gemm_ukernel_4x16c16__scalar), mr, \
                        QWINO_REQUIRE_ISA(isa))
#include "u8s8-gemm/u8s8-gemm.inc"
#undef QWINO_U8S8_GEMM
