/*
 * Depthwise convolution with fused requantization, AVX-512 VNNI, int16_tap_pairs weights
 * (CR = 64): bit-exact twin of qwino_s8_dwconv_*_ukernel_up8__scalar_madd
 * (src/s8-dwconv/s8-dwconv-scalar.c) for every input byte, a_sign, int16 weight, bias and
 * requantization parameter the shared requantization (src/qwino/requantization-avx512skx.h)
 * takes.
 *
 * Arithmetic: the AVX2 kernel's (src/s8-dwconv/s8-dwconv-avx2.c, where the argument is in full).
 * A = (int8) (byte ^ a_sign) = x - 128 with x = byte ^ a_sign ^ 0x80 in [0, 255], so the
 * accumulators start at bias - 128 sum_t B_t (modulo 2^32) and multiply the zero-extended x, the
 * byte itself for uint8 activations. One VPDPWSSD multiplies the int16 pairs (x_t, x_t+1) of 16
 * channels by their (B_t, B_t+1) and adds both products to the int32 lane: |x B| <= 255 * 32768,
 * so the pair sum is exact in int32 and the add wraps modulo 2^32 like the scalar twin's (the
 * non-saturating VPDPWSSD, not VPDPWSSDS). Per tap pair and 64 channels: 2 byte unpacks, 4
 * unpacks with zero and 4 VPDPWSSD (the AVX2 kernel needs 14 instructions for half the
 * channels). An odd last tap pairs with itself: its partner weight is 0 in the layout, so no
 * pointer past `taps` is read.
 *
 * Lane order. The in-lane unpacks leave vector k (0..3) holding channels 16L + 4k .. 16L + 4k + 3
 * of 128-bit lane L; the block's weights and per-channel values are put in that order once per
 * call (stack buffers), and the narrowing's in-lane packs then give the 64 bytes in channel order
 * (qwino_avx512_narrow_4x16_in_lanes). Blocks of 64 channels; a last block of 33..63 channels
 * reads and writes through byte masks (fault-suppressing loads, masked stores), one of 1..32
 * channels runs two pixels per register (the low 256 bits pixel p, the high 256 bits pixel p + 1,
 * the weights repeated), so 32-channel layers fill the registers. So exactly `channels` bytes are
 * read at each pointer + input_offset and written per output pixel. Two pixel groups (pixels, or
 * pixel pairs) go through the tap pairs together, so their accumulator chains and
 * requantizations overlap; a last group goes alone. Taps beyond the stack
 * buffer's 64 read their weights in lane order from the packed block at every pixel (slower,
 * correct).
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/requantization-avx512skx.h"
#include "qwino/ukernels.h"
#include "s8-dwconv/s8-dwconv-x86-entries.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

#define CR 64
/* Tap pairs the stack buffer holds: 64 taps, 8 KiB. */
#define MAX_PAIRS 32

/* The 4 x 4 transpose of 128-bit blocks: out[k] block L = in[L] block k, which takes 64 values in
 * channel order (in[L] = channels 16L .. 16L + 15) to lane order (out[k] lane L = channels
 * 16L + 4k .. + 3). */
QWINO_INLINE void transpose_blocks(const __m512i in[4], __m512i out[4]) {
  const __m512i t0 = _mm512_shuffle_i32x4(in[0], in[1], 0x44);
  const __m512i t1 = _mm512_shuffle_i32x4(in[0], in[1], 0xEE);
  const __m512i t2 = _mm512_shuffle_i32x4(in[2], in[3], 0x44);
  const __m512i t3 = _mm512_shuffle_i32x4(in[2], in[3], 0xEE);
  out[0] = _mm512_shuffle_i32x4(t0, t2, 0x88);
  out[1] = _mm512_shuffle_i32x4(t0, t2, 0xDD);
  out[2] = _mm512_shuffle_i32x4(t1, t3, 0x88);
  out[3] = _mm512_shuffle_i32x4(t1, t3, 0xDD);
}

/* Pair `pair`'s weights of the 64 channels of one packed block in lane order: vector k, lane L
 * holds channels 16L + 4k .. + 3 (with `half`: lanes 2, 3 repeat lanes 0, 1, for two pixels of
 * the block's first 32 channels). A channel's weight pair is one int32, so this is the block
 * transpose of the pair's 64 int32. */
QWINO_INLINE void lane_order_pair(const int16_t* block, size_t pair, int half, __m512i out[4]) {
  const int16_t* w = block + pair * CR * 2;
  __m512i in[4];
  for (int L = 0; L < 4; L++) {
    in[L] = _mm512_loadu_si512((const void*)(w + 32 * L));
  }
  if (half) {
    in[2] = in[0];
    in[3] = in[1];
  }
  transpose_blocks(in, out);
}

/* The per-channel values of `count` channels from c (p = channel_params + c, arrays `stride`
 * apart) in lane order (repeated for `half`), zeros past count, prepared for the form; their
 * bias less 128 x the weight sums (per lane-order vector). Masked loads (exactly count values of
 * each array) and one block transpose per array: this runs once per call, i.e. per output row,
 * and a 112-pixel row of 32 channels is only about 2500 cycles of work. */
QWINO_INLINE void lane_order_channels(const int32_t* p, size_t stride, size_t count, int half,
                                      const __m512i weight_sum[4],
                                      const struct qwino_avx512_requantization* q, int form,
                                      struct qwino_avx512_channels ch[4]) {
  int32_t staged[QWINO_MAX_CHANNEL_ARRAYS][CR];
  const int arrays = form == qwino_x86_fp32 ? QWINO_FP32_ARRAYS : QWINO_MAX_CHANNEL_ARRAYS;
  for (int i = 0; i < arrays; i++) {
    __m512i in[4], out[4];
    for (int L = 0; L < 4; L++) {
      const size_t first = 16 * (size_t)L;
      const size_t n = count > first ? (count - first < 16 ? count - first : 16) : 0;
      in[L] = _mm512_maskz_loadu_epi32((__mmask16)((1u << n) - 1), p + i * stride + first);
    }
    if (half) {
      in[2] = in[0];
      in[3] = in[1];
    }
    transpose_blocks(in, out);
    for (int k = 0; k < 4; k++) {
      _mm512_storeu_si512((void*)&staged[i][16 * k], out[k]);
    }
  }
  for (int k = 0; k < 4; k++) {
    ch[k] = qwino_avx512_load_channels(&staged[0][16 * k], CR, (__mmask16)0xFFFF, q, form);
    ch[k].bias = _mm512_sub_epi32(ch[k].bias, _mm512_slli_epi32(weight_sum[k], 7));
  }
}

/* acc[k] += the products of one tap pair (x0, x1: the taps' 64 bytes). */
QWINO_INLINE void dot_pair(__m512i acc[4], __m512i x0, __m512i x1, const __m512i w[4]) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i lo = _mm512_unpacklo_epi8(x0, x1);
  const __m512i hi = _mm512_unpackhi_epi8(x0, x1);
  acc[0] = _mm512_dpwssd_epi32(acc[0], _mm512_unpacklo_epi8(lo, zero), w[0]);
  acc[1] = _mm512_dpwssd_epi32(acc[1], _mm512_unpackhi_epi8(lo, zero), w[1]);
  acc[2] = _mm512_dpwssd_epi32(acc[2], _mm512_unpacklo_epi8(hi, zero), w[2]);
  acc[3] = _mm512_dpwssd_epi32(acc[3], _mm512_unpackhi_epi8(hi, zero), w[3]);
}

/* The x bytes of one tap: 64 channels at p (exactly the bytes of `mask`), or with `half` 32
 * channels of two pixels, p (low half) and p_high (high half). */
QWINO_INLINE __m512i load_x(const uint8_t* p, const uint8_t* p_high, int half, __mmask64 mask,
                            __m512i flipv, int flip) {
  __m512i x;
  if (half) {
    const __m256i l = _mm256_maskz_loadu_epi8((__mmask32)mask, p);
    const __m256i h = _mm256_maskz_loadu_epi8((__mmask32)mask, p_high);
    x = _mm512_inserti64x4(_mm512_castsi256_si512(l), h, 1);
  } else {
    x = _mm512_maskz_loadu_epi8(mask, p);
  }
  return flip ? _mm512_xor_si512(x, flipv) : x;
}

/* `groups` (1 or 2) pixel groups from pixel p (a group is one pixel, or two with `half`): their
 * tap pairs in one loop, so that the two accumulator chains and requantizations overlap, then
 * their bytes. */
QWINO_INLINE void pixel_groups(int groups, size_t p, size_t pixels, size_t step, size_t taps,
                               size_t pairs, const uint8_t* const* input, size_t input_pixel_step,
                               size_t offset, const int16_t* weights, const __m512i* wbuf,
                               int staged, const struct qwino_avx512_channels ch[4],
                               const struct qwino_avx512_requantization* q, uint8_t* output,
                               size_t output_pixel_stride, int form, int is_signed, __m512i flipv,
                               int flip, int half, __mmask64 mask) {
  const uint8_t* const* r[2];
  const uint8_t* const* r_high[2];
  int second[2];
  __m512i acc[2][4];
  for (int g = 0; g < groups; g++) {
    const size_t first = p + (size_t)g * step;
    second[g] = half && first + 1 < pixels;
    r[g] = input + first * input_pixel_step;
    r_high[g] = second[g] ? r[g] + input_pixel_step : r[g];
    for (int k = 0; k < 4; k++) {
      acc[g][k] = ch[k].bias;
    }
  }
  for (size_t pair = 0; pair < pairs; pair++) {
    const size_t t = 2 * pair;
    const size_t t1 = t + 1 < taps ? t + 1 : t;
    __m512i on_the_fly[4];
    const __m512i* w = &wbuf[pair * 4];
    if (!staged) {
      lane_order_pair(weights, pair, half, on_the_fly);
      w = on_the_fly;
    }
    for (int g = 0; g < groups; g++) {
      const __m512i x0 = load_x(r[g][t] + offset, r_high[g][t] + offset, half, mask, flipv, flip);
      const __m512i x1 = load_x(r[g][t1] + offset, r_high[g][t1] + offset, half, mask, flipv, flip);
      dot_pair(acc[g], x0, x1, w);
    }
  }
  for (int g = 0; g < groups; g++) {
    __m512i v[4];
    for (int k = 0; k < 4; k++) {
      v[k] = qwino_avx512_requantize(acc[g][k], &ch[k], q, form);
    }
    const __m512i bytes =
        qwino_avx512_narrow_4x16_in_lanes(v[0], v[1], v[2], v[3], q, form, is_signed);
    uint8_t* out = output + (p + (size_t)g * step) * output_pixel_stride;
    if (half) {
      _mm256_mask_storeu_epi8(out, (__mmask32)mask, _mm512_castsi512_si256(bytes));
      if (second[g]) {
        _mm256_mask_storeu_epi8(out + output_pixel_stride, (__mmask32)mask,
                                _mm512_extracti64x4_epi64(bytes, 1));
      }
    } else {
      _mm512_mask_storeu_epi8(out, mask, bytes);
    }
  }
}

/* One block of `count` channels (1..64; with `half`, 1..32 of two pixels a register) at channel
 * offset `offset` of every pointer: all pixels. */
QWINO_INLINE void block(size_t count, size_t pixels, size_t taps, const uint8_t* const* input,
                        size_t input_pixel_step, size_t offset, const int16_t* weights,
                        const int32_t* channel_params, size_t stride,
                        const struct qwino_avx512_requantization* q, uint8_t* output,
                        size_t output_pixel_stride, int form, int is_signed, __m512i flipv,
                        int flip, int half) {
  const size_t pairs = (taps + 1) / 2;
  const int staged = pairs <= MAX_PAIRS;
  __m512i wbuf[MAX_PAIRS * 4];
  __m512i weight_sum[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                           _mm512_setzero_si512()};
  const __m512i ones = _mm512_set1_epi16(1);
  for (size_t pair = 0; pair < pairs; pair++) {
    __m512i w[4];
    lane_order_pair(weights, pair, half, w);
    for (int k = 0; k < 4; k++) {
      weight_sum[k] = _mm512_add_epi32(weight_sum[k], _mm512_madd_epi16(w[k], ones));
      if (staged) {
        wbuf[pair * 4 + k] = w[k];
      }
    }
  }
  struct qwino_avx512_channels ch[4];
  lane_order_channels(channel_params, stride, count, half, weight_sum, q, form, ch);
  const __mmask64 mask = count >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << count) - 1;
  const size_t step = half ? 2 : 1;
  size_t p = 0;
  for (; p + 2 * step <= pixels; p += 2 * step) {
    pixel_groups(2, p, pixels, step, taps, pairs, input, input_pixel_step, offset, weights, wbuf,
                 staged, ch, q, output, output_pixel_stride, form, is_signed, flipv, flip, half,
                 mask);
  }
  for (; p < pixels; p += step) {
    pixel_groups(1, p, pixels, step, taps, pairs, input, input_pixel_step, offset, weights, wbuf,
                 staged, ch, q, output, output_pixel_stride, form, is_signed, flipv, flip, half,
                 mask);
  }
}

QWINO_INLINE void dwconv(QWINO_X86_DWCONV_BODY_PARAMETERS) {
  const struct qwino_avx512_requantization q =
      qwino_avx512_requantization_init(params, form, is_signed);
  const size_t stride = q.channel_stride;
  const __m512i flipv = _mm512_set1_epi8((char)(a_sign ^ 0x80));
  const size_t block_elements =
      qwino_dwconv_block_bytes(qwino_dwconv_layout_int16_tap_pairs, taps, CR) / sizeof(int16_t);
  const int16_t* weights = (const int16_t*)packed_weights;
  for (size_t c = 0; c < channels; c += CR) {
    const size_t count = channels - c < CR ? channels - c : CR;
    const int16_t* w = weights + c / CR * block_elements;
    if (count <= 32 && !QWINO_X86_DWCONV_COMPACT(form)) {
      block(count, pixels, taps, input, input_pixel_step, input_offset + c, w, channel_params + c,
            stride, &q, output + c, output_pixel_stride, form, is_signed, flipv, flip, 1);
    } else {
      block(count, pixels, taps, input, input_pixel_step, input_offset + c, w, channel_params + c,
            stride, &q, output + c, output_pixel_stride, form, is_signed, flipv, flip, 0);
    }
  }
}

#define QWINO_X86_DWCONV_FN dwconv
QWINO_X86_DWCONV_ENTRY(qwino_s8_dwconv_gemmlowp_ukernel_up64__avx512vnni_dpwssd, gemmlowp)
QWINO_X86_DWCONV_ENTRY(qwino_s8_dwconv_fp32_ukernel_up64__avx512vnni_dpwssd, fp32)
