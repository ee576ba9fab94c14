// The work split that setup computes (src/convolution-setup.cc), checked on its own invariants
// over many layer sizes and thread counts; whether the bytes come out right is the operator
// tester's job. Invariants: regions cover every tile once, in whole GEMM row blocks except the
// last region; channel blocks cover every output channel in whole cache lines of output (so two
// work items never write the same line of a line-aligned pixel); channel passes are whole GEMM
// panels within a block; the scratch holds one slot per task; with several threads, the work
// items are few and uneven only where channels are split (or too few to split).
#include <qwino.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "qwino/operator-registry.h"
#include "qwino/operator.h"

namespace {

struct Case {
  size_t size, input_channels, output_channels;
  uint32_t flags;
};

class ConvolutionSetup : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override { ASSERT_EQ(qwino_status_success, qwino_initialize()); }
};

void check_winograd_schedule(const qwino_operator& op, const Case& c, size_t threads) {
  const qwino::WinogradSchedule& s = op.setup.winograd;
  const size_t mr = op.kernels.gemm_mr;
  const size_t nr = op.kernels.gemm_nr;
  const size_t tiles = s.tiles_height * s.tiles_width;
  size_t next_tile = 0, largest = 0;
  for (size_t region = 0; region < s.regions; region++) {
    const qwino::TileRange range = qwino::region_tile_range(s, tiles, mr, region);
    EXPECT_EQ(next_tile, range.first) << "region " << region;
    EXPECT_GT(range.count, 0u) << "region " << region;
    if (region + 1 < s.regions) {
      EXPECT_EQ(0u, range.count % mr) << "region " << region << " is not whole row blocks";
    }
    next_tile = range.first + range.count;
    largest = std::max(largest, range.count);
  }
  EXPECT_EQ(tiles, next_tile);
  EXPECT_EQ(largest, s.region_tiles);

  EXPECT_GE(s.channel_blocks * s.channel_block, c.output_channels);
  EXPECT_LT((s.channel_blocks - 1) * s.channel_block, c.output_channels);
  if (s.channel_blocks > 1) {
    EXPECT_EQ(0u, s.channel_block % std::lcm(nr, size_t{64}));
  }
  EXPECT_EQ(0u, s.channel_pass % nr);
  EXPECT_LE(s.channel_pass, s.channel_block);
  EXPECT_EQ(s.output_row_stride, s.channel_pass);

  if (threads > 1 && op.setup.work_items % threads != 0 && op.setup.work_items < 4 * threads) {
    // Few items that do not divide: no merge could even them out, so channels must be split
    // (unless too few to split into whole cache lines).
    EXPECT_TRUE(s.channel_blocks > 1 || c.output_channels <= std::lcm(nr, size_t{64}))
        << op.setup.work_items << " items on " << threads << " threads";
  }
}

TEST_P(ConvolutionSetup, work_split_invariants) {
  const size_t threads = GetParam();
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  std::mt19937 rng(7 + threads);
  std::vector<Case> cases;
  for (uint32_t flags :
       {0u, uint32_t{QWINO_FLAG_FORCE_WINOGRAD}, uint32_t{QWINO_FLAG_FORCE_DIRECT}}) {
    for (size_t size : {1, 2, 3, 5, 7, 8, 13, 14, 21, 28, 30, 56, 57}) {
      for (size_t channels : {1, 8, 24, 64, 96, 128, 200}) {
        cases.push_back({size, channels, channels + rng() % 3 * 8, flags});
      }
    }
    for (size_t size : {7, 14}) {
      cases.push_back({size, 512, 512, flags});  // ResNet-18's deepest: 4 or 16 tiles
    }
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.size << "x" << c.size << "x" << c.input_channels << ">"
                                    << c.output_channels << " flags " << c.flags << ", "
                                    << threads << " threads");
    // Small weights keep every Winograd algorithm exact, so the automatic choice may take any.
    std::vector<uint8_t> kernel(c.output_channels * 9 * c.input_channels);
    for (auto& w : kernel) w = static_cast<uint8_t>(126 + rng() % 5);
    std::vector<uint8_t> input(c.size * c.size * c.input_channels, 1);
    std::vector<uint8_t> output(c.size * c.size * c.output_channels);
    qwino_operator_t op = nullptr;
    ASSERT_EQ(qwino_status_success,
              qwino_create_convolution2d_nhwc_q8(
                  1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, c.input_channels, c.output_channels, 128,
                  0.5f, 128, 0.01f, kernel.data(), nullptr, 127, 0.75f, 0, 255, c.flags, &op));
    ASSERT_EQ(qwino_status_success,
              qwino_setup_convolution2d_nhwc_q8(op, 1, c.size, c.size, input.data(),
                                                c.input_channels, output.data(),
                                                c.output_channels, pool));
    const qwino_operator& internals = *qwino::find_operator(op);
    const size_t tasks = std::min(threads, internals.setup.work_items);
    EXPECT_EQ(tasks * internals.setup.scratch_bytes_per_task, internals.setup.scratch_bytes);
    EXPECT_EQ(0u, internals.setup.scratch_bytes_per_task % QWINO_CACHE_LINE_SIZE);
    if (internals.algorithm == qwino_algorithm_direct) {
      const qwino::DirectSchedule& s = internals.setup.direct;
      EXPECT_GE(s.regions * s.region_pixels, s.pixels);
      EXPECT_GE(s.channel_blocks * s.channel_block, c.output_channels);
      if (s.channel_blocks > 1) {
        EXPECT_EQ(0u, s.channel_block % std::lcm(size_t{internals.kernels.gemm_nr}, size_t{64}));
      }
    } else {
      check_winograd_schedule(internals, c, threads);
    }
    qwino_delete_operator(op);
  }
  if (pool != nullptr) pthreadpool_destroy(pool);
}

INSTANTIATE_TEST_SUITE_P(Threads, ConvolutionSetup, ::testing::Values(1, 2, 3, 4, 8));

}  // namespace
