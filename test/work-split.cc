// The work-split planners (src/work-split.cc) as the pure functions they are: no operator, every
// GEMM tile of the s16-gemm list, 1-8 threads, many layer sizes, and images far larger than any
// test could allocate. Invariants (doc/DESIGN.md section 5):
//   - regions cover every tile (pixel) once, in whole GEMM row blocks except the last region;
//     region_tiles is the largest region;
//   - channel blocks cover every output channel in whole cache lines of output (so two work items
//     never write the same line of a line-aligned pixel) and whole GEMM panels; channel passes
//     are whole panels within a block;
//   - a task's scratch holds what its item needs, in whole cache lines;
//   - with several threads, the items are few and uneven only where channels are split (or too
//     few to split).
// Whether setup runs what the planners say is checked in test/convolution-setup.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "qwino/common.h"
#include "qwino/work-split.h"

namespace {

struct Tile {
  size_t mr, nr;
};

std::vector<Tile> GemmTiles() {
  std::vector<Tile> tiles;
#define QWINO_S16_GEMM(isa, ukernel, mr, nr, kr, k_padding, mac_cost) tiles.push_back({mr, nr});
#include "s16-gemm/s16-gemm.inc"
#undef QWINO_S16_GEMM
  return tiles;
}

size_t ItemsOf(size_t batch_size, size_t groups, size_t regions, size_t channel_blocks) {
  return batch_size * groups * regions * channel_blocks;
}

// Channel blocks: cover the channels, whole cache lines and panels when split.
void CheckChannelBlocks(size_t block, size_t blocks, size_t channels, size_t nr) {
  EXPECT_GE(blocks * block, channels);
  EXPECT_LT((blocks - 1) * block, channels);
  EXPECT_EQ(0u, block % nr);
  if (blocks > 1) {
    EXPECT_EQ(0u, block % std::lcm(nr, size_t{QWINO_CACHE_LINE_SIZE}));
  }
}

// Few items that do not divide among the threads: no merge could even them out, so channels
// must be split (unless too few to split into whole cache lines).
void CheckBalance(size_t items, size_t threads, size_t channel_blocks, size_t channels, size_t nr) {
  if (threads > 1 && items % threads != 0 && items < 4 * threads) {
    EXPECT_TRUE(channel_blocks > 1 || channels <= std::lcm(nr, size_t{QWINO_CACHE_LINE_SIZE}))
        << items << " items on " << threads << " threads";
  }
}

void CheckWinograd(const qwino::WinogradPlanInput& in) {
  const qwino::WinogradSchedule s = qwino::plan_winograd(in);
  ASSERT_EQ(in.tiles, s.tiles);
  const size_t tiles = in.tiles;
  ASSERT_GT(s.regions, 0u);
  size_t next_tile = 0, largest = 0;
  for (size_t region = 0; region < s.regions; region++) {
    const qwino::TileRange range = qwino::region_tile_range(s, tiles, in.mr, region);
    ASSERT_EQ(next_tile, range.first) << "region " << region;
    ASSERT_GT(range.count, 0u) << "region " << region;
    if (region + 1 < s.regions) {
      ASSERT_EQ(0u, range.count % in.mr) << "region " << region << " is not whole row blocks";
    }
    next_tile = range.first + range.count;
    largest = std::max(largest, range.count);
  }
  EXPECT_EQ(tiles, next_tile);
  EXPECT_EQ(largest, s.region_tiles);

  CheckChannelBlocks(s.channel_block, s.channel_blocks, in.group_output_channels, in.nr);
  EXPECT_EQ(0u, s.channel_pass % in.nr);
  EXPECT_LE(s.channel_pass, s.channel_block);
  EXPECT_EQ(s.output_row_stride, s.channel_pass);

  // V of the largest region, then M of one pass for every block, in whole cache lines.
  const size_t positions = in.alpha * in.alpha;
  EXPECT_GE(s.input_row_stride, in.group_input_channels);
  EXPECT_GE(s.m_offset_bytes, positions * s.region_tiles * s.input_row_stride * sizeof(int16_t));
  EXPECT_EQ(s.m_block_stride, positions * s.region_tiles * s.output_row_stride);
  EXPECT_GE(s.scratch_bytes_per_task,
            s.m_offset_bytes + in.blocks * s.m_block_stride * sizeof(int32_t));
  EXPECT_EQ(0u, s.m_offset_bytes % QWINO_CACHE_LINE_SIZE);
  EXPECT_EQ(0u, s.scratch_bytes_per_task % QWINO_CACHE_LINE_SIZE);
  CheckBalance(ItemsOf(in.batch_size, in.groups, s.regions, s.channel_blocks), in.threads,
               s.channel_blocks, in.group_output_channels, in.nr);
}

void CheckDirect(const qwino::DirectPlanInput& in) {
  const qwino::DirectSchedule s = qwino::plan_direct(in);
  EXPECT_EQ(in.output_height * in.output_width, s.pixels);
  EXPECT_EQ(0u, s.region_pixels % in.mr);
  EXPECT_GE(s.regions * s.region_pixels, s.pixels);
  EXPECT_LT((s.regions - 1) * s.region_pixels, s.pixels);
  CheckChannelBlocks(s.channel_block, s.channel_blocks, in.group_output_channels, in.nr);
  EXPECT_EQ(in.pointwise, s.pointwise);
  EXPECT_GE(s.a_row_stride, in.k);
  EXPECT_GE(s.c_row_stride, s.channel_block);
  // A, then C, then the streamed panels of a block, in whole cache lines.
  EXPECT_GE(s.c_offset_bytes, s.region_pixels * s.a_row_stride * sizeof(int16_t));
  EXPECT_GE(s.b_offset_bytes, s.c_offset_bytes + s.region_pixels * s.c_row_stride * 4);
  EXPECT_GE(s.scratch_bytes_per_task,
            s.b_offset_bytes + s.channel_block / in.nr * in.streamed_panel_elements * 2);
  EXPECT_EQ(0u, s.c_offset_bytes % QWINO_CACHE_LINE_SIZE);
  EXPECT_EQ(0u, s.b_offset_bytes % QWINO_CACHE_LINE_SIZE);
  EXPECT_EQ(0u, s.scratch_bytes_per_task % QWINO_CACHE_LINE_SIZE);
  CheckBalance(ItemsOf(in.batch_size, in.groups, s.regions, s.channel_blocks), in.threads,
               s.channel_blocks, in.group_output_channels, in.nr);
}

// The tiling covers every output pixel of the map exactly once, each tile's place inside its
// rectangle; the edge part exists exactly when a side leaves 1..edge_tile outputs past whole
// tiles, and then takes just those.
TEST(WinogradTiling, covers_every_output_once) {
  struct Case {
    size_t tile, edge_tile;
  };
  for (const Case c : {Case{4, 0}, Case{4, 2}, Case{2, 0}}) {
    for (size_t height = 1; height <= 19; height++) {
      for (size_t width = 1; width <= 19; width++) {
        SCOPED_TRACE(testing::Message() << "tile " << c.tile << " edge " << c.edge_tile << " "
                                        << height << "x" << width);
        const qwino::WinogradTiling t =
            qwino::plan_winograd_tiling(height, width, c.tile, c.edge_tile);
        const auto has_edge = [&](size_t size) {
          return c.edge_tile != 0 && size > c.tile && size % c.tile != 0 &&
                 size % c.tile <= c.edge_tile;
        };
        const bool edges = has_edge(height) || has_edge(width);
        ASSERT_EQ(edges ? 2u : 1u, t.part_count);
        EXPECT_EQ(c.tile, t.parts[0].tile);
        EXPECT_EQ(1u, t.parts[0].rectangle_count);
        std::vector<int> covered(height * width, 0);
        for (size_t p = 0; p < t.part_count; p++) {
          const qwino::WinogradPart& part = t.parts[p];
          size_t rectangle_tiles = 0;
          for (size_t r = 0; r < part.rectangle_count; r++) {
            rectangle_tiles += part.rectangles[r].tiles;
          }
          ASSERT_EQ(rectangle_tiles, part.tiles);
          for (size_t tile = 0; tile < part.tiles; tile++) {
            const qwino::TilePlace place = qwino::winograd_tile_place(part, tile);
            ASSERT_GE(place.rows, 1u);
            ASSERT_GE(place.columns, 1u);
            ASSERT_LE(place.rows, part.tile);
            ASSERT_LE(place.columns, part.tile);
            ASSERT_LE(place.row + place.rows, height);
            ASSERT_LE(place.column + place.columns, width);
            // Only the first part's last tiles may be partial where it has no edge part there.
            if (p == 0) {
              EXPECT_TRUE(place.rows == part.tile || !has_edge(height));
              EXPECT_TRUE(place.columns == part.tile || !has_edge(width));
            }
            for (size_t y = place.row; y < place.row + place.rows; y++) {
              for (size_t x = place.column; x < place.column + place.columns; x++) {
                covered[y * width + x]++;
              }
            }
          }
        }
        for (size_t i = 0; i < covered.size(); i++) {
          ASSERT_EQ(1, covered[i]) << "output " << i / width << "," << i % width;
        }
        if (edges) {
          EXPECT_EQ(c.edge_tile, t.parts[1].tile);
          const size_t interior_rows = t.parts[0].rectangles[0].rows;
          const size_t interior_columns = t.parts[0].rectangles[0].columns;
          EXPECT_EQ(has_edge(height) ? height - height % c.tile : height, interior_rows);
          EXPECT_EQ(has_edge(width) ? width - width % c.tile : width, interior_columns);
        }
      }
    }
  }
}

// Setup's planners take time independent of the image (qwino.h): the tiling of a map of 2^62
// outputs is formed in O(1), its counts exact.
TEST(WinogradTiling, huge_maps) {
  const size_t side = (size_t{1} << 31) + 1;
  const qwino::WinogradTiling t = qwino::plan_winograd_tiling(side, side, 4, 2);
  ASSERT_EQ(2u, t.part_count);
  EXPECT_EQ((side / 4) * (side / 4), t.parts[0].tiles);
  EXPECT_EQ((side - 1) / 2 + (side + 1) / 2, t.parts[1].tiles);  // right strip, bottom strip
  const qwino::TilePlace last = qwino::winograd_tile_place(t.parts[1], t.parts[1].tiles - 1);
  EXPECT_EQ(side - 1, last.row);
  EXPECT_EQ(side - 1, last.column);
  EXPECT_EQ(1u, last.rows);
  EXPECT_EQ(1u, last.columns);
}

class WorkSplit : public ::testing::TestWithParam<size_t /* threads */> {};

TEST_P(WorkSplit, winograd_invariants) {
  for (const Tile& tile : GemmTiles()) {
    for (size_t alpha : {4, 6}) {
      for (size_t size : {1, 2, 3, 5, 7, 8, 13, 14, 21, 28, 30, 56, 57, 112}) {
        for (size_t channels : {1, 8, 24, 64, 96, 200, 512}) {
          for (size_t batch_groups : {1, 2, 3}) {
            SCOPED_TRACE(testing::Message()
                         << "mr " << tile.mr << " nr " << tile.nr << " alpha " << alpha << " "
                         << size << "x" << size << "x" << channels << " x" << batch_groups);
            qwino::WinogradPlanInput in{};
            in.batch_size = batch_groups;
            in.groups = batch_groups == 3 ? 2 : 1;
            in.tiles = qwino_divide_round_up(size, alpha - 2) *
                       qwino_divide_round_up(size + batch_groups - 1, alpha - 2);
            in.group_input_channels = channels;
            in.group_output_channels = channels + 8 * (batch_groups - 1);
            in.alpha = alpha;
            in.blocks = alpha == 6 ? batch_groups : 1;
            in.mr = tile.mr;
            in.nr = tile.nr;
            in.threads = GetParam();
            CheckWinograd(in);
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

TEST_P(WorkSplit, direct_invariants) {
  for (const Tile& tile : GemmTiles()) {
    for (size_t size : {1, 2, 5, 7, 14, 28, 57, 112}) {
      for (size_t k : {1, 9, 27, 64, 576, 4608}) {
        for (size_t channels : {1, 3, 32, 64, 200, 512}) {
          for (size_t streamed : {size_t{0}, (k + 3) / 4 * 4 * tile.nr}) {
            SCOPED_TRACE(testing::Message()
                         << "mr " << tile.mr << " nr " << tile.nr << " " << size << "x" << size
                         << " k " << k << " > " << channels << " streamed " << streamed);
            qwino::DirectPlanInput in{};
            in.batch_size = 1 + size % 2;
            in.groups = streamed != 0 ? 5 : 1;
            in.output_height = size;
            in.output_width = size + 1;
            in.k = k;
            in.group_output_channels = channels;
            in.mr = tile.mr;
            in.nr = tile.nr;
            in.threads = GetParam();
            in.pointwise = k == 64 && streamed == 0;
            in.streamed_panel_elements = streamed;
            CheckDirect(in);
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, WorkSplit, ::testing::Values(1, 2, 3, 4, 8));

// Images of 2^40 tiles: region offsets (region x row blocks) pass 2^64, and planning must not
// take time in proportion to the image (setup accepts any output that fits in memory).
TEST(WorkSplitHuge, regions_of_an_image_of_2_pow_40_tiles) {
  for (const Tile& tile : GemmTiles()) {
    qwino::WinogradPlanInput in{};
    in.batch_size = 1;
    in.groups = 1;
    in.tiles = qwino::plan_winograd_tiling((size_t{1} << 32) - 2, 4094, 4, 0).parts[0].tiles;
    in.group_input_channels = 1;
    in.group_output_channels = 1;
    in.alpha = 6;
    in.blocks = 1;
    in.mr = tile.mr;
    in.nr = tile.nr;
    in.threads = 3;
    const qwino::WinogradSchedule s = qwino::plan_winograd(in);
    const size_t tiles = s.tiles;
    EXPECT_EQ(size_t{1} << 40, tiles);
    EXPECT_GT(s.regions, size_t{1} << 30);
    EXPECT_EQ(0u, qwino::region_tile_range(s, tiles, tile.mr, 0).first);
    for (size_t region : {size_t{1}, s.regions / 3, s.regions / 2, s.regions - 1}) {
      const qwino::TileRange previous = qwino::region_tile_range(s, tiles, tile.mr, region - 1);
      const qwino::TileRange range = qwino::region_tile_range(s, tiles, tile.mr, region);
      EXPECT_EQ(previous.first + previous.count, range.first) << region;
      EXPECT_LE(range.count, s.region_tiles) << region;
    }
    const qwino::TileRange last = qwino::region_tile_range(s, tiles, tile.mr, s.regions - 1);
    EXPECT_EQ(tiles, last.first + last.count);
    EXPECT_LT(s.scratch_bytes_per_task, size_t{1} << 20);
  }
}

}  // namespace
