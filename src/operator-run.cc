// qwino_run_operator: spread the operator's work items over the thread pool.
//
// pthreadpool (as packaged in Debian) does not tell a task which thread runs it, and scratch
// must be per thread, not per item (it would grow with the image). So the pool runs one task per
// thread, each task owns one scratch slot, and tasks take work items from a shared atomic
// counter until none are left: per-thread scratch plus dynamic load balancing.
#include <algorithm>
#include <atomic>

#include "qwino.h"
#include "qwino/convolution-paths.h"
#include "qwino/operator-registry.h"
#include "qwino/operator.h"

namespace {

struct RunContext {
  const qwino_operator* op;
  std::atomic<size_t> next_item{0};
};

void run_task(void* context_pointer, size_t task) {
  auto* context = static_cast<RunContext*>(context_pointer);
  const qwino_operator& op = *context->op;
  const size_t items = op.setup.work_items;
  if (op.algorithm == qwino_algorithm_winograd_f2x2_3x3) {
    char* scratch = op.setup.scratch.get() + task * op.setup.winograd.scratch_bytes_per_task;
    for (size_t item; (item = context->next_item.fetch_add(1, std::memory_order_relaxed)) < items;) {
      qwino::run_winograd_f23_item(op, item, scratch);
    }
  } else {
    for (size_t item; (item = context->next_item.fetch_add(1, std::memory_order_relaxed)) < items;) {
      qwino::run_direct_item(op, item);
    }
  }
}

}  // namespace

extern "C" qwino_status qwino_run_operator(qwino_operator_t op, pthreadpool_t threadpool) {
  if (qwino_kernels() == nullptr) {
    return qwino_status_uninitialized;
  }
  if (!qwino::is_live_operator(op) || op->setup.threads == 0) {
    return qwino_status_invalid_parameter;  // unknown operator, or never set up
  }
  const size_t threads = std::max<size_t>(1, pthreadpool_get_threads_count(threadpool));
  if (threads > op->setup.threads) {
    return qwino_status_invalid_parameter;  // scratch was sized for fewer threads
  }
  RunContext context;
  context.op = op;
  const size_t tasks = std::min(threads, op->setup.work_items);
  pthreadpool_parallelize_1d(threadpool, run_task, &context, tasks, 0);
  return qwino_status_success;
}
