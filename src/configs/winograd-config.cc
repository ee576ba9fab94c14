// The Winograd transforms' and the requantize pass's choice per CPU (see configs.h).
#include "configs/configs.h"
#include "configs/list-entries.h"

namespace qwino {
namespace configs {
namespace {

// One ISA's transforms and requantize pass, per requantization mode where they have one.
struct WinogradKernels {
  qwino_input_transform_ukernel_fn f23_input;
  qwino_f23_output_transform_ukernel_fn f23_output_gemmlowp, f23_output_fp32;
  qwino_input_transform_ukernel_fn f43_input;
  qwino_f43_output_transform_ukernel_fn f43_output_gemmlowp, f43_output_fp32;
  qwino_requantize_ukernel_fn requantize_gemmlowp, requantize_fp32;
};

void set_winograd(const WinogradKernels& w, qwino_kernel_configs* k) {
  k->f23_input = f23_input(w.f23_input);
  k->f43_input = f43_input(w.f43_input);
  set_modes(k->f23_output, f23_output, w.f23_output_gemmlowp, w.f23_output_fp32);
  set_modes(k->f43_output, f43_output, w.f43_output_gemmlowp, w.f43_output_fp32);
  set_modes(k->requantize, requantize, w.requantize_gemmlowp, w.requantize_fp32);
}

}  // namespace

void choose_winograd_kernels(const qwino_hardware_config& hardware, qwino_kernel_configs* k) {
  const bool* has = hardware.available;
  set_winograd({qwino_qu8_winograd_f2x2_input_ukernel__scalar,
                qwino_qu8_winograd_f2x2_output_gemmlowp_ukernel__scalar,
                qwino_qu8_winograd_f2x2_output_fp32_ukernel__scalar,
                qwino_qu8_winograd_f4x4_input_ukernel__scalar,
                qwino_qu8_winograd_f4x4_output_gemmlowp_ukernel__scalar,
                qwino_qu8_winograd_f4x4_output_fp32_ukernel__scalar,
                qwino_s32_qu8_requantize_gemmlowp_ukernel__scalar,
                qwino_s32_qu8_requantize_fp32_ukernel__scalar},
               k);
#if QWINO_ARCH_ARM64
  if (has[qwino_isa_neon]) {
    set_winograd({qwino_qu8_winograd_f2x2_input_ukernel__neon,
                  qwino_qu8_winograd_f2x2_output_gemmlowp_ukernel__neon,
                  qwino_qu8_winograd_f2x2_output_fp32_ukernel__neon,
                  qwino_qu8_winograd_f4x4_input_ukernel__neon,
                  qwino_qu8_winograd_f4x4_output_gemmlowp_ukernel__neon,
                  qwino_qu8_winograd_f4x4_output_fp32_ukernel__neon,
                  qwino_s32_qu8_requantize_gemmlowp_ukernel__neon,
                  qwino_s32_qu8_requantize_fp32_ukernel__neon},
                 k);
  }
#endif
#if QWINO_ARCH_X86_64
  // SSE4.1 has no F(4x4,3x3) transforms: an SSE4.1-only CPU runs the scalar ones.
  if (has[qwino_isa_sse41]) {
    set_winograd({qwino_qu8_winograd_f2x2_input_ukernel__sse41,
                  qwino_qu8_winograd_f2x2_output_gemmlowp_ukernel__sse41,
                  qwino_qu8_winograd_f2x2_output_fp32_ukernel__sse41,
                  qwino_qu8_winograd_f4x4_input_ukernel__scalar,
                  qwino_qu8_winograd_f4x4_output_gemmlowp_ukernel__scalar,
                  qwino_qu8_winograd_f4x4_output_fp32_ukernel__scalar,
                  qwino_s32_qu8_requantize_gemmlowp_ukernel__sse41,
                  qwino_s32_qu8_requantize_fp32_ukernel__sse41},
                 k);
  }
  if (has[qwino_isa_avx2]) {
    set_winograd({qwino_qu8_winograd_f2x2_input_ukernel__avx2,
                  qwino_qu8_winograd_f2x2_output_gemmlowp_ukernel__avx2,
                  qwino_qu8_winograd_f2x2_output_fp32_ukernel__avx2,
                  qwino_qu8_winograd_f4x4_input_ukernel__avx2,
                  qwino_qu8_winograd_f4x4_output_gemmlowp_ukernel__avx2,
                  qwino_qu8_winograd_f4x4_output_fp32_ukernel__avx2,
                  qwino_s32_qu8_requantize_gemmlowp_ukernel__avx2,
                  qwino_s32_qu8_requantize_fp32_ukernel__avx2},
                 k);
  }
  if (has[qwino_isa_avx512skx]) {
    set_winograd({qwino_qu8_winograd_f2x2_input_ukernel__avx512skx,
                  qwino_qu8_winograd_f2x2_output_gemmlowp_ukernel__avx512skx,
                  qwino_qu8_winograd_f2x2_output_fp32_ukernel__avx512skx,
                  qwino_qu8_winograd_f4x4_input_ukernel__avx512skx,
                  qwino_qu8_winograd_f4x4_output_gemmlowp_ukernel__avx512skx,
                  qwino_qu8_winograd_f4x4_output_fp32_ukernel__avx512skx,
                  qwino_s32_qu8_requantize_gemmlowp_ukernel__avx512skx,
                  qwino_s32_qu8_requantize_fp32_ukernel__avx512skx},
                 k);
  }
#endif
  (void)has;
}

}  // namespace configs
}  // namespace qwino
