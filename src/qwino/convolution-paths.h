// One work item of each algorithm. Items are independent: they write disjoint outputs, so any
// thread may run any item in any order and the bytes do not depend on the thread count.
#ifndef QWINO_CONVOLUTION_PATHS_H_
#define QWINO_CONVOLUTION_PATHS_H_

#include <cstddef>
#include <cstdint>

struct qwino_operator;

namespace qwino {

// Item = (image, group, region of output pixels, block of output channels), see DirectSchedule.
// scratch: DirectSchedule::scratch_bytes_per_task bytes, cache-line aligned, owned by the
// caller's task for the duration of the call.
void run_direct_item(const qwino_operator& op, size_t item, char* scratch);

// What an item of a direct-style schedule covers (the direct and the indirect GEMM paths, both
// planned by plan_pixel_regions): the item's image, group, output pixels and output channels.
struct PixelRegionItem {
  size_t image, group, first_pixel, pixels, first_channel, channels;
};
PixelRegionItem pixel_region_item(const qwino_operator& op, size_t item);

struct DirectPlanInput;
struct SetupState;
// Plans a direct-style setup (the direct and the indirect GEMM paths: regions of output pixels x
// blocks of output channels) from `in`'s path-specific fields (k, mr, nr, pointwise, indirect,
// streamed panels) and the setup's sizes and threads: fills setup->direct, work_items and
// scratch_bytes_per_task.
void plan_pixel_regions(const qwino_operator& op, DirectPlanInput in, SetupState* setup);

struct WinogradPart;
struct WinogradSchedule;
struct WinogradWeights;
// Item = (part, image, group, region of tiles, block of output channels): the items of the
// setup's first Winograd part, then those of the second (WinogradTiling, WinogradSchedule).
// scratch: SetupState::scratch_bytes_per_task bytes (the larger part's), cache-line aligned,
// owned by the caller's task for the duration of the call.
void run_winograd_item(const qwino_operator& op, size_t item, char* scratch);

// The three stages of one Winograd item, exposed so that benchmarks can time them separately
// (thesis table 3.9). run_winograd_item is the input transform of the item followed, for each
// of its channel passes, by the multiply and the output transform of that pass.
struct WinogradItem {
  const WinogradPart* part;          // of op.setup.winograd_tiling
  const WinogradSchedule* schedule;  // the part's
  const WinogradWeights* weights;    // of the part's algorithm: op.f43 or op.f23
  size_t image, group, first_tile, tiles, first_channel, channels;
  int16_t* v;  // transformed input of the region (in the scratch)
  int32_t* m;  // GEMM results of the region for one channel pass (in the scratch)
};
WinogradItem winograd_item(const qwino_operator& op, size_t item, char* scratch);
// The part of `it` that covers channels [pass_start, pass_start + channel_pass) of the item.
WinogradItem winograd_channel_pass(const WinogradItem& it, size_t pass_start);
void winograd_transform_input(const qwino_operator& op, const WinogradItem& it);
void winograd_multiply(const qwino_operator& op, const WinogradItem& pass);
void winograd_transform_output(const qwino_operator& op, const WinogradItem& pass);

}  // namespace qwino

#endif  // QWINO_CONVOLUTION_PATHS_H_
