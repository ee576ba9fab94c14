/*
 * Winograd F(2x2,3x3) input transform, SSE4.1: bit-exact twin of
 * src/qu8-winograd-f2x2-input/qu8-winograd-f2x2-input-scalar.c, for x86-64 CPUs without AVX2.
 *
 * Channels sit in lanes (doc/DESIGN.md section 3): one xmm holds one tile position of 8 channels as
 * int16, so B^T x B is 32 vector adds/subs with no transposes.
 * The 8-bit type costs nothing: for uint8 the bytes are widened unsigned (PMOVZXBW) and z is
 * input_zero_point; for int8 (input_sign 0x80) they are widened signed (PMOVSXBW), which is the
 * view's byte ^ 0x80 minus 128, and z = (int8_t) (input_zero_point ^ 0x80) = input_zero_point -
 * 128, so x - z is the scalar kernel's d = (byte ^ 0x80) - input_zero_point.
 * The zero point is not subtracted per input: B^T (x - z) B = B^T x B - z (B^T 1)(B^T 1)^T, and
 * the row sums of B^T are (0, 2, 0, 0), so only position (1, 1) changes, by -4z. Every
 * intermediate is exact in int16 (|B^T x B| <= 4 * 255 and |4z| <= 4 * 255), so the result
 * equals the scalar kernel's for every input.
 *
 * The channel tail (< 8) must not read past `channels` bytes of any input pointer: it is staged
 * through stack buffers, in and out.
 */
#include <smmintrin.h>
#include <string.h>

#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* B^T x B for 8 channels; x[0..15] row-major (widened to int16), result in v[0..15],
 * with position (1, 1) corrected by -4z. */
QWINO_INLINE void transform8(const __m128i x[16], __m128i vzp4, __m128i v[16]) {
  __m128i t[16];
  for (int j = 0; j < 4; j++) { /* B^T x: combine rows */
    t[0 * 4 + j] = _mm_sub_epi16(x[0 * 4 + j], x[2 * 4 + j]);
    t[1 * 4 + j] = _mm_add_epi16(x[1 * 4 + j], x[2 * 4 + j]);
    t[2 * 4 + j] = _mm_sub_epi16(x[2 * 4 + j], x[1 * 4 + j]);
    t[3 * 4 + j] = _mm_sub_epi16(x[1 * 4 + j], x[3 * 4 + j]);
  }
  for (int i = 0; i < 4; i++) { /* (B^T x) B: combine columns */
    v[i * 4 + 0] = _mm_sub_epi16(t[i * 4 + 0], t[i * 4 + 2]);
    v[i * 4 + 1] = _mm_add_epi16(t[i * 4 + 1], t[i * 4 + 2]);
    v[i * 4 + 2] = _mm_sub_epi16(t[i * 4 + 2], t[i * 4 + 1]);
    v[i * 4 + 3] = _mm_sub_epi16(t[i * 4 + 1], t[i * 4 + 3]);
  }
  v[5] = _mm_sub_epi16(v[5], vzp4);
}

/* 8 bytes at p widened to int16, as the 8-bit type says (`is_signed` is a constant). */
QWINO_INLINE __m128i widen8(const uint8_t* p, int is_signed) {
  const __m128i bytes = _mm_loadl_epi64((const __m128i*)p);
  return is_signed ? _mm_cvtepi8_epi16(bytes) : _mm_cvtepu8_epi16(bytes);
}

QWINO_INLINE void input_transform(size_t channels, const uint8_t* const* input,
                                  uint8_t input_zero_point, int16_t* output,
                                  size_t output_position_stride, int is_signed) {
  const int z = is_signed ? (int8_t)(input_zero_point ^ 0x80) : input_zero_point;
  const __m128i vzp4 = _mm_set1_epi16((int16_t)(4 * z));
  const uint8_t* in[16];
  for (int p = 0; p < 16; p++) {
    in[p] = input[p];
  }
  size_t c = 0;
  for (; c + 8 <= channels; c += 8) {
    __m128i x[16];
    for (int p = 0; p < 16; p++) {
      x[p] = widen8(in[p] + c, is_signed);
    }
    __m128i v[16];
    transform8(x, vzp4, v);
    for (int p = 0; p < 16; p++) {
      _mm_storeu_si128((__m128i*)(output + p * output_position_stride + c), v[p]);
    }
  }
  if (c < channels) {
    const size_t tail = channels - c;
    uint8_t buffer[16][8];
    __m128i x[16];
    for (int p = 0; p < 16; p++) {
      memcpy(buffer[p], in[p] + c, tail);
      memset(buffer[p] + tail, 0, 8 - tail);
      x[p] = widen8(buffer[p], is_signed);
    }
    __m128i v[16];
    transform8(x, vzp4, v);
    int16_t result[8];
    for (int p = 0; p < 16; p++) {
      _mm_storeu_si128((__m128i*)result, v[p]);
      memcpy(output + p * output_position_stride + c, result, tail * sizeof(int16_t));
    }
  }
}

void qwino_qu8_winograd_f2x2_input_ukernel__sse41(size_t channels, const uint8_t* const* input,
                                                  uint8_t input_zero_point, uint8_t input_sign,
                                                  int16_t* output, size_t output_position_stride) {
  if (input_sign != 0) {
    input_transform(channels, input, input_zero_point, output, output_position_stride, 1);
  } else {
    input_transform(channels, input, input_zero_point, output, output_position_stride, 0);
  }
}
