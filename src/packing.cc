// All weight packing (qwino/packing.h).
#include "qwino/packing.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "qwino/common.h"

namespace qwino {
namespace {

constexpr int8_t kF23G[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
constexpr int8_t kF43G[6][3] = {{1, 0, 0}, {-1, -1, -1}, {-1, 1, -1},
                                {1, 2, 4}, {1, -2, 4},   {0, 0, 1}};

// Whether weights b0, b1 of one column may be neighbours of a VPMADDUBSW pair (PairWeights).
bool pair_fits(int32_t b0, int32_t b1) {
  const int32_t positive = std::max(b0, 0) + std::max(b1, 0);
  const int32_t negative = std::min(b0, 0) + std::min(b1, 0);
  return positive <= 128 && negative >= -128;
}

// A perfect matching of the 16 positions of a block in the graph of allowed pairs (bit j of
// allowed[i]), most constrained position first, in at most `budget` steps (each block's search
// is bounded, so adversarial weights cost a split, not time).
struct PairMatching {
  uint32_t allowed[16];
  uint8_t partner[16];
  int budget;

  bool match(uint32_t free_positions) {
    if (free_positions == 0) {
      return true;
    }
    if (--budget < 0) {
      return false;
    }
    int best = -1, best_options = 17;
    for (int i = 0; i < 16; i++) {
      if (free_positions >> i & 1) {
        const int options = __builtin_popcount(allowed[i] & free_positions & ~(1u << i));
        if (options < best_options) {
          best = i;
          best_options = options;
        }
      }
    }
    const uint32_t rest = free_positions & ~(1u << best);
    for (uint32_t candidates = allowed[best] & rest; candidates != 0;
         candidates &= candidates - 1) {
      const int j = __builtin_ctz(candidates);
      if (match(rest & ~(1u << j))) {
        partner[best] = static_cast<uint8_t>(j);
        partner[j] = static_cast<uint8_t>(best);
        return true;
      }
      if (budget < 0) {
        return false;
      }
    }
    return false;
  }
};

// The k order of one block (16 positions from k0, positions past k weigh 0): true and the order
// in `order` if one fits every column.
bool pair_order(const int32_t (*b)[16], size_t columns, uint8_t order[16]) {
  uint32_t allowed[16] = {};
  for (int i = 0; i < 16; i++) {
    for (int j = i + 1; j < 16; j++) {
      bool fits = true;
      for (size_t c = 0; c < columns && fits; c++) {
        fits = pair_fits(b[c][i], b[c][j]);
      }
      allowed[i] |= uint32_t{fits} << j;
      allowed[j] |= uint32_t{fits} << i;
    }
  }
  bool identity = true;
  for (int i = 0; i < 16; i += 2) {
    identity = identity && (allowed[i] >> (i + 1) & 1);
  }
  if (identity) {
    for (int i = 0; i < 16; i++) {
      order[i] = static_cast<uint8_t>(i);
    }
    return true;
  }
  PairMatching m{};
  std::copy_n(allowed, 16, m.allowed);
  m.budget = 4096;
  if (!m.match(0xFFFFu)) {
    return false;
  }
  size_t n = 0;
  for (int i = 0; i < 16; i++) {
    if (m.partner[i] > i) {
      order[n++] = static_cast<uint8_t>(i);
      order[n++] = m.partner[i];
    }
  }
  return true;
}

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

void pack_u8s8_pair_weights(const uint8_t* kernel, size_t k, size_t output_channels,
                            uint8_t kernel_zero_point, int32_t initial_factor,
                            PairWeights* weights) {
  constexpr size_t nr = QWINO_U8S8_GEMM_NR;
  const size_t k_blocks = qwino_divide_round_up(k, 16);
  if (weights->first_block.empty()) {
    weights->first_block.push_back(0);
  }
  for (size_t n0 = 0; n0 < output_channels; n0 += nr) {
    const size_t columns = std::min(nr, output_channels - n0);
    const size_t panel = weights->first_block.size() - 1;
    const size_t panel_start = pair_panel_offset(panel, weights->blocks.size());
    weights->bytes.resize(panel_start + pair_panel_bytes(0), 0);
    uint32_t sums[nr] = {};
    for (size_t kb = 0; kb < k_blocks; kb++) {
      int32_t b[nr][16] = {};
      for (size_t c = 0; c < columns; c++) {
        for (size_t i = 0; i < 16 && kb * 16 + i < k; i++) {
          b[c][i] = int32_t{kernel[(n0 + c) * k + kb * 16 + i]} - int32_t{kernel_zero_point};
          sums[c] += static_cast<uint32_t>(b[c][i]);
        }
      }
      qwino_pair_block block{};
      block.source = static_cast<uint32_t>(kb * 16);
      const bool ordered = pair_order(b, columns, block.shuffle);
      if (!ordered) {
        for (int i = 0; i < 16; i++) {
          block.shuffle[i] = static_cast<uint8_t>(i);
        }
      }
      for (int half = 0; half < (ordered ? 1 : 2); half++) {
        weights->blocks.push_back(block);
        const size_t at = weights->bytes.size();
        weights->bytes.resize(at + 4 * 64, 0);
        for (size_t c = 0; c < columns; c++) {
          for (size_t i = 0; i < 16; i++) {
            int32_t v = b[c][block.shuffle[i]];
            if (!ordered) {
              const int32_t low = v >> 1;  // floor(v / 2)
              v = half == 0 ? low : v - low;
            }
            weights->bytes[at + qwino_pair_b_index(c, i)] = static_cast<int8_t>(v);
          }
        }
      }
    }
    for (size_t c = 0; c < columns; c++) {
      const uint32_t initial = static_cast<uint32_t>(initial_factor) * sums[c];
      std::memcpy(weights->bytes.data() + panel_start + c * sizeof(initial), &initial,
                  sizeof(initial));
    }
    weights->first_block.push_back(static_cast<uint32_t>(weights->blocks.size()));
  }
}

}  // namespace qwino
