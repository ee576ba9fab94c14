/*
 * The kernel table: which micro-kernels this process runs. qwino_initialize() fills it once from
 * cpuinfo (or QWINO_ISA); operators copy the entries they need at create time, so an operator
 * keeps running the kernels its packed weights were made for.
 */
#ifndef QWINO_DISPATCH_H_
#define QWINO_DISPATCH_H_

#include <stdbool.h>

#include "qwino/ukernel-types.h"

#ifdef __cplusplus
extern "C" {
#endif

struct qwino_kernel_table {
  const char* isa_name;
  qwino_input_transform_ukernel_fn f23_input_transform;
  qwino_gemm_ukernel_fn gemm;
  qwino_f23_output_transform_ukernel_fn f23_output_transform;
  /* Tile of the GEMM kernel: rows (tiles), columns (output channels), and the k interleave of
   * its packed B (see qwino_gemm_ukernel_fn). */
  unsigned gemm_mr;
  unsigned gemm_nr;
  unsigned gemm_kr;
  /* F(4x4,3x3) transforms, or NULL where a table has none: the operator then never picks
   * F(4x4,3x3). */
  qwino_input_transform_ukernel_fn f43_input_transform;
  qwino_f43_output_transform_ukernel_fn f43_output_transform;
  /* Bias + requantization of GEMM accumulators (the direct path's output stage); every table
   * has one. */
  qwino_requantize_ukernel_fn requantize;
};

struct qwino_hardware {
  bool has_arm_neon_dot; /* recorded for algorithm choice: SDOT makes direct int8 cheaper */
};

/* Both return NULL before qwino_initialize() succeeded. */
const struct qwino_kernel_table* qwino_kernels(void);
const struct qwino_hardware* qwino_hardware_info(void);

/* The table of one kernel set by name ("scalar", "neon"), or NULL if this build lacks it. */
const struct qwino_kernel_table* qwino_kernel_table_for_isa(const char* isa_name);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QWINO_DISPATCH_H_ */
