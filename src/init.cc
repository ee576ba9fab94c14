// qwino_initialize: the hardware facts, once, and each family's kernel (src/configs/).
//
// The only process-wide state of the library lives here (the hardware config and the kernel
// configs), plus the handle table in operator-registry.cc.
#include <cpuinfo.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "qwino.h"
#include "qwino/common.h"
#include "qwino/dispatch.h"

namespace {

// QWINO_ISA levels: a level allows its own ISAs and those of the levels before it on the same
// architecture; `defining` is the ISA a CPU must have for the level to be chosen or forced.
struct Level {
  const char* name;
  qwino_isa defining;
  bool arm, x86;
};
constexpr Level kLevels[] = {
    {"scalar", qwino_isa_scalar, true, true},    {"neon", qwino_isa_neon, true, false},
    {"neondot", qwino_isa_neondot, true, false}, {"neoni8mm", qwino_isa_neoni8mm, true, false},
    {"sse41", qwino_isa_sse41, false, true},     {"avx2", qwino_isa_avx2, false, true},
    {"avxvnni", qwino_isa_avxvnni, false, true}, {"avx512", qwino_isa_avx512skx, false, true},
    {"amx", qwino_isa_amx, false, true},
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
      return 5;
    case qwino_isa_avxvnni:
      return 6;
    case qwino_isa_avx512skx:
    case qwino_isa_avx512vnni:
      return 7;
    case qwino_isa_amx:
      return 8;
    case qwino_isa_count:
      break;
  }
  return 0;
}

// Debian 12's cpuinfo has no query for these three; cpuinfo_has_x86_avx2 / cpuinfo_has_arm_neon_dot
// have already checked the OS state they need.
#if QWINO_ARCH_ARM64
bool has_arm_i8mm() { return (getauxval(AT_HWCAP2) & (1UL << 13)) != 0; }  // HWCAP2_I8MM
#endif
#if QWINO_ARCH_X86_64
bool has_x86_avxvnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax & (1u << 4)) != 0;
}
// AMX-TILE and AMX-INT8 (CPUID 7.0 EDX bits 24 and 25), and Linux's permission for the process
// to use the tile data state (ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA, Linux 5.16+): without
// it the first tile load faults. The permission is process-wide and asking again is harmless.
bool has_x86_amx_int8() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0 || (edx & (3u << 24)) != (3u << 24)) {
    return false;
  }
  constexpr long kArchRequestComponentPermission = 0x1023, kTileDataComponent = 18;
  return syscall(SYS_arch_prctl, kArchRequestComponentPermission, kTileDataComponent) == 0;
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
  detected[qwino_isa_amx] = detected[qwino_isa_avx512vnni] && has_x86_amx_int8();
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
