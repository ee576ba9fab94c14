// Per-CPU kernel choice, one function per family group, each naming the kernel a CPU runs in each
// role of its families (the roles are the fields of qwino_kernel_configs, src/qwino/dispatch.h).
// The lists (src/<family>/<family>.inc) hold every kernel, scalar twins included, and what each
// is; these files hold the policy, so a new list line changes nothing that runs until a config
// names it, and test/init.cc's kernels_chosen_per_cpu_model (test/init-cpu-models.inc) shows and
// checks the whole choice per CPU model. A CPU's choice is a pure function of the hardware config
// (its available ISAs, capped by QWINO_ISA, and its micro-architecture).
#ifndef QWINO_CONFIGS_CONFIGS_H_
#define QWINO_CONFIGS_CONFIGS_H_

#include "qwino/dispatch.h"

namespace qwino {
namespace configs {

// The int16 GEMM, the 8-bit indirect GEMM in its roles (every layer; uint8 activations where a
// CPU multiplies them unflipped; each with its fused requantization per mode) and its row sums.
void choose_gemm_kernels(const qwino_hardware_config& hardware, qwino_kernel_configs* kernels);
// The Winograd input and output transforms and the requantize pass.
void choose_winograd_kernels(const qwino_hardware_config& hardware, qwino_kernel_configs* kernels);
// The depthwise kernels: every layer's, and those for 3-row and 5-row kernels.
void choose_dwconv_kernels(const qwino_hardware_config& hardware, qwino_kernel_configs* kernels);

// Sets a per-mode role from one kernel per mode, each looked up in its list under that mode.
template <typename Config, typename Lookup, typename Fn>
void set_modes(Config (&role)[qwino_requantization_mode_count], Lookup lookup, Fn gemmlowp,
               Fn fp32) {
  role[qwino_requantization_gemmlowp] = lookup(qwino_requantization_gemmlowp, gemmlowp);
  role[qwino_requantization_fp32] = lookup(qwino_requantization_fp32, fp32);
}

}  // namespace configs
}  // namespace qwino

#endif  // QWINO_CONFIGS_CONFIGS_H_
