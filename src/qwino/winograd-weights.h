// Create-time exactness checks of the Winograd algorithms (doc/DESIGN.md section 2); their
// weights are packed by qwino/packing.h.
#ifndef QWINO_WINOGRAD_WEIGHTS_H_
#define QWINO_WINOGRAD_WEIGHTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qwino {

// F(2x2,3x3): Y = 4 * acc fits int32 when |acc| < 2^29 (doc/DESIGN.md section 2).
constexpr int64_t kF23AccumulatorLimit = INT64_C(1) << 29;
// F(4x4,3x3): 576 * acc is recovered modulo 2^26 when |acc| < 2^25, per input-channel block.
constexpr int64_t kF43AccumulatorLimit = INT64_C(1) << 25;

// Largest |partial accumulator| any input can produce for any output channel, over the input
// channels [first, first + count): max over oc of
//   sum over those channels and the 9 taps of |w - kernel_zero_point| * max(izp, 255 - izp).
// kernel: [output_channels][3][3][input_channels] of one group.
int64_t winograd_accumulator_bound(const uint8_t* kernel, size_t input_channels,
                                   size_t output_channels, size_t first, size_t count,
                                   uint8_t input_zero_point, uint8_t kernel_zero_point);

// Splits the input channels of every group into blocks whose partial accumulators stay below
// `limit`, each block a multiple of `granularity` channels except the last. Returns the block
// starts (the first is 0), or an empty vector when even a single channel can exceed the limit.
// kernel: [groups][output_channels][3][3][input_channels].
std::vector<size_t> winograd_channel_blocks(const uint8_t* kernel, size_t groups,
                                            size_t input_channels, size_t output_channels,
                                            uint8_t input_zero_point, uint8_t kernel_zero_point,
                                            int64_t limit, size_t granularity);

}  // namespace qwino

#endif  // QWINO_WINOGRAD_WEIGHTS_H_
