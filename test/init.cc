// Tests of the kernel choice at initialisation (src/init.cc, src/configs/): every family's chosen
// kernel needs only ISAs the hardware config marks available (cpuinfo's answer, capped by
// QWINO_ISA), and the dot-product and i8mm kernels run exactly where the CPU has the extension.
// The aarch64 configuration of scripts/test.sh runs this under qemu -cpu cortex-a72 (ARMv8.0: no
// dot-product kernel may be chosen), again under -cpu neoverse-n1 (the dot-product indirect GEMM
// must be chosen) and under -cpu max (the i8mm one). Apart from the CPU it runs on, it checks the
// whole choice for each CPU model of this architecture (test/init-cpu-models.inc) through
// qwino_choose_kernels, a pure function of the hardware config.
#include <qwino.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "qwino/common.h"
#include "qwino/dispatch.h"

namespace {

// The ISA a kernel's name ends in (after "__"), as its list entry states it.
qwino_isa IsaOfKernel(const std::string& name) {
  const std::string isa = name.substr(name.rfind("__") + 2);
  struct Suffix {
    const char* prefix;
    qwino_isa isa;
  };
  // Longest prefixes first: "neondot" and "neoni8mm" before "neon", "avx512vnni" before
  // "avx512skx".
  static const Suffix kSuffixes[] = {
      {"neondot", qwino_isa_neondot},
      {"neoni8mm", qwino_isa_neoni8mm},
      {"neon", qwino_isa_neon},
      {"sse41", qwino_isa_sse41},
      {"avx2", qwino_isa_avx2},
      {"avxvnni", qwino_isa_avxvnni},
      {"amx", qwino_isa_amx},
      {"avx512vnni", qwino_isa_avx512vnni},
      {"avx512skx", qwino_isa_avx512skx},
      {"scalar", qwino_isa_scalar},
  };
  for (const Suffix& s : kSuffixes) {
    if (isa.compare(0, std::strlen(s.prefix), s.prefix) == 0) return s.isa;
  }
  ADD_FAILURE() << "kernel name without a known ISA suffix: " << name;
  return qwino_isa_count;
}

// Every family's chosen kernel, one slot per family and requantization mode, labelled; name
// NULL where a family has no kernel for this CPU or build (F(4x4,3x3) on SSE4.1, UDOT elsewhere).
std::vector<std::pair<std::string, const char*>> KernelSlots(const qwino_kernel_configs& k) {
  std::vector<std::pair<std::string, const char*>> slots = {{"gemm", k.gemm.name},
                                                            {"pair_gemm", k.pair_gemm.name},
                                                            {"igemm", k.igemm.name},
                                                            {"igemm_uint8", k.igemm_uint8.name},
                                                            {"igemm_int8", k.igemm_int8.name},
                                                            {"igemm_matrix", k.igemm_matrix.name},
                                                            {"irsum", k.irsum.name},
                                                            {"f23_input", k.f23_input.name},
                                                            {"f43_input", k.f43_input.name}};
  for (int mode = 0; mode < qwino_requantization_mode_count; mode++) {
    const std::string m = mode == qwino_requantization_gemmlowp ? "[gemmlowp]" : "[fp32]";
    slots.emplace_back("f23_output" + m, k.f23_output[mode].name);
    slots.emplace_back("f43_output" + m, k.f43_output[mode].name);
    slots.emplace_back("requantize" + m, k.requantize[mode].name);
    slots.emplace_back("igemm_requantize" + m, k.igemm_requantize[mode].name);
    slots.emplace_back("igemm_uint8_requantize" + m, k.igemm_uint8_requantize[mode].name);
    slots.emplace_back("igemm_int8_requantize" + m, k.igemm_int8_requantize[mode].name);
    slots.emplace_back("igemm_matrix_requantize" + m, k.igemm_matrix_requantize[mode].name);
    slots.emplace_back("matrix_rows_requantize" + m, k.matrix_rows_requantize[mode].name);
    slots.emplace_back("dwconv" + m, k.dwconv[mode].name);
    slots.emplace_back("dwconv_col3" + m, k.dwconv_col3[mode].name);
    slots.emplace_back("dwconv_col5" + m, k.dwconv_col5[mode].name);
  }
  return slots;
}

std::vector<const char*> ChosenKernels(const qwino_kernel_configs& k) {
  std::vector<const char*> names;
  for (const auto& slot : KernelSlots(k)) names.push_back(slot.second);
  return names;
}

TEST(Init, every_chosen_kernel_runs_on_this_cpu) {
  ASSERT_EQ(qwino_status_success, qwino_initialize());
  const qwino_hardware_config& hw = *qwino_hardware();
  for (const char* name : ChosenKernels(*qwino_kernels())) {
    if (name == nullptr) continue;  // a family with no kernel for this build (F(4x4,3x3) on SSE4.1)
    const qwino_isa isa = IsaOfKernel(name);
    ASSERT_LT(isa, qwino_isa_count);
    EXPECT_TRUE(hw.available[isa]) << name << " chosen, but its ISA is not available";
    EXPECT_TRUE(qwino_isa_detected(isa)) << name << " chosen, but the CPU lacks its ISA";
  }
}

// A fused entry (src/qu8-igemm/qu8-igemm.inc) runs only on the panels of an s8-igemm entry of its
// ISA with the same tile (src/configs/list-entries.h takes it only then): an entry without one
// would be compiled and tested but never chosen, so the lists must not hold one.
TEST(Init, every_fused_igemm_entry_has_an_igemm_entry_of_its_tile) {
  // (Member names apart from the list macros' parameter names.)
  struct Tile {
    qwino_isa tile_isa;
    int tile_mr, tile_nr, tile_kr, tile_a_bias, tile_b_bias, tile_b_min;
    bool operator==(const Tile& o) const {
      return tile_isa == o.tile_isa && tile_mr == o.tile_mr && tile_nr == o.tile_nr &&
             tile_kr == o.tile_kr && tile_a_bias == o.tile_a_bias && tile_b_bias == o.tile_b_bias &&
             tile_b_min == o.tile_b_min;
    }
  };
  std::vector<Tile> tiles;
#define QWINO_S8_IGEMM(isa, ukernel, mr, nr, kr, a_bias, b_bias, b_min, k_step, mac_cost, \
                       tile_cost)                                                         \
  tiles.push_back({qwino_isa_##isa, mr, nr, kr, a_bias, b_bias, b_min});
#include "s8-igemm/s8-igemm.inc"
#undef QWINO_S8_IGEMM
  size_t fused = 0;
#define QWINO_QU8_IGEMM(isa, mode, ukernel, mr, nr, kr, a_bias, b_bias, b_min, row_blocks, \
                        resident_row_bytes, init_params)                                   \
  {                                                                                        \
    const Tile want = {qwino_isa_##isa, mr, nr, kr, a_bias, b_bias, b_min};                \
    bool found = false;                                                                    \
    for (const Tile& t : tiles) found = found || t == want;                                \
    EXPECT_TRUE(found) << #ukernel << ": no s8-igemm entry of its ISA and tile";           \
    fused++;                                                                               \
  }
#include "qu8-igemm/qu8-igemm.inc"
#undef QWINO_QU8_IGEMM
  EXPECT_GT(fused, 0u);
}

// Dot-product CPUs run the SDOT indirect GEMM (UDOT for uint8 activations), i8mm CPUs the SMMLA
// one (UMMLA); every other CPU never runs a dot-product or i8mm kernel.
TEST(Init, dot_product_kernels_exactly_where_the_cpu_has_them) {
  ASSERT_EQ(qwino_status_success, qwino_initialize());
  const qwino_hardware_config& hw = *qwino_hardware();
  const std::string igemm = qwino_kernels()->igemm.name;
  const bool i8mm = hw.available[qwino_isa_neoni8mm];
  // The multiply the indirect GEMMs of a dot-product CPU must use.
  const char* const multiply = i8mm ? "__neoni8mm" : "__neondot";
  const bool dot_kernel = igemm.find(multiply) != std::string::npos;
  EXPECT_EQ(hw.available[qwino_isa_neondot], dot_kernel) << "indirect GEMM: " << igemm;
  // And the UDOT (UMMLA) kernels for uint8 activations (b_bias 128) exactly there too.
  const char* uint8_igemm = qwino_kernels()->igemm_uint8.name;
  if (hw.available[qwino_isa_neondot]) {
    ASSERT_NE(nullptr, uint8_igemm) << "no UDOT indirect GEMM";
    EXPECT_NE(nullptr, std::strstr(uint8_igemm, i8mm ? "_bbias128_ukernel_4x16c8__neoni8mm"
                                                     : "_bbias128_ukernel_4x16c4__neondot"))
        << uint8_igemm;
  } else {
    EXPECT_EQ(nullptr, uint8_igemm) << uint8_igemm << " chosen on a CPU without the dot product";
  }
  // And with them the fused SDOT and UDOT kernels, in both modes (their tiles match the GEMMs'),
  // and the SDOT depthwise kernels for 3-row and 5-row layers; no CPU without SDOT has them.
  for (int mode = 0; mode < qwino_requantization_mode_count; mode++) {
    const char* fused = qwino_kernels()->igemm_requantize[mode].name;
    const char* uint8_fused = qwino_kernels()->igemm_uint8_requantize[mode].name;
    if (hw.available[qwino_isa_neondot]) {
      ASSERT_NE(nullptr, fused) << "no fused SDOT kernel for mode " << mode;
      EXPECT_NE(nullptr, std::strstr(fused, multiply)) << fused;
      EXPECT_EQ(nullptr, std::strstr(fused, "bbias128")) << fused;
      ASSERT_NE(nullptr, uint8_fused) << "no fused UDOT kernel for mode " << mode;
      EXPECT_NE(nullptr, std::strstr(uint8_fused, "_bbias128_")) << uint8_fused;
      EXPECT_NE(nullptr, std::strstr(uint8_fused, multiply)) << uint8_fused;
    } else {
      EXPECT_EQ(nullptr, uint8_fused) << uint8_fused << " chosen on a CPU without UDOT";
    }
    for (const char* columns :
         {qwino_kernels()->dwconv_col3[mode].name, qwino_kernels()->dwconv_col5[mode].name}) {
      if (hw.available[qwino_isa_neondot]) {
        ASSERT_NE(nullptr, columns) << "no SDOT depthwise kernel for mode " << mode;
        EXPECT_NE(nullptr, std::strstr(columns, "__neondot")) << columns;
      } else if (columns != nullptr) {
        // Elsewhere only AVX-512 VNNI (VPDPBUSD, 3-row layers) and NEON without dot product
        // (SMULL + SADALP on interleaved taps, 3-row and 5-row layers) have them.
        EXPECT_TRUE(hw.available[qwino_isa_avx512vnni] || hw.available[qwino_isa_neon]) << columns;
        EXPECT_TRUE(std::strstr(columns, "__avx512vnni_col3") != nullptr ||
                    std::strstr(columns, "__neon_col3") != nullptr ||
                    std::strstr(columns, "__neon_col5") != nullptr)
            << columns;
      }
    }
    if (hw.available[qwino_isa_neon] && !hw.available[qwino_isa_neondot]) {
      ASSERT_NE(nullptr, qwino_kernels()->dwconv_col3[mode].name) << "no NEON 3-row kernel";
      EXPECT_NE(nullptr, std::strstr(qwino_kernels()->dwconv_col3[mode].name, "__neon_col3"));
      ASSERT_NE(nullptr, qwino_kernels()->dwconv_col5[mode].name) << "no NEON 5-row kernel";
      EXPECT_NE(nullptr, std::strstr(qwino_kernels()->dwconv_col5[mode].name, "__neon_col5"));
    }
    if (hw.available[qwino_isa_avx512vnni]) {
      ASSERT_NE(nullptr, qwino_kernels()->dwconv_col3[mode].name) << "no VNNI 3-row kernel";
      EXPECT_EQ(nullptr, qwino_kernels()->dwconv_col5[mode].name);
    }
  }
  for (const char* name : ChosenKernels(*qwino_kernels())) {
    if (name == nullptr) continue;
    if (!hw.available[qwino_isa_neondot]) {
      EXPECT_EQ(nullptr, std::strstr(name, "neondot")) << name << " chosen on a CPU without it";
    }
    if (!i8mm) {
      EXPECT_EQ(nullptr, std::strstr(name, "neoni8mm")) << name << " chosen on a CPU without it";
    }
  }
  std::printf("[ kernels    ] %s (dot product %s, i8mm %s): indirect GEMM %s\n", qwino_isa_name(),
              qwino_isa_detected(qwino_isa_neondot) ? "detected" : "not detected",
              qwino_isa_detected(qwino_isa_neoni8mm) ? "detected" : "not detected", igemm.c_str());
}

// The kernels a CPU model gets, from the hardware config alone (qwino_choose_kernels), for the
// models of this build's architecture: one line per family and requantization mode, "-" where a
// family has no kernel. A change to a family's list or to the selection shows up here as a diff
// of what runs in production; the expected tables are today's choice, checked by hand against
// the lists and doc/DESIGN.md section 4 ("Kernels per ISA").
std::string KernelTable(const qwino_kernel_configs& k) {
  std::string table;
  for (const auto& slot : KernelSlots(k)) {
    table += slot.first + ": " + (slot.second != nullptr ? slot.second : "-") + "\n";
  }
  return table;
}

struct CpuModel {
  const char* name;
  const char* level;
  std::vector<qwino_isa> isas;  // besides scalar
  const char* expected;
};

qwino_hardware_config HardwareOf(const CpuModel& model) {
  qwino_hardware_config hw{};
  hw.detected[qwino_isa_scalar] = hw.available[qwino_isa_scalar] = true;
  for (qwino_isa isa : model.isas) hw.detected[isa] = hw.available[isa] = true;
  hw.level_name = model.level;
  return hw;
}

const std::vector<CpuModel>& CpuModels() {
  static const std::vector<CpuModel> models = {
#include "init-cpu-models.inc"
  };
  return models;
}

TEST(Init, kernels_chosen_per_cpu_model) {
  for (const CpuModel& model : CpuModels()) {
    const qwino_hardware_config hw = HardwareOf(model);
    const std::string actual = KernelTable(qwino_choose_kernels(&hw));
    std::printf("[ cpu model  ] %s\n%s", model.name, actual.c_str());
    std::string expected = model.expected;
    if (!expected.empty() && expected[0] == '\n') expected.erase(0, 1);  // R"( on its own line
    EXPECT_EQ(expected, actual) << model.name;
  }
}

// The lists hold every kernel and the configs choose (src/configs/configs.h): a kernel line that
// no config names would be compiled and tested but never run. So every list kernel of this
// architecture except the scalar twins is some CPU model's choice.
TEST(Init, every_simd_list_kernel_is_chosen_for_some_cpu_model) {
  std::vector<std::string> chosen;
  for (const CpuModel& model : CpuModels()) {
    const qwino_hardware_config hw = HardwareOf(model);
    for (const char* name : ChosenKernels(qwino_choose_kernels(&hw))) {
      if (name != nullptr) chosen.emplace_back(name);
    }
  }
  std::vector<std::pair<qwino_isa, std::string>> listed;
#define QWINO_LISTED(isa, ukernel) listed.emplace_back(qwino_isa_##isa, #ukernel);
#define QWINO_S16_GEMM(isa, ukernel, ...) QWINO_LISTED(isa, ukernel)
#define QWINO_S8_IGEMM(isa, ukernel, ...) QWINO_LISTED(isa, ukernel)
#define QWINO_QU8_IGEMM(isa, mode, ukernel, ...) QWINO_LISTED(isa, ukernel)
#define QWINO_QU8_GEMM(isa, mode, ukernel, ...) QWINO_LISTED(isa, ukernel)
#define QWINO_S8_IRSUM(isa, ukernel) QWINO_LISTED(isa, ukernel)
#define QWINO_QU8_WINOGRAD_F2X2_INPUT(isa, ukernel, ...) QWINO_LISTED(isa, ukernel)
#define QWINO_QU8_WINOGRAD_F4X4_INPUT(isa, ukernel, ...) QWINO_LISTED(isa, ukernel)
#define QWINO_QU8_WINOGRAD_F2X2_OUTPUT(isa, mode, ukernel, ...) QWINO_LISTED(isa, ukernel)
#define QWINO_QU8_WINOGRAD_F4X4_OUTPUT(isa, mode, ukernel, ...) QWINO_LISTED(isa, ukernel)
#define QWINO_S32_QU8_REQUANTIZE(isa, mode, ukernel, ...) QWINO_LISTED(isa, ukernel)
#define QWINO_S8_DWCONV(isa, mode, ukernel, ...) QWINO_LISTED(isa, ukernel)
#include "qu8-gemm/qu8-gemm.inc"
#include "qu8-igemm/qu8-igemm.inc"
#include "qu8-winograd-f2x2-input/qu8-winograd-f2x2-input.inc"
#include "qu8-winograd-f2x2-output/qu8-winograd-f2x2-output.inc"
#include "qu8-winograd-f4x4-input/qu8-winograd-f4x4-input.inc"
#include "qu8-winograd-f4x4-output/qu8-winograd-f4x4-output.inc"
#include "s16-gemm/s16-gemm.inc"
#include "s32-qu8-requantize/s32-qu8-requantize.inc"
#include "s8-dwconv/s8-dwconv.inc"
#include "s8-igemm/s8-igemm.inc"
#include "s8-irsum/s8-irsum.inc"
#undef QWINO_S8_DWCONV
#undef QWINO_S32_QU8_REQUANTIZE
#undef QWINO_QU8_WINOGRAD_F4X4_OUTPUT
#undef QWINO_QU8_WINOGRAD_F2X2_OUTPUT
#undef QWINO_QU8_WINOGRAD_F4X4_INPUT
#undef QWINO_QU8_WINOGRAD_F2X2_INPUT
#undef QWINO_S8_IRSUM
#undef QWINO_QU8_IGEMM
#undef QWINO_QU8_GEMM
#undef QWINO_S8_IGEMM
#undef QWINO_S16_GEMM
#undef QWINO_LISTED
  size_t simd = 0;
  for (const auto& entry : listed) {
    if (entry.first == qwino_isa_scalar) continue;
    simd++;
    EXPECT_NE(std::find(chosen.begin(), chosen.end(), entry.second), chosen.end())
        << entry.second << " is listed but no CPU model's config names it";
  }
  std::printf("[ lists      ] %zu kernels listed, %zu SIMD ones, each chosen for some CPU model\n",
              listed.size(), simd);
  EXPECT_GT(listed.size(), simd);
}

}  // namespace
