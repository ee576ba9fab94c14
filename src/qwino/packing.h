// All weight packing in one place: the int16 B panels every s16 GEMM micro-kernel multiplies
// (src/s16-gemm/s16-gemm.inc: tile NR, k interleave KR, K padded to k_padding rows), for the
// direct path (B = w - kernel_zero_point) and the Winograd paths (B = U = G g G^T per position).
#ifndef QWINO_PACKING_H_
#define QWINO_PACKING_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "qwino/ukernel-types.h"

namespace qwino {

// Rows of K every packed panel holds (the k_padding of every s16 GEMM list entry).
constexpr size_t kGemmKPadding = 4;

// Where element (kk, n) of a K x NR panel lives: k-groups of KR rows, NR columns each, KR
// values of one column together (KR = 1: k-major rows of NR values).
constexpr size_t packed_b_index(size_t kk, size_t n, size_t nr, size_t kr) {
  return ((kk / kr) * nr + n) * kr + kk % kr;
}

// Elements of one panel of K rows: round_up(K, kGemmKPadding) x nr.
size_t packed_panel_elements(size_t k, size_t nr);

// Packs B = w - kernel_zero_point (int16) of one group as [ceil(output_channels / nr) panels]
// [packed_panel_elements(k, nr), k interleaved by kr (see qwino_gemm_ukernel_fn)], zero-filled
// past k and past output_channels. kernel: [output_channels][k] (k = kh * kw * input channels,
// the caller's [oc][kh][kw][ic] layout).
void pack_direct_weights(const uint8_t* kernel, size_t k, size_t output_channels,
                         uint8_t kernel_zero_point, size_t nr, size_t kr, int16_t* packed);

// Elements (bytes) of one 8-bit indirect GEMM panel: taps x round_up(K, kr) x nr.
size_t packed_igemm_panel_bytes(size_t taps, size_t k, size_t nr, size_t kr);

// Packs B = w - offsets[oc] as int8 (as the uint8 byte B + 128 for kernels whose list entry's
// b_bias is 128) for the 8-bit indirect GEMM, one group, as
// [ceil(output_channels / nr) panels][taps][round_up(k, kr) x nr, element (kk, n) at
// packed_b_index(kk, n, nr, kr)], zero-filled past k and past output_channels, and adds each
// output channel's sum of B to column_sums[oc]. Every w - offsets[oc] must lie in [-128, 127]
// (in [-127, 127] for kernels whose list entry's b_min says so). kernel: [output_channels][taps]
// [k] (the caller's [oc][kh][kw][ic] layout); offsets: one per output channel.
void pack_igemm_weights(const uint8_t* kernel, size_t taps, size_t k, size_t output_channels,
                        const uint8_t* offsets, size_t nr, size_t kr, uint32_t b_bias,
                        int8_t* packed, int64_t* column_sums);

// Depthwise weights (qwino_dwconv_ukernel_fn). The kernel's taps are the layer's in column-major
// order (kx * kernel_height + ky: the order that lets neighbouring output pixels share
// indirection pointers, src/convolution-depthwise.cc), each repeated `slices` times: in the
// int8_taps layout a weight b = w - kernel_zero_point beyond [-127, 127] is split into `slices`
// values in that range that add up to b, multiplied by the same input pixel.
// The slices the layout needs for these weights: 1 for int16_tap_pairs, else ceil(max |b| / 127)
// (1 to 3; int8_col3 and int8_col5 pack only weights that need 1).
size_t dwconv_weight_slices(const uint8_t* kernel, size_t count, uint8_t kernel_zero_point,
                            qwino_dwconv_layout layout);
// Bytes of the packed weights of `channels` channels: blocks of cr channels.
size_t packed_dwconv_bytes(size_t channels, size_t kernel_taps, size_t slices, size_t cr,
                           qwino_dwconv_layout layout);
// Packs kernel ([channels][kernel_height][kernel_width], one input channel each) and adds each
// channel's sum of b to column_sums[c].
void pack_dwconv_weights(const uint8_t* kernel, size_t channels, size_t kernel_height,
                         size_t kernel_width, uint8_t kernel_zero_point, size_t slices, size_t cr,
                         qwino_dwconv_layout layout, void* packed, int64_t* column_sums);

// The paths that multiply x_view - 128 + a_bias (int8, or uint8 for a_bias = 128: the kernel
// list's a_bias) instead of x_view - input_zero_point: subtracts
// (input_zero_point - 128 + a_bias) x column_sums[c] from bias[c], modulo 2^32 (doc/DESIGN.md
// section 3); for kernels that multiply B + b_bias too, (input_zero_point - 128 + a_bias) x
// (column_sums[c] + b_bias x k), k the products per output (src/convolution-indirect.cc).
void fold_input_zero_point(const int64_t* column_sums, size_t channels, uint8_t input_zero_point,
                           uint32_t a_bias, uint32_t b_bias, size_t k, int32_t* bias);

// The pair GEMM's weights (qwino_u8s8_gemm_ukernel_fn) for panels of QWINO_U8S8_GEMM_NR output
// channels. Each block of 16 k values of a panel is one A block (qwino_pair_block): its k values
// in an order whose neighbouring pairs (0 1, 2 3, ...) give, for every column, weights whose
// positive parts add up to at most 128 and negative parts to at least -128, so VPMADDUBSW's int16
// pair sums cannot saturate for any uint8 activations (255 x 128 = 32640); where no such order is
// found, two blocks of the identity order, the first with floor(b / 2) and the second with
// b - floor(b / 2) (both in [-64, 64]). Panels follow each other; panel p's bytes start at
// 64 x (p + 4 x first_block[p]): 16 int32 initial values, then per block 256 bytes
// (qwino_pair_b_index).
struct PairWeights {
  std::vector<qwino_pair_block> blocks;
  std::vector<uint32_t> first_block;  // per panel, and one past the last panel's blocks
  std::vector<int8_t> bytes;
};
// Bytes of one pair panel of `blocks` blocks.
constexpr size_t pair_panel_bytes(size_t blocks) { return 64 * (1 + 4 * blocks); }
// Where panel `panel` starts, its first block being block `first_block` of all panels.
constexpr size_t pair_panel_offset(size_t panel, size_t first_block) {
  return 64 * (panel + 4 * first_block);
}
// Appends the panels of one group: B = w - kernel_zero_point (each in [-128, 127]), kernel
// [output_channels][k]; a column's initial value is initial_factor x its sum of B (mod 2^32), and
// block sources are k offsets within a row of k bytes.
void pack_u8s8_pair_weights(const uint8_t* kernel, size_t k, size_t output_channels,
                            uint8_t kernel_zero_point, int32_t initial_factor,
                            PairWeights* weights);
// Integer kernel transform U = G g G^T of one Winograd algorithm (rows scaled to integers).
struct WinogradKernelTransform {
  size_t alpha;          // input tile size: 4 for F(2x2,3x3), 6 for F(4x4,3x3)
  const int8_t (*g)[3];  // alpha rows of G
};
// G' = 2G = [2 0 0; 1 1 1; 1 -1 1; 0 0 2]: |U| <= 9 * 255.
extern const WinogradKernelTransform kF23KernelTransform;
// G'' = G with rows scaled by (4, 6, 6, 24, 24, 1): |U| <= 49 * 255.
extern const WinogradKernelTransform kF43KernelTransform;

// Packs U = G g G^T of one group as [ceil(output_channels / nr) panels][alpha^2 positions]
// [packed_panel_elements(input_channels, nr)]: panel-major, so the weights of any block of output
// channels are one contiguous stream, zero-filled past the channel counts.
// kernel: [output_channels][3][3][input_channels].
void pack_winograd_weights(const uint8_t* kernel, size_t input_channels, size_t output_channels,
                           uint8_t kernel_zero_point, const WinogradKernelTransform& transform,
                           size_t nr, size_t kr, int16_t* packed);

}  // namespace qwino

#endif  // QWINO_PACKING_H_
