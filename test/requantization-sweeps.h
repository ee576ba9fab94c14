// The requantization corners that every requantizing micro-kernel family (requantize, F(2x2,3x3)
// and F(4x4,3x3) output transforms) is swept through, as function templates over the tester
// (anything derived from qwino_test::RequantizingTester).
//
// Why it exists: the sweeps (right_shift 0..31, the multipliers at both ends of [2^30, 2^31)
// with every left_shift and right_shift on rounding ties, the output clamps, the multipliers
// outside the contract) are the same for the three families, so they are written once. The
// caller passes prototype testers that carry what is its own (channel counts, blocks, pixels,
// iterations, which values make ties or arbitrary accumulators); the sweep copies a prototype
// for every case, sets the requantization parameters of the case and runs Test(kernels...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace qwino_test {

// Every right_shift 0..31 for every channel count: accumulators on ties, arbitrary ones, and
// arbitrary ones with the largest multiplier, left_shift 1 and extreme biases.
template <class Tester, class... Kernels>
void SweepRightShifts(std::initializer_list<size_t> channel_counts, const Tester& ties,
                      const Tester& arbitrary, const Tester& arbitrary_extreme_bias,
                      const Kernels&... kernels) {
  for (uint32_t shift = 0; shift <= 31; shift++) {
    for (size_t channels : channel_counts) {
      Tester(ties).channels(channels).right_shift(shift).Test(kernels...);
      Tester(arbitrary).channels(channels).right_shift(shift).Test(kernels...);
      Tester(arbitrary_extreme_bias)
          .channels(channels)
          .right_shift(shift)
          .left_shift(1)
          .multiplier(INT32_MAX)
          .Test(kernels...);
    }
  }
}

// Rounding ties for multipliers at both ends of [2^30, 2^31) (and 2^30 + 1, ~2/3), every
// left_shift and right_shift: with the full clamp range and zero point 0 (full_range), and with
// zero point 128 (mid_zero_point).
template <class Tester, class... Kernels>
void SweepRoundingTies(const Tester& full_range, const Tester& mid_zero_point,
                       const Kernels&... kernels) {
  static const int32_t kMultipliers[] = {INT32_C(1) << 30, (INT32_C(1) << 30) + 1,
                                         INT32_C(0x55555556), INT32_C(0x7FFFFFFE), INT32_MAX};
  for (int32_t multiplier : kMultipliers) {
    for (uint32_t left_shift = 0; left_shift <= 1; left_shift++) {
      for (uint32_t shift = 0; shift <= 31; shift++) {
        Tester(full_range)
            .multiplier(multiplier)
            .left_shift(left_shift)
            .right_shift(shift)
            .output_zero_point(0)
            .output_min(0)
            .output_max(255)
            .Test(kernels...);
        Tester(mid_zero_point)
            .multiplier(multiplier)
            .left_shift(left_shift)
            .right_shift(shift)
            .output_zero_point(128)
            .Test(kernels...);
      }
    }
  }
}

// output_min x output_max over the ends and the middle of the byte range. min > max is outside
// the contract, but scalar and SIMD still have to agree.
template <class Tester, class... Kernels>
void SweepOutputClamps(const Tester& prototype, const Kernels&... kernels) {
  for (int min : {0, 1, 100, 127, 128, 200, 254, 255}) {
    for (int max : {0, 1, 100, 128, 200, 254, 255}) {
      Tester(prototype)
          .output_min(static_cast<uint8_t>(min))
          .output_max(static_cast<uint8_t>(max))
          .Test(kernels...);
    }
  }
}

// create() never makes these (0 aside: its multiplier for scales below 2^-32), but scalar and
// SIMD agree on every int32 multiplier except INT32_MIN (the kernels' contract,
// qwino/microparams.h: with it excluded SQRDMULH cannot saturate): negative, zero and tiny
// multipliers, every right_shift, with accumulators on ties (and left_shift alternating) and with
// arbitrary ones. In the fp32 mode these are negative, zero and subnormal-adjacent scales.
template <class Tester, class... Kernels>
void SweepMultipliersOutsideContract(const Tester& ties, const Tester& arbitrary,
                                     const Kernels&... kernels) {
  for (int32_t multiplier : {INT32_MIN + 1, -1, 0, 1, 12345}) {
    for (uint32_t shift = 0; shift <= 31; shift++) {
      Tester(ties).multiplier(multiplier).right_shift(shift).left_shift(shift & 1).Test(kernels...);
      Tester(arbitrary).multiplier(multiplier).right_shift(shift).Test(kernels...);
    }
  }
}

// Both output types and per-channel parameters (drawn per channel, and derived per channel from
// set ones on ties), each with accumulators on ties and arbitrary ones.
template <class Tester, class... Kernels>
void SweepTypesAndChannels(const Tester& ties, const Tester& arbitrary, const Kernels&... kernels) {
  for (bool int8_output : {false, true}) {
    for (bool per_channel : {false, true}) {
      Tester(ties)
          .int8_output(int8_output)
          .per_channel(per_channel)
          .random_params(true)
          .Test(kernels...);
      Tester(arbitrary)
          .int8_output(int8_output)
          .per_channel(per_channel)
          .random_params(true)
          .Test(kernels...);
      for (uint32_t shift : {0u, 1u, 7u, 30u}) {
        Tester(ties)
            .int8_output(int8_output)
            .per_channel(per_channel)
            .right_shift(shift)
            .output_zero_point(int8_output ? 128 : 100)
            .Test(kernels...);
      }
    }
  }
}

}  // namespace qwino_test
