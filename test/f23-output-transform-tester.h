// F23OutputTransformTester: checks one Winograd F(2x2,3x3) output transform + requantization
// micro-kernel.
//
// Why it looks like this: requantization bugs hide in rare corners (rounding ties, saturation,
// wrap-around), so the tester owns an independent definition of everything the kernel computes:
// Y = A^T M A as explicit int64 matrix products reduced modulo 2^32, arithmetic >> 2, wrapping
// bias add, and TFLite's requantization from the test suite's own oracle
// (requantization-oracle.h, not the formulas of qwino/requantization.h; the parameter setters
// and the drawing of parameters, biases and tie accumulators come from requantizing-tester.h,
// shared with the other requantizing kernels; the geometry setters from
// output-transform-tester.h, shared with F43OutputTransformTester). M comes in three flavours:
// genuine Winograd products of a random tile and 3x3 kernels (the tester checks Y == 4 x the
// direct convolution, i.e. the algebra of doc/DESIGN.md section 2), arbitrary int32 (the kernel is
// defined on all of them), and values steered so that the accumulators land on rounding ties of
// the chosen parameters.
// M, bias and output end right before an inaccessible page (over-reads/over-writes crash, also
// under qemu), and output bytes outside the rows x columns x channels block must keep a
// sentinel. SIMD kernels are also compared with their scalar twin over the whole output buffer.
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

// kGenuine: M = sum over input channels of U o V for a random tile and random 3x3 kernels.
// kFull: every M element uniform over int32. kTies: accumulators on rounding ties.
enum class F23MValues { kGenuine, kFull, kTies };

class F23OutputTransformTester
    : public qwino_test::OutputTransformTester<F23OutputTransformTester, 2, F23MValues> {
 public:
  using MValues = F23MValues;

  // twin: the scalar twin to compare with (nullptr: none); init, twin_init: the kernels'
  // microparams init functions (their list entries').
  void Test(qwino_f23_output_transform_ukernel_fn transform,
            qwino_f23_output_transform_ukernel_fn twin,
            qwino_init_qu8_requantization_params_fn init,
            qwino_init_qu8_requantization_params_fn twin_init) const {
    ASSERT_GE(channels(), 1u);
    ASSERT_TRUE(rows() == 1 || rows() == 2);
    ASSERT_TRUE(columns() == 1 || columns() == 2);
    ASSERT_GE(m_position_stride(), channels());
    ASSERT_GE(output_pixel_stride(), channels());
    if (rows() > 1) {
      ASSERT_GE(output_row_stride(), (columns() - 1) * output_pixel_stride() + channels());
    }

    std::mt19937 rng(seed() ^
                     static_cast<uint32_t>(channels() * 2654435761u + rows() * 31 + columns() * 17 +
                                           right_shift() * 131 + mode() * 7));
    qwino_test::GuardedBuffer<int32_t> m(15 * m_position_stride() + channels());
    // The bias, then the mode's per-channel arrays (qwino/microparams.h).
    qwino_test::GuardedBuffer<int32_t> channel_params(QWINO_MAX_CHANNEL_ARRAYS * channels());
    int32_t* bias = channel_params.data();
    const size_t output_size =
        (rows() - 1) * output_row_stride() + (columns() - 1) * output_pixel_stride() + channels();
    qwino_test::GuardedBuffer<uint8_t> output(output_size), output_twin(output_size);
    constexpr uint8_t kSentinel = 0xA5;
    std::vector<int64_t> direct(4 * channels());  // genuine M: the direct convolution

    for (size_t iteration = 0; iteration < iterations(); iteration++) {
      const qwino_test::RequantizationCase q = IterationCase(rng, channels());
      DrawBias(rng, bias, channels());
      FillM(rng, q, bias, m, direct);
      q.FillChannelParams(channel_params.data());
      const qwino_qu8_requantization_params microparams = q.Microparams(init, bias);
      std::fill(output.data(), output.data() + output_size, kSentinel);
      std::fill(output_twin.data(), output_twin.data() + output_size, kSentinel);

      transform(channels(), m.data(), m_position_stride(), bias, output.data(), output_row_stride(),
                output_pixel_stride(), rows(), columns(), &microparams);

      std::vector<bool> written(output_size, false);
      for (size_t c = 0; c < channels(); c++) {
        int64_t y[2][2];
        Reference(m, c, y);
        for (size_t oy = 0; oy < rows(); oy++) {
          for (size_t ox = 0; ox < columns(); ox++) {
            const int64_t quarter = y[oy][ox] >> 2;  // y holds an int32 value: arithmetic shift
            if (m_values() == MValues::kGenuine) {
              ASSERT_EQ(direct[(oy * 2 + ox) * channels() + c], quarter)
                  << "A^T M A != 4 x direct convolution (tester algebra)";
            }
            const int32_t accumulator = Wrap(quarter + bias[c]);
            const size_t index = oy * output_row_stride() + ox * output_pixel_stride() + c;
            written[index] = true;
            ASSERT_EQ(int{q.Reference(accumulator, c)}, int{output[index]})
                << "pixel (" << oy << ", " << ox << "), channel " << c << " of " << channels()
                << ": accumulator " << accumulator << ", bias " << bias[c] << "; " << q.Describe(c)
                << ", rows " << rows() << ", columns " << columns() << ", iteration " << iteration;
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
        twin(channels(), m.data(), m_position_stride(), bias, output_twin.data(),
             output_row_stride(), output_pixel_stride(), rows(), columns(), &twin_microparams);
        ASSERT_EQ(0, std::memcmp(output.data(), output_twin.data(), output_size))
            << "differs from the scalar twin: channels " << channels() << ", rows " << rows()
            << ", columns " << columns();
      }
    }
  }

 private:
  // Y = A^T M A for channel c as int32 values (the sums are reduced modulo 2^32).
  void Reference(const qwino_test::GuardedBuffer<int32_t>& m, size_t c, int64_t y[2][2]) const {
    static const int64_t kAT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
    for (size_t i = 0; i < 2; i++) {
      for (size_t j = 0; j < 2; j++) {
        int64_t sum = 0;
        for (size_t r = 0; r < 4; r++) {
          for (size_t s = 0; s < 4; s++) {
            sum += kAT[i][r] * int64_t{m[(r * 4 + s) * m_position_stride() + c]} * kAT[j][s];
          }
        }
        y[i][j] = Wrap(sum);
      }
    }
  }

  void FillM(std::mt19937& rng, const qwino_test::RequantizationCase& q, int32_t* bias,
             qwino_test::GuardedBuffer<int32_t>& m, std::vector<int64_t>& direct) const {
    const size_t stride = m_position_stride();
    // Slack between positions gets garbage: the kernel must not read it.
    for (size_t i = 0; i < m.size(); i++) {
      m[i] = static_cast<int32_t>(rng());
    }
    switch (m_values()) {
      case MValues::kFull:
        break;
      case MValues::kGenuine: {
        static const int64_t kG[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
        static const int64_t kBT[4][4] = {
            {1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
        const size_t input_channels = std::uniform_int_distribution<size_t>(1, 12)(rng);
        // Small magnitudes keep the requantized outputs away from the clamps, large ones
        // exercise the full int16 range of U and V.
        static const int kMagnitudes[] = {255, 255, 16, 4};
        const int magnitude = kMagnitudes[std::uniform_int_distribution<int>(0, 3)(rng)];
        std::uniform_int_distribution<int> value(-magnitude, magnitude);
        std::vector<int64_t> sums(16 * channels(), 0);
        std::fill(direct.begin(), direct.end(), 0);
        for (size_t ic = 0; ic < input_channels; ic++) {
          int64_t d[4][4], t[4][4], v[4][4];
          for (auto& row : d)
            for (auto& e : row) e = value(rng);
          for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++) {
              t[i][j] = 0;
              for (size_t l = 0; l < 4; l++) t[i][j] += kBT[i][l] * d[l][j];
            }
          for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++) {
              v[i][j] = 0;
              for (size_t l = 0; l < 4; l++) v[i][j] += t[i][l] * kBT[j][l];
            }
          for (size_t oc = 0; oc < channels(); oc++) {
            int64_t g[3][3], gt[4][3], u[4][4];
            for (auto& row : g)
              for (auto& e : row) e = value(rng);
            for (size_t i = 0; i < 4; i++)
              for (size_t j = 0; j < 3; j++) {
                gt[i][j] = 0;
                for (size_t l = 0; l < 3; l++) gt[i][j] += kG[i][l] * g[l][j];
              }
            for (size_t i = 0; i < 4; i++)
              for (size_t j = 0; j < 4; j++) {
                u[i][j] = 0;
                for (size_t l = 0; l < 3; l++) u[i][j] += gt[i][l] * kG[j][l];
              }
            for (size_t p = 0; p < 16; p++)
              sums[p * channels() + oc] += u[p / 4][p % 4] * v[p / 4][p % 4];
            for (size_t oy = 0; oy < 2; oy++)
              for (size_t ox = 0; ox < 2; ox++)
                for (size_t ky = 0; ky < 3; ky++)
                  for (size_t kx = 0; kx < 3; kx++)
                    direct[(oy * 2 + ox) * channels() + oc] += d[oy + ky][ox + kx] * g[ky][kx];
          }
        }
        for (size_t p = 0; p < 16; p++)
          for (size_t oc = 0; oc < channels(); oc++)
            m[p * stride + oc] = Wrap(sums[p * channels() + oc]);
        break;
      }
      case MValues::kTies: {
        // Y(0,0), Y(0,1), Y(1,0), Y(1,1) are the only outputs that M[0][0], M[0][3], M[3][0],
        // M[3][3] reach (with signs +, -, -, +), so each pixel can be steered on its own.
        for (size_t c = 0; c < channels(); c++) {
          int64_t target[4];
          for (auto& t : target) t = DrawTieAccumulator(rng, q, c);
          // Y >> 2 only spans [-2^29, 2^29): pick the bias so pixel (0,0) is reachable and let
          // the others be exact ties when they are reachable too.
          const int64_t quarter00 =
              std::uniform_int_distribution<int32_t>(-(1 << 29), (1 << 29) - 1)(rng);
          bias[c] = Wrap(target[0] - quarter00);
          static const size_t kCorner[4] = {0, 3, 12, 15};
          static const int64_t kSign[4] = {1, -1, -1, 1};
          for (size_t pixel = 0; pixel < 4; pixel++) {
            int64_t quarter = Wrap(target[pixel] - int64_t{bias[c]});
            if (quarter < -(int64_t{1} << 29) || quarter >= (int64_t{1} << 29)) {
              quarter = std::uniform_int_distribution<int32_t>(-(1 << 29), (1 << 29) - 1)(rng);
            }
            const int64_t want_y = quarter * 4 + std::uniform_int_distribution<int>(0, 3)(rng);
            int64_t y[2][2];
            Reference(m, c, y);
            const int64_t have_y = y[pixel / 2][pixel % 2];
            int32_t& corner = m[kCorner[pixel] * stride + c];
            corner = Wrap(int64_t{corner} + kSign[pixel] * (want_y - have_y));
          }
        }
        break;
      }
    }
  }
};
