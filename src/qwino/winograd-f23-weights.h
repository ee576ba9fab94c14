// Create-time work of the Winograd F(2x2,3x3) path: the exactness check and the kernel
// transform + packing for the GEMM micro-kernel.
#ifndef QWINO_WINOGRAD_F23_WEIGHTS_H_
#define QWINO_WINOGRAD_F23_WEIGHTS_H_

#include <cstddef>
#include <cstdint>

namespace qwino {

// The direct accumulator must stay below this in magnitude for Y = 4 * acc to be exact in int32
// (DESIGN.md section 2).
constexpr int64_t kF23AccumulatorLimit = INT64_C(1) << 29;

// Largest |acc| any input can produce for any output channel of these weights:
// max over oc of sum over taps |w - kernel_zero_point| * max(izp, 255 - izp).
// kernel: [groups * output_channels][3][3][input_channels].
int64_t f23_accumulator_bound(const uint8_t* kernel, size_t groups, size_t input_channels,
                              size_t output_channels, uint8_t input_zero_point,
                              uint8_t kernel_zero_point);

// Elements of one packed panel: round_up(input_channels, 4) x nr.
size_t f23_packed_panel_elements(size_t input_channels, size_t nr);

// Packs U = G' g G'^T (G' = 2G = [2 0 0; 1 1 1; 1 -1 1; 0 0 2], |U| <= 9 * 255) of one group as
// [16 positions][ceil(output_channels / nr) panels][round_up(input_channels, 4)][nr] int16,
// zero-filled past the channel counts. kernel: [output_channels][3][3][input_channels] of
// this group; packed must hold 16 * panels * f23_packed_panel_elements(...) elements.
void pack_f23_weights(const uint8_t* kernel, size_t input_channels, size_t output_channels,
                      uint8_t kernel_zero_point, size_t nr, int16_t* packed);

}  // namespace qwino

#endif  // QWINO_WINOGRAD_F23_WEIGHTS_H_
