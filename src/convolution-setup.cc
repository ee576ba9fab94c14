// qwino_setup_convolution2d_nhwc_q8: bind sizes and buffers, cut the work into items and size
// the scratch memory for the thread pool that will run it.
//
// Nothing is changed on failure: the new state is built aside and swapped in at the end.
#include <algorithm>
#include <numeric>
#include <new>

#include "qwino.h"
#include "qwino/algorithm-choice.h"
#include "qwino/checked-size.h"
#include "qwino/common.h"
#include "qwino/direct-weights.h"
#include "qwino/operator.h"

namespace {

// Working set of one work item (Winograd: V of its region plus M of one channel pass; direct:
// the im2col rows A plus C) that keeps it in L2 with room to spare; the GEMM's B panel and the A
// rows it streams stay in L1.
constexpr size_t kRegionBytesTarget = 128 * 1024;
constexpr size_t kMaxRegionTiles = 64;

// Output size along one dimension, or 0 when the padded input is smaller than the kernel or
// larger than kMaxObjectBytes (the paths index it with ptrdiff_t coordinates).
size_t output_size(size_t input, uint32_t padding_before, uint32_t padding_after,
                   uint32_t kernel, uint32_t dilation, uint32_t stride) {
  size_t padded = 0;
  if (!qwino::checked_sum({input, padding_before, padding_after}, &padded) ||
      padded > qwino::kMaxObjectBytes) {
    return 0;
  }
  const size_t effective_kernel = (size_t{kernel} - 1) * dilation + 1;  // < 2^64: 32-bit factors
  return padded < effective_kernel ? 0 : (padded - effective_kernel) / stride + 1;
}

// Output channels per work item when a group's are split into `blocks`: whole GEMM panels, and
// whole cache lines of output (one byte per channel), so that two items never write the same
// line of a pixel whose channels start on a line.
size_t channel_block_for(size_t group_output_channels, size_t nr, size_t blocks) {
  const size_t granularity = std::lcm(nr, size_t{QWINO_CACHE_LINE_SIZE});
  return qwino_round_up(qwino_divide_round_up(group_output_channels, blocks), granularity);
}

// Output channels per direct-path item: all of a group's, split into blocks only when
// coarse_items (images x groups x regions) cannot give every thread about four items: with
// fewer, the last items leave threads idle (7 items on 2 threads: 4 + 3). Splitting repeats the
// region's im2col per block, which is cheap next to its GEMMs.
constexpr size_t kItemsPerThread = 4;
size_t channel_block_size(size_t group_output_channels, size_t nr, size_t coarse_items,
                          size_t threads) {
  size_t blocks = 1;
  if (threads > 1 && coarse_items < kItemsPerThread * threads) {
    blocks = qwino_divide_round_up(kItemsPerThread * threads, coarse_items);
  }
  return channel_block_for(group_output_channels, nr, blocks);
}

// How a Winograd layer's regions are shared among threads. A region's GEMMs stream all the
// weights of its channels, a cost that does not shrink with the region, so a small trailing
// region or an idle thread at the end both waste time. So regions are merged (growing by at
// most a third) until images x groups x regions divides evenly among the threads; failing that,
// when there are fewer than kItemsPerThread items per thread, the output channels are split into
// the fewest blocks that make the items divide (each block repeats the region's input
// transform; blocks are whole cache lines, so a group of 64 channels or fewer is not split).
// One thread keeps the regions the working set asks for.
void share_regions_among_threads(size_t images_groups, size_t threads, size_t* regions,
                                 size_t* channel_blocks) {
  if (threads <= 1) {
    return;
  }
  for (size_t merged = *regions; 4 * merged >= 3 * *regions && merged > 0; merged--) {
    if (images_groups * merged % threads == 0) {
      *regions = merged;
      break;
    }
  }
  const size_t items = images_groups * *regions;
  if (items % threads != 0 && items < kItemsPerThread * threads) {
    *channel_blocks = threads / std::gcd(items, threads);
  }
}

qwino::WinogradSchedule plan_winograd(const qwino_operator& op, const qwino::WinogradWeights& w,
                                      size_t batch_size, size_t output_height,
                                      size_t output_width, size_t threads) {
  const qwino::ConvolutionGeometry& g = op.geometry;
  const size_t mr = op.kernels.gemm_mr;
  const size_t nr = op.kernels.gemm_nr;
  const size_t positions = w.alpha * w.alpha;
  const size_t blocks = w.channel_block_starts.size();
  qwino::WinogradSchedule s{};
  s.tiles_height = qwino_divide_round_up(output_height, w.alpha - 2);
  s.tiles_width = qwino_divide_round_up(output_width, w.alpha - 2);
  const size_t tiles = s.tiles_height * s.tiles_width;
  s.input_row_stride = qwino_round_up(g.group_input_channels, 8);

  // The region's V takes at most half of the working set, M of one channel pass the rest.
  const size_t v_bytes_per_tile = positions * s.input_row_stride * sizeof(int16_t);
  const size_t max_region_tiles = std::clamp<size_t>(
      kRegionBytesTarget / 2 / v_bytes_per_tile / mr * mr, mr, kMaxRegionTiles);
  // Regions are made of whole row blocks (mr tiles, the GEMM's efficient size). A last,
  // partial block of at most mr / 2 tiles joins the last region instead of making its own: a
  // region costs a pass over its channels' weights however few its tiles.
  s.row_blocks = qwino_divide_round_up(tiles, mr);
  if (s.row_blocks > 1 && tiles % mr != 0 && tiles % mr <= mr / 2) {
    s.row_blocks--;
  }
  s.regions = qwino_divide_round_up(s.row_blocks, max_region_tiles / mr);
  s.channel_blocks = 1;
  share_regions_among_threads(batch_size * g.groups, threads, &s.regions, &s.channel_blocks);
  s.region_tiles = qwino::largest_region_tiles(s, tiles, mr);
  s.channel_block = channel_block_for(g.group_output_channels, nr, s.channel_blocks);
  s.channel_blocks = qwino_divide_round_up(g.group_output_channels, s.channel_block);
  const size_t v_region_bytes = qwino_round_up(
      positions * s.region_tiles * s.input_row_stride * sizeof(int16_t), QWINO_CACHE_LINE_SIZE);
  const size_t m_bytes_per_channel = positions * blocks * s.region_tiles * sizeof(int32_t);
  const size_t m_budget =
      kRegionBytesTarget > v_region_bytes ? kRegionBytesTarget - v_region_bytes : 0;
  s.channel_pass =
      std::clamp<size_t>(m_budget / m_bytes_per_channel / nr * nr, nr, s.channel_block);
  s.output_row_stride = s.channel_pass;
  s.m_offset_bytes = v_region_bytes;
  s.m_block_stride = positions * s.region_tiles * s.output_row_stride;
  s.scratch_bytes_per_task =
      s.m_offset_bytes +
      qwino_round_up(blocks * s.m_block_stride * sizeof(int32_t), QWINO_CACHE_LINE_SIZE);
  return s;
}

// The direct path's regions: at most this many output pixels, so that the A rows and C of one
// region stay within kRegionBytesTarget (the GEMM streams the region's A rows past each B panel,
// which stays in L1) and an image gives several items to share among threads.
constexpr size_t kMaxDirectRegionPixels = 64;

qwino::DirectSchedule plan_direct(const qwino_operator& op, size_t batch_size,
                                  size_t output_height, size_t output_width,
                                  size_t input_pixel_stride, size_t threads) {
  const qwino::ConvolutionGeometry& g = op.geometry;
  const size_t mr = op.kernels.gemm_mr;
  const size_t nr = op.kernels.gemm_nr;
  qwino::DirectSchedule s{};
  s.pixels = output_height * output_width;
  s.pointwise = g.kernel_height == 1 && g.kernel_width == 1 && g.stride_height == 1 &&
                g.stride_width == 1 && g.padding_top == 0 && g.padding_left == 0 &&
                g.padding_bottom == 0 && g.padding_right == 0 &&
                input_pixel_stride == g.group_input_channels;
  s.a_row_stride = s.pointwise ? op.direct.k : qwino_round_up(op.direct.k, 8);

  const size_t coarse_items =
      batch_size * g.groups * qwino_divide_round_up(s.pixels, kMaxDirectRegionPixels);
  s.channel_block = channel_block_size(g.group_output_channels, nr, coarse_items, threads);
  s.channel_blocks = qwino_divide_round_up(g.group_output_channels, s.channel_block);
  s.c_row_stride = s.channel_block;

  const size_t bytes_per_pixel =
      s.a_row_stride * sizeof(int16_t) + s.c_row_stride * sizeof(int32_t);
  s.region_pixels = std::clamp<size_t>(kRegionBytesTarget / bytes_per_pixel / mr * mr, mr,
                                       kMaxDirectRegionPixels);
  s.region_pixels = std::min(s.region_pixels, qwino_round_up(s.pixels, mr));
  s.regions = qwino_divide_round_up(s.pixels, s.region_pixels);
  s.c_offset_bytes = qwino_round_up(s.region_pixels * s.a_row_stride * sizeof(int16_t),
                                    QWINO_CACHE_LINE_SIZE);
  s.b_offset_bytes =
      s.c_offset_bytes +
      qwino_round_up(s.region_pixels * s.c_row_stride * sizeof(int32_t), QWINO_CACHE_LINE_SIZE);
  const size_t streamed_panel_bytes =
      op.direct.streamed ? s.channel_block / nr * op.direct.packed_panel_stride * sizeof(int16_t)
                         : 0;
  s.scratch_bytes_per_task =
      s.b_offset_bytes + qwino_round_up(streamed_panel_bytes, QWINO_CACHE_LINE_SIZE);
  return s;
}

// Setup proper, for a live operator that this call holds.
qwino_status setup(qwino_operator* op, size_t batch_size, size_t input_height,
                   size_t input_width, const uint8_t* input, size_t input_pixel_stride,
                   uint8_t* output, size_t output_pixel_stride, pthreadpool_t threadpool) {
  const qwino::ConvolutionGeometry& g = op->geometry;
  if (batch_size == 0 || input_height == 0 || input_width == 0 || input == nullptr ||
      output == nullptr || input_pixel_stride < g.groups * g.group_input_channels ||
      output_pixel_stride < g.groups * g.group_output_channels) {
    return qwino_status_invalid_parameter;
  }
  const size_t output_height = output_size(input_height, g.padding_top, g.padding_bottom,
                                           g.kernel_height, g.dilation_height, g.stride_height);
  const size_t output_width = output_size(input_width, g.padding_left, g.padding_right,
                                          g.kernel_width, g.dilation_width, g.stride_width);
  if (output_height == 0 || output_width == 0) {
    return qwino_status_invalid_parameter;
  }
  // Both tensors, as the sizes describe them, must be objects this process could hold, so that
  // every offset run forms (pixel index x stride + channel, row stride = width x stride) fits in
  // ptrdiff_t: pixels x stride bounds them all.
  size_t input_pixels = 0, output_pixels = 0, input_bytes = 0, output_bytes = 0;
  if (!qwino::checked_product({batch_size, input_height, input_width}, &input_pixels) ||
      !qwino::checked_product({batch_size, output_height, output_width}, &output_pixels) ||
      !qwino::checked_array_bytes(input_pixels, input_pixel_stride, &input_bytes) ||
      !qwino::checked_array_bytes(output_pixels, output_pixel_stride, &output_bytes)) {
    return qwino_status_invalid_parameter;
  }
  const size_t threads = std::max<size_t>(1, pthreadpool_get_threads_count(threadpool));

  qwino::SetupState next;
  next.batch_size = batch_size;
  next.input_height = input_height;
  next.input_width = input_width;
  next.output_height = output_height;
  next.output_width = output_width;
  next.input = input;
  next.input_pixel_stride = input_pixel_stride;
  next.output = output;
  next.output_pixel_stride = output_pixel_stride;
  next.threads = threads;
  const qwino_algorithm algorithm = qwino::cheapest_algorithm(*op, output_height, output_width);
  if (algorithm != qwino_algorithm_direct) {
    if (!qwino::prepare_winograd_weights(op, algorithm)) {
      return qwino_status_out_of_memory;
    }
    const qwino::WinogradWeights& weights =
        algorithm == qwino_algorithm_winograd_f4x4_3x3 ? op->f43 : op->f23;
    next.winograd = plan_winograd(*op, weights, batch_size, output_height, output_width, threads);
    const qwino::WinogradSchedule& s = next.winograd;
    next.work_items = batch_size * g.groups * s.regions * s.channel_blocks;
    next.scratch_bytes_per_task = s.scratch_bytes_per_task;
  } else {
    if (!qwino::prepare_direct_weights(op)) {
      return qwino_status_out_of_memory;
    }
    next.direct = plan_direct(*op, batch_size, output_height, output_width, input_pixel_stride,
                              threads);
    const qwino::DirectSchedule& s = next.direct;
    next.work_items = batch_size * g.groups * s.regions * s.channel_blocks;
    next.scratch_bytes_per_task = s.scratch_bytes_per_task;
  }
  const size_t tasks = std::min(threads, next.work_items);
  if (!qwino::checked_array_bytes(tasks, next.scratch_bytes_per_task, &next.scratch_bytes)) {
    return qwino_status_out_of_memory;
  }
  if (op->setup.scratch && op->setup.scratch_bytes == next.scratch_bytes) {
    next.scratch = std::move(op->setup.scratch);  // same size: reuse (cannot fail)
  } else {
    next.scratch = qwino::allocate_aligned<char>(next.scratch_bytes);
    if (!next.scratch) {
      return qwino_status_out_of_memory;
    }
  }
  op->setup = std::move(next);
  op->algorithm = algorithm;
  return qwino_status_success;
}

}  // namespace

extern "C" qwino_status qwino_setup_convolution2d_nhwc_q8(
    qwino_operator_t convolution, size_t batch_size, size_t input_height, size_t input_width,
    const uint8_t* input, size_t input_pixel_stride, uint8_t* output,
    size_t output_pixel_stride, pthreadpool_t threadpool) {
  if (qwino_kernels() == nullptr) {
    return qwino_status_uninitialized;
  }
  const qwino::OperatorCall call(convolution);
  if (call.status() != qwino_status_success) {
    return call.status();
  }
  try {
    return setup(call.get(), batch_size, input_height, input_width, input, input_pixel_stride, output,
                 output_pixel_stride, threadpool);
  } catch (...) {  // only allocations throw (std::bad_alloc, std::length_error)
    return qwino_status_out_of_memory;
  }
}
