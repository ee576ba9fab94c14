// Algorithm choice. Exactness first: a Winograd algorithm is allowed only when the weights prove
// it exact for every possible input (doc/DESIGN.md section 2). Among the allowed ones the operator
// takes the one with the lowest modeled cost for the image size it is set up with.
//
// The cost model counts GEMM multiply-accumulates plus transform work per output image:
// F(4x4,3x3) needs 36 products per 16 outputs, F(2x2,3x3) 16 per 4, the direct path (im2col +
// the same int16 GEMM) 9 per output, but Winograd computes whole tiles, so small maps waste
// work in partial tiles (7x7 with 4x4 tiles: 49 of 64 outputs useful), and its transforms cost
// per channel, which matters on shallow layers. All three run on the same GEMM kernel, so MACs
// are comparable. On dotprod cores a direct int8 GEMM would change the picture (doc/DESIGN.md
// section 6), which is why the hardware facts are recorded.
#include "qwino/algorithm-choice.h"


#include "qwino/checked-size.h"
#include "qwino/common.h"
#include "qwino/packing-budget.h"
#include "qwino/winograd-weights.h"

namespace qwino {
namespace {

// One transformed value (input or output side) costs about as much as this many GEMM MACs:
// a few ASIMD instructions per 8 lanes, against 4 MACs per multiply instruction.
constexpr double kTransformCostInMacs = 2.0;
// F(4x4,3x3) blocks of input channels are whole multiples of this (GEMM k-groups).
constexpr size_t kChannelBlockGranularity = 8;

bool winograd_shape(const ConvolutionGeometry& g) {
  return g.kernel_height == 3 && g.kernel_width == 3 && g.stride_height == 1 &&
         g.stride_width == 1 && g.dilation_height == 1 && g.dilation_width == 1;
}

bool f23_exact(const uint8_t* kernel, const ConvolutionGeometry& g, uint8_t input_zero_point,
               uint8_t kernel_zero_point) {
  const size_t group_elements = g.group_output_channels * 9 * g.group_input_channels;
  for (size_t group = 0; group < g.groups; group++) {
    if (winograd_accumulator_bound(kernel + group * group_elements, g.group_input_channels,
                                   g.group_output_channels, 0, g.group_input_channels,
                                   input_zero_point, kernel_zero_point) >= kF23AccumulatorLimit) {
      return false;
    }
  }
  return true;
}

double winograd_cost(const ConvolutionGeometry& g, size_t alpha, size_t blocks,
                     size_t output_height, size_t output_width) {
  const size_t tile = alpha - 2;
  const double tiles = double(qwino_divide_round_up(output_height, tile)) *
                       double(qwino_divide_round_up(output_width, tile));
  const double positions = double(alpha * alpha);
  const double k = double(g.group_input_channels), n = double(g.group_output_channels);
  return tiles * positions * (k * n + kTransformCostInMacs * (k + n * double(blocks)));
}

// im2col (one value per tap and input channel) and requantization count like transform work.
double direct_cost(const ConvolutionGeometry& g, size_t output_height, size_t output_width) {
  const double pixels = double(output_height) * double(output_width);
  const double taps = double(g.kernel_height) * double(g.kernel_width);
  const double k = double(g.group_input_channels), n = double(g.group_output_channels);
  return pixels * (taps * k * n + kTransformCostInMacs * (taps * k + n));
}

// Elements of a Winograd algorithm's packed weights for every group (WinogradWeights), or
// false when the count overflows.
bool winograd_packed_elements(const ConvolutionGeometry& g, size_t alpha, size_t nr,
                              size_t* elements) {
  return checked_product({size_t{g.groups}, alpha * alpha,
                          qwino_divide_round_up(g.group_output_channels, nr),
                          winograd_packed_panel_elements(g.group_input_channels, nr)},
                         elements);
}

bool winograd_within_budget(const ConvolutionGeometry& g, size_t alpha, size_t weight_bytes) {
  return packing_within_budget(g.groups, alpha * alpha, g.group_input_channels,
                               g.group_output_channels, weight_bytes);
}

}  // namespace

qwino_status decide_allowed_algorithms(qwino_operator* op, uint32_t flags) {
  const ConvolutionGeometry& g = op->geometry;
  const uint8_t* kernel = op->kernel.data();
  // Winograd's panels are its speed: past the packing budget it is not an option (grouped layers
  // with a few channels per group, which the direct path streams instead).
  const bool shape = winograd_shape(g);
  const bool f23_exact_here = shape && winograd_within_budget(g, 4, op->kernel.size()) &&
                              f23_exact(kernel, g, op->input_zero_point, op->kernel_zero_point);
  std::vector<size_t> f43_blocks;
  if (shape && winograd_within_budget(g, 6, op->kernel.size()) &&
      op->kernels.f43_input_transform != nullptr && op->kernels.f43_output_transform != nullptr) {
    f43_blocks = winograd_channel_blocks(kernel, g.groups, g.group_input_channels,
                                         g.group_output_channels, op->input_zero_point,
                                         op->kernel_zero_point, kF43AccumulatorLimit,
                                         kChannelBlockGranularity);
  }
  const bool f43_exact_here = !f43_blocks.empty();
  if (((flags & QWINO_FLAG_FORCE_WINOGRAD) != 0 && !f23_exact_here) ||
      ((flags & QWINO_FLAG_FORCE_WINOGRAD_F4) != 0 && !f43_exact_here)) {
    return qwino_status_unsupported_parameter;
  }
  const bool automatic = (flags & (QWINO_FLAG_FORCE_WINOGRAD | QWINO_FLAG_FORCE_WINOGRAD_F4 |
                                   QWINO_FLAG_FORCE_DIRECT)) == 0;
  op->f23_allowed = f23_exact_here && (automatic || (flags & QWINO_FLAG_FORCE_WINOGRAD) != 0);
  op->f43_allowed = f43_exact_here && (automatic || (flags & QWINO_FLAG_FORCE_WINOGRAD_F4) != 0);
  op->direct_allowed = automatic || (flags & QWINO_FLAG_FORCE_DIRECT) != 0;
  op->f23.alpha = 4;
  op->f23.input_transform = op->kernels.f23_input_transform;
  op->f23.channel_block_starts = {0};
  op->f43.alpha = 6;
  op->f43.input_transform = op->kernels.f43_input_transform;
  op->f43.channel_block_starts = std::move(f43_blocks);
  // Before the image size is known, assume a map large enough for tile waste not to matter.
  op->algorithm = cheapest_algorithm(*op, 1024, 1024);
  return qwino_status_success;
}

qwino_algorithm cheapest_algorithm(const qwino_operator& op, size_t output_height,
                                   size_t output_width) {
  qwino_algorithm best = qwino_algorithm_none;
  double best_cost = 0.0;
  const auto consider = [&](bool allowed, qwino_algorithm algorithm, double cost) {
    if (allowed && (best == qwino_algorithm_none || cost < best_cost)) {
      best = algorithm;
      best_cost = cost;
    }
  };
  // Ties go to the earlier: the larger Winograd tile, then the smaller one, then direct.
  consider(op.f43_allowed, qwino_algorithm_winograd_f4x4_3x3,
           winograd_cost(op.geometry, 6, op.f43.channel_block_starts.size(), output_height,
                         output_width));
  consider(op.f23_allowed, qwino_algorithm_winograd_f2x2_3x3,
           winograd_cost(op.geometry, 4, 1, output_height, output_width));
  consider(op.direct_allowed || best == qwino_algorithm_none, qwino_algorithm_direct,
           direct_cost(op.geometry, output_height, output_width));
  return best;
}

bool prepare_winograd_weights(qwino_operator* op, qwino_algorithm algorithm) {
  WinogradWeights& w = algorithm == qwino_algorithm_winograd_f4x4_3x3 ? op->f43 : op->f23;
  if (w.packed_weights) {
    return true;
  }
  const ConvolutionGeometry& g = op->geometry;
  const WinogradKernelTransform& transform =
      w.alpha == 6 ? kF43KernelTransform : kF23KernelTransform;
  const size_t nr = op->kernels.gemm_nr;
  const size_t panel_stride = winograd_packed_panel_elements(g.group_input_channels, nr);
  size_t elements = 0;
  if (!winograd_packed_elements(g, w.alpha, nr, &elements)) {
    return false;
  }
  const size_t group_stride = elements / g.groups;
  AlignedBuffer<int16_t> packed = allocate_aligned<int16_t>(elements);
  if (!packed) {
    return false;
  }
  const size_t group_elements = g.group_output_channels * 9 * g.group_input_channels;
  for (size_t group = 0; group < g.groups; group++) {
    pack_winograd_weights(op->kernel.data() + group * group_elements, g.group_input_channels,
                          g.group_output_channels, op->kernel_zero_point, transform, nr,
                          op->kernels.gemm_kr, packed.get() + group * group_stride);
  }
  w.packed_panel_stride = w.alpha * w.alpha * panel_stride;
  w.packed_position_stride = panel_stride;
  w.packed_group_stride = group_stride;
  w.packed_weights = std::move(packed);
  return true;
}

}  // namespace qwino
