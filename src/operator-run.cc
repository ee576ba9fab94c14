// qwino_run_operator: spread the operator's work items over the thread pool.
//
// pthreadpool (as packaged in Debian) does not tell a task which thread runs it, and scratch
// must be per thread, not per item (it would grow with the image). So the pool runs one task per
// thread, each task owns one scratch slot, and tasks take work items from a shared atomic
// counter until none are left: per-thread scratch plus dynamic load balancing.
//
// The hand-over of the context to the tasks and of the results back to the caller is ordered
// by qwino's own atomics (release/acquire), not only by pthreadpool's internal barriers: that is
// what makes the ordering visible to ThreadSanitizer, since Debian's pthreadpool is not
// instrumented.
#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "qwino.h"
#include "qwino/algorithm.h"
#include "qwino/operator.h"

namespace {

struct RunContext {
  const qwino_operator* op = nullptr;
  std::atomic<size_t> next_item{0};
  std::atomic<size_t> finished_tasks{0};
};

void run_task(void* context_pointer, size_t task) {
  auto* context = static_cast<RunContext*>(context_pointer);
  context->next_item.load(std::memory_order_acquire);  // pairs with the release in the caller
  const qwino_operator& op = *context->op;
  const size_t items = op.setup.work_items;
  char* scratch = op.setup.scratch.get() + task * op.setup.scratch_bytes_per_task;
  void (*const run_item)(const qwino_operator&, size_t, char*) = op.setup.algorithm->run_item;
  for (size_t item; (item = context->next_item.fetch_add(1, std::memory_order_acq_rel)) < items;) {
    run_item(op, item, scratch);
  }
  context->finished_tasks.fetch_add(1, std::memory_order_release);
}

}  // namespace

extern "C" qwino_status qwino_run_operator(qwino_operator_t handle, pthreadpool_t threadpool) {
  if (qwino_kernels() == nullptr) {
    return qwino_status_uninitialized;
  }
  const qwino::OperatorCall call(handle);
  if (call.status() != qwino_status_success) {
    return call.status();
  }
  qwino_operator* op = call.get();
  if (op->setup.threads == 0) {
    return qwino_status_invalid_parameter;  // never set up
  }
  const size_t threads = std::max<size_t>(1, pthreadpool_get_threads_count(threadpool));
  if (threads > op->setup.threads) {
    return qwino_status_invalid_parameter;  // scratch was sized for fewer threads
  }
  RunContext context;
  context.op = op;
  context.next_item.store(0, std::memory_order_release);  // publishes op's state to the tasks
  const size_t tasks = std::min(threads, op->setup.work_items);
  pthreadpool_parallelize_1d(threadpool, run_task, &context, tasks,
                             op->yield_workers ? PTHREADPOOL_FLAG_YIELD_WORKERS : 0);
  // Acquires every task's writes (outputs and scratch) for the caller.
  if (context.finished_tasks.load(std::memory_order_acquire) != tasks) {
    std::abort();  // pthreadpool returned before running every task: cannot happen
  }
  return qwino_status_success;
}
