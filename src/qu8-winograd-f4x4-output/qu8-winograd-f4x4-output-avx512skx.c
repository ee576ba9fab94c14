/*
 * Winograd F(4x4,3x3) output transform + block sum + bias + requantization, AVX-512 (F + BW + VL):
 * bit-exact twin of src/qu8-winograd-f4x4-output/qu8-winograd-f4x4-output-scalar.c for every
 * input, including arbitrary int32 M and the extreme requantization parameters (gemmlowp
 * multipliers but INT32_MIN), both requantization modes, uint8 and int8 outputs, so that the
 * AVX-512 kernel set runs F(4x4,3x3) at SIMD speed.
 *
 * The arithmetic is the AVX2 kernel's
 * (src/qu8-winograd-f4x4-output/qu8-winograd-f4x4-output-avx2.c, whose comment has the
 * argument) at twice the width: 16 int32 channels per zmm, so the transform needs no transposes,
 * and vector add/sub wrap modulo 2^32 like the scalar uint32_t arithmetic. Per block, Y = Ã^T M Ã
 * is a pass over each row of M, then a pass over the columns of the result, both the 6 -> 4
 * transform of the NEON kernel
 *   s1 = m1 + m2, d1 = m1 - m2, s2 = m3 + m4, d2 = m3 - m4,
 *   z0 = 6 m0 + 4 s1 + s2, z1 = 2 d1 + d2, z2 = s1 + s2, z3 = d1 + 2 d2 + 6 m5,
 * i.e. Ã^T m with outputs 1, 2, 3 divided by 2, 4, 4. Pixel (y, x) holds Z = Y / 2^e modulo
 * 2^(32-e), e = ex[y] + ex[x] <= 4 (ex = 0, 1, 2, 2), and the exact partial accumulator is
 *   r = ((Z & ~(2^(6-e) - 1)) * (9^-1 << e) mod 2^32) >> 6 (arithmetic)
 * = sign-extend-26(((uint32) Y >> 6) * 9^-1 mod 2^26), the scalar recovery: VPANDD, VPMULLD,
 * VPSRAD and a VPADDD into the accumulator (the bias, or the sum of the previous blocks) per
 * pixel. The requantization is src/qwino/requantization-avx512skx.h (shared with the F(2x2,3x3)
 * and requantize kernels; the argument for every step is in it and in
 * src/qwino/requantization-avx2.h): the per-channel values of 16 channels are loaded and prepared
 * once per tile for its 16 pixels, and one always-inline body is specialised on the mode, the
 * gemmlowp form and the output type (QWINO_AVX512_REQUANTIZATION_DISPATCH: one body for both types,
 * QWINO_X86_SIGN_BY_XOR, measured 3% slower on 56x56x64 uint8). The blocks that only
 * accumulate (FIRST, NEXT below) are the same for every form: one out-of-line copy each.
 *
 * Schedule (the NEON kernel's): rows 1..4 of M come first (rows 1 and 2 reduced to s1, d1
 * before rows 3 and 4 are loaded); they alone give output rows 1 and 2, which are finished and
 * stored, leaving the partial sums p = 4 s1 + s2 and w = d1 + 2 d2 of every column; row 0 of M
 * then gives output row 0 (z0 = 6 t0 + p) and row 5 output row 3 (z3 = w + 6 t5). That keeps
 * the transform vectors and the constants within the 32 zmm registers (the constants are made
 * opaque to GCC, which would otherwise rebuild them in the loop with MOV + VPBROADCAST).
 * Per 16 channels, tile and block: 36 loads, ~190 add/sub, 16 x 4 recovery instructions; per
 * tile 16 x 13 requantization instructions (uint8 shortcut), 4 x 8 to narrow and clamp, and 16
 * 16-byte stores: ~600 vector instructions, about 1.6x the F(2x2,3x3) kernel's per output
 * pixel, which the GEMM, 2.25x smaller, more than makes up for (timed: doc/PERFORMANCE.md,
 * "Kernel measurements"). With one block (the common case) the
 * accumulators go straight into the requantization; more blocks keep them in a stack array
 * between blocks.
 *
 * Edge tiles (rows or columns < 4) store only rows x columns pixels; the channel tail (< 16)
 * uses masked loads and stores, so exactly `channels` values are read per position and per
 * channel array and `channels` bytes written per pixel.
 */
#include <immintrin.h>

#include "qwino/requantization-avx512skx.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* 9^-1 modulo 2^26. */
#define QWINO_F43_INVERSE_OF_9 UINT32_C(0xE38E39)

struct f43_constants {
  __m512i clear[5];   /* ~(2^(6-e) - 1): the bits of Z that are bits 6..31 of Y = 2^e Z */
  __m512i inverse[5]; /* 9^-1 << e */
  struct qwino_avx512_requantization q;
};

/* First pass over one row of M (the six positions from *p on, stride elements apart; *p ends
 * past them): t = Ã^T m, outputs 1..3 divided by 2, 4, 4. */
QWINO_INLINE void row_transform(const int32_t** p, size_t stride, __mmask16 mask, __m512i t[4]) {
  const __m512i m0 = qwino_avx512_load_s32(*p, mask);
  const __m512i m1 = qwino_avx512_load_s32(*p + stride, mask);
  const __m512i m2 = qwino_avx512_load_s32(*p + 2 * stride, mask);
  const __m512i m3 = qwino_avx512_load_s32(*p + 3 * stride, mask);
  const __m512i m4 = qwino_avx512_load_s32(*p + 4 * stride, mask);
  const __m512i m5 = qwino_avx512_load_s32(*p + 5 * stride, mask);
  *p += 6 * stride;
  const __m512i s1 = _mm512_add_epi32(m1, m2);
  const __m512i d1 = _mm512_sub_epi32(m1, m2);
  const __m512i s2 = _mm512_add_epi32(m3, m4);
  const __m512i d2 = _mm512_sub_epi32(m3, m4);
  __m512i a = _mm512_add_epi32(m0, s1); /* m0 + s1 */
  a = _mm512_add_epi32(a, a);           /* 2 m0 + 2 s1 */
  a = _mm512_add_epi32(a, m0);          /* 3 m0 + 2 s1 */
  a = _mm512_add_epi32(a, a);           /* 6 m0 + 4 s1 */
  t[0] = _mm512_add_epi32(a, s2);
  t[1] = _mm512_add_epi32(_mm512_add_epi32(d1, d1), d2);
  t[2] = _mm512_add_epi32(s1, s2);
  __m512i b = _mm512_add_epi32(m5, m5); /* 2 m5 */
  b = _mm512_add_epi32(b, m5);          /* 3 m5 */
  b = _mm512_add_epi32(b, d2);          /* d2 + 3 m5 */
  b = _mm512_add_epi32(b, b);           /* 2 d2 + 6 m5 */
  t[3] = _mm512_add_epi32(b, d1);
}

/* 6 t + base */
QWINO_INLINE __m512i add_6x(__m512i base, __m512i t) {
  __m512i a = _mm512_add_epi32(t, t);
  a = _mm512_add_epi32(a, t);
  a = _mm512_add_epi32(a, a);
  return _mm512_add_epi32(a, base);
}

/* accumulator + recover(Y) for a pixel with Z = Y / 2^e (see the header comment). */
QWINO_INLINE __m512i recover_add(__m512i accumulator, __m512i z, int e,
                                 const struct f43_constants* k) {
  const __m512i product = _mm512_mullo_epi32(_mm512_and_si512(z, k->clear[e]), k->inverse[e]);
  return _mm512_add_epi32(accumulator, _mm512_srai_epi32(product, 6));
}

/* How a kernel body requantizes: its compile-time form and output type, and the tile's
 * channels. */
struct f43_requantization {
  int form;
  int is_signed;
  const struct qwino_avx512_channels* ch;
};

/* Four accumulators of one output row -> 64 bytes, pixel x at bytes 16x..16x+15. */
QWINO_INLINE __m512i requantize_row(const __m512i r[4], const struct f43_constants* k,
                                    struct f43_requantization rq) {
  return qwino_avx512_narrow_4x16(qwino_avx512_requantize(r[0], rq.ch, &k->q, rq.form),
                                  qwino_avx512_requantize(r[1], rq.ch, &k->q, rq.form),
                                  qwino_avx512_requantize(r[2], rq.ch, &k->q, rq.form),
                                  qwino_avx512_requantize(r[3], rq.ch, &k->q, rq.form), &k->q,
                                  rq.form, rq.is_signed);
}

/* Pixel x of one output row at output + x * pixel_stride: the channels of `mask` of its 16
 * bytes, columns x < `columns`. */
QWINO_INLINE void store_row(__m512i bytes, uint8_t* output, size_t pixel_stride, size_t columns,
                            __mmask16 mask) {
  if (mask == (__mmask16)0xFFFF) {
    _mm_storeu_si128((__m128i*)output, _mm512_castsi512_si128(bytes));
    if (columns > 1) {
      _mm_storeu_si128((__m128i*)(output + pixel_stride), _mm512_extracti32x4_epi32(bytes, 1));
      if (columns > 2) {
        _mm_storeu_si128((__m128i*)(output + 2 * pixel_stride),
                         _mm512_extracti32x4_epi32(bytes, 2));
        if (columns > 3) {
          _mm_storeu_si128((__m128i*)(output + 3 * pixel_stride),
                           _mm512_extracti32x4_epi32(bytes, 3));
        }
      }
    }
  } else {
    _mm_mask_storeu_epi8(output, mask, _mm512_castsi512_si128(bytes));
    if (columns > 1) {
      _mm_mask_storeu_epi8(output + pixel_stride, mask, _mm512_extracti32x4_epi32(bytes, 1));
      if (columns > 2) {
        _mm_mask_storeu_epi8(output + 2 * pixel_stride, mask, _mm512_extracti32x4_epi32(bytes, 2));
        if (columns > 3) {
          _mm_mask_storeu_epi8(output + 3 * pixel_stride, mask,
                               _mm512_extracti32x4_epi32(bytes, 3));
        }
      }
    }
  }
}

/* Modes of one block's pass: FINISH requantizes and stores each output row as soon as it is
 * known (one block: the accumulators start at the bias); FIRST and NEXT leave accumulators in
 * acc (starting at the bias, or adding to acc) for a later requantize_store_rows. */
enum { FINISH, FIRST, NEXT };

/* Where and how a block's output rows go. */
struct f43_output {
  uint8_t* output;
  size_t row_stride;
  size_t pixel_stride;
  size_t rows;
  size_t columns;
};

QWINO_INLINE void output_row(int mode, int y, const __m512i z[4], __m512i bias, __m512i acc[4][4],
                             const struct f43_constants* k, struct f43_requantization rq,
                             __mmask16 mask, const struct f43_output* o) {
  static const int ex[4] = {0, 1, 2, 2};
  __m512i r[4];
  _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) {
    r[x] = recover_add(mode == NEXT ? acc[y][x] : bias, z[x], ex[y] + ex[x], k);
  }
  if (mode == FINISH) {
    if ((size_t)y < o->rows) {
      store_row(requantize_row(r, k, rq), o->output + y * o->row_stride, o->pixel_stride,
                o->columns, mask);
    }
  } else {
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) { acc[y][x] = r[x]; }
  }
}

/* One block of 16 channels (those of `mask`: all, a constant, except in the channel tail) at m
 * (position p at m + p * stride), in the order of the header comment. */
QWINO_INLINE void block16(int mode, const int32_t* m, size_t stride, __m512i bias,
                          __m512i acc[4][4], const struct f43_constants* k,
                          struct f43_requantization rq, __mmask16 mask,
                          const struct f43_output* o) {
  __m512i p[4], w[4], z[4];
  {
    const int32_t* row = m + 6 * stride;
    /* Rows 1 and 2 reduce to s1, d1 before rows 3 and 4 are loaded (fewer live vectors). */
    __m512i s1[4], d1[4], z1[4];
    {
      __m512i t1[4], t2[4];
      row_transform(&row, stride, mask, t1);
      row_transform(&row, stride, mask, t2);
      _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) {
        s1[x] = _mm512_add_epi32(t1[x], t2[x]);
        d1[x] = _mm512_sub_epi32(t1[x], t2[x]);
      }
    }
    __m512i t3[4], t4[4];
    row_transform(&row, stride, mask, t3);
    row_transform(&row, stride, mask, t4);
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) {
      const __m512i s2 = _mm512_add_epi32(t3[x], t4[x]);
      const __m512i d2 = _mm512_sub_epi32(t3[x], t4[x]);
      z1[x] = _mm512_add_epi32(_mm512_add_epi32(d1[x], d1[x]), d2);
      z[x] = _mm512_add_epi32(s1[x], s2);
      const __m512i s1x2 = _mm512_add_epi32(s1[x], s1[x]);
      p[x] = _mm512_add_epi32(_mm512_add_epi32(s1x2, s1x2), s2);
      w[x] = _mm512_add_epi32(_mm512_add_epi32(d2, d2), d1[x]);
    }
    output_row(mode, 1, z1, bias, acc, k, rq, mask, o);
  }
  output_row(mode, 2, z, bias, acc, k, rq, mask, o);
  {
    const int32_t* row = m;
    __m512i t0[4];
    row_transform(&row, stride, mask, t0);
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) { z[x] = add_6x(p[x], t0[x]); }
    output_row(mode, 0, z, bias, acc, k, rq, mask, o);
  }
  {
    const int32_t* row = m + 30 * stride;
    __m512i t5[4];
    row_transform(&row, stride, mask, t5);
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) { z[x] = add_6x(w[x], t5[x]); }
    output_row(mode, 3, z, bias, acc, k, rq, mask, o);
  }
}

/* The blocks that only accumulate (FIRST, NEXT) do the same work for every requantization form
 * and output type: one out-of-line copy each instead of one per form (the call costs little
 * next to a block's ~500 instructions, and acc lives on the stack between blocks anyway). The
 * full steps pass the all-ones mask, a constant, and use plain loads. */
static __attribute__((noinline)) void accumulate_first(const int32_t* m, size_t stride,
                                                       const __m512i* bias, __m512i acc[4][4],
                                                       const struct f43_constants* k) {
  const struct f43_requantization unused = {qwino_x86_fp32, 0, NULL};
  block16(FIRST, m, stride, *bias, acc, k, unused, (__mmask16)0xFFFF, NULL);
}

static __attribute__((noinline)) void accumulate_next(const int32_t* m, size_t stride,
                                                      __m512i acc[4][4],
                                                      const struct f43_constants* k) {
  const struct f43_requantization unused = {qwino_x86_fp32, 0, NULL};
  block16(NEXT, m, stride, _mm512_setzero_si512(), acc, k, unused, (__mmask16)0xFFFF, NULL);
}

/* The same for the channel tail, whose loads are masked. */
static __attribute__((noinline)) void accumulate_tail(int mode, const int32_t* m, size_t stride,
                                                      const __m512i* bias, __m512i acc[4][4],
                                                      const struct f43_constants* k,
                                                      __mmask16 mask) {
  const struct f43_requantization unused = {qwino_x86_fp32, 0, NULL};
  if (mode == FIRST) {
    block16(FIRST, m, stride, *bias, acc, k, unused, mask, NULL);
  } else {
    block16(NEXT, m, stride, *bias, acc, k, unused, mask, NULL);
  }
}

QWINO_INLINE void requantize_store_rows(__m512i acc[4][4], const struct f43_constants* k,
                                        struct f43_requantization rq, __mmask16 mask,
                                        const struct f43_output* o) {
  for (size_t y = 0; y < o->rows; y++) {
    store_row(requantize_row(acc[y], k, rq), o->output + y * o->row_stride, o->pixel_stride,
              o->columns, mask);
  }
}

QWINO_INLINE void output_transform(size_t channels, size_t blocks, const int32_t* m,
                                   size_t m_position_stride, size_t m_block_stride,
                                   const int32_t* channel_params, uint8_t* output,
                                   size_t output_row_stride, size_t output_pixel_stride,
                                   size_t rows, size_t columns,
                                   const union qwino_qu8_requantization_params* params, int form,
                                   int is_signed) {
  const __mmask16 all = (__mmask16)0xFFFF;
  struct f43_constants k;
  for (int e = 0; e <= 4; e++) {
    k.clear[e] = _mm512_set1_epi32((int32_t) ~((UINT32_C(1) << (6 - e)) - 1));
    k.inverse[e] = _mm512_set1_epi32((int32_t)(QWINO_F43_INVERSE_OF_9 << e));
  }
  k.q = qwino_avx512_requantization_init(params, form, is_signed);
  /* Opaque to the compiler: otherwise it rematerializes the known constants (a MOV and a
   * VPBROADCASTD each, inside the loop) instead of keeping them in registers or reading them
   * as memory operands. */
  for (int e = 0; e <= 4; e++) {
    __asm__("" : "+v"(k.clear[e]), "+v"(k.inverse[e]));
  }
  __asm__("" : "+v"(k.q.nudge), "+v"(k.q.one), "+v"(k.q.pixel_order));
  const size_t stride = k.q.channel_stride;
  struct f43_output o = {output, output_row_stride, output_pixel_stride, rows, columns};
  size_t c = 0;
  if (blocks == 1) {
    for (; c + 16 <= channels; c += 16) {
      const struct qwino_avx512_channels ch =
          qwino_avx512_load_channels(channel_params + c, stride, all, &k.q, form);
      const struct f43_requantization rq = {form, is_signed, &ch};
      o.output = output + c;
      block16(FINISH, m + c, m_position_stride, ch.bias, NULL, &k, rq, all, &o);
    }
  } else {
    for (; c + 16 <= channels; c += 16) {
      __m512i acc[4][4];
      const struct qwino_avx512_channels ch =
          qwino_avx512_load_channels(channel_params + c, stride, all, &k.q, form);
      const struct f43_requantization rq = {form, is_signed, &ch};
      o.output = output + c;
      accumulate_first(m + c, m_position_stride, &ch.bias, acc, &k);
      for (size_t b = 1; b < blocks; b++) {
        accumulate_next(m + b * m_block_stride + c, m_position_stride, acc, &k);
      }
      requantize_store_rows(acc, &k, rq, all, &o);
    }
  }
  if (c < channels) {
    const __mmask16 mask = (__mmask16)((1u << (channels - c)) - 1);
    const struct qwino_avx512_channels ch =
        qwino_avx512_load_channels(channel_params + c, stride, mask, &k.q, form);
    const struct f43_requantization rq = {form, is_signed, &ch};
    __m512i acc[4][4];
    o.output = output + c;
    for (size_t b = 0; b < blocks; b++) {
      accumulate_tail(b == 0 ? FIRST : NEXT, m + b * m_block_stride + c, m_position_stride,
                      &ch.bias, acc, &k, mask);
    }
    requantize_store_rows(acc, &k, rq, mask, &o);
  }
}

#define QWINO_F43_OUTPUT_BODY(form, is_signed)                                                     \
  output_transform(channels, blocks, m, m_position_stride, m_block_stride, channel_params, output, \
                   output_row_stride, output_pixel_stride, rows, columns, params, form, is_signed)
#define QWINO_F43_OUTPUT_ENTRY(mode)                                                     \
  void qwino_qu8_winograd_f4x4_output_##mode##_ukernel__avx512skx(                       \
      size_t channels, size_t blocks, const int32_t* m, size_t m_position_stride,        \
      size_t m_block_stride, const int32_t* channel_params, uint8_t* output,             \
      size_t output_row_stride, size_t output_pixel_stride, size_t rows, size_t columns, \
      const union qwino_qu8_requantization_params* params) {                             \
    QWINO_AVX512_REQUANTIZATION_DISPATCH(mode, params, QWINO_F43_OUTPUT_BODY);           \
  }
QWINO_F43_OUTPUT_ENTRY(gemmlowp)
QWINO_F43_OUTPUT_ENTRY(fp32)
