/*
 * Winograd F(2x2,3x3) input transform, AVX-512 (F + BW + VL): bit-exact twin of
 * src/qu8-winograd-f2x2-input/qu8-winograd-f2x2-input-scalar.c.
 *
 * Channels sit in lanes (doc/DESIGN.md section 3): one zmm holds one tile position of 32 channels
 * as int16 (VPMOVZXBW from 32 bytes), so B^T x B is 32 vector adds/subs with no transposes.
 * The zero point is not subtracted per input: B^T (x - z) B = B^T x B - z (B^T 1)(B^T 1)^T, and
 * the row sums of B^T are (0, 2, 0, 0), so only position (1, 1) changes, by -4z. Every
 * intermediate is exact in int16 (|B^T x B| <= 4 * 255, and position (1, 1) is a sum of four
 * bytes minus 4z), so the result equals the scalar kernel's for every input.
 *
 * The channel tail (< 32) uses masked loads and stores (fault-suppressing), so exactly
 * `channels` bytes are read per input pointer and `channels` values written per position.
 */
#include <immintrin.h>

#include "qwino/ukernels.h"

/* B^T x B for 32 channels; x[0..15] row-major (uint8 widened to int16), result in v[0..15],
 * with position (1, 1) corrected by -4z. */
static inline void transform32(const __m512i x[16], __m512i vzp4, __m512i v[16]) {
  __m512i t[16];
  for (int j = 0; j < 4; j++) { /* B^T x: combine rows */
    t[0 * 4 + j] = _mm512_sub_epi16(x[0 * 4 + j], x[2 * 4 + j]);
    t[1 * 4 + j] = _mm512_add_epi16(x[1 * 4 + j], x[2 * 4 + j]);
    t[2 * 4 + j] = _mm512_sub_epi16(x[2 * 4 + j], x[1 * 4 + j]);
    t[3 * 4 + j] = _mm512_sub_epi16(x[1 * 4 + j], x[3 * 4 + j]);
  }
  for (int i = 0; i < 4; i++) { /* (B^T x) B: combine columns */
    v[i * 4 + 0] = _mm512_sub_epi16(t[i * 4 + 0], t[i * 4 + 2]);
    v[i * 4 + 1] = _mm512_add_epi16(t[i * 4 + 1], t[i * 4 + 2]);
    v[i * 4 + 2] = _mm512_sub_epi16(t[i * 4 + 2], t[i * 4 + 1]);
    v[i * 4 + 3] = _mm512_sub_epi16(t[i * 4 + 1], t[i * 4 + 3]);
  }
  v[5] = _mm512_sub_epi16(v[5], vzp4);
}

void qwino_qu8_winograd_f2x2_input_ukernel__avx512skx(
    size_t channels, const uint8_t* const* input, uint8_t input_zero_point,
    int16_t* output, size_t output_position_stride) {
  const __m512i vzp4 = _mm512_set1_epi16((int16_t) (4 * input_zero_point));
  const uint8_t* in[16];
  for (int p = 0; p < 16; p++) {
    in[p] = input[p];
  }
  size_t c = 0;
  for (; c + 32 <= channels; c += 32) {
    __m512i x[16];
    for (int p = 0; p < 16; p++) {
      x[p] = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i*) (in[p] + c)));
    }
    __m512i v[16];
    transform32(x, vzp4, v);
    for (int p = 0; p < 16; p++) {
      _mm512_storeu_si512(output + p * output_position_stride + c, v[p]);
    }
  }
  if (c < channels) {
    const __mmask32 mask = (__mmask32) ((UINT32_C(1) << (channels - c)) - 1);
    __m512i x[16];
    for (int p = 0; p < 16; p++) {
      x[p] = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(mask, in[p] + c));
    }
    __m512i v[16];
    transform32(x, vzp4, v);
    for (int p = 0; p < 16; p++) {
      _mm512_mask_storeu_epi16(output + p * output_position_stride + c, mask, v[p]);
    }
  }
}
