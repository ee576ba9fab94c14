/*
 * Declarations of every micro-kernel, expanded from the family lists (src/<family>/<family>.inc).
 * Names follow XNNPACK's convention:
 *   qwino_<data types>_<operation>[_<requantization mode>]_ukernel[_<tile>]__<isa>[_<technique>]
 */
#ifndef QWINO_UKERNELS_H_
#define QWINO_UKERNELS_H_

#include "qwino/common.h"
#include "qwino/ukernel-types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QWINO_DECLARE_INPUT_TRANSFORM(fn_name)                                         \
  void fn_name(size_t channels, const uint8_t* const* input, uint8_t input_zero_point, \
               uint8_t input_sign, int16_t* output, size_t output_position_stride);
#define QWINO_DECLARE_GEMM(fn_name)                                               \
  void fn_name(size_t mr, size_t nr, size_t k, const int16_t* a, size_t a_stride, \
               const int16_t* packed_b, int32_t* c, size_t c_stride);
#define QWINO_DECLARE_IGEMM(fn_name)                                                         \
  void fn_name(size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t* const* a,          \
               size_t a_offset, const uint8_t* zero, uint8_t a_sign, const int8_t* packed_b, \
               int32_t* c, size_t c_stride);
#define QWINO_DECLARE_IRSUM(fn_name)                                                        \
  void fn_name(size_t rows, size_t kc, size_t ks, const uint8_t* const* a, size_t a_offset, \
               const uint8_t* zero, uint8_t a_sign, int32_t* sums);
/* Also the parameter list the kernels' definitions use. */
#define QWINO_IGEMM_REQUANTIZE_PARAMETERS                                                         \
  size_t mr, size_t nc, size_t kc, size_t ks, const uint8_t *const *a, size_t a_offset,           \
      const uint8_t *zero, uint8_t a_sign, const int8_t *packed_b, const int32_t *channel_params, \
      const int32_t *row_terms, uint8_t *output, size_t output_stride,                            \
      const union qwino_qu8_requantization_params *params
#define QWINO_DECLARE_IGEMM_REQUANTIZE(fn_name) void fn_name(QWINO_IGEMM_REQUANTIZE_PARAMETERS);
/* Also the parameter list the kernels' definitions use. */
#define QWINO_GEMM_REQUANTIZE_PARAMETERS                                                      \
  size_t mr, size_t nc, size_t kc, const uint8_t *a, size_t a_stride, const int8_t *packed_b, \
      const int32_t *channel_params, const int32_t *row_terms, uint8_t *output,               \
      size_t output_stride, const union qwino_qu8_requantization_params *params
#define QWINO_DECLARE_GEMM_REQUANTIZE(fn_name) void fn_name(QWINO_GEMM_REQUANTIZE_PARAMETERS);
/* Also the parameter list the kernels' definitions use. */
#define QWINO_DWCONV_PARAMETERS                                                                 \
  size_t channels, size_t pixels, size_t taps, const uint8_t *const *input,                     \
      size_t input_pixel_step, size_t input_offset, uint8_t a_sign, const void *packed_weights, \
      const int32_t *channel_params, uint8_t *output, size_t output_pixel_stride,               \
      const union qwino_qu8_requantization_params *params
#define QWINO_DECLARE_DWCONV(fn_name) void fn_name(QWINO_DWCONV_PARAMETERS);
#define QWINO_DECLARE_F23_OUTPUT_TRANSFORM(fn_name)                                      \
  void fn_name(size_t channels, const int32_t* m, size_t m_position_stride,              \
               const int32_t* channel_params, uint8_t* output, size_t output_row_stride, \
               size_t output_pixel_stride, size_t rows, size_t columns,                  \
               const union qwino_qu8_requantization_params* params);
#define QWINO_DECLARE_F43_OUTPUT_TRANSFORM(fn_name)                                               \
  void fn_name(size_t channels, size_t blocks, const int32_t* m, size_t m_position_stride,        \
               size_t m_block_stride, const int32_t* channel_params, uint8_t* output,             \
               size_t output_row_stride, size_t output_pixel_stride, size_t rows, size_t columns, \
               const union qwino_qu8_requantization_params* params);
#define QWINO_DECLARE_REQUANTIZE(fn_name)                                                 \
  void fn_name(size_t pixels, size_t channels, const int32_t* accumulators,               \
               size_t accumulator_stride, const int32_t* channel_params, uint8_t* output, \
               size_t output_stride, const union qwino_qu8_requantization_params* params);

#define QWINO_S16_GEMM(isa, ukernel, mr, nr, kr, k_padding, mac_cost) QWINO_DECLARE_GEMM(ukernel)
#include "s16-gemm/s16-gemm.inc"
#undef QWINO_S16_GEMM

#define QWINO_S8_IGEMM(isa, ukernel, mr, nr, kr, a_bias, b_bias, b_min, k_step, mac_cost, \
                       tile_cost)                                                         \
  QWINO_DECLARE_IGEMM(ukernel)
#include "s8-igemm/s8-igemm.inc"
#undef QWINO_S8_IGEMM

#define QWINO_U8S8_GEMM(isa, ukernel, mr, mac_cost)                                      \
  void ukernel(size_t mr_, size_t nr, size_t blocks, const uint8_t* a, size_t a_stride,  \
               const struct qwino_pair_block* block, uint8_t sign, const void* packed_b, \
               int32_t* c, size_t c_stride);
#include "u8s8-gemm/u8s8-gemm.inc"
#undef QWINO_U8S8_GEMM

#define QWINO_S8_IRSUM(isa, ukernel) QWINO_DECLARE_IRSUM(ukernel)
#include "s8-irsum/s8-irsum.inc"
#undef QWINO_S8_IRSUM

#define QWINO_QU8_IGEMM(isa, mode, ukernel, mr, nr, kr, a_bias, b_bias, b_min, row_blocks, \
                        resident_row_bytes, init_params)                                   \
  QWINO_DECLARE_IGEMM_REQUANTIZE(ukernel)
#include "qu8-igemm/qu8-igemm.inc"
#undef QWINO_QU8_IGEMM

#define QWINO_QU8_GEMM(isa, mode, ukernel, mr, nr, kr, a_bias, b_bias, b_min, k_block, \
                       init_params)                                                    \
  QWINO_DECLARE_GEMM_REQUANTIZE(ukernel)
#include "qu8-gemm/qu8-gemm.inc"
#undef QWINO_QU8_GEMM

#define QWINO_S8_DWCONV(isa, mode, ukernel, init_params, cr, layout, mac_cost) \
  QWINO_DECLARE_DWCONV(ukernel)
#include "s8-dwconv/s8-dwconv.inc"
#undef QWINO_S8_DWCONV

#define QWINO_QU8_WINOGRAD_F2X2_INPUT(isa, ukernel, value_cost) \
  QWINO_DECLARE_INPUT_TRANSFORM(ukernel)
#include "qu8-winograd-f2x2-input/qu8-winograd-f2x2-input.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_INPUT

#define QWINO_QU8_WINOGRAD_F4X4_INPUT(isa, ukernel, value_cost) \
  QWINO_DECLARE_INPUT_TRANSFORM(ukernel)
#include "qu8-winograd-f4x4-input/qu8-winograd-f4x4-input.inc"
#undef QWINO_QU8_WINOGRAD_F4X4_INPUT

#define QWINO_QU8_WINOGRAD_F2X2_OUTPUT(isa, mode, ukernel, init_params, value_cost) \
  QWINO_DECLARE_F23_OUTPUT_TRANSFORM(ukernel)
#include "qu8-winograd-f2x2-output/qu8-winograd-f2x2-output.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_OUTPUT

#define QWINO_QU8_WINOGRAD_F4X4_OUTPUT(isa, mode, ukernel, init_params, value_cost) \
  QWINO_DECLARE_F43_OUTPUT_TRANSFORM(ukernel)
#include "qu8-winograd-f4x4-output/qu8-winograd-f4x4-output.inc"
#undef QWINO_QU8_WINOGRAD_F4X4_OUTPUT

#define QWINO_S32_QU8_REQUANTIZE(isa, mode, ukernel, init_params, value_cost) \
  QWINO_DECLARE_REQUANTIZE(ukernel)
#include "s32-qu8-requantize/s32-qu8-requantize.inc"
#undef QWINO_S32_QU8_REQUANTIZE

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QWINO_UKERNELS_H_ */
