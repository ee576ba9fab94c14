/*
 * Winograd F(2x2,3x3) output transform + bias + requantization, portable C: the reference for
 * every SIMD twin.
 *
 * Y = A^T M A with A^T = [1 1 1 0; 0 1 -1 -1]. The kernel was transformed with G' = 2G, so Y is
 * exactly 4 x the direct accumulator, modulo 2^32 (doc/DESIGN.md section 2); the operator only
 * takes this path when the direct accumulator is below 2^29 in magnitude, so Y fits int32 and
 * Y >> 2 is exact. The bias add wraps like TFLite's int32 add. One body serves both
 * requantization modes (qwino/requantization.h).
 */
#include "qwino/requantization.h"
#include "qwino/ukernels.h"

static inline void output_transform(size_t channels, const int32_t* m, size_t m_position_stride,
                                    const int32_t* channel_params, uint8_t* output,
                                    size_t output_row_stride, size_t output_pixel_stride,
                                    size_t rows, size_t columns,
                                    const union qwino_qu8_requantization_params* params,
                                    enum qwino_requantization_mode mode) {
  for (size_t c = 0; c < channels; c++) {
    uint32_t s[4][4];
    for (size_t p = 0; p < 16; p++) {
      s[p / 4][p % 4] = (uint32_t)m[p * m_position_stride + c];
    }
    uint32_t t[2][4]; /* A^T M: combine rows */
    for (size_t j = 0; j < 4; j++) {
      t[0][j] = s[0][j] + s[1][j] + s[2][j];
      t[1][j] = s[1][j] - s[2][j] - s[3][j];
    }
    for (size_t y = 0; y < rows; y++) {
      /* (A^T M) A: combine columns */
      const uint32_t outputs[2] = {t[y][0] + t[y][1] + t[y][2], t[y][1] - t[y][2] - t[y][3]};
      for (size_t x = 0; x < columns; x++) {
        const int32_t accumulator =
            qwino_wrapping_add_s32((int32_t)outputs[x] >> 2, channel_params[c]);
        output[y * output_row_stride + x * output_pixel_stride + c] =
            qwino_requantize_channel(accumulator, channel_params, c, params, mode);
      }
    }
  }
}

#define QWINO_F23_OUTPUT_ENTRY(mode)                                                              \
  void qwino_qu8_winograd_f2x2_output_##mode##_ukernel__scalar(                                   \
      size_t channels, const int32_t* m, size_t m_position_stride, const int32_t* channel_params, \
      uint8_t* output, size_t output_row_stride, size_t output_pixel_stride, size_t rows,         \
      size_t columns, const union qwino_qu8_requantization_params* params) {                      \
    output_transform(channels, m, m_position_stride, channel_params, output, output_row_stride,   \
                     output_pixel_stride, rows, columns, params, qwino_requantization_##mode);    \
  }
QWINO_F23_OUTPUT_ENTRY(gemmlowp)
QWINO_F23_OUTPUT_ENTRY(fp32)
