// Kernel transform and packing for Winograd F(2x2,3x3), and the bound that decides whether the
// integer algorithm is exact for a given set of weights.
#include "qwino/winograd-f23-weights.h"

#include <algorithm>
#include <cstdlib>

#include "qwino/common.h"

namespace qwino {
namespace {

constexpr int32_t kG[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};

}  // namespace

int64_t f23_accumulator_bound(const uint8_t* kernel, size_t groups, size_t input_channels,
                              size_t output_channels, uint8_t input_zero_point,
                              uint8_t kernel_zero_point) {
  const int64_t largest_input = std::max<int64_t>(input_zero_point, 255 - input_zero_point);
  const size_t taps = 9 * input_channels;
  int64_t bound = 0;
  for (size_t oc = 0; oc < groups * output_channels; oc++) {
    int64_t weight_sum = 0;
    for (size_t i = 0; i < taps; i++) {
      weight_sum += std::abs(int32_t{kernel[oc * taps + i]} - int32_t{kernel_zero_point});
    }
    bound = std::max(bound, weight_sum * largest_input);
  }
  return bound;
}

size_t f23_packed_panel_elements(size_t input_channels, size_t nr) {
  return qwino_round_up(input_channels, 4) * nr;
}

void pack_f23_weights(const uint8_t* kernel, size_t input_channels, size_t output_channels,
                      uint8_t kernel_zero_point, size_t nr, int16_t* packed) {
  const size_t panels = qwino_divide_round_up(output_channels, nr);
  const size_t panel_elements = f23_packed_panel_elements(input_channels, nr);
  std::fill_n(packed, 16 * panels * panel_elements, int16_t{0});
  for (size_t oc = 0; oc < output_channels; oc++) {
    for (size_t ic = 0; ic < input_channels; ic++) {
      int32_t g[3][3];
      for (size_t ky = 0; ky < 3; ky++) {
        for (size_t kx = 0; kx < 3; kx++) {
          g[ky][kx] = int32_t{kernel[((oc * 3 + ky) * 3 + kx) * input_channels + ic]} -
                      int32_t{kernel_zero_point};
        }
      }
      int32_t gt[4][3];  // G' g
      for (size_t i = 0; i < 4; i++) {
        for (size_t j = 0; j < 3; j++) {
          gt[i][j] = kG[i][0] * g[0][j] + kG[i][1] * g[1][j] + kG[i][2] * g[2][j];
        }
      }
      for (size_t i = 0; i < 4; i++) {
        for (size_t j = 0; j < 4; j++) {  // (G' g) G'^T
          const int32_t u = gt[i][0] * kG[j][0] + gt[i][1] * kG[j][1] + gt[i][2] * kG[j][2];
          const size_t position = i * 4 + j;
          packed[(position * panels + oc / nr) * panel_elements + ic * nr + oc % nr] =
              static_cast<int16_t>(u);
        }
      }
    }
  }
}

}  // namespace qwino
