// GemmTester: checks one 8x8 GEMM micro-kernel (qwino_gemm_ukernel_fn) for one shape.
//
// Why it looks like this: the oracle is an independent int64 triple loop reduced modulo 2^32
// (the contract's ring), not the scalar kernel, so the scalar kernel is tested too; SIMD kernels
// are additionally compared byte for byte with their scalar twin, which is what the library
// promises (DESIGN.md section 1). The last A row and packed B end right before a PROT_NONE page,
// so a kernel that reads past k elements or past round_up(k, 4) B rows crashes, also under qemu
// where no sanitizer runs. C is pre-filled with a sentinel to prove that only the mr x nr block
// is written.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <random>
#include <vector>

#include "qwino/ukernels.h"

#ifndef QWINO_TEST_GUARDED_BUFFER_DEFINED
#define QWINO_TEST_GUARDED_BUFFER_DEFINED
#include <sys/mman.h>
#include <unistd.h>
namespace qwino_test {
// `count` elements that end exactly where an inaccessible page begins.
template <typename T>
class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t count) : count_(count) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = count * sizeof(T);
    const size_t data_bytes = std::max(page, (bytes + page - 1) / page * page);
    mapping_bytes_ = data_bytes + page;
    void* base = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
      throw std::bad_alloc();
    }
    base_ = static_cast<char*>(base);
    mprotect(base_ + data_bytes, page, PROT_NONE);
    data_ = reinterpret_cast<T*>(base_ + data_bytes - bytes);
  }
  GuardedBuffer(GuardedBuffer&& other) noexcept
      : base_(other.base_), mapping_bytes_(other.mapping_bytes_), data_(other.data_),
        count_(other.count_) {
    other.base_ = nullptr;
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() {
    if (base_ != nullptr) {
      munmap(base_, mapping_bytes_);
    }
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return count_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  char* base_;
  size_t mapping_bytes_;
  T* data_;
  size_t count_;
};
}  // namespace qwino_test
#endif  // QWINO_TEST_GUARDED_BUFFER_DEFINED

class GemmTester {
 public:
  // How A and B values are drawn. kFull covers wrap-around of products and sums; kWinograd the
  // ranges the operator produces (|V| <= 4 * 255, |U| <= 9 * 255); kExtreme only int16 limits.
  enum class Values { kFull, kWinograd, kExtreme };

  GemmTester& mr(size_t mr) { mr_ = mr; return *this; }
  size_t mr() const { return mr_; }
  GemmTester& nr(size_t nr) { nr_ = nr; return *this; }
  size_t nr() const { return nr_; }
  GemmTester& k(size_t k) { k_ = k; return *this; }
  size_t k() const { return k_; }
  // Elements between A rows; 0 means k (dense).
  GemmTester& a_stride(size_t a_stride) { a_stride_ = a_stride; return *this; }
  size_t a_stride() const { return a_stride_ == 0 ? k() : a_stride_; }
  // Elements between C rows; 0 means nr (dense).
  GemmTester& c_stride(size_t c_stride) { c_stride_ = c_stride; return *this; }
  size_t c_stride() const { return c_stride_ == 0 ? nr() : c_stride_; }
  GemmTester& values(Values values) { values_ = values; return *this; }
  Values values() const { return values_; }
  GemmTester& iterations(size_t iterations) { iterations_ = iterations; return *this; }
  size_t iterations() const { return iterations_; }
  GemmTester& seed(uint32_t seed) { seed_ = seed; return *this; }
  uint32_t seed() const { return seed_; }

  // twin: the scalar kernel a SIMD kernel must match byte for byte (nullptr: none).
  void Test(qwino_gemm_ukernel_fn gemm, qwino_gemm_ukernel_fn twin = nullptr) const {
    ASSERT_GE(mr(), 1u);
    ASSERT_LE(mr(), 8u);
    ASSERT_GE(nr(), 1u);
    ASSERT_LE(nr(), 8u);
    ASSERT_GE(k(), 1u);
    ASSERT_GE(a_stride(), k());
    ASSERT_GE(c_stride(), nr());

    std::mt19937 rng(seed() ^ static_cast<uint32_t>(mr() * 1000003u + nr() * 10007u + k()));
    const size_t k_padded = (k() + 3) / 4 * 4;
    qwino_test::GuardedBuffer<int16_t> a((mr() - 1) * a_stride() + k());
    qwino_test::GuardedBuffer<int16_t> packed_b(k_padded * 8);
    const size_t c_size = (mr() - 1) * c_stride() + nr() + 13;  // a tail past the block too
    std::vector<int32_t> c(c_size), c_twin(c_size);
    constexpr int32_t kSentinel = INT32_C(0x5A5AA5A5);

    for (size_t iteration = 0; iteration < iterations(); iteration++) {
      for (size_t i = 0; i < a.size(); i++) {
        a[i] = Draw(rng, /*b_side=*/false);
      }
      std::fill(packed_b.data(), packed_b.data() + packed_b.size(), 0);
      for (size_t kk = 0; kk < k(); kk++) {
        for (size_t j = 0; j < nr(); j++) {
          packed_b[kk * 8 + j] = Draw(rng, /*b_side=*/true);
        }
      }
      std::fill(c.begin(), c.end(), kSentinel);
      std::fill(c_twin.begin(), c_twin.end(), kSentinel);

      gemm(mr(), nr(), k(), a.data(), a_stride(), packed_b.data(), c.data(), c_stride());

      for (size_t i = 0; i < mr(); i++) {
        for (size_t j = 0; j < nr(); j++) {
          int64_t sum = 0;
          for (size_t kk = 0; kk < k(); kk++) {
            sum += int64_t{a[i * a_stride() + kk]} * int64_t{packed_b[kk * 8 + j]};
          }
          const int32_t expected = static_cast<int32_t>(static_cast<uint32_t>(sum));
          ASSERT_EQ(expected, c[i * c_stride() + j])
              << "row " << i << ", column " << j << ", mr " << mr() << ", nr " << nr()
              << ", k " << k() << ", a_stride " << a_stride() << ", c_stride " << c_stride()
              << ", iteration " << iteration;
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
        twin(mr(), nr(), k(), a.data(), a_stride(), packed_b.data(), c_twin.data(), c_stride());
        ASSERT_EQ(0, std::memcmp(c.data(), c_twin.data(), c_size * sizeof(int32_t)))
            << "differs from the scalar twin: mr " << mr() << ", nr " << nr() << ", k " << k();
      }
    }
  }

 private:
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
  size_t a_stride_ = 0;
  size_t c_stride_ = 0;
  Values values_ = Values::kFull;
  size_t iterations_ = 3;
  uint32_t seed_ = 0x9E3779B9u;
};
