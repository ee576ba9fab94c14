// Which algorithm an operator runs: what runs its layer exactly (decided at create), and what is
// cheapest for its image size (decided again at every setup). The algorithms are the entries of
// qwino/algorithm.h.
#ifndef QWINO_ALGORITHM_CHOICE_H_
#define QWINO_ALGORITHM_CHOICE_H_

#include <cstddef>
#include <cstdint>

#include "qwino.h"
#include "qwino/operator.h"

namespace qwino {

// Decides op->allowed (asking every entry, which may keep state such as F(4x4,3x3)'s
// input-channel blocks) from the layer, the weights (op->kernel), the flags and the kernel
// configs, and the algorithm create starts with. Returns qwino_status_unsupported_parameter when
// a forced algorithm cannot run the layer exactly.
qwino_status decide_allowed_algorithms(qwino_operator* op, uint32_t flags);

// The output size create chooses for (each side), before setup knows the image: large enough
// for tile waste not to matter.
constexpr size_t kCreateOutputSize = 1024;

// The cheapest allowed algorithm for an output of output_height x output_width pixels.
qwino_algorithm cheapest_algorithm(const qwino_operator& op, size_t output_height,
                                   size_t output_width);

}  // namespace qwino

#endif  // QWINO_ALGORITHM_CHOICE_H_
