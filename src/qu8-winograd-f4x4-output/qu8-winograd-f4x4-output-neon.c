/*
 * Winograd F(4x4,3x3) output transform + block sum + bias + requantization, NEON: bit-exact twin of
 * src/qu8-winograd-f4x4-output/qu8-winograd-f4x4-output-scalar.c for every input, including
 * arbitrary int32 M, both requantization modes, every per-channel parameter value of the
 * documented ranges, uint8 and int8 outputs.
 *
 * Channels sit in lanes, 4 per step (one int32x4 per position), so the transform needs no
 * transposes. The wrapping arithmetic is done on uint32x4_t: GCC's arm_neon.h defines vaddq_s32
 * and vmulq_s32 as plain C operators on signed vectors, whose overflow is undefined (UBSan
 * reports it). Per block, Y = Ã^T M Ã is a pass over the columns of each row of M, then a pass
 * over the rows, both the 6 -> 4 transform
 *   s1 = m1 + m2, d1 = m1 - m2, s2 = m3 + m4, d2 = m3 - m4,
 *   z0 = 6 m0 + 4 s1 + s2, z1 = 2 d1 + d2, z2 = s1 + s2, z3 = d1 + 2 d2 + 6 m5,
 * i.e. Ã^T m with outputs 1, 2, 3 divided by 2, 4, 4 (ex = 0, 1, 2, 2 powers of two). Multiples
 * are built from adds (6 m0 + 4 s1 = 2 (2 (m0 + s1) + m0)): no multiplies and no shifts, so on
 * Cortex-A72 every instruction of the transform can take either ASIMD pipe. All of it wraps
 * modulo 2^32, so pixel (y, x) holds Z = Y / 2^e modulo 2^(32-e), e = ex[y] + ex[x] <= 4, which
 * is all the recovery needs:
 *   the scalar r = sign-extend-26(((uint32) Y >> 6) * 9^-1 mod 2^26)
 *   equals  ((Y & ~63) * 9^-1 mod 2^32) >> 6 (arithmetic)        [bits 6..31 are the residue]
 *   equals  ((Z & ~(2^(6-e) - 1)) * (9^-1 << e) mod 2^32) >> 6    [Y & ~63 = 2^e (Z & ~...)]
 * so each pixel costs BIC (immediate), MUL (by element of a constant vector) and SSRA #6, which
 * adds r to the accumulator (the bias, or the sum of the previous blocks) with the scalar
 * wrap-around. The MUL is the kernel's only multiply besides SQRDMULH, and it cannot be shared
 * between pixels or blocks: every block's partial is known only modulo 2^26 until it is
 * multiplied and sign-extended on its own, and 9^-1 cannot move before the transform (to fewer
 * values: it would not, 36 > 16) without changing the floor of >> 6 for M that are not genuine
 * Winograd products.
 * The requantization is src/qwino/requantization-neon.h (shared with the F(2x2,3x3) and the
 * requantize kernels; its comment has the argument for every step), in the variant chosen once
 * per call: fp32, or the gemmlowp shortcut, or one general gemmlowp body that does the left shift
 * whatever the channels' shifts (a shift by 0 changes nothing; a second general body without it
 * would only add code), each for both output types (qwino_neon_sign_by_xor: one EOR per 16
 * bytes instead of a second body per type). A group of 4 channels loads its
 * per-channel vectors (bias, multiplier or scale, right and left shifts) once for its 16 pixels.
 *
 * Register pressure decides the schedule: the 24 vectors of the first pass plus the constants
 * do not fit in 32 registers. So rows 1..4 of M come first; they alone give output rows 1 and 2
 * (z1, z2 of the second pass), which are finished and stored, leaving the partial sums
 * p = 4 s1 + s2 and w = d1 + 2 d2 of every column; row 0 of M then gives output row 0
 * (z0 = 6 t0 + p) and row 5 output row 3 (z3 = w + 6 t5). That is 12 more adds than the plain
 * second pass, and leaves only a few spills (some constants and 3-4 vectors, on the load/store
 * pipes, which have room). M is read with LD1 post-incremented by the position stride (inline
 * assembly: GCC would otherwise keep 36 position pointers, which spill).
 * Per 4 channels, tile and block: 36 loads, 182 add/sub, 16 BIC + 16 MUL + 16 MOV + 16 SSRA (the
 * MOV copies the bias that SSRA accumulates into); per tile 3 loads and a NEG for the
 * per-channel vectors, 16 x 3 requantization instructions (SQRDMULH, SSRA, SRSHL; 16 x 6 in the
 * general form of requantize-neon.h, plus a load; fp32: SCVTF, FMUL, FCVTNS, no NEG), 16 SQXTN,
 * 8 SQADD, 8 SQXTUN (int8: SQXTN), 8 clamps and 16 four-byte stores. On the A72 model of the
 * shared ruler that is about 460 instructions and 192 cycles (both ASIMD pipes busy) per 4
 * channels and tile, for uint8 and int8 alike (fp32: 456 and 199).
 * With one block (the common case) the accumulators go straight into the requantization; more
 * blocks keep them in a stack array between blocks.
 *
 * Edge tiles (rows or columns < 4) store through a byte buffer; the channel tail (< 4) stages M
 * and the per-channel arrays through stack buffers, so exactly `channels` values are read per
 * position and per array and `channels` bytes written per pixel.
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE QWINO_NEON_INLINE

/* 9^-1 modulo 2^26. */
#define QWINO_F43_INVERSE_OF_9 UINT32_C(0xE38E39)

struct f43_constants {
  uint32x4_t inverse;  /* 9^-1 << e in lane e, e = 0..3 */
  uint32x4_t inverse4; /* 9^-1 << 4 */
  struct qwino_neon_requantization q;
};

/* The per-channel vectors of a group of 4 channels. */
struct f43_group {
  int32x4_t bias;
  struct qwino_neon_channels ch;
};

QWINO_INLINE struct f43_group load_group(const int32_t* channel_params, size_t stride,
                                         int variant) {
  struct f43_group g;
  g.bias = vld1q_s32(channel_params);
  g.ch = qwino_neon_load_channels(channel_params, stride, variant);
  return g;
}

/* *p, then p += stride bytes: one instruction (LD1 with register post-increment). */
QWINO_INLINE uint32x4_t load_next(const int32_t** p, size_t stride) {
  uint32x4_t v;
  __asm__("ld1 {%0.4s}, [%1], %2"
          : "=w"(v), "+r"(*p)
          : "r"(stride), "m"(*(const int32_t(*)[4]) * p));
  return v;
}

/* First pass over one row of M (six positions from *p on): t = Ã^T m, outputs 1..3 / 2, 4, 4. */
QWINO_INLINE void row_transform(const int32_t** p, size_t stride, uint32x4_t t[4]) {
  const uint32x4_t m0 = load_next(p, stride);
  const uint32x4_t m1 = load_next(p, stride);
  const uint32x4_t m2 = load_next(p, stride);
  const uint32x4_t m3 = load_next(p, stride);
  const uint32x4_t m4 = load_next(p, stride);
  const uint32x4_t m5 = load_next(p, stride);
  const uint32x4_t s1 = vaddq_u32(m1, m2);
  const uint32x4_t d1 = vsubq_u32(m1, m2);
  const uint32x4_t s2 = vaddq_u32(m3, m4);
  const uint32x4_t d2 = vsubq_u32(m3, m4);
  uint32x4_t a = vaddq_u32(m0, s1); /* m0 + s1 */
  a = vaddq_u32(a, a);              /* 2 m0 + 2 s1 */
  a = vaddq_u32(a, m0);             /* 3 m0 + 2 s1 */
  a = vaddq_u32(a, a);              /* 6 m0 + 4 s1 */
  t[0] = vaddq_u32(a, s2);
  t[1] = vaddq_u32(vaddq_u32(d1, d1), d2);
  t[2] = vaddq_u32(s1, s2);
  uint32x4_t b = vaddq_u32(m5, m5); /* 2 m5 */
  b = vaddq_u32(b, m5);             /* 3 m5 */
  b = vaddq_u32(b, d2);             /* d2 + 3 m5 */
  b = vaddq_u32(b, b);              /* 2 d2 + 6 m5 */
  t[3] = vaddq_u32(b, d1);
}

/* 6 t + base */
QWINO_INLINE uint32x4_t add_6x(uint32x4_t base, uint32x4_t t) {
  uint32x4_t a = vaddq_u32(t, t);
  a = vaddq_u32(a, t);
  a = vaddq_u32(a, a);
  return vaddq_u32(a, base);
}

/* accumulator + recover(Y) for a pixel with Z = Y / 2^e (see the header comment). */
QWINO_INLINE int32x4_t recover_add(int32x4_t accumulator, uint32x4_t z, int e,
                                   const struct f43_constants* k) {
  const uint32x4_t cleared = vbicq_u32(z, vdupq_n_u32((UINT32_C(1) << (6 - e)) - 1));
  uint32x4_t product;
  switch (e) {
    case 0:
      product = vmulq_laneq_u32(cleared, k->inverse, 0);
      break;
    case 1:
      product = vmulq_laneq_u32(cleared, k->inverse, 1);
      break;
    case 2:
      product = vmulq_laneq_u32(cleared, k->inverse, 2);
      break;
    case 3:
      product = vmulq_laneq_u32(cleared, k->inverse, 3);
      break;
    default:
      product = vmulq_laneq_u32(cleared, k->inverse4, 0);
      break;
  }
  return vsraq_n_s32(accumulator, vreinterpretq_s32_u32(product), 6);
}

/* Requantized bytes of four accumulators (pixels x = 0..3 of an output row), in the variant of
 * requantize-neon.h. */
QWINO_INLINE uint8x16_t requantize_row(const int32x4_t acc[4], const struct f43_group* g,
                                       const struct f43_constants* k, int variant) {
  int32x4_t r[4];
  _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) {
    r[x] = qwino_neon_requantize_s32x4(acc[x], &g->ch, &k->q, variant);
  }
  return qwino_neon_narrow_4x4(r[0], r[1], r[2], r[3], &k->q, variant);
}

/* Output row y: pixel (y, x) at output + x * pixel_stride, `count` bytes each. */
QWINO_INLINE void store_row(uint8x16_t bytes, uint8_t* output, size_t pixel_stride, size_t columns,
                            size_t count) {
  if (columns == 4 && count == 4) {
    /* memcpy: the lane-store intrinsics are plain uint32_t stores in GCC's arm_neon.h, which
     * would alias uint8_t output. */
    const uint32x4_t words = vreinterpretq_u32_u8(bytes);
    const uint32_t w0 = vgetq_lane_u32(words, 0), w1 = vgetq_lane_u32(words, 1);
    const uint32_t w2 = vgetq_lane_u32(words, 2), w3 = vgetq_lane_u32(words, 3);
    memcpy(output, &w0, 4);
    memcpy(output + pixel_stride, &w1, 4);
    memcpy(output + 2 * pixel_stride, &w2, 4);
    memcpy(output + 3 * pixel_stride, &w3, 4);
  } else {
    uint8_t buffer[16];
    vst1q_u8(buffer, bytes);
    for (size_t x = 0; x < columns; x++) {
      memcpy(output + x * pixel_stride, buffer + 4 * x, count);
    }
  }
}

/* Modes of one block's pass: FINISH requantizes and stores each output row as soon as it is
 * known (one block: the accumulators start at the bias); FIRST and NEXT leave accumulators in
 * acc (starting at the bias, or adding to acc) for a later requantize_store_rows. */
enum { FINISH, FIRST, NEXT };

QWINO_INLINE void output_row(int mode, int y, const uint32x4_t z[4], const struct f43_group* g,
                             int32x4_t acc[4][4], const struct f43_constants* k, int variant,
                             uint8_t* output, size_t row_stride, size_t pixel_stride, size_t rows,
                             size_t columns, size_t count) {
  static const int ex[4] = {0, 1, 2, 2};
  int32x4_t r[4];
  _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) {
    r[x] = recover_add(mode == NEXT ? acc[y][x] : g->bias, z[x], ex[y] + ex[x], k);
  }
  if (mode == FINISH) {
    if ((size_t)y < rows) {
      store_row(requantize_row(r, g, k, variant), output + y * row_stride, pixel_stride, columns,
                count);
    }
  } else {
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) { acc[y][x] = r[x]; }
  }
}

/* One block of 4 channels at m (position p at m + p * stride bytes), in the order of the
 * header comment. */
QWINO_INLINE void block4(int mode, const int32_t* m, size_t stride, const struct f43_group* g,
                         int32x4_t acc[4][4], const struct f43_constants* k, int variant,
                         uint8_t* output, size_t row_stride, size_t pixel_stride, size_t rows,
                         size_t columns, size_t count) {
  uint32x4_t p[4], w[4], z[4];
  {
    const int32_t* row = (const int32_t*)((const char*)m + 6 * stride);
    uint32x4_t t1[4], t2[4], t3[4], t4[4];
    row_transform(&row, stride, t1);
    row_transform(&row, stride, t2);
    row_transform(&row, stride, t3);
    row_transform(&row, stride, t4);
    uint32x4_t z1[4];
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) {
      const uint32x4_t s1 = vaddq_u32(t1[x], t2[x]);
      const uint32x4_t d1 = vsubq_u32(t1[x], t2[x]);
      const uint32x4_t s2 = vaddq_u32(t3[x], t4[x]);
      const uint32x4_t d2 = vsubq_u32(t3[x], t4[x]);
      z1[x] = vaddq_u32(vaddq_u32(d1, d1), d2);
      z[x] = vaddq_u32(s1, s2);
      const uint32x4_t s1x2 = vaddq_u32(s1, s1);
      p[x] = vaddq_u32(vaddq_u32(s1x2, s1x2), s2);
      w[x] = vaddq_u32(vaddq_u32(d2, d2), d1);
    }
    output_row(mode, 1, z1, g, acc, k, variant, output, row_stride, pixel_stride, rows, columns,
               count);
  }
  output_row(mode, 2, z, g, acc, k, variant, output, row_stride, pixel_stride, rows, columns,
             count);
  {
    const int32_t* row = m;
    uint32x4_t t0[4];
    row_transform(&row, stride, t0);
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) { z[x] = add_6x(p[x], t0[x]); }
    output_row(mode, 0, z, g, acc, k, variant, output, row_stride, pixel_stride, rows, columns,
               count);
  }
  {
    const int32_t* row = (const int32_t*)((const char*)m + 30 * stride);
    uint32x4_t t5[4];
    row_transform(&row, stride, t5);
    _Pragma("GCC unroll 4") for (int x = 0; x < 4; x++) { z[x] = add_6x(w[x], t5[x]); }
    output_row(mode, 3, z, g, acc, k, variant, output, row_stride, pixel_stride, rows, columns,
               count);
  }
}

QWINO_INLINE void requantize_store_rows(const int32x4_t acc[4][4], const struct f43_group* g,
                                        const struct f43_constants* k, int variant, uint8_t* output,
                                        size_t row_stride, size_t pixel_stride, size_t rows,
                                        size_t columns, size_t count) {
  for (size_t y = 0; y < rows; y++) {
    store_row(requantize_row(acc[y], g, k, variant), output + y * row_stride, pixel_stride, columns,
              count);
  }
}

/* `variant` is a constant at every call. */
QWINO_INLINE void channel_loop(size_t channels, size_t blocks, const int32_t* m,
                               size_t m_position_stride, size_t m_block_stride,
                               const int32_t* channel_params, uint8_t* output,
                               size_t output_row_stride, size_t output_pixel_stride, size_t rows,
                               size_t columns, const union qwino_qu8_requantization_params* params,
                               int variant) {
  struct f43_constants k;
  const uint32_t inverse[4] = {QWINO_F43_INVERSE_OF_9, QWINO_F43_INVERSE_OF_9 << 1,
                               QWINO_F43_INVERSE_OF_9 << 2, QWINO_F43_INVERSE_OF_9 << 3};
  k.inverse = vld1q_u32(inverse);
  k.inverse4 = vdupq_n_u32(QWINO_F43_INVERSE_OF_9 << 4);
  k.q = qwino_neon_requantization_init(params, variant);
  /* Opaque to the compiler: otherwise it folds the known 9^-1 vectors into literal-pool
   * constants (one per exponent) and reloads them, instead of multiplying by element. */
  __asm__("" : "+w"(k.inverse), "+w"(k.inverse4));
  const size_t channel_stride = qwino_neon_channel_stride(params, variant);
  const size_t stride = m_position_stride * sizeof(int32_t);
  size_t c = 0;
  if (blocks == 1) {
    for (; c + 4 <= channels; c += 4) {
      const struct f43_group g = load_group(channel_params + c, channel_stride, variant);
      block4(FINISH, m + c, stride, &g, NULL, &k, variant, output + c, output_row_stride,
             output_pixel_stride, rows, columns, 4);
    }
  } else {
    for (; c + 4 <= channels; c += 4) {
      int32x4_t acc[4][4];
      struct f43_group g;
      g.bias = vld1q_s32(channel_params + c);
      block4(FIRST, m + c, stride, &g, acc, &k, variant, output + c, output_row_stride,
             output_pixel_stride, rows, columns, 4);
      for (size_t b = 1; b < blocks; b++) {
        block4(NEXT, m + b * m_block_stride + c, stride, &g, acc, &k, variant, output + c,
               output_row_stride, output_pixel_stride, rows, columns, 4);
      }
      /* Loaded only now: held across the blocks, they would be spilled. */
      g.ch = qwino_neon_load_channels(channel_params + c, channel_stride, variant);
      requantize_store_rows(acc, &g, &k, variant, output + c, output_row_stride,
                            output_pixel_stride, rows, columns, 4);
    }
  }
  if (c < channels) {
    const size_t tail = channels - c;
    int32_t channel_buffer[QWINO_MAX_CHANNEL_ARRAYS * 4];
    qwino_neon_stage_channels(channel_buffer, 4, channel_params + c, channel_stride, tail, variant);
    const struct f43_group g = load_group(channel_buffer, 4, variant);
    /* NEXT from accumulators at the bias for every block: no FIRST copy of block4 here. */
    int32x4_t acc[4][4];
    for (int y = 0; y < 4; y++) {
      for (int x = 0; x < 4; x++) {
        acc[y][x] = g.bias;
      }
    }
    for (size_t b = 0; b < blocks; b++) {
      int32_t m_buffer[36][4];
      memset(m_buffer, 0, sizeof(m_buffer));
      for (size_t p = 0; p < 36; p++) {
        memcpy(m_buffer[p], m + b * m_block_stride + p * m_position_stride + c,
               tail * sizeof(int32_t));
      }
      block4(NEXT, &m_buffer[0][0], sizeof(m_buffer[0]), &g, acc, &k, variant, output + c,
             output_row_stride, output_pixel_stride, rows, columns, tail);
    }
    requantize_store_rows(acc, &g, &k, variant, output + c, output_row_stride, output_pixel_stride,
                          rows, columns, tail);
  }
}

/* The entries: one specialised body per variant. */
#define QWINO_CASE(variant)                                                                      \
  case variant:                                                                                  \
    channel_loop(channels, blocks, m, m_position_stride, m_block_stride, channel_params, output, \
                 output_row_stride, output_pixel_stride, rows, columns, params, variant);        \
    break;

void qwino_qu8_winograd_f4x4_output_gemmlowp_ukernel__neon(
    size_t channels, size_t blocks, const int32_t* m, size_t m_position_stride,
    size_t m_block_stride, const int32_t* channel_params, uint8_t* output, size_t output_row_stride,
    size_t output_pixel_stride, size_t rows, size_t columns,
    const union qwino_qu8_requantization_params* params) {
  switch (qwino_neon_sign_by_xor(qwino_neon_gemmlowp_variant(&params->gemmlowp, 0))) {
    QWINO_NEON_GEMMLOWP_CASES_SIGN_BY_XOR(QWINO_CASE)
  }
}

void qwino_qu8_winograd_f4x4_output_fp32_ukernel__neon(
    size_t channels, size_t blocks, const int32_t* m, size_t m_position_stride,
    size_t m_block_stride, const int32_t* channel_params, uint8_t* output, size_t output_row_stride,
    size_t output_pixel_stride, size_t rows, size_t columns,
    const union qwino_qu8_requantization_params* params) {
  switch (qwino_neon_sign_by_xor(qwino_neon_fp32_variant(&params->fp32))) {
    QWINO_CASE(QWINO_NEON_FP32 | QWINO_NEON_SIGN_BY_XOR)
  }
}
#undef QWINO_CASE
