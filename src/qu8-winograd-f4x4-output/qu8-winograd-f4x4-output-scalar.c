/*
 * Winograd F(4x4,3x3) output transform + block sum + bias + requantization, portable C: the
 * reference for every SIMD twin.
 *
 * Per input-channel block b: Y_b = Ã^T M_b Ã with
 *   Ã^T = A^T diag(6,4,4,1,1,24) = [6 4  4 1  1  0]
 *                                  [0 4 -4 2 -2  0]
 *                                  [0 4  4 4  4  0]
 *                                  [0 4 -4 8 -8 24]
 * The kernel was transformed with G'' (G scaled by 4, 6, 6, 24, 24, 1 per row), so Y_b is exactly
 * 576 = 64 * 9 times the block's direct partial accumulator r_b, modulo 2^32 (doc/DESIGN.md
 * section 2). 64 divides both, so (Y_b >> 6) = 9 r_b modulo 2^26, and r_b modulo 2^26 is that
 * times 9^-1 mod 2^26; the operator keeps |r_b| < 2^25, so sign-extending from 26 bits gives r_b
 * itself. The partials, the bias and the requantization then wrap like TFLite's int32 arithmetic.
 * All of it is uint32_t arithmetic (signed overflow would be undefined). The kernel is defined
 * for every int32 M, not only for genuine Winograd products. One body serves both
 * requantization modes (qwino/requantization.h).
 */
#include "qwino/requantization.h"
#include "qwino/ukernels.h"

/* 9^-1 modulo 2^26. */
#define QWINO_F43_INVERSE_OF_9 UINT32_C(0xE38E39)
_Static_assert(((9 * QWINO_F43_INVERSE_OF_9) & ((UINT32_C(1) << 26) - 1)) == 1,
               "9 * 9^-1 must be 1 modulo 2^26");

/* y = Ã^T x for one column (or, transposed, one row) of six values, modulo 2^32. */
static inline void transform6(const uint32_t x[6], uint32_t y[4]) {
  const uint32_t s1 = x[1] + x[2], d1 = x[1] - x[2];
  const uint32_t s2 = x[3] + x[4], d2 = x[3] - x[4];
  y[0] = 6 * x[0] + 4 * s1 + s2;
  y[1] = 4 * d1 + 2 * d2;
  y[2] = 4 * s1 + 4 * s2;
  y[3] = 4 * d1 + 8 * d2 + 24 * x[5];
}

/* The exact partial accumulator from Y = 576 x partial (modulo 2^32), |partial| < 2^25. */
static inline int32_t recover(uint32_t y) {
  const uint32_t residue = ((y >> 6) * QWINO_F43_INVERSE_OF_9) & ((UINT32_C(1) << 26) - 1);
  /* Sign-extend from 26 bits without implementation-defined conversions. */
  return (int32_t)(residue ^ (UINT32_C(1) << 25)) - (INT32_C(1) << 25);
}

static inline void output_transform(size_t channels, size_t blocks, const int32_t* m,
                                    size_t m_position_stride, size_t m_block_stride,
                                    const int32_t* channel_params, uint8_t* output,
                                    size_t output_row_stride, size_t output_pixel_stride,
                                    size_t rows, size_t columns,
                                    const union qwino_qu8_requantization_params* params,
                                    enum qwino_requantization_mode mode) {
  for (size_t c = 0; c < channels; c++) {
    int32_t accumulator[4][4];
    for (size_t y = 0; y < 4; y++) {
      for (size_t x = 0; x < 4; x++) {
        accumulator[y][x] = channel_params[c];
      }
    }
    for (size_t b = 0; b < blocks; b++) {
      const int32_t* mb = m + b * m_block_stride + c;
      uint32_t t[6][4]; /* t[j] = Ã^T times column j of M_b */
      for (size_t j = 0; j < 6; j++) {
        uint32_t column[6];
        for (size_t i = 0; i < 6; i++) {
          column[i] = (uint32_t)mb[(i * 6 + j) * m_position_stride];
        }
        transform6(column, t[j]);
      }
      for (size_t y = 0; y < 4; y++) { /* Y = (Ã^T M_b) Ã: row y of Ã^T M_b, transformed */
        uint32_t row[6], out[4];
        for (size_t j = 0; j < 6; j++) {
          row[j] = t[j][y];
        }
        transform6(row, out);
        for (size_t x = 0; x < 4; x++) {
          accumulator[y][x] = qwino_wrapping_add_s32(accumulator[y][x], recover(out[x]));
        }
      }
    }
    for (size_t y = 0; y < rows; y++) {
      for (size_t x = 0; x < columns; x++) {
        output[y * output_row_stride + x * output_pixel_stride + c] =
            qwino_requantize_channel(accumulator[y][x], channel_params, c, params, mode);
      }
    }
  }
}

#define QWINO_F43_OUTPUT_ENTRY(mode)                                                         \
  void qwino_qu8_winograd_f4x4_output_##mode##_ukernel__scalar(                              \
      size_t channels, size_t blocks, const int32_t* m, size_t m_position_stride,            \
      size_t m_block_stride, const int32_t* channel_params, uint8_t* output,                 \
      size_t output_row_stride, size_t output_pixel_stride, size_t rows, size_t columns,     \
      const union qwino_qu8_requantization_params* params) {                                 \
    output_transform(channels, blocks, m, m_position_stride, m_block_stride, channel_params, \
                     output, output_row_stride, output_pixel_stride, rows, columns, params,  \
                     qwino_requantization_##mode);                                           \
  }
QWINO_F43_OUTPUT_ENTRY(gemmlowp)
QWINO_F43_OUTPUT_ENTRY(fp32)
