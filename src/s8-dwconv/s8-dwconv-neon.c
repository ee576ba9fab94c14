/*
 * Depthwise convolution with fused requantization, NEON (ARMv8.0, no dot product), int8_taps
 * weights in blocks of CR = 16 channels: bit-exact twin of src/s8-dwconv/s8-dwconv-scalar.c
 * (contract: qwino_dwconv_ukernel_fn and enum qwino_dwconv_layout in qwino/ukernel-types.h) for
 * every input, both requantization modes, every per-channel parameter value of the documented
 * ranges, uint8 and int8 activations and outputs. Written for the Cortex-A72 (doc/DESIGN.md
 * section 6: 8-bit multiplies issue on pipe F0 only).
 *
 * Loops: output pixel outside, 16-channel block inside (a pixel's input rows stay in L1 while
 * its blocks go by; the packed weights of all blocks are shared by all pixels). Per block the
 * four int32x4 accumulators start at the bias, and the taps go in pairs, each pair
 *   LDR q  a_t, a_(t+1)        16 input bytes at each tap's pointer + input_offset + c
 *   (EOR   a ^= a_sign)        only in the a_sign != 0 body (uint8 activations)
 *   LDP q  b_t, b_(t+1)        the taps' 16 weights, consecutive in the block (t * 16)
 *   SMULL  lo = a_t.lo x b_t.lo       SMULL2 hi = a_t.hi x b_t.hi
 *   SMLAL  lo += a_(t+1).lo x b_(t+1).lo   SMLAL2 hi += a_(t+1).hi x b_(t+1).hi
 *   SADDW/SADDW2  acc0..acc3 += the int16 lanes of lo and hi, sign-extended
 * Exactness: a = (int8_t) (byte ^ a_sign) lies in [-128, 127] and the layout keeps every weight
 * in [-127, 127], so |a b| <= 16256 and a pair sums to within +-32512: the int16 lane never
 * wraps. SADDW adds modulo 2^32, as the contract's accumulators do, so the result equals the
 * scalar twin's whatever the order of the additions. An odd last tap is SMULL/SMULL2 + SADDW.
 * taps == 9 (3x3) is fully unrolled; other counts run 4 taps per loop iteration, then a pair
 * and a single tap as needed. Per 16 channels x 9 taps (objdump of GCC 12 -O3): 18 multiplies
 * (pipe F0), 20 SADDW/SADDW2, 9 EORs only with a_sign != 0, and on the load pipe 9 LDR q
 * (inputs), 4 LDP q + 1 LDR q (weights), 4 LDP + 1 LDR of pointers: 58 instructions (67 with
 * the EORs), no register copies. The generic loop: 27 (31) instructions per 4 taps.
 *
 * Requantization: src/qwino/requantization-neon.h (its comment has the argument for each step),
 * the variant chosen once per call (qwino_neon_gemmlowp_variant / qwino_neon_fp32_variant), each
 * variant x a_sign case its own specialised body. The bias and the per-channel vectors are
 * loaded per block and pixel (the bias before the taps, the others after): per 16 outputs
 * qwino_neon_requantize_s32x4 on the four accumulators, qwino_neon_narrow_4x4, one 16-byte
 * store (gemmlowp shortcut: 26 ASIMD instructions including the 4 NEGs of the right shifts;
 * fp32: 22).
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
 */
#include <arm_neon.h>
#include <string.h>

#include "qwino/requantization-neon.h"
#include "qwino/ukernels.h"

#define CR 16

#define QWINO_DWCONV_NOINLINE static __attribute__((noinline))

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
    __asm__("smull  %[lo].8h, %[x0].8b, %[y0].8b\n\t"                                          \
            "smull2 %[hi].8h, %[x0].16b, %[y0].16b\n\t"                                        \
            "smlal  %[lo].8h, %[x1].8b, %[y1].8b\n\t"                                          \
            "smlal2 %[hi].8h, %[x1].16b, %[y1].16b\n\t"                                        \
            "saddw  %[s0].4s, %[s0].4s, %[lo].4h\n\t"                                          \
            "saddw2 %[s1].4s, %[s1].4s, %[lo].8h\n\t"                                          \
            "saddw  %[s2].4s, %[s2].4s, %[hi].4h\n\t"                                          \
            "saddw2 %[s3].4s, %[s3].4s, %[hi].8h"                                              \
            : [lo] "=&w"(lo_), [hi] "=&w"(hi_), [s0] "+w"(acc0), [s1] "+w"(acc1),             \
              [s2] "+w"(acc2), [s3] "+w"(acc3)                                                 \
            : [x0] "w"(a0), [y0] "w"(b0), [x1] "w"(a1), [y1] "w"(b1));                         \
  } while (0)

/* acc0..acc3 += a x b, 16 lanes (an odd last tap). */
#define QWINO_MAC16_ONE(acc0, acc1, acc2, acc3, a, b)                                          \
  do {                                                                                         \
    int16x8_t lo_, hi_;                                                                        \
    __asm__("smull  %[lo].8h, %[x].8b, %[y].8b\n\t"                                            \
            "smull2 %[hi].8h, %[x].16b, %[y].16b\n\t"                                          \
            "saddw  %[s0].4s, %[s0].4s, %[lo].4h\n\t"                                          \
            "saddw2 %[s1].4s, %[s1].4s, %[lo].8h\n\t"                                          \
            "saddw  %[s2].4s, %[s2].4s, %[hi].4h\n\t"                                          \
            "saddw2 %[s3].4s, %[s3].4s, %[hi].8h"                                              \
            : [lo] "=&w"(lo_), [hi] "=&w"(hi_), [s0] "+w"(acc0), [s1] "+w"(acc1),             \
              [s2] "+w"(acc2), [s3] "+w"(acc3)                                                 \
            : [x] "w"(a), [y] "w"(b));                                                         \
  } while (0)

/* acc0, acc1 += (a0 x b0 + a1 x b1), 8 lanes. */
#define QWINO_MAC8_PAIR(acc0, acc1, a0, b0, a1, b1)                                            \
  do {                                                                                         \
    const int16x8_t p_ = vmlal_s8(vmull_s8(a0, b0), a1, b1);                                   \
    acc0 = vaddw_s16(acc0, vget_low_s16(p_));                                                  \
    acc1 = vaddw_high_s16(acc1, p_);                                                           \
  } while (0)

/* acc0, acc1 += a x b, 8 lanes. */
#define QWINO_MAC8_ONE(acc0, acc1, a, b)                                                       \
  do {                                                                                         \
    const int16x8_t p_ = vmull_s8(a, b);                                                       \
    acc0 = vaddw_s16(acc0, vget_low_s16(p_));                                                  \
    acc1 = vaddw_high_s16(acc1, p_);                                                           \
  } while (0)

/* 16 input bytes of one tap as int8 (flip: XOR with a_sign; a constant in every body). */
QWINO_NEON_INLINE int8x16_t load_a16(const uint8_t* p, uint8x16_t vsign, int flip) {
  uint8x16_t x = vld1q_u8(p);
  if (flip) {
    x = veorq_u8(x, vsign);
  }
  return vreinterpretq_s8_u8(x);
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
    const int8x16_t a0 = load_a16(pointers[0] + offset, vsign, flip);
    const int8x16_t a1 = load_a16(pointers[1] + offset, vsign, flip);
    const int8x16_t a2 = load_a16(pointers[2] + offset, vsign, flip);
    const int8x16_t a3 = load_a16(pointers[3] + offset, vsign, flip);
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
    const int8x16_t a0 = load_a16(pointers[0] + offset, vsign, flip);
    const int8x16_t a1 = load_a16(pointers[1] + offset, vsign, flip);
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

/*
 * 8 (mode LOAD8_FULL) or `count` < 8 channels of one pixel starting at channel c: offset is
 * where each tap's read starts (input_offset + c, or the row's last 8 bytes for LOAD8_SHIFTED),
 * w the first weight of these channels in their block, cp the per-channel arrays (`stride`
 * apart) at channel c, or a staged copy for count < 8.
 */
QWINO_NEON_INLINE void step8(size_t taps, const uint8_t* const* pointers, size_t offset,
                             const int8_t* w, const int32_t* cp, size_t stride, uint8_t* out,
                             const struct qwino_neon_requantization* k, int variant, int mode,
                             int64x1_t shift, size_t count, uint8x8_t vsign, int flip) {
  int32x4_t acc[2] = {vld1q_s32(cp), vld1q_s32(cp + 4)};
  taps8(taps, pointers, offset, w, mode, shift, count, vsign, flip, acc);
  const struct qwino_neon_channels ch_lo = qwino_neon_load_channels(cp, stride, variant);
  const struct qwino_neon_channels ch_hi = qwino_neon_load_channels(cp + 4, stride, variant);
  const int32x4_t lo = qwino_neon_requantize_s32x4(acc[0], &ch_lo, k, variant);
  const int32x4_t hi = qwino_neon_requantize_s32x4(acc[1], &ch_hi, k, variant);
  /* The high 8 bytes repeat the low 8. */
  const uint8x8_t bytes = vget_low_u8(qwino_neon_narrow_4x4(lo, hi, lo, hi, k, variant));
  if (mode == LOAD8_FULL) {
    vst1_u8(out, bytes);
  } else {
    uint8_t buffer[8];
    vst1_u8(buffer, bytes);
    memcpy(out, buffer, count);
  }
}

QWINO_NEON_INLINE void dwconv(size_t channels, size_t pixels, size_t taps,
                              const uint8_t* const* input, size_t input_pixel_step,
                              size_t input_offset, uint8_t a_sign, const int8_t* weights,
                              const int32_t* channel_params, uint8_t* output,
                              size_t output_pixel_stride,
                              const union qwino_qu8_requantization_params* params, int variant,
                              int flip) {
  const struct qwino_neon_requantization k = qwino_neon_requantization_init(params, variant);
  const size_t stride = qwino_neon_channel_stride(params, variant);
  const uint8x16_t vsign = vdupq_n_u8(a_sign);
  const size_t block_bytes = taps * CR;
  const size_t full = channels & ~(size_t) (CR - 1);
  const size_t rest = channels - full;          /* 0..15 */
  const size_t count = rest & 7;                /* the last channels, after an 8-step */
  const size_t start = full + (rest & 8);       /* the first of them */
  /* Their per-channel arrays, staged once for all pixels. */
  int32_t staged[QWINO_MAX_CHANNEL_ARRAYS * 8];
  if (count != 0) {
    qwino_neon_stage_channels(staged, 8, channel_params + start, stride, count, variant);
  }
  /* With channels >= 8, the last 8 bytes of each row, shifted right by 8 - count bytes. */
  const int64x1_t shift = vdup_n_s64(-(int64_t) (8 - count) * 8);
  const size_t shifted_offset = input_offset + channels - 8;

  do {
    const uint8_t* const* pointers = input;
    const int8_t* w = weights;
    size_t c = 0;
    for (; c < full; c += CR) {
      const int32_t* cp = channel_params + c;
      int32x4_t acc[4] = {vld1q_s32(cp), vld1q_s32(cp + 4), vld1q_s32(cp + 8),
                          vld1q_s32(cp + 12)};
      if (taps == 9) { /* 3x3: fully unrolled, no loop overhead */
        taps16(9, pointers, input_offset + c, w, vsign, flip, acc);
      } else {
        taps16(taps, pointers, input_offset + c, w, vsign, flip, acc);
      }
      const struct qwino_neon_channels ch0 = qwino_neon_load_channels(cp, stride, variant);
      const struct qwino_neon_channels ch1 = qwino_neon_load_channels(cp + 4, stride, variant);
      const struct qwino_neon_channels ch2 = qwino_neon_load_channels(cp + 8, stride, variant);
      const struct qwino_neon_channels ch3 = qwino_neon_load_channels(cp + 12, stride, variant);
      const int32x4_t r0 = qwino_neon_requantize_s32x4(acc[0], &ch0, &k, variant);
      const int32x4_t r1 = qwino_neon_requantize_s32x4(acc[1], &ch1, &k, variant);
      const int32x4_t r2 = qwino_neon_requantize_s32x4(acc[2], &ch2, &k, variant);
      const int32x4_t r3 = qwino_neon_requantize_s32x4(acc[3], &ch3, &k, variant);
      vst1q_u8(output + c, qwino_neon_narrow_4x4(r0, r1, r2, r3, &k, variant));
      w += block_bytes;
    }
    if (rest != 0) {
      if (rest & 8) {
        step8(taps, pointers, input_offset + c, w, channel_params + c, stride, output + c, &k,
              variant, LOAD8_FULL, shift, 8, vget_low_u8(vsign), flip);
      }
      if (count != 0) {
        if (channels >= 8) {
          step8(taps, pointers, shifted_offset, w + (rest & 8), staged, 8, output + start, &k,
                variant, LOAD8_SHIFTED, shift, count, vget_low_u8(vsign), flip);
        } else {
          step8(taps, pointers, input_offset + start, w + (rest & 8), staged, 8, output + start,
                &k, variant, LOAD8_STAGED, shift, count, vget_low_u8(vsign), flip);
        }
      }
    }
    input += input_pixel_step;
    output += output_pixel_stride;
  } while (--pixels != 0);
}

/* One specialised body per variant and a_sign case. */
#define QWINO_BODY(name, variant, flip)                                                         \
  QWINO_DWCONV_NOINLINE void name(size_t channels, size_t pixels, size_t taps,                  \
                                  const uint8_t* const* input, size_t input_pixel_step,        \
                                  size_t input_offset, uint8_t a_sign, const int8_t* weights,  \
                                  const int32_t* channel_params, uint8_t* output,              \
                                  size_t output_pixel_stride,                                  \
                                  const union qwino_qu8_requantization_params* params) {       \
    dwconv(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign, weights,     \
           channel_params, output, output_pixel_stride, params, variant, flip);                \
  }
#define QWINO_BODIES(name, variant) \
  QWINO_BODY(name##_int8_input, variant, 0) QWINO_BODY(name##_uint8_input, variant, 1)

QWINO_BODIES(gemmlowp_shortcut, QWINO_NEON_GEMMLOWP_SHORTCUT)
QWINO_BODIES(gemmlowp_general, QWINO_NEON_GEMMLOWP_GENERAL)
QWINO_BODIES(gemmlowp_left_shift, QWINO_NEON_GEMMLOWP_LEFT_SHIFT)
QWINO_BODIES(gemmlowp_shortcut_s8, QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_INT8)
QWINO_BODIES(gemmlowp_general_s8, QWINO_NEON_GEMMLOWP_GENERAL | QWINO_NEON_INT8)
QWINO_BODIES(gemmlowp_left_shift_s8, QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_INT8)
QWINO_BODIES(fp32, QWINO_NEON_FP32)
QWINO_BODIES(fp32_s8, QWINO_NEON_FP32 | QWINO_NEON_INT8)

#define QWINO_CASE(variant, name)                                                               \
  case variant:                                                                                 \
    (a_sign != 0 ? name##_uint8_input : name##_int8_input)(                                     \
        channels, pixels, taps, input, input_pixel_step, input_offset, a_sign,                  \
        (const int8_t*) packed_weights, channel_params, output, output_pixel_stride, params);   \
    break;

void qwino_s8_dwconv_gemmlowp_ukernel_up16__neon_mlal(
    size_t channels, size_t pixels, size_t taps, const uint8_t* const* input,
    size_t input_pixel_step, size_t input_offset, uint8_t a_sign, const void* packed_weights,
    const int32_t* channel_params, uint8_t* output, size_t output_pixel_stride,
    const union qwino_qu8_requantization_params* params) {
  switch (qwino_neon_gemmlowp_variant(&params->gemmlowp, 1)) {
    QWINO_CASE(QWINO_NEON_GEMMLOWP_SHORTCUT, gemmlowp_shortcut)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_GENERAL, gemmlowp_general)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_LEFT_SHIFT, gemmlowp_left_shift)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_SHORTCUT | QWINO_NEON_INT8, gemmlowp_shortcut_s8)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_GENERAL | QWINO_NEON_INT8, gemmlowp_general_s8)
    QWINO_CASE(QWINO_NEON_GEMMLOWP_LEFT_SHIFT | QWINO_NEON_INT8, gemmlowp_left_shift_s8)
  }
}

void qwino_s8_dwconv_fp32_ukernel_up16__neon_mlal(
    size_t channels, size_t pixels, size_t taps, const uint8_t* const* input,
    size_t input_pixel_step, size_t input_offset, uint8_t a_sign, const void* packed_weights,
    const int32_t* channel_params, uint8_t* output, size_t output_pixel_stride,
    const union qwino_qu8_requantization_params* params) {
  switch (qwino_neon_fp32_variant(&params->fp32)) {
    QWINO_CASE(QWINO_NEON_FP32, fp32)
    QWINO_CASE(QWINO_NEON_FP32 | QWINO_NEON_INT8, fp32_s8)
  }
}
#undef QWINO_CASE
