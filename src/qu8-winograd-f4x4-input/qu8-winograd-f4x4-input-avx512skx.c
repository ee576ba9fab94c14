/*
 * Winograd F(4x4,3x3) input transform, AVX-512 (F + BW + VL): bit-exact twin of
 * src/qu8-winograd-f4x4-input/qu8-winograd-f4x4-input-scalar.c, so that the AVX-512 kernel set runs
 * F(4x4,3x3) at SIMD speed (with the scalar transform the operator's cost model chose F(4x4,3x3)
 * and ran slower than F(2x2,3x3)).
 *
 * The arithmetic is the AVX2 kernel's (src/qu8-winograd-f4x4-input/qu8-winograd-f4x4-input-avx2.c)
 * at twice the width: one zmm holds one tile position of 32 channels as int16 (VPMOVZXBW from 32
 * bytes; VPMOVSXBW for int8, as in the AVX2 kernel), and V = B^T d B is two passes of the
 * 6-point transform y = B^T x (first over each row of the tile, then over the columns) with no
 * transposes and no multiplies:
 *   f = x3 - x1, c = x4 - x2, a = x4 - 4 x2, b = x3 - 4 x1,
 *   y0 = c + 4 (x0 - x2), y1 = a + b, y2 = a - b, y3 = c + 2f, y4 = c - 2f,
 *   y5 = (x5 - x3) - 4f                                    (17 instructions per pass).
 * Everything is exact in int16 lanes: every row of B^T has absolute sum <= 10, so
 * |d B| <= 10 * 255 and |V| <= 100 * 255, and add/sub/shift wrap modulo 2^16 anyway.
 *
 * The zero point is not subtracted pixel by pixel (as in the NEON kernel): rows 0 and 2..5 of
 * B^T sum to zero and row 1 sums to -6, so B^T (x - z) B = B^T x B - 36 z at position (1,1)
 * only. The passes work on the raw bytes (|B^T x B| <= 100 * 255 as well) and one subtraction
 * (modulo 2^16; the true V(1,1) fits int16) fixes position (1,1). int8 bytes are widened
 * signed with z = (int8_t) (input_zero_point ^ 0x80), which gives the same x - z (the AVX2
 * kernel's comment has the argument); one body, specialised on the type at compile time.
 *
 * The second pass follows the NEON kernel's schedule, by tile rows: rows 2 and 0 leave
 * t2 and u = 4 t0 - 5 t2, row 4 then gives V row 0 = t4 + u and leaves a, c per column; rows 1
 * and 3 give V rows 1..4 (stored column by column as soon as they are known) and leave
 * h = t3 + 4f; row 5 gives V row 5. At most about 24 vectors are live instead of the 36 of a
 * plain two-pass order, which fits the 32 zmm registers (GCC spills a few, and keeps some of
 * the 36 output addresses on the stack). Per 32 channels and tile: 36 loads, 205
 * add/sub/shift, 36 stores (timed: doc/PERFORMANCE.md, "Kernel measurements").
 *
 * The channel tail (< 32) uses masked loads and stores (fault-suppressing), so exactly
 * `channels` bytes are read per input pointer and `channels` values written per position.
 */
#include <immintrin.h>

#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* t = B^T x over the six pixels x0..x5 of one tile row (or over six first-pass results). */
QWINO_INLINE void transform6(__m512i x0, __m512i x1, __m512i x2, __m512i x3, __m512i x4, __m512i x5,
                             __m512i t[6]) {
  const __m512i f = _mm512_sub_epi16(x3, x1);
  const __m512i c = _mm512_sub_epi16(x4, x2);
  const __m512i a = _mm512_sub_epi16(x4, _mm512_slli_epi16(x2, 2));
  const __m512i b = _mm512_sub_epi16(x3, _mm512_slli_epi16(x1, 2));
  const __m512i e = _mm512_add_epi16(f, f);
  t[0] = _mm512_add_epi16(c, _mm512_slli_epi16(_mm512_sub_epi16(x0, x2), 2));
  t[1] = _mm512_add_epi16(a, b);
  t[2] = _mm512_sub_epi16(a, b);
  t[3] = _mm512_add_epi16(c, e);
  t[4] = _mm512_sub_epi16(c, e);
  t[5] = _mm512_sub_epi16(_mm512_sub_epi16(x5, x3), _mm512_slli_epi16(f, 2));
}

/* `mask` is the all-ones constant except in the channel tail: the full steps use plain loads
 * and stores. */
QWINO_INLINE __m512i load32(const uint8_t* p, __mmask32 mask, int is_signed) {
  const __m256i bytes = mask == (__mmask32)UINT32_C(0xFFFFFFFF)
                            ? _mm256_loadu_si256((const __m256i*)p)
                            : _mm256_maskz_loadu_epi8(mask, p);
  return is_signed ? _mm512_cvtepi8_epi16(bytes) : _mm512_cvtepu8_epi16(bytes);
}

/* First pass over tile row i: input[p] + offset are the 32 bytes of pixel p (the lanes of
 * `mask`; the others read as 0). */
QWINO_INLINE void row_transform(const uint8_t* const* input, size_t offset, __mmask32 mask,
                                int is_signed, int i, __m512i t[6]) {
  const uint8_t* const* row = input + i * 6;
  transform6(load32(row[0] + offset, mask, is_signed), load32(row[1] + offset, mask, is_signed),
             load32(row[2] + offset, mask, is_signed), load32(row[3] + offset, mask, is_signed),
             load32(row[4] + offset, mask, is_signed), load32(row[5] + offset, mask, is_signed), t);
}

/* p[position * stride] = v (the lanes of `mask`). */
QWINO_INLINE void store_at(int16_t* p, size_t position, size_t stride, __mmask32 mask, __m512i v) {
  p += position * stride;
  if (mask == (__mmask32)UINT32_C(0xFFFFFFFF)) {
    _mm512_storeu_si512(p, v);
  } else {
    _mm512_mask_storeu_epi16(p, mask, v);
  }
}

/* *p = v (the lanes of `mask`), then p += stride elements. */
QWINO_INLINE void store_next(int16_t** p, size_t stride, __mmask32 mask, __m512i v) {
  if (mask == (__mmask32)UINT32_C(0xFFFFFFFF)) {
    _mm512_storeu_si512(*p, v);
  } else {
    _mm512_mask_storeu_epi16(*p, mask, v);
  }
  *p += stride;
}

/* One tile of 32 channels (the lanes of `mask`); positions 0..35 of V go to output,
 * output + stride, ... */
QWINO_INLINE void tile32(const uint8_t* const* input, size_t offset, __mmask32 mask, int is_signed,
                         __m512i zero_point36, int16_t* output, size_t stride) {
  __m512i a[6], c[6], h[6]; /* per column k of the first pass */
  {
    /* Rows 2 and 0 first leave u = 4 t0 - 5 t2 and t2; row 4 then gives V row 0 = t4 + u and
     * a, c (12 live vectors between the rows instead of 18). */
    __m512i t0[6], t2[6], t4[6], u[6];
    row_transform(input, offset, mask, is_signed, 2, t2);
    row_transform(input, offset, mask, is_signed, 0, t0);
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      u[k] = _mm512_sub_epi16(_mm512_slli_epi16(_mm512_sub_epi16(t0[k], t2[k]), 2), t2[k]);
    }
    row_transform(input, offset, mask, is_signed, 4, t4);
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      a[k] = _mm512_sub_epi16(t4[k], _mm512_slli_epi16(t2[k], 2));
      c[k] = _mm512_sub_epi16(t4[k], t2[k]);
      store_next(&output, stride, mask, _mm512_add_epi16(t4[k], u[k])); /* V(0, k) */
    }
  }
  {
    __m512i t1[6], t3[6];
    row_transform(input, offset, mask, is_signed, 1, t1);
    row_transform(input, offset, mask, is_signed, 3, t3);
    /* V(1 + l, k) at output + (6 l + k) * stride: each column k is stored as soon as it is
     * known (four live vectors instead of 24). */
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      const __m512i b = _mm512_sub_epi16(t3[k], _mm512_slli_epi16(t1[k], 2));
      const __m512i f = _mm512_sub_epi16(t3[k], t1[k]);
      h[k] = _mm512_add_epi16(t3[k], _mm512_slli_epi16(f, 2));
      const __m512i e = _mm512_add_epi16(f, f);
      __m512i v1 = _mm512_add_epi16(a[k], b);
      if (k == 1) {
        v1 = _mm512_sub_epi16(v1, zero_point36); /* V(1, 1) */
      }
      store_at(output, 0, stride, mask, v1);
      store_at(output, 6, stride, mask, _mm512_sub_epi16(a[k], b));
      store_at(output, 12, stride, mask, _mm512_add_epi16(c[k], e));
      store_at(output, 18, stride, mask, _mm512_sub_epi16(c[k], e));
      output += stride;
    }
    output += 18 * stride;
  }
  {
    __m512i t5[6];
    row_transform(input, offset, mask, is_signed, 5, t5);
    _Pragma("GCC unroll 6") for (int k = 0; k < 6; k++) {
      store_next(&output, stride, mask, _mm512_sub_epi16(t5[k], h[k])); /* V(5, k) */
    }
  }
}

QWINO_INLINE void input_transform(size_t channels, const uint8_t* const* input, int32_t zero_point,
                                  int is_signed, int16_t* output, size_t output_position_stride) {
  /* 36 z modulo 2^16: the true V(1,1) fits int16, so the wrapped subtraction is exact. */
  const __m512i zero_point36 = _mm512_set1_epi16((int16_t)(36 * zero_point));
  size_t c = 0;
  for (; c + 32 <= channels; c += 32) {
    tile32(input, c, (__mmask32)UINT32_C(0xFFFFFFFF), is_signed, zero_point36, output + c,
           output_position_stride);
  }
  if (c < channels) {
    const __mmask32 mask = (__mmask32)((UINT32_C(1) << (channels - c)) - 1);
    tile32(input, c, mask, is_signed, zero_point36, output + c, output_position_stride);
  }
}

void qwino_qu8_winograd_f4x4_input_ukernel__avx512skx(size_t channels, const uint8_t* const* input,
                                                      uint8_t input_zero_point, uint8_t input_sign,
                                                      int16_t* output,
                                                      size_t output_position_stride) {
  if (input_sign == 0) {
    input_transform(channels, input, input_zero_point, 0, output, output_position_stride);
  } else {
    input_transform(channels, input, (int8_t)(input_zero_point ^ 0x80), 1, output,
                    output_position_stride);
  }
}
