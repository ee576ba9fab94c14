/*
 * Winograd F(2x2,3x3) input transform, portable C: the reference every SIMD twin must match.
 *
 * For one 4x4 tile and each channel: d = (x ^ input_sign) - input_zero_point (int16 range), then
 * V = B^T d B with B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]. Every output is a sum of at
 * most four +-d terms, so |V| <= 4 * 255 and int16 holds it exactly.
 */
#include "qwino/ukernels.h"

void qwino_qu8_winograd_f2x2_input_ukernel__scalar(size_t channels, const uint8_t* const* input,
                                                   uint8_t input_zero_point, uint8_t input_sign,
                                                   int16_t* output, size_t output_position_stride) {
  for (size_t c = 0; c < channels; c++) {
    int32_t d[4][4];
    for (size_t p = 0; p < 16; p++) {
      d[p / 4][p % 4] = (int32_t)(uint8_t)(input[p][c] ^ input_sign) - (int32_t)input_zero_point;
    }
    int32_t t[4][4]; /* B^T d: combine rows */
    for (size_t j = 0; j < 4; j++) {
      t[0][j] = d[0][j] - d[2][j];
      t[1][j] = d[1][j] + d[2][j];
      t[2][j] = d[2][j] - d[1][j];
      t[3][j] = d[1][j] - d[3][j];
    }
    for (size_t i = 0; i < 4; i++) { /* (B^T d) B: combine columns */
      int16_t* v = output + i * 4 * output_position_stride + c;
      v[0 * output_position_stride] = (int16_t)(t[i][0] - t[i][2]);
      v[1 * output_position_stride] = (int16_t)(t[i][1] + t[i][2]);
      v[2 * output_position_stride] = (int16_t)(t[i][2] - t[i][1]);
      v[3 * output_position_stride] = (int16_t)(t[i][1] - t[i][3]);
    }
  }
}
