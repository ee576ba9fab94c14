// GemmTester: checks one GEMM micro-kernel (qwino_gemm_ukernel_fn) for one shape.
//
// Why it looks like this: the oracle is an independent int64 triple loop reduced modulo 2^32
// (the contract's ring), not the scalar kernel, so the scalar kernel is tested too; SIMD kernels
// are additionally compared byte for byte with their scalar twin, which is what the library
// promises (doc/DESIGN.md section 1). Kernels differ in tile and B packing (MR x NR, k interleave
// KR: element (kk, j) of a panel at ((kk / KR) * NR + j) * KR + kk % KR), so the tester keeps B as
// a plain k x nr matrix and packs it for the kernel under test and, separately, for the twin,
// whose block is covered by as many twin calls as its own tile needs. The last A row and packed
// B end right before a PROT_NONE page, so a kernel that reads past k elements of A or past
// round_up(k, 4) B rows crashes, also under qemu where no sanitizer runs. C is pre-filled with a
// sentinel to prove that only the mr x nr block is written. B's padding (rows past k, columns
// past nr) is zero as the contract says, or garbage (the operator's F(4x4,3x3) input-channel
// blocks call the GEMM on a k-slice of a longer panel, so the rows past k are the next block's).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <random>
#include <vector>

#include "qwino/packing.h"
#include "qwino/ukernels.h"

#include "guarded-buffer.h"

class GemmTester {
 public:
  // How A and B values are drawn. kFull covers wrap-around of products and sums; kWinograd the
  // ranges the operator produces (|V| <= 4 * 255, |U| <= 9 * 255); kExtreme only int16 limits.
  enum class Values { kFull, kWinograd, kExtreme };
  // What the packed B holds outside the k x nr block: zeros, or random values.
  enum class Padding { kZero, kGarbage };

  GemmTester& mr(size_t mr) {
    mr_ = mr;
    return *this;
  }
  size_t mr() const { return mr_; }
  GemmTester& nr(size_t nr) {
    nr_ = nr;
    return *this;
  }
  size_t nr() const { return nr_; }
  GemmTester& k(size_t k) {
    k_ = k;
    return *this;
  }
  size_t k() const { return k_; }
  // Tile of the kernel under test: at most mr_max rows, nr_max columns (NR, the panel width),
  // B interleaved by kr. Default: 8 x 8, KR = 1 (the scalar and NEON kernels).
  GemmTester& tile(size_t mr_max, size_t nr_max, size_t kr) {
    mr_max_ = mr_max;
    nr_max_ = nr_max;
    kr_ = kr;
    return *this;
  }
  size_t mr_max() const { return mr_max_; }
  size_t nr_max() const { return nr_max_; }
  size_t kr() const { return kr_; }
  // Tile of the twin (default: the scalar kernel's 8 x 8, KR = 1).
  GemmTester& twin_tile(size_t mr_max, size_t nr_max, size_t kr) {
    twin_mr_max_ = mr_max;
    twin_nr_max_ = nr_max;
    twin_kr_ = kr;
    return *this;
  }
  // Elements between A rows; 0 means k (dense).
  GemmTester& a_stride(size_t a_stride) {
    a_stride_ = a_stride;
    return *this;
  }
  size_t a_stride() const { return a_stride_ == 0 ? k() : a_stride_; }
  // Elements between C rows; 0 means nr (dense).
  GemmTester& c_stride(size_t c_stride) {
    c_stride_ = c_stride;
    return *this;
  }
  size_t c_stride() const { return c_stride_ == 0 ? nr() : c_stride_; }
  GemmTester& values(Values values) {
    values_ = values;
    return *this;
  }
  Values values() const { return values_; }
  GemmTester& padding(Padding padding) {
    padding_ = padding;
    return *this;
  }
  Padding padding() const { return padding_; }
  GemmTester& iterations(size_t iterations) {
    iterations_ = iterations;
    return *this;
  }
  size_t iterations() const { return iterations_; }
  GemmTester& seed(uint32_t seed) {
    seed_ = seed;
    return *this;
  }
  uint32_t seed() const { return seed_; }

  // Packs the k x nr matrix b (row-major, row stride nr) into one panel of round_up(k, 4) x
  // panel_nr values interleaved by kr; positions outside the matrix keep what `packed` holds.
  static void Pack(const std::vector<int16_t>& b, size_t k, size_t nr, size_t panel_nr, size_t kr,
                   int16_t* packed) {
    for (size_t kk = 0; kk < k; kk++) {
      for (size_t j = 0; j < nr; j++) {
        packed[qwino::packed_b_index(kk, j, panel_nr, kr)] = b[kk * nr + j];
      }
    }
  }

  // twin: the scalar kernel a SIMD kernel must match byte for byte (nullptr: none).
  void Test(qwino_gemm_ukernel_fn gemm, qwino_gemm_ukernel_fn twin = nullptr) const {
    ASSERT_GE(mr(), 1u);
    ASSERT_LE(mr(), mr_max());
    ASSERT_GE(nr(), 1u);
    ASSERT_LE(nr(), nr_max());
    ASSERT_GE(k(), 1u);
    ASSERT_GE(a_stride(), k());
    ASSERT_GE(c_stride(), nr());
    ASSERT_TRUE(kr() == 1 || kr() == 2 || kr() == 4);

    std::mt19937 rng(seed() ^ static_cast<uint32_t>(mr() * 1000003u + nr() * 10007u + k()));
    const size_t k_padded = (k() + 3) / 4 * 4;
    qwino_test::GuardedBuffer<int16_t> a((mr() - 1) * a_stride() + k());
    std::vector<int16_t> b(k() * nr());
    qwino_test::GuardedBuffer<int16_t> packed_b(k_padded * nr_max());
    const size_t c_size = (mr() - 1) * c_stride() + nr() + 13;  // a tail past the block too
    std::vector<int32_t> c(c_size), c_twin(c_size);
    constexpr int32_t kSentinel = INT32_C(0x5A5AA5A5);

    for (size_t iteration = 0; iteration < iterations(); iteration++) {
      for (size_t i = 0; i < a.size(); i++) {
        a[i] = Draw(rng, /*b_side=*/false);
      }
      for (int16_t& value : b) {
        value = Draw(rng, /*b_side=*/true);
      }
      for (size_t i = 0; i < packed_b.size(); i++) {
        packed_b[i] =
            padding() == Padding::kZero
                ? 0
                : static_cast<int16_t>(std::uniform_int_distribution<int>(-32768, 32767)(rng));
      }
      Pack(b, k(), nr(), nr_max(), kr(), packed_b.data());
      std::fill(c.begin(), c.end(), kSentinel);
      std::fill(c_twin.begin(), c_twin.end(), kSentinel);

      gemm(mr(), nr(), k(), a.data(), a_stride(), packed_b.data(), c.data(), c_stride());

      for (size_t i = 0; i < mr(); i++) {
        for (size_t j = 0; j < nr(); j++) {
          int64_t sum = 0;
          for (size_t kk = 0; kk < k(); kk++) {
            sum += int64_t{a[i * a_stride() + kk]} * int64_t{b[kk * nr() + j]};
          }
          const int32_t expected = static_cast<int32_t>(static_cast<uint32_t>(sum));
          ASSERT_EQ(expected, c[i * c_stride() + j])
              << "row " << i << ", column " << j << ", mr " << mr() << ", nr " << nr() << ", k "
              << k() << ", a_stride " << a_stride() << ", c_stride " << c_stride() << ", tile "
              << mr_max() << "x" << nr_max() << "c" << kr() << ", padding "
              << (padding() == Padding::kZero ? "zero" : "garbage") << ", iteration " << iteration;
        }
      }
      for (size_t idx = 0; idx < c_size; idx++) {
        const size_t i = idx / c_stride(), j = idx % c_stride();
        if (!(i < mr() && j < nr())) {
          ASSERT_EQ(kSentinel, c[idx]) << "wrote outside the mr x nr block at element " << idx
                                       << " (row " << i << ", column " << j << ")";
        }
      }
      if (twin != nullptr) {
        RunTwin(twin, a, b, c_twin);
        ASSERT_EQ(0, std::memcmp(c.data(), c_twin.data(), c_size * sizeof(int32_t)))
            << "differs from the scalar twin: mr " << mr() << ", nr " << nr() << ", k " << k();
      }
    }
  }

 private:
  // The twin computes the same mr x nr block in blocks of its own tile, from its own packing.
  void RunTwin(qwino_gemm_ukernel_fn twin, const qwino_test::GuardedBuffer<int16_t>& a,
               const std::vector<int16_t>& b, std::vector<int32_t>& c) const {
    const size_t k_padded = (k() + 3) / 4 * 4;
    std::vector<int16_t> panel_b, packed(k_padded * twin_nr_max_);
    for (size_t n0 = 0; n0 < nr(); n0 += twin_nr_max_) {
      const size_t n = std::min(twin_nr_max_, nr() - n0);
      panel_b.resize(k() * n);
      for (size_t kk = 0; kk < k(); kk++) {
        for (size_t j = 0; j < n; j++) {
          panel_b[kk * n + j] = b[kk * nr() + n0 + j];
        }
      }
      std::fill(packed.begin(), packed.end(), 0);
      Pack(panel_b, k(), n, twin_nr_max_, twin_kr_, packed.data());
      for (size_t m0 = 0; m0 < mr(); m0 += twin_mr_max_) {
        twin(std::min(twin_mr_max_, mr() - m0), n, k(), a.data() + m0 * a_stride(), a_stride(),
             packed.data(), c.data() + m0 * c_stride() + n0, c_stride());
      }
    }
  }

  int16_t Draw(std::mt19937& rng, bool b_side) const {
    switch (values()) {
      case Values::kFull:
        return static_cast<int16_t>(std::uniform_int_distribution<int>(-32768, 32767)(rng));
      case Values::kWinograd: {
        const int limit = b_side ? 9 * 255 : 4 * 255;
        return static_cast<int16_t>(std::uniform_int_distribution<int>(-limit, limit)(rng));
      }
      case Values::kExtreme:
      default: {
        static const int16_t kExtremes[] = {-32768, 32767, -32767, -1, 0, 1};
        return kExtremes[std::uniform_int_distribution<int>(0, 5)(rng)];
      }
    }
  }

  size_t mr_ = 8;
  size_t nr_ = 8;
  size_t k_ = 4;
  size_t mr_max_ = 8;
  size_t nr_max_ = 8;
  size_t kr_ = 1;
  size_t twin_mr_max_ = 8;
  size_t twin_nr_max_ = 8;
  size_t twin_kr_ = 1;
  size_t a_stride_ = 0;
  size_t c_stride_ = 0;
  Values values_ = Values::kFull;
  Padding padding_ = Padding::kZero;
  size_t iterations_ = 3;
  uint32_t seed_ = 0x9E3779B9u;
};
