// Direct convolution: the path for every valid convolution that Winograd does not cover (any
// kernel size, stride, dilation, groups, or weights beyond Winograd's exactness bound), as
// im2col + GEMM + requantization on the micro-kernels of the dispatch table.
//
// One work item is a region of consecutive output pixels of one image and group, for one block
// of output channels (DirectSchedule):
//   1. im2col: A row p = the receptive field of output pixel p as int16 x - input_zero_point,
//      taps-major and channels innermost ([kh][kw][ic], the order of the weights), with the
//      taps in the padding set to 0;
//   2. C = A x B with the GEMM micro-kernel, B = w - kernel_zero_point packed at create
//      (DirectWeights);
//   3. the requantize micro-kernel: C + bias -> 8-bit values, straight into the NHWC output.
// A and C live in the task's scratch, and so does B for layers whose panels are streamed
// (DirectWeights::streamed). Both operands fit int16 (|x - izp|, |w - kzp| <= 255) and
// the GEMM sums modulo 2^32, TFLite's int32 accumulator: the bytes are doc/DESIGN.md section 1's
// for every input, on every ISA and thread count.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "qwino/algorithm.h"
#include "qwino/checked-size.h"
#include "qwino/common.h"
#include "qwino/convolution-paths.h"
#include "qwino/operator.h"
#include "qwino/packing-budget.h"
#include "qwino/packing.h"
#include "qwino/receptive-fields.h"
#include "qwino/tuning.h"

namespace qwino {
namespace {

// dst[i] = (src[i] ^ sign) - zero_point, i < n, in the offset-binary view of
// qwino/microparams.h (a loop the compiler vectorises).
inline void subtract_zero_point(const uint8_t* QWINO_RESTRICT src, size_t n, int16_t zero_point,
                                uint8_t sign, int16_t* QWINO_RESTRICT dst) {
  for (size_t i = 0; i < n; i++) {
    dst[i] = static_cast<int16_t>(int16_t{static_cast<uint8_t>(src[i] ^ sign)} - zero_point);
  }
}

// im2col's field: the int16 view of x - input_zero_point, 0 in the padding (which holds the
// zero point).
struct ZeroPointSubtracted {
  int16_t zero_point;
  uint8_t sign;
  void pad(int16_t* dst, size_t n) const { std::fill_n(dst, n, int16_t{0}); }
  void copy(const uint8_t* src, size_t n, int16_t* dst) const {
    subtract_zero_point(src, n, zero_point, sign, dst);
  }
};

// Step 1: the region's A rows, a_row_stride apart (only the first K elements of a row).
void im2col(const qwino_operator& op, size_t image, size_t group, size_t first_pixel, size_t pixels,
            int16_t* a) {
  const SetupState& s = op.setup;
  const ConvolutionGeometry& g = op.geometry;
  const ZeroPointSubtracted field{op.input_zero_point, op.input_sign};
  if (s.direct.pointwise) {  // A rows = the region's input pixels, back to back
    const size_t channels = g.group_input_channels;
    const uint8_t* input =
        s.input + image * s.input_height * s.input_width * s.input_pixel_stride + group * channels;
    field.copy(input + first_pixel * channels, pixels * channels, a);
    return;
  }
  gather_receptive_fields(op, image, group, first_pixel, pixels, a, s.direct.a_row_stride, field);
}

// Steps 1 and 2 on the int16 GEMM.
void multiply_int16(const qwino_operator& op, size_t image, size_t group, size_t first_pixel,
                    size_t pixels, size_t first_channel, size_t channels, char* scratch, int16_t* a,
                    int32_t* c) {
  const DirectSchedule& d = op.setup.direct;
  const ConvolutionGeometry& g = op.geometry;
  im2col(op, image, group, first_pixel, pixels, a);

  // Step 2: each B panel (K x nr) stays in L1 while the region's A rows stream past it.
  const size_t mr = op.kernels.gemm.mr;
  const size_t nr = op.kernels.gemm.nr;
  const int16_t* b;
  if (op.direct.streamed) {  // this item's panels, packed into the scratch
    int16_t* panels = reinterpret_cast<int16_t*>(scratch + d.b_offset_bytes);
    pack_direct_weights(
        op.kernel.data() + (group * g.group_output_channels + first_channel) * op.direct.k,
        op.direct.k, channels, op.kernel_zero_point, nr, op.kernels.gemm.kr, panels);
    b = panels;
  } else {
    b = op.direct.packed_weights.get() + group * op.direct.packed_group_stride +
        first_channel / nr * op.direct.packed_panel_stride;
  }
  for (size_t n = 0; n < channels; n += nr, b += op.direct.packed_panel_stride) {
    for (size_t row = 0; row < pixels; row += mr) {
      op.kernels.gemm.ukernel(QWINO_MIN(mr, pixels - row), QWINO_MIN(nr, channels - n), op.direct.k,
                              a + row * d.a_row_stride, d.a_row_stride, b,
                              c + row * d.c_row_stride + n, d.c_row_stride);
    }
  }
}

// Steps 1 and 2 on the pair GEMM (DirectWeights::pairs): the region's rows as the input bytes
// (a 1x1 layer's rows are its input pixels where their blocks of 16 bytes end with the row; the
// others are gathered, in the offset-binary view, rows padded with zeros to whole blocks), then
// per panel and tile the pair GEMM, which reads each row's blocks in the panel's order (its
// initial values take the input zero point off).
void multiply_pairs(const qwino_operator& op, size_t image, size_t group, size_t first_pixel,
                    size_t pixels, size_t first_channel, size_t channels, char* scratch,
                    int32_t* c) {
  const SetupState& s = op.setup;
  const DirectSchedule& d = s.direct;
  const DirectWeights& w = op.direct;
  const qwino_u8s8_gemm_config& gemm = op.kernels.pair_gemm;
  const uint8_t* rows;
  size_t row_stride;
  uint8_t sign = 0;
  if (d.gathered_row_bytes == 0) {
    row_stride = w.k;
    rows = s.input + (image * s.input_height * s.input_width + first_pixel) * row_stride;
    sign = op.input_sign;
  } else {
    row_stride = d.gathered_row_bytes;
    uint8_t* gathered = reinterpret_cast<uint8_t*>(scratch);
    gather_receptive_fields(op, image, group, first_pixel, pixels, gathered, row_stride,
                            InputBytes{op.zero_pixel.data()[0], op.input_sign});
    for (size_t p = 0; p < pixels; p++) {
      std::memset(gathered + p * row_stride + w.k, 0, row_stride - w.k);
    }
    rows = gathered;
  }
  const size_t mr = gemm.mr;
  for (size_t n = 0; n < channels; n += QWINO_U8S8_GEMM_NR) {
    const size_t panel = group * w.pair_panels_per_group + (first_channel + n) / QWINO_U8S8_GEMM_NR;
    const uint32_t first_block = w.pair_first_block[panel];
    const size_t blocks = w.pair_first_block[panel + 1] - first_block;
    const int8_t* b = w.pair_panels.get() + pair_panel_offset(panel, first_block);
    for (size_t row = 0; row < pixels; row += mr) {
      gemm.ukernel(QWINO_MIN(mr, pixels - row), QWINO_MIN(QWINO_U8S8_GEMM_NR, channels - n), blocks,
                   rows + row * row_stride, row_stride, w.pair_blocks.data() + first_block, sign, b,
                   c + row * d.c_row_stride + n, d.c_row_stride);
    }
  }
}

}  // namespace

PixelRegionItem pixel_region_item(const qwino_operator& op, size_t item) {
  const DirectSchedule& d = op.setup.direct;
  const ConvolutionGeometry& g = op.geometry;
  PixelRegionItem it;
  const size_t channel_block = item % d.channel_blocks;
  item /= d.channel_blocks;
  const size_t region = item % d.regions;
  item /= d.regions;
  it.group = item % g.groups;
  it.image = item / g.groups;
  it.first_pixel = region * d.region_pixels;
  it.pixels = QWINO_MIN(d.region_pixels, d.pixels - it.first_pixel);
  it.first_channel = channel_block * d.channel_block;
  it.channels = QWINO_MIN(d.channel_block, g.group_output_channels - it.first_channel);
  return it;
}

void run_direct_item(const qwino_operator& op, size_t item, char* scratch) {
  const SetupState& s = op.setup;
  const DirectSchedule& d = s.direct;
  const ConvolutionGeometry& g = op.geometry;
  const auto [image, group, first_pixel, pixels, first_channel, channels] =
      pixel_region_item(op, item);
  int16_t* a = reinterpret_cast<int16_t*>(scratch);
  int32_t* c = reinterpret_cast<int32_t*>(scratch + d.c_offset_bytes);
  if (op.direct.pairs) {
    multiply_pairs(op, image, group, first_pixel, pixels, first_channel, channels, scratch, c);
  } else {
    multiply_int16(op, image, group, first_pixel, pixels, first_channel, channels, scratch, a, c);
  }

  // Step 3: the region's pixels are consecutive, so their outputs are one strided row.
  const size_t channel_offset = group * g.group_output_channels + first_channel;
  uint8_t* output =
      s.output + (image * d.pixels + first_pixel) * s.output_pixel_stride + channel_offset;
  op.requantize().ukernel(pixels, channels, c, d.c_row_stride,
                          op.channel_params.data() + channel_offset, output, s.output_pixel_stride,
                          &op.requantize_params);
}

}  // namespace qwino

// ---------------------------------------------------------------------------------------------
// The algorithm entry (qwino/algorithm.h).

namespace qwino {
namespace {

// Every valid convolution.
bool decide(qwino_operator*) { return true; }

bool weights_within_budget(const qwino_operator& op) {
  const ConvolutionGeometry& g = op.geometry;
  const size_t k = size_t{g.kernel_height} * g.kernel_width * g.group_input_channels;
  return packing_within_budget(g.groups, 1, k, g.group_output_channels, op.kernel.size());
}

// The pair GEMM where the CPU has one, every b = w - kernel_zero_point is an int8 value (true
// of every int8 weight, and of uint8 weights within 128 of their zero point) and the panels stay
// resident.
bool takes_pair_gemm(const qwino_operator& op) {
  return op.kernels.pair_gemm.ukernel != nullptr && op.kernel_fits_int8 &&
         weights_within_budget(op);
}

// Taps x channels multiply-accumulates per output pixel, plus im2col (one value per tap and
// input channel) and requantization, which cost per value like the requantize kernel.
double cost(const qwino_operator& op, size_t output_height, size_t output_width) {
  const ConvolutionGeometry& g = op.geometry;
  const double pixels = double(output_height) * double(output_width);
  const double taps = double(g.kernel_height) * double(g.kernel_width);
  const double k = double(g.group_input_channels), n = double(g.group_output_channels);
  const double mac_cost =
      takes_pair_gemm(op) ? op.kernels.pair_gemm.mac_cost : op.kernels.gemm.mac_cost;
  return pixels * (mac_cost * taps * k * n + op.requantize().value_cost * (taps * k + n));
}

// The pair GEMM's panels of every group, with each column's initial value -input_zero_point x
// its sum of b (the A rows hold the input bytes, not x - input_zero_point), kept unless the
// blocks the packing had to split make them cost as much as the int16 panels (weights near the
// ends of the int8 range, e.g. uniformly spread ones). False only when memory runs out.
bool prepare_pairs(qwino_operator* op, size_t k) {
  const ConvolutionGeometry& g = op->geometry;
  DirectWeights& d = op->direct;
  PairWeights pairs;
  for (size_t group = 0; group < g.groups; group++) {
    pack_u8s8_pair_weights(op->kernel.data() + group * g.group_output_channels * k, k,
                           g.group_output_channels, op->kernel_zero_point,
                           -int32_t{op->input_zero_point}, &pairs);
  }
  const size_t panels = pairs.first_block.size() - 1;
  const double pair_cost =
      double(op->kernels.pair_gemm.mac_cost) * 16.0 * double(pairs.blocks.size());
  const double int16_cost =
      double(op->kernels.gemm.mac_cost) * double(panels) * double(qwino_round_up(k, kGemmKPadding));
  if (pair_cost >= int16_cost) {
    return true;
  }
  AlignedBuffer<int8_t> packed = allocate_aligned<int8_t>(pairs.bytes.size());
  if (!packed) {
    return false;
  }
  std::memcpy(packed.get(), pairs.bytes.data(), pairs.bytes.size());
  d.pair_panels = std::move(packed);
  d.pair_panel_bytes_total = pairs.bytes.size();
  d.pair_blocks = std::move(pairs.blocks);
  d.pair_first_block = std::move(pairs.first_block);
  d.pair_panels_per_group = qwino_divide_round_up(g.group_output_channels, QWINO_U8S8_GEMM_NR);
  d.k = k;
  d.pairs = true;
  return true;
}

// B = w - kernel_zero_point, packed once for the GEMM micro-kernel of the operator's config (its
// NR and KR) unless already done, so that every run multiplies the im2col rows by it with no
// per-run weight work; past the packing budget (qwino/packing-budget.h), items pack their panels
// instead (DirectWeights::streamed).
bool prepare(qwino_operator* op, size_t, size_t) {
  DirectWeights& d = op->direct;
  if (d.packed_weights || d.streamed || d.pairs) {
    return true;
  }
  const ConvolutionGeometry& g = op->geometry;
  const size_t k = size_t{g.kernel_height} * g.kernel_width * g.group_input_channels;
  if (takes_pair_gemm(*op)) {
    if (!prepare_pairs(op, k)) {
      return false;
    }
    if (d.pairs) {
      return true;
    }
  }
  const size_t nr = op->kernels.gemm.nr;
  const size_t panel_stride = packed_panel_elements(k, nr);
  const size_t group_stride = qwino_divide_round_up(g.group_output_channels, nr) * panel_stride;
  size_t elements = 0;
  const bool resident =
      weights_within_budget(*op) && checked_product({size_t{g.groups}, group_stride}, &elements);
  if (resident) {
    AlignedBuffer<int16_t> packed = allocate_aligned<int16_t>(elements);
    if (!packed) {
      return false;
    }
    for (size_t group = 0; group < g.groups; group++) {
      pack_direct_weights(op->kernel.data() + group * g.group_output_channels * k, k,
                          g.group_output_channels, op->kernel_zero_point, nr, op->kernels.gemm.kr,
                          packed.get() + group * group_stride);
    }
    d.packed_weights = std::move(packed);
  }
  d.k = k;
  d.streamed = !resident;
  d.packed_panel_stride = panel_stride;
  d.packed_group_stride = group_stride;
  return true;
}

void plan(const qwino_operator& op, SetupState* setup) {
  const ConvolutionGeometry& g = op.geometry;
  DirectPlanInput in{};
  in.k = op.direct.k;
  in.mr = op.kernels.gemm.mr;
  in.nr = op.kernels.gemm.nr;
  in.pointwise = g.kernel_height == 1 && g.kernel_width == 1 && g.stride_height == 1 &&
                 g.stride_width == 1 && g.padding_top == 0 && g.padding_left == 0 &&
                 g.padding_bottom == 0 && g.padding_right == 0 &&
                 setup->input_pixel_stride == g.group_input_channels;
  in.streamed_panel_elements = op.direct.streamed ? op.direct.packed_panel_stride : 0;
  if (op.direct.pairs) {
    in.pairs = true;
    in.mr = op.kernels.pair_gemm.mr;
    in.nr = QWINO_U8S8_GEMM_NR;
    // Every block reads 16 bytes: input pixels serve as rows only where k fills whole blocks.
    in.gathered_row_bytes = in.pointwise && in.k % 16 == 0 ? 0 : qwino_round_up(in.k, 16);
  }
  plan_pixel_regions(op, in, setup);
}

}  // namespace

void plan_pixel_regions(const qwino_operator& op, DirectPlanInput in, SetupState* setup) {
  const ConvolutionGeometry& g = op.geometry;
  in.batch_size = setup->batch_size;
  in.groups = g.groups;
  in.output_height = setup->output_height;
  in.output_width = setup->output_width;
  in.group_output_channels = g.group_output_channels;
  in.threads = setup->threads;
  setup->direct = plan_direct(in);
  const DirectSchedule& s = setup->direct;
  setup->work_items = setup->batch_size * g.groups * s.regions * s.channel_blocks;
  setup->scratch_bytes_per_task = s.scratch_bytes_per_task;
}

namespace {

size_t weight_bytes(const qwino_operator& op) {
  const DirectWeights& d = op.direct;
  if (d.pairs) {
    return d.pair_panel_bytes_total + d.pair_blocks.size() * sizeof(qwino_pair_block) +
           d.pair_first_block.size() * sizeof(uint32_t);
  }
  return op.direct.packed_weights
             ? op.direct.packed_group_stride * op.geometry.groups * sizeof(int16_t)
             : 0;
}

}  // namespace

const AlgorithmEntry kDirectAlgorithm = {qwino_algorithm_direct,
                                         "direct",
                                         QWINO_FLAG_FORCE_DIRECT,
                                         decide,
                                         cost,
                                         prepare,
                                         weight_bytes,
                                         plan,
                                         nullptr,
                                         run_direct_item};

}  // namespace qwino
