/*
 * Winograd F(4x4,3x3) input transform, AVX2: bit-exact twin of
 * src/qu8-winograd-f4x4-input/qu8-winograd-f4x4-input-scalar.c, so that x86 CPUs without AVX-512
 * can run F(4x4,3x3) at SIMD speed (with the scalar transform the operator's cost model chose
 * F(4x4,3x3) and ran slower than F(2x2,3x3)).
 *
 * Channels sit in lanes (doc/DESIGN.md section 3): one ymm holds one tile position of 16 channels
 * as int16 (VPMOVZXBW from 16 bytes; VPMOVSXBW for int8, see below), and V = B^T d B is two
 * passes of the 6-point transform
 * y = B^T x (first over each row of the tile: t = d B, then over the columns of t) with no
 * transposes and no multiplies (4x is a shift, 5x is folded into differences):
 *   f = x3 - x1, c = x4 - x2, a = x4 - 4 x2, b = x3 - 4 x1,
 *   y0 = c + 4 (x0 - x2), y1 = a + b, y2 = a - b, y3 = c + 2f, y4 = c - 2f,
 *   y5 = (x5 - x3) - 4f                                    (17 instructions per pass).
 * Everything is exact in int16 lanes: every row of B^T has absolute sum <= 10, so
 * |d B| <= 10 * 255 and |V| <= 100 * 255, and add/sub/shift wrap modulo 2^16 anyway.
 *
 * The zero point is not subtracted pixel by pixel (as in the NEON kernel): rows 0 and 2..5 of
 * B^T sum to zero and row 1 sums to -6, so B^T (x - z) B = B^T x B - 36 z at position (1,1)
 * only. The passes work on the raw bytes (|B^T x B| <= 100 * 255 as well) and one subtraction
 * (modulo 2^16; the true V(1,1) fits int16) fixes position (1,1).
 * The value of a byte is (byte ^ input_sign) - input_zero_point: uint8 (input_sign 0) widens the
 * bytes unsigned with z = input_zero_point; int8 (input_sign 0x80) widens them signed,
 * (int8_t) byte = (byte ^ 0x80) - 128, with z = (int8_t) (input_zero_point ^ 0x80) =
 * input_zero_point - 128, so x - z is the same integer and |x| <= 128 keeps the bounds above.
 * One body, specialised on the type at compile time: int8 costs what uint8 costs.
 *
 * The second pass follows the NEON kernel's schedule, by tile rows, so that fewer vectors are
 * live than the 36 of a plain two-pass order: rows 2 and 0 leave t2 and u = 4 t0 - 5 t2, row 4
 * then gives V row 0 = t4 + u and leaves a, c per column; rows 1 and 3 give V rows 1..4
 * (stored column by column as soon as they are known) and leave h = t3 + 4f; row 5 gives V
 * row 5. With 16 ymm registers some of the ~24 live vectors still spill, but spills are stores
 * and reloads, and the load/store ports have room next to the ~205 add/sub/shift per 16
 * channels and tile.
 *
 * The channel tail (< 16) must not read past `channels` bytes of any input pointer (a pointer
 * may be the last pixel of the tensor or the operator's zero row): it is staged through stack
 * buffers, in and out.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* t = B^T x over the six pixels x0..x5 of one tile row (or over six first-pass results). */
QWINO_INLINE void transform6(__m256i x0, __m256i x1, __m256i x2, __m256i x3, __m256i x4, __m256i x5,
                             __m256i t[6]) {
  const __m256i f = _mm256_sub_epi16(x3, x1);
  const __m256i c = _mm256_sub_epi16(x4, x2);
  const __m256i a = _mm256_sub_epi16(x4, _mm256_slli_epi16(x2, 2));
  const __m256i b = _mm256_sub_epi16(x3, _mm256_slli_epi16(x1, 2));
  const __m256i e = _mm256_add_epi16(f, f);
  t[0] = _mm256_add_epi16(c, _mm256_slli_epi16(_mm256_sub_epi16(x0, x2), 2));
  t[1] = _mm256_add_epi16(a, b);
  t[2] = _mm256_sub_epi16(a, b);
  t[3] = _mm256_add_epi16(c, e);
  t[4] = _mm256_sub_epi16(c, e);
  t[5] = _mm256_sub_epi16(_mm256_sub_epi16(x5, x3), _mm256_slli_epi16(f, 2));
}

/* 16 bytes widened to int16: unsigned for uint8, signed for int8. */
QWINO_INLINE __m256i load16(const uint8_t* p, int is_signed) {
  const __m128i bytes = _mm_loadu_si128((const __m128i*)p);
  return is_signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
}

/* First pass over tile row i: input[p] + offset are the 16 bytes of pixel p. */
QWINO_INLINE void row_transform(const uint8_t* const* input, size_t offset, int is_signed, int i,
                                __m256i t[6]) {
  const uint8_t* const* row = input + i * 6;
  transform6(load16(row[0] + offset, is_signed), load16(row[1] + offset, is_signed),
             load16(row[2] + offset, is_signed), load16(row[3] + offset, is_signed),
             load16(row[4] + offset, is_signed), load16(row[5] + offset, is_signed), t);
}

/* p[position * stride] = v. */
QWINO_INLINE void store_at(int16_t* p, size_t position, size_t stride, __m256i v) {
  _mm256_storeu_si256((__m256i*)(p + position * stride), v);
}

/* *p = v, then p += stride elements. */
QWINO_INLINE void store_next(int16_t** p, size_t stride, __m256i v) {
  _mm256_storeu_si256((__m256i*)*p, v);
  *p += stride;
}

/* One tile of 16 channels; positions 0..35 of V go to output, output + stride, ... */
QWINO_INLINE void tile16(const uint8_t* const* input, size_t offset, int is_signed,
                         __m256i zero_point36, int16_t* output, size_t stride) {
  __m256i a[6], c[6], h[6]; /* per column k of the first pass */
  {
    /* Rows 2 and 0 first leave u = 4 t0 - 5 t2 and t2; row 4 then gives V row 0 = t4 + u and
     * a, c (12 live vectors between the rows instead of 18). */
    __m256i t0[6], t2[6], t4[6], u[6];
    row_transform(input, offset, is_signed, 2, t2);
    row_transform(input, offset, is_signed, 0, t0);
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      u[k] = _mm256_sub_epi16(_mm256_slli_epi16(_mm256_sub_epi16(t0[k], t2[k]), 2), t2[k]);
    }
    row_transform(input, offset, is_signed, 4, t4);
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      a[k] = _mm256_sub_epi16(t4[k], _mm256_slli_epi16(t2[k], 2));
      c[k] = _mm256_sub_epi16(t4[k], t2[k]);
      store_next(&output, stride, _mm256_add_epi16(t4[k], u[k])); /* V(0, k) */
    }
  }
  {
    __m256i t1[6], t3[6];
    row_transform(input, offset, is_signed, 1, t1);
    row_transform(input, offset, is_signed, 3, t3);
    /* V(1 + l, k) at output + (6 l + k) * stride: each column k is stored as soon as it is
     * known (four live vectors instead of 24). */
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      const __m256i b = _mm256_sub_epi16(t3[k], _mm256_slli_epi16(t1[k], 2));
      const __m256i f = _mm256_sub_epi16(t3[k], t1[k]);
      h[k] = _mm256_add_epi16(t3[k], _mm256_slli_epi16(f, 2));
      const __m256i e = _mm256_add_epi16(f, f);
      __m256i v1 = _mm256_add_epi16(a[k], b);
      if (k == 1) {
        v1 = _mm256_sub_epi16(v1, zero_point36); /* V(1, 1) */
      }
      store_at(output, 0, stride, v1);
      store_at(output, 6, stride, _mm256_sub_epi16(a[k], b));
      store_at(output, 12, stride, _mm256_add_epi16(c[k], e));
      store_at(output, 18, stride, _mm256_sub_epi16(c[k], e));
      output += stride;
    }
    output += 18 * stride;
  }
  {
    __m256i t5[6];
    row_transform(input, offset, is_signed, 5, t5);
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      store_next(&output, stride, _mm256_sub_epi16(t5[k], h[k])); /* V(5, k) */
    }
  }
}

QWINO_INLINE void input_transform(size_t channels, const uint8_t* const* input, int32_t zero_point,
                                  int is_signed, int16_t* output, size_t output_position_stride) {
  /* 36 z modulo 2^16: the true V(1,1) fits int16, so the wrapped subtraction is exact. */
  const __m256i zero_point36 = _mm256_set1_epi16((int16_t)(36 * zero_point));
  size_t c = 0;
  for (; c + 16 <= channels; c += 16) {
    tile16(input, c, is_signed, zero_point36, output + c, output_position_stride);
  }
  if (c < channels) {
    const size_t tail = channels - c;
    /* Lanes past the tail hold 0 (any value would do: lanes are independent). */
    uint8_t buffer[36][16];
    const uint8_t* pointers[36];
    memset(buffer, 0, sizeof(buffer));
    for (int p = 0; p < 36; p++) {
      memcpy(buffer[p], input[p] + c, tail);
      pointers[p] = buffer[p];
    }
    int16_t v[36][16];
    tile16(pointers, 0, is_signed, zero_point36, &v[0][0], 16);
    for (int p = 0; p < 36; p++) {
      memcpy(output + p * output_position_stride + c, v[p], tail * sizeof(int16_t));
    }
  }
}

void qwino_qu8_winograd_f4x4_input_ukernel__avx2(size_t channels, const uint8_t* const* input,
                                                 uint8_t input_zero_point, uint8_t input_sign,
                                                 int16_t* output, size_t output_position_stride) {
  if (input_sign == 0) {
    input_transform(channels, input, input_zero_point, 0, output, output_position_stride);
  } else {
    input_transform(channels, input, (int8_t)(input_zero_point ^ 0x80), 1, output,
                    output_position_stride);
  }
}
