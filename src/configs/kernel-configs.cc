// qwino_choose_kernels: every family's kernel for a hardware config (src/configs/configs.h).
#include "configs/configs.h"

extern "C" qwino_kernel_configs qwino_choose_kernels(const qwino_hardware_config* hardware) {
  qwino_kernel_configs kernels{};
  kernels.isa_name = hardware->level_name;
  qwino::configs::choose_gemm_kernels(*hardware, &kernels);
  qwino::configs::choose_winograd_kernels(*hardware, &kernels);
  qwino::configs::choose_dwconv_kernels(*hardware, &kernels);
  return kernels;
}
