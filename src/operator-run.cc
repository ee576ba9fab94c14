// qwino_run_operator and qwino_run_operator_parallel_for: spread the operator's work items over
// a pthreadpool or over the caller's parallel-for.
//
// pthreadpool (as packaged in Debian) does not tell a task which thread runs it, and scratch
// must be per thread, not per item (it would grow with the image). So the pool runs one task per
// thread, each task owns one scratch slot, and tasks take work items from a shared atomic
// counter until none are left: per-thread scratch plus dynamic load balancing. The same tasks run
// on an engine's pool through qwino_run_operator_parallel_for: since a task drains the counter,
// the bytes and the scratch bound hold however many tasks the engine runs at once, and a task
// that claims no scratch slot (an index the engine repeats) returns at once.
//
// The hand-over of the context to the tasks and of the results back to the caller is ordered
// by qwino's own atomics (release/acquire), not only by pthreadpool's internal barriers: that is
// what makes the ordering visible to ThreadSanitizer, since Debian's pthreadpool is not
// instrumented.
#include <algorithm>
#include <atomic>
#include <cstddef>

#include "qwino.h"
#include "qwino/algorithm.h"
#include "qwino/operator.h"

namespace {

struct RunContext {
  const qwino_operator* op = nullptr;
  size_t tasks = 0;
  std::atomic<size_t> next_slot{0};
  std::atomic<size_t> next_item{0};
  std::atomic<size_t> finished_tasks{0};
};

void run_task(void* context_pointer, size_t /*index*/) {
  auto* context = static_cast<RunContext*>(context_pointer);
  // Pairs with the release in run(). A load first, not only the read-modify-writes below:
  // ThreadSanitizer checks an RMW's access before applying its acquire, so it would otherwise
  // see the context's construction as racing with this thread.
  context->next_slot.load(std::memory_order_acquire);
  // The scratch slot is claimed, not taken from the index, so that a caller's parallel-for that
  // repeats an index cannot make two tasks share a slot.
  const size_t task = context->next_slot.fetch_add(1, std::memory_order_acq_rel);
  if (task >= context->tasks) {
    return;
  }
  const qwino_operator& op = *context->op;
  const size_t items = op.setup.work_items;
  char* scratch = op.setup.scratch.get() + task * op.setup.scratch_bytes_per_task;
  void (*const run_item)(const qwino_operator&, size_t, char*) = op.setup.algorithm->run_item;
  for (size_t item; (item = context->next_item.fetch_add(1, std::memory_order_acq_rel)) < items;) {
    run_item(op, item, scratch);
  }
  context->finished_tasks.fetch_add(1, std::memory_order_release);
}

// Runs the set-up operator with at most `threads` tasks (0: as many as setup sized the scratch
// for) through parallelize(op, context), which must run run_task for each of context->tasks.
template <typename Parallelize>
qwino_status run(qwino_operator_t handle, size_t threads, Parallelize parallelize) {
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
  if (threads > op->setup.threads) {
    return qwino_status_invalid_parameter;  // scratch was sized for fewer threads
  }
  RunContext context;
  context.op = op;
  context.tasks = std::min(threads != 0 ? threads : op->setup.threads, op->setup.work_items);
  context.next_slot.store(0, std::memory_order_release);  // publishes op's state to the tasks
  parallelize(op, &context);
  // Acquires every task's writes (outputs and scratch) for the caller. Fewer finished tasks: a
  // caller's parallel-for that skipped some (pthreadpool never does).
  if (context.finished_tasks.load(std::memory_order_acquire) != context.tasks) {
    return qwino_status_invalid_parameter;
  }
  return qwino_status_success;
}

}  // namespace

extern "C" qwino_status qwino_run_operator(qwino_operator_t handle, pthreadpool_t threadpool) {
  const size_t threads = std::max<size_t>(1, pthreadpool_get_threads_count(threadpool));
  return run(handle, threads, [threadpool](const qwino_operator* op, RunContext* context) {
    pthreadpool_parallelize_1d(threadpool, run_task, context, context->tasks,
                               op->yield_workers ? PTHREADPOOL_FLAG_YIELD_WORKERS : 0);
  });
}

extern "C" qwino_status qwino_run_operator_parallel_for(qwino_operator_t handle,
                                                        qwino_parallel_for_fn parallel_for,
                                                        void* parallel_context) {
  if (parallel_for == nullptr) {
    return qwino_status_invalid_parameter;
  }
  return run(handle, 0,
             [parallel_for, parallel_context](const qwino_operator*, RunContext* context) {
               parallel_for(parallel_context, run_task, context, context->tasks);
             });
}
