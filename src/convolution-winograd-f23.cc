// Winograd F(2x2,3x3) for one region of tiles (thesis ch. 3.3, "region-wise multi-channel
// Winograd"): input transform of the region into V, 16 GEMMs V_p x U_p into M, output transform
// + requantization from M straight into the NHWC output. V and M live in the task's scratch, so
// the three stages run back to back on cache-resident data.
#include <cstdint>

#include "qwino/common.h"
#include "qwino/convolution-paths.h"
#include "qwino/operator.h"

namespace qwino {

WinogradF23Item winograd_f23_item(const qwino_operator& op, size_t item, char* scratch) {
  const WinogradSchedule& w = op.setup.winograd;
  WinogradF23Item it{};
  it.v = reinterpret_cast<int16_t*>(scratch);
  it.m = reinterpret_cast<int32_t*>(scratch + w.m_offset_bytes);
  const size_t channel_block = item % w.channel_blocks;
  item /= w.channel_blocks;
  const size_t region = item % w.regions;
  item /= w.regions;
  it.group = item % op.geometry.groups;
  it.image = item / op.geometry.groups;
  it.first_tile = region * w.region_tiles;
  it.tiles = QWINO_MIN(w.region_tiles, w.tiles_height * w.tiles_width - it.first_tile);
  it.first_channel = channel_block * w.channel_block;
  it.channels = QWINO_MIN(w.channel_block, op.geometry.group_output_channels - it.first_channel);
  return it;
}

void winograd_f23_transform_input(const qwino_operator& op, const WinogradF23Item& it) {
  const SetupState& s = op.setup;
  const WinogradSchedule& w = s.winograd;
  const ConvolutionGeometry& g = op.geometry;
  const size_t position_stride = w.region_tiles * w.input_row_stride;
  const uint8_t* pixels[16];
  for (size_t t = 0; t < it.tiles; t++) {
    const size_t tile = it.first_tile + t;
    const ptrdiff_t y0 = static_cast<ptrdiff_t>(tile / w.tiles_width * 2) - g.padding_top;
    const ptrdiff_t x0 = static_cast<ptrdiff_t>(tile % w.tiles_width * 2) - g.padding_left;
    for (size_t p = 0; p < 16; p++) {
      const ptrdiff_t y = y0 + static_cast<ptrdiff_t>(p / 4);
      const ptrdiff_t x = x0 + static_cast<ptrdiff_t>(p % 4);
      const bool inside = y >= 0 && y < static_cast<ptrdiff_t>(s.input_height) && x >= 0 &&
                          x < static_cast<ptrdiff_t>(s.input_width);
      pixels[p] = inside ? s.input +
                               ((it.image * s.input_height + y) * s.input_width + x) *
                                   s.input_pixel_stride +
                               it.group * g.group_input_channels
                         : op.zero_pixel.data();
    }
    op.kernels.f23_input_transform(g.group_input_channels, pixels, op.input_zero_point,
                                   it.v + t * w.input_row_stride, position_stride);
  }
}

void winograd_f23_multiply(const qwino_operator& op, const WinogradF23Item& it) {
  const WinogradSchedule& w = op.setup.winograd;
  const size_t mr = op.kernels.gemm_mr;
  const size_t nr = op.kernels.gemm_nr;
  const size_t k = op.geometry.group_input_channels;
  const int16_t* group_weights =
      op.packed_weights.get() + it.group * op.packed_group_stride +
      it.first_channel / nr * op.packed_panel_stride;
  for (size_t p = 0; p < 16; p++) {
    const int16_t* a = it.v + p * w.region_tiles * w.input_row_stride;
    int32_t* c = it.m + p * w.region_tiles * w.output_row_stride;
    const int16_t* b = group_weights + p * op.packed_position_stride;
    // Each B panel (k x nr) stays in L1 while all the region's A rows stream past it.
    for (size_t n = 0; n < it.channels; n += nr, b += op.packed_panel_stride) {
      for (size_t row = 0; row < it.tiles; row += mr) {
        op.kernels.gemm(QWINO_MIN(mr, it.tiles - row), QWINO_MIN(nr, it.channels - n), k,
                        a + row * w.input_row_stride, w.input_row_stride, b,
                        c + row * w.output_row_stride + n, w.output_row_stride);
      }
    }
  }
}

void winograd_f23_transform_output(const qwino_operator& op, const WinogradF23Item& it) {
  const SetupState& s = op.setup;
  const WinogradSchedule& w = s.winograd;
  const ConvolutionGeometry& g = op.geometry;
  const size_t row_stride = s.output_width * s.output_pixel_stride;
  const size_t channel_offset = it.group * g.group_output_channels + it.first_channel;
  for (size_t t = 0; t < it.tiles; t++) {
    const size_t tile = it.first_tile + t;
    const size_t oy = tile / w.tiles_width * 2;
    const size_t ox = tile % w.tiles_width * 2;
    uint8_t* output = s.output + (it.image * s.output_height + oy) * row_stride +
                      ox * s.output_pixel_stride + channel_offset;
    op.kernels.f23_output_transform(
        it.channels, it.m + t * w.output_row_stride, w.region_tiles * w.output_row_stride,
        op.bias.data() + channel_offset, output, row_stride, s.output_pixel_stride,
        QWINO_MIN(2, s.output_height - oy), QWINO_MIN(2, s.output_width - ox),
        &op.requantization);
  }
}

void run_winograd_f23_item(const qwino_operator& op, size_t item, char* scratch) {
  const WinogradF23Item it = winograd_f23_item(op, item, scratch);
  winograd_f23_transform_input(op, it);
  winograd_f23_multiply(op, it);
  winograd_f23_transform_output(op, it);
}

}  // namespace qwino
