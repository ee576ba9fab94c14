// The work split (qwino/work-split.h): pure functions of sizes, tile and thread count.
#include "qwino/work-split.h"

#include <algorithm>
#include <numeric>

#include "qwino/common.h"
#include "qwino/tuning.h"

namespace qwino {
namespace {

// Output channels per work item when a group's are split into `blocks`: whole GEMM panels, and
// whole cache lines of output (one byte per channel), so that two items never write the same
// line of a pixel whose channels start on a line.
size_t channel_block_for(size_t group_output_channels, size_t nr, size_t blocks) {
  const size_t granularity = std::lcm(nr, size_t{QWINO_CACHE_LINE_SIZE});
  return qwino_round_up(qwino_divide_round_up(group_output_channels, blocks), granularity);
}

// Output channels per direct-path item: all of a group's, split into blocks only when
// coarse_items (images x groups x regions) cannot give every thread items_per_thread items.
// Splitting repeats the region's im2col per block, which is cheap next to its GEMMs.
size_t channel_block_size(size_t group_output_channels, size_t nr, size_t coarse_items,
                          size_t threads) {
  size_t blocks = 1;
  if (threads > 1 && coarse_items < kWorkSplitTuning.items_per_thread * threads) {
    blocks = qwino_divide_round_up(kWorkSplitTuning.items_per_thread * threads, coarse_items);
  }
  return channel_block_for(group_output_channels, nr, blocks);
}

// How a Winograd layer's regions are shared among threads. A region's GEMMs stream all the weights
// of its channels, a cost that does not shrink with the region, so a small trailing region or an
// idle thread at the end both waste time. So regions are merged (growing by at most a third) until
// images x groups x regions divides evenly among the threads; failing that, when there are fewer
// than kWorkSplitTuning.items_per_thread items per thread, the output channels are split into the
// fewest blocks that make the items divide (each block repeats the region's input transform; blocks
// are whole cache lines, so a group of 64 channels or fewer is not split). One thread keeps the
// regions the working set asks for.
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
  if (items % threads != 0 && items < kWorkSplitTuning.items_per_thread * threads) {
    *channel_blocks = threads / std::gcd(items, threads);
  }
}

TileRectangle tile_rectangle(size_t row, size_t column, size_t rows, size_t columns, size_t tile) {
  const size_t tiles_width = qwino_divide_round_up(columns, tile);
  return {row, column, rows, columns, tiles_width, qwino_divide_round_up(rows, tile) * tiles_width};
}

// The outputs of a dimension of `size` that the first part covers.
size_t first_part_extent(size_t size, size_t tile, size_t edge_tile) {
  const size_t past = size % tile;
  return size > tile && past != 0 && past <= edge_tile ? size - past : size;
}

}  // namespace

size_t depthwise_channel_block(size_t channels, size_t cr, size_t rows, size_t threads) {
  return channel_block_size(channels, cr, rows, threads);
}

WinogradTiling plan_winograd_tiling(size_t output_height, size_t output_width, size_t tile,
                                    size_t edge_tile) {
  WinogradTiling t{};
  const size_t rows = first_part_extent(output_height, tile, edge_tile);
  const size_t columns = first_part_extent(output_width, tile, edge_tile);
  WinogradPart& first = t.parts[0];
  first.tile = tile;
  first.rectangles[0] = tile_rectangle(0, 0, rows, columns, tile);
  first.rectangle_count = 1;
  first.tiles = first.rectangles[0].tiles;
  t.part_count = 1;
  if (rows == output_height && columns == output_width) {
    return t;
  }
  WinogradPart& edge = t.parts[1];
  edge.tile = edge_tile;
  if (columns < output_width) {
    edge.rectangles[edge.rectangle_count++] =
        tile_rectangle(0, columns, rows, output_width - columns, edge_tile);
  }
  if (rows < output_height) {
    edge.rectangles[edge.rectangle_count++] =
        tile_rectangle(rows, 0, output_height - rows, output_width, edge_tile);
  }
  edge.tiles = edge.rectangles[0].tiles + (edge.rectangle_count > 1 ? edge.rectangles[1].tiles : 0);
  t.part_count = 2;
  return t;
}

WinogradSchedule plan_winograd(const WinogradPlanInput& in) {
  const size_t mr = in.mr;
  const size_t nr = in.nr;
  const size_t positions = in.alpha * in.alpha;
  const size_t blocks = in.blocks;
  WinogradSchedule s{};
  s.tiles = in.tiles;
  const size_t tiles = in.tiles;
  s.input_row_stride = qwino_round_up(in.group_input_channels, 8);

  // The region's V takes at most half of the working set, M of one channel pass the rest.
  const size_t v_bytes_per_tile = positions * s.input_row_stride * sizeof(int16_t);
  const WorkSplitTuning& tuning = kWorkSplitTuning;
  const size_t max_region_tiles = std::clamp<size_t>(
      tuning.region_bytes_target / 2 / v_bytes_per_tile / mr * mr, mr, tuning.max_region_tiles);
  // Regions are made of whole row blocks (mr tiles, the GEMM's efficient size). A last,
  // partial block of at most mr / 2 tiles joins the last region instead of making its own: a
  // region costs a pass over its channels' weights however few its tiles.
  s.row_blocks = qwino_divide_round_up(tiles, mr);
  if (s.row_blocks > 1 && tiles % mr != 0 && tiles % mr <= mr / 2) {
    s.row_blocks--;
  }
  s.regions = qwino_divide_round_up(s.row_blocks, max_region_tiles / mr);
  s.channel_blocks = 1;
  share_regions_among_threads(in.batch_size * in.groups, in.threads, &s.regions, &s.channel_blocks);
  s.region_tiles = largest_region_tiles(s, tiles, mr);
  s.channel_block = channel_block_for(in.group_output_channels, nr, s.channel_blocks);
  s.channel_blocks = qwino_divide_round_up(in.group_output_channels, s.channel_block);
  const size_t v_region_bytes = qwino_round_up(
      positions * s.region_tiles * s.input_row_stride * sizeof(int16_t), QWINO_CACHE_LINE_SIZE);
  const size_t m_bytes_per_channel = positions * blocks * s.region_tiles * sizeof(int32_t);
  const size_t m_budget =
      tuning.region_bytes_target > v_region_bytes ? tuning.region_bytes_target - v_region_bytes : 0;
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

// The direct path's regions: the A rows and C of one region stay within the working-set target
// (the GEMM streams the region's A rows past each B panel, which stays in L1).
DirectSchedule plan_direct(const DirectPlanInput& in) {
  const size_t mr = in.mr;
  const size_t nr = in.nr;
  DirectSchedule s{};
  s.pixels = in.output_height * in.output_width;
  s.pointwise = in.pointwise;
  s.a_row_stride = in.indirect || in.pairs ? 0 : s.pointwise ? in.k : qwino_round_up(in.k, 8);

  const size_t coarse_items =
      in.batch_size * in.groups *
      qwino_divide_round_up(s.pixels, kWorkSplitTuning.max_direct_region_pixels);
  s.channel_block = channel_block_size(in.group_output_channels, nr, coarse_items, in.threads);
  s.channel_blocks = qwino_divide_round_up(in.group_output_channels, s.channel_block);
  s.c_row_stride = s.channel_block;

  s.gathered_row_bytes = in.indirect || in.pairs ? in.gathered_row_bytes : 0;
  s.item_pointers_per_pixel = in.indirect ? in.item_pointers_per_pixel : 0;
  const size_t pointer_bytes_per_pixel = s.item_pointers_per_pixel * sizeof(const uint8_t*);
  const size_t a_bytes_per_pixel =
      s.gathered_row_bytes + pointer_bytes_per_pixel + s.a_row_stride * sizeof(int16_t);
  const size_t bytes_per_pixel = a_bytes_per_pixel + s.c_row_stride * sizeof(int32_t);
  const size_t region_bytes =
      in.region_bytes != 0 ? in.region_bytes : kWorkSplitTuning.region_bytes_target;
  s.region_pixels = std::clamp<size_t>(region_bytes / bytes_per_pixel / mr * mr, mr,
                                       kWorkSplitTuning.max_direct_region_pixels);
  s.region_pixels = std::min(s.region_pixels, qwino_round_up(s.pixels, mr));
  s.regions = qwino_divide_round_up(s.pixels, s.region_pixels);
  s.pointers_offset_bytes =
      qwino_round_up(s.region_pixels * (s.a_row_stride * sizeof(int16_t) + s.gathered_row_bytes),
                     QWINO_CACHE_LINE_SIZE);
  s.c_offset_bytes =
      s.pointers_offset_bytes +
      qwino_round_up(s.region_pixels * pointer_bytes_per_pixel, QWINO_CACHE_LINE_SIZE);
  s.b_offset_bytes =
      s.c_offset_bytes +
      qwino_round_up(s.region_pixels * s.c_row_stride * sizeof(int32_t), QWINO_CACHE_LINE_SIZE);
  const size_t streamed_panel_bytes =
      s.channel_block / nr * in.streamed_panel_elements * sizeof(int16_t);
  s.row_terms_offset_bytes =
      s.b_offset_bytes + qwino_round_up(streamed_panel_bytes, QWINO_CACHE_LINE_SIZE);
  s.scratch_bytes_per_task =
      s.row_terms_offset_bytes +
      qwino_round_up(in.row_terms ? s.region_pixels * sizeof(int32_t) : 0, QWINO_CACHE_LINE_SIZE);
  return s;
}

}  // namespace qwino
