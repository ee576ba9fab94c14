// How much memory an algorithm's packed weights may take, relative to the caller's weights.
//
// Packing pads: K to a multiple of 4 and each group's output channels to whole nr-wide panels
// (nr up to 32), and Winograd stores alpha^2 int16 values per 9 weight bytes (F(4x4,3x3): 72
// bytes, 8x). Dense layers stay near those factors, but a grouped layer with one output channel
// per group would pack each into a 32-wide panel: 8192 groups of 3x3 weights (72 KiB) became
// 72 MiB of F(4x4,3x3) panels. So every algorithm's packing is held to a budget (qwino.h states
// it as the memory an operator may hold):
//   P = 2 * positions * round_up(K, 4) * 32            bytes of one 32-wide panel
//   groups * ceil(group_output_channels / 32) * P <= 16 * weight bytes + max(64 KiB, P)
// with positions = alpha^2 and K = group input channels for Winograd, positions = 1 and K =
// kernel taps x group input channels for the direct path. It is reckoned with the widest panel
// of any kernel set, so whether a layer fits does not depend on the CPU, and the real packing
// (nr <= 32) is never larger. Winograd beyond it is not allowed (its panels are its speed), the
// direct path beyond it packs each work item's panels in scratch instead
// (DirectWeights::streamed). The max() keeps the padded panels of small layers and of ungrouped
// layers with few output channels, but does not grow with the number of groups.
#ifndef QWINO_PACKING_BUDGET_H_
#define QWINO_PACKING_BUDGET_H_

#include <cstddef>
#include <cstdint>

#include "qwino/checked-size.h"
#include "qwino/common.h"
#include "qwino/packing.h"

namespace qwino {

constexpr size_t kPackedBytesPerWeightByte = 16;
constexpr size_t kPackedBytesAllowance = 64 * 1024;
constexpr size_t kBudgetPanelWidth = 32;

// Whether groups x ceil(group_output_channels / 32) panels of panel_bytes (one 32-wide panel)
// fit the budget of weight_bytes.
inline bool panels_within_budget(size_t groups, size_t group_output_channels, size_t panel_bytes,
                                 size_t weight_bytes) {
  size_t packed_bytes = 0, budget = 0;
  return checked_product(
             {groups, qwino_divide_round_up(group_output_channels, kBudgetPanelWidth), panel_bytes},
             &packed_bytes) &&
         checked_product({weight_bytes, kPackedBytesPerWeightByte}, &budget) &&
         checked_sum(
             {budget, panel_bytes > kPackedBytesAllowance ? panel_bytes : kPackedBytesAllowance},
             &budget) &&
         packed_bytes <= budget;
}

// The int16 panels of Winograd (positions = alpha^2) and of the direct path (positions = 1).
inline bool packing_within_budget(size_t groups, size_t positions, size_t k,
                                  size_t group_output_channels, size_t weight_bytes) {
  size_t panel_bytes = 0;
  return checked_product(
             {positions, qwino_round_up(k, kGemmKPadding), kBudgetPanelWidth, sizeof(int16_t)},
             &panel_bytes) &&
         panels_within_budget(groups, group_output_channels, panel_bytes, weight_bytes);
}

// The 8-bit panels of the indirect GEMM: taps x round_up(K, 16) bytes per column (16 is the
// largest k interleave of the 8-bit kernels), K = group input channels.
inline bool igemm_packing_within_budget(size_t groups, size_t taps, size_t k,
                                        size_t group_output_channels, size_t weight_bytes) {
  size_t panel_bytes = 0;
  return checked_product({taps, qwino_round_up(k, 16), kBudgetPanelWidth}, &panel_bytes) &&
         panels_within_budget(groups, group_output_channels, panel_bytes, weight_bytes);
}

}  // namespace qwino

#endif  // QWINO_PACKING_BUDGET_H_
