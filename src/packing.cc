// All weight packing (qwino/packing.h).
#include "qwino/packing.h"

#include <algorithm>
#include <cstdlib>

#include "qwino/common.h"

namespace qwino {
namespace {

constexpr int8_t kF23G[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
constexpr int8_t kF43G[6][3] = {{1, 0, 0}, {-1, -1, -1}, {-1, 1, -1},
                                {1, 2, 4}, {1, -2, 4},   {0, 0, 1}};

}  // namespace

const WinogradKernelTransform kF23KernelTransform = {4, kF23G};
const WinogradKernelTransform kF43KernelTransform = {6, kF43G};

size_t packed_panel_elements(size_t k, size_t nr) { return qwino_round_up(k, kGemmKPadding) * nr; }

void pack_direct_weights(const uint8_t* kernel, size_t k, size_t output_channels,
                         uint8_t kernel_zero_point, size_t nr, size_t kr, int16_t* packed) {
  const size_t panel_elements = packed_panel_elements(k, nr);
  const size_t panels = qwino_divide_round_up(output_channels, nr);
  std::fill_n(packed, panels * panel_elements, int16_t{0});
  for (size_t oc = 0; oc < output_channels; oc++) {
    int16_t* panel = packed + oc / nr * panel_elements;
    const size_t column = oc % nr;
    const uint8_t* row = kernel + oc * k;
    for (size_t kk = 0; kk < k; kk++) {
      panel[packed_b_index(kk, column, nr, kr)] =
          static_cast<int16_t>(int32_t{row[kk]} - int32_t{kernel_zero_point});
    }
  }
}

size_t packed_igemm_panel_bytes(size_t taps, size_t k, size_t nr, size_t kr) {
  return taps * qwino_round_up(k, kr) * nr;
}

void pack_igemm_weights(const uint8_t* kernel, size_t taps, size_t k, size_t output_channels,
                        const uint8_t* offsets, size_t nr, size_t kr, uint32_t b_bias,
                        int8_t* packed, int64_t* column_sums) {
  const size_t tap_bytes = qwino_round_up(k, kr) * nr;
  const size_t panel_bytes = packed_igemm_panel_bytes(taps, k, nr, kr);
  const size_t panels = qwino_divide_round_up(output_channels, nr);
  std::fill_n(packed, panels * panel_bytes, int8_t{0});
  for (size_t oc = 0; oc < output_channels; oc++) {
    int8_t* panel = packed + oc / nr * panel_bytes;
    const size_t column = oc % nr;
    for (size_t t = 0; t < taps; t++) {
      const uint8_t* row = kernel + (oc * taps + t) * k;
      for (size_t kk = 0; kk < k; kk++) {
        const int32_t w = int32_t{row[kk]} - int32_t{offsets[oc]};
        panel[t * tap_bytes + packed_b_index(kk, column, nr, kr)] =
            static_cast<int8_t>(static_cast<uint8_t>(w + static_cast<int32_t>(b_bias)));
        column_sums[oc] += w;
      }
    }
  }
}

void fold_input_zero_point(const int64_t* column_sums, size_t channels, uint8_t input_zero_point,
                           uint32_t a_bias, uint32_t b_bias, size_t k, int32_t* bias) {
  const int64_t zero_point = int64_t{input_zero_point} - 128 + int64_t{a_bias};
  const uint64_t b_bias_sum = uint64_t{b_bias} * static_cast<uint64_t>(k);
  for (size_t c = 0; c < channels; c++) {
    const uint64_t correction =
        static_cast<uint64_t>(zero_point) * (static_cast<uint64_t>(column_sums[c]) + b_bias_sum);
    bias[c] =
        static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(bias[c]) - correction));
  }
}

size_t dwconv_weight_slices(const uint8_t* kernel, size_t count, uint8_t kernel_zero_point,
                            qwino_dwconv_layout layout) {
  if (layout == qwino_dwconv_layout_int16_tap_pairs) {
    return 1;
  }
  int32_t largest = 0;
  for (size_t i = 0; i < count; i++) {
    largest = std::max(largest, std::abs(int32_t{kernel[i]} - int32_t{kernel_zero_point}));
  }
  return std::max<size_t>(1, qwino_divide_round_up(static_cast<size_t>(largest), 127));
}

size_t packed_dwconv_bytes(size_t channels, size_t kernel_taps, size_t slices, size_t cr,
                           qwino_dwconv_layout layout) {
  return qwino_divide_round_up(channels, cr) *
         qwino_dwconv_block_bytes(layout, kernel_taps * slices, cr);
}

void pack_dwconv_weights(const uint8_t* kernel, size_t channels, size_t kernel_height,
                         size_t kernel_width, uint8_t kernel_zero_point, size_t slices, size_t cr,
                         qwino_dwconv_layout layout, void* packed, int64_t* column_sums) {
  const size_t kernel_taps = kernel_height * kernel_width;
  const size_t taps = kernel_taps * slices;
  const size_t block_bytes = qwino_dwconv_block_bytes(layout, taps, cr);
  std::fill_n(static_cast<char*>(packed),
              packed_dwconv_bytes(channels, kernel_taps, slices, cr, layout), char{0});
  for (size_t c = 0; c < channels; c++) {
    char* block = static_cast<char*>(packed) + c / cr * block_bytes;
    for (size_t ky = 0; ky < kernel_height; ky++) {
      for (size_t kx = 0; kx < kernel_width; kx++) {
        const int32_t b = int32_t{kernel[(c * kernel_height + ky) * kernel_width + kx]} -
                          int32_t{kernel_zero_point};
        column_sums[c] += b;
        const size_t tap = (kx * kernel_height + ky) * slices;
        if (layout == qwino_dwconv_layout_int16_tap_pairs) {
          reinterpret_cast<int16_t*>(block)[((tap / 2) * cr + c % cr) * 2 + tap % 2] =
              static_cast<int16_t>(b);
          continue;
        }
        if (layout == qwino_dwconv_layout_int8_col3) {  // kernel_height 3, slices 1
          reinterpret_cast<int8_t*>(block)[(kx * cr + c % cr) * 4 + ky] = static_cast<int8_t>(b);
          continue;
        }
        if (layout == qwino_dwconv_layout_int8_col3_pairs ||
            layout == qwino_dwconv_layout_int8_col5_pairs) {  // kernel_height 3 or 5, slices 1
          reinterpret_cast<int8_t*>(block)[qwino_dwconv_column_pairs_index(
              kernel_height, kernel_taps, kx * kernel_height + ky, c % cr, cr)] =
              static_cast<int8_t>(b);
          continue;
        }
        if (layout == qwino_dwconv_layout_int8_col5) {  // kernel_height 5, slices 1
          reinterpret_cast<int8_t*>(block)[((kx * 2 + ky / 4) * cr + c % cr) * 4 + ky % 4] =
              static_cast<int8_t>(b);
          continue;
        }
        int32_t rest = b;
        for (size_t t = tap; t < tap + slices; t++) {
          const int32_t part = std::min(127, std::max(-127, rest));
          rest -= part;
          reinterpret_cast<int8_t*>(block)[t * cr + c % cr] = static_cast<int8_t>(part);
        }
      }
    }
  }
}

void pack_winograd_weights(const uint8_t* kernel, size_t input_channels, size_t output_channels,
                           uint8_t kernel_zero_point, const WinogradKernelTransform& transform,
                           size_t nr, size_t kr, int16_t* packed) {
  const size_t alpha = transform.alpha;
  const size_t panels = qwino_divide_round_up(output_channels, nr);
  const size_t panel_elements = packed_panel_elements(input_channels, nr);
  std::fill_n(packed, alpha * alpha * panels * panel_elements, int16_t{0});
  for (size_t oc = 0; oc < output_channels; oc++) {
    int16_t* panel = packed + oc / nr * alpha * alpha * panel_elements;
    const size_t column = oc % nr;
    for (size_t ic = 0; ic < input_channels; ic++) {
      int32_t g[3][3];
      for (size_t tap = 0; tap < 9; tap++) {
        g[tap / 3][tap % 3] =
            int32_t{kernel[(oc * 9 + tap) * input_channels + ic]} - int32_t{kernel_zero_point};
      }
      for (size_t i = 0; i < alpha; i++) {
        int32_t gg[3];  // row i of G g
        for (size_t j = 0; j < 3; j++) {
          gg[j] = transform.g[i][0] * g[0][j] + transform.g[i][1] * g[1][j] +
                  transform.g[i][2] * g[2][j];
        }
        for (size_t j = 0; j < alpha; j++) {  // (G g) G^T
          const int32_t u =
              gg[0] * transform.g[j][0] + gg[1] * transform.g[j][1] + gg[2] * transform.g[j][2];
          const size_t position = i * alpha + j;
          panel[position * panel_elements + packed_b_index(ic, column, nr, kr)] =
              static_cast<int16_t>(u);
        }
      }
    }
  }
}

}  // namespace qwino
