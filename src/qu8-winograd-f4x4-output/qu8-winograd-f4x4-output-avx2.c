/*
 * Winograd F(4x4,3x3) output transform + block sum + bias + requantization, AVX2: bit-exact twin of
 * src/qu8-winograd-f4x4-output/qu8-winograd-f4x4-output-scalar.c for every input, including
 * arbitrary int32 M and the extreme requantization parameters (gemmlowp multipliers but
 * INT32_MIN), both requantization modes, uint8 and int8 outputs, so that x86 CPUs without
 * AVX-512 can run F(4x4,3x3) at SIMD speed.
 *
 * Channels sit in lanes, 8 int32 per ymm, so the transform needs no transposes; vector add/sub
 * wrap modulo 2^32 like the scalar uint32_t arithmetic. Per block, Y = Ã^T M Ã is a pass over
 * each row of M, then a pass over the columns of the result, both the 6 -> 4 transform of the
 * NEON kernel (src/qu8-winograd-f4x4-output/qu8-winograd-f4x4-output-neon.c)
 *   s1 = m1 + m2, d1 = m1 - m2, s2 = m3 + m4, d2 = m3 - m4,
 *   z0 = 6 m0 + 4 s1 + s2, z1 = 2 d1 + d2, z2 = s1 + s2, z3 = d1 + 2 d2 + 6 m5,
 * i.e. Ã^T m with outputs 1, 2, 3 divided by 2, 4, 4 (ex = 0, 1, 2, 2 powers of two), multiples
 * built from adds (adds issue on more ports than shifts on current x86 cores). So pixel (y, x)
 * holds Z = Y / 2^e modulo 2^(32-e), e = ex[y] + ex[x] <= 4, which is all the recovery needs:
 *   the scalar r = sign-extend-26(((uint32) Y >> 6) * 9^-1 mod 2^26)
 *   equals  ((Y & ~63) * 9^-1 mod 2^32) >> 6 (arithmetic)        [bits 6..31 are the residue]
 *   equals  ((Z & ~(2^(6-e) - 1)) * (9^-1 << e) mod 2^32) >> 6    [Y & ~63 = 2^e (Z & ~...)]
 * so each pixel costs VPAND, VPMULLD, VPSRAD and the VPADDD that adds r to the accumulator (the
 * bias, or the sum of the previous blocks) with the scalar wrap-around. VPMULLD is the kernel's
 * only multiply besides the requantization's VPMULDQ; it cannot be shared between pixels or
 * blocks (every block's partial is known only modulo 2^26 until it is multiplied and
 * sign-extended on its own).
 * The requantization is src/qwino/requantization-avx2.h (shared with the F(2x2,3x3) and
 * requantize kernels; its comment has the argument for every step): the per-channel values of 8
 * channels are loaded and prepared once per tile for its 16 pixels, and one always-inline body
 * is specialised on the mode and the gemmlowp form, for both output types
 * (QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR). The blocks that only accumulate (FIRST, NEXT
 * below) are the same for every form: one out-of-line copy each.
 *
 * Schedule (the NEON kernel's, for register pressure): rows 1..4 of M come first (rows 1 and 2
 * reduced to s1, d1 before rows 3 and 4 are loaded); they alone give output rows 1 and 2,
 * which are finished and stored, leaving the partial sums p = 4 s1 + s2 and w = d1 + 2 d2 of
 * every column; row 0 of M then gives output row 0 (z0 = 6 t0 + p) and row 5 output row 3
 * (z3 = w + 6 t5). With 16 ymm registers some vectors still spill; the spills go to the
 * load/store ports, which have room. The constants are made opaque to GCC, which would
 * otherwise rebuild them in the loop (MOV + VPBROADCAST) instead of reading memory operands.
 * Per 8 channels, tile and block: 36 loads, ~190 add/sub, 16 x 4 recovery instructions; per
 * tile 16 x 13 requantization instructions (uint8 shortcut), 4 x 8 to narrow and clamp, and
 * 16 8-byte stores.
 * With one block (the common case) the accumulators go straight into the requantization; more
 * blocks keep them in a stack array between blocks.
 *
 * Edge tiles (rows or columns < 4) store only rows x columns pixels; the channel tail (< 8)
 * stages M and the per-channel values through stack buffers and the bytes through a buffer, so
 * exactly `channels` values are read per position and per channel array and `channels` bytes
 * written per pixel.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/requantization-avx2.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* 9^-1 modulo 2^26. */
#define QWINO_F43_INVERSE_OF_9 UINT32_C(0xE38E39)

struct f43_constants {
  __m256i clear[5];   /* ~(2^(6-e) - 1): the bits of Z that are bits 6..31 of Y = 2^e Z */
  __m256i inverse[5]; /* 9^-1 << e */
  struct qwino_avx2_requantization q;
};

QWINO_INLINE __m256i load8(const int32_t* p) { return _mm256_loadu_si256((const __m256i*)p); }

/* First pass over one row of M (the six positions from *p on, stride elements apart; *p ends
 * past them): t = Ã^T m, outputs 1..3 divided by 2, 4, 4. */
QWINO_INLINE void row_transform(const int32_t** p, size_t stride, __m256i t[4]) {
  const __m256i m0 = load8(*p);
  const __m256i m1 = load8(*p + stride);
  const __m256i m2 = load8(*p + 2 * stride);
  const __m256i m3 = load8(*p + 3 * stride);
  const __m256i m4 = load8(*p + 4 * stride);
  const __m256i m5 = load8(*p + 5 * stride);
  *p += 6 * stride;
  const __m256i s1 = _mm256_add_epi32(m1, m2);
  const __m256i d1 = _mm256_sub_epi32(m1, m2);
  const __m256i s2 = _mm256_add_epi32(m3, m4);
  const __m256i d2 = _mm256_sub_epi32(m3, m4);
  __m256i a = _mm256_add_epi32(m0, s1); /* m0 + s1 */
  a = _mm256_add_epi32(a, a);           /* 2 m0 + 2 s1 */
  a = _mm256_add_epi32(a, m0);          /* 3 m0 + 2 s1 */
  a = _mm256_add_epi32(a, a);           /* 6 m0 + 4 s1 */
  t[0] = _mm256_add_epi32(a, s2);
  t[1] = _mm256_add_epi32(_mm256_add_epi32(d1, d1), d2);
  t[2] = _mm256_add_epi32(s1, s2);
  __m256i b = _mm256_add_epi32(m5, m5); /* 2 m5 */
  b = _mm256_add_epi32(b, m5);          /* 3 m5 */
  b = _mm256_add_epi32(b, d2);          /* d2 + 3 m5 */
  b = _mm256_add_epi32(b, b);           /* 2 d2 + 6 m5 */
  t[3] = _mm256_add_epi32(b, d1);
}

/* 6 t + base */
QWINO_INLINE __m256i add_6x(__m256i base, __m256i t) {
  __m256i a = _mm256_add_epi32(t, t);
  a = _mm256_add_epi32(a, t);
  a = _mm256_add_epi32(a, a);
  return _mm256_add_epi32(a, base);
}

/* accumulator + recover(Y) for a pixel with Z = Y / 2^e (see the header comment). */
QWINO_INLINE __m256i recover_add(__m256i accumulator, __m256i z, int e,
                                 const struct f43_constants* k) {
  const __m256i product = _mm256_mullo_epi32(_mm256_and_si256(z, k->clear[e]), k->inverse[e]);
  return _mm256_add_epi32(accumulator, _mm256_srai_epi32(product, 6));
}

/* How a kernel body requantizes: its compile-time form and output type, and the tile's
 * channels. */
struct f43_requantization {
  int form;
  int is_signed;
  const struct qwino_avx2_channels* ch;
};

/* Four accumulators of one output row -> 32 bytes, pixel x at bytes 8x..8x+7. */
QWINO_INLINE __m256i requantize_row(const __m256i r[4], const struct f43_constants* k,
                                    struct f43_requantization rq) {
  return qwino_avx2_narrow_4x8(qwino_avx2_requantize(r[0], rq.ch, &k->q, rq.form),
                               qwino_avx2_requantize(r[1], rq.ch, &k->q, rq.form),
                               qwino_avx2_requantize(r[2], rq.ch, &k->q, rq.form),
                               qwino_avx2_requantize(r[3], rq.ch, &k->q, rq.form), &k->q, rq.form,
                               rq.is_signed);
}

/* Pixel x of one output row at output + x * pixel_stride: the first `count` of its 8 bytes
 * (count is 8 except in the channel tail), columns x < `columns`. */
QWINO_INLINE void store_row(__m256i bytes, uint8_t* output, size_t pixel_stride, size_t columns,
                            size_t count) {
  if (count == 8) {
    const __m128i lo = _mm256_castsi256_si128(bytes);
    const __m128i hi = _mm256_extracti128_si256(bytes, 1);
    _mm_storel_epi64((__m128i*)output, lo);
    if (columns > 1) {
      _mm_storeh_pi((__m64*)(output + pixel_stride), _mm_castsi128_ps(lo));
      if (columns > 2) {
        _mm_storel_epi64((__m128i*)(output + 2 * pixel_stride), hi);
        if (columns > 3) {
          _mm_storeh_pi((__m64*)(output + 3 * pixel_stride), _mm_castsi128_ps(hi));
        }
      }
    }
  } else {
    uint8_t buffer[32];
    _mm256_storeu_si256((__m256i*)buffer, bytes);
    for (size_t x = 0; x < columns; x++) {
      memcpy(output + x * pixel_stride, buffer + 8 * x, count);
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
  size_t count; /* bytes per pixel: 8, or the channel tail */
};

QWINO_INLINE void output_row(int mode, int y, const __m256i z[4], __m256i bias, __m256i acc[4][4],
                             const struct f43_constants* k, struct f43_requantization rq,
                             const struct f43_output* o) {
  static const int ex[4] = {0, 1, 2, 2};
  __m256i r[4];
  _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) {
    r[x] = recover_add(mode == NEXT ? acc[y][x] : bias, z[x], ex[y] + ex[x], k);
  }
  if (mode == FINISH) {
    if ((size_t)y < o->rows) {
      store_row(requantize_row(r, k, rq), o->output + y * o->row_stride, o->pixel_stride,
                o->columns, o->count);
    }
  } else {
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) { acc[y][x] = r[x]; }
  }
}

/* One block of 8 channels at m (position p at m + p * stride), in the order of the header
 * comment. */
QWINO_INLINE void block8(int mode, const int32_t* m, size_t stride, __m256i bias, __m256i acc[4][4],
                         const struct f43_constants* k, struct f43_requantization rq,
                         const struct f43_output* o) {
  __m256i p[4], w[4], z[4];
  {
    const int32_t* row = m + 6 * stride;
    /* Rows 1 and 2 reduce to s1, d1 before rows 3 and 4 are loaded (fewer live vectors). */
    __m256i s1[4], d1[4], z1[4];
    {
      __m256i t1[4], t2[4];
      row_transform(&row, stride, t1);
      row_transform(&row, stride, t2);
      _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) {
        s1[x] = _mm256_add_epi32(t1[x], t2[x]);
        d1[x] = _mm256_sub_epi32(t1[x], t2[x]);
      }
    }
    __m256i t3[4], t4[4];
    row_transform(&row, stride, t3);
    row_transform(&row, stride, t4);
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) {
      const __m256i s2 = _mm256_add_epi32(t3[x], t4[x]);
      const __m256i d2 = _mm256_sub_epi32(t3[x], t4[x]);
      z1[x] = _mm256_add_epi32(_mm256_add_epi32(d1[x], d1[x]), d2);
      z[x] = _mm256_add_epi32(s1[x], s2);
      const __m256i s1x2 = _mm256_add_epi32(s1[x], s1[x]);
      p[x] = _mm256_add_epi32(_mm256_add_epi32(s1x2, s1x2), s2);
      w[x] = _mm256_add_epi32(_mm256_add_epi32(d2, d2), d1[x]);
    }
    output_row(mode, 1, z1, bias, acc, k, rq, o);
  }
  output_row(mode, 2, z, bias, acc, k, rq, o);
  {
    const int32_t* row = m;
    __m256i t0[4];
    row_transform(&row, stride, t0);
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) { z[x] = add_6x(p[x], t0[x]); }
    output_row(mode, 0, z, bias, acc, k, rq, o);
  }
  {
    const int32_t* row = m + 30 * stride;
    __m256i t5[4];
    row_transform(&row, stride, t5);
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) { z[x] = add_6x(w[x], t5[x]); }
    output_row(mode, 3, z, bias, acc, k, rq, o);
  }
}

/* The blocks that only accumulate (FIRST, NEXT) do the same work for every requantization form
 * and output type: one out-of-line copy each instead of one per form (the call costs little
 * next to a block's ~500 instructions, and acc lives on the stack between blocks anyway). */
static __attribute__((noinline)) void accumulate_first(const int32_t* m, size_t stride,
                                                       const __m256i* bias, __m256i acc[4][4],
                                                       const struct f43_constants* k) {
  const struct f43_requantization unused = {qwino_x86_fp32, 0, NULL};
  block8(FIRST, m, stride, *bias, acc, k, unused, NULL);
}

static __attribute__((noinline)) void accumulate_next(const int32_t* m, size_t stride,
                                                      __m256i acc[4][4],
                                                      const struct f43_constants* k) {
  const struct f43_requantization unused = {qwino_x86_fp32, 0, NULL};
  block8(NEXT, m, stride, _mm256_setzero_si256(), acc, k, unused, NULL);
}

QWINO_INLINE void requantize_store_rows(__m256i acc[4][4], const struct f43_constants* k,
                                        struct f43_requantization rq, const struct f43_output* o) {
  for (size_t y = 0; y < o->rows; y++) {
    store_row(requantize_row(acc[y], k, rq), o->output + y * o->row_stride, o->pixel_stride,
              o->columns, o->count);
  }
}

QWINO_INLINE void output_transform(size_t channels, size_t blocks, const int32_t* m,
                                   size_t m_position_stride, size_t m_block_stride,
                                   const int32_t* channel_params, uint8_t* output,
                                   size_t output_row_stride, size_t output_pixel_stride,
                                   size_t rows, size_t columns,
                                   const union qwino_qu8_requantization_params* params, int form,
                                   int is_signed) {
  struct f43_constants k;
  for (int e = 0; e <= 4; e++) {
    k.clear[e] = _mm256_set1_epi32((int32_t) ~((UINT32_C(1) << (6 - e)) - 1));
    k.inverse[e] = _mm256_set1_epi32((int32_t)(QWINO_F43_INVERSE_OF_9 << e));
  }
  k.q = qwino_avx2_requantization_init(params, form, is_signed);
  /* Opaque to the compiler: otherwise it rematerializes the known constants (a MOV and a
   * VPBROADCASTD/Q each, inside the loop) instead of reading them as memory operands. */
  for (int e = 0; e <= 4; e++) {
    __asm__("" : "+x"(k.clear[e]), "+x"(k.inverse[e]));
  }
  __asm__("" : "+x"(k.q.nudge), "+x"(k.q.one), "+x"(k.q.pixel_order));
  const size_t stride = k.q.channel_stride;
  struct f43_output o = {output, output_row_stride, output_pixel_stride, rows, columns, 8};
  size_t c = 0;
  if (blocks == 1) {
    for (; c + 8 <= channels; c += 8) {
      const struct qwino_avx2_channels ch =
          qwino_avx2_load_channels(channel_params + c, stride, &k.q, form);
      const struct f43_requantization rq = {form, is_signed, &ch};
      o.output = output + c;
      block8(FINISH, m + c, m_position_stride, ch.bias, NULL, &k, rq, &o);
    }
  } else {
    for (; c + 8 <= channels; c += 8) {
      __m256i acc[4][4];
      const struct qwino_avx2_channels ch =
          qwino_avx2_load_channels(channel_params + c, stride, &k.q, form);
      const struct f43_requantization rq = {form, is_signed, &ch};
      o.output = output + c;
      accumulate_first(m + c, m_position_stride, &ch.bias, acc, &k);
      for (size_t b = 1; b < blocks; b++) {
        accumulate_next(m + b * m_block_stride + c, m_position_stride, acc, &k);
      }
      requantize_store_rows(acc, &k, rq, &o);
    }
  }
  if (c < channels) {
    const size_t tail = channels - c;
    const struct qwino_avx2_channels ch =
        qwino_avx2_load_channels_tail(channel_params + c, stride, tail, &k.q, form);
    const struct f43_requantization rq = {form, is_signed, &ch};
    __m256i acc[4][4];
    o.output = output + c;
    o.count = tail;
    for (size_t b = 0; b < blocks; b++) {
      int32_t m_buffer[36][8];
      memset(m_buffer, 0, sizeof(m_buffer));
      for (size_t p = 0; p < 36; p++) {
        memcpy(m_buffer[p], m + b * m_block_stride + p * m_position_stride + c,
               tail * sizeof(int32_t));
      }
      if (b == 0) {
        accumulate_first(&m_buffer[0][0], 8, &ch.bias, acc, &k);
      } else {
        accumulate_next(&m_buffer[0][0], 8, acc, &k);
      }
    }
    requantize_store_rows(acc, &k, rq, &o);
  }
}

#define QWINO_F43_OUTPUT_BODY(form, is_signed)                                                     \
  output_transform(channels, blocks, m, m_position_stride, m_block_stride, channel_params, output, \
                   output_row_stride, output_pixel_stride, rows, columns, params, form, is_signed)
#define QWINO_F43_OUTPUT_ENTRY(mode)                                                     \
  void qwino_qu8_winograd_f4x4_output_##mode##_ukernel__avx2(                            \
      size_t channels, size_t blocks, const int32_t* m, size_t m_position_stride,        \
      size_t m_block_stride, const int32_t* channel_params, uint8_t* output,             \
      size_t output_row_stride, size_t output_pixel_stride, size_t rows, size_t columns, \
      const union qwino_qu8_requantization_params* params) {                             \
    QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR(mode, params, QWINO_F43_OUTPUT_BODY);  \
  }
QWINO_F43_OUTPUT_ENTRY(gemmlowp)
QWINO_F43_OUTPUT_ENTRY(fp32)
