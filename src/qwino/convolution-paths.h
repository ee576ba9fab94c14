// One work item of each algorithm. Items are independent: they write disjoint outputs, so any
// thread may run any item in any order and the bytes do not depend on the thread count.
#ifndef QWINO_CONVOLUTION_PATHS_H_
#define QWINO_CONVOLUTION_PATHS_H_

#include <cstddef>

struct qwino_operator;

namespace qwino {

// Item = one output row of one image (all groups, all output channels). No scratch.
void run_direct_item(const qwino_operator& op, size_t item);

// Item = (image, group, region of tiles, block of output channels), see WinogradSchedule.
// scratch: WinogradSchedule::scratch_bytes_per_task bytes, cache-line aligned, owned by the
// caller's task for the duration of the call.
void run_winograd_f23_item(const qwino_operator& op, size_t item, char* scratch);

}  // namespace qwino

#endif  // QWINO_CONVOLUTION_PATHS_H_
