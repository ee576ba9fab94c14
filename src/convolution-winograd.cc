// Winograd F(2x2,3x3) and F(4x4,3x3) for one region of tiles (thesis ch. 3.3, "region-wise
// multi-channel Winograd"): input transform of the region into V, one GEMM V_p x U_p per tile
// position (and per input-channel block) into M, output transform + requantization from M
// straight into the NHWC output. V and M live in the task's scratch, so the three stages run
// back to back on cache-resident data. An item's output channels go through the GEMM and the
// output transform in passes, so M stays small while the region (and so V) can be large: every
// region streams all the weights of its channels once, so fewer, larger regions mean less weight
// traffic, which is what bounds deep layers whose weights do not fit in the caches.
//
// The two algorithms differ only in tile geometry (input tile alpha x alpha, output tile
// (alpha - 2) x (alpha - 2)), the kernels, and F(4x4,3x3)'s input-channel blocks, whose exact
// partial sums the output transform adds (doc/DESIGN.md section 2).
#include <cstdint>

#include "qwino/common.h"
#include "qwino/convolution-paths.h"
#include "qwino/operator.h"

namespace qwino {

WinogradItem winograd_item(const qwino_operator& op, size_t item, char* scratch) {
  const WinogradSchedule& w = op.setup.winograd;
  WinogradItem it{};
  it.v = reinterpret_cast<int16_t*>(scratch);
  it.m = reinterpret_cast<int32_t*>(scratch + w.m_offset_bytes);
  const size_t channel_block = item % w.channel_blocks;
  item /= w.channel_blocks;
  const size_t region = item % w.regions;
  item /= w.regions;
  it.group = item % op.geometry.groups;
  it.image = item / op.geometry.groups;
  const TileRange range =
      region_tile_range(w, w.tiles_height * w.tiles_width, op.kernels.gemm_mr, region);
  it.first_tile = range.first;
  it.tiles = range.count;
  it.first_channel = channel_block * w.channel_block;
  it.channels = QWINO_MIN(w.channel_block, op.geometry.group_output_channels - it.first_channel);
  return it;
}

WinogradItem winograd_channel_pass(const qwino_operator& op, const WinogradItem& it,
                                   size_t pass_start) {
  WinogradItem pass = it;
  pass.first_channel = it.first_channel + pass_start;
  pass.channels = QWINO_MIN(op.setup.winograd.channel_pass, it.channels - pass_start);
  return pass;
}

void winograd_transform_input(const qwino_operator& op, const WinogradItem& it) {
  const SetupState& s = op.setup;
  const WinogradSchedule& w = s.winograd;
  const ConvolutionGeometry& g = op.geometry;
  const size_t alpha = op.winograd().alpha;
  const size_t output_tile = alpha - 2;
  const size_t position_stride = w.region_tiles * w.input_row_stride;
  const qwino_input_transform_ukernel_fn transform = op.winograd().input_transform;
  const uint8_t* pixels[36];
  for (size_t t = 0; t < it.tiles; t++) {
    const size_t tile = it.first_tile + t;
    const ptrdiff_t y0 = static_cast<ptrdiff_t>(tile / w.tiles_width * output_tile) - g.padding_top;
    const ptrdiff_t x0 = static_cast<ptrdiff_t>(tile % w.tiles_width * output_tile) - g.padding_left;
    for (size_t p = 0; p < alpha * alpha; p++) {
      const ptrdiff_t y = y0 + static_cast<ptrdiff_t>(p / alpha);
      const ptrdiff_t x = x0 + static_cast<ptrdiff_t>(p % alpha);
      const bool inside = y >= 0 && y < static_cast<ptrdiff_t>(s.input_height) && x >= 0 &&
                          x < static_cast<ptrdiff_t>(s.input_width);
      pixels[p] = inside ? s.input +
                               ((it.image * s.input_height + y) * s.input_width + x) *
                                   s.input_pixel_stride +
                               it.group * g.group_input_channels
                         : op.zero_pixel.data();
    }
    transform(g.group_input_channels, pixels, op.input_zero_point,
              it.v + t * w.input_row_stride, position_stride);
  }
}

void winograd_multiply(const qwino_operator& op, const WinogradItem& pass) {
  const WinogradSchedule& w = op.setup.winograd;
  const WinogradWeights& weights = op.winograd();
  const size_t mr = op.kernels.gemm_mr;
  const size_t nr = op.kernels.gemm_nr;
  const size_t positions = weights.alpha * weights.alpha;
  const std::vector<size_t>& block_starts = weights.channel_block_starts;
  const size_t k = op.geometry.group_input_channels;
  const size_t a_position_stride = w.region_tiles * w.input_row_stride;
  const size_t c_position_stride = w.region_tiles * w.output_row_stride;
  const int16_t* panel = weights.packed_weights.get() + pass.group * weights.packed_group_stride +
                         pass.first_channel / nr * weights.packed_panel_stride;
  // Panel-major, like the packed weights: the pass's weights stream through once, in order, and
  // each B panel (k x nr of one position) stays in L1 while all the region's A rows pass by it.
  for (size_t n = 0; n < pass.channels; n += nr, panel += weights.packed_panel_stride) {
    for (size_t block = 0; block < block_starts.size(); block++) {
      const size_t k0 = block_starts[block];
      const size_t k1 = block + 1 < block_starts.size() ? block_starts[block + 1] : k;
      for (size_t p = 0; p < positions; p++) {
        const int16_t* a = pass.v + p * a_position_stride + k0;
        int32_t* c = pass.m + block * w.m_block_stride + p * c_position_stride + n;
        // Block starts are multiples of 4, so the block's rows start a whole k-group of the panel.
        const int16_t* b = panel + p * weights.packed_position_stride + k0 * nr;
        for (size_t row = 0; row < pass.tiles; row += mr) {
          op.kernels.gemm(QWINO_MIN(mr, pass.tiles - row), QWINO_MIN(nr, pass.channels - n),
                          k1 - k0, a + row * w.input_row_stride, w.input_row_stride, b,
                          c + row * w.output_row_stride, w.output_row_stride);
        }
      }
    }
  }
}

void winograd_transform_output(const qwino_operator& op, const WinogradItem& it) {
  const SetupState& s = op.setup;
  const WinogradSchedule& w = s.winograd;
  const ConvolutionGeometry& g = op.geometry;
  const size_t output_tile = op.winograd().alpha - 2;
  const size_t row_stride = s.output_width * s.output_pixel_stride;
  const size_t channel_offset = it.group * g.group_output_channels + it.first_channel;
  const size_t m_position_stride = w.region_tiles * w.output_row_stride;
  for (size_t t = 0; t < it.tiles; t++) {
    const size_t tile = it.first_tile + t;
    const size_t oy = tile / w.tiles_width * output_tile;
    const size_t ox = tile % w.tiles_width * output_tile;
    uint8_t* output = s.output + (it.image * s.output_height + oy) * row_stride +
                      ox * s.output_pixel_stride + channel_offset;
    const size_t rows = QWINO_MIN(output_tile, s.output_height - oy);
    const size_t columns = QWINO_MIN(output_tile, s.output_width - ox);
    const int32_t* m = it.m + t * w.output_row_stride;
    const int32_t* bias = op.bias.data() + channel_offset;
    if (op.algorithm == qwino_algorithm_winograd_f4x4_3x3) {
      op.kernels.f43_output_transform(it.channels, op.winograd().channel_block_starts.size(), m,
                                      m_position_stride, w.m_block_stride, bias, output,
                                      row_stride, s.output_pixel_stride, rows, columns,
                                      &op.requantization);
    } else {
      op.kernels.f23_output_transform(it.channels, m, m_position_stride, bias, output,
                                      row_stride, s.output_pixel_stride, rows, columns,
                                      &op.requantization);
    }
  }
}

void run_winograd_item(const qwino_operator& op, size_t item, char* scratch) {
  const WinogradItem it = winograd_item(op, item, scratch);
  winograd_transform_input(op, it);
  for (size_t start = 0; start < it.channels; start += op.setup.winograd.channel_pass) {
    const WinogradItem pass = winograd_channel_pass(op, it, start);
    winograd_multiply(op, pass);
    winograd_transform_output(op, pass);
  }
}

}  // namespace qwino
