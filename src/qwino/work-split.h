// The work split: how one setup's work is cut into independent work items, as pure functions of
// the layer's sizes, the GEMM tile and the thread count (doc/DESIGN.md section 5), so that the
// rules can be tested without an operator (test/work-split.cc).
//
// An item is (image, group, region, block of output channels): a region is consecutive tiles
// (Winograd) or output pixels (direct) of one image; items write disjoint outputs, and each task
// of a run owns one scratch slot of scratch_bytes_per_task.
#ifndef QWINO_WORK_SPLIT_H_
#define QWINO_WORK_SPLIT_H_

#include <cstddef>
#include <cstdint>

namespace qwino {

// Where the Winograd tiles of one output image lie: one or two parts, each tiled by one
// algorithm's square tiles, in one or two rectangles of output pixels. A rectangle's tiles are
// numbered row by row; its last tile row and column may reach past it (the output transform
// stores only the outputs inside).
struct TileRectangle {
  size_t row, column;    // its first output pixel
  size_t rows, columns;  // output pixels
  size_t tiles_width;    // tiles per tile row: ceil(columns / tile)
  size_t tiles;          // ceil(rows / tile) x tiles_width
};
struct WinogradPart {
  size_t tile;  // outputs per tile side: 4 for F(4x4,3x3), 2 for F(2x2,3x3)
  TileRectangle rectangles[2];
  size_t rectangle_count;
  size_t tiles;  // of its rectangles
};
struct WinogradTiling {
  WinogradPart parts[2];
  size_t part_count;
};
// The map in tiles of `tile` outputs; with edge_tile, the rows and columns past the last whole
// tile go to a second part of edge_tile tiles where they are at most edge_tile (a right strip
// beside the first part and a bottom strip under both): F(4x4,3x3) computes a whole 4x4 tile
// (36 products) for the 1 or 2 outputs of such a row or column, F(2x2,3x3) 2x2 tiles (16 each).
// edge_tile 0: one part.
WinogradTiling plan_winograd_tiling(size_t output_height, size_t output_width, size_t tile,
                                    size_t edge_tile);
// The output pixel where tile `tile` of a part starts, and how many of its rows and columns lie
// inside its rectangle.
struct TilePlace {
  size_t row, column, rows, columns;
};
inline TilePlace winograd_tile_place(const WinogradPart& part, size_t tile) {
  const TileRectangle* r = &part.rectangles[0];
  if (tile >= r->tiles) {
    tile -= r->tiles;
    r++;
  }
  const size_t row = r->row + tile / r->tiles_width * part.tile;
  const size_t column = r->column + tile % r->tiles_width * part.tile;
  const size_t rows = r->row + r->rows - row, columns = r->column + r->columns - column;
  return {row, column, rows < part.tile ? rows : part.tile,
          columns < part.tile ? columns : part.tile};
}

// How the Winograd work of one part of one setup is cut into independent work items
// (doc/DESIGN.md section 5): item = (image, group, region of consecutive tiles, block of output
// channels).
struct WinogradSchedule {
  size_t tiles;           // of the part, per image (WinogradPart::tiles)
  size_t row_blocks;      // blocks of mr tiles the regions share (region_tile_range)
  size_t regions;         // per image and group
  size_t region_tiles;    // tiles of the largest region
  size_t channel_block;   // output channels per item (a multiple of the GEMM's nr)
  size_t channel_blocks;  // per group
  // An item multiplies and output-transforms its channels in passes of this many (a multiple of
  // nr): V is transformed once per item and reused by every pass, while M holds only one pass.
  size_t channel_pass;
  size_t input_row_stride;        // int16 elements between tiles in V (>= group_input_channels)
  size_t output_row_stride;       // int32 elements between tiles in M (>= channel_pass)
  size_t m_block_stride;          // int32 elements between input-channel blocks in M
  size_t m_offset_bytes;          // where M starts in a task's scratch, after V
  size_t scratch_bytes_per_task;  // V and M of one region, cache-line rounded
};

struct TileRange {
  size_t first, count;
};
// The tiles of a region: regions share the row blocks evenly (their sizes differ by at most one
// block), and the last region also takes the tiles past the last whole block.
// region x row_blocks / regions, in twice size_t's width: the product exceeds 2^64 on images
// of more than about 2^36 tiles, which setup accepts where the output fits in memory.
inline size_t region_block_start(const WinogradSchedule& s, size_t region) {
#if SIZE_MAX > UINT32_MAX
  using Wide = unsigned __int128;
#else
  using Wide = uint64_t;
#endif
  return static_cast<size_t>(Wide{region} * s.row_blocks / s.regions);
}
inline TileRange region_tile_range(const WinogradSchedule& s, size_t tiles, size_t mr,
                                   size_t region) {
  const size_t first = region_block_start(s, region) * mr;
  const size_t end = region + 1 == s.regions ? tiles : region_block_start(s, region + 1) * mr;
  return {first, end - first};
}
// The tiles of the largest region, in O(1) (setup must not take time in proportion to the
// image). Regions before the last hold floor(B/R) or ceil(B/R) of the B row blocks, ceil for
// B mod R of the R regions, always including the last: so a region before the last holds
// ceil(B/R) only when B mod R >= 2.
inline size_t largest_region_tiles(const WinogradSchedule& s, size_t tiles, size_t mr) {
  const size_t last = region_tile_range(s, tiles, mr, s.regions - 1).count;
  if (s.regions == 1) {
    return last;
  }
  const size_t blocks = s.row_blocks / s.regions + (s.row_blocks % s.regions >= 2 ? 1 : 0);
  return blocks * mr > last ? blocks * mr : last;
}

struct WinogradPlanInput {
  size_t batch_size, groups;
  size_t tiles;  // per image: WinogradPart::tiles
  size_t group_input_channels, group_output_channels;
  size_t alpha;   // input tile size: 4 for F(2x2,3x3), 6 for F(4x4,3x3)
  size_t blocks;  // input-channel blocks whose partial accumulators the output transform adds
  size_t mr, nr;  // the GEMM's tile
  size_t threads;
};
WinogradSchedule plan_winograd(const WinogradPlanInput& in);

// How the direct (im2col + GEMM) work of one setup is cut into independent work items:
// item = (image, group, region of consecutive output pixels, block of output channels).
// A region's pixels are consecutive in raster order, so their outputs are one row of pixels
// `output_pixel_stride` apart even where the region wraps around an image row.
struct DirectSchedule {
  size_t pixels;          // output pixels per image
  size_t region_pixels;   // pixels per region (a multiple of the GEMM's mr)
  size_t regions;         // per image and group
  size_t channel_block;   // output channels per item (a multiple of the GEMM's nr)
  size_t channel_blocks;  // per group
  size_t a_row_stride;    // int16 elements between A rows (im2col rows, >= K)
  // Indirect GEMM over 8-bit rows gathered per item (IndirectWeights::gathered_rows): bytes
  // between the rows at the start of the scratch; 0 otherwise.
  size_t gathered_row_bytes;
  // Indirect GEMM: row pointers each item writes into its scratch, per region pixel (1 for
  // gathered rows, the taps where the image's pointers are not built at setup, else 0), and
  // where they start.
  size_t item_pointers_per_pixel;
  size_t pointers_offset_bytes;
  // 1x1, stride 1, no padding, dense single-group input: a region's A rows are its input pixels
  // back to back (a_row_stride == K), so im2col is one conversion pass over them.
  bool pointwise;
  size_t c_row_stride;            // int32 elements between C rows (>= channel_block)
  size_t c_offset_bytes;          // where C starts in a task's scratch, after A
  size_t b_offset_bytes;          // where a streamed item packs its B panels, after C
  size_t row_terms_offset_bytes;  // indirect, with row terms: one int32 per region pixel, after B
  size_t scratch_bytes_per_task;  // A and C of one region, cache-line rounded
};

struct DirectPlanInput {
  size_t batch_size, groups;
  size_t output_height, output_width;
  size_t k;  // kernel taps x group input channels
  size_t group_output_channels;
  size_t mr, nr;  // the GEMM's tile
  size_t threads;
  bool pointwise;                  // see DirectSchedule::pointwise
  bool indirect;                   // A is read through row pointers: no A rows in the scratch
  bool pairs;                      // the direct path on the pair GEMM: no int16 A rows
  size_t gathered_row_bytes;       // indirect or pairs: 8-bit rows in the scratch
  size_t item_pointers_per_pixel;  // indirect: row pointers in the scratch (DirectSchedule)
  bool row_terms;                  // indirect: one int32 per pixel (IndirectWeights::row_gap)
  size_t streamed_panel_elements;  // int16 elements of one B panel packed per item; 0: resident
  size_t region_bytes;             // the working-set target; 0: kWorkSplitTuning's
};
DirectSchedule plan_direct(const DirectPlanInput& in);

// Channels per depthwise work item (whole blocks of the kernel's cr channels and whole cache
// lines): all of them, unless `rows` (images x output rows) cannot give every thread
// items_per_thread items.
size_t depthwise_channel_block(size_t channels, size_t cr, size_t rows, size_t threads);

}  // namespace qwino

#endif  // QWINO_WORK_SPLIT_H_
