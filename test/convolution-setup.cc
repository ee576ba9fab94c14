// Setup runs the work split its planners compute (src/work-split.cc, whose own invariants
// test/work-split.cc checks) for the operator's sizes, kernels and thread count, and sizes the
// scratch for one slot per task; over many layer sizes, the three algorithms and 1-8 threads.
// Whether the bytes come out right is the operator tester's job.
#include <qwino.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "qwino/algorithm.h"
#include "qwino/operator-registry.h"
#include "qwino/operator.h"
#include "qwino/tuning.h"

namespace {

struct Case {
  size_t size, input_channels, output_channels;
  uint32_t flags;
};

class ConvolutionSetup : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override { ASSERT_EQ(qwino_status_success, qwino_initialize()); }
};

// The input the operator's setup should have given the planner for one Winograd part.
qwino::WinogradPlanInput WinogradInput(const qwino_operator& op, const qwino::WinogradPart& part,
                                       size_t threads) {
  const qwino::WinogradWeights& w = part.tile == 4 ? op.f43 : op.f23;
  qwino::WinogradPlanInput in{};
  in.batch_size = op.setup.batch_size;
  in.groups = op.geometry.groups;
  in.tiles = part.tiles;
  in.group_input_channels = op.geometry.group_input_channels;
  in.group_output_channels = op.geometry.group_output_channels;
  in.alpha = part.tile + 2;
  in.blocks = w.channel_block_starts.size();
  in.mr = op.kernels.gemm.mr;
  in.nr = op.kernels.gemm.nr;
  in.threads = threads;
  return in;
}

void ExpectSameSchedule(const qwino::WinogradSchedule& a, const qwino::WinogradSchedule& b) {
  EXPECT_EQ(a.tiles, b.tiles);
  EXPECT_EQ(a.row_blocks, b.row_blocks);
  EXPECT_EQ(a.regions, b.regions);
  EXPECT_EQ(a.region_tiles, b.region_tiles);
  EXPECT_EQ(a.channel_block, b.channel_block);
  EXPECT_EQ(a.channel_blocks, b.channel_blocks);
  EXPECT_EQ(a.channel_pass, b.channel_pass);
  EXPECT_EQ(a.scratch_bytes_per_task, b.scratch_bytes_per_task);
}

void ExpectSameSchedule(const qwino::DirectSchedule& a, const qwino::DirectSchedule& b) {
  EXPECT_EQ(a.pixels, b.pixels);
  EXPECT_EQ(a.region_pixels, b.region_pixels);
  EXPECT_EQ(a.regions, b.regions);
  EXPECT_EQ(a.channel_block, b.channel_block);
  EXPECT_EQ(a.channel_blocks, b.channel_blocks);
  EXPECT_EQ(a.pointwise, b.pointwise);
  EXPECT_EQ(a.gathered_row_bytes, b.gathered_row_bytes);
  EXPECT_EQ(a.item_pointers_per_pixel, b.item_pointers_per_pixel);
  EXPECT_EQ(a.pointers_offset_bytes, b.pointers_offset_bytes);
  EXPECT_EQ(a.c_offset_bytes, b.c_offset_bytes);
  EXPECT_EQ(a.scratch_bytes_per_task, b.scratch_bytes_per_task);
}

TEST_P(ConvolutionSetup, runs_the_planned_work_split) {
  const size_t threads = GetParam();
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  std::mt19937 rng(7 + threads);
  std::vector<Case> cases;
  for (uint32_t flags :
       {0u, uint32_t{QWINO_FLAG_FORCE_WINOGRAD_F2X2}, uint32_t{QWINO_FLAG_FORCE_WINOGRAD_F4X4},
        uint32_t{QWINO_FLAG_FORCE_DIRECT}, uint32_t{QWINO_FLAG_FORCE_INDIRECT_GEMM}}) {
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
    SCOPED_TRACE(testing::Message()
                 << c.size << "x" << c.size << "x" << c.input_channels << ">" << c.output_channels
                 << " flags " << c.flags << ", " << threads << " threads");
    // Small weights keep every Winograd algorithm exact, so the automatic choice may take any.
    std::vector<uint8_t> kernel(c.output_channels * 9 * c.input_channels);
    for (auto& w : kernel) w = static_cast<uint8_t>(126 + rng() % 5);
    std::vector<uint8_t> input(c.size * c.size * c.input_channels, 1);
    std::vector<uint8_t> output(c.size * c.size * c.output_channels);
    qwino_operator_t op = nullptr;
    ASSERT_EQ(qwino_status_success,
              qwino_create_convolution2d_nhwc_q8(
                  1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, c.input_channels, c.output_channels, 128, 0.5f,
                  128, 0.01f, kernel.data(), nullptr, 127, 0.75f, 0, 255, c.flags, &op));
    ASSERT_EQ(qwino_status_success, qwino_setup_convolution2d_nhwc_q8(
                                        op, 1, c.size, c.size, input.data(), c.input_channels,
                                        output.data(), c.output_channels, pool));
    const qwino_operator& internals = *qwino::find_operator(op);
    const qwino::SetupState& setup = internals.setup;
    const size_t tasks = std::min(threads, setup.work_items);
    EXPECT_EQ(tasks * setup.scratch_bytes_per_task, setup.scratch_bytes);
    const qwino::ConvolutionGeometry& g = internals.geometry;
    const bool indirect = internals.algorithm == qwino_algorithm_indirect_gemm;
    if (internals.algorithm == qwino_algorithm_direct || indirect) {
      qwino::DirectPlanInput in{};
      in.batch_size = 1;
      in.groups = g.groups;
      in.output_height = setup.output_height;
      in.output_width = setup.output_width;
      in.k = 9 * c.input_channels;
      in.group_output_channels = c.output_channels;
      in.mr = indirect ? internals.kernels.igemm.mr : internals.kernels.gemm.mr;
      in.nr = indirect ? internals.kernels.igemm.nr : internals.kernels.gemm.nr;
      in.threads = threads;
      in.pointwise = false;
      in.indirect = indirect;
      // Row terms: weights whose zero point the kernel does not take, or the UDOT kernels.
      in.row_terms = indirect && internals.indirect.column_gaps.data() != nullptr;
      // One input channel: 9 taps of 1 byte, which the indirect GEMM gathers into one row.
      // Rows longer than QWINO_X86_AMX_GATHERED_ROW_BYTES on the matrix kernels: gathered for
      // their kernel on rows, in whole 64-byte blocks, with its working-set target.
      const bool matrix_rows =
          indirect && internals.indirect.matrix_kernels &&
          internals.kernels.matrix_rows_requantize[internals.requantization].ukernel != nullptr &&
          9 * c.input_channels > QWINO_X86_AMX_GATHERED_ROW_BYTES;
      const size_t row_block = matrix_rows ? 64 : 16;
      in.gathered_row_bytes = indirect && internals.indirect.gathered_rows
                                  ? (9 * c.input_channels + row_block - 1) / row_block * row_block
                                  : 0;
      in.region_bytes = matrix_rows ? QWINO_X86_AMX_GATHERED_REGION_BYTES : 0;
      // Images this small have their pointers built at setup; gathered rows have one each.
      in.item_pointers_per_pixel = in.gathered_row_bytes != 0 ? 1 : 0;
      in.streamed_panel_elements = 0;
      // The direct path on the pair GEMM (AVX2 CPUs; these int8-range weights allow it): its
      // tile, and the 3x3 rows gathered as bytes in whole blocks of 16.
      if (!indirect && internals.direct.pairs) {
        in.pairs = true;
        in.mr = internals.kernels.pair_gemm.mr;
        in.nr = QWINO_U8S8_GEMM_NR;
        in.gathered_row_bytes = (9 * c.input_channels + 15) / 16 * 16;
      }
      ExpectSameSchedule(qwino::plan_direct(in), setup.direct);
      const qwino::DirectSchedule& s = setup.direct;
      EXPECT_EQ(s.regions * s.channel_blocks, setup.work_items);
    } else if (internals.algorithm == qwino_algorithm_depthwise) {  // one channel: 1 -> 1
      const qwino::DepthwiseSchedule& s = setup.depthwise;
      EXPECT_EQ(qwino::depthwise_channel_block(g.groups, internals.dwconv().cr, setup.output_height,
                                               threads),
                s.channel_block);
      EXPECT_EQ(setup.output_height * s.channel_blocks, setup.work_items);
      EXPECT_EQ(0u, setup.scratch_bytes_per_task);
    } else {
      const qwino::WinogradTiling& tiling = setup.winograd_tiling;
      // The algorithm's tiling of this map: F(2x2,3x3)'s, or F(4x4,3x3)'s with or without edges.
      const bool f43 = internals.algorithm == qwino_algorithm_winograd_f4x4_3x3;
      const qwino::WinogradTiling expected =
          qwino::plan_winograd_tiling(setup.output_height, setup.output_width, f43 ? 4 : 2,
                                      f43 && tiling.part_count == 2 ? 2 : 0);
      ASSERT_EQ(expected.part_count, tiling.part_count);
      EXPECT_TRUE(tiling.part_count == 1 || internals.f43.f23_edges);
      for (size_t part = 0; part < tiling.part_count; part++) {
        EXPECT_EQ(expected.parts[part].tile, tiling.parts[part].tile);
        EXPECT_EQ(expected.parts[part].tiles, tiling.parts[part].tiles);
        EXPECT_EQ(expected.parts[part].rectangle_count, tiling.parts[part].rectangle_count);
      }
      size_t items = 0, scratch = 0;
      for (size_t part = 0; part < tiling.part_count; part++) {
        ExpectSameSchedule(
            qwino::plan_winograd(WinogradInput(internals, tiling.parts[part], threads)),
            setup.winograd[part]);
        items += setup.winograd[part].regions * setup.winograd[part].channel_blocks;
        scratch = std::max(scratch, setup.winograd[part].scratch_bytes_per_task);
      }
      EXPECT_EQ(items, setup.work_items);
      EXPECT_EQ(scratch, setup.scratch_bytes_per_task);
    }
    qwino_delete_operator(op);
  }
  if (pool != nullptr) pthreadpool_destroy(pool);
}

INSTANTIATE_TEST_SUITE_P(Threads, ConvolutionSetup, ::testing::Values(1, 2, 3, 4, 8));

// F(4x4,3x3) on a 14x14 map leaves 2 rows and columns past its whole tiles: F(2x2,3x3) tiles
// take them (9 + 13 tiles), its weights packed by that setup, where F(2x2,3x3) is exact too; a
// 16x16 map has no edges. Weights that F(4x4,3x3) proves exact only in blocks of input channels
// while F(2x2,3x3)'s single block cannot be (2048 channels at the extremes: its bound allows
// about 1800) keep whole tiles.
TEST(WinogradEdges, f23_tiles_take_the_edges_where_exact) {
  ASSERT_EQ(qwino_status_success, qwino_initialize());
  struct Edge {
    size_t size, input_channels;
    uint8_t weight_low, weight_high;
    bool f23_exact;
    size_t parts;
  };
  for (const Edge e : {Edge{14, 64, 126, 130, true, 2}, Edge{16, 64, 126, 130, true, 1},
                       Edge{14, 2048, 0, 255, false, 1}}) {
    SCOPED_TRACE(testing::Message() << e.size << "x" << e.size << "x" << e.input_channels);
    const size_t output_channels = 16;
    std::vector<uint8_t> kernel(output_channels * 9 * e.input_channels);
    for (size_t i = 0; i < kernel.size(); i++) {
      kernel[i] = i % 2 == 0 ? e.weight_low : e.weight_high;
    }
    std::vector<uint8_t> input(e.size * e.size * e.input_channels, 255);
    std::vector<uint8_t> output(e.size * e.size * output_channels);
    qwino_operator_t op = nullptr;
    ASSERT_EQ(qwino_status_success,
              qwino_create_convolution2d_nhwc_q8(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, e.input_channels,
                                                 output_channels, 0, 0.5f, 128, 0.01f,
                                                 kernel.data(), nullptr, 127, 0.75f, 0, 255,
                                                 QWINO_FLAG_FORCE_WINOGRAD_F4X4, &op));
    const qwino_operator& internals = *qwino::find_operator(op);
    const qwino::AlgorithmEntry& f23 = *qwino::find_algorithm(qwino_algorithm_winograd_f2x2_3x3);
    EXPECT_EQ(e.f23_exact, internals.f43.f23_edges);
    EXPECT_EQ(0u, f23.weight_bytes(internals));
    const size_t bytes_at_create = qwino_operator_weight_bytes(op);
    ASSERT_EQ(qwino_status_success, qwino_setup_convolution2d_nhwc_q8(
                                        op, 1, e.size, e.size, input.data(), e.input_channels,
                                        output.data(), output_channels, nullptr));
    EXPECT_EQ(qwino_algorithm_winograd_f4x4_3x3, qwino_operator_algorithm(op));
    const qwino::WinogradTiling& tiling = internals.setup.winograd_tiling;
    ASSERT_EQ(e.parts, tiling.part_count);
    const size_t f23_bytes = f23.weight_bytes(internals);
    EXPECT_EQ(e.parts == 2, f23_bytes != 0);
    EXPECT_EQ(bytes_at_create + f23_bytes, qwino_operator_weight_bytes(op));
    if (e.parts == 2) {
      EXPECT_EQ(9u, tiling.parts[0].tiles);
      EXPECT_EQ(2u, tiling.parts[1].tile);
      EXPECT_EQ(13u, tiling.parts[1].tiles);
    }
    qwino_delete_operator(op);
  }
}

// Scratch is bounded by the thread count and the work item, not the image (README, qwino.h):
// large images set up (not run) for every algorithm that takes the layer. Inputs and outputs are
// real allocations of the sizes described; setup never touches their bytes, so their pages are
// never backed.
constexpr size_t kScratchBound = 4 << 20;        // the issue tracker's target: 4 MiB
constexpr size_t kTaskScratchBound = 512 << 10;  // per task, whatever the image

struct LargeLayer {
  uint32_t kernel, stride, groups;
  size_t group_input_channels, group_output_channels;
};

// qwino_operator_scratch_bytes after setup at size x size (0 if create refuses the flags), and
// whether the operator kept whole-image pointers (SetupState::indirection).
size_t ScratchBytes(const LargeLayer& l, uint32_t flags, size_t size, pthreadpool_t pool,
                    bool* whole_image_pointers = nullptr) {
  if (whole_image_pointers != nullptr) *whole_image_pointers = false;
  const size_t input_channels = l.groups * l.group_input_channels;
  const size_t output_channels = l.groups * l.group_output_channels;
  std::vector<int8_t> kernel(output_channels * l.kernel * l.kernel * l.group_input_channels);
  for (size_t i = 0; i < kernel.size(); i++) kernel[i] = static_cast<int8_t>(i % 7) - 3;
  std::vector<float> scales(output_channels, 0.01f);
  qwino_operator_t op = nullptr;
  const uint32_t pad = l.kernel / 2;
  const qwino_status created = qwino_create_convolution2d_nhwc_qs8_qc8w(
      pad, pad, pad, pad, l.kernel, l.kernel, l.stride, l.stride, 1, 1, l.groups,
      l.group_input_channels, l.group_output_channels, 0, 0.5f, scales.data(), kernel.data(),
      nullptr, 0, 0.75f, -128, 127, flags, &op);
  if (created == qwino_status_unsupported_parameter && flags != 0) return 0;
  EXPECT_EQ(qwino_status_success, created);
  if (created != qwino_status_success) return 0;
  const size_t output_size = (size + 2 * pad - l.kernel) / l.stride + 1;
  std::unique_ptr<int8_t[]> input(new int8_t[size * size * input_channels]);
  std::unique_ptr<int8_t[]> output(new int8_t[output_size * output_size * output_channels]);
  EXPECT_EQ(qwino_status_success,
            qwino_setup_convolution2d_nhwc_qs8(op, 1, size, size, input.get(), input_channels,
                                               output.get(), output_channels, pool));
  const size_t bytes = qwino_operator_scratch_bytes(op);
  if (whole_image_pointers != nullptr) {
    *whole_image_pointers = static_cast<bool>(qwino::find_operator(op)->setup.indirection);
  }
  EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
  return bytes;
}

TEST(ConvolutionScratch, bounded_on_large_images) {
  ASSERT_EQ(qwino_status_success, qwino_initialize());
  const uint32_t all_flags[] = {0,
                                QWINO_FLAG_FORCE_WINOGRAD_F2X2,
                                QWINO_FLAG_FORCE_WINOGRAD_F4X4,
                                QWINO_FLAG_FORCE_DIRECT,
                                QWINO_FLAG_FORCE_INDIRECT_GEMM,
                                QWINO_FLAG_FORCE_DEPTHWISE};
  // The issue tracker's layers: an automatic 3x3 stride-2 64->128 layer at 1024x1024 (18.9 MB
  // of pointers if built for the whole image), a forced 3x3 8->8 indirect GEMM at 4096x4096
  // (1.2 GB); and a 3x3 stride-1 layer, a 1x1 layer and a depthwise layer.
  const LargeLayer layers[] = {
      {3, 2, 1, 64, 128}, {3, 1, 1, 8, 8}, {3, 1, 1, 32, 32}, {1, 1, 1, 32, 64}, {3, 1, 32, 1, 1}};
  for (size_t threads : {1, 2, 3}) {
    pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
    for (const LargeLayer& l : layers) {
      const size_t channels = l.groups * std::max(l.group_input_channels, l.group_output_channels);
      // 4096 for the 8-channel layer, less for the wider ones: the tensors are real allocations.
      const size_t large = channels <= 8 ? 4096 : channels <= 32 ? 2048 : 1536;
      const size_t smaller = channels <= 8 ? 2048 : 1024;
      for (uint32_t flags : all_flags) {
        SCOPED_TRACE(testing::Message()
                     << l.kernel << "x" << l.kernel << "/" << l.stride << " " << l.groups << "x"
                     << l.group_input_channels << ">" << l.group_output_channels << " flags "
                     << flags << ", " << threads << " threads");
        // Two sizes past the whole-image pointers' budget: the same bound for both. A task's
        // buffers are one work item's (a region of at most 64 pixels or tiles, which the
        // planner may merge by a third to balance threads, sized for the 128 KiB working set of
        // qwino/tuning.h; a depthwise output row's pointers, 24 bytes a column here).
        for (size_t size : {smaller, large}) {
          bool whole_image_pointers = false;
          const size_t bytes = ScratchBytes(l, flags, size, pool, &whole_image_pointers);
          EXPECT_LE(bytes, kScratchBound) << size;
          EXPECT_LE(bytes, threads * kTaskScratchBound) << size;
          EXPECT_FALSE(whole_image_pointers) << size;
        }
      }
    }
    if (pool != nullptr) pthreadpool_destroy(pool);
  }
  // Below the budget the whole image's pointers are built once at setup (no per-run work): the
  // benchmark networks' largest indirect layer, VGG-16's 224x224x64 3x3 (3.4 MiB of pointers).
  bool whole_image_pointers = false;
  const LargeLayer vgg = {3, 1, 1, 64, 64};
  ScratchBytes(vgg, QWINO_FLAG_FORCE_INDIRECT_GEMM, 224, nullptr, &whole_image_pointers);
  EXPECT_TRUE(whole_image_pointers);
}

}  // namespace
