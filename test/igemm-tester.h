// IgemmTester: checks one 8-bit indirect GEMM micro-kernel (qwino_igemm_ukernel_fn) for one
// shape. IgemmProblem: the drawn operands, the oracle and the twin's run, which the fused
// kernels' tester (qu8-igemm-tester.h) shares.
//
// Why it looks like this: the oracle is an independent int64 loop over the taps, reduced modulo
// 2^32, on the A values as the contract defines them ((int8_t) (byte ^ a_sign) + a_bias read
// through each row's pointer for the tap, at pointer + a_offset unless the pointer is `zero`), not
// the scalar kernel, so the scalar kernel is tested too (B + b_bias for B where the list entry has
// b_bias, the packed byte holding B + b_bias); SIMD kernels are also compared with their
// scalar twin over the whole C buffer. B is kept as a plain [tap][k][n] array and packed here from
// the layout the contract states, for the kernel under test and for the twin (tiles and k
// interleaves differ). Every A row of every tap is its own buffer ending right before a PROT_NONE
// page, and so do the zero row and packed B, so a kernel that reads one byte past kc, or past a
// panel, crashes (also under qemu); the a_offset bytes before each row hold garbage. Taps point at
// the zero row as padding taps do (zero_taps()), rows may share a pointer (neighbouring output
// pixels read the same input pixel), and C is pre-filled with a sentinel: only the mr x nr block
// may change.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "qwino/ukernels.h"

#include "guarded-buffer.h"

// kFull: any A byte, B in [b_min, 127]; kExtreme: A bytes 0x00/0x7F/0x80/0xFF, B +-127 and
// b_min, the products whose sums a 16-bit lane must hold (b_min -127) or that reach 2^14 each
// (b_min -128).
enum class IgemmValues { kFull, kExtreme };

// The operands of one indirect GEMM call, redrawn per iteration: guarded A rows and zero row,
// the row pointers, B as a plain [tap][k][n] array.
class IgemmProblem {
 public:
  struct Shape {
    size_t mr, nr, kc, ks, a_offset;
    uint8_t a_sign;
    uint64_t zero_taps;
    IgemmValues values;
    int32_t b_min;    // the kernel's list entry's: -127 or -128
    uint32_t b_bias;  // the kernel's list entry's: 0 or 128
    // Gathered rows (qwino_gemm_requantize_ukernel_fn): 0, or the rows' stride, all rows of the
    // one tap in one buffer of `gathered_rows` rows that ends right before an inaccessible page
    // (ks 1, no padding taps or shared rows; the bytes past kc of each row hold garbage).
    size_t row_stride = 0;
    size_t gathered_rows = 0;
  };

  explicit IgemmProblem(const Shape& shape)
      : s_(shape), zero_(shape.kc), a_(shape.mr * shape.ks), b_(shape.ks * shape.kc * shape.nr) {
    if (s_.row_stride != 0) {
      rows_.emplace_back(s_.gathered_rows * s_.row_stride);
      return;
    }
    // One input row per (row, tap), a_offset garbage bytes then kc bytes, each guarded.
    for (size_t i = 0; i < s_.mr * s_.ks; i++) rows_.emplace_back(s_.a_offset + s_.kc);
  }

  void Draw(std::mt19937& rng) {
    for (auto& row : rows_) {
      for (size_t i = 0; i < row.size(); i++) row[i] = Byte(rng);
    }
    for (size_t k = 0; k < s_.kc; k++) zero_[k] = Byte(rng);
    for (size_t i = 0; s_.row_stride != 0 && i < s_.mr; i++) {
      a_[i] = rows_[0].data() + i * s_.row_stride;
    }
    const size_t ks = s_.row_stride != 0 ? 0 : s_.ks;
    for (size_t i = 0; i < s_.mr; i++) {
      for (size_t t = 0; t < ks; t++) {
        const bool padding = (s_.zero_taps >> std::min<size_t>(t, 63)) & 1;
        // Rows after the first sometimes reuse the previous row's pointer for the tap.
        const bool shared = i > 0 && (rng() % 5 == 0);
        a_[i * ks + t] = padding  ? zero_.data()
                         : shared ? a_[(i - 1) * ks + t]
                                  : rows_[i * ks + t].data();
        if (shared && a_[i * ks + t] == zero_.data()) a_[i * ks + t] = rows_[i * ks + t].data();
      }
    }
    for (auto& value : b_) value = Weight(rng);
  }

  const uint8_t* const* a() const { return a_.data(); }
  const uint8_t* gathered_rows() const { return rows_[0].data(); }
  const uint8_t* zero() const { return zero_.data(); }

  // The oracle: C[i][j] with a_bias added to every A value and b_bias to every B value, modulo
  // 2^32.
  int32_t Expected(size_t i, size_t j, int32_t a_bias) const {
    int64_t sum = 0;
    for (size_t t = 0; t < s_.ks; t++) {
      const uint8_t* row = a_[i * s_.ks + t];
      if (row != zero_.data()) row += s_.a_offset;
      for (size_t k = 0; k < s_.kc; k++) {
        sum += (int64_t{static_cast<int8_t>(row[k] ^ s_.a_sign)} + a_bias) *
               (int64_t{b_[(t * s_.kc + k) * s_.nr + j]} + int64_t{s_.b_bias});
      }
    }
    return static_cast<int32_t>(static_cast<uint32_t>(sum));
  }

  // B packed in the contract's layout for a kernel of NR columns and k interleave KR, in a
  // buffer that ends right before an inaccessible page.
  qwino_test::GuardedBuffer<int8_t> Packed(size_t NR, size_t KR) const {
    const std::vector<int8_t> bytes = Pack(NR, KR);
    qwino_test::GuardedBuffer<int8_t> buffer(bytes.size());
    std::copy(bytes.begin(), bytes.end(), buffer.data());
    return buffer;
  }

  // The twin over the mr x nr block into c (row stride c_stride), with as many calls as its
  // tile needs.
  void RunTwin(qwino_igemm_ukernel_fn twin, size_t twin_MR, size_t twin_NR, size_t twin_KR,
               int32_t* c, size_t c_stride) const {
    const std::vector<int8_t> packed = Pack(twin_NR, twin_KR);
    for (size_t i0 = 0; i0 < s_.mr; i0 += twin_MR) {
      for (size_t j0 = 0; j0 < s_.nr; j0 += twin_NR) {
        const size_t panel = j0 / twin_NR * s_.ks * RoundUp(s_.kc, twin_KR) * twin_NR;
        twin(std::min(twin_MR, s_.mr - i0), std::min(twin_NR, s_.nr - j0), s_.kc, s_.ks,
             a_.data() + i0 * s_.ks, s_.a_offset, zero_.data(), s_.a_sign, packed.data() + panel,
             c + i0 * c_stride + j0, c_stride);
      }
    }
  }

  // About the mean of C[i][j] over random A bytes: sum of (a_bias - 0.5) (B + b_bias), rounded.
  int32_t MeanSum(size_t j, int32_t a_bias) const {
    double sum = 0.0;
    for (size_t t = 0; t < s_.ks; t++) {
      for (size_t k = 0; k < s_.kc; k++) {
        sum += (a_bias - 0.5) * (double(b_[(t * s_.kc + k) * s_.nr + j]) + double(s_.b_bias));
      }
    }
    return static_cast<int32_t>(std::lround(sum));
  }

  std::string Describe() const {
    return std::to_string(s_.mr) + " x " + std::to_string(s_.nr) + ", kc " + std::to_string(s_.kc) +
           ", ks " + std::to_string(s_.ks) + ", a_offset " + std::to_string(s_.a_offset) +
           ", a_sign " + std::to_string(int{s_.a_sign});
  }

 private:
  static size_t RoundUp(size_t n, size_t q) { return (n + q - 1) / q * q; }

  uint8_t Byte(std::mt19937& rng) const {
    static const uint8_t kExtremes[] = {0x00, 0x7F, 0x80, 0xFF};
    return s_.values == IgemmValues::kExtreme ? kExtremes[rng() % 4] : static_cast<uint8_t>(rng());
  }
  int8_t Weight(std::mt19937& rng) const {
    if (s_.values == IgemmValues::kExtreme) {
      const int32_t extremes[] = {127, -127, s_.b_min};
      return static_cast<int8_t>(extremes[rng() % 3]);
    }
    return static_cast<int8_t>(std::uniform_int_distribution<int>(s_.b_min, 127)(rng));
  }

  // The contract's layout: panels of NR columns, per tap round_up(kc, KR) x NR values, element
  // (k, j) at ((k / KR) * NR + j) * KR + k % KR, as the byte B + b_bias; zeros past kc and nr.
  std::vector<int8_t> Pack(size_t NR, size_t KR) const {
    const size_t tap_size = RoundUp(s_.kc, KR) * NR;
    const size_t panels = (s_.nr + NR - 1) / NR;
    std::vector<int8_t> packed(panels * s_.ks * tap_size, 0);
    for (size_t j = 0; j < s_.nr; j++) {
      for (size_t t = 0; t < s_.ks; t++) {
        for (size_t k = 0; k < s_.kc; k++) {
          packed[(j / NR * s_.ks + t) * tap_size + ((k / KR) * NR + j % NR) * KR + k % KR] =
              static_cast<int8_t>(static_cast<uint8_t>(b_[(t * s_.kc + k) * s_.nr + j] +
                                                       static_cast<int32_t>(s_.b_bias)));
        }
      }
    }
    return packed;
  }

  Shape s_;
  std::vector<qwino_test::GuardedBuffer<uint8_t>> rows_;
  qwino_test::GuardedBuffer<uint8_t> zero_;
  std::vector<const uint8_t*> a_;
  std::vector<int8_t> b_;  // [tap][k][n]
};

class IgemmTester {
 public:
  using Values = IgemmValues;

  IgemmTester& mr(size_t v) {
    mr_ = v;
    return *this;
  }
  IgemmTester& nr(size_t v) {
    nr_ = v;
    return *this;
  }
  IgemmTester& kc(size_t v) {
    kc_ = v;
    return *this;
  }
  IgemmTester& ks(size_t v) {
    ks_ = v;
    return *this;
  }
  IgemmTester& a_offset(size_t v) {
    a_offset_ = v;
    return *this;
  }
  IgemmTester& a_sign(uint8_t v) {
    a_sign_ = v;
    return *this;
  }
  // Bit t set: tap t of every row points at the zero row (padding); bit 63 with more taps:
  // every tap from 63 on.
  IgemmTester& zero_taps(uint64_t v) {
    zero_taps_ = v;
    return *this;
  }
  // int32 elements between C rows; 0 means nr.
  IgemmTester& c_stride(size_t v) {
    c_stride_ = v;
    return *this;
  }
  IgemmTester& values(Values v) {
    values_ = v;
    return *this;
  }
  // The smallest weight drawn: the kernel's list entry's b_min.
  IgemmTester& b_min(int32_t v) {
    b_min_ = v;
    return *this;
  }
  // The kernel's list entry's b_bias (its twin's too).
  IgemmTester& b_bias(uint32_t v) {
    b_bias_ = v;
    return *this;
  }
  IgemmTester& iterations(size_t v) {
    iterations_ = v;
    return *this;
  }
  IgemmTester& seed(uint32_t v) {
    seed_ = v;
    return *this;
  }

  // MR, NR, KR, a_bias: the kernel's tile, k interleave and what it adds to every A value (its
  // list entry's); the twin's tile likewise (the twin has the kernel's a_bias).
  void Test(qwino_igemm_ukernel_fn igemm, size_t MR, size_t NR, size_t KR, int32_t a_bias,
            qwino_igemm_ukernel_fn twin, size_t twin_MR, size_t twin_NR, size_t twin_KR) const {
    ASSERT_GE(mr_, 1u);
    ASSERT_LE(mr_, MR);
    ASSERT_GE(nr_, 1u);
    ASSERT_LE(nr_, NR);
    const size_t c_stride = c_stride_ == 0 ? nr_ : c_stride_;
    ASSERT_GE(c_stride, nr_);
    std::mt19937 rng(seed_ ^ static_cast<uint32_t>(mr_ * 7919 + nr_ * 104729 + kc_ * 31 + ks_));
    IgemmProblem problem(
        {mr_, nr_, kc_, ks_, a_offset_, a_sign_, zero_taps_, values_, b_min_, b_bias_});
    const size_t c_size = (mr_ - 1) * c_stride + nr_;
    std::vector<int32_t> c(c_size), c_twin(c_size);
    constexpr int32_t kSentinel = 0x5EED5EED;

    for (size_t iteration = 0; iteration < iterations_; iteration++) {
      problem.Draw(rng);
      const qwino_test::GuardedBuffer<int8_t> packed = problem.Packed(NR, KR);
      std::fill(c.begin(), c.end(), kSentinel);
      igemm(mr_, nr_, kc_, ks_, problem.a(), a_offset_, problem.zero(), a_sign_, packed.data(),
            c.data(), c_stride);

      for (size_t i = 0; i < mr_; i++) {
        for (size_t j = 0; j < nr_; j++) {
          ASSERT_EQ(problem.Expected(i, j, a_bias), c[i * c_stride + j])
              << "row " << i << ", column " << j << " of " << problem.Describe() << ", a_bias "
              << a_bias;
        }
        for (size_t j = nr_; j < c_stride && i + 1 < mr_; j++) {
          ASSERT_EQ(kSentinel, c[i * c_stride + j]) << "wrote C row " << i << " past nr";
        }
      }

      if (twin != nullptr) {
        std::fill(c_twin.begin(), c_twin.end(), kSentinel);
        problem.RunTwin(twin, twin_MR, twin_NR, twin_KR, c_twin.data(), c_stride);
        ASSERT_EQ(0, std::memcmp(c.data(), c_twin.data(), c_size * sizeof(int32_t)))
            << "differs from the scalar twin: " << problem.Describe();
      }
    }
  }

 private:
  size_t mr_ = 1, nr_ = 1, kc_ = 16, ks_ = 1, a_offset_ = 0, c_stride_ = 0;
  uint8_t a_sign_ = 0;
  uint64_t zero_taps_ = 0;
  Values values_ = Values::kFull;
  int32_t b_min_ = -127;
  uint32_t b_bias_ = 0;
  size_t iterations_ = 3;
  uint32_t seed_ = 0x12345678u;
};
