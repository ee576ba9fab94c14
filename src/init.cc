// qwino_initialize: detect the CPU once and choose the kernel set.
//
// The only process-wide state of the library lives here (the chosen table and the hardware
// facts), plus the registry of live operators in operator-registry.cc.
#include <cpuinfo.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "qwino.h"
#include "qwino/dispatch.h"
#include "qwino/ukernels.h"

namespace {

constexpr qwino_kernel_table kScalarKernels = {
    "scalar",
    qwino_f23_input_transform_ukernel__scalar,
    qwino_gemm_ukernel_8x8__scalar,
    qwino_f23_output_transform_ukernel__scalar,
    8,
    8,
    1,
    nullptr,
    nullptr,
};

#if defined(__aarch64__)
constexpr qwino_kernel_table kNeonKernels = {
    "neon",
    qwino_f23_input_transform_ukernel__neon,
    qwino_gemm_ukernel_8x8__neon,
    qwino_f23_output_transform_ukernel__neon,
    8,
    8,
    1,
    nullptr,
    nullptr,
};
#endif

std::mutex init_mutex;
std::atomic<const qwino_kernel_table*> active_kernels{nullptr};
qwino_hardware hardware;

const qwino_kernel_table* best_kernels_for_this_cpu() {
#if defined(__aarch64__)
  if (cpuinfo_has_arm_neon()) {
    return &kNeonKernels;
  }
#endif
  return &kScalarKernels;
}

bool isa_available(const qwino_kernel_table* table) {
#if defined(__aarch64__)
  if (table == &kNeonKernels) {
    return cpuinfo_has_arm_neon();
  }
#endif
  return table == &kScalarKernels;
}

}  // namespace

extern "C" const qwino_kernel_table* qwino_kernel_table_for_isa(const char* isa_name) {
  if (isa_name == nullptr) {
    return nullptr;
  }
  if (std::strcmp(isa_name, kScalarKernels.isa_name) == 0) {
    return &kScalarKernels;
  }
#if defined(__aarch64__)
  if (std::strcmp(isa_name, kNeonKernels.isa_name) == 0) {
    return &kNeonKernels;
  }
#endif
  return nullptr;
}

extern "C" const qwino_kernel_table* qwino_kernels(void) {
  return active_kernels.load(std::memory_order_acquire);
}

extern "C" const qwino_hardware* qwino_hardware_info(void) {
  return qwino_kernels() != nullptr ? &hardware : nullptr;
}

extern "C" qwino_status qwino_initialize(void) {
  std::lock_guard<std::mutex> lock(init_mutex);
  if (!cpuinfo_initialize()) {
    return qwino_status_unsupported_hardware;
  }
  const qwino_kernel_table* table = best_kernels_for_this_cpu();
  if (const char* forced = std::getenv("QWINO_ISA"); forced != nullptr && *forced != '\0') {
    table = qwino_kernel_table_for_isa(forced);
    if (table == nullptr || !isa_available(table)) {
      return qwino_status_unsupported_hardware;
    }
  }
#if defined(__aarch64__)
  hardware.has_arm_neon_dot = cpuinfo_has_arm_neon_dot();
#else
  hardware.has_arm_neon_dot = false;
#endif
  active_kernels.store(table, std::memory_order_release);
  return qwino_status_success;
}

extern "C" qwino_status qwino_deinitialize(void) {
  std::lock_guard<std::mutex> lock(init_mutex);
  if (active_kernels.load(std::memory_order_acquire) == nullptr) {
    return qwino_status_uninitialized;
  }
  active_kernels.store(nullptr, std::memory_order_release);
  return qwino_status_success;
}

extern "C" const char* qwino_isa_name(void) {
  const qwino_kernel_table* table = qwino_kernels();
  return table != nullptr ? table->isa_name : nullptr;
}
