// Algorithm choice. Exactness first: an algorithm is allowed only when its entry decides it runs
// this layer exactly for every possible input (the Winograd ones prove it from the weights,
// doc/DESIGN.md section 2). Among the allowed ones the operator takes the one with the lowest
// modeled cost (doc/DESIGN.md section 6) for the image size of each setup, on the kernels its
// CPU runs (each family's config carries the cost of its kernel where that differs).
#include "qwino/algorithm-choice.h"

#include "qwino/algorithm.h"

namespace qwino {
namespace {

// Ties in cost go to the earlier entry: the larger Winograd tile, then the smaller, then the
// depthwise kernels, then the 8-bit indirect GEMM, then direct.
const AlgorithmEntry* const kAlgorithms[] = {
    &kWinogradF4x4Algorithm, &kWinogradF2x2Algorithm, &kDepthwiseAlgorithm,
    &kIndirectGemmAlgorithm, &kDirectAlgorithm,
};

}  // namespace

const AlgorithmEntry* find_algorithm(qwino_algorithm id) {
  for (const AlgorithmEntry* entry : kAlgorithms) {
    if (entry->id == id) {
      return entry;
    }
  }
  return nullptr;
}

uint32_t algorithm_force_flags() {
  uint32_t flags = 0;
  for (const AlgorithmEntry* entry : kAlgorithms) {
    flags |= entry->force_flag;
  }
  return flags;
}

size_t algorithm_weight_bytes(const qwino_operator& op) {
  size_t bytes = 0;
  for (const AlgorithmEntry* entry : kAlgorithms) {
    bytes += entry->weight_bytes(op);
  }
  return bytes;
}

qwino_status decide_allowed_algorithms(qwino_operator* op, uint32_t flags) {
  const uint32_t forced = flags & algorithm_force_flags();
  bool any = false;
  for (const AlgorithmEntry* entry : kAlgorithms) {
    const bool runs = entry->decide(op);
    const bool wanted = forced == 0 || forced == entry->force_flag;
    if (forced == entry->force_flag && !runs) {
      return qwino_status_unsupported_parameter;
    }
    op->allowed[entry->id] = runs && wanted;
    any = any || op->allowed[entry->id];
  }
  if (!any) {
    return qwino_status_unsupported_parameter;
  }
  op->algorithm = cheapest_algorithm(*op, kCreateOutputSize, kCreateOutputSize);
  return qwino_status_success;
}

qwino_algorithm cheapest_algorithm(const qwino_operator& op, size_t output_height,
                                   size_t output_width) {
  qwino_algorithm best = qwino_algorithm_none;
  double best_cost = 0.0;
  for (const AlgorithmEntry* entry : kAlgorithms) {
    if (!op.allowed[entry->id]) {
      continue;
    }
    const double cost = entry->cost(op, output_height, output_width);
    if (best == qwino_algorithm_none || cost < best_cost) {
      best = entry->id;
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace qwino
