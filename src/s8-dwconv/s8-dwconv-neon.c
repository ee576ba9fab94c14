/*
 * Depthwise convolution with fused requantization, NEON (ARMv8.0, no dot product), int8_taps
 * weights in blocks of CR = 16 channels: bit-exact twin of src/s8-dwconv/s8-dwconv-scalar.c
 * (contract: qwino_dwconv_ukernel_fn and enum qwino_dwconv_layout in qwino/ukernel-types.h) for
 * every input, both requantization modes, every per-channel parameter value of the documented
 * ranges, uint8 and int8 activations and outputs. Written for the Cortex-A72 (doc/DESIGN.md
 * section 6: 8-bit multiplies issue on pipe F0 only).
 *
 * Loops: 16-channel block outside, output pixel inside, so that what belongs to the block stays
 * in registers across all its pixels: the per-channel requantization vectors (multipliers,
 * negated right shifts, left shifts; loaded and negated once per block, not per pixel) and, for
 * taps == 9 (3x3), all nine weight registers; for taps == 25 (5x5) the first KEPT_25 (see
 * there). Other tap counts load the weights per pixel. (The operator calls the kernel for one
 * output row, whose input rows stay in L1 while the blocks go by.) Per block and pixel the four
 * int32x4 accumulators start at the bias (loaded per pixel: two LDP q on the load pipe, cheaper
 * than four register copies on the ASIMD pipes), and the taps go in pairs, each pair
 *   LDP x  p_t, p_(t+1)        the taps' pointers (inline assembly: see load_a16x2)
 *   LDR q  a_t, a_(t+1)        16 input bytes at each tap's pointer + input_offset + c
 *   (EOR   a ^= a_sign)        only in the a_sign != 0 bodies (uint8 activations), see below
 *   (LDP q b_t, b_(t+1))       the taps' 16 weights (t * 16 in the block), unless in registers
 *   SMULL  lo = a_t.lo x b_t.lo       SMULL2 hi = a_t.hi x b_t.hi
 *   SMLAL  lo += a_(t+1).lo x b_(t+1).lo   SMLAL2 hi += a_(t+1).hi x b_(t+1).hi
 *   SADDW/SADDW2  acc0..acc3 += the int16 lanes of lo and hi, sign-extended
 * Exactness: a = (int8_t) (byte ^ a_sign) lies in [-128, 127] and the layout keeps every weight
 * in [-127, 127], so |a b| <= 16256 and a pair sums to within +-32512: the int16 lane never
 * wraps. SADDW adds modulo 2^32, as the contract's accumulators do, so the result equals the
 * scalar twin's whatever the order of the additions. An odd last tap is SMULL/SMULL2 + SADDW.
 * taps 9 and 25 are fully unrolled; other counts run 4 taps per loop iteration, then a pair and
 * a single tap as needed. Per 16 channels x 9 taps x pixel (objdump of GCC 12 -O3, gemmlowp
 * shortcut): 18 multiplies (pipe F0), 20 SADDW/SADDW2, 20 requantization and narrowing
 * instructions, on the load pipe 9 LDR q (inputs), 4 LDP + 1 LDR of pointers and 2 LDP q (bias),
 * one STR q: 66 ASIMD pipe-cycles (SQRDMULH and SRSHL take 2), no register copies; the A72
 * model's bound is the two ASIMD pipes, 33 cycles per 144 MACs.
 *
 * uint8 activations (a_sign != 0): neighbouring pixels share pointers (input_pixel_step < taps,
 * doc/DESIGN.md section 3), so in the unrolled paths the 16 bytes at each pointer of a run of
 * pixels are XORed once into a stack buffer (see STAGED_ROWS) which the run's pixels read instead:
 * for a 3x3 stride 1 row about 3 EORs per pixel and block instead of 9. Without enough pixels
 * for that to pay (see block16_fixed), and in the other paths, each tap's bytes are XORed.
 *
 * Requantization: src/qwino/requantization-neon.h (its comment has the argument for each step),
 * the variant chosen once per call (qwino_neon_gemmlowp_variant / qwino_neon_fp32_variant, with
 * the output type applied by XOR: qwino_neon_sign_by_xor), each variant x a_sign case its own
 * specialised body: per 16 outputs qwino_neon_requantize_s32x4 on the four accumulators, the
 * narrowing of qwino_neon_narrow_4x4_clamp, one 16-byte store.
 * The clamp (MAX and MIN) is skipped when the call's bounds are the whole range of the output
 * type (qwino_neon_full_range: a branch per pixel, no ASIMD work), since the saturating
 * narrowing already gives that range.
 * The multiply-accumulate steps of 16 lanes are inline assembly (see QWINO_MAC16_PAIR).
 *
 * Channel remainder (channels % 16): an 8-channel step (8-byte loads, SMULL/SMLAL, SADDW/SADDW2
 * into two accumulators; the weights keep the block's stride of 16 per tap), then 1..7 channels:
 * with channels >= 8 each tap reads the row's last 8 bytes (at input_offset + channels - 8, never
 * before input_offset) shifted right (USHL) so that the remaining channels land in the low lanes,
 * zeros above; with channels < 8 each tap's bytes are copied into a zeroed stack buffer. Either
 * way exactly `channels` bytes are read at each pointer; lanes past `channels` meet the weights'
 * zero padding and contribute nothing, and their results are not stored: the per-channel arrays
 * of the remainder are staged (qwino_neon_stage_channels) and the bytes go out through a stack
 * buffer, so exactly `channels` values are read per array and `channels` bytes written per pixel.
 * The remainder also runs block-outside, pixel-inside, with its per-channel vectors loaded once.
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"
#include "s8-dwconv/s8-dwconv-neon-entries.h"
#include "s8-dwconv/s8-dwconv-neon-tap.h"

#define CR 16

/*
 * acc0..acc3 += (a0 x b0 + a1 x b1), 16 lanes: SMULL/SMULL2 of the first tap, SMLAL/SMLAL2 of
 * the second into the same int16x8 (exact, see the top comment), SADDW/SADDW2 into the int32x4.
 * Inline assembly: with intrinsics GCC 12 copies the SMULL results into other registers before
 * the SMLALs (MOVs on the ASIMD pipes) once the taps are unrolled; here the int16x8 products
 * are scratch outputs of the statement.
 */
#define QWINO_MAC16_PAIR(acc0, acc1, acc2, acc3, a0, b0, a1, b1)                               \
  do {                                                                                         \
    int16x8_t lo_, hi_;                                                                        \
    __asm__(                                                                                   \
        "smull  %[lo].8h, %[x0].8b, %[y0].8b\n\t"                                              \
        "smull2 %[hi].8h, %[x0].16b, %[y0].16b\n\t"                                            \
        "smlal  %[lo].8h, %[x1].8b, %[y1].8b\n\t"                                              \
        "smlal2 %[hi].8h, %[x1].16b, %[y1].16b\n\t"                                            \
        "saddw  %[s0].4s, %[s0].4s, %[lo].4h\n\t"                                              \
        "saddw2 %[s1].4s, %[s1].4s, %[lo].8h\n\t"                                              \
        "saddw  %[s2].4s, %[s2].4s, %[hi].4h\n\t"                                              \
        "saddw2 %[s3].4s, %[s3].4s, %[hi].8h"                                                  \
        : [lo] "=&w"(lo_), [hi] "=&w"(hi_), [s0] "+w"(acc0), [s1] "+w"(acc1), [s2] "+w"(acc2), \
          [s3] "+w"(acc3)                                                                      \
        : [x0] "w"(a0), [y0] "w"(b0), [x1] "w"(a1), [y1] "w"(b1));                             \
  } while (0)

/* acc0, acc1 += (a0 x b0 + a1 x b1), 8 lanes. */
#define QWINO_MAC8_PAIR(acc0, acc1, a0, b0, a1, b1)          \
  do {                                                       \
    const int16x8_t p_ = vmlal_s8(vmull_s8(a0, b0), a1, b1); \
    acc0 = vaddw_s16(acc0, vget_low_s16(p_));                \
    acc1 = vaddw_high_s16(acc1, p_);                         \
  } while (0)

/* acc0, acc1 += a x b, 8 lanes. */
#define QWINO_MAC8_ONE(acc0, acc1, a, b)      \
  do {                                        \
    const int16x8_t p_ = vmull_s8(a, b);      \
    acc0 = vaddw_s16(acc0, vget_low_s16(p_)); \
    acc1 = vaddw_high_s16(acc1, p_);          \
  } while (0)

/* 16 input bytes of one tap as int8 (flip: XOR with a_sign; a constant in every body). */
QWINO_NEON_INLINE int8x16_t load_a16(const uint8_t* p, uint8x16_t vsign, int flip) {
  uint8x16_t x = vld1q_u8(p);
  if (flip) {
    x = veorq_u8(x, vsign);
  }
  return vreinterpretq_s8_u8(x);
}

/*
 * Two consecutive tap pointers with one LDP (the compiler, left to itself, loads most pointers
 * with single LDRs: one load-pipe cycle each), then 16 input bytes at each + offset.
 */
struct pointer_pair {
  const uint8_t* p[2];
};

QWINO_NEON_INLINE void load_a16x2(const uint8_t* const* pointers, size_t offset, uint8x16_t vsign,
                                  int flip, int8x16_t* a0, int8x16_t* a1) {
  const uint8_t* p0;
  const uint8_t* p1;
  __asm__("ldp %0, %1, %2" : "=r"(p0), "=r"(p1) : "Ump"(*(const struct pointer_pair*)pointers));
  *a0 = load_a16(p0 + offset, vsign, flip);
  *a1 = load_a16(p1 + offset, vsign, flip);
}

/* How the 8-lane step reads a tap's bytes (a constant in every instantiation). */
enum {
  LOAD8_FULL = 0,    /* 8 bytes at pointer + offset */
  LOAD8_SHIFTED = 1, /* 8 bytes at pointer + offset (= the row's last 8), >> by `shift` bits */
  LOAD8_STAGED = 2   /* `count` (< 8) bytes at pointer + offset through a zeroed buffer */
};

QWINO_NEON_INLINE int8x8_t load_a8(const uint8_t* p, int mode, int64x1_t shift, size_t count,
                                   uint8x8_t vsign, int flip) {
  uint8x8_t x;
  if (mode == LOAD8_FULL) {
    x = vld1_u8(p);
  } else if (mode == LOAD8_SHIFTED) {
    x = vreinterpret_u8_u64(vshl_u64(vreinterpret_u64_u8(vld1_u8(p)), shift));
  } else {
    uint8_t buffer[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(buffer, p, count);
    x = vld1_u8(buffer);
  }
  if (flip) {
    x = veor_u8(x, vsign);
  }
  return vreinterpret_s8_u8(x);
}

/* One pixel's 16 channels at `offset` (input_offset + c) of every tap: the four accumulators. */
QWINO_NEON_INLINE void taps16(size_t taps, const uint8_t* const* pointers, size_t offset,
                              const int8_t* w, uint8x16_t vsign, int flip, int32x4_t acc[4]) {
  int32x4_t acc0 = acc[0], acc1 = acc[1], acc2 = acc[2], acc3 = acc[3];
  /* 4 taps per iteration: the loop's pointer updates, count and branch are paid once. */
  for (size_t n = taps >> 2; n != 0; n--) {
    int8x16_t a0, a1, a2, a3;
    load_a16x2(pointers, offset, vsign, flip, &a0, &a1);
    load_a16x2(pointers + 2, offset, vsign, flip, &a2, &a3);
    pointers += 4;
    const int8x16_t b0 = vld1q_s8(w);
    const int8x16_t b1 = vld1q_s8(w + CR);
    const int8x16_t b2 = vld1q_s8(w + 2 * CR);
    const int8x16_t b3 = vld1q_s8(w + 3 * CR);
    w += 4 * CR;
    QWINO_MAC16_PAIR(acc0, acc1, acc2, acc3, a0, b0, a1, b1);
    QWINO_MAC16_PAIR(acc0, acc1, acc2, acc3, a2, b2, a3, b3);
  }
  if (taps & 2) {
    int8x16_t a0, a1;
    load_a16x2(pointers, offset, vsign, flip, &a0, &a1);
    pointers += 2;
    const int8x16_t b0 = vld1q_s8(w);
    const int8x16_t b1 = vld1q_s8(w + CR);
    w += 2 * CR;
    QWINO_MAC16_PAIR(acc0, acc1, acc2, acc3, a0, b0, a1, b1);
  }
  if (taps & 1) {
    const int8x16_t a = load_a16(pointers[0] + offset, vsign, flip);
    QWINO_MAC16_ONE(acc0, acc1, acc2, acc3, a, vld1q_s8(w));
  }
  acc[0] = acc0;
  acc[1] = acc1;
  acc[2] = acc2;
  acc[3] = acc3;
}

/* The same for 8 lanes; w points at the lanes' first weight of tap 0 (stride CR per tap). */
QWINO_NEON_INLINE void taps8(size_t taps, const uint8_t* const* pointers, size_t offset,
                             const int8_t* w, int mode, int64x1_t shift, size_t count,
                             uint8x8_t vsign, int flip, int32x4_t acc[2]) {
  int32x4_t acc0 = acc[0], acc1 = acc[1];
  size_t t = taps;
  for (; t >= 2; t -= 2) {
    const int8x8_t a0 = load_a8(pointers[0] + offset, mode, shift, count, vsign, flip);
    const int8x8_t a1 = load_a8(pointers[1] + offset, mode, shift, count, vsign, flip);
    pointers += 2;
    const int8x8_t b0 = vld1_s8(w);
    const int8x8_t b1 = vld1_s8(w + CR);
    w += 2 * CR;
    QWINO_MAC8_PAIR(acc0, acc1, a0, b0, a1, b1);
  }
  if (t != 0) {
    const int8x8_t a = load_a8(pointers[0] + offset, mode, shift, count, vsign, flip);
    QWINO_MAC8_ONE(acc0, acc1, a, vld1_s8(w));
  }
  acc[0] = acc0;
  acc[1] = acc1;
}

/* The four accumulators of 16 channels -> 16 output bytes at out. */
QWINO_NEON_INLINE void finish16(uint8_t* out, int32x4_t acc0, int32x4_t acc1, int32x4_t acc2,
                                int32x4_t acc3, const struct qwino_neon_channels* ch0,
                                const struct qwino_neon_channels* ch1,
                                const struct qwino_neon_channels* ch2,
                                const struct qwino_neon_channels* ch3,
                                const struct qwino_neon_requantization* k, int variant, int clamp) {
  const int32x4_t r0 = qwino_neon_requantize_s32x4(acc0, ch0, k, variant);
  const int32x4_t r1 = qwino_neon_requantize_s32x4(acc1, ch1, k, variant);
  const int32x4_t r2 = qwino_neon_requantize_s32x4(acc2, ch2, k, variant);
  const int32x4_t r3 = qwino_neon_requantize_s32x4(acc3, ch3, k, variant);
  vst1q_u8(out, qwino_neon_narrow_4x4_clamp(r0, r1, r2, r3, k, variant, clamp));
}

/*
 * The bias of 16 channels, loaded for each pixel: the empty asm makes the pointer opaque, so
 * that the compiler does not keep the loop-invariant bias in registers and copy it into the
 * accumulators (4 MOVs on the ASIMD pipes per pixel instead of 2 LDPs on the load pipe).
 */
QWINO_NEON_INLINE void load_bias16(const int32_t* cp, int32x4_t* acc0, int32x4_t* acc1,
                                   int32x4_t* acc2, int32x4_t* acc3) {
  __asm__("" : "+r"(cp));
  *acc0 = vld1q_s32(cp);
  *acc1 = vld1q_s32(cp + 4);
  *acc2 = vld1q_s32(cp + 8);
  *acc3 = vld1q_s32(cp + 12);
}

/*
 * The unrolled tap counts (3x3 and 5x5) keep the first `kept` weights of the block in registers
 * for all its pixels: all 9 of a 3x3 block; KEPT_25 of a 5x5 block, KEPT_25_FEW in the bodies
 * that need more registers of their own (uint8 activations, left shifts); the others are
 * loaded per pixel. More would not fit: GCC 12 then spills them (as many loads) and copies
 * accumulators between registers (ASIMD work); these keep the load pipe below the ASIMD pipes.
 */
#define KEPT_25 6
#define KEPT_25_FEW 4
#define MAX_KEPT 9

struct kept_weights {
  int8x16_t b[MAX_KEPT];
};

/*
 * Staging of the inputs for uint8 activations (flip): neighbouring pixels share pointers
 * (input_pixel_step < taps), so instead of XORing each tap's 16 bytes per pixel, the 16 bytes
 * at each pointer of a run of pixels are loaded, XORed once and stored into a stack buffer of
 * rows (16 bytes apart, pointer i of the run at row i), which the pixels of the run then read
 * in place of the pointers. The rows are exactly the bytes the pixels would read (every pointer
 * of a run belongs to one of its pixels when input_pixel_step <= taps). A run has at most
 * STAGED_ROWS pointers.
 */
#define STAGED_ROWS 192

/* Taps t and t + 1 of a pixel: through its pointers, or from its staged rows. */
QWINO_NEON_INLINE void load_taps2(const uint8_t* const* pointers, const int8_t* rows, int staged,
                                  size_t t, size_t offset, uint8x16_t vsign, int flip,
                                  int8x16_t* a0, int8x16_t* a1) {
  if (staged) {
    *a0 = vld1q_s8(rows + t * CR);
    *a1 = vld1q_s8(rows + (t + 1) * CR);
  } else {
    load_a16x2(pointers + t, offset, vsign, flip, a0, a1);
  }
}

QWINO_NEON_INLINE int8x16_t load_tap(const uint8_t* const* pointers, const int8_t* rows, int staged,
                                     size_t t, size_t offset, uint8x16_t vsign, int flip) {
  return staged ? vld1q_s8(rows + t * CR) : load_a16(pointers[t] + offset, vsign, flip);
}

/*
 * All pixels of a run for a fixed tap count T (a constant: 9 or 25), the first `kept` weights in
 * kw, the others at w; pixel p's taps through input + p * input_pixel_step or, staged, in rows
 * + p * input_pixel_step * CR.
 */
QWINO_NEON_INLINE void run16(size_t pixels, const size_t T, const size_t kept,
                             const uint8_t* const* input, const int8_t* rows, int staged,
                             size_t input_pixel_step, size_t offset, const struct kept_weights* kw,
                             const int8_t* w, const int32_t* cp,
                             const struct qwino_neon_channels* ch, uint8_t* output,
                             size_t output_pixel_stride, const struct qwino_neon_requantization* k,
                             int variant, int clamp, uint8x16_t vsign, int flip) {
  do {
    int32x4_t acc0, acc1, acc2, acc3;
    load_bias16(cp, &acc0, &acc1, &acc2, &acc3);
#pragma GCC unroll 16
    for (size_t t = 0; t + 1 < T; t += 2) {
      int8x16_t a0, a1;
      load_taps2(input, rows, staged, t, offset, vsign, flip, &a0, &a1);
      const int8x16_t b0 = t < kept ? kw->b[t] : vld1q_s8(w + t * CR);
      const int8x16_t b1 = t + 1 < kept ? kw->b[t + 1] : vld1q_s8(w + (t + 1) * CR);
      QWINO_MAC16_PAIR(acc0, acc1, acc2, acc3, a0, b0, a1, b1);
    }
    if (T & 1) {
      const int8x16_t a = load_tap(input, rows, staged, T - 1, offset, vsign, flip);
      const int8x16_t b = T - 1 < kept ? kw->b[T - 1] : vld1q_s8(w + (T - 1) * CR);
      QWINO_MAC16_ONE(acc0, acc1, acc2, acc3, a, b);
    }
    finish16(output, acc0, acc1, acc2, acc3, &ch[0], &ch[1], &ch[2], &ch[3], k, variant, clamp);
    if (staged) {
      rows += input_pixel_step * CR;
    } else {
      input += input_pixel_step;
    }
    output += output_pixel_stride;
  } while (--pixels != 0);
}

/* A block of 16 channels with a fixed tap count T (9 or 25): see block16. */
QWINO_NEON_INLINE void block16_fixed(size_t pixels, const size_t T, const size_t kept,
                                     const uint8_t* const* input, size_t input_pixel_step,
                                     size_t offset, const int8_t* w, const int32_t* cp,
                                     const struct qwino_neon_channels* ch, uint8_t* output,
                                     size_t output_pixel_stride,
                                     const struct qwino_neon_requantization* k, int variant,
                                     int clamp, uint8x16_t vsign, int flip) {
  struct kept_weights kw;
#pragma GCC unroll 16
  for (size_t t = 0; t < kept; t++) {
    kw.b[t] = vld1q_s8(w + t * CR);
  }
  /* Staging pays when it saves enough EORs: (pixels - 1) * (T - step) of pixels * T. */
  if (flip && input_pixel_step != 0 && input_pixel_step < T &&
      (pixels - 1) * (T - input_pixel_step) >= 3 * T) {
    int8_t rows[STAGED_ROWS * CR] __attribute__((aligned(16)));
    /* Pixels per run: their pointers, (run - 1) * step + T, fit in the buffer. */
    const size_t max_run = (STAGED_ROWS - T) / input_pixel_step + 1;
    do {
      const size_t run = pixels < max_run ? pixels : max_run;
      const size_t n = (run - 1) * input_pixel_step + T;
      size_t i = 0;
      for (; i + 2 <= n; i += 2) {
        int8x16_t x0, x1;
        load_a16x2(input + i, offset, vsign, 1, &x0, &x1);
        vst1q_s8(rows + i * CR, x0);
        vst1q_s8(rows + (i + 1) * CR, x1);
      }
      if (i != n) {
        vst1q_s8(rows + i * CR, load_a16(input[i] + offset, vsign, 1));
      }
      run16(run, T, kept, input, rows, 1, input_pixel_step, offset, &kw, w, cp, ch, output,
            output_pixel_stride, k, variant, clamp, vsign, flip);
      input += run * input_pixel_step;
      output += run * output_pixel_stride;
      pixels -= run;
    } while (pixels != 0);
  } else {
    run16(pixels, T, kept, input, NULL, 0, input_pixel_step, offset, &kw, w, cp, ch, output,
          output_pixel_stride, k, variant, clamp, vsign, flip);
  }
}

/*
 * All pixels of one block of 16 channels: the per-channel vectors (and, for taps 9 and 25, the
 * first weights, see KEPT_25) are loaded once for the block; per pixel only the inputs, the
 * pointers, the bias and the other weights are loaded. offset: input_offset + the block's first
 * channel; w, cp: the block's weights and per-channel arrays; output: the block's first channel
 * in pixel 0.
 */
QWINO_NEON_INLINE void block16(size_t pixels, size_t taps, const uint8_t* const* input,
                               size_t input_pixel_step, size_t offset, const int8_t* w,
                               const int32_t* cp, size_t stride, uint8_t* output,
                               size_t output_pixel_stride,
                               const struct qwino_neon_requantization* k, int variant, int clamp,
                               uint8x16_t vsign, int flip) {
  const struct qwino_neon_channels ch[4] = {qwino_neon_load_channels(cp, stride, variant),
                                            qwino_neon_load_channels(cp + 4, stride, variant),
                                            qwino_neon_load_channels(cp + 8, stride, variant),
                                            qwino_neon_load_channels(cp + 12, stride, variant)};
  if (taps == 9) { /* 3x3: fully unrolled, all weights in registers */
    block16_fixed(pixels, 9, 9, input, input_pixel_step, offset, w, cp, ch, output,
                  output_pixel_stride, k, variant, clamp, vsign, flip);
  } else if (taps == 25) { /* 5x5: fully unrolled */
    const size_t kept =
        flip || QWINO_NEON_FORM(variant) == QWINO_NEON_GEMMLOWP_LEFT_SHIFT ? KEPT_25_FEW : KEPT_25;
    block16_fixed(pixels, 25, kept, input, input_pixel_step, offset, w, cp, ch, output,
                  output_pixel_stride, k, variant, clamp, vsign, flip);
  } else {
    do {
      int32x4_t acc[4];
      load_bias16(cp, &acc[0], &acc[1], &acc[2], &acc[3]);
      taps16(taps, input, offset, w, vsign, flip, acc);
      finish16(output, acc[0], acc[1], acc[2], acc[3], &ch[0], &ch[1], &ch[2], &ch[3], k, variant,
               clamp);
      input += input_pixel_step;
      output += output_pixel_stride;
    } while (--pixels != 0);
  }
}

/*
 * All pixels of 8 (mode LOAD8_FULL) or `count` < 8 channels starting at channel c: offset is
 * where each tap's read starts (input_offset + c, or the row's last 8 bytes for LOAD8_SHIFTED),
 * w the first weight of these channels in their block, cp the per-channel arrays (`stride`
 * apart) at channel c, or a staged copy for count < 8; output: channel c of pixel 0. The
 * per-channel vectors are loaded once, the weights per pixel.
 */
QWINO_NEON_INLINE void block8(size_t pixels, size_t taps, const uint8_t* const* input,
                              size_t input_pixel_step, size_t offset, const int8_t* w,
                              const int32_t* cp, size_t stride, uint8_t* output,
                              size_t output_pixel_stride, const struct qwino_neon_requantization* k,
                              int variant, int mode, int64x1_t shift, size_t count, uint8x8_t vsign,
                              int flip) {
  const struct qwino_neon_channels ch_lo = qwino_neon_load_channels(cp, stride, variant);
  const struct qwino_neon_channels ch_hi = qwino_neon_load_channels(cp + 4, stride, variant);
  do {
    const int32_t* bias = cp;
    __asm__("" : "+r"(bias)); /* reload per pixel, see load_bias16 */
    int32x4_t acc[2] = {vld1q_s32(bias), vld1q_s32(bias + 4)};
    taps8(taps, input, offset, w, mode, shift, count, vsign, flip, acc);
    const int32x4_t lo = qwino_neon_requantize_s32x4(acc[0], &ch_lo, k, variant);
    const int32x4_t hi = qwino_neon_requantize_s32x4(acc[1], &ch_hi, k, variant);
    /* The high 8 bytes repeat the low 8. */
    const uint8x8_t bytes = vget_low_u8(qwino_neon_narrow_4x4(lo, hi, lo, hi, k, variant));
    qwino_neon_store_upto8(output, mode == LOAD8_FULL ? 8 : count, bytes);
    input += input_pixel_step;
    output += output_pixel_stride;
  } while (--pixels != 0);
}

QWINO_NEON_INLINE void dwconv(QWINO_NEON_DWCONV_BODY_PARAMETERS) {
  const struct qwino_neon_requantization* k = call->k;
  const size_t stride = call->stride;
  const uint8x16_t vsign = call->vsign;
  const size_t block_bytes = taps * CR;
  const size_t full = channels & ~(size_t)(CR - 1);
  const size_t rest = channels - full;    /* 0..15 */
  const size_t count = rest & 7;          /* the last channels, after an 8-step */
  const size_t start = full + (rest & 8); /* the first of them */

  const int clamp = call->clamp;
  const int8_t* w = weights;
  for (size_t c = 0; c < full; c += CR) {
    block16(pixels, taps, input, input_pixel_step, input_offset + c, w, channel_params + c, stride,
            output + c, output_pixel_stride, k, variant, clamp, vsign, flip);
    w += block_bytes;
  }
  if (rest & 8) {
    block8(pixels, taps, input, input_pixel_step, input_offset + full, w, channel_params + full,
           stride, output + full, output_pixel_stride, k, variant, LOAD8_FULL, vdup_n_s64(0), 8,
           vget_low_u8(vsign), flip);
  }
  if (count != 0) {
    /* Their per-channel arrays, staged once for all pixels. */
    int32_t staged[QWINO_MAX_CHANNEL_ARRAYS * 8];
    qwino_neon_stage_channels(staged, 8, channel_params + start, stride, count, variant);
    if (channels >= 8) {
      /* The last 8 bytes of each row, shifted right by 8 - count bytes. */
      const int64x1_t shift = vdup_n_s64(-(int64_t)(8 - count) * 8);
      block8(pixels, taps, input, input_pixel_step, input_offset + channels - 8, w + (rest & 8),
             staged, 8, output + start, output_pixel_stride, k, variant, LOAD8_SHIFTED, shift,
             count, vget_low_u8(vsign), flip);
    } else {
      block8(pixels, taps, input, input_pixel_step, input_offset + start, w + (rest & 8), staged, 8,
             output + start, output_pixel_stride, k, variant, LOAD8_STAGED, vdup_n_s64(0), count,
             vget_low_u8(vsign), flip);
    }
  }
}

QWINO_NEON_DWCONV_ENTRIES_SIGN_BY_XOR(dwconv, qwino_s8_dwconv_gemmlowp_ukernel_up16__neon_mlal,
                                      qwino_s8_dwconv_fp32_ukernel_up16__neon_mlal)
