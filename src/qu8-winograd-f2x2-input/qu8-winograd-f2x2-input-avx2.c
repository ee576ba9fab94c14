/*
 * Winograd F(2x2,3x3) input transform, AVX2: bit-exact twin of
 * src/qu8-winograd-f2x2-input/qu8-winograd-f2x2-input-scalar.c.
 *
 * Channels sit in lanes (doc/DESIGN.md section 3): one ymm holds one tile position of 16 channels
 * as int16, so B^T x B is 32 vector adds/subs with no transposes. The value of a byte is
 * (byte ^ input_sign) - input_zero_point: for uint8 (input_sign 0) x is the byte widened with
 * VPMOVZXBW and z = input_zero_point; for int8 (input_sign 0x80) x is the byte widened with
 * VPMOVSXBW, (int8_t) byte = (byte ^ 0x80) - 128, and z = (int8_t) (input_zero_point ^ 0x80) =
 * input_zero_point - 128, so x - z is the same integer: one body, specialised on the type at
 * compile time, and int8 costs what uint8 costs. The zero point is not subtracted per input:
 * B^T (x - z) B = B^T x B - z (B^T 1)(B^T 1)^T, and the row sums of B^T are (0, 2, 0, 0), so
 * only position (1, 1) changes, by -4z. Every intermediate is exact in int16 (|B^T x B| <=
 * 4 * 255), so the result equals the scalar kernel's for every input.
 *
 * The channel tail (< 16) must not read past `channels` bytes of any input pointer (a pointer
 * may be the last pixel of the tensor or the operator's zero row): it is staged through stack
 * buffers, in and out.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* B^T x B for 16 channels; x[0..15] row-major (bytes widened to int16), result in v[0..15],
 * with position (1, 1) corrected by -4z. */
QWINO_INLINE void transform16(const __m256i x[16], __m256i vzp4, __m256i v[16]) {
  __m256i t[16];
  for (int j = 0; j < 4; j++) { /* B^T x: combine rows */
    t[0 * 4 + j] = _mm256_sub_epi16(x[0 * 4 + j], x[2 * 4 + j]);
    t[1 * 4 + j] = _mm256_add_epi16(x[1 * 4 + j], x[2 * 4 + j]);
    t[2 * 4 + j] = _mm256_sub_epi16(x[2 * 4 + j], x[1 * 4 + j]);
    t[3 * 4 + j] = _mm256_sub_epi16(x[1 * 4 + j], x[3 * 4 + j]);
  }
  for (int i = 0; i < 4; i++) { /* (B^T x) B: combine columns */
    v[i * 4 + 0] = _mm256_sub_epi16(t[i * 4 + 0], t[i * 4 + 2]);
    v[i * 4 + 1] = _mm256_add_epi16(t[i * 4 + 1], t[i * 4 + 2]);
    v[i * 4 + 2] = _mm256_sub_epi16(t[i * 4 + 2], t[i * 4 + 1]);
    v[i * 4 + 3] = _mm256_sub_epi16(t[i * 4 + 1], t[i * 4 + 3]);
  }
  v[5] = _mm256_sub_epi16(v[5], vzp4);
}

/* 16 bytes widened to int16: unsigned for uint8, signed for int8 (see above). */
QWINO_INLINE __m256i widen16(__m128i bytes, int is_signed) {
  return is_signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
}

QWINO_INLINE void input_transform(size_t channels, const uint8_t* const* input, int32_t zero_point,
                                  int is_signed, int16_t* output, size_t output_position_stride) {
  const __m256i vzp4 = _mm256_set1_epi16((int16_t)(4 * zero_point));
  const uint8_t* in[16];
  for (int p = 0; p < 16; p++) {
    in[p] = input[p];
  }
  size_t c = 0;
  for (; c + 16 <= channels; c += 16) {
    __m256i x[16];
    for (int p = 0; p < 16; p++) {
      x[p] = widen16(_mm_loadu_si128((const __m128i*)(in[p] + c)), is_signed);
    }
    __m256i v[16];
    transform16(x, vzp4, v);
    for (int p = 0; p < 16; p++) {
      _mm256_storeu_si256((__m256i*)(output + p * output_position_stride + c), v[p]);
    }
  }
  if (c < channels) {
    const size_t tail = channels - c;
    uint8_t buffer[16][16];
    __m256i x[16];
    for (int p = 0; p < 16; p++) {
      memcpy(buffer[p], in[p] + c, tail);
      memset(buffer[p] + tail, 0, 16 - tail);
      x[p] = widen16(_mm_loadu_si128((const __m128i*)buffer[p]), is_signed);
    }
    __m256i v[16];
    transform16(x, vzp4, v);
    int16_t result[16];
    for (int p = 0; p < 16; p++) {
      _mm256_storeu_si256((__m256i*)result, v[p]);
      memcpy(output + p * output_position_stride + c, result, tail * sizeof(int16_t));
    }
  }
}

void qwino_qu8_winograd_f2x2_input_ukernel__avx2(size_t channels, const uint8_t* const* input,
                                                 uint8_t input_zero_point, uint8_t input_sign,
                                                 int16_t* output, size_t output_position_stride) {
  if (input_sign == 0) {
    input_transform(channels, input, input_zero_point, 0, output, output_position_stride);
  } else {
    input_transform(channels, input, (int8_t)(input_zero_point ^ 0x80), 1, output,
                    output_position_stride);
  }
}
