// The GEMM families' choice per CPU (see configs.h): the int16 GEMM of the direct path and of
// Winograd's channel products, the 8-bit indirect GEMM and its row sums.
#include "configs/configs.h"
#include "configs/list-entries.h"

namespace qwino {
namespace configs {
namespace {

// An indirect GEMM role: the kernel and its fused forms, which read the panels its packing makes
// (a role's fused kernels are always replaced with its kernel; nullptr: none).
void set_igemm(qwino_s8_igemm_config* role,
               qwino_qu8_igemm_config (&fused)[qwino_requantization_mode_count],
               qwino_igemm_ukernel_fn ukernel, qwino_igemm_requantize_ukernel_fn gemmlowp,
               qwino_igemm_requantize_ukernel_fn fp32) {
  *role = igemm(ukernel);
  const qwino_s8_igemm_config tile = *role;
  set_modes(
      fused,
      [&tile](qwino_requantization_mode mode, qwino_igemm_requantize_ukernel_fn fn) {
        return fused_igemm(mode, fn, tile);
      },
      gemmlowp, fp32);
}

}  // namespace

void choose_gemm_kernels(const qwino_hardware_config& hardware, qwino_kernel_configs* k) {
  const bool* has = hardware.available;
  k->gemm = gemm(qwino_s16_gemm_ukernel_8x8__scalar);
  set_igemm(&k->igemm, k->igemm_requantize, qwino_s8_igemm_ukernel_4x4c16__scalar, nullptr,
            nullptr);
  k->irsum = irsum(qwino_s8_irsum_ukernel__scalar);
#if QWINO_ARCH_ARM64
  if (has[qwino_isa_neon]) {
    k->gemm = gemm(qwino_s16_gemm_ukernel_8x8__neon_mlal_lane);
    set_igemm(&k->igemm, k->igemm_requantize, qwino_s8_igemm_ukernel_2x8c16__neon_mlal,
              qwino_qu8_igemm_gemmlowp_ukernel_2x8c16__neon_mlal,
              qwino_qu8_igemm_fp32_ukernel_2x8c16__neon_mlal);
    k->irsum = irsum(qwino_s8_irsum_ukernel__neon);
  }
  if (has[qwino_isa_neondot]) {
    set_igemm(&k->igemm, k->igemm_requantize, qwino_s8_igemm_ukernel_4x16c4__neondot,
              qwino_qu8_igemm_gemmlowp_ukernel_4x16c4__neondot,
              qwino_qu8_igemm_fp32_ukernel_4x16c4__neondot);
    // UDOT multiplies uint8 activations without the XOR that SDOT needs (b_bias 128); the
    // operator takes it per layer where that pays (src/convolution-indirect.cc).
    set_igemm(&k->igemm_uint8, k->igemm_uint8_requantize,
              qwino_s8_igemm_abias128_bbias128_ukernel_4x16c4__neondot,
              qwino_qu8_igemm_abias128_bbias128_gemmlowp_ukernel_4x16c4__neondot,
              qwino_qu8_igemm_abias128_bbias128_fp32_ukernel_4x16c4__neondot);
    k->irsum = irsum(qwino_s8_irsum_ukernel__neondot);
  }
  // SMMLA does 32 MACs an instruction where SDOT does 16 (UMMLA for uint8 activations, as UDOT);
  // the row sums stay the SDOT ones.
  if (has[qwino_isa_neoni8mm]) {
    set_igemm(&k->igemm, k->igemm_requantize, qwino_s8_igemm_ukernel_4x16c8__neoni8mm,
              qwino_qu8_igemm_gemmlowp_ukernel_4x16c8__neoni8mm,
              qwino_qu8_igemm_fp32_ukernel_4x16c8__neoni8mm);
    set_igemm(&k->igemm_uint8, k->igemm_uint8_requantize,
              qwino_s8_igemm_abias128_bbias128_ukernel_4x16c8__neoni8mm,
              qwino_qu8_igemm_abias128_bbias128_gemmlowp_ukernel_4x16c8__neoni8mm,
              qwino_qu8_igemm_abias128_bbias128_fp32_ukernel_4x16c8__neoni8mm);
  }
#endif
#if QWINO_ARCH_X86_64
  if (has[qwino_isa_sse41]) {
    k->gemm = gemm(qwino_s16_gemm_ukernel_4x8c2__sse41);
    set_igemm(&k->igemm, k->igemm_requantize, qwino_s8_igemm_ukernel_6x8c2__sse41, nullptr,
              nullptr);
    k->irsum = irsum(qwino_s8_irsum_ukernel__sse41);
  }
  if (has[qwino_isa_avx2]) {
    k->gemm = gemm(qwino_s16_gemm_ukernel_4x16c2__avx2);
    set_igemm(&k->igemm, k->igemm_requantize, qwino_s8_igemm_ukernel_6x16c2__avx2, nullptr,
              nullptr);
    k->irsum = irsum(qwino_s8_irsum_ukernel__avx2);
    // VPMADDUBSW on proven pairs: 3 instructions for 32 MACs where VPMADDWD takes 4; VNNI's
    // VPDPWSSD takes 2, so the VNNI levels below drop it.
    k->pair_gemm = pair_gemm(qwino_u8s8_gemm_ukernel_4x16c16__avx2);
  }
  // AVX-VNNI without AVX-512 (Intel's client cores): VPDPWSSD for the int16 GEMM, and VPDPBUSD on
  // ymm, 8-bit multiplies where the AVX2 indirect GEMM widens to int16.
  if (has[qwino_isa_avxvnni]) {
    k->pair_gemm = {};
    k->gemm = gemm(qwino_s16_gemm_ukernel_4x16c2__avxvnni);
    set_igemm(&k->igemm, k->igemm_requantize, qwino_s8_igemm_abias128_ukernel_6x16c4__avxvnni,
              qwino_qu8_igemm_abias128_gemmlowp_ukernel_6x16c4__avxvnni,
              qwino_qu8_igemm_abias128_fp32_ukernel_6x16c4__avxvnni);
  }
  if (has[qwino_isa_avx512skx]) {
    k->irsum = irsum(qwino_s8_irsum_ukernel__avx512skx);
  }
  if (has[qwino_isa_avx512vnni]) {
    k->pair_gemm = {};
    k->gemm = gemm(qwino_s16_gemm_ukernel_8x32c2__avx512vnni);
    set_igemm(&k->igemm, k->igemm_requantize, qwino_s8_igemm_abias128_ukernel_6x64c4__avx512vnni,
              qwino_qu8_igemm_abias128_gemmlowp_ukernel_6x64c4__avx512vnni,
              qwino_qu8_igemm_abias128_fp32_ukernel_6x64c4__avx512vnni);
    // int8 activations as VPDPBUSD's signed operand and the weights, packed + 128, as its
    // unsigned one: no XOR per broadcast, for row sums (src/convolution-indirect.cc).
    set_igemm(&k->igemm_int8, k->igemm_int8_requantize,
              qwino_s8_igemm_bbias128_ukernel_6x64c4__avx512vnni,
              qwino_qu8_igemm_bbias128_gemmlowp_ukernel_6x64c4__avx512vnni,
              qwino_qu8_igemm_bbias128_fp32_ukernel_6x64c4__avx512vnni);
  }
  // AMX tiles: 16K multiply-adds a TDPBUSD, beside the VNNI kernels (the layer chooses,
  // src/convolution-indirect.cc). One kernel for both activation types: it copies its A rows
  // anyway, XOR included.
  if (has[qwino_isa_amx]) {
    set_igemm(&k->igemm_matrix, k->igemm_matrix_requantize,
              qwino_s8_igemm_abias128_ukernel_16x64c4__amx,
              qwino_qu8_igemm_abias128_gemmlowp_ukernel_16x64c4__amx,
              qwino_qu8_igemm_abias128_fp32_ukernel_16x64c4__amx);
    const qwino_s8_igemm_config tile = k->igemm_matrix;
    set_modes(
        k->matrix_rows_requantize,
        [&tile](qwino_requantization_mode mode, qwino_gemm_requantize_ukernel_fn fn) {
          return fused_gemm_rows(mode, fn, tile);
        },
        qwino_qu8_gemm_abias128_gemmlowp_ukernel_16x64c4__amx,
        qwino_qu8_gemm_abias128_fp32_ukernel_16x64c4__amx);
  }
#endif
  (void)has;
}

}  // namespace configs
}  // namespace qwino
