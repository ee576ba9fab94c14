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
    qwino_f43_input_transform_ukernel__scalar,
    qwino_f43_output_transform_ukernel__scalar,
    qwino_requantize_ukernel__scalar,
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
    qwino_f43_input_transform_ukernel__neon,
    qwino_f43_output_transform_ukernel__neon,
    qwino_requantize_ukernel__neon,
};
#endif

#if defined(__x86_64__)
// x86-64 kernel sets (src/sse41, src/avx2, src/avx512: each directory is compiled with its ISA's
// flags, the rest of the library stays baseline x86-64). KR = 2: the GEMMs multiply int16 pairs
// (PMADDWD / VPDPWSSD).
// F(4x4,3x3) has AVX2 and AVX-512 transforms (src/avx2/f43-*, src/avx512/f43-*): one thread on
// Zen 5, F(4x4,3x3) ran the ResNet-18 3x3 layers 1.3-1.45x (AVX-512) and 1.25-1.5x (AVX2)
// faster than F(2x2,3x3), except 7x7x512 with AVX-512: a tie with 1 thread (its 18.9 MB of
// packed weights stream for only 4 tiles; the cost model does not count weight traffic), ahead
// with 2 (each thread streams half). The SSE4.1 set has none (NULL: the operator never picks
// F(4x4,3x3) there, QWINO_FLAG_FORCE_WINOGRAD_F4 is unsupported): the scalar transforms are no
// substitute (with them the cost model, which assumes SIMD-speed transforms, chose F(4x4,3x3)
// and ran it at 1.0-1.6 ms against 0.24-0.30 ms for F(2x2,3x3) with AVX-512).
constexpr qwino_kernel_table kSse41Kernels = {
    "sse41",
    qwino_f23_input_transform_ukernel__sse41,
    qwino_gemm_ukernel_4x8c2__sse41,
    qwino_f23_output_transform_ukernel__sse41,
    4,
    8,
    2,
    nullptr,
    nullptr,
    qwino_requantize_ukernel__sse41,
};
constexpr qwino_kernel_table kAvx2Kernels = {
    "avx2",
    qwino_f23_input_transform_ukernel__avx2,
    qwino_gemm_ukernel_4x16c2__avx2,
    qwino_f23_output_transform_ukernel__avx2,
    4,
    16,
    2,
    qwino_f43_input_transform_ukernel__avx2,
    qwino_f43_output_transform_ukernel__avx2,
    qwino_requantize_ukernel__avx2,
};
// AVX-512 F/BW/VL for the transforms, plus VNNI (VPDPWSSD) for the GEMM: Ice Lake, Cascade
// Lake and later Intel cores, AMD Zen 4 and later. (Skylake-X without VNNI runs the AVX2 set.)
constexpr qwino_kernel_table kAvx512Kernels = {
    "avx512",
    qwino_f23_input_transform_ukernel__avx512skx,
    qwino_gemm_ukernel_8x32c2__avx512vnni,
    qwino_f23_output_transform_ukernel__avx512skx,
    8,
    32,
    2,
    qwino_f43_input_transform_ukernel__avx512skx,
    qwino_f43_output_transform_ukernel__avx512skx,
    qwino_requantize_ukernel__avx512skx,
};

bool has_x86_avx512() {
  return cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vl() &&
         cpuinfo_has_x86_avx512vnni();
}
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
#if defined(__x86_64__)
  if (has_x86_avx512()) {
    return &kAvx512Kernels;
  }
  if (cpuinfo_has_x86_avx2()) {
    return &kAvx2Kernels;
  }
  if (cpuinfo_has_x86_sse4_1()) {
    return &kSse41Kernels;
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
#if defined(__x86_64__)
  if (table == &kSse41Kernels) {
    return cpuinfo_has_x86_sse4_1();
  }
  if (table == &kAvx2Kernels) {
    return cpuinfo_has_x86_avx2();
  }
  if (table == &kAvx512Kernels) {
    return has_x86_avx512();
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
#if defined(__x86_64__)
  const qwino_kernel_table* const x86_tables[] = {&kSse41Kernels, &kAvx2Kernels, &kAvx512Kernels};
  for (const qwino_kernel_table* table : x86_tables) {
    if (std::strcmp(isa_name, table->isa_name) == 0) {
      return table;
    }
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
