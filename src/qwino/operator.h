// The convolution operator object behind qwino_operator_t, shared by create, setup and run.
#ifndef QWINO_OPERATOR_H_
#define QWINO_OPERATOR_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "qwino.h"
#include "qwino/algorithm.h"
#include "qwino/common.h"
#include "qwino/dispatch.h"
#include "qwino/operator-registry.h"
#include "qwino/work-split.h"
#include "qwino/microparams.h"

namespace qwino {

struct FreeDeleter {
  void operator()(void* pointer) const { std::free(pointer); }
};
// Cache-line aligned, zero-initialised storage (std::vector cannot promise the alignment).
template <typename T>
using AlignedBuffer = std::unique_ptr<T[], FreeDeleter>;
// Returns an empty pointer on allocation failure (or when the size overflows).
template <typename T>
AlignedBuffer<T> allocate_aligned(size_t count) {
  size_t bytes = 0;
  if (count == 0 || __builtin_mul_overflow(count, sizeof(T), &bytes) ||
      bytes > SIZE_MAX - QWINO_CACHE_LINE_SIZE) {
    return AlignedBuffer<T>();
  }
  bytes = qwino_round_up(bytes, QWINO_CACHE_LINE_SIZE);
  void* memory = std::aligned_alloc(QWINO_CACHE_LINE_SIZE, bytes);
  if (memory != nullptr) {
    std::memset(memory, 0, bytes);
  }
  return AlignedBuffer<T>(static_cast<T*>(memory));
}

// A heap array whose allocation failure is a return value, not an exception: create must answer
// out_of_memory for weights too large to copy, and AddressSanitizer turns a failed throwing
// `new` into an abort where malloc's family may return NULL.
template <typename T>
class Array {
 public:
  bool assign(const T* values, size_t count) {
    if (!allocate(count)) return false;
    std::memcpy(buffer_.get(), values, count * sizeof(T));
    return true;
  }
  bool assign(size_t count, T value) {
    if (!allocate(count)) return false;
    std::fill_n(buffer_.get(), count, value);
    return true;
  }
  const T* data() const { return buffer_.get(); }
  T* data() { return buffer_.get(); }
  size_t size() const { return size_; }

 private:
  bool allocate(size_t count) {
    buffer_ = allocate_aligned<T>(count);
    size_ = buffer_ ? count : 0;
    return static_cast<bool>(buffer_);
  }
  AlignedBuffer<T> buffer_;
  size_t size_ = 0;
};

struct ConvolutionGeometry {
  uint32_t padding_top, padding_right, padding_bottom, padding_left;
  uint32_t kernel_height, kernel_width;
  uint32_t stride_height, stride_width;
  uint32_t dilation_height, dilation_width;
  uint32_t groups;
  size_t group_input_channels, group_output_channels;
};

// Input-tile positions of the largest Winograd algorithm (F(4x4,3x3): 6 x 6), which bounds the
// pixel pointers an input transform takes.
constexpr size_t kMaxWinogradPositions = 36;

// What create prepares for a Winograd algorithm.
struct WinogradWeights {
  size_t alpha = 0;  // input tile size: 4 for F(2x2,3x3), 6 for F(4x4,3x3)
  qwino_input_transform_ukernel_fn input_transform = nullptr;
  // U = G g G^T packed per group, per panel of nr output channels, per position:
  // [groups][panels][alpha^2][round_up(K, 4) x nr, k interleaved by kr].
  AlignedBuffer<int16_t> packed_weights;
  size_t packed_group_stride = 0;     // elements
  size_t packed_position_stride = 0;  // elements
  size_t packed_panel_stride = 0;     // elements
  // First input channel of each block whose partial accumulators are provably exact
  // (F(2x2,3x3): always the single block {0}).
  std::vector<size_t> channel_block_starts;
  // F(4x4,3x3): F(2x2,3x3) is exact for these weights too and within the packing budget, so its
  // tiles (op.f23's weights) may take the edge rows and columns (plan_winograd_tiling).
  bool f23_edges = false;
};

// What create prepares for the direct path: B = (w - kernel_zero_point) as int16, packed per
// group in panels of nr output channels for the GEMM kernel the dispatcher chose:
// [groups][panels][round_up(K, 4) x nr, k interleaved by kr], zeros past K and past the
// channels, with K = kernel_height * kernel_width * group_input_channels in the caller's
// [kh][kw][ic] order (the order of the im2col rows).
struct DirectWeights {
  size_t k = 0;
  // Grouped layers with few output channels per group would hold mostly panel padding (each
  // group's channels fill whole nr-wide panels): past the packing budget (packing-budget.h) the
  // panels are not kept but packed by each work item into its task's scratch, from `kernel`.
  bool streamed = false;
  AlignedBuffer<int16_t> packed_weights;  // empty when streamed or pairs
  size_t packed_group_stride = 0;         // elements
  size_t packed_panel_stride = 0;         // elements
  // The 8-bit form for the CPU's pair GEMM (kernels.pair_gemm), taken instead of the int16 one
  // where every w - kernel_zero_point fits int8 and the panels are resident: per group, panels
  // of QWINO_U8S8_GEMM_NR output channels in pair_panels (qwino::PairWeights' layout, panel
  // g x pair_panels_per_group + n), the A blocks each one's rows are built from in pair_blocks.
  bool pairs = false;
  std::vector<qwino_pair_block> pair_blocks;
  std::vector<uint32_t> pair_first_block;
  AlignedBuffer<int8_t> pair_panels;
  size_t pair_panel_bytes_total = 0;
  size_t pair_panels_per_group = 0;
};

// What create prepares for the indirect GEMM path: the weights w - o as int8 (o a weight offset
// per output channel, 128 or near it) packed per group in panels of nr output channels for the
// 8-bit kernel the dispatcher chose ([groups][panels][taps][round_up(K, kr) x nr, k interleaved
// by kr], K = group input channels, src/packing.cc), and the per-channel values with the bias less
// (input zero point - 128) x the column sums of the weights (doc/DESIGN.md section 3).
struct IndirectWeights {
  bool gathered_rows =
      false;              // packed for one tap of taps x channels (src/convolution-indirect.cc)
  bool row_sums = false;  // some channel's weight offset is not the kernel zero point
  // decide() took the CPU's kernels for the activation type (kernels.igemm_uint8 or igemm_int8,
  // src/convolution-indirect.cc) as kernels.igemm.
  bool sign_kernels = false;
  // decide() took the CPU's matrix-unit kernels (kernels.igemm_matrix) as kernels.igemm.
  bool matrix_kernels = false;
  AlignedBuffer<int8_t> packed_weights;
  size_t packed_group_stride = 0;  // bytes
  size_t packed_panel_stride = 0;  // bytes
  Array<int32_t> channel_params;
  // Per output channel, its weight offset less the kernel zero point: the output adds this times
  // its pixel's input sum (src/convolution-indirect.cc). Null where every gap is 0 (int8
  // weights, and uint8 ones with zero point 128 on kernels that take -128).
  Array<int32_t> column_gaps;
  bool uniform_gaps = true;  // every channel's gap the same (what the fused kernels take)
};

// What create prepares for the depthwise path (src/convolution-depthwise.cc): the weights in the
// layout of the depthwise kernel the dispatcher chose (src/packing.cc, pack_dwconv_weights), the
// per-channel values with the bias less (input zero point - 128) x each channel's weight sum, and
// a row of `groups` input zero points for the padding taps.
struct DepthwiseWeights {
  // Kernel taps per layer tap, per block of the kernel's cr channels: 1, or in the int8_taps
  // layout 2 or 3 for a block with a weight b = w - kernel_zero_point beyond [-127, 127]; and
  // where each block starts in packed_weights (bytes).
  static constexpr size_t kMaxSlices = 3;
  unsigned slice_counts = 0;  // bit s set: some block takes s slices (create: decide)
  // 3 or 5: the layer runs the CPU's int8_col3 or int8_col5 kernel; 0: its kernel for every
  // layer (create: decide).
  uint32_t column_rows = 0;
  double mean_slices = 1.0;  // over the channels (the cost)
  Array<uint8_t> block_slices;
  Array<size_t> block_offsets;
  AlignedBuffer<char> packed_weights;
  Array<int32_t> channel_params;
  Array<uint8_t> zero_row;
};

// How the depthwise work of one setup is cut into items: item = (image, output row, block of
// channels), and where each output row's pixel pointers start in SetupState::indirection.
struct DepthwiseSchedule {
  // Per slice count s used (DepthwiseWeights::slice_counts; 0 elsewhere): an output row's
  // pointers with every tap repeated s times, where they start in the row's set of pointers, and
  // the pointers between neighbouring output pixels (qwino_dwconv_ukernel_fn's step).
  size_t row_entries[DepthwiseWeights::kMaxSlices + 1];
  size_t row_offset[DepthwiseWeights::kMaxSlices + 1];
  size_t pixel_step[DepthwiseWeights::kMaxSlices + 1];
  size_t set_entries;    // pointers per output row, every slice count's together
  bool prebuilt;         // every row's pointers are in SetupState::indirection (else scratch)
  size_t channel_block;  // channels per item (a multiple of the kernel's cr)
  size_t channel_blocks;
};

struct SetupState {
  size_t batch_size = 0;
  size_t input_height = 0, input_width = 0;
  size_t output_height = 0, output_width = 0;
  const uint8_t* input = nullptr;
  size_t input_pixel_stride = 0;
  uint8_t* output = nullptr;
  size_t output_pixel_stride = 0;
  size_t threads = 0;                         // thread count the scratch was sized for
  const AlgorithmEntry* algorithm = nullptr;  // the algorithm set up
  size_t work_items = 0;
  WinogradTiling winograd_tiling{};  // the Winograd parts of each image
  WinogradSchedule winograd[2]{};    // per part of winograd_tiling; items part by part
  DirectSchedule direct{};
  DepthwiseSchedule depthwise{};
  size_t scratch_bytes_per_task = 0;  // of the algorithm set up (cache-line multiple)
  AlignedBuffer<char> scratch;        // tasks x scratch_bytes_per_task
  size_t scratch_bytes = 0;
  // The pixel pointers of the indirect GEMM path (one per output pixel and kernel tap of every
  // image) or of the depthwise path (DepthwiseSchedule): built at setup (its sizes and input
  // pointer decide them), reused by every run.
  size_t indirection_entries = 0;
  AlignedBuffer<const uint8_t*> indirection;
};

}  // namespace qwino

struct qwino_operator {
  qwino_algorithm algorithm = qwino_algorithm_none;
  qwino::ConvolutionGeometry geometry{};
  // 8-bit values in the offset-binary view (qwino/microparams.h): int8 activations have
  // input_sign 0x80 and their zero point + 128 here; int8 weights are stored as w + 128 with
  // kernel_zero_point 128, so every path sees w - kernel_zero_point as the caller's value.
  uint8_t input_zero_point = 0;
  uint8_t input_sign = 0;  // also the outputs' (activations have one type)
  uint8_t kernel_zero_point = 0;
  // Every w - kernel_zero_point lies in [-128, 127] (every int8 weight does; uint8 weights within
  // 128 of their zero point): set at create, for the paths that multiply the weights as int8.
  bool kernel_fits_int8 = false;
  qwino_requantization_mode requantization = qwino_requantization_gemmlowp;
  bool yield_workers = false;  // QWINO_FLAG_YIELD_WORKERS: pool workers sleep after each run
  // Microparams of each output kernel, initialised once by its config's init function.
  qwino_qu8_requantization_params f23_output_params{};
  qwino_qu8_requantization_params f43_output_params{};
  qwino_qu8_requantization_params requantize_params{};
  qwino_qu8_requantization_params dwconv_params{};
  qwino_qu8_requantization_params igemm_requantize_params{};  // when the fused kernel exists
  qwino_kernel_configs kernels{};  // the kernels the packed weights were made for
  // Per output channel (groups * group_output_channels of each): the bias and the
  // requantization mode's arrays, packed as the output kernels read them (qwino/microparams.h).
  qwino::Array<int32_t> channel_params;
  // Winograd weights, packed when an algorithm is first chosen (at create, or at a setup whose
  // image size makes the other Winograd algorithm cheaper).
  qwino::WinogradWeights f23;
  qwino::WinogradWeights f43;
  // Per algorithm (indexed by qwino_algorithm): exact for these weights and not excluded by a
  // flag (decided at create).
  bool allowed[qwino::kAlgorithmSlots] = {};
  // Direct-path weights, packed when the direct path is first chosen (at create).
  qwino::DirectWeights direct;
  qwino::IndirectWeights indirect;
  qwino::DepthwiseWeights depthwise;
  // The caller's weights, in its layout: a setup may need to pack them for another algorithm.
  qwino::Array<uint8_t> kernel;
  // `group_input_channels` bytes of the input zero point in the caller's type: where padding
  // taps point.
  qwino::Array<uint8_t> zero_pixel;
  qwino::SetupState setup;
  // Set while a setup or run uses the operator, so that a second one at the same time returns
  // qwino_status_invalid_state instead of sharing the scratch (qwino.h, "Threads").
  std::atomic<bool> in_use{false};

  // The output kernels of the operator's requantization mode.
  const qwino_f23_output_config& f23_output() const { return kernels.f23_output[requantization]; }
  const qwino_f43_output_config& f43_output() const { return kernels.f43_output[requantization]; }
  const qwino_requantize_config& requantize() const { return kernels.requantize[requantization]; }
  // The depthwise kernel the layer runs: the CPU's 3-row or 5-row one where decide took it.
  const qwino_s8_dwconv_config& dwconv() const {
    switch (depthwise.column_rows) {
      case 3:
        return kernels.dwconv_col3[requantization];
      case 5:
        return kernels.dwconv_col5[requantization];
      default:
        return kernels.dwconv[requantization];
    }
  }
  const qwino_qu8_igemm_config& igemm_requantize() const {
    return kernels.igemm_requantize[requantization];
  }
};

namespace qwino {

// One call's hold on the operator of a handle (setup, run, delete): status() is success while
// this call holds the operator's in_use flag, invalid_parameter for a handle that is not live,
// invalid_state while another call holds the flag. The flag is released when the call ends.
class OperatorCall {
 public:
  explicit OperatorCall(qwino_operator_t handle)
      : op_(find_operator(handle)),
        claimed_(op_ != nullptr && !op_->in_use.exchange(true, std::memory_order_acquire)) {}
  ~OperatorCall() {
    if (claimed_) {
      op_->in_use.store(false, std::memory_order_release);
    }
  }
  OperatorCall(const OperatorCall&) = delete;
  OperatorCall& operator=(const OperatorCall&) = delete;
  qwino_status status() const {
    return op_ == nullptr ? qwino_status_invalid_parameter
           : claimed_     ? qwino_status_success
                          : qwino_status_invalid_state;
  }
  qwino_operator* get() const { return op_; }

 private:
  qwino_operator* op_;
  bool claimed_;
};

}  // namespace qwino

#endif  // QWINO_OPERATOR_H_
