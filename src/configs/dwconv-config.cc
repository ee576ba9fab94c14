// The depthwise kernels' choice per CPU (see configs.h). Three roles per mode: `dwconv` runs
// every layer; `dwconv_col3` and `dwconv_col5`, where a CPU has them, run the layers of 3-row and
// 5-row kernels whose weights fit their layouts (src/convolution-depthwise.cc). A CPU level that
// names a new `dwconv` names its column kernels too, so a stronger ISA's kernel for every layer
// never sits beside a weaker ISA's column kernels.
#include "configs/configs.h"
#include "configs/list-entries.h"

namespace qwino {
namespace configs {

void choose_dwconv_kernels(const qwino_hardware_config& hardware, qwino_kernel_configs* k) {
  const bool* has = hardware.available;
  using Fn = qwino_dwconv_ukernel_fn;
  // The scalar CPU takes the int16 tap pairs, the portable loop that multiplies fewest times; it
  // has no column kernels (the roles stay as qwino_choose_kernels value-initialised them).
  set_modes(k->dwconv, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up8__scalar_madd),
            Fn(qwino_s8_dwconv_fp32_ukernel_up8__scalar_madd));
#if QWINO_ARCH_ARM64
  if (has[qwino_isa_neon]) {
    set_modes(k->dwconv, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up16__neon_mlal),
              Fn(qwino_s8_dwconv_fp32_ukernel_up16__neon_mlal));
    set_modes(k->dwconv_col3, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up16__neon_col3),
              Fn(qwino_s8_dwconv_fp32_ukernel_up16__neon_col3));
    set_modes(k->dwconv_col5, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up16__neon_col5),
              Fn(qwino_s8_dwconv_fp32_ukernel_up16__neon_col5));
  }
  // Dot-product cores have SDOT kernels for the column layouts only; other layers keep the NEON
  // kernel.
  if (has[qwino_isa_neondot]) {
    set_modes(k->dwconv_col3, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up8__neondot_col3),
              Fn(qwino_s8_dwconv_fp32_ukernel_up8__neondot_col3));
    set_modes(k->dwconv_col5, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up8__neondot_col5),
              Fn(qwino_s8_dwconv_fp32_ukernel_up8__neondot_col5));
  }
#endif
#if QWINO_ARCH_X86_64
  if (has[qwino_isa_sse41]) {
    set_modes(k->dwconv, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up8__sse41_madd),
              Fn(qwino_s8_dwconv_fp32_ukernel_up8__sse41_madd));
  }
  if (has[qwino_isa_avx2]) {
    set_modes(k->dwconv, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up32__avx2_madd),
              Fn(qwino_s8_dwconv_fp32_ukernel_up32__avx2_madd));
  }
  if (has[qwino_isa_avxvnni]) {
    set_modes(k->dwconv, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up32__avxvnni_dpwssd),
              Fn(qwino_s8_dwconv_fp32_ukernel_up32__avxvnni_dpwssd));
  }
  if (has[qwino_isa_avx512vnni]) {
    set_modes(k->dwconv, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up64__avx512vnni_dpwssd),
              Fn(qwino_s8_dwconv_fp32_ukernel_up64__avx512vnni_dpwssd));
    set_modes(k->dwconv_col3, dwconv, Fn(qwino_s8_dwconv_gemmlowp_ukernel_up16__avx512vnni_col3),
              Fn(qwino_s8_dwconv_fp32_ukernel_up16__avx512vnni_col3));
  }
#endif
  (void)has;
}

}  // namespace configs
}  // namespace qwino
