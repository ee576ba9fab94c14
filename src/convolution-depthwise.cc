// Depthwise convolution (groups of one input and one output channel: MobileNets, EfficientNets):
// the path that multiplies each channel by its own taps, with channels in vector lanes.
//
// The im2col + GEMM paths see a depthwise layer as `groups` GEMMs with one output column each, so
// every multiply fills one lane of a tile; here one vector instruction multiplies one tap of CR
// channels (MNN's C16 layout, seed 004: the weights of one tap of CR channels are contiguous in
// the packed block, so one load fills a register), every tap adds into the same accumulators,
// and the kernel requantizes them and stores the bytes, with no int32 round trip through memory.
//
// Setup builds an indirection buffer (QNNPACK's indirection, seed 002) of pixel pointers per
// output row (or, past kMaxPrebuiltIndirectionBytes, each work item builds its row's in its
// scratch). Taps are enumerated column-major (kx * kernel_height + ky), so with dilation 1 in
// x the taps of output pixel ox + 1 are those of ox shifted by stride_width columns: a row needs
// ((output_width - 1) * stride_width + kernel_width) x kernel_height pointers, and the kernel
// steps stride_width x kernel_height pointers per pixel (XNNPACK's dwconv does the same). A
// dilated row lists every pixel's taps. Padding taps point at a row of input zero points, so any
// padding (TensorFlow's asymmetric SAME included) and any stride cost nothing in the kernel.
//
// Arithmetic (doc/DESIGN.md section 3): as in the indirect GEMM, the kernel multiplies
// a = x_view - 128 (int8) by b = w - kernel_zero_point and create folds -(izp - 128) sum_t b_t
// into the bias, so padding taps (which read izp) add exactly 0 and every output byte is the
// definition's. Kernels whose layout holds b in int8 ([-127, 127]: symmetric int8 weights) take
// each tap once; uint8 weights with another zero point have b up to +-255, which such a kernel
// takes as two or three int8 slices of the tap reading the same pixel (src/packing.cc); kernels
// with int16 weights (x86) take any b directly. Slices are counted per block of the kernel's cr
// channels: a uint8 model's weights span the byte range, but only the channels that hold the
// tensor's extremes reach beyond 127 from the zero point, so most blocks take one slice. The
// operator calls the kernel once per run of blocks with the same count, each count with its own
// row of pointers (every tap repeated that many times).
//
// A CPU may have kernels for 3-row and 5-row kernels (kernels.dwconv_col3 / dwconv_col5, the
// dot-product cores' SDOT kernels: their int8_col3 / int8_col5 layouts put a kernel column's taps
// of a channel in 4-byte lanes, and they transpose each input column once for the pixels that
// share it). decide() takes them for the layers they are written for (3x3 at stride 1 or 2 in x,
// 5x5 at stride 1, dilation 1 in x) whose weights need one slice; the pointers are the same.
#include <algorithm>
#include <cstdint>

#include "qwino/algorithm.h"
#include "qwino/checked-size.h"
#include "qwino/common.h"
#include "qwino/indirection.h"
#include "qwino/operator.h"
#include "qwino/packing.h"
#include "qwino/tuning.h"
#include "qwino/work-split.h"

namespace qwino {
namespace {

size_t kernel_taps(const ConvolutionGeometry& g) {
  return size_t{g.kernel_height} * g.kernel_width;
}

// The slices of block `block` (cr channels, fewer in a last block).
size_t block_slices(const qwino_operator& op, size_t block) {
  const size_t cr = op.dwconv().cr, taps = kernel_taps(op.geometry);
  const size_t first = block * cr, count = std::min(cr, size_t{op.geometry.groups} - first);
  return dwconv_weight_slices(op.kernel.data() + first * taps, count * taps, op.kernel_zero_point,
                              op.dwconv().layout);
}

// Also counts the slices, which the cost and the plan depend on.
bool decide(qwino_operator* op) {
  const ConvolutionGeometry& g = op->geometry;
  if (g.group_input_channels != 1 || g.group_output_channels != 1) {
    return false;
  }
  DepthwiseWeights& w = op->depthwise;
  // The CPU's 3-row and 5-row kernels (SDOT on dot-product cores) for the layers they are
  // written for: 3x3 at stride 1 or 2 in x (neighbouring pixels share 2 or 1 of their 3
  // columns), 5x5 at stride 1 (each column serves 5 pixels), dilation 1 in x, with weights
  // within int8 (their layouts have no slices).
  const qwino_requantization_mode mode = op->requantization;
  w.column_rows = 0;
  if (g.dilation_width == 1 && g.kernel_height == 3 && g.kernel_width == 3 &&
      (g.stride_width == 1 || g.stride_width == 2) &&
      op->kernels.dwconv_col3[mode].ukernel != nullptr) {
    w.column_rows = 3;
  } else if (g.dilation_width == 1 && g.kernel_height == 5 && g.kernel_width == 5 &&
             g.stride_width == 1 && op->kernels.dwconv_col5[mode].ukernel != nullptr) {
    w.column_rows = 5;
  }
  for (size_t block = 0; w.column_rows != 0 && block * op->dwconv().cr < g.groups; block++) {
    if (block_slices(*op, block) != 1) {
      w.column_rows = 0;
    }
  }
  const size_t cr = op->dwconv().cr;
  w.slice_counts = 0;
  double slice_channels = 0.0;
  for (size_t block = 0; block * cr < g.groups; block++) {
    const size_t slices = block_slices(*op, block);
    w.slice_counts |= 1u << slices;
    slice_channels += double(slices) * double(std::min(cr, size_t{g.groups} - block * cr));
  }
  w.mean_slices = slice_channels / double(g.groups);
  return true;
}

// One multiply-accumulate per tap (and slice) of every output value, plus its requantization;
// per group, like every entry's cost (doc/DESIGN.md section 6).
double cost(const qwino_operator& op, size_t output_height, size_t output_width) {
  const ConvolutionGeometry& g = op.geometry;
  const double values = double(output_height) * double(output_width);
  const double taps = double(kernel_taps(g)) * op.depthwise.mean_slices;
  return values * (op.dwconv().mac_cost * taps + op.requantize().value_cost);
}

bool prepare(qwino_operator* op, size_t, size_t) {
  DepthwiseWeights& w = op->depthwise;
  if (w.packed_weights) {
    return true;
  }
  const ConvolutionGeometry& g = op->geometry;
  const qwino_s8_dwconv_config& dwconv = op->dwconv();
  const size_t channels = g.groups;
  const size_t blocks = qwino_divide_round_up(channels, size_t{dwconv.cr});
  Array<uint8_t> slices;
  Array<size_t> offsets;
  if (!slices.assign(blocks, uint8_t{1}) || !offsets.assign(blocks + 1, size_t{0})) {
    return false;
  }
  for (size_t block = 0; block < blocks; block++) {
    slices.data()[block] = static_cast<uint8_t>(block_slices(*op, block));
    const size_t block_taps = kernel_taps(g) * slices.data()[block];
    offsets.data()[block + 1] =
        offsets.data()[block] + qwino_dwconv_block_bytes(dwconv.layout, block_taps, dwconv.cr);
  }
  AlignedBuffer<char> packed = allocate_aligned<char>(offsets.data()[blocks]);
  AlignedBuffer<int64_t> column_sums = allocate_aligned<int64_t>(channels);
  Array<int32_t> channel_params;
  Array<uint8_t> zero_row;
  if (!packed || !column_sums ||
      !channel_params.assign(op->channel_params.data(), op->channel_params.size()) ||
      !zero_row.assign(channels, op->zero_pixel.data()[0])) {
    return false;
  }
  for (size_t block = 0; block < blocks; block++) {
    const size_t first = block * dwconv.cr;
    pack_dwconv_weights(
        op->kernel.data() + first * kernel_taps(g), std::min(size_t{dwconv.cr}, channels - first),
        g.kernel_height, g.kernel_width, op->kernel_zero_point, slices.data()[block], dwconv.cr,
        dwconv.layout, packed.get() + offsets.data()[block], column_sums.get() + first);
  }
  // The per-channel arrays start with the bias.
  fold_input_zero_point(column_sums.get(), channels, op->input_zero_point, 0, 0, 0,
                        channel_params.data());
  w.block_slices = std::move(slices);
  w.block_offsets = std::move(offsets);
  w.packed_weights = std::move(packed);
  w.channel_params = std::move(channel_params);
  w.zero_row = std::move(zero_row);
  return true;
}

void plan(const qwino_operator& op, SetupState* setup) {
  const ConvolutionGeometry& g = op.geometry;
  DepthwiseSchedule& s = setup->depthwise;
  // Row sizes wrap only for absurd layers (kernel bytes and image sizes are bounded, their
  // products are not): SIZE_MAX then fails setup's size checks. pixel_step <= row_entries
  // whenever a row has two pixels, so it cannot wrap where it is used.
  size_t columns = 0;
  if (g.dilation_width == 1) {
    columns = (setup->output_width - 1) * g.stride_width + g.kernel_width;  // <= padded width
  } else if (!checked_product({setup->output_width, size_t{g.kernel_width}}, &columns)) {
    columns = SIZE_MAX;
  }
  s.set_entries = 0;
  for (size_t slices = 0; slices <= DepthwiseWeights::kMaxSlices; slices++) {
    s.row_entries[slices] = s.row_offset[slices] = s.pixel_step[slices] = 0;
    if ((op.depthwise.slice_counts >> slices & 1u) == 0) {
      continue;
    }
    const size_t column_entries = size_t{g.kernel_height} * slices;
    s.pixel_step[slices] =
        (g.dilation_width == 1 ? g.stride_width : g.kernel_width) * column_entries;
    size_t entries = 0;
    if (!checked_product({columns, column_entries}, &entries) ||
        entries > SIZE_MAX - s.set_entries) {
      s.set_entries = SIZE_MAX;
      break;
    }
    s.row_entries[slices] = entries;
    s.row_offset[slices] = s.set_entries;
    s.set_entries += entries;
  }
  const size_t rows = setup->batch_size * setup->output_height;
  s.channel_block = depthwise_channel_block(g.groups, op.dwconv().cr, rows, setup->threads);
  s.channel_blocks = qwino_divide_round_up(g.groups, s.channel_block);
  setup->work_items = rows * s.channel_blocks;
  size_t entries = 0, row_bytes = 0;
  s.prebuilt = checked_product({rows, s.set_entries, sizeof(const uint8_t*)}, &entries) &&
               entries <= kMaxPrebuiltIndirectionBytes;
  setup->indirection_entries = s.prebuilt ? rows * s.set_entries : 0;
  // Otherwise a row of pointers per task; a size past size_t fails setup's scratch size check
  // (out_of_memory) instead of wrapping.
  setup->scratch_bytes_per_task = 0;
  if (!s.prebuilt) {
    setup->scratch_bytes_per_task =
        checked_product({s.set_entries, sizeof(const uint8_t*)}, &row_bytes) &&
                row_bytes <= SIZE_MAX - QWINO_CACHE_LINE_SIZE
            ? qwino_round_up(row_bytes, QWINO_CACHE_LINE_SIZE)
            : SIZE_MAX;
  }
}

// The pointers of output row `row` (image * output_height + oy) for each slice count used,
// column-major taps, each repeated `slices` times, at pointers + row_offset[slices];
// neighbouring pixels write the same value into the entries they share.
void build_row(const qwino_operator& op, const SetupState& s, size_t row,
               const uint8_t** pointers) {
  const ConvolutionGeometry& g = op.geometry;
  const DepthwiseSchedule& d = s.depthwise;
  const size_t image = row / s.output_height, oy = row % s.output_height;
  const uint8_t* zero = op.depthwise.zero_row.data();
  for (size_t ky = 0; ky < g.kernel_height; ky++) {
    const uint8_t* input_row = input_row_or_null(
        s, image, tap_coordinate(oy, g.stride_height, ky, g.dilation_height, g.padding_top));
    for (size_t slices = 1; slices <= DepthwiseWeights::kMaxSlices; slices++) {
      if (d.row_entries[slices] == 0) {
        continue;
      }
      const uint8_t** entries = pointers + d.row_offset[slices];
      if (g.dilation_width == 1) {
        // Column c of the row is what tap kx of pixel ox reads for c = ox * stride + kx: each
        // entry is written once (built per item at every run, past the setup-time budget, this
        // walk is what a row of few channels pays).
        const size_t columns = d.row_entries[slices] / (size_t{g.kernel_height} * slices);
        for (size_t c = 0; c < columns; c++) {
          const uint8_t* pixel =
              tap_pixel(s, input_row,
                        static_cast<ptrdiff_t>(c) - static_cast<ptrdiff_t>(g.padding_left), zero);
          std::fill_n(entries + (c * g.kernel_height + ky) * slices, slices, pixel);
        }
        continue;
      }
      for (size_t ox = 0; ox < s.output_width; ox++) {
        for (size_t kx = 0; kx < g.kernel_width; kx++) {
          const uint8_t* pixel = tap_pixel(
              s, input_row,
              tap_coordinate(ox, g.stride_width, kx, g.dilation_width, g.padding_left), zero);
          std::fill_n(entries + ox * d.pixel_step[slices] + (kx * g.kernel_height + ky) * slices,
                      slices, pixel);
        }
      }
    }
  }
}

void bind(const qwino_operator& op, SetupState* setup) {
  const DepthwiseSchedule& d = setup->depthwise;
  if (!d.prebuilt) {
    return;
  }
  const size_t rows = setup->batch_size * setup->output_height;
  for (size_t row = 0; row < rows; row++) {
    build_row(op, *setup, row, setup->indirection.get() + row * d.set_entries);
  }
}

void run_item(const qwino_operator& op, size_t item, char* scratch) {
  const SetupState& s = op.setup;
  const DepthwiseSchedule& d = s.depthwise;
  const ConvolutionGeometry& g = op.geometry;
  const qwino_s8_dwconv_config& dwconv = op.dwconv();
  const DepthwiseWeights& w = op.depthwise;
  const size_t channel_block = item % d.channel_blocks;
  const size_t row = item / d.channel_blocks;  // image * output_height + oy
  const uint8_t** pointers;
  if (d.prebuilt) {
    pointers = s.indirection.get() + row * d.set_entries;
  } else {
    pointers = reinterpret_cast<const uint8_t**>(scratch);
    build_row(op, s, row, pointers);
  }
  const size_t first_channel = channel_block * d.channel_block;
  const size_t end_channel = std::min(first_channel + d.channel_block, size_t{g.groups});
  uint8_t* output = s.output + row * s.output_width * s.output_pixel_stride;
  const size_t cr = dwconv.cr;
  // One call per run of blocks with the same slice count (the item starts on a block).
  for (size_t first = first_channel; first < end_channel;) {
    const size_t slices = w.block_slices.data()[first / cr];
    size_t end = first;
    while (end < end_channel && w.block_slices.data()[end / cr] == slices) {
      end = std::min(end + cr, end_channel);
    }
    dwconv.ukernel(
        end - first, s.output_width, kernel_taps(g) * slices, pointers + d.row_offset[slices],
        d.pixel_step[slices], first, static_cast<uint8_t>(op.input_sign ^ 0x80),
        w.packed_weights.get() + w.block_offsets.data()[first / cr],
        w.channel_params.data() + first, output + first, s.output_pixel_stride, &op.dwconv_params);
    first = end;
  }
}

// The packing's size is where its last block ends (block_offsets has blocks + 1), plus its
// tables, per-channel values and zero row.
size_t weight_bytes(const qwino_operator& op) {
  const DepthwiseWeights& dw = op.depthwise;
  return dw.packed_weights ? dw.block_offsets.data()[dw.block_offsets.size() - 1] +
                                 dw.block_offsets.size() * sizeof(size_t) + dw.block_slices.size() +
                                 dw.channel_params.size() * sizeof(int32_t) + dw.zero_row.size()
                           : 0;
}

}  // namespace

const AlgorithmEntry kDepthwiseAlgorithm = {qwino_algorithm_depthwise,
                                            "depthwise",
                                            QWINO_FLAG_FORCE_DEPTHWISE,
                                            decide,
                                            cost,
                                            prepare,
                                            weight_bytes,
                                            plan,
                                            bind,
                                            run_item};

}  // namespace qwino
