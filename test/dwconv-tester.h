// DwconvTester: checks one depthwise micro-kernel (qwino_dwconv_ukernel_fn: taps x channels of
// 8-bit multiplies, bias, fused requantization) for one shape.
//
// Why it looks like this: the oracle is an independent int64 loop over the taps on the A values
// as the contract defines them ((int8_t) (byte ^ a_sign) through each pixel's pointer for the
// tap), reduced modulo 2^32 with the bias, then requantized by the test suite's own oracle
// (requantization-oracle.h, through requantizing-tester.h, which also draws the per-channel
// parameters); it shares no code with the scalar kernel, which is tested too, and SIMD kernels
// are also compared with their scalar twin over the whole output. The weights are kept as a plain
// [tap][channel] array and packed here from the layouts the contract states, for the kernel and
// for its twin (channel blocks differ). Every input pixel the pointers name is its own buffer of
// exactly `channels` bytes ending right before a PROT_NONE page, and so are the zero row, the
// packed weights, the per-channel arrays and the output, so a kernel that reads or writes one
// byte past `channels` crashes (also under qemu); pointers are shared between neighbouring pixels
// as the depthwise path's indirection shares them (input_pixel_step < taps), taps may point at
// the zero row, and the slack between output pixels holds a sentinel that must survive.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "qwino/microparams.h"
#include "qwino/ukernels.h"

#include "guarded-buffer.h"
#include "requantization-oracle.h"
#include "requantizing-tester.h"

class DwconvTester : public qwino_test::RequantizingTester<DwconvTester> {
 public:
  // kFull: any input byte, weights anywhere in the layout's range; kExtreme: input bytes
  // 0x00/0x7F/0x80/0xFF and weights at the ends of the range, the products whose sums a 16-bit
  // lane must hold; kTies: kFull, with each channel's bias chosen so that pixel 0's accumulator
  // lands on (or next to) a rounding tie of its requantization.
  enum class Values { kFull, kExtreme, kTies };

  DwconvTester& channels(size_t v) {
    channels_ = v;
    return *this;
  }
  DwconvTester& pixels(size_t v) {
    pixels_ = v;
    return *this;
  }
  DwconvTester& taps(size_t v) {
    taps_ = v;
    return *this;
  }
  // Pointers between neighbouring pixels; 0 means taps (no sharing).
  DwconvTester& input_pixel_step(size_t v) {
    input_pixel_step_ = v;
    return *this;
  }
  // Bytes before the channels at every pointer (the call's first channel): garbage the kernel
  // must skip.
  DwconvTester& input_offset(size_t v) {
    input_offset_ = v;
    return *this;
  }
  DwconvTester& a_sign(uint8_t v) {
    a_sign_ = v;
    return *this;
  }
  // Each pointer is the zero row with probability 1 / zero_row_odds (0: never).
  DwconvTester& zero_row_odds(uint32_t v) {
    zero_row_odds_ = v;
    return *this;
  }
  // Bytes between output pixels; 0 means channels.
  DwconvTester& output_stride(size_t v) {
    output_stride_ = v;
    return *this;
  }
  DwconvTester& values(Values v) {
    values_ = v;
    return *this;
  }
  DwconvTester& iterations(size_t v) {
    iterations_ = v;
    return *this;
  }

  // CR, layout: the kernel's list entry's; twin: the scalar twin of that layout (block 8) or
  // nullptr; init, twin_init: the entries' microparams init functions.
  void Test(qwino_dwconv_ukernel_fn dwconv, size_t CR, qwino_dwconv_layout layout,
            qwino_init_qu8_requantization_params_fn init, qwino_dwconv_ukernel_fn twin,
            qwino_init_qu8_requantization_params_fn twin_init) const {
    ASSERT_GE(channels_, 1u);
    ASSERT_GE(pixels_, 1u);
    ASSERT_GE(taps_, 1u);
    const size_t step = input_pixel_step_ == 0 ? taps_ : input_pixel_step_;
    const size_t output_stride = output_stride_ == 0 ? channels_ : output_stride_;
    ASSERT_GE(output_stride, channels_);
    std::mt19937 rng(0x2545F491u ^ static_cast<uint32_t>(channels_ * 7919 + pixels_ * 104729 +
                                                         taps_ * 31 + step * 3 + mode() * 5));

    const size_t pointer_count = (pixels_ - 1) * step + taps_;
    std::vector<qwino_test::GuardedBuffer<uint8_t>> rows;
    for (size_t i = 0; i < pointer_count; i++) rows.emplace_back(input_offset_ + channels_);
    qwino_test::GuardedBuffer<uint8_t> zero(input_offset_ + channels_);
    std::vector<const uint8_t*> input(pointer_count);
    std::vector<int32_t> b(taps_ * channels_);  // [tap][channel]
    qwino_test::GuardedBuffer<int32_t> channel_params(QWINO_MAX_CHANNEL_ARRAYS * channels_);
    const size_t output_size = (pixels_ - 1) * output_stride + channels_;
    qwino_test::GuardedBuffer<uint8_t> output(output_size), output_twin(output_size);
    constexpr uint8_t kSentinel = 0xA5;

    for (size_t iteration = 0; iteration < iterations_; iteration++) {
      for (auto& row : rows) {
        for (size_t i = 0; i < row.size(); i++) row[i] = Byte(rng);
      }
      for (size_t i = 0; i < zero.size(); i++) zero[i] = Byte(rng);
      for (size_t i = 0; i < pointer_count; i++) {
        const bool padding = zero_row_odds_ != 0 && rng() % zero_row_odds_ == 0;
        input[i] = padding ? zero.data() : rows[i].data();
      }
      const int32_t limit = layout == qwino_dwconv_layout_int16_tap_pairs ? 255 : 127;
      for (auto& value : b) value = Weight(rng, limit);

      const qwino_test::RequantizationCase q = IterationCase(rng, channels_);
      DrawBias(rng, channel_params.data(), channels_);
      std::vector<int64_t> sums(pixels_ * channels_);
      for (size_t p = 0; p < pixels_; p++) {
        for (size_t c = 0; c < channels_; c++) {
          int64_t sum = 0;
          for (size_t t = 0; t < taps_; t++) {
            sum += int64_t{static_cast<int8_t>(input[p * step + t][input_offset_ + c] ^ a_sign_)} *
                   b[t * channels_ + c];
          }
          sums[p * channels_ + c] = sum;
        }
      }
      if (values_ == Values::kTies) {
        for (size_t c = 0; c < channels_; c++) {
          channel_params[c] = Wrap(int64_t{DrawTieAccumulator(rng, q, c)} - sums[c]);
        }
      }
      q.FillChannelParams(channel_params.data());
      const qwino_qu8_requantization_params microparams =
          q.Microparams(init, channel_params.data());

      const qwino_test::GuardedBuffer<char> packed = Pack(b, CR, layout);
      std::fill(output.data(), output.data() + output_size, kSentinel);
      dwconv(channels_, pixels_, taps_, input.data(), step, input_offset_, a_sign_, packed.data(),
             channel_params.data(), output.data(), output_stride, &microparams);

      for (size_t p = 0; p < pixels_; p++) {
        for (size_t c = 0; c < channels_; c++) {
          const int32_t accumulator = Wrap(sums[p * channels_ + c] + channel_params[c]);
          ASSERT_EQ(int{q.Reference(accumulator, c)}, int{output[p * output_stride + c]})
              << "pixel " << p << " of " << pixels_ << ", channel " << c << " of " << channels_
              << ", taps " << taps_ << ", step " << step << ", offset " << input_offset_
              << ", a_sign " << int{a_sign_} << ", accumulator " << accumulator << "; "
              << q.Describe(c);
        }
        for (size_t i = channels_; i < output_stride && p + 1 < pixels_; i++) {
          ASSERT_EQ(kSentinel, output[p * output_stride + i])
              << "wrote slack byte " << i << " after pixel " << p;
        }
      }

      if (twin != nullptr) {
        const qwino_test::GuardedBuffer<char> twin_packed = Pack(b, 8, layout);
        const qwino_qu8_requantization_params twin_microparams =
            q.Microparams(twin_init, channel_params.data());
        std::fill(output_twin.data(), output_twin.data() + output_size, kSentinel);
        twin(channels_, pixels_, taps_, input.data(), step, input_offset_, a_sign_,
             twin_packed.data(), channel_params.data(), output_twin.data(), output_stride,
             &twin_microparams);
        ASSERT_EQ(0, std::memcmp(output.data(), output_twin.data(), output_size))
            << "differs from the scalar twin: " << channels_ << " channels, " << pixels_
            << " pixels, " << taps_ << " taps";
      }
    }
  }

 private:
  uint8_t Byte(std::mt19937& rng) const {
    static const uint8_t kExtremes[] = {0x00, 0x7F, 0x80, 0xFF};
    return values_ == Values::kExtreme ? kExtremes[rng() % 4] : static_cast<uint8_t>(rng());
  }
  int32_t Weight(std::mt19937& rng, int32_t limit) const {
    if (values_ == Values::kExtreme) return (rng() & 1) ? limit : -limit;
    return std::uniform_int_distribution<int32_t>(-limit, limit)(rng);
  }

  // The contract's layouts (qwino/ukernel-types.h), blocks of CR channels, zeros past the
  // channels, past an odd last tap and in each column's 4th byte.
  qwino_test::GuardedBuffer<char> Pack(const std::vector<int32_t>& b, size_t CR,
                                       qwino_dwconv_layout layout) const {
    const size_t blocks = (channels_ + CR - 1) / CR;
    size_t block_bytes = (taps_ + 1) / 2 * CR * 2 * sizeof(int16_t);
    if (layout == qwino_dwconv_layout_int8_taps) {
      block_bytes = taps_ * CR;
    } else if (layout == qwino_dwconv_layout_int8_col3) {
      block_bytes = taps_ / 3 * CR * 4;
    } else if (layout == qwino_dwconv_layout_int8_col5) {
      block_bytes = taps_ / 5 * 2 * CR * 4;
    } else if (layout == qwino_dwconv_layout_int8_col3_pairs ||
               layout == qwino_dwconv_layout_int8_col5_pairs) {
      block_bytes = taps_ * CR;
    }
    qwino_test::GuardedBuffer<char> packed(blocks * block_bytes);
    std::fill(packed.data(), packed.data() + blocks * block_bytes, char{0});
    for (size_t c = 0; c < channels_; c++) {
      char* block = packed.data() + c / CR * block_bytes;
      for (size_t t = 0; t < taps_; t++) {
        const int32_t value = b[t * channels_ + c];
        if (layout == qwino_dwconv_layout_int8_taps) {
          const int8_t v = static_cast<int8_t>(value);
          std::memcpy(block + t * CR + c % CR, &v, 1);
        } else if (layout == qwino_dwconv_layout_int8_col3) {
          const int8_t v = static_cast<int8_t>(value);
          std::memcpy(block + ((t / 3) * CR + c % CR) * 4 + t % 3, &v, 1);
        } else if (layout == qwino_dwconv_layout_int8_col5) {
          const int8_t v = static_cast<int8_t>(value);
          std::memcpy(block + (((t / 5) * 2 + t % 5 / 4) * CR + c % CR) * 4 + t % 5 % 4, &v, 1);
        } else if (layout == qwino_dwconv_layout_int8_col3_pairs ||
                   layout == qwino_dwconv_layout_int8_col5_pairs) {
          // Row pairs (0-1, 2-3) of each column as byte pairs, then the last row of column
          // pairs, then a lone last row of an odd last column.
          const int8_t v = static_cast<int8_t>(value);
          const size_t rows = layout == qwino_dwconv_layout_int8_col3_pairs ? 3 : 5;
          const size_t columns = taps_ / rows, kx = t / rows, ky = t % rows, lane = c % CR;
          const size_t pair_bytes = 2 * CR, last_row = columns * (rows / 2) * pair_bytes;
          size_t at = (kx * (rows / 2) + ky / 2) * pair_bytes + lane * 2 + ky % 2;
          if (ky == rows - 1) {
            at = columns % 2 == 1 && kx + 1 == columns
                     ? last_row + (columns - 1) / 2 * pair_bytes + lane
                     : last_row + kx / 2 * pair_bytes + lane * 2 + kx % 2;
          }
          std::memcpy(block + at, &v, 1);
        } else {
          const int16_t v = static_cast<int16_t>(value);
          std::memcpy(block + (((t / 2) * CR + c % CR) * 2 + t % 2) * sizeof(int16_t), &v, 2);
        }
      }
    }
    return packed;
  }

  size_t channels_ = 16, pixels_ = 1, taps_ = 9, input_pixel_step_ = 0, output_stride_ = 0;
  size_t input_offset_ = 0;
  uint8_t a_sign_ = 0;
  uint32_t zero_row_odds_ = 0;
  Values values_ = Values::kFull;
  size_t iterations_ = 3;
};
