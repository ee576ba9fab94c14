/*
 * Kernel configs: which micro-kernel of each family this process runs.
 *
 * qwino_initialize() computes the hardware facts once (cpuinfo, capped by QWINO_ISA), then the
 * configs (src/configs/) name each role's kernel for them: a family's list
 * (src/<family>/<family>.inc) says what each kernel is, a config which one a CPU runs. So a CPU
 * with AVX-512 but no VNNI runs the AVX-512 transforms with the AVX2 GEMM, and a new ISA level is
 * new lines in the families that have a kernel for it plus the configs' choice of them.
 * Operators copy the configs at create, so an operator keeps running the kernels its packed
 * weights were made for.
 */
#ifndef QWINO_DISPATCH_H_
#define QWINO_DISPATCH_H_

#include <stdbool.h>
#include <stdint.h>

#include "qwino/microparams.h"
#include "qwino/ukernel-types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a kernel needs, as its list entry names it (without the prefix). */
enum qwino_isa {
  qwino_isa_scalar,
  qwino_isa_neon,
  qwino_isa_neondot,  /* ARMv8.2 SDOT/UDOT */
  qwino_isa_neoni8mm, /* ARMv8.6 SMMLA/UMMLA */
  qwino_isa_sse41,
  qwino_isa_avx2,
  qwino_isa_avx512skx,  /* AVX-512 F, BW, VL */
  qwino_isa_avx512vnni, /* avx512skx + VNNI */
  qwino_isa_avxvnni,    /* AVX2 + AVX-VNNI (VEX-encoded VPDPBUSD, VPDPWSSD) */
  qwino_isa_amx,        /* avx512vnni + AMX-TILE and AMX-INT8, tile data granted by the OS */
  qwino_isa_count
};

/* The hardware facts, computed once by qwino_initialize. */
struct qwino_hardware_config {
  /* The ISAs the CPU has, as cpuinfo reports them. */
  bool detected[qwino_isa_count];
  /* The ISAs kernels may use: detected, minus what QWINO_ISA caps away. */
  bool available[qwino_isa_count];
  /* The cap: "scalar", "neon", "neondot", "neoni8mm", "sse41", "avx2", "avxvnni", "avx512", "amx",
   * the highest level the CPU has when QWINO_ISA is not set. */
  const char* level_name;
  /* cpuinfo's enum cpuinfo_uarch of the first core: for choices that differ between cores of
   * one ISA level (none is measured yet; the i8mm cores are the first candidates). */
  uint32_t uarch;
};

struct qwino_s16_gemm_config {
  qwino_gemm_ukernel_fn ukernel;
  const char* name;
  uint32_t mr, nr, kr, k_padding; /* see src/s16-gemm/s16-gemm.inc */
  float mac_cost;
};
struct qwino_s8_igemm_config {
  qwino_igemm_ukernel_fn ukernel;
  const char* name;
  uint32_t mr, nr, kr, a_bias, b_bias; /* see src/s8-igemm/s8-igemm.inc */
  int32_t b_min;
  uint32_t k_step;
  float mac_cost, tile_cost;
};
/* ukernel NULL: the CPU has none (see src/u8s8-gemm/u8s8-gemm.inc). */
struct qwino_u8s8_gemm_config {
  qwino_u8s8_gemm_ukernel_fn ukernel;
  const char* name;
  uint32_t mr;
  float mac_cost;
};
/* ukernel NULL: none fits the operator's s8-igemm kernel (see src/qu8-igemm/qu8-igemm.inc). */
struct qwino_qu8_igemm_config {
  qwino_igemm_requantize_ukernel_fn ukernel;
  const char* name;
  qwino_init_qu8_requantization_params_fn init_params;
  uint32_t row_blocks;         /* see src/qu8-igemm/qu8-igemm.inc */
  uint32_t resident_row_bytes; /* see src/qu8-igemm/qu8-igemm.inc */
};
/* ukernel NULL: none fits the operator's matrix kernel (see src/qu8-gemm/qu8-gemm.inc). */
struct qwino_qu8_gemm_config {
  qwino_gemm_requantize_ukernel_fn ukernel;
  const char* name;
  qwino_init_qu8_requantization_params_fn init_params;
  uint32_t k_block; /* see src/qu8-gemm/qu8-gemm.inc */
};
/* Row sums of the indirect GEMM's A (see src/s8-irsum/s8-irsum.inc). */
struct qwino_s8_irsum_config {
  qwino_irsum_ukernel_fn ukernel;
  const char* name;
};
struct qwino_s8_dwconv_config {
  qwino_dwconv_ukernel_fn ukernel;
  const char* name;
  qwino_init_qu8_requantization_params_fn init_params;
  uint32_t cr; /* see src/s8-dwconv/s8-dwconv.inc */
  enum qwino_dwconv_layout layout;
  float mac_cost;
};
struct qwino_winograd_input_config {
  qwino_input_transform_ukernel_fn ukernel;
  const char* name;
  float value_cost; /* see the input-transform lists */
};
struct qwino_f23_output_config {
  qwino_f23_output_transform_ukernel_fn ukernel;
  const char* name;
  qwino_init_qu8_requantization_params_fn init_params;
  float value_cost;
};
struct qwino_f43_output_config {
  qwino_f43_output_transform_ukernel_fn ukernel;
  const char* name;
  qwino_init_qu8_requantization_params_fn init_params;
  float value_cost;
};
struct qwino_requantize_config {
  qwino_requantize_ukernel_fn ukernel;
  const char* name;
  qwino_init_qu8_requantization_params_fn init_params;
  float value_cost;
};

struct qwino_kernel_configs {
  const char* isa_name; /* the hardware config's level_name */
  struct qwino_s16_gemm_config gemm;
  /* The direct path's 8-bit GEMM on proven pairs, where the CPU's 8-bit multiply saturates its
   * pair sums (AVX2 without VNNI) and so the int16 GEMM is the alternative (ukernel NULL
   * elsewhere); a layer takes it where its int8 weights allow (src/convolution-direct.cc). */
  struct qwino_u8s8_gemm_config pair_gemm;
  struct qwino_s8_igemm_config igemm;
  /* The igemm kernel with the requantization fused, per mode, where one exists. */
  struct qwino_qu8_igemm_config igemm_requantize[qwino_requantization_mode_count];
  /* The kernels for uint8 activations (b_bias 128, see src/s8-igemm/s8-igemm.inc), where the CPU
   * has them (ukernel NULL otherwise), and their fused forms. */
  struct qwino_s8_igemm_config igemm_uint8;
  struct qwino_qu8_igemm_config igemm_uint8_requantize[qwino_requantization_mode_count];
  /* The kernels for int8 activations (a_bias 0, b_bias 128: VPDPBUSD with the weights as its
   * unsigned operand, no XOR of A), likewise. */
  struct qwino_s8_igemm_config igemm_int8;
  struct qwino_qu8_igemm_config igemm_int8_requantize[qwino_requantization_mode_count];
  /* The kernels on a matrix unit (AMX tiles), where the CPU has one, and their fused forms:
   * a layer takes them where the cost model puts them below the vector kernels. */
  struct qwino_s8_igemm_config igemm_matrix;
  struct qwino_qu8_igemm_config igemm_matrix_requantize[qwino_requantization_mode_count];
  /* The matrix kernels' fused form on the rows the indirect convolution gathers, per mode, which
   * a layer that takes the matrix kernels runs on gathered rows (ukernel NULL: none). */
  struct qwino_qu8_gemm_config matrix_rows_requantize[qwino_requantization_mode_count];
  struct qwino_s8_irsum_config irsum;
  struct qwino_winograd_input_config f23_input;
  /* The output families per requantization mode (enum qwino_requantization_mode). */
  struct qwino_f23_output_config f23_output[qwino_requantization_mode_count];
  struct qwino_winograd_input_config f43_input;
  struct qwino_f43_output_config f43_output[qwino_requantization_mode_count];
  struct qwino_requantize_config requantize[qwino_requantization_mode_count];
  struct qwino_s8_dwconv_config dwconv[qwino_requantization_mode_count];
  /* Depthwise kernels for the layers of 3-row and 5-row kernels (the column layouts), per mode,
   * where the CPU has them (else ukernel is NULL). */
  struct qwino_s8_dwconv_config dwconv_col3[qwino_requantization_mode_count];
  struct qwino_s8_dwconv_config dwconv_col5[qwino_requantization_mode_count];
};

/*
 * Each family's kernel for a hardware config (src/configs/): a pure function of `hardware` (its
 * `available` ISAs, `level_name` and `uarch`; no cpuinfo, no global state). qwino_initialize calls
 * it with this CPU's config; test/init.cc calls it with those of CPU models the tests do not run
 * on.
 */
struct qwino_kernel_configs qwino_choose_kernels(const struct qwino_hardware_config* hardware);

/* Both return NULL before qwino_initialize() succeeded. */
const struct qwino_kernel_configs* qwino_kernels(void);
const struct qwino_hardware_config* qwino_hardware(void);

/*
 * Whether the CPU has an ISA (cpuinfo, ignoring QWINO_ISA): what the kernel tests check before
 * calling a kernel directly. Initialises cpuinfo if needed.
 */
bool qwino_isa_detected(enum qwino_isa isa);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QWINO_DISPATCH_H_ */
