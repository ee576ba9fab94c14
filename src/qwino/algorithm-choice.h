// Which algorithm an operator runs: what is exact for its weights (decided at create), and what
// is cheapest for its image size (decided again at every setup).
#ifndef QWINO_ALGORITHM_CHOICE_H_
#define QWINO_ALGORITHM_CHOICE_H_

#include <cstddef>
#include <cstdint>

#include "qwino.h"
#include "qwino/dispatch.h"
#include "qwino/operator.h"

namespace qwino {

// Decides op->f23_allowed / f43_allowed (and F(4x4,3x3)'s input-channel blocks) from the
// geometry, the weights (op->kernel), the flags and the kernel table, and the algorithm create
// starts with. Returns qwino_status_unsupported_parameter when a forced Winograd algorithm cannot
// be exact or would exceed the packing budget (packing-budget.h).
qwino_status decide_allowed_algorithms(qwino_operator* op, uint32_t flags);

// The cheapest allowed algorithm for an output of output_height x output_width pixels.
qwino_algorithm cheapest_algorithm(const qwino_operator& op, size_t output_height,
                                   size_t output_width);

// Transforms and packs the weights of a Winograd algorithm unless already done. Returns false
// when out of memory (the operator is left as it was).
bool prepare_winograd_weights(qwino_operator* op, qwino_algorithm algorithm);

}  // namespace qwino

#endif  // QWINO_ALGORITHM_CHOICE_H_
