// QU8IgemmTester: checks one 8-bit indirect GEMM kernel with fused requantization
// (qwino_igemm_requantize_ukernel_fn) for one shape and requantization.
//
// Why it looks like this: the kernel is two contracts in one, so it is checked against both
// oracles composed (IgemmProblem's int32 sums, then the requantization oracle of
// requantizing-tester.h applied to sum + bias), and against its twin, the composition of the
// scalar kernels it fuses (the s8-igemm twin of its a_bias into an int32 block, then the mode's
// scalar requantize kernel), byte for byte. The operands, guards and pointer patterns are the
// s8-igemm tester's (IgemmProblem); the per-channel arrays hold more channels than the tile, and
// the kernel gets them from channel_offset on with the full stride, as the operator passes a
// block of its output channels; they end right before an inaccessible page. The output rows are
// output_stride apart with a sentinel in the gap that must survive. Requantization corners
// (ties, saturation) are the requantize tests' job: here the GEMM's sums are requantized with a
// shift that keeps the bytes spread over the range (set per test), plus random parameters,
// per-channel values, both modes, int8 outputs and extreme biases. Row terms (one int32 per
// row, guarded like the arrays) are added to the oracle's sums and to the twin's int32 block.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "qwino/microparams.h"
#include "qwino/ukernels.h"

#include "guarded-buffer.h"
#include "igemm-tester.h"
#include "requantization-oracle.h"
#include "requantizing-tester.h"

namespace qwino_test {

// A right shift (multiplier 2^30) that maps the sums of n = kc x ks random products onto about
// +-64: their spread is about 5400 sqrt(n), twice that with A biased by 128.
inline uint32_t ShiftFor(size_t n, int32_t a_bias) {
  const double spread = 5400.0 * std::sqrt(double(n)) * (a_bias != 0 ? 2.0 : 1.0);
  const long shift = std::lround(std::log2(spread / 64.0)) - 1;
  return static_cast<uint32_t>(std::min(31L, std::max(0L, shift)));
}

}  // namespace qwino_test

// The s8-igemm twin and the requantize twin the fused kernel must equal, with their tiles.
struct FusedIgemmTwin {
  qwino_igemm_ukernel_fn igemm;
  size_t MR, NR, KR;
  qwino_requantize_ukernel_fn requantize;
  qwino_init_qu8_requantization_params_fn init;
};
// The twins of a list entry's a_bias, b_bias and mode (the scalar s8-igemm kernels' 4x4c16 tile).
#define QWINO_FUSED_IGEMM_TWIN(a_bias, b_bias, mode)                                                 \
  (FusedIgemmTwin{(a_bias) == 0   ? ((b_bias) == 0 ? qwino_s8_igemm_ukernel_4x4c16__scalar           \
                                                   : qwino_s8_igemm_bbias128_ukernel_4x4c16__scalar) \
                  : (b_bias) == 0 ? qwino_s8_igemm_abias128_ukernel_4x4c16__scalar                   \
                                  : qwino_s8_igemm_abias128_bbias128_ukernel_4x4c16__scalar,         \
                  4, 4, 16, qwino_s32_qu8_requantize_##mode##_ukernel__scalar,                       \
                  qwino_init_qu8_##mode##_scalar_params})

class QU8IgemmTester : public qwino_test::RequantizingTester<QU8IgemmTester> {
 public:
  QU8IgemmTester& mr(size_t v) {
    mr_ = v;
    return *this;
  }
  // Columns: up to NR is one panel, more are several (the kernel walks them).
  QU8IgemmTester& nr(size_t v) {
    nr_ = v;
    return *this;
  }
  QU8IgemmTester& kc(size_t v) {
    kc_ = v;
    return *this;
  }
  QU8IgemmTester& ks(size_t v) {
    ks_ = v;
    return *this;
  }
  QU8IgemmTester& a_offset(size_t v) {
    a_offset_ = v;
    return *this;
  }
  QU8IgemmTester& a_sign(uint8_t v) {
    a_sign_ = v;
    return *this;
  }
  QU8IgemmTester& zero_taps(uint64_t v) {
    zero_taps_ = v;
    return *this;
  }
  // The tile's first channel among the arrays' channels (which extend 5 past the tile).
  QU8IgemmTester& channel_offset(size_t v) {
    channel_offset_ = v;
    return *this;
  }
  // Bytes between output rows; 0 means nr.
  QU8IgemmTester& output_stride(size_t v) {
    output_stride_ = v;
    return *this;
  }
  QU8IgemmTester& values(IgemmValues v) {
    values_ = v;
    return *this;
  }
  QU8IgemmTester& b_min(int32_t v) {
    b_min_ = v;
    return *this;
  }
  QU8IgemmTester& b_bias(uint32_t v) {
    b_bias_ = v;
    return *this;
  }
  // The list entry's row_blocks: the kernel takes more than MR rows.
  QU8IgemmTester& row_blocks(bool v) {
    row_blocks_ = v;
    return *this;
  }
  // One random int32 per row added to every column (the kernel's row_terms), or NULL.
  QU8IgemmTester& row_terms(bool v) {
    row_terms_ = v;
    return *this;
  }
  // Gathered rows of a kernel on them (qwino_gemm_requantize_ukernel_fn, src/qu8-gemm/): rows
  // round_up(kc, k_block) bytes apart, round_up(mr, MR) of them in the buffer (what the operator
  // gives, so that a read past either crashes); ks 1, a_sign 0x80, no padding taps.
  QU8IgemmTester& gathered_rows(size_t k_block) {
    k_block_ = k_block;
    return *this;
  }
  QU8IgemmTester& iterations(size_t v) {
    iterations_ = v;
    return *this;
  }

  // MR, NR, KR, a_bias and init: the kernel's list entry.
  void Test(qwino_igemm_requantize_ukernel_fn kernel, size_t MR, size_t NR, size_t KR,
            int32_t a_bias, qwino_init_qu8_requantization_params_fn init,
            const FusedIgemmTwin& twin) const {
    Run(
        [&](const IgemmProblem& problem, const int8_t* packed, const int32_t* params,
            const int32_t* terms, uint8_t* output, size_t output_stride,
            const qwino_qu8_requantization_params* microparams) {
          kernel(mr_, nr_, kc_, ks_, problem.a(), a_offset_, problem.zero(), a_sign_, packed,
                 params, terms, output, output_stride, microparams);
        },
        MR, NR, KR, a_bias, init, twin);
  }
  // The same for a kernel on gathered rows (gathered_rows(k_block) set).
  void Test(qwino_gemm_requantize_ukernel_fn kernel, size_t MR, size_t NR, size_t KR,
            int32_t a_bias, qwino_init_qu8_requantization_params_fn init,
            const FusedIgemmTwin& twin) const {
    ASSERT_NE(k_block_, 0u);
    ASSERT_EQ(ks_, 1u);
    ASSERT_EQ(a_sign_, 0x80);
    Run(
        [&](const IgemmProblem& problem, const int8_t* packed, const int32_t* params,
            const int32_t* terms, uint8_t* output, size_t output_stride,
            const qwino_qu8_requantization_params* microparams) {
          kernel(mr_, nr_, kc_, problem.gathered_rows(), RowStride(), packed, params, terms, output,
                 output_stride, microparams);
        },
        MR, NR, KR, a_bias, init, twin);
  }

 private:
  size_t RowStride() const { return (kc_ + k_block_ - 1) / k_block_ * k_block_; }

  template <typename CallKernel>
  void Run(CallKernel call_kernel, size_t MR, size_t NR, size_t KR, int32_t a_bias,
           qwino_init_qu8_requantization_params_fn init, const FusedIgemmTwin& twin) const {
    ASSERT_GE(mr_, 1u);
    if (!row_blocks_) {
      ASSERT_LE(mr_, MR);
    }
    ASSERT_GE(nr_, 1u);  // any number of columns: ceil(nr / NR) panels
    const size_t output_stride = output_stride_ == 0 ? nr_ : output_stride_;
    ASSERT_GE(output_stride, nr_);
    std::mt19937 rng(0x2545F491u ^ static_cast<uint32_t>(mr_ * 7919 + nr_ * 104729 + kc_ * 31 +
                                                         ks_ + mode() * 3));
    const size_t row_stride = k_block_ != 0 ? RowStride() : 0;
    const size_t gathered_rows = k_block_ != 0 ? (mr_ + MR - 1) / MR * MR : 0;
    IgemmProblem problem({mr_, nr_, kc_, ks_, a_offset_, a_sign_, zero_taps_, values_, b_min_,
                          b_bias_, row_stride, gathered_rows});
    qwino_test::GuardedBuffer<int32_t> row_terms(mr_);
    const size_t channels = channel_offset_ + nr_ + 5;
    qwino_test::GuardedBuffer<int32_t> channel_params(QWINO_MAX_CHANNEL_ARRAYS * channels);
    const int32_t* tile_params = channel_params.data() + channel_offset_;
    const size_t output_size = (mr_ - 1) * output_stride + nr_;
    qwino_test::GuardedBuffer<uint8_t> output(output_size);
    std::vector<uint8_t> output_twin(output_size);
    std::vector<int32_t> c_twin(mr_ * nr_);
    constexpr uint8_t kSentinel = 0xA5;

    for (size_t iteration = 0; iteration < iterations_; iteration++) {
      problem.Draw(rng);
      const qwino_test::RequantizationCase q = IterationCase(rng, channels);
      int32_t* bias = channel_params.data();
      if (bias_values() == qwino_test::BiasValues::kSmall) {
        // Within the sums' magnitude, so that the bytes stay spread.
        for (size_t c = 0; c < channels; c++) {
          bias[c] = std::uniform_int_distribution<int32_t>(-(1 << 14), 1 << 14)(rng);
        }
        // With B + b_bias the sums sit far from 0 (about 128 x 127.5 per product): centred by
        // the bias, as the operator's row terms and bias fold do, so that the bytes stay spread.
        for (size_t j = 0; b_bias_ != 0 && j < nr_; j++) {
          bias[channel_offset_ + j] -= problem.MeanSum(j, a_bias);
        }
      } else {
        DrawBias(rng, bias, channels);
      }
      q.FillChannelParams(channel_params.data());
      for (size_t i = 0; i < mr_; i++) {
        // Within the sums' magnitude (bytes spread), or anywhere with the random biases.
        row_terms[i] = bias_values() == qwino_test::BiasValues::kSmall
                           ? std::uniform_int_distribution<int32_t>(-(1 << 14), 1 << 14)(rng)
                           : static_cast<int32_t>(rng());
      }
      const int32_t* terms = row_terms_ ? row_terms.data() : nullptr;
      const qwino_qu8_requantization_params microparams = q.Microparams(init, bias);
      const qwino_test::GuardedBuffer<int8_t> packed = problem.Packed(NR, KR);
      std::fill(output.data(), output.data() + output_size, kSentinel);

      call_kernel(problem, packed.data(), tile_params, terms, output.data(), output_stride,
                  &microparams);

      for (size_t i = 0; i < mr_; i++) {
        for (size_t j = 0; j < nr_; j++) {
          const size_t c = channel_offset_ + j;
          const int32_t sum = qwino_test::ReferenceWrappingAdd(problem.Expected(i, j, a_bias),
                                                               terms ? terms[i] : 0);
          const int32_t accumulator = qwino_test::ReferenceWrappingAdd(sum, bias[c]);
          ASSERT_EQ(int{q.Reference(accumulator, c)}, int{output[i * output_stride + j]})
              << "row " << i << ", column " << j << " of " << problem.Describe() << ", accumulator "
              << accumulator << "; " << q.Describe(c);
        }
        for (size_t j = nr_; j < output_stride && i + 1 < mr_; j++) {
          ASSERT_EQ(kSentinel, output[i * output_stride + j]) << "wrote row " << i << " past nr";
        }
      }

      problem.RunTwin(twin.igemm, twin.MR, twin.NR, twin.KR, c_twin.data(), nr_);
      for (size_t i = 0; terms != nullptr && i < mr_; i++) {
        for (size_t j = 0; j < nr_; j++) {
          c_twin[i * nr_ + j] = qwino_test::ReferenceWrappingAdd(c_twin[i * nr_ + j], terms[i]);
        }
      }
      const qwino_qu8_requantization_params twin_microparams = q.Microparams(twin.init, bias);
      std::fill(output_twin.begin(), output_twin.end(), kSentinel);
      twin.requantize(mr_, nr_, c_twin.data(), nr_, tile_params, output_twin.data(), output_stride,
                      &twin_microparams);
      ASSERT_EQ(0, std::memcmp(output.data(), output_twin.data(), output_size))
          << "differs from the scalar twins' composition: " << problem.Describe() << ", "
          << q.Describe(channel_offset_);
    }
  }

  size_t mr_ = 1, nr_ = 1, kc_ = 16, ks_ = 1, a_offset_ = 0, channel_offset_ = 0;
  size_t k_block_ = 0;
  size_t output_stride_ = 0;
  uint8_t a_sign_ = 0;
  uint64_t zero_taps_ = 0;
  IgemmValues values_ = IgemmValues::kFull;
  int32_t b_min_ = -127;
  uint32_t b_bias_ = 0;
  bool row_blocks_ = false;
  bool row_terms_ = false;
  size_t iterations_ = 3;
};
