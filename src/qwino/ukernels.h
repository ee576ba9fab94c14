/*
 * Declarations of every micro-kernel, by ISA. Names follow XNNPACK's convention:
 * qwino_<operation>_ukernel_<tile>__<isa>.
 */
#ifndef QWINO_UKERNELS_H_
#define QWINO_UKERNELS_H_

#include "qwino/ukernel-types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QWINO_DECLARE_INPUT_TRANSFORM(fn_name)                                            \
  void fn_name(size_t channels, const uint8_t* const* input, uint8_t input_zero_point,       \
               int16_t* output, size_t output_position_stride);
#define QWINO_DECLARE_GEMM(fn_name)                                                           \
  void fn_name(size_t mr, size_t nr, size_t k, const int16_t* a, size_t a_stride,            \
               const int16_t* packed_b, int32_t* c, size_t c_stride);
#define QWINO_DECLARE_F23_OUTPUT_TRANSFORM(fn_name)                                           \
  void fn_name(size_t channels, const int32_t* m, size_t m_position_stride,                  \
               const int32_t* bias, uint8_t* output, size_t output_row_stride,               \
               size_t output_pixel_stride, size_t rows, size_t columns,                      \
               const struct qwino_requantization_params* params);
#define QWINO_DECLARE_F43_OUTPUT_TRANSFORM(fn_name)                                           \
  void fn_name(size_t channels, size_t blocks, const int32_t* m, size_t m_position_stride,   \
               size_t m_block_stride, const int32_t* bias, uint8_t* output,                  \
               size_t output_row_stride, size_t output_pixel_stride, size_t rows,            \
               size_t columns, const struct qwino_requantization_params* params);
#define QWINO_DECLARE_REQUANTIZE(fn_name)                                                     \
  void fn_name(size_t pixels, size_t channels, const int32_t* accumulators,                  \
               size_t accumulator_stride, const int32_t* bias, uint8_t* output,              \
               size_t output_stride, const struct qwino_requantization_params* params);

QWINO_DECLARE_INPUT_TRANSFORM(qwino_f23_input_transform_ukernel__scalar)
QWINO_DECLARE_GEMM(qwino_gemm_ukernel_8x8__scalar)
QWINO_DECLARE_F23_OUTPUT_TRANSFORM(qwino_f23_output_transform_ukernel__scalar)
QWINO_DECLARE_INPUT_TRANSFORM(qwino_f43_input_transform_ukernel__scalar)
QWINO_DECLARE_F43_OUTPUT_TRANSFORM(qwino_f43_output_transform_ukernel__scalar)
QWINO_DECLARE_REQUANTIZE(qwino_requantize_ukernel__scalar)

#if defined(__aarch64__)
QWINO_DECLARE_INPUT_TRANSFORM(qwino_f23_input_transform_ukernel__neon)
QWINO_DECLARE_GEMM(qwino_gemm_ukernel_8x8__neon)
QWINO_DECLARE_F23_OUTPUT_TRANSFORM(qwino_f23_output_transform_ukernel__neon)
QWINO_DECLARE_INPUT_TRANSFORM(qwino_f43_input_transform_ukernel__neon)
QWINO_DECLARE_F43_OUTPUT_TRANSFORM(qwino_f43_output_transform_ukernel__neon)
QWINO_DECLARE_REQUANTIZE(qwino_requantize_ukernel__neon)
#endif

#if defined(__x86_64__)
QWINO_DECLARE_INPUT_TRANSFORM(qwino_f23_input_transform_ukernel__sse41)
QWINO_DECLARE_GEMM(qwino_gemm_ukernel_4x8c2__sse41)
QWINO_DECLARE_F23_OUTPUT_TRANSFORM(qwino_f23_output_transform_ukernel__sse41)
QWINO_DECLARE_INPUT_TRANSFORM(qwino_f23_input_transform_ukernel__avx2)
QWINO_DECLARE_GEMM(qwino_gemm_ukernel_4x16c2__avx2)
QWINO_DECLARE_F23_OUTPUT_TRANSFORM(qwino_f23_output_transform_ukernel__avx2)
QWINO_DECLARE_INPUT_TRANSFORM(qwino_f43_input_transform_ukernel__avx2)
QWINO_DECLARE_F43_OUTPUT_TRANSFORM(qwino_f43_output_transform_ukernel__avx2)
QWINO_DECLARE_INPUT_TRANSFORM(qwino_f23_input_transform_ukernel__avx512skx)
QWINO_DECLARE_GEMM(qwino_gemm_ukernel_8x32c2__avx512vnni)
QWINO_DECLARE_F23_OUTPUT_TRANSFORM(qwino_f23_output_transform_ukernel__avx512skx)
QWINO_DECLARE_INPUT_TRANSFORM(qwino_f43_input_transform_ukernel__avx512skx)
QWINO_DECLARE_F43_OUTPUT_TRANSFORM(qwino_f43_output_transform_ukernel__avx512skx)
QWINO_DECLARE_REQUANTIZE(qwino_requantize_ukernel__sse41)
QWINO_DECLARE_REQUANTIZE(qwino_requantize_ukernel__avx2)
QWINO_DECLARE_REQUANTIZE(qwino_requantize_ukernel__avx512skx)
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QWINO_UKERNELS_H_ */
