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

#include "qwino/algorithm.h"
#include "qwino/checked-size.h"
#include "qwino/common.h"
#include "qwino/convolution-paths.h"
#include "qwino/operator.h"
#include "qwino/packing-budget.h"
#include "qwino/packing.h"
#include "qwino/tuning.h"
#include "qwino/winograd-weights.h"

namespace qwino {

namespace {

// The weights of a part's algorithm.
const WinogradWeights& part_weights(const qwino_operator& op, const WinogradPart& part) {
  return part.tile == 4 ? op.f43 : op.f23;
}

// The work items of one part's schedule.
size_t part_items(const qwino_operator& op, const SetupState& setup, const WinogradSchedule& s) {
  return setup.batch_size * op.geometry.groups * s.regions * s.channel_blocks;
}

}  // namespace

WinogradItem winograd_item(const qwino_operator& op, size_t item, char* scratch) {
  const SetupState& s = op.setup;
  size_t part = 0;
  for (; part + 1 < s.winograd_tiling.part_count; part++) {
    const size_t items = part_items(op, s, s.winograd[part]);
    if (item < items) {
      break;
    }
    item -= items;
  }
  const WinogradSchedule& w = s.winograd[part];
  WinogradItem it{};
  it.part = &s.winograd_tiling.parts[part];
  it.schedule = &w;
  it.weights = &part_weights(op, *it.part);
  it.v = reinterpret_cast<int16_t*>(scratch);
  it.m = reinterpret_cast<int32_t*>(scratch + w.m_offset_bytes);
  const size_t channel_block = item % w.channel_blocks;
  item /= w.channel_blocks;
  const size_t region = item % w.regions;
  item /= w.regions;
  it.group = item % op.geometry.groups;
  it.image = item / op.geometry.groups;
  const TileRange range = region_tile_range(w, w.tiles, op.kernels.gemm.mr, region);
  it.first_tile = range.first;
  it.tiles = range.count;
  it.first_channel = channel_block * w.channel_block;
  it.channels = QWINO_MIN(w.channel_block, op.geometry.group_output_channels - it.first_channel);
  return it;
}

WinogradItem winograd_channel_pass(const WinogradItem& it, size_t pass_start) {
  WinogradItem pass = it;
  pass.first_channel = it.first_channel + pass_start;
  pass.channels = QWINO_MIN(it.schedule->channel_pass, it.channels - pass_start);
  return pass;
}

void winograd_transform_input(const qwino_operator& op, const WinogradItem& it) {
  const SetupState& s = op.setup;
  const WinogradSchedule& w = *it.schedule;
  const ConvolutionGeometry& g = op.geometry;
  const size_t alpha = it.weights->alpha;
  const size_t position_stride = w.region_tiles * w.input_row_stride;
  const qwino_input_transform_ukernel_fn transform = it.weights->input_transform;
  const uint8_t* pixels[kMaxWinogradPositions];
  for (size_t t = 0; t < it.tiles; t++) {
    const TilePlace place = winograd_tile_place(*it.part, it.first_tile + t);
    const ptrdiff_t y0 = static_cast<ptrdiff_t>(place.row) - g.padding_top;
    const ptrdiff_t x0 = static_cast<ptrdiff_t>(place.column) - g.padding_left;
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
    transform(g.group_input_channels, pixels, op.input_zero_point, op.input_sign,
              it.v + t * w.input_row_stride, position_stride);
  }
}

void winograd_multiply(const qwino_operator& op, const WinogradItem& pass) {
  const WinogradSchedule& w = *pass.schedule;
  const WinogradWeights& weights = *pass.weights;
  const size_t mr = op.kernels.gemm.mr;
  const size_t nr = op.kernels.gemm.nr;
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
          op.kernels.gemm.ukernel(QWINO_MIN(mr, pass.tiles - row), QWINO_MIN(nr, pass.channels - n),
                                  k1 - k0, a + row * w.input_row_stride, w.input_row_stride, b,
                                  c + row * w.output_row_stride, w.output_row_stride);
        }
      }
    }
  }
}

void winograd_transform_output(const qwino_operator& op, const WinogradItem& it) {
  const SetupState& s = op.setup;
  const WinogradSchedule& w = *it.schedule;
  const ConvolutionGeometry& g = op.geometry;
  const size_t row_stride = s.output_width * s.output_pixel_stride;
  const size_t channel_offset = it.group * g.group_output_channels + it.first_channel;
  const size_t m_position_stride = w.region_tiles * w.output_row_stride;
  const int32_t* channel_params = op.channel_params.data() + channel_offset;
  for (size_t t = 0; t < it.tiles; t++) {
    const TilePlace place = winograd_tile_place(*it.part, it.first_tile + t);
    uint8_t* output = s.output + (it.image * s.output_height + place.row) * row_stride +
                      place.column * s.output_pixel_stride + channel_offset;
    const int32_t* m = it.m + t * w.output_row_stride;
    if (it.part->tile == 4) {
      op.f43_output().ukernel(it.channels, it.weights->channel_block_starts.size(), m,
                              m_position_stride, w.m_block_stride, channel_params, output,
                              row_stride, s.output_pixel_stride, place.rows, place.columns,
                              &op.f43_output_params);
    } else {
      op.f23_output().ukernel(it.channels, m, m_position_stride, channel_params, output, row_stride,
                              s.output_pixel_stride, place.rows, place.columns,
                              &op.f23_output_params);
    }
  }
}

void run_winograd_item(const qwino_operator& op, size_t item, char* scratch) {
  const WinogradItem it = winograd_item(op, item, scratch);
  winograd_transform_input(op, it);
  for (size_t start = 0; start < it.channels; start += it.schedule->channel_pass) {
    const WinogradItem pass = winograd_channel_pass(it, start);
    winograd_multiply(op, pass);
    winograd_transform_output(op, pass);
  }
}

}  // namespace qwino

// ---------------------------------------------------------------------------------------------
// The two algorithm entries (qwino/algorithm.h).

namespace qwino {
namespace {

// F(4x4,3x3) blocks of input channels are whole multiples of this (GEMM k-groups).
constexpr size_t kChannelBlockGranularity = 8;

bool winograd_shape(const ConvolutionGeometry& g) {
  return g.kernel_height == 3 && g.kernel_width == 3 && g.stride_height == 1 &&
         g.stride_width == 1 && g.dilation_height == 1 && g.dilation_width == 1;
}

// Winograd's panels are its speed: past the packing budget it is not an option (grouped layers
// with a few channels per group, which the direct path streams instead).
bool within_packing_budget(const qwino_operator& op, size_t alpha) {
  const ConvolutionGeometry& g = op.geometry;
  return packing_within_budget(g.groups, alpha * alpha, g.group_input_channels,
                               g.group_output_channels, op.kernel.size());
}

bool f23_exact(const qwino_operator& op) {
  const ConvolutionGeometry& g = op.geometry;
  const size_t group_elements = g.group_output_channels * 9 * g.group_input_channels;
  for (size_t group = 0; group < g.groups; group++) {
    if (winograd_accumulator_bound(op.kernel.data() + group * group_elements,
                                   g.group_input_channels, g.group_output_channels, 0,
                                   g.group_input_channels, op.input_zero_point,
                                   op.kernel_zero_point) >= kF23AccumulatorLimit) {
      return false;
    }
  }
  return true;
}

bool decide_f23(qwino_operator* op) {
  op->f23.alpha = 4;
  op->f23.input_transform = op->kernels.f23_input.ukernel;
  op->f23.channel_block_starts = {0};
  return winograd_shape(op->geometry) && within_packing_budget(*op, 4) && f23_exact(*op);
}

bool decide_f43(qwino_operator* op) {
  static_assert(6 * 6 <= kMaxWinogradPositions, "input transforms take one pointer per position");
  const ConvolutionGeometry& g = op->geometry;
  op->f43.alpha = 6;
  op->f43.input_transform = op->kernels.f43_input.ukernel;
  op->f43.channel_block_starts.clear();
  if (winograd_shape(g) && within_packing_budget(*op, 6)) {
    op->f43.channel_block_starts = winograd_channel_blocks(
        op->kernel.data(), g.groups, g.group_input_channels, g.group_output_channels,
        op->input_zero_point, op->kernel_zero_point, kF43AccumulatorLimit,
        kChannelBlockGranularity);
  }
  // F(2x2,3x3)'s own entry decides after this one (and may be excluded by a flag), so the edge
  // tiles ask its proof here.
  op->f43.f23_edges =
      !op->f43.channel_block_starts.empty() && within_packing_budget(*op, 4) && f23_exact(*op);
  return !op->f43.channel_block_starts.empty();
}

// GEMM multiply-accumulates plus the transforms of one part's tiles per output image, each at
// its kernel's cost (src/qwino/tuning.h): F(4x4,3x3) needs 36 products per 16 outputs, F(2x2,3x3)
// 16 per 4, but whole tiles, so small maps waste work in partial tiles (7x7 with 4x4 tiles: 49 of
// 64 outputs useful), and the transforms and the int32 products' traffic between the GEMM and
// the output transform cost per channel, which matters on shallow layers.
double part_cost(const qwino_operator& op, const WinogradPart& part) {
  const ConvolutionGeometry& g = op.geometry;
  const bool f43 = part.tile == 4;
  const size_t alpha = part.tile + 2;
  const double blocks = double(part_weights(op, part).channel_block_starts.size());
  const double input_cost = f43 ? op.kernels.f43_input.value_cost : op.kernels.f23_input.value_cost;
  const double output_cost = f43 ? op.f43_output().value_cost : op.f23_output().value_cost;
  const double positions = double(alpha * alpha);
  const double k = double(g.group_input_channels), n = double(g.group_output_channels);
  // The GEMM multiplies K padded to its kernel's k_padding (a 3-channel first layer costs 4).
  const double padded_k =
      double(qwino_round_up(size_t{g.group_input_channels}, size_t{op.kernels.gemm.k_padding}));
  // The packed weights (positions x k x n int16) stream through the cache once per image.
  const double weight_bytes = positions * k * n * double(sizeof(int16_t));
  const double tile_position_cost =
      op.kernels.gemm.mac_cost * (padded_k + QWINO_WINOGRAD_PRODUCT_MACS * blocks) * n +
      input_cost * k + output_cost * n * blocks;
  return double(part.tiles) * positions * tile_position_cost +
         QWINO_WINOGRAD_WEIGHT_BYTE_COST * weight_bytes;
}

double tiling_cost(const qwino_operator& op, const WinogradTiling& tiling) {
  double cost = 0.0;
  for (size_t part = 0; part < tiling.part_count; part++) {
    cost += part_cost(op, tiling.parts[part]);
  }
  return cost;
}

// F(4x4,3x3)'s tiles over the whole map, or F(2x2,3x3)'s at its edges where they are exact and
// cheaper (14x14: 9 4x4 tiles and 13 2x2 ones, 532 products per channel pair instead of 576).
WinogradTiling f43_tiling(const qwino_operator& op, size_t output_height, size_t output_width) {
  const WinogradTiling whole = plan_winograd_tiling(output_height, output_width, 4, 0);
  const ConvolutionGeometry& g = op.geometry;
  const double both_packings_bytes = (36.0 + 16.0) * double(g.groups) *
                                     double(g.group_input_channels) *
                                     double(g.group_output_channels) * double(sizeof(int16_t));
  if (!op.f43.f23_edges || both_packings_bytes > QWINO_WINOGRAD_EDGE_WEIGHT_BYTES) {
    return whole;
  }
  const WinogradTiling edges = plan_winograd_tiling(output_height, output_width, 4, 2);
  return edges.part_count > 1 && tiling_cost(op, edges) < tiling_cost(op, whole) ? edges : whole;
}

WinogradTiling f23_tiling(size_t output_height, size_t output_width) {
  return plan_winograd_tiling(output_height, output_width, 2, 0);
}

double cost_f23(const qwino_operator& op, size_t output_height, size_t output_width) {
  return tiling_cost(op, f23_tiling(output_height, output_width));
}

double cost_f43(const qwino_operator& op, size_t output_height, size_t output_width) {
  return tiling_cost(op, f43_tiling(op, output_height, output_width));
}

// Transforms and packs the weights (qwino/packing.h) unless already done.
bool pack(qwino_operator* op, WinogradWeights& w, const WinogradKernelTransform& transform) {
  if (w.packed_weights) {
    return true;
  }
  const ConvolutionGeometry& g = op->geometry;
  const size_t nr = op->kernels.gemm.nr;
  const size_t panel_stride = packed_panel_elements(g.group_input_channels, nr);
  const size_t group_stride =
      w.alpha * w.alpha * qwino_divide_round_up(g.group_output_channels, nr) * panel_stride;
  size_t elements = 0;
  if (!checked_product({size_t{g.groups}, group_stride}, &elements)) {
    return false;
  }
  AlignedBuffer<int16_t> packed = allocate_aligned<int16_t>(elements);
  if (!packed) {
    return false;
  }
  const size_t group_elements = g.group_output_channels * 9 * g.group_input_channels;
  for (size_t group = 0; group < g.groups; group++) {
    pack_winograd_weights(op->kernel.data() + group * group_elements, g.group_input_channels,
                          g.group_output_channels, op->kernel_zero_point, transform, nr,
                          op->kernels.gemm.kr, packed.get() + group * group_stride);
  }
  w.packed_panel_stride = w.alpha * w.alpha * panel_stride;
  w.packed_position_stride = panel_stride;
  w.packed_group_stride = group_stride;
  w.packed_weights = std::move(packed);
  return true;
}

bool prepare_f23(qwino_operator* op, size_t, size_t) {
  return pack(op, op->f23, kF23KernelTransform);
}
// The F(2x2,3x3) weights too when this image's edges take its tiles.
bool prepare_f43(qwino_operator* op, size_t output_height, size_t output_width) {
  return pack(op, op->f43, kF43KernelTransform) &&
         (f43_tiling(*op, output_height, output_width).part_count == 1 ||
          pack(op, op->f23, kF23KernelTransform));
}

void plan(const qwino_operator& op, const WinogradTiling& tiling, SetupState* setup) {
  const ConvolutionGeometry& g = op.geometry;
  setup->winograd_tiling = tiling;
  setup->work_items = 0;
  setup->scratch_bytes_per_task = 0;
  for (size_t part = 0; part < tiling.part_count; part++) {
    const WinogradWeights& w = part_weights(op, tiling.parts[part]);
    WinogradPlanInput in{};
    in.batch_size = setup->batch_size;
    in.groups = g.groups;
    in.tiles = tiling.parts[part].tiles;
    in.group_input_channels = g.group_input_channels;
    in.group_output_channels = g.group_output_channels;
    in.alpha = w.alpha;
    in.blocks = w.channel_block_starts.size();
    in.mr = op.kernels.gemm.mr;
    in.nr = op.kernels.gemm.nr;
    in.threads = setup->threads;
    const WinogradSchedule s = plan_winograd(in);
    setup->winograd[part] = s;
    setup->work_items += part_items(op, *setup, s);
    setup->scratch_bytes_per_task =
        QWINO_MAX(setup->scratch_bytes_per_task, s.scratch_bytes_per_task);
  }
}

void plan_f23(const qwino_operator& op, SetupState* setup) {
  plan(op, f23_tiling(setup->output_height, setup->output_width), setup);
}
void plan_f43(const qwino_operator& op, SetupState* setup) {
  plan(op, f43_tiling(op, setup->output_height, setup->output_width), setup);
}

}  // namespace

namespace {

size_t packed_bytes(const qwino_operator& op, const WinogradWeights& w) {
  return w.packed_weights ? w.packed_group_stride * op.geometry.groups * sizeof(int16_t) : 0;
}
size_t weight_bytes_f23(const qwino_operator& op) { return packed_bytes(op, op.f23); }
size_t weight_bytes_f43(const qwino_operator& op) { return packed_bytes(op, op.f43); }

}  // namespace

const AlgorithmEntry kWinogradF2x2Algorithm = {qwino_algorithm_winograd_f2x2_3x3,
                                               "winograd-f2x2-3x3",
                                               QWINO_FLAG_FORCE_WINOGRAD_F2X2,
                                               decide_f23,
                                               cost_f23,
                                               prepare_f23,
                                               weight_bytes_f23,
                                               plan_f23,
                                               nullptr,
                                               run_winograd_item};
const AlgorithmEntry kWinogradF4x4Algorithm = {qwino_algorithm_winograd_f4x4_3x3,
                                               "winograd-f4x4-3x3",
                                               QWINO_FLAG_FORCE_WINOGRAD_F4X4,
                                               decide_f43,
                                               cost_f43,
                                               prepare_f43,
                                               weight_bytes_f43,
                                               plan_f43,
                                               nullptr,
                                               run_winograd_item};

}  // namespace qwino
