// A kernel's config as its family's list line describes it (tile, biases, costs, layout), looked
// up by the kernel's function: the configs (src/configs/) name the kernel a CPU runs in each role,
// and the list stays the one place that says what each kernel is. A function that no list holds
// gives an empty config (ukernel NULL), which test/init.cc's kernels_chosen_per_cpu_model shows.
#ifndef QWINO_CONFIGS_LIST_ENTRIES_H_
#define QWINO_CONFIGS_LIST_ENTRIES_H_

#include "qwino/dispatch.h"
#include "qwino/tuning.h"
#include "qwino/ukernels.h"

namespace qwino {
namespace configs {

template <typename Config, size_t count, typename Fn>
Config find_entry(const Config (&entries)[count], Fn ukernel) {
  for (const Config& entry : entries) {
    if (entry.ukernel == ukernel) {
      return entry;
    }
  }
  return Config{};
}

// The families with a line per requantization mode: a kernel is found only under its own mode.
template <typename Config>
struct ModeEntry {
  qwino_requantization_mode mode;
  Config config;
};
template <typename Config, size_t count, typename Fn>
Config find_entry(const ModeEntry<Config> (&entries)[count], Fn ukernel,
                  qwino_requantization_mode mode) {
  for (const ModeEntry<Config>& entry : entries) {
    if (entry.config.ukernel == ukernel && entry.mode == mode) {
      return entry.config;
    }
  }
  return Config{};
}

inline qwino_s16_gemm_config gemm(qwino_gemm_ukernel_fn ukernel) {
  static const qwino_s16_gemm_config entries[] = {
#define QWINO_S16_GEMM(isa, fn, mr, nr, kr, k_padding, mac_cost) \
  {fn, #fn, mr, nr, kr, k_padding, mac_cost},
#include "s16-gemm/s16-gemm.inc"
#undef QWINO_S16_GEMM
  };
  return find_entry(entries, ukernel);
}

inline qwino_u8s8_gemm_config pair_gemm(qwino_u8s8_gemm_ukernel_fn ukernel) {
  static const qwino_u8s8_gemm_config entries[] = {
#define QWINO_U8S8_GEMM(isa, fn, mr, mac_cost) {fn, #fn, mr, mac_cost},
#include "u8s8-gemm/u8s8-gemm.inc"
#undef QWINO_U8S8_GEMM
  };
  return find_entry(entries, ukernel);
}

inline qwino_s8_igemm_config igemm(qwino_igemm_ukernel_fn ukernel) {
  static const qwino_s8_igemm_config entries[] = {
#define QWINO_S8_IGEMM(isa, fn, mr, nr, kr, a_bias, b_bias, b_min, k_step, mac_cost, tile_cost) \
  {fn, #fn, mr, nr, kr, a_bias, b_bias, b_min, k_step, mac_cost, tile_cost},
#include "s8-igemm/s8-igemm.inc"
#undef QWINO_S8_IGEMM
  };
  return find_entry(entries, ukernel);
}

// A fused kernel's line also names the s8-igemm tile whose packed panels it reads; the config
// keeps it only for that tile (`tile`, the role's s8-igemm config), as a mismatch would read the
// panels wrongly. test/init.cc checks that every CPU model gets its fused kernels. The fused
// indirect kernels (src/qu8-igemm/qu8-igemm.inc) and those on gathered rows
// (src/qu8-gemm/qu8-gemm.inc) are looked up alike.
template <typename Config>
struct FusedEntry {
  qwino_requantization_mode mode;
  Config config;
  uint32_t mr, nr, kr, a_bias, b_bias;
  int32_t b_min;
};
template <typename Config, size_t count, typename Fn>
Config find_fused(const FusedEntry<Config> (&entries)[count], qwino_requantization_mode mode,
                  Fn ukernel, const qwino_s8_igemm_config& tile) {
  for (const FusedEntry<Config>& entry : entries) {
    if (entry.config.ukernel == ukernel && entry.mode == mode && entry.mr == tile.mr &&
        entry.nr == tile.nr && entry.kr == tile.kr && entry.a_bias == tile.a_bias &&
        entry.b_bias == tile.b_bias && entry.b_min == tile.b_min) {
      return entry.config;
    }
  }
  return Config{};
}

inline qwino_qu8_igemm_config fused_igemm(qwino_requantization_mode mode,
                                          qwino_igemm_requantize_ukernel_fn ukernel,
                                          const qwino_s8_igemm_config& tile) {
  static const FusedEntry<qwino_qu8_igemm_config> entries[] = {
#define QWINO_QU8_IGEMM(isa, mode, fn, mr, nr, kr, a_bias, b_bias, b_min, row_blocks, \
                        resident_row_bytes, init_params)                              \
  {qwino_requantization_##mode,                                                       \
   {fn, #fn, init_params, row_blocks, resident_row_bytes},                            \
   mr,                                                                                \
   nr,                                                                                \
   kr,                                                                                \
   a_bias,                                                                            \
   b_bias,                                                                            \
   b_min},
#include "qu8-igemm/qu8-igemm.inc"
#undef QWINO_QU8_IGEMM
  };
  return find_fused(entries, mode, ukernel, tile);
}

inline qwino_qu8_gemm_config fused_gemm_rows(qwino_requantization_mode mode,
                                             qwino_gemm_requantize_ukernel_fn ukernel,
                                             const qwino_s8_igemm_config& tile) {
  static const FusedEntry<qwino_qu8_gemm_config> entries[] = {
#define QWINO_QU8_GEMM(isa, mode, fn, mr, nr, kr, a_bias, b_bias, b_min, k_block, init_params) \
  {qwino_requantization_##mode, {fn, #fn, init_params, k_block}, mr, nr, kr, a_bias, b_bias, b_min},
#include "qu8-gemm/qu8-gemm.inc"
#undef QWINO_QU8_GEMM
      {}  // closes the list, which the architectures without matrix kernels leave empty
  };
  return find_fused(entries, mode, ukernel, tile);
}

inline qwino_s8_irsum_config irsum(qwino_irsum_ukernel_fn ukernel) {
  static const qwino_s8_irsum_config entries[] = {
#define QWINO_S8_IRSUM(isa, fn) {fn, #fn},
#include "s8-irsum/s8-irsum.inc"
#undef QWINO_S8_IRSUM
  };
  return find_entry(entries, ukernel);
}

inline qwino_winograd_input_config f23_input(qwino_input_transform_ukernel_fn ukernel) {
  static const qwino_winograd_input_config entries[] = {
#define QWINO_QU8_WINOGRAD_F2X2_INPUT(isa, fn, value_cost) {fn, #fn, value_cost},
#include "qu8-winograd-f2x2-input/qu8-winograd-f2x2-input.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_INPUT
  };
  return find_entry(entries, ukernel);
}

inline qwino_winograd_input_config f43_input(qwino_input_transform_ukernel_fn ukernel) {
  static const qwino_winograd_input_config entries[] = {
#define QWINO_QU8_WINOGRAD_F4X4_INPUT(isa, fn, value_cost) {fn, #fn, value_cost},
#include "qu8-winograd-f4x4-input/qu8-winograd-f4x4-input.inc"
#undef QWINO_QU8_WINOGRAD_F4X4_INPUT
  };
  return find_entry(entries, ukernel);
}

inline qwino_f23_output_config f23_output(qwino_requantization_mode mode,
                                          qwino_f23_output_transform_ukernel_fn ukernel) {
  static const ModeEntry<qwino_f23_output_config> entries[] = {
#define QWINO_QU8_WINOGRAD_F2X2_OUTPUT(isa, mode, fn, init_params, value_cost) \
  {qwino_requantization_##mode, {fn, #fn, init_params, value_cost}},
#include "qu8-winograd-f2x2-output/qu8-winograd-f2x2-output.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_OUTPUT
  };
  return find_entry(entries, ukernel, mode);
}

inline qwino_f43_output_config f43_output(qwino_requantization_mode mode,
                                          qwino_f43_output_transform_ukernel_fn ukernel) {
  static const ModeEntry<qwino_f43_output_config> entries[] = {
#define QWINO_QU8_WINOGRAD_F4X4_OUTPUT(isa, mode, fn, init_params, value_cost) \
  {qwino_requantization_##mode, {fn, #fn, init_params, value_cost}},
#include "qu8-winograd-f4x4-output/qu8-winograd-f4x4-output.inc"
#undef QWINO_QU8_WINOGRAD_F4X4_OUTPUT
  };
  return find_entry(entries, ukernel, mode);
}

inline qwino_requantize_config requantize(qwino_requantization_mode mode,
                                          qwino_requantize_ukernel_fn ukernel) {
  static const ModeEntry<qwino_requantize_config> entries[] = {
#define QWINO_S32_QU8_REQUANTIZE(isa, mode, fn, init_params, value_cost) \
  {qwino_requantization_##mode, {fn, #fn, init_params, value_cost}},
#include "s32-qu8-requantize/s32-qu8-requantize.inc"
#undef QWINO_S32_QU8_REQUANTIZE
  };
  return find_entry(entries, ukernel, mode);
}

inline qwino_s8_dwconv_config dwconv(qwino_requantization_mode mode,
                                     qwino_dwconv_ukernel_fn ukernel) {
  static const ModeEntry<qwino_s8_dwconv_config> entries[] = {
#define QWINO_S8_DWCONV(isa, mode, fn, init_params, cr, layout, mac_cost) \
  {qwino_requantization_##mode, {fn, #fn, init_params, cr, qwino_dwconv_layout_##layout, mac_cost}},
#include "s8-dwconv/s8-dwconv.inc"
#undef QWINO_S8_DWCONV
  };
  return find_entry(entries, ukernel, mode);
}

}  // namespace configs
}  // namespace qwino

#endif  // QWINO_CONFIGS_LIST_ENTRIES_H_
