/*
 * Winograd F(4x4,3x3) input transform, portable C: the reference every SIMD twin must match.
 *
 * For one 6x6 tile and each channel: d = (x ^ input_sign) - input_zero_point (int16 range),
 * then V = B^T d B with
 *   B^T = [4  0 -5  0 1 0]
 *         [0 -4 -4  1 1 0]
 *         [0  4 -4 -1 1 0]
 *         [0 -2 -1  2 1 0]
 *         [0  2 -1 -2 1 0]
 *         [0  4  0 -5 0 1]
 * (doc/DESIGN.md section 2; G'' and Ã^T of the kernel and output transforms go with it). Every row
 * of B^T has absolute sum <= 10, so |B^T d| <= 10 * 255 and |V| <= 100 * 255 = 25500: int16 holds V
 * exactly. The rows are evaluated with the usual common subexpressions (a +- b pairs), in int32.
 */
#include "qwino/ukernels.h"

/* y = B^T x for one column (or, transposed, one row) of six values. */
static inline void transform6(const int32_t x[6], int32_t y[6]) {
  const int32_t a = x[4] - 4 * x[2];
  const int32_t b = x[3] - 4 * x[1];
  const int32_t c = x[4] - x[2];
  const int32_t e = 2 * (x[3] - x[1]);
  y[0] = 4 * x[0] - 5 * x[2] + x[4];
  y[1] = a + b;
  y[2] = a - b;
  y[3] = c + e;
  y[4] = c - e;
  y[5] = 4 * x[1] - 5 * x[3] + x[5];
}

void qwino_qu8_winograd_f4x4_input_ukernel__scalar(size_t channels, const uint8_t* const* input,
                                                   uint8_t input_zero_point, uint8_t input_sign,
                                                   int16_t* output, size_t output_position_stride) {
  for (size_t c = 0; c < channels; c++) {
    int32_t t[6][6]; /* t = B^T d, column by column: t[j] holds column j */
    for (size_t j = 0; j < 6; j++) {
      int32_t column[6];
      for (size_t i = 0; i < 6; i++) {
        column[i] =
            (int32_t)(uint8_t)(input[i * 6 + j][c] ^ input_sign) - (int32_t)input_zero_point;
      }
      transform6(column, t[j]);
    }
    for (size_t i = 0; i < 6; i++) { /* V = (B^T d) B: row i of B^T d, transformed */
      int32_t row[6], v[6];
      for (size_t j = 0; j < 6; j++) {
        row[j] = t[j][i];
      }
      transform6(row, v);
      for (size_t j = 0; j < 6; j++) {
        output[(i * 6 + j) * output_position_stride + c] = (int16_t)v[j];
      }
    }
  }
}
