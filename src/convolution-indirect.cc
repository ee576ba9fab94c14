// Indirect convolution with 8-bit multiplies (QNNPACK's indirect convolution, seed 002): the
// path for layers where 8-bit multiplies beat the int16 GEMM, any 8-bit weights the CPU's kernel
// multiplies exactly.
//
// The GEMM micro-kernel (src/s8-igemm/) reads A through an indirection buffer: for every output
// pixel and kernel tap, a pointer to the input pixel the tap reads, or to a row of the input zero
// point for taps in the padding, so nothing is copied or widened per run. The pointers depend
// only on the sizes and the input pointer, so setup builds them once for the whole input, up to
// kMaxPrebuiltIndirectionBytes (qwino/tuning.h: every layer of the 224x224 benchmark networks).
// A larger input (a 1024x1024 3x3 layer would need 72 bytes an output pixel, 18 MB at stride 2)
// has each work item write its region's pointers into its scratch at every run instead, so the
// scratch stays bounded by the thread count and the region whatever the image.
//
// Arithmetic (doc/DESIGN.md section 1's accumulator, exactly): the kernel reads every input byte
// x (uint8 or int8) as the int8 value a = x_view - 128 (x XOR a_sign, a_sign = input_sign ^ 0x80)
// and multiplies it by b = w_view - o, int8, with o the output channel's weight offset: 128 (int8
// weights are w + 128 in the view, so b is the caller's weight), unless the kernel adds two
// products in an int16 lane (list entry b_min -127, the NEON SMULL + SMLAL kernel), which cannot
// take b = -128: then a channel with a weight 0 in the view gets the offset nearest 128 that keeps
// its weights within +-127 (a layer with a channel holding both 0 and 255 runs Winograd or the
// int16 direct path there). With izp the input zero point in the view, kzp the kernel's and
// g = o - kzp (the channel's gap: 0 but for uint8 weights with another zero point),
//   sum (x_view - izp)(w_view - kzp) = sum a b - (izp - 128) sum b + g sum (a - (izp - 128)).
// The second term depends only on the weights: create folds it into the bias (modulo 2^32, like
// every int32 operation of the accumulator). The third is the channel's gap times one sum per
// output pixel: the s8-irsum kernel sums the row's a through the same pointers; where every
// channel has the same gap (every kernel that takes -128) the fused GEMM kernel adds g s to the
// row's every column, otherwise the pass before the requantize kernel adds g_j s. Its cost, about
// one more output channel, is in the cost model. Padding taps read izp and contribute 0 to every
// term, as the definition wants. Kernels whose multiply takes unsigned A (VPDPBUSD) multiply
// a + 128 (their list entry's a_bias); for them create folds izp x sum b instead. Kernels whose
// multiply takes unsigned B too (UDOT, b_bias 128) multiply (a + 128)(b + 128), b + 128 packed
// as their byte: the extra 128 sum (a + 128) = 128 s + 128 K izp is the row sum once more, so
// such a layer always has row terms, each channel's gap lowered by 128, and create folds 128 K
// izp into the bias as well.
//
// Layers with few input channels per tap (a first layer's 3) gather rows instead: the kernel pads
// every tap's channels to its k interleave kr, so pointing at the taps of a 7x7 layer of 3
// channels multiplies 49 x 16 bytes a pixel with kr = 16 for 147 useful ones (49 x 4 with kr =
// 2 or 4). Each work item then copies its pixels' receptive fields into 8-bit rows in its scratch
// (im2col without widening: the input bytes, the zero point in the padding, both already XORed
// with a_sign so the kernel runs with a_sign 0; the walk is the direct path's,
// qwino/receptive-fields.h) and the GEMM sees one tap of K = taps x channels bytes, padded once
// (160 or 148). The weights are packed for that one tap at create; the sums
// and the zero point fold are the same, so the bytes are too. The cost model decides
// (gathers_rows): the saved multiplies against the copy.
//
// One work item is a region of consecutive output pixels of one image and group for one block of
// output channels (DirectSchedule, planned like the direct path; A rows only when gathered).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "qwino/algorithm.h"
#include "qwino/checked-size.h"
#include "qwino/common.h"
#include "qwino/convolution-paths.h"
#include "qwino/indirection.h"
#include "qwino/operator.h"
#include "qwino/packing-budget.h"
#include "qwino/packing.h"
#include "qwino/receptive-fields.h"
#include "qwino/tuning.h"

namespace qwino {
namespace {

size_t taps(const ConvolutionGeometry& g) { return size_t{g.kernel_height} * g.kernel_width; }

// Each output channel's weight offset o (b = w_view - o, see the top of the file): 128, unless
// the kernel cannot multiply -128 and the channel has a weight 0; then the offset nearest 128
// that keeps all the channel's weights within [-127, 127] of it, which exists when they span at
// most 254. offsets (one per output channel of every group, or null): where to put them.
struct WeightOffsets {
  bool fit = true;  // every channel has one
  // Some channel's gap (offset - kernel zero point - the kernel's b_bias) is not 0.
  bool row_terms = false;
};
WeightOffsets weight_offsets(const qwino_operator& op, uint8_t* offsets) {
  const ConvolutionGeometry& g = op.geometry;
  const size_t channel_weights = taps(g) * g.group_input_channels;
  const size_t channels = size_t{g.groups} * g.group_output_channels;
  WeightOffsets result;
  result.row_terms = op.kernels.igemm.b_bias != 0;
  for (size_t oc = 0; oc < channels; oc++) {
    int32_t offset = 128;
    if (op.kernels.igemm.b_min > -128) {
      const uint8_t* w = op.kernel.data() + oc * channel_weights;
      const auto range = std::minmax_element(w, w + channel_weights);
      const int32_t low = int32_t{*range.second} - 127, high = int32_t{*range.first} + 127;
      if (low > high) {
        result.fit = false;
        return result;
      }
      offset = std::clamp(offset, low, high);
    }
    result.row_terms |= offset != int32_t{op.kernel_zero_point};
    if (offsets != nullptr) {
      offsets[oc] = static_cast<uint8_t>(offset);
    }
  }
  return result;
}

// The row sums' cost per output pixel (qwino/tuning.h): about one more output channel's
// multiplies over the k bytes the kernel reads, and their taps.
double row_sums_cost(const qwino_s8_igemm_config& igemm, double k, double taps) {
  return igemm.mac_cost * k + QWINO_IRSUM_TAP_COST * taps;
}

// Whether the operator's fused kernel keeps a row block's rows of `row_bytes` (one tap) for all
// the panels of its calls (its list entry's resident_row_bytes, src/qu8-igemm/qu8-igemm.inc).
bool resident_rows(const qwino_operator& op, const qwino_s8_igemm_config& igemm, size_t row_bytes,
                   double taps_seen) {
  const qwino_qu8_igemm_config& fused = op.igemm_requantize();
  return fused.ukernel != nullptr && igemm.ukernel == op.kernels.igemm.ukernel &&
         taps_seen == 1.0 && row_bytes >= 9 && row_bytes <= fused.resident_row_bytes;
}

// Cost of one output pixel of a group: 8-bit multiply-accumulates, channels padded to the
// kernel's k interleave per tap the kernel sees, requantization per output value, the kernel's
// fixed work per tile and per tap (a pixel's share of its tiles, or of its row blocks where the
// kernel keeps the rows for all the panels) and, for gathered rows, the copy of the receptive
// field, a kernel row at a time (qwino/tuning.h).
double pixel_cost(const qwino_operator& op, const qwino_s8_igemm_config& igemm, bool row_sums,
                  bool gathered) {
  const ConvolutionGeometry& g = op.geometry;
  const size_t field = taps(g) * g.group_input_channels;
  const double taps_seen = gathered ? 1.0 : double(taps(g));
  // A row's k is paid in steps of the kernel's k_step (src/s8-igemm/s8-igemm.inc).
  const size_t step = igemm.k_step;
  const double k = gathered ? double(qwino_round_up(field, step))
                            : taps_seen * double(qwino_round_up(g.group_input_channels, step));
  const double n = double(g.group_output_channels);
  const double tiles =
      double(qwino_divide_round_up(g.group_output_channels, igemm.nr)) / double(igemm.mr);
  // Short rows a tap (qwino/tuning.h) are assembled from partial loads, per row.
  const size_t row_bytes = gathered ? field : g.group_input_channels;
  const double tap_cost =
      QWINO_IGEMM_TAP_COST + (row_bytes < size_t{QWINO_IGEMM_SHORT_ROW_BYTES(igemm.kr)}
                                  ? QWINO_IGEMM_SHORT_ROW_COST * double(igemm.mr)
                                  : 0.0);
  // The row sums, where create decided the layer needs them.
  const double row_sums_term = row_sums ? row_sums_cost(igemm, k, taps_seen) : 0.0;
  const double tap_reads =
      resident_rows(op, igemm, row_bytes, taps_seen) ? 1.0 / double(igemm.mr) : tiles;
  return row_sums_term + igemm.mac_cost * k * n + op.requantize().value_cost * n +
         tiles * igemm.tile_cost + tap_reads * tap_cost * taps_seen +
         (gathered ? QWINO_IGEMM_GATHER_ROW_COST * double(g.kernel_height) : 0.0);
}

// Whether a GEMM kernel would read gathered rows (see the top of the file): where the taps
// waste the k interleave and the model says the saved multiplies pay for the copies. A pure
// function of the geometry and the kernel, so create, cost and setup agree.
bool gathers_rows(const qwino_operator& op, const qwino_s8_igemm_config& igemm, bool row_sums) {
  const ConvolutionGeometry& g = op.geometry;
  // The padding per tap: to the k interleave, or to the kernel's k step where that is larger.
  const size_t kr = QWINO_MAX(size_t{igemm.kr}, size_t{igemm.k_step});
  return qwino_round_up(taps(g) * g.group_input_channels, kr) <
             taps(g) * qwino_round_up(g.group_input_channels, kr) &&
         pixel_cost(op, igemm, row_sums, true) < pixel_cost(op, igemm, row_sums, false);
}
// The matrix kernels' fused form on gathered rows, where the CPU has it for the operator's mode
// with the fused kernels' init_params (whose parameters create made): it reads the gathered rows
// as tiles where they are, where the indirect kernel copies 16 rows per tile from its pointers.
bool matrix_rows_available(const qwino_operator& op) {
  const qwino_qu8_gemm_config& rows = op.kernels.matrix_rows_requantize[op.requantization];
  return rows.ukernel != nullptr && rows.init_params == op.igemm_requantize().init_params;
}
// Whether the matrix kernels would run it on this layer (and gather its rows for it): where the
// rows are longer than the indirect kernel keeps a row block's A for all its panels
// (qwino/tuning.h).
bool matrix_rows_fit(const qwino_operator& op) {
  const ConvolutionGeometry& g = op.geometry;
  return matrix_rows_available(op) &&
         taps(g) * g.group_input_channels > QWINO_X86_AMX_GATHERED_ROW_BYTES;
}
// Whether the layer runs it: where it took the matrix kernels too.
bool reads_matrix_rows(const qwino_operator& op) {
  return op.indirect.matrix_kernels && matrix_rows_fit(op);
}

bool gathers_rows(const qwino_operator& op) {
  return reads_matrix_rows(op) || gathers_rows(op, op.kernels.igemm, op.indirect.row_sums);
}

// A kernel's cost per output pixel, with gathered rows where it would take them.
double kernel_pixel_cost(const qwino_operator& op, const qwino_s8_igemm_config& igemm,
                         bool row_sums) {
  return pixel_cost(op, igemm, row_sums, gathers_rows(op, igemm, row_sums));
}

// The taps and channels per tap of the GEMM the kernel sees.
struct GemmShape {
  size_t taps, channels;
};
GemmShape gemm_shape(const qwino_operator& op) {
  const ConvolutionGeometry& g = op.geometry;
  return gathers_rows(op) ? GemmShape{1, taps(g) * g.group_input_channels}
                          : GemmShape{taps(g), g.group_input_channels};
}

// The CPU's kernels that multiply the operator's activations without an XOR, both b_bias 128
// (null ukernels where it has none): for uint8 ones UDOT and UMMLA (a_bias 128), for int8 ones
// VPDPBUSD with the weights as its unsigned operand (a_bias 0).
struct SignKernels {
  const qwino_s8_igemm_config& igemm;
  const qwino_qu8_igemm_config (&fused)[qwino_requantization_mode_count];
};
SignKernels sign_kernels(const qwino_operator& op) {
  const qwino_kernel_configs& k = op.kernels;
  return op.input_sign == 0 ? SignKernels{k.igemm_uint8, k.igemm_uint8_requantize}
                            : SignKernels{k.igemm_int8, k.igemm_int8_requantize};
}

// Whether a layer takes sign_kernels instead of kernels.igemm: where the CPU has them in the
// operator's mode, and the weights need the row sums anyway (row_sums_anyway) or the XORs save
// more than the row sums cost (qwino/tuning.h): on ARM the XORs beyond one panel's (one per 16
// bytes of every row and tap), on x86 one per 4 bytes of every row, tap and panel, against the
// row sums' term of the cost model. Gathered rows are flipped as they are gathered.
bool takes_sign_kernels(const qwino_operator& op, bool row_sums_anyway) {
  const SignKernels s = sign_kernels(op);
  const qwino_qu8_igemm_config& fused = s.fused[op.requantization];
  if (s.igemm.ukernel == nullptr || fused.ukernel == nullptr ||
      fused.init_params != op.igemm_requantize().init_params) {
    return false;
  }
  if (row_sums_anyway) {
    return true;
  }
  if (gathers_rows(op)) {
    return false;
  }
  const ConvolutionGeometry& g = op.geometry;
  const double panels = double(qwino_divide_round_up(g.group_output_channels, s.igemm.nr));
#if QWINO_ARCH_ARM64
  const double xors = double(taps(g)) * double(qwino_divide_round_up(g.group_input_channels, 16));
  return xors * (panels - 1.0) * QWINO_NEONDOT_XOR_CYCLES > QWINO_NEONDOT_ROW_SUMS_PIXEL_CYCLES;
#else
  const double xors = double(taps(g)) * double(qwino_divide_round_up(g.group_input_channels, 4));
  // The row sums' own cost (qwino/tuning.h) counts where the XOR form runs every panel at full
  // width or has one panel; its narrower last panel of several measured slower than the row sums.
  const bool narrow_last_panel = panels > 1.0 && g.group_output_channels % s.igemm.nr != 0;
  return xors * panels * QWINO_X86_VNNI_XOR_COST >
         row_sums_cost(s.igemm, double(taps(g) * g.group_input_channels), double(taps(g))) +
             (narrow_last_panel ? 0.0 : QWINO_X86_VNNI_ROW_SUMS_PIXEL_COST);
#endif
}

// Whether a layer takes the CPU's matrix-unit kernels (kernels.igemm_matrix, AMX tiles) instead
// of kernels.igemm: where it has them in the operator's mode and the cost model puts them below
// the vector kernels for this layer. Their multiply-adds are cheaper, their calls and k steps
// dearer (qwino/tuning.h), so shallow and narrow layers stay on the vector kernels.
bool takes_matrix_kernels(const qwino_operator& op, bool row_sums) {
  const qwino_kernel_configs& k = op.kernels;
  const qwino_qu8_igemm_config& fused = k.igemm_matrix_requantize[op.requantization];
  if (k.igemm_matrix.ukernel == nullptr || fused.ukernel == nullptr ||
      fused.init_params != op.igemm_requantize().init_params) {
    return false;
  }
  const double matrix_cost = matrix_rows_fit(op) ? pixel_cost(op, k.igemm_matrix, row_sums, true)
                                                 : kernel_pixel_cost(op, k.igemm_matrix, row_sums);
  return matrix_cost < kernel_pixel_cost(op, k.igemm, row_sums);
}

// The budget is qwino.h's, for the taps' panels; gathered rows' panels are never larger. Also
// notes whether the layer needs row sums, which the cost (evaluated at every setup) depends on,
// and takes the matrix kernels or the kernels for its activation type where they pay (the same
// init_params, so the fused kernel's parameters from create stay valid).
bool decide(qwino_operator* op) {
  const ConvolutionGeometry& g = op->geometry;
  WeightOffsets offsets = weight_offsets(*op, nullptr);
  if (!op->indirect.matrix_kernels && !op->indirect.sign_kernels &&
      takes_matrix_kernels(*op, offsets.row_terms)) {
    const qwino_kernel_configs& k = op->kernels;
    op->kernels.igemm = k.igemm_matrix;
    std::copy(std::begin(k.igemm_matrix_requantize), std::end(k.igemm_matrix_requantize),
              std::begin(op->kernels.igemm_requantize));
    op->indirect.matrix_kernels = true;
    offsets = weight_offsets(*op, nullptr);
  }
  if (!op->indirect.matrix_kernels && !op->indirect.sign_kernels &&
      takes_sign_kernels(*op, offsets.row_terms)) {
    // Other members of op->kernels than the ones written: no copy first.
    const SignKernels s = sign_kernels(*op);
    op->kernels.igemm = s.igemm;
    std::copy(std::begin(s.fused), std::end(s.fused), std::begin(op->kernels.igemm_requantize));
    op->indirect.sign_kernels = true;
    offsets = weight_offsets(*op, nullptr);
  }
  op->indirect.row_sums = offsets.row_terms;
  return offsets.fit && igemm_packing_within_budget(g.groups, taps(g), g.group_input_channels,
                                                    g.group_output_channels, op->kernel.size());
}

double cost(const qwino_operator& op, size_t output_height, size_t output_width) {
  const double pixels = double(output_height) * double(output_width);
  return pixels * pixel_cost(op, op.kernels.igemm, op.indirect.row_sums, gathers_rows(op));
}

bool prepare(qwino_operator* op, size_t, size_t) {
  IndirectWeights& w = op->indirect;
  if (w.packed_weights) {
    return true;
  }
  const ConvolutionGeometry& g = op->geometry;
  const qwino_s8_igemm_config& igemm = op->kernels.igemm;
  const GemmShape shape = gemm_shape(*op);
  const size_t panel_bytes =
      packed_igemm_panel_bytes(shape.taps, shape.channels, igemm.nr, igemm.kr);
  const size_t group_stride =
      qwino_divide_round_up(g.group_output_channels, igemm.nr) * panel_bytes;
  const size_t output_channels = g.groups * g.group_output_channels;
  size_t bytes = 0;
  if (!checked_product({size_t{g.groups}, group_stride}, &bytes)) {
    return false;
  }
  AlignedBuffer<int8_t> packed = allocate_aligned<int8_t>(bytes);
  AlignedBuffer<int64_t> column_sums = allocate_aligned<int64_t>(output_channels);
  Array<uint8_t> offsets;
  Array<int32_t> channel_params;
  if (!packed || !column_sums || !offsets.assign(output_channels, uint8_t{128}) ||
      !channel_params.assign(op->channel_params.data(), op->channel_params.size())) {
    return false;
  }
  const WeightOffsets fit = weight_offsets(*op, offsets.data());
  Array<int32_t> column_gaps;
  if (fit.row_terms && !column_gaps.assign(output_channels, 0)) {
    return false;
  }
  w.uniform_gaps = true;
  for (size_t oc = 0; fit.row_terms && oc < output_channels; oc++) {
    column_gaps.data()[oc] = int32_t{offsets.data()[oc]} - int32_t{op->kernel_zero_point} -
                             static_cast<int32_t>(igemm.b_bias);
    w.uniform_gaps &= column_gaps.data()[oc] == column_gaps.data()[0];
  }
  const size_t group_elements = g.group_output_channels * taps(g) * g.group_input_channels;
  for (size_t group = 0; group < g.groups; group++) {
    // [output channel][tap][channel] is the order of one tap of taps x channels too.
    pack_igemm_weights(op->kernel.data() + group * group_elements, shape.taps, shape.channels,
                       g.group_output_channels, offsets.data() + group * g.group_output_channels,
                       igemm.nr, igemm.kr, igemm.b_bias, packed.get() + group * group_stride,
                       column_sums.get() + group * g.group_output_channels);
  }
  // The per-channel arrays start with the bias.
  fold_input_zero_point(column_sums.get(), output_channels, op->input_zero_point, igemm.a_bias,
                        igemm.b_bias, shape.taps * shape.channels, channel_params.data());
  w.gathered_rows = gathers_rows(*op);
  w.column_gaps = std::move(column_gaps);
  w.packed_panel_stride = panel_bytes;
  w.packed_group_stride = group_stride;
  w.packed_weights = std::move(packed);
  w.channel_params = std::move(channel_params);
  return true;
}

void plan(const qwino_operator& op, SetupState* setup) {
  const ConvolutionGeometry& g = op.geometry;
  DirectPlanInput in{};
  in.k = taps(g) * g.group_input_channels;
  in.mr = op.kernels.igemm.mr;
  in.nr = op.kernels.igemm.nr;
  in.indirect = true;
  in.row_terms = op.indirect.column_gaps.data() != nullptr;
  // Rows of whole 16-byte blocks: the kernels' loads stay within a row either way.
  // (Rows of the matrix kernels' k blocks where they read them as tiles.)
  const bool matrix_rows = reads_matrix_rows(op);
  const size_t row_block =
      matrix_rows ? size_t{op.kernels.matrix_rows_requantize[op.requantization].k_block} : 16;
  in.gathered_row_bytes = op.indirect.gathered_rows ? qwino_round_up(in.k, row_block) : 0;
  in.region_bytes = matrix_rows ? QWINO_X86_AMX_GATHERED_REGION_BYTES : 0;
  // One pointer per output pixel and tap of every image, built at setup where they fit the
  // budget (the products cannot wrap below it), per item otherwise.
  size_t entries = 0, bytes = 0;
  const bool prebuilt =
      !op.indirect.gathered_rows &&
      checked_product({setup->batch_size, setup->output_height, setup->output_width, taps(g)},
                      &entries) &&
      checked_product({entries, sizeof(const uint8_t*)}, &bytes) &&
      bytes <= kMaxPrebuiltIndirectionBytes;
  in.item_pointers_per_pixel = op.indirect.gathered_rows ? 1 : prebuilt ? 0 : taps(g);
  plan_pixel_regions(op, in, setup);
  setup->indirection_entries = prebuilt ? entries : 0;
}

// The pointers of `pixels` output pixels of `image` from `first_pixel` on (raster order), taps
// row-major, into pointers[0, pixels x taps).
void build_pointers(const qwino_operator& op, const SetupState& s, size_t image, size_t first_pixel,
                    size_t pixels, const uint8_t** pointers) {
  const ConvolutionGeometry& g = op.geometry;
  size_t oy = first_pixel / s.output_width, ox = first_pixel % s.output_width;
  for (size_t p = 0; p < pixels; p++) {
    for (size_t ky = 0; ky < g.kernel_height; ky++) {
      const uint8_t* input_row = input_row_or_null(
          s, image, tap_coordinate(oy, g.stride_height, ky, g.dilation_height, g.padding_top));
      for (size_t kx = 0; kx < g.kernel_width; kx++) {
        *pointers++ = tap_pixel(
            s, input_row, tap_coordinate(ox, g.stride_width, kx, g.dilation_width, g.padding_left),
            op.zero_pixel.data());
      }
    }
    if (++ox == s.output_width) {
      ox = 0;
      oy++;
    }
  }
}

void bind(const qwino_operator& op, SetupState* setup) {
  if (setup->indirection_entries == 0) {
    return;  // gathered rows, or pointers built per item
  }
  const size_t pixels = setup->output_height * setup->output_width;
  for (size_t image = 0; image < setup->batch_size; image++) {
    build_pointers(op, *setup, image, 0, pixels,
                   setup->indirection.get() + image * pixels * taps(op.geometry));
  }
}

void run_item(const qwino_operator& op, size_t item, char* scratch) {
  const SetupState& s = op.setup;
  const DirectSchedule& d = s.direct;
  const ConvolutionGeometry& g = op.geometry;
  const qwino_s8_igemm_config& igemm = op.kernels.igemm;
  const auto [image, group, first_pixel, pixels, first_channel, channels] =
      pixel_region_item(op, item);
  int32_t* c = reinterpret_cast<int32_t*>(scratch + d.c_offset_bytes);
  size_t ks = taps(g);
  size_t kc = g.group_input_channels;
  size_t a_offset = group * g.group_input_channels;
  const uint8_t* const* a;
  uint8_t a_sign = static_cast<uint8_t>(op.input_sign ^ 0x80);
  if (op.indirect.gathered_rows) {
    uint8_t* rows = reinterpret_cast<uint8_t*>(scratch);
    const uint8_t** pointers = reinterpret_cast<const uint8_t**>(scratch + d.pointers_offset_bytes);
    // The rows are flipped already, into the bytes the kernel multiplies as they are: a
    // (a_sign 0) or, for kernels that multiply a + 128, a + 128 (a_sign 0x80).
    const uint8_t kernel_sign = igemm.a_bias != 0 ? 0x80 : 0;
    gather_receptive_fields(
        op, image, group, first_pixel, pixels, rows, d.gathered_row_bytes,
        InputBytes{op.zero_pixel.data()[0], static_cast<uint8_t>(a_sign ^ kernel_sign)});
    for (size_t p = 0; p < pixels; p++) {
      pointers[p] = rows + p * d.gathered_row_bytes;
    }
    a = pointers;
    kc *= ks;
    ks = 1;
    a_offset = 0;  // the rows are the group's already
    a_sign = kernel_sign;
  } else if (s.indirection) {
    a = s.indirection.get() + (image * d.pixels + first_pixel) * ks;
  } else {
    const uint8_t** pointers = reinterpret_cast<const uint8_t**>(scratch + d.pointers_offset_bytes);
    build_pointers(op, s, image, first_pixel, pixels, pointers);
    a = pointers;
  }
  const int8_t* b = op.indirect.packed_weights.get() + group * op.indirect.packed_group_stride +
                    first_channel / igemm.nr * op.indirect.packed_panel_stride;
  // The region's pixels are consecutive, so their outputs are one strided row.
  const size_t channel_offset = group * g.group_output_channels + first_channel;
  const int32_t* channel_params = op.indirect.channel_params.data() + channel_offset;
  uint8_t* output =
      s.output + (image * d.pixels + first_pixel) * s.output_pixel_stride + channel_offset;
  // The fused kernels add one term per row: only with the same gap in every channel (every
  // channel's offset 128, as on the kernels that take -128).
  const int32_t* column_gaps = op.indirect.column_gaps.data();
  const qwino_igemm_requantize_ukernel_fn fused =
      column_gaps == nullptr || op.indirect.uniform_gaps ? op.igemm_requantize().ukernel : nullptr;
  // The row sums s = sum of the row's (a - (izp - 128)) (the s8-irsum kernel's sum less K (izp -
  // 128), K = ks x kc), modulo 2^32; each output adds its channel's gap times its pixel's s.
  // For the fused kernel they are the row terms already: the one gap times s.
  int32_t* row_sums = nullptr;
  if (column_gaps != nullptr) {
    row_sums = reinterpret_cast<int32_t*>(scratch + d.row_terms_offset_bytes);
    op.kernels.irsum.ukernel(pixels, kc, ks, a, a_offset, op.zero_pixel.data(), a_sign, row_sums);
    const uint32_t padding_sum =
        static_cast<uint32_t>(ks * kc) * static_cast<uint32_t>(int32_t{op.input_zero_point} - 128);
    const uint32_t scale = fused != nullptr ? static_cast<uint32_t>(column_gaps[0]) : 1;
    for (size_t p = 0; p < pixels; p++) {
      row_sums[p] =
          static_cast<int32_t>(scale * (static_cast<uint32_t>(row_sums[p]) - padding_sum));
    }
  }
  // Each B panel (taps x K x nr) stays in L1 while the region's rows stream past it. The fused
  // kernel takes as many of the block's panels in one call per row block as fit in L1 together
  // (it walks them itself), which pays its per-call set-up once per run of panels instead of per
  // panel (on the A72's 2-row kernel, 14x14x64>384's 48 panels of 512 bytes: 2 calls per row
  // pair instead of 48); the matrix kernels always take them all, since they gather a row
  // block's A once for all the panels of a call (src/s8-igemm/s8-igemm-abias128-16x64c4-amx.h),
  // or read the region's gathered rows, which stay in L2, for each panel (src/qu8-gemm/).
  // The matrix kernels' form on the gathered rows, where the layer runs it.
  const qwino_gemm_requantize_ukernel_fn rows_kernel =
      fused != nullptr && reads_matrix_rows(op)
          ? op.kernels.matrix_rows_requantize[op.requantization].ukernel
          : nullptr;
  const size_t panels = qwino_divide_round_up(channels, size_t{igemm.nr});
  const size_t call_panels =
      fused == nullptr ? 1
      : op.indirect.matrix_kernels
          ? panels
          : QWINO_MAX(size_t{1}, QWINO_MIN(panels, (op.igemm_requantize().row_blocks == 2
                                                        ? kIgemmPackedRowsPanelsBytes
                                                        : kIgemmFusedPanelsBytes) /
                                                       op.indirect.packed_panel_stride));
  const size_t call_columns = call_panels * igemm.nr;
  for (size_t n = 0; n < channels;
       n += call_columns, b += op.indirect.packed_panel_stride * (call_columns / igemm.nr)) {
    // A fused kernel that walks row blocks itself takes the region's pixels in one call.
    const size_t block_rows =
        fused != nullptr && op.igemm_requantize().row_blocks != 0 ? pixels : igemm.mr;
    for (size_t row = 0; row < pixels; row += block_rows) {
      const size_t mr = QWINO_MIN(block_rows, pixels - row);
      const size_t nr = QWINO_MIN(call_columns, channels - n);
      if (rows_kernel != nullptr) {  // the gathered rows, as tiles
        rows_kernel(mr, nr, kc,
                    reinterpret_cast<const uint8_t*>(scratch) + row * d.gathered_row_bytes,
                    d.gathered_row_bytes, b, channel_params + n,
                    row_sums != nullptr ? row_sums + row : nullptr,
                    output + row * s.output_pixel_stride + n, s.output_pixel_stride,
                    &op.igemm_requantize_params);
      } else if (fused != nullptr) {
        fused(mr, nr, kc, ks, a + row * ks, a_offset, op.zero_pixel.data(), a_sign, b,
              channel_params + n, row_sums != nullptr ? row_sums + row : nullptr,
              output + row * s.output_pixel_stride + n, s.output_pixel_stride,
              &op.igemm_requantize_params);
      } else {
        igemm.ukernel(mr, nr, kc, ks, a + row * ks, a_offset, op.zero_pixel.data(), a_sign, b,
                      c + row * d.c_row_stride + n, d.c_row_stride);
      }
    }
  }
  if (fused == nullptr) {
    const int32_t* gaps = column_gaps != nullptr ? column_gaps + channel_offset : nullptr;
    for (size_t p = 0; row_sums != nullptr && p < pixels; p++) {
      int32_t* c_row = c + p * d.c_row_stride;
      const uint32_t sum = static_cast<uint32_t>(row_sums[p]);
      for (size_t j = 0; j < channels; j++) {
        c_row[j] = static_cast<int32_t>(static_cast<uint32_t>(c_row[j]) +
                                        sum * static_cast<uint32_t>(gaps[j]));
      }
    }
    op.requantize().ukernel(pixels, channels, c, d.c_row_stride, channel_params, output,
                            s.output_pixel_stride, &op.requantize_params);
  }
}

}  // namespace

namespace {

size_t weight_bytes(const qwino_operator& op) {
  return op.indirect.packed_weights ? op.indirect.packed_group_stride * op.geometry.groups +
                                          op.indirect.channel_params.size() * sizeof(int32_t)
                                    : 0;
}

}  // namespace

const AlgorithmEntry kIndirectGemmAlgorithm = {qwino_algorithm_indirect_gemm,
                                               "indirect-gemm",
                                               QWINO_FLAG_FORCE_INDIRECT_GEMM,
                                               decide,
                                               cost,
                                               prepare,
                                               weight_bytes,
                                               plan,
                                               bind,
                                               run_item};

}  // namespace qwino
