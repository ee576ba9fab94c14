// Threading contract (qwino.h "Threads", doc/DESIGN.md section 5): operators are independent
// objects that may run at the same time from different threads, one operator serves one call at a
// time (a second setup or run is refused with qwino_status_invalid_state), and the scratch memory
// of an operator depends on the thread count, never on the image size. Byte equality across thread
// counts is checked by the operator tester on the whole sweep; this file covers what the tester
// cannot.
#include <qwino.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "qwino/operator.h"

namespace {

struct Layer {
  size_t size, input_channels, output_channels;
  uint32_t flags;
  std::vector<uint8_t> kernel, input, output;
  qwino_operator_t op = nullptr;

  Layer(size_t size_, size_t ic, size_t oc, uint32_t flags_, uint32_t seed)
      : size(size_), input_channels(ic), output_channels(oc), flags(flags_) {
    std::mt19937 rng(seed);
    kernel.resize(oc * 9 * ic);
    input.resize(size * size * ic);
    for (auto& w : kernel) w = static_cast<uint8_t>(rng());
    for (auto& x : input) x = static_cast<uint8_t>(rng());
    output.assign(size * size * oc, 0);
    EXPECT_EQ(qwino_status_success,
              qwino_create_convolution2d_nhwc_q8(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, ic, oc, 120, 0.5f,
                                                 130, 0.01f, kernel.data(), nullptr, 127, 0.75f, 0,
                                                 255, flags, &op));
  }
  ~Layer() { qwino_delete_operator(op); }

  std::vector<uint8_t> run(pthreadpool_t pool, size_t repeats) {
    EXPECT_EQ(qwino_status_success,
              qwino_setup_convolution2d_nhwc_q8(op, 1, size, size, input.data(), input_channels,
                                                output.data(), output_channels, pool));
    for (size_t r = 0; r < repeats; r++) {
      EXPECT_EQ(qwino_status_success, qwino_run_operator(op, pool));
    }
    return output;
  }
};

class Threading : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(qwino_status_success, qwino_initialize()); }
};

TEST_F(Threading, two_operators_run_concurrently_from_two_threads) {
  Layer winograd(17, 24, 40, QWINO_FLAG_FORCE_WINOGRAD, 1);
  Layer direct(13, 16, 20, QWINO_FLAG_FORCE_DIRECT, 2);
  const std::vector<uint8_t> winograd_expected = winograd.run(nullptr, 1);
  const std::vector<uint8_t> direct_expected = direct.run(nullptr, 1);

  pthreadpool_t pool_a = pthreadpool_create(2);
  pthreadpool_t pool_b = pthreadpool_create(3);
  std::vector<uint8_t> winograd_actual, direct_actual;
  std::thread a([&] { winograd_actual = winograd.run(pool_a, 5); });
  std::thread b([&] { direct_actual = direct.run(pool_b, 5); });
  a.join();
  b.join();
  pthreadpool_destroy(pool_a);
  pthreadpool_destroy(pool_b);
  EXPECT_EQ(winograd_expected, winograd_actual);
  EXPECT_EQ(direct_expected, direct_actual);
}

TEST_F(Threading, one_pool_shared_by_two_operators_in_turn) {
  Layer first(9, 8, 8, QWINO_FLAG_FORCE_WINOGRAD, 3);
  Layer second(10, 12, 4, QWINO_FLAG_FORCE_WINOGRAD, 4);
  const auto first_expected = first.run(nullptr, 1);
  const auto second_expected = second.run(nullptr, 1);
  pthreadpool_t pool = pthreadpool_create(4);
  EXPECT_EQ(first_expected, first.run(pool, 2));
  EXPECT_EQ(second_expected, second.run(pool, 2));
  pthreadpool_destroy(pool);
}

// QWINO_FLAG_YIELD_WORKERS only changes how the pool's workers wait after a run: the same bytes
// as without it, on a pool that operators with and without the flag share in turn.
TEST_F(Threading, yielding_workers_give_the_same_bytes) {
  Layer plain(15, 24, 16, 0, 6);
  Layer yielding(15, 24, 16, QWINO_FLAG_YIELD_WORKERS, 6);
  const auto expected = plain.run(nullptr, 1);
  pthreadpool_t pool = pthreadpool_create(3);
  EXPECT_EQ(expected, yielding.run(pool, 3));
  EXPECT_EQ(expected, plain.run(pool, 1));
  EXPECT_EQ(expected, yielding.run(pool, 1));
  pthreadpool_destroy(pool);
}

TEST_F(Threading, scratch_is_bounded_by_threads_not_image_size) {
  Layer layer(8, 64, 64, QWINO_FLAG_FORCE_WINOGRAD, 5);
  pthreadpool_t pool = pthreadpool_create(2);
  size_t reference_bytes = 0;
  for (size_t size : {64, 128, 256}) {
    std::vector<uint8_t> input(size * size * 64, 1), output(size * size * 64);
    ASSERT_EQ(qwino_status_success,
              qwino_setup_convolution2d_nhwc_q8(layer.op, 1, size, size, input.data(), 64,
                                                output.data(), 64, pool));
    const size_t bytes = qwino_operator_scratch_bytes(layer.op);
    EXPECT_GT(bytes, 0u);
    if (reference_bytes == 0) reference_bytes = bytes;
    EXPECT_EQ(reference_bytes, bytes) << "scratch grew with the image at " << size;
  }
  // A single-threaded setup needs at most one thread's share.
  std::vector<uint8_t> input(64 * 64 * 64, 1), output(64 * 64 * 64);
  ASSERT_EQ(qwino_status_success,
            qwino_setup_convolution2d_nhwc_q8(layer.op, 1, 64, 64, input.data(), 64, output.data(),
                                              64, nullptr));
  EXPECT_LE(2 * qwino_operator_scratch_bytes(layer.op), reference_bytes);
  pthreadpool_destroy(pool);
}

// While one call holds the operator (here the test holds its claim, as a run in another thread
// would), setup, run and delete are refused and change nothing.
TEST_F(Threading, an_operator_in_use_refuses_other_calls) {
  Layer layer(9, 8, 8, 0, 6);
  const std::vector<uint8_t> expected = layer.run(nullptr, 1);
  std::fill(layer.output.begin(), layer.output.end(), 0xEE);
  std::vector<uint8_t> other_output(layer.output.size(), 0xEE);
  {
    const qwino::OperatorCall busy(layer.op);
    ASSERT_EQ(qwino_status_success, busy.status());
    EXPECT_EQ(qwino_status_invalid_state, qwino_run_operator(layer.op, nullptr));
    EXPECT_EQ(qwino_status_invalid_state,
              qwino_setup_convolution2d_nhwc_q8(
                  layer.op, 1, layer.size, layer.size, layer.input.data(), layer.input_channels,
                  other_output.data(), layer.output_channels, nullptr));
    EXPECT_EQ(qwino_status_invalid_state, qwino_delete_operator(layer.op));
    EXPECT_EQ(std::vector<uint8_t>(layer.output.size(), 0xEE), layer.output);
    EXPECT_EQ(std::vector<uint8_t>(layer.output.size(), 0xEE), other_output);
  }
  EXPECT_EQ(qwino_status_success, qwino_run_operator(layer.op, nullptr));
  EXPECT_EQ(expected, layer.output);
}

// Two threads running one operator over and over: each call either runs alone or is refused,
// so the shared scratch is never shared at once and the bytes stay right.
TEST_F(Threading, one_operator_run_from_two_threads_is_refused_not_wrong) {
  Layer layer(20, 16, 24, 0, 7);
  const std::vector<uint8_t> expected = layer.run(nullptr, 1);
  std::atomic<size_t> refused{0}, ran{0}, other{0};
  const auto hammer = [&] {
    for (int i = 0; i < 200; i++) {
      const qwino_status status = qwino_run_operator(layer.op, nullptr);
      (status == qwino_status_success         ? ran
       : status == qwino_status_invalid_state ? refused
                                              : other)++;
    }
  };
  std::thread a(hammer), b(hammer);
  a.join();
  b.join();
  EXPECT_EQ(0u, other.load());
  EXPECT_EQ(400u, ran.load() + refused.load());
  EXPECT_GT(ran.load(), 0u);
  EXPECT_EQ(expected, layer.output);
  std::printf("%zu runs, %zu refused while the other thread ran\n", ran.load(), refused.load());
}

// qwino_run_operator_parallel_for on parallel-fors of every shape a caller may write: the
// pthreadpool run's bytes from each, on two forced algorithms and the automatic choice, as many
// tasks as setup's pool has threads, repeated indices harmless, skipped tasks reported.
struct ParallelFor {
  enum Shape { serial_reversed, thread_per_task, first_index_repeated, one_skipped } shape;
  size_t count = 0;  // the count the last call was given

  static void call(void* self_pointer, qwino_task_fn task, void* task_context, size_t count) {
    auto* self = static_cast<ParallelFor*>(self_pointer);
    self->count = count;
    switch (self->shape) {
      case serial_reversed:
        for (size_t i = count; i-- > 0;) task(task_context, i);
        break;
      case thread_per_task: {
        std::vector<std::thread> threads;
        for (size_t i = 0; i < count; i++) threads.emplace_back(task, task_context, i);
        for (std::thread& t : threads) t.join();
        break;
      }
      case first_index_repeated:
        for (size_t i = 0; i < count; i++) task(task_context, 0);
        break;
      case one_skipped:
        for (size_t i = 1; i < count; i++) task(task_context, i);
        break;
    }
  }
};

TEST_F(Threading, a_callers_parallel_for_gives_the_pools_bytes) {
  // (The automatic choice third: forcing the indirect GEMM is refused for these uint8 weights
  // where its kernel multiplies in int16 pairs, as on the A72.)
  size_t most_tasks = 0;
  for (const uint32_t flags :
       {uint32_t(QWINO_FLAG_FORCE_WINOGRAD), uint32_t(QWINO_FLAG_FORCE_DIRECT), uint32_t(0)}) {
    Layer layer(23, 16, 24, flags, 8);
    pthreadpool_t pool = pthreadpool_create(3);
    const std::vector<uint8_t> expected = layer.run(pool, 1);
    for (const ParallelFor::Shape shape :
         {ParallelFor::serial_reversed, ParallelFor::thread_per_task,
          ParallelFor::first_index_repeated}) {
      std::fill(layer.output.begin(), layer.output.end(), 0xEE);
      ParallelFor parallel_for{shape};
      ASSERT_EQ(qwino_status_success,
                qwino_run_operator_parallel_for(layer.op, ParallelFor::call, &parallel_for))
          << "shape " << shape << " flags " << flags;
      size_t items = 0;
      {
        const qwino::OperatorCall call(layer.op);
        items = call.get()->setup.work_items;
      }
      EXPECT_EQ(std::min<size_t>(3, items), parallel_for.count)
          << "one task per thread of setup's pool, at most one per work item";
      most_tasks = std::max(most_tasks, parallel_for.count);
      EXPECT_EQ(expected, layer.output) << "shape " << shape << " flags " << flags;
    }
    ParallelFor skipping{ParallelFor::one_skipped};
    EXPECT_EQ(qwino_status_invalid_parameter,
              qwino_run_operator_parallel_for(layer.op, ParallelFor::call, &skipping));
    pthreadpool_destroy(pool);
  }
  EXPECT_EQ(3u, most_tasks) << "no layer ran the 3 tasks";
}

TEST_F(Threading, a_parallel_for_run_checks_its_arguments) {
  Layer layer(9, 8, 8, 0, 9);
  ParallelFor parallel_for{ParallelFor::serial_reversed};
  EXPECT_EQ(qwino_status_invalid_parameter,
            qwino_run_operator_parallel_for(layer.op, ParallelFor::call, &parallel_for))
      << "not set up";
  layer.run(nullptr, 1);
  EXPECT_EQ(qwino_status_invalid_parameter,
            qwino_run_operator_parallel_for(layer.op, nullptr, &parallel_for));
  EXPECT_EQ(qwino_status_invalid_parameter,
            qwino_run_operator_parallel_for(nullptr, ParallelFor::call, &parallel_for));
  EXPECT_EQ(qwino_status_success,
            qwino_run_operator_parallel_for(layer.op, ParallelFor::call, &parallel_for));
  EXPECT_EQ(1u, parallel_for.count) << "setup without a pool: one task";
}

}  // namespace
