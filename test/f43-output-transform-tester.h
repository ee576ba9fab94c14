// F43OutputTransformTester: checks one Winograd F(4x4,3x3) output transform (block sum, 576x
// recovery, bias, requantization) micro-kernel.
//
// Why it looks like this: the recovery of the exact accumulator from Y = 576 x partial modulo
// 2^32 and the requantization both hide bugs in rare corners (the 26-bit sign extension, the
// exactness limit 2^25, rounding ties, saturation, wrap-around), so the tester owns an
// independent definition of everything the kernel computes:
//  - Y_b = Ã^T M_b Ã as explicit int64 matrix products reduced modulo 2^32;
//  - recovery: floor(Y mod 2^32 / 64) times an inverse of 9 modulo 2^26 that the tester computes
//    itself (Newton iteration), mapped to [-2^25, 2^25), and checked to satisfy 9 r = Y / 64;
//  - the partial sums and the bias added modulo 2^32, then TFLite's requantization from the test
//    suite's own oracle (requantization-oracle.h, not the formulas of qwino/requantization.h;
//    the parameter setters and the drawing of parameters, biases and tie accumulators come
//    from requantizing-tester.h, shared with the other requantizing kernels; the geometry
//    setters from output-transform-tester.h, shared with F23OutputTransformTester).
// M comes in several flavours. kGenuine: M_b = sum over input channels of U o V with
// U = G'' g G''^T and V = B^T d B for a random 6x6 tile d and random 3x3 kernels g, and the tester
// checks that the recovery gives exactly the direct 3x3 correlation (4x4 outputs) of every block.
// kGenuineLarge: 57 input channels of +-255 data and kernels aligned on one output pixel, which
// puts that pixel's partial at +-33357825, 196607 below the exactness limit 2^25. kDirect: the
// tester first picks the 16 partial accumulators of every block (anywhere in [-2^25, 2^25),
// including both ends), then builds a genuine M for them from a one-tap kernel (the direct output
// of a delta kernel is a window of d, so d carries the chosen values); kTies uses the same
// construction to land accumulators on rounding ties of the requantization parameters. kFull:
// every M element uniform over int32 (the kernel is defined on all of them; SIMD and scalar must
// agree byte for byte even where the recovery is not the direct result).
// M, bias and output end right before an inaccessible page (over-reads/over-writes crash, also
// under qemu), slack in M holds garbage, and output bytes outside the rows x columns x channels
// block must keep a sentinel. SIMD kernels are also compared with their scalar twin over the
// whole output buffer.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <random>
#include <vector>

#include "qwino/microparams.h"
#include "qwino/ukernels.h"

#include "guarded-buffer.h"
#include "output-transform-tester.h"
#include "requantizing-tester.h"

enum class F43MValues { kGenuine, kGenuineLarge, kDirect, kTies, kFull };

class F43OutputTransformTester
    : public qwino_test::OutputTransformTester<F43OutputTransformTester, 4, F43MValues> {
 public:
  using MValues = F43MValues;

  F43OutputTransformTester& blocks(size_t blocks) {
    blocks_ = blocks;
    return *this;
  }
  size_t blocks() const { return blocks_; }
  // Elements between blocks; 0 means 36 positions (blocks one after the other).
  F43OutputTransformTester& m_block_stride(size_t stride) {
    m_block_stride_ = stride;
    return *this;
  }
  size_t m_block_stride() const {
    return m_block_stride_ == 0 ? 36 * m_position_stride() : m_block_stride_;
  }

  // twin: the scalar twin to compare with (nullptr: none); init, twin_init: the kernels'
  // microparams init functions (their list entries').
  void Test(qwino_f43_output_transform_ukernel_fn transform,
            qwino_f43_output_transform_ukernel_fn twin,
            qwino_init_qu8_requantization_params_fn init,
            qwino_init_qu8_requantization_params_fn twin_init) const {
    ASSERT_GE(channels(), 1u);
    ASSERT_GE(blocks(), 1u);
    ASSERT_TRUE(rows() >= 1 && rows() <= 4);
    ASSERT_TRUE(columns() >= 1 && columns() <= 4);
    ASSERT_GE(m_position_stride(), channels());
    // The (block, position, channel) -> element map must be one-to-one: blocks one after the
    // other, or blocks interleaved inside each position.
    ASSERT_TRUE(blocks() == 1 || m_block_stride() >= 35 * m_position_stride() + channels() ||
                (m_block_stride() >= channels() &&
                 m_position_stride() >= (blocks() - 1) * m_block_stride() + channels()));
    ASSERT_GE(output_pixel_stride(), channels());
    if (rows() > 1) {
      ASSERT_GE(output_row_stride(), (columns() - 1) * output_pixel_stride() + channels());
    }

    std::mt19937 rng(seed() ^
                     static_cast<uint32_t>(channels() * 2654435761u + rows() * 31 + columns() * 17 +
                                           blocks() * 7919 + right_shift() * 131 + mode() * 7));
    qwino_test::GuardedBuffer<int32_t> m((blocks() - 1) * m_block_stride() +
                                         35 * m_position_stride() + channels());
    // The bias, then the mode's per-channel arrays (qwino/microparams.h).
    qwino_test::GuardedBuffer<int32_t> channel_params(QWINO_MAX_CHANNEL_ARRAYS * channels());
    int32_t* bias = channel_params.data();
    const size_t output_size =
        (rows() - 1) * output_row_stride() + (columns() - 1) * output_pixel_stride() + channels();
    qwino_test::GuardedBuffer<uint8_t> output(output_size), output_twin(output_size);
    constexpr uint8_t kSentinel = 0xA5;
    // direct[(b * 16 + pixel) * channels + c]: the partial accumulators M was built for.
    std::vector<int64_t> direct(blocks() * 16 * channels());
    const int64_t inverse = InverseOf9();

    for (size_t iteration = 0; iteration < iterations(); iteration++) {
      const qwino_test::RequantizationCase q = IterationCase(rng, channels());
      DrawBias(rng, bias, channels());
      FillM(rng, q, bias, m, direct);
      q.FillChannelParams(channel_params.data());
      const qwino_qu8_requantization_params microparams = q.Microparams(init, bias);
      std::fill(output.data(), output.data() + output_size, kSentinel);
      std::fill(output_twin.data(), output_twin.data() + output_size, kSentinel);

      transform(channels(), blocks(), m.data(), m_position_stride(), m_block_stride(), bias,
                output.data(), output_row_stride(), output_pixel_stride(), rows(), columns(),
                &microparams);

      std::vector<bool> written(output_size, false);
      for (size_t c = 0; c < channels(); c++) {
        int64_t accumulator[16];
        std::fill(accumulator, accumulator + 16, int64_t{bias[c]});
        for (size_t b = 0; b < blocks(); b++) {
          int64_t y[16];
          Reference(m, b, c, y);
          for (size_t pixel = 0; pixel < 16; pixel++) {
            const int64_t partial = Recover(y[pixel], inverse);
            if (m_values() != MValues::kFull) {
              ASSERT_EQ(direct[(b * 16 + pixel) * channels() + c], partial)
                  << "recovered Ã^T M Ã / 576 != direct partial (tester algebra): block " << b
                  << ", pixel " << pixel << ", channel " << c;
            }
            accumulator[pixel] = Wrap(accumulator[pixel] + partial);
          }
        }
        for (size_t oy = 0; oy < rows(); oy++) {
          for (size_t ox = 0; ox < columns(); ox++) {
            const int32_t acc = static_cast<int32_t>(accumulator[oy * 4 + ox]);
            const size_t index = oy * output_row_stride() + ox * output_pixel_stride() + c;
            written[index] = true;
            ASSERT_EQ(int{q.Reference(acc, c)}, int{output[index]})
                << "pixel (" << oy << ", " << ox << "), channel " << c << " of " << channels()
                << ", blocks " << blocks() << ": accumulator " << acc << ", bias " << bias[c]
                << "; " << q.Describe(c) << ", rows " << rows() << ", columns " << columns()
                << ", iteration " << iteration;
          }
        }
      }
      for (size_t index = 0; index < output_size; index++) {
        if (!written[index]) {
          ASSERT_EQ(int{kSentinel}, int{output[index]})
              << "wrote outside the block at byte " << index;
        }
      }
      if (twin != nullptr) {
        const qwino_qu8_requantization_params twin_microparams = q.Microparams(twin_init, bias);
        twin(channels(), blocks(), m.data(), m_position_stride(), m_block_stride(), bias,
             output_twin.data(), output_row_stride(), output_pixel_stride(), rows(), columns(),
             &twin_microparams);
        ASSERT_EQ(0, std::memcmp(output.data(), output_twin.data(), output_size))
            << "differs from the scalar twin: channels " << channels() << ", blocks " << blocks()
            << ", rows " << rows() << ", columns " << columns();
      }
    }
  }

 private:
  static constexpr int64_t kLimit = int64_t{1} << 25;  // |partial| < 2^25 is exact

  // 9^-1 modulo 2^26 by Newton's iteration x <- x (2 - 9 x), which doubles the correct bits
  // (9 * 9 = 81 = 1 mod 16 to start with).
  static int64_t InverseOf9() {
    const uint64_t mask = (uint64_t{1} << 26) - 1;
    uint64_t x = 9;
    for (int i = 0; i < 5; i++) {
      x = (x * (2 - 9 * x)) & mask;
    }
    EXPECT_EQ(1u, (9 * x) & mask);
    return static_cast<int64_t>(x);
  }

  // The partial accumulator from Y (an int32 value): the r in [-2^25, 2^25) with
  // 9 r = floor((Y mod 2^32) / 64) modulo 2^26.
  static int64_t Recover(int64_t y, int64_t inverse) {
    const uint64_t y_mod = static_cast<uint32_t>(y);
    const uint64_t quotient = y_mod / 64;
    const uint64_t mask = (uint64_t{1} << 26) - 1;
    int64_t r = static_cast<int64_t>((quotient * static_cast<uint64_t>(inverse)) & mask);
    if (r >= kLimit) r -= 2 * kLimit;
    EXPECT_EQ(quotient, static_cast<uint64_t>(9 * r) & mask);
    return r;
  }

  // Y = Ã^T M_b Ã for channel c as int32 values (the sums are reduced modulo 2^32).
  void Reference(const qwino_test::GuardedBuffer<int32_t>& m, size_t b, size_t c,
                 int64_t y[16]) const {
    static const int64_t kAT[4][6] = {
        {6, 4, 4, 1, 1, 0}, {0, 4, -4, 2, -2, 0}, {0, 4, 4, 4, 4, 0}, {0, 4, -4, 8, -8, 24}};
    for (size_t i = 0; i < 4; i++) {
      for (size_t j = 0; j < 4; j++) {
        int64_t sum = 0;
        for (size_t r = 0; r < 6; r++) {
          for (size_t s = 0; s < 6; s++) {
            sum += kAT[i][r] *
                   int64_t{m[b * m_block_stride() + (r * 6 + s) * m_position_stride() + c]} *
                   kAT[j][s];
          }
        }
        y[i * 4 + j] = Wrap(sum);
      }
    }
  }

  static int64_t DrawPartial(std::mt19937& rng) {
    static const int64_t kEnds[] = {kLimit - 1, -kLimit, kLimit - 2, -kLimit + 1,    0,
                                    -1,         1,       kLimit / 2, -kLimit / 2 - 1};
    switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
      case 0:
        return kEnds[std::uniform_int_distribution<int>(0, 8)(rng)];
      case 1:  // near the ends
        return (rng() & 1) ? kLimit - 1 - std::uniform_int_distribution<int64_t>(0, 4096)(rng)
                           : -kLimit + std::uniform_int_distribution<int64_t>(0, 4096)(rng);
      default:
        return std::uniform_int_distribution<int64_t>(-kLimit, kLimit - 1)(rng);
    }
  }

  // Genuine products for one block: M[p][oc] (dense, 36 x channels) and the direct partials.
  // kGenuine: a few input channels of random data/kernels of a random magnitude;
  // kGenuineLarge: 57 input channels of +-255, kernels aligned on one pixel per output channel.
  void GenuineBlock(std::mt19937& rng, bool large, std::vector<int64_t>& sums,
                    std::vector<int64_t>& partials) const {
    std::fill(sums.begin(), sums.end(), 0);
    std::fill(partials.begin(), partials.end(), 0);
    static const int kMagnitudes[] = {255, 255, 16, 4};
    const int magnitude = large ? 255 : kMagnitudes[std::uniform_int_distribution<int>(0, 3)(rng)];
    const size_t input_channels = large ? 57 : std::uniform_int_distribution<size_t>(1, 8)(rng);
    std::uniform_int_distribution<int> value(-magnitude, magnitude);
    std::vector<size_t> target(channels());
    std::vector<int64_t> sign(channels());
    for (size_t oc = 0; oc < channels(); oc++) {
      target[oc] = std::uniform_int_distribution<size_t>(0, 15)(rng);
      sign[oc] = (rng() & 1) ? 1 : -1;
    }
    for (size_t ic = 0; ic < input_channels; ic++) {
      int64_t d[6][6];
      for (auto& row : d) {
        for (auto& e : row) e = large ? ((rng() & 1) ? 255 : -255) : value(rng);
      }
      int64_t v[6][6];
      InputTransform(d, v);
      for (size_t oc = 0; oc < channels(); oc++) {
        int64_t g[3][3];
        for (size_t ky = 0; ky < 3; ky++) {
          for (size_t kx = 0; kx < 3; kx++) {
            if (large) {
              const size_t ty = target[oc] / 4, tx = target[oc] % 4;
              g[ky][kx] = sign[oc] * (d[ty + ky][tx + kx] > 0 ? 255 : -255);
            } else {
              g[ky][kx] = value(rng);
            }
          }
        }
        AddProducts(g, v, d, oc, sums, partials);
      }
    }
  }

  // A genuine M for chosen partials of one block: for every output channel, a one-input-channel
  // convolution with a delta kernel at a random tap (ky, kx) (scaled by +-1), whose direct
  // output is the 4x4 window of d at (ky, kx); d carries the chosen values there and random ones
  // elsewhere (any integers: the Winograd identity holds over the integers).
  void DirectBlock(std::mt19937& rng, std::vector<int64_t>& sums,
                   const std::vector<int64_t>& wanted, std::vector<int64_t>& partials) const {
    std::fill(sums.begin(), sums.end(), 0);
    std::fill(partials.begin(), partials.end(), 0);
    for (size_t oc = 0; oc < channels(); oc++) {
      const size_t ky = rng() % 3, kx = rng() % 3;
      const int64_t sign = (rng() & 1) ? 1 : -1;
      int64_t g[3][3] = {};
      g[ky][kx] = sign;
      int64_t d[6][6];
      for (auto& row : d) {
        for (auto& e : row) e = std::uniform_int_distribution<int64_t>(-(1 << 20), 1 << 20)(rng);
      }
      for (size_t pixel = 0; pixel < 16; pixel++) {
        d[pixel / 4 + ky][pixel % 4 + kx] = sign * wanted[pixel * channels() + oc];
      }
      int64_t v[6][6];
      InputTransform(d, v);
      AddProducts(g, v, d, oc, sums, partials);
    }
  }

  static void InputTransform(const int64_t d[6][6], int64_t v[6][6]) {
    static const int64_t kBT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                                      {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                                      {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
    int64_t t[6][6];
    for (size_t i = 0; i < 6; i++) {
      for (size_t j = 0; j < 6; j++) {
        t[i][j] = 0;
        for (size_t l = 0; l < 6; l++) t[i][j] += kBT[i][l] * d[l][j];
      }
    }
    for (size_t i = 0; i < 6; i++) {
      for (size_t j = 0; j < 6; j++) {
        v[i][j] = 0;
        for (size_t l = 0; l < 6; l++) v[i][j] += t[i][l] * kBT[j][l];
      }
    }
  }

  // sums[p * channels + oc] += U_p V_p with U = G'' g G''^T; partials += direct correlation.
  void AddProducts(const int64_t g[3][3], const int64_t v[6][6], const int64_t d[6][6], size_t oc,
                   std::vector<int64_t>& sums, std::vector<int64_t>& partials) const {
    static const int64_t kG[6][3] = {{1, 0, 0}, {-1, -1, -1}, {-1, 1, -1},
                                     {1, 2, 4}, {1, -2, 4},   {0, 0, 1}};
    int64_t gt[6][3], u[6][6];
    for (size_t i = 0; i < 6; i++) {
      for (size_t j = 0; j < 3; j++) {
        gt[i][j] = 0;
        for (size_t l = 0; l < 3; l++) gt[i][j] += kG[i][l] * g[l][j];
      }
    }
    for (size_t i = 0; i < 6; i++) {
      for (size_t j = 0; j < 6; j++) {
        u[i][j] = 0;
        for (size_t l = 0; l < 3; l++) u[i][j] += gt[i][l] * kG[j][l];
      }
    }
    for (size_t p = 0; p < 36; p++) {
      // Wrapped like the GEMM (int64 would overflow only with absurd d; keep it modular).
      sums[p * channels() + oc] = static_cast<int64_t>(
          static_cast<uint64_t>(sums[p * channels() + oc]) +
          static_cast<uint64_t>(u[p / 6][p % 6]) * static_cast<uint64_t>(v[p / 6][p % 6]));
    }
    for (size_t oy = 0; oy < 4; oy++) {
      for (size_t ox = 0; ox < 4; ox++) {
        int64_t sum = 0;
        for (size_t ky = 0; ky < 3; ky++) {
          for (size_t kx = 0; kx < 3; kx++) sum += d[oy + ky][ox + kx] * g[ky][kx];
        }
        partials[(oy * 4 + ox) * channels() + oc] += sum;
      }
    }
  }

  void FillM(std::mt19937& rng, const qwino_test::RequantizationCase& q, int32_t* bias,
             qwino_test::GuardedBuffer<int32_t>& m, std::vector<int64_t>& direct) const {
    // Slack between positions and blocks gets garbage: the kernel must not read it.
    for (size_t i = 0; i < m.size(); i++) {
      m[i] = static_cast<int32_t>(rng());
    }
    if (m_values() == MValues::kFull) {
      return;
    }
    std::vector<int64_t> sums(36 * channels()), partials(16 * channels());
    std::vector<std::vector<int64_t>> wanted;
    if (m_values() == MValues::kDirect) {
      for (size_t b = 0; b < blocks(); b++) {
        wanted.emplace_back(16 * channels());
        for (auto& w : wanted.back()) w = DrawPartial(rng);
      }
    } else if (m_values() == MValues::kTies) {
      // Partials whose sum with the bias is a tie accumulator, one pixel per channel exactly,
      // the others when reachable: the bias is chosen so that pixel 0 is.
      for (size_t b = 0; b < blocks(); b++) {
        wanted.emplace_back(16 * channels());
        for (auto& w : wanted.back())
          w = std::uniform_int_distribution<int64_t>(-kLimit, kLimit - 1)(rng);
      }
      for (size_t c = 0; c < channels(); c++) {
        int64_t others[16] = {};
        for (size_t b = 1; b < blocks(); b++) {
          for (size_t pixel = 0; pixel < 16; pixel++)
            others[pixel] += wanted[b][pixel * channels() + c];
        }
        const int64_t first = std::uniform_int_distribution<int64_t>(-kLimit, kLimit - 1)(rng);
        bias[c] = Wrap(DrawTieAccumulator(rng, q, c) - first - others[0]);
        for (size_t pixel = 0; pixel < 16; pixel++) {
          // The block-0 partial that puts this pixel on a tie, modulo 2^32, if it is in range.
          const int64_t need =
              Wrap(int64_t{DrawTieAccumulator(rng, q, c)} - int64_t{bias[c]} - others[pixel]);
          if (pixel == 0) {
            wanted[0][c] = first;
          } else if (need >= -kLimit && need < kLimit) {
            wanted[0][pixel * channels() + c] = need;
          }
        }
      }
    }
    for (size_t b = 0; b < blocks(); b++) {
      switch (m_values()) {
        case MValues::kGenuine:
        case MValues::kGenuineLarge:
          GenuineBlock(rng, m_values() == MValues::kGenuineLarge, sums, partials);
          break;
        default:
          DirectBlock(rng, sums, wanted[b], partials);
          break;
      }
      for (size_t p = 0; p < 36; p++) {
        for (size_t c = 0; c < channels(); c++) {
          m[b * m_block_stride() + p * m_position_stride() + c] = Wrap(sums[p * channels() + c]);
        }
      }
      for (size_t i = 0; i < 16 * channels(); i++) {
        EXPECT_LT(partials[i] < 0 ? -partials[i] - 1 : partials[i], kLimit) << "tester bug";
        direct[b * 16 * channels() + i] = partials[i];
      }
    }
  }

  size_t blocks_ = 1;
  size_t m_block_stride_ = 0;
};
