// The bounds that decide whether the integer Winograd algorithms are exact for a given set of
// weights (doc/DESIGN.md section 2).
#include "qwino/winograd-weights.h"

#include <algorithm>
#include <cstdlib>

#include "qwino/common.h"

namespace qwino {
namespace {

// sum over the 9 taps of |w - kernel_zero_point| for one (output channel, input channel).
int64_t tap_weight_sum(const uint8_t* kernel, size_t input_channels, size_t oc, size_t ic,
                       uint8_t kernel_zero_point) {
  int64_t sum = 0;
  for (size_t tap = 0; tap < 9; tap++) {
    sum += std::abs(int32_t{kernel[(oc * 9 + tap) * input_channels + ic]} -
                    int32_t{kernel_zero_point});
  }
  return sum;
}

int64_t largest_input(uint8_t input_zero_point) {
  return std::max<int64_t>(input_zero_point, 255 - input_zero_point);
}

}  // namespace

int64_t winograd_accumulator_bound(const uint8_t* kernel, size_t input_channels,
                                   size_t output_channels, size_t first, size_t count,
                                   uint8_t input_zero_point, uint8_t kernel_zero_point) {
  int64_t bound = 0;
  for (size_t oc = 0; oc < output_channels; oc++) {
    int64_t sum = 0;
    for (size_t ic = first; ic < first + count; ic++) {
      sum += tap_weight_sum(kernel, input_channels, oc, ic, kernel_zero_point);
    }
    bound = std::max(bound, sum * largest_input(input_zero_point));
  }
  return bound;
}

std::vector<size_t> winograd_channel_blocks(const uint8_t* kernel, size_t groups,
                                            size_t input_channels, size_t output_channels,
                                            uint8_t input_zero_point, uint8_t kernel_zero_point,
                                            int64_t limit, size_t granularity) {
  // Per-channel sums, maxed over groups and output channels: blocks are shared by all of them.
  const size_t group_elements = output_channels * 9 * input_channels;
  std::vector<size_t> starts{0};
  std::vector<int64_t> running(groups * output_channels, 0);
  for (size_t c0 = 0; c0 < input_channels; c0 += granularity) {
    const size_t c1 = std::min(input_channels, c0 + granularity);
    bool fits = true;
    std::vector<int64_t> chunk(groups * output_channels, 0);
    for (size_t g = 0; g < groups; g++) {
      for (size_t oc = 0; oc < output_channels; oc++) {
        int64_t& sum = chunk[g * output_channels + oc];
        for (size_t ic = c0; ic < c1; ic++) {
          sum += tap_weight_sum(kernel + g * group_elements, input_channels, oc, ic,
                                kernel_zero_point);
        }
        if (sum * largest_input(input_zero_point) >= limit) {
          return {};  // one chunk alone can exceed the limit: no blocking makes it exact
        }
        fits = fits &&
               (running[g * output_channels + oc] + sum) * largest_input(input_zero_point) < limit;
      }
    }
    if (!fits) {
      starts.push_back(c0);
      std::fill(running.begin(), running.end(), 0);
    }
    for (size_t i = 0; i < running.size(); i++) running[i] += chunk[i];
  }
  return starts;
}

}  // namespace qwino
