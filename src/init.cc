// qwino_initialize: the hardware facts, once, and each family's kernel from its list.
//
// The only process-wide state of the library lives here (the hardware config and the kernel
// configs), plus the handle table in operator-registry.cc.
#include <cpuinfo.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "qwino.h"
#include "qwino/dispatch.h"
#include "qwino/tuning.h"
#include "qwino/ukernels.h"

namespace {

// QWINO_ISA levels: a level allows its own ISAs and those of the levels before it on the same
// architecture; `defining` is the ISA a CPU must have for the level to be chosen or forced.
struct Level {
  const char* name;
  qwino_isa defining;
  bool arm, x86;
};
constexpr Level kLevels[] = {
    {"scalar", qwino_isa_scalar, true, true},     {"neon", qwino_isa_neon, true, false},
    {"neondot", qwino_isa_neondot, true, false},  {"neoni8mm", qwino_isa_neoni8mm, true, false},
    {"sse41", qwino_isa_sse41, false, true},      {"avx2", qwino_isa_avx2, false, true},
    {"avx512", qwino_isa_avx512skx, false, true},
};
// The level each ISA belongs to (index into kLevels).
constexpr size_t level_of(qwino_isa isa) {
  switch (isa) {
    case qwino_isa_scalar:
      return 0;
    case qwino_isa_neon:
      return 1;
    case qwino_isa_neondot:
      return 2;
    case qwino_isa_neoni8mm:
      return 3;
    case qwino_isa_sse41:
      return 4;
    case qwino_isa_avx2:
    case qwino_isa_avxvnni:
      return 5;
    case qwino_isa_avx512skx:
    case qwino_isa_avx512vnni:
      return 6;
    case qwino_isa_count:
      break;
  }
  return 0;
}

// Debian 12's cpuinfo has no query for these two; cpuinfo_has_x86_avx2 / cpuinfo_has_arm_neon_dot
// have already checked the OS state they need.
#if QWINO_ARCH_ARM64
bool has_arm_i8mm() { return (getauxval(AT_HWCAP2) & (1UL << 13)) != 0; }  // HWCAP2_I8MM
#endif
#if QWINO_ARCH_X86_64
bool has_x86_avxvnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax & (1u << 4)) != 0;
}
#endif

void detect(bool detected[qwino_isa_count]) {
  detected[qwino_isa_scalar] = true;
#if QWINO_ARCH_ARM64
  detected[qwino_isa_neon] = cpuinfo_has_arm_neon();
  detected[qwino_isa_neondot] = cpuinfo_has_arm_neon() && cpuinfo_has_arm_neon_dot();
  detected[qwino_isa_neoni8mm] = detected[qwino_isa_neondot] && has_arm_i8mm();
#endif
#if QWINO_ARCH_X86_64
  detected[qwino_isa_sse41] = cpuinfo_has_x86_sse4_1();
  detected[qwino_isa_avx2] = cpuinfo_has_x86_avx2();
  detected[qwino_isa_avx512skx] =
      cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vl();
  detected[qwino_isa_avx512vnni] = detected[qwino_isa_avx512skx] && cpuinfo_has_x86_avx512vnni();
  detected[qwino_isa_avxvnni] = detected[qwino_isa_avx2] && has_x86_avxvnni();
#endif
}

bool level_on_this_architecture(const Level& level) {
  return QWINO_ARCH_ARM64    ? level.arm
         : QWINO_ARCH_X86_64 ? level.x86
                             : level.defining == qwino_isa_scalar;
}

// The level QWINO_ISA = forced (NULL: no cap) caps kernels at: false for an unknown level or one
// the CPU lacks.
bool find_cap(const char* forced, const bool detected[qwino_isa_count], size_t* cap_out) {
  size_t cap = 0;
  bool found = false;
  for (size_t i = 0; i < sizeof(kLevels) / sizeof(kLevels[0]); i++) {
    const Level& level = kLevels[i];
    if (!level_on_this_architecture(level)) {
      continue;
    }
    if (forced != nullptr) {
      if (std::strcmp(forced, level.name) == 0) {
        if (!detected[level.defining]) {
          return false;
        }
        cap = i;
        found = true;
      }
    } else if (detected[level.defining]) {
      cap = i;  // levels of one architecture run from the weakest to the strongest
      found = true;
    }
  }
  *cap_out = cap;
  return found;
}

void configure_hardware(size_t cap, qwino_hardware_config* hardware) {
  *hardware = qwino_hardware_config{};
  detect(hardware->detected);
  for (int isa = 0; isa < qwino_isa_count; isa++) {
    const qwino_isa i = static_cast<qwino_isa>(isa);
    const size_t level = level_of(i);
    hardware->available[isa] =
        hardware->detected[isa] &&
        (level == 0 || (level_on_this_architecture(kLevels[level]) && level <= cap));
  }
  hardware->level_name = kLevels[cap].name;
  const cpuinfo_core* core = cpuinfo_get_core(0);
  hardware->uarch = core != nullptr ? static_cast<uint32_t>(core->uarch) : 0;
}

// Each family's config: the last entry of its list whose ISA is available.
qwino_kernel_configs choose_kernels(const qwino_hardware_config& hw) {
  qwino_kernel_configs k{};
  k.isa_name = hw.level_name;
#define QWINO_S16_GEMM(isa, ukernel, mr, nr, kr, k_padding, mac_cost) \
  if (hw.available[qwino_isa_##isa]) k.gemm = {ukernel, #ukernel, mr, nr, kr, k_padding, mac_cost};
#include "s16-gemm/s16-gemm.inc"
#undef QWINO_S16_GEMM
#define QWINO_S8_IGEMM(isa, ukernel, mr, nr, kr, a_bias, b_bias, b_min, mac_cost, tile_cost)   \
  if (hw.available[qwino_isa_##isa]) {                                                         \
    (b_bias == 0 ? k.igemm : k.igemm_uint8) = {ukernel, #ukernel, mr,    nr,       kr,         \
                                               a_bias,  b_bias,   b_min, mac_cost, tile_cost}; \
  }
#include "s8-igemm/s8-igemm.inc"
#undef QWINO_S8_IGEMM
  // Only a fused kernel that reads the panels the igemm kernel's packing makes.
#define QWINO_FITS_TILE(c, tile_mr, tile_nr, tile_kr, tile_a_bias, tile_b_bias, tile_b_min) \
  ((c).mr == (tile_mr) && (c).nr == (tile_nr) && (c).kr == (tile_kr) &&                     \
   (c).a_bias == (tile_a_bias) && (c).b_bias == (tile_b_bias) && (c).b_min == (tile_b_min))
#define QWINO_QU8_IGEMM(isa, mode, fused, tile_mr, tile_nr, tile_kr, tile_a_bias, tile_b_bias,   \
                        tile_b_min, row_blocks, init_params)                                     \
  if (hw.available[qwino_isa_##isa] &&                                                           \
      QWINO_FITS_TILE(k.igemm, tile_mr, tile_nr, tile_kr, tile_a_bias, tile_b_bias, tile_b_min)) \
    k.igemm_requantize[qwino_requantization_##mode] = {fused, #fused, init_params, row_blocks};  \
  if (hw.available[qwino_isa_##isa] && k.igemm_uint8.ukernel != nullptr &&                       \
      QWINO_FITS_TILE(k.igemm_uint8, tile_mr, tile_nr, tile_kr, tile_a_bias, tile_b_bias,        \
                      tile_b_min))                                                               \
    k.igemm_uint8_requantize[qwino_requantization_##mode] = {fused, #fused, init_params,         \
                                                             row_blocks};
#include "qu8-igemm/qu8-igemm.inc"
#undef QWINO_QU8_IGEMM
#undef QWINO_FITS_TILE
#define QWINO_S8_IRSUM(isa, ukernel) \
  if (hw.available[qwino_isa_##isa]) k.irsum = {ukernel, #ukernel};
#include "s8-irsum/s8-irsum.inc"
#undef QWINO_S8_IRSUM
#define QWINO_QU8_WINOGRAD_F2X2_INPUT(isa, ukernel, value_cost) \
  if (hw.available[qwino_isa_##isa]) k.f23_input = {ukernel, #ukernel, value_cost};
#include "qu8-winograd-f2x2-input/qu8-winograd-f2x2-input.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_INPUT
#define QWINO_QU8_WINOGRAD_F4X4_INPUT(isa, ukernel, value_cost) \
  if (hw.available[qwino_isa_##isa]) k.f43_input = {ukernel, #ukernel, value_cost};
#include "qu8-winograd-f4x4-input/qu8-winograd-f4x4-input.inc"
#undef QWINO_QU8_WINOGRAD_F4X4_INPUT
#define QWINO_QU8_WINOGRAD_F2X2_OUTPUT(isa, mode, ukernel, init_params, value_cost) \
  if (hw.available[qwino_isa_##isa])                                                \
    k.f23_output[qwino_requantization_##mode] = {ukernel, #ukernel, init_params, value_cost};
#include "qu8-winograd-f2x2-output/qu8-winograd-f2x2-output.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_OUTPUT
#define QWINO_QU8_WINOGRAD_F4X4_OUTPUT(isa, mode, ukernel, init_params, value_cost) \
  if (hw.available[qwino_isa_##isa])                                                \
    k.f43_output[qwino_requantization_##mode] = {ukernel, #ukernel, init_params, value_cost};
#include "qu8-winograd-f4x4-output/qu8-winograd-f4x4-output.inc"
#undef QWINO_QU8_WINOGRAD_F4X4_OUTPUT
#define QWINO_S32_QU8_REQUANTIZE(isa, mode, ukernel, init_params, value_cost) \
  if (hw.available[qwino_isa_##isa])                                          \
    k.requantize[qwino_requantization_##mode] = {ukernel, #ukernel, init_params, value_cost};
#include "s32-qu8-requantize/s32-qu8-requantize.inc"
#undef QWINO_S32_QU8_REQUANTIZE
  // The column layouts' entries (int8_col3, int8_col5 and their _pairs forms) are kernels for
  // 3-row and 5-row layers, kept only if no entry of another layout comes later (a stronger ISA's
  // kernel for every layer); they share its parameters.
#define QWINO_S8_DWCONV(isa, mode, ukernel, entry_init, entry_cr, entry_layout, entry_cost)       \
  if (hw.available[qwino_isa_##isa]) {                                                            \
    const qwino_s8_dwconv_config entry = {                                                        \
        ukernel, #ukernel, entry_init, entry_cr, qwino_dwconv_layout_##entry_layout, entry_cost}; \
    const size_t rows = qwino_dwconv_column_rows(entry.layout);                                   \
    if (rows == 0) {                                                                              \
      k.dwconv[qwino_requantization_##mode] = entry;                                              \
      k.dwconv_col3[qwino_requantization_##mode] = {};                                            \
      k.dwconv_col5[qwino_requantization_##mode] = {};                                            \
    } else if (k.dwconv[qwino_requantization_##mode].init_params == entry.init_params) {          \
      (rows == 3 ? k.dwconv_col3 : k.dwconv_col5)[qwino_requantization_##mode] = entry;           \
    }                                                                                             \
  }
#include "s8-dwconv/s8-dwconv.inc"
#undef QWINO_S8_DWCONV
  return k;
}

constexpr size_t kLevelCount = sizeof(kLevels) / sizeof(kLevels[0]);
std::mutex init_mutex;
// One hardware config and one set of kernel configs per cap level, each filled once, the first
// time qwino_initialize meets that level, and never written again: operators created under an
// earlier QWINO_ISA may still be reading theirs.
qwino_hardware_config level_hardware[kLevelCount];
qwino_kernel_configs level_kernels[kLevelCount];
bool level_ready[kLevelCount];
std::atomic<size_t> active_level{0};
std::atomic<const qwino_kernel_configs*> active_kernels{nullptr};

}  // namespace

extern "C" qwino_kernel_configs qwino_choose_kernels(const qwino_hardware_config* hardware) {
  return choose_kernels(*hardware);
}

extern "C" const qwino_kernel_configs* qwino_kernels(void) {
  return active_kernels.load(std::memory_order_acquire);
}

extern "C" const qwino_hardware_config* qwino_hardware(void) {
  return qwino_kernels() != nullptr ? &level_hardware[active_level.load(std::memory_order_acquire)]
                                    : nullptr;
}

extern "C" bool qwino_isa_detected(qwino_isa isa) {
  if (!cpuinfo_initialize()) {
    return isa == qwino_isa_scalar;
  }
  bool detected[qwino_isa_count] = {};
  detect(detected);
  return detected[isa];
}

extern "C" qwino_status qwino_initialize(void) {
  std::lock_guard<std::mutex> lock(init_mutex);
  if (!cpuinfo_initialize()) {
    return qwino_status_unsupported_hardware;
  }
  const char* forced = std::getenv("QWINO_ISA");
  bool detected[qwino_isa_count] = {};
  detect(detected);
  size_t cap = 0;
  if (!find_cap(forced != nullptr && *forced != '\0' ? forced : nullptr, detected, &cap)) {
    return qwino_status_unsupported_hardware;
  }
  if (!level_ready[cap]) {
    configure_hardware(cap, &level_hardware[cap]);
    level_kernels[cap] = qwino_choose_kernels(&level_hardware[cap]);
    level_ready[cap] = true;
  }
  active_level.store(cap, std::memory_order_release);
  active_kernels.store(&level_kernels[cap], std::memory_order_release);
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
  const qwino_kernel_configs* configs = qwino_kernels();
  return configs != nullptr ? configs->isa_name : nullptr;
}
