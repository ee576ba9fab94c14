// Weights of the direct (im2col + GEMM) path: B = w - kernel_zero_point as int16, packed once
// for the GEMM micro-kernel the dispatcher chose (its NR and KR), so that every run multiplies
// the im2col rows by them with no per-run weight work.
#include "qwino/direct-weights.h"

#include <algorithm>

#include "qwino/common.h"
#include "qwino/operator.h"
#include "qwino/packing-budget.h"

namespace qwino {

void pack_direct_weights(const uint8_t* kernel, size_t k, size_t output_channels,
                         uint8_t kernel_zero_point, size_t nr, size_t kr, int16_t* packed) {
  const size_t panel_elements = qwino_round_up(k, 4) * nr;
  const size_t panels = qwino_divide_round_up(output_channels, nr);
  std::fill_n(packed, panels * panel_elements, int16_t{0});
  for (size_t oc = 0; oc < output_channels; oc++) {
    int16_t* panel = packed + oc / nr * panel_elements;
    const size_t column = oc % nr;
    const uint8_t* row = kernel + oc * k;
    for (size_t kk = 0; kk < k; kk++) {
      panel[(kk / kr * nr + column) * kr + kk % kr] =
          static_cast<int16_t>(int32_t{row[kk]} - int32_t{kernel_zero_point});
    }
  }
}

bool prepare_direct_weights(qwino_operator* op) {
  DirectWeights& d = op->direct;
  if (d.packed_weights || d.streamed) {
    return true;
  }
  const ConvolutionGeometry& g = op->geometry;
  const size_t k = size_t{g.kernel_height} * g.kernel_width * g.group_input_channels;
  const size_t nr = op->kernels.gemm_nr;
  const size_t panel_stride = qwino_round_up(k, 4) * nr;
  const size_t group_stride = qwino_divide_round_up(g.group_output_channels, nr) * panel_stride;
  size_t elements = 0;
  const bool resident =
      packing_within_budget(g.groups, 1, k, g.group_output_channels, op->kernel.size()) &&
      checked_product({size_t{g.groups}, group_stride}, &elements);
  if (resident) {
    AlignedBuffer<int16_t> packed = allocate_aligned<int16_t>(elements);
    if (!packed) {
      return false;
    }
    for (size_t group = 0; group < g.groups; group++) {
      pack_direct_weights(op->kernel.data() + group * g.group_output_channels * k, k,
                          g.group_output_channels, op->kernel_zero_point, nr,
                          op->kernels.gemm_kr, packed.get() + group * group_stride);
    }
    d.packed_weights = std::move(packed);
  }
  d.k = k;
  d.streamed = !resident;
  d.packed_panel_stride = panel_stride;
  d.packed_group_stride = group_stride;
  return true;
}

}  // namespace qwino
