// Tests of the row-sum micro-kernels of the indirect GEMM's A (src/s8-irsum/): every row count
// 1..9 and 64, every kc 1..80 (the SIMD kernels step 16, 32 or 64 bytes, then a tail) and long
// rows up to 4608 bytes, 1 to 3 and 9 taps, taps in the padding (the zero row, read without
// a_offset), a_offset, both activation signs (and another a_sign: the kernels take any),
// constant and extreme bytes, sums that wrap modulo 2^32, and each SIMD kernel byte for byte
// against the scalar twin.
//
// Why it looks like this: the oracle is an int64 sum over the bytes the test itself put in each
// (row, tap)'s place, turned into A = (int8_t) (byte ^ a_sign) and reduced modulo 2^32, so it
// shares no code with the scalar kernel. Every row's kc bytes end right before a PROT_NONE page
// (test/guarded-buffer.h), and so do the zero row and the pointer array, so a kernel that reads
// one byte past kc at any pointer (or adds a_offset to the zero row) crashes, also under qemu;
// the a_offset bytes before each row hold garbage. The rows live in a pool of guarded slots
// reused across a test's calls, since mapping a buffer per row and call would dominate the run
// time. The sums buffer has slack after `rows` values, pre-filled with a sentinel that must
// survive, and itself ends at a guard page.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "guarded-buffer.h"
#include "isa-check.h"
#include "qwino/ukernels.h"

namespace {

// kRandom: any byte; kExtreme: 0x00, 0x7F, 0x80 and 0xFF; kConstant: every byte (rows, zero row
// and the garbage before the rows) is constant().
enum class IrsumBytes { kRandom, kExtreme, kConstant };

// Guarded slots of `capacity` bytes; the n bytes ending at End(slot) are followed by an
// inaccessible page. Slot 0 holds the zero row, the others the input rows.
class RowPool {
 public:
  explicit RowPool(size_t capacity) : capacity_(capacity) {}
  size_t capacity() const { return capacity_; }
  uint8_t* End(size_t slot) {
    while (slots_.size() <= slot) slots_.emplace_back(capacity_);
    return slots_[slot].data() + capacity_;
  }

 private:
  size_t capacity_;
  std::vector<qwino_test::GuardedBuffer<uint8_t>> slots_;
};

class IrsumTester {
 public:
  using Bytes = IrsumBytes;

  IrsumTester& rows(size_t v) {
    rows_ = v;
    return *this;
  }
  IrsumTester& kc(size_t v) {
    kc_ = v;
    return *this;
  }
  IrsumTester& ks(size_t v) {
    ks_ = v;
    return *this;
  }
  IrsumTester& a_offset(size_t v) {
    a_offset_ = v;
    return *this;
  }
  IrsumTester& a_sign(uint8_t v) {
    a_sign_ = v;
    return *this;
  }
  // Percentage of the pointers that are the zero row (padding taps).
  IrsumTester& zero_percent(uint32_t v) {
    zero_percent_ = v;
    return *this;
  }
  // Every pointer that is not the zero row points at one and the same row (long sums from little
  // memory).
  IrsumTester& one_row(bool v) {
    one_row_ = v;
    return *this;
  }
  IrsumTester& bytes(Bytes v) {
    bytes_ = v;
    return *this;
  }
  IrsumTester& constant(uint8_t v) {
    constant_ = v;
    return *this;
  }
  IrsumTester& iterations(size_t v) {
    iterations_ = v;
    return *this;
  }

  void Test(qwino_irsum_ukernel_fn irsum, qwino_irsum_ukernel_fn twin, RowPool& pool) const {
    ASSERT_GE(rows_, 1u);
    ASSERT_GE(kc_, 1u);
    ASSERT_GE(ks_, 1u);
    ASSERT_LE(a_offset_ + kc_, pool.capacity());
    std::mt19937 rng(static_cast<uint32_t>(
        0x5EED1234u ^
        (rows_ * 7919 + kc_ * 31 + ks_ * 104729 + a_offset_ * 13 + a_sign_ + constant_ * 65537)));
    const size_t count = rows_ * ks_;
    qwino_test::GuardedBuffer<const uint8_t*> a(count);
    // Where the test put the kc bytes of each (row, tap): what the oracle sums.
    std::vector<const uint8_t*> sources(count);
    constexpr size_t kSlack = 4;
    constexpr int32_t kSentinel = 0x7E57C0DE;
    qwino_test::GuardedBuffer<int32_t> sums(rows_ + kSlack);
    qwino_test::GuardedBuffer<int32_t> twin_sums(rows_ + kSlack);

    for (size_t iteration = 0; iteration < iterations_; iteration++) {
      uint8_t* zero = pool.End(0) - kc_;
      Fill(zero, kc_, rng);
      for (size_t j = 0; j < count; j++) {
        uint8_t* row = pool.End(1 + (one_row_ ? 0 : j)) - kc_;
        if (!one_row_ || j == 0) {
          Fill(row - a_offset_, a_offset_ + kc_, rng);
        }
        if (rng() % 100 < zero_percent_) {
          a[j] = zero;
          sources[j] = zero;
        } else if (j >= ks_ && rng() % 8 == 0) {
          // A neighbouring pixel reading the same input pixel for this tap.
          a[j] = a[j - ks_];
          sources[j] = sources[j - ks_];
        } else {
          a[j] = row - a_offset_;
          sources[j] = row;
        }
      }

      std::fill(sums.data(), sums.data() + sums.size(), kSentinel);
      irsum(rows_, kc_, ks_, a.data(), a_offset_, zero, a_sign_, sums.data());
      for (size_t i = 0; i < rows_; i++) {
        ASSERT_EQ(Expected(sources, i), sums[i]) << "row " << i << " of " << Describe();
      }
      for (size_t i = rows_; i < sums.size(); i++) {
        ASSERT_EQ(kSentinel, sums[i]) << "wrote sums[" << i << "] past rows: " << Describe();
      }

      if (twin != nullptr) {
        std::fill(twin_sums.data(), twin_sums.data() + twin_sums.size(), kSentinel);
        twin(rows_, kc_, ks_, a.data(), a_offset_, zero, a_sign_, twin_sums.data());
        ASSERT_EQ(0, std::memcmp(sums.data(), twin_sums.data(), sums.size() * sizeof(int32_t)))
            << "differs from the scalar twin: " << Describe();
      }
    }
  }

 private:
  void Fill(uint8_t* p, size_t n, std::mt19937& rng) const {
    static const uint8_t kExtremes[4] = {0x00, 0x7F, 0x80, 0xFF};
    for (size_t k = 0; k < n; k++) {
      switch (bytes_) {
        case Bytes::kRandom:
          p[k] = static_cast<uint8_t>(rng());
          break;
        case Bytes::kExtreme:
          p[k] = kExtremes[rng() % 4];
          break;
        case Bytes::kConstant:
          p[k] = constant_;
          break;
      }
    }
  }

  int32_t Expected(const std::vector<const uint8_t*>& sources, size_t i) const {
    int64_t sum = 0;
    for (size_t t = 0; t < ks_; t++) {
      const uint8_t* row = sources[i * ks_ + t];
      for (size_t k = 0; k < kc_; k++) {
        sum += static_cast<int8_t>(static_cast<uint8_t>(row[k] ^ a_sign_));
      }
    }
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
  }

  std::string Describe() const {
    return "rows " + std::to_string(rows_) + ", kc " + std::to_string(kc_) + ", ks " +
           std::to_string(ks_) + ", a_offset " + std::to_string(a_offset_) + ", a_sign " +
           std::to_string(int{a_sign_}) + ", zero " + std::to_string(zero_percent_) + "%, bytes " +
           std::to_string(static_cast<int>(bytes_)) + ", constant " +
           std::to_string(int{constant_});
  }

  size_t rows_ = 1, kc_ = 16, ks_ = 1, a_offset_ = 0;
  uint8_t a_sign_ = 0;
  uint32_t zero_percent_ = 25;
  bool one_row_ = false;
  Bytes bytes_ = Bytes::kRandom;
  uint8_t constant_ = 0;
  size_t iterations_ = 1;
};

// Slot size of the tests' pools: the longest row (4608) plus the largest a_offset (64).
constexpr size_t kPoolCapacity = 4608 + 64;

}  // namespace

#define QWINO_IRSUM_TESTS(SUITE, irsum, twin, CHECK)                                               \
  TEST(SUITE, kc_1_to_80) {                                                                        \
    CHECK;                                                                                         \
    RowPool pool(kPoolCapacity);                                                                   \
    for (uint8_t sign : {0x00, 0x80, 0x5A}) {                                                      \
      for (size_t rows = 1; rows <= 9; rows++) {                                                   \
        for (size_t kc = 1; kc <= 80; kc++) {                                                      \
          for (size_t ks : {1, 2, 3, 9}) {                                                         \
            IrsumTester().rows(rows).kc(kc).ks(ks).a_offset(13).a_sign(sign).Test(irsum, twin,     \
                                                                                  pool);           \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, long_rows) {                                                                         \
    CHECK;                                                                                         \
    RowPool pool(kPoolCapacity);                                                                   \
    for (uint8_t sign : {0x00, 0x80}) {                                                            \
      for (size_t kc : {127, 128, 255, 256, 1000, 4608}) {                                         \
        for (size_t rows : {1, 2, 3, 4, 5, 6, 7, 8, 9, 64}) {                                      \
          for (size_t ks : {1, 2, 3, 9}) {                                                         \
            IrsumTester().rows(rows).kc(kc).ks(ks).a_offset(kc % 7).a_sign(sign).Test(irsum, twin, \
                                                                                      pool);       \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, rows_1_to_64) {                                                                      \
    CHECK;                                                                                         \
    RowPool pool(kPoolCapacity);                                                                   \
    for (size_t rows = 1; rows <= 64; rows++) {                                                    \
      for (size_t kc : {3, 16, 17, 64, 71}) {                                                      \
        IrsumTester()                                                                              \
            .rows(rows)                                                                            \
            .kc(kc)                                                                                \
            .ks(rows % 2 == 0 ? 9 : 1)                                                             \
            .a_offset(5)                                                                           \
            .a_sign(0x80)                                                                          \
            .Test(irsum, twin, pool);                                                              \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, zero_row_and_a_offset) {                                                             \
    CHECK;                                                                                         \
    RowPool pool(kPoolCapacity);                                                                   \
    for (size_t a_offset : {0, 1, 15, 16, 37, 64}) {                                               \
      for (uint32_t zero_percent : {0, 25, 50, 100}) {                                             \
        for (size_t kc : {1, 7, 8, 15, 16, 31, 33, 63, 64, 65, 200}) {                             \
          for (size_t ks : {1, 3, 9}) {                                                            \
            IrsumTester()                                                                          \
                .rows(5)                                                                           \
                .kc(kc)                                                                            \
                .ks(ks)                                                                            \
                .a_offset(a_offset)                                                                \
                .zero_percent(zero_percent)                                                        \
                .a_sign(kc % 2 == 0 ? 0x80 : 0x00)                                                 \
                .iterations(2)                                                                     \
                .Test(irsum, twin, pool);                                                          \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, extreme_bytes) {                                                                     \
    CHECK;                                                                                         \
    RowPool pool(kPoolCapacity);                                                                   \
    for (uint8_t sign : {0x00, 0x80}) {                                                            \
      for (size_t kc : {1, 2, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 4608}) {       \
        for (size_t ks : {1, 9}) {                                                                 \
          for (size_t rows : {1, 9, 64}) {                                                         \
            for (uint8_t constant : {0x00, 0x7F, 0x80, 0xFF}) {                                    \
              IrsumTester()                                                                        \
                  .rows(rows)                                                                      \
                  .kc(kc)                                                                          \
                  .ks(ks)                                                                          \
                  .a_offset(3)                                                                     \
                  .a_sign(sign)                                                                    \
                  .bytes(IrsumBytes::kConstant)                                                    \
                  .constant(constant)                                                              \
                  .Test(irsum, twin, pool);                                                        \
            }                                                                                      \
            IrsumTester()                                                                          \
                .rows(rows)                                                                        \
                .kc(kc)                                                                            \
                .ks(ks)                                                                            \
                .a_offset(3)                                                                       \
                .a_sign(sign)                                                                      \
                .bytes(IrsumBytes::kExtreme)                                                       \
                .iterations(3)                                                                     \
                .Test(irsum, twin, pool);                                                          \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
  TEST(SUITE, sums_wrap_modulo_2_32) {                                                             \
    CHECK;                                                                                         \
    /* 17 taps of 2^20 + 5 bytes of -128 (or +127) each: about -2.28e9 (+2.26e9), past int32. */   \
    constexpr size_t kc = (size_t{1} << 20) + 5;                                                   \
    RowPool pool(kc + 8);                                                                          \
    for (uint8_t sign : {0x00, 0x80}) {                                                            \
      for (uint8_t constant : {0x00, 0x7F, 0x80, 0xFF}) {                                          \
        IrsumTester()                                                                              \
            .rows(2)                                                                               \
            .kc(kc)                                                                                \
            .ks(17)                                                                                \
            .a_offset(8)                                                                           \
            .a_sign(sign)                                                                          \
            .zero_percent(10)                                                                      \
            .one_row(true)                                                                         \
            .bytes(IrsumBytes::kConstant)                                                          \
            .constant(constant)                                                                    \
            .Test(irsum, twin, pool);                                                              \
      }                                                                                            \
    }                                                                                              \
  }

// One set of tests per kernel of the family's list (the scalar twin first), each SIMD kernel
// also compared with the scalar twin.
#define QWINO_S8_IRSUM(isa, ukernel)                                                          \
  QWINO_IRSUM_TESTS(ukernel, ukernel, QWINO_TWIN_OF(ukernel, qwino_s8_irsum_ukernel__scalar), \
                    QWINO_REQUIRE_ISA(isa))
#include "s8-irsum/s8-irsum.inc"
#undef QWINO_S8_IRSUM
