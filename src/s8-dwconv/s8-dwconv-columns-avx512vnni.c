/*
 * Depthwise convolution with fused requantization, AVX-512 VNNI (VPDPBUSD), for kernels of 3
 * rows (int8_col3 weights, CR = 16): bit-exact twin of qwino_s8_dwconv_*_ukernel_up8__scalar_col3
 * (src/s8-dwconv/s8-dwconv-scalar.c; contract: qwino_dwconv_ukernel_fn and enum
 * qwino_dwconv_layout in qwino/ukernel-types.h) for every input, both requantization modes,
 * every per-channel parameter value the shared requantization (src/qwino/requantization-
 * avx512skx.h) takes, uint8 and int8 activations and outputs.
 *
 * Why: the int16 tap-pair kernel (src/s8-dwconv/s8-dwconv-avx512vnni.c) spends about 30 shuffles
 * per 64 outputs widening bytes into pairs; here the SDOT kernel's scheme
 * (src/s8-dwconv/s8-dwconv-columns-neondot.c, seed 004's idea) runs on VPDPBUSD, which adds 4
 * byte products of a 32-bit lane: a kernel column's 3 taps of one channel are one lane. A
 * column of 16 channels is transposed once from its 3 input rows (each broadcast to the 4
 * 128-bit lanes by its load; three VPSHUFB put channel 4L + j's byte of rows 0, 1, 2, 2 into
 * dword j of lane L, a VPTERNLOGD ORs them) and shared by the pixels that read it: the operator's
 * pointers are column-major with input_pixel_step = 3 x stride, column j at input + 3 j. Pixels go
 * in groups of 4 (one narrowing of 4 registers, 16 bytes a pixel): at stride 1 a group transposes
 * 4 new columns and keeps 2 of the previous group's, at stride 2 8 new and 1 kept; a pixel costs
 * 3 VPDPBUSD. Other steps or column counts, and a last group of 1-3 pixels, transpose every
 * column of every pixel (correct for any layer of such kernels).
 *
 * Exactness: VPDPBUSD multiplies unsigned bytes by signed ones, so A goes in as
 * u = byte ^ a_sign ^ 0x80 = a + 128 (a = (int8_t) (byte ^ a_sign), the contract's value; the
 * XOR only for int8 activations): sum u b = sum a b + 128 sum b, and the accumulators start at
 * bias - 128 sum b (one VPDPBUSD of 0x80 bytes per column and block, modulo 2^32 like the adds).
 * Products |u b| <= 255 x 128, four to a lane, added modulo 2^32 (the non-saturating VPDPBUSD):
 * the twin's sum in any order. The 4th byte of a lane meets the layout's 0.
 *
 * Channel remainder (channels % 16): the last block reads exactly `count` bytes of each row
 * (masked loads) and writes exactly `count` bytes per pixel (masked stores); its per-channel
 * values are loaded under the same mask.
 */
#include <immintrin.h>

#include "qwino/requantization-avx512skx.h"
#include "qwino/ukernels.h"
#include "s8-dwconv/s8-dwconv-x86-entries.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

#define CR 16
#define COLUMN_BYTES (CR * 4)

/* What a block's pixels share. */
struct block {
  __m512i w[3];   /* the block's weights, column by column (columns == 3) */
  __m512i start;  /* bias - 128 sum b */
  __m512i row[3]; /* VPSHUFB indices: rows 0, 1, 2 into bytes 0, 1, 2 and 3 of their dword */
  __m512i flipv;  /* a_sign ^ 0x80 in every byte */
  struct qwino_avx512_channels ch;
  __mmask16 mask; /* the block's channels */
};

/* The transposed column at col (3 row pointers, each + offset): lane c = channel c's bytes of
 * rows 0, 1, 2, 2, as u = byte ^ a_sign ^ 0x80 (flip: the XOR is needed). */
QWINO_INLINE __m512i column(const uint8_t* const* col, size_t offset, const struct block* b,
                            int flip, int partial) {
  __m512i r[3];
  for (int i = 0; i < 3; i++) {
    const uint8_t* p = col[i] + offset;
    r[i] = partial ? _mm512_broadcast_i32x4(_mm_maskz_loadu_epi8(b->mask, p))
                   : _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i*)p));
  }
  const __m512i x = _mm512_ternarylogic_epi32(_mm512_shuffle_epi8(r[0], b->row[0]),
                                              _mm512_shuffle_epi8(r[1], b->row[1]),
                                              _mm512_shuffle_epi8(r[2], b->row[2]), 0xFE);
  return flip ? _mm512_xor_si512(x, b->flipv) : x;
}

/* Requantized and narrowed: pixel k's 16 bytes in 128-bit lane k. */
QWINO_INLINE __m512i finish(const __m512i acc[4], const struct block* b,
                            const struct qwino_avx512_requantization* q, int form, int is_signed) {
  __m512i v[4];
  for (int k = 0; k < 4; k++) {
    v[k] = qwino_avx512_requantize(acc[k], &b->ch, q, form);
  }
  return qwino_avx512_narrow_4x16(v[0], v[1], v[2], v[3], q, form, is_signed);
}

QWINO_INLINE void store16(uint8_t* out, __m128i bytes, const struct block* b, int partial) {
  if (partial) {
    _mm_mask_storeu_epi8(out, b->mask, bytes);
  } else {
    _mm_storeu_si128((__m128i*)out, bytes);
  }
}

/* Groups of 4 pixels of a 3-column kernel at stride s (1 or 2, a constant): pixel p's columns
 * are s p .. s p + 2; the group's last 3 - s columns are the next group's first. Returns the
 * pixels done (a multiple of 4). */
QWINO_INLINE size_t sliding_groups(size_t pixels, const uint8_t* const* input, size_t offset,
                                   uint8_t* output, size_t output_stride, const struct block* b,
                                   const struct qwino_avx512_requantization* q, int form,
                                   int is_signed, int flip, int s) {
  enum { kColumns = 4 * 2 + 1 }; /* 3 s + 3 at most */
  const int group_columns = 3 * s + 3;
  const int kept = 3 - s;
  __m512i c[kColumns];
  size_t p = 0;
  if (pixels >= 4) {
    for (int j = 0; j < kept; j++) {
      c[j] = column(input + 3 * (size_t)j, offset, b, flip, 0);
    }
  }
  for (; p + 4 <= pixels; p += 4) {
    const uint8_t* const* first = input + 3 * s * p;
#pragma GCC unroll 9
    for (int j = kept; j < group_columns; j++) {
      c[j] = column(first + 3 * (size_t)j, offset, b, flip, 0);
    }
    __m512i acc[4];
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
      acc[k] = _mm512_dpbusd_epi32(b->start, c[s * k], b->w[0]);
      acc[k] = _mm512_dpbusd_epi32(acc[k], c[s * k + 1], b->w[1]);
      acc[k] = _mm512_dpbusd_epi32(acc[k], c[s * k + 2], b->w[2]);
    }
    const __m512i bytes = finish(acc, b, q, form, is_signed);
    uint8_t* out = output + p * output_stride;
    _mm_storeu_si128((__m128i*)out, _mm512_castsi512_si128(bytes));
    _mm_storeu_si128((__m128i*)(out + output_stride), _mm512_extracti32x4_epi32(bytes, 1));
    _mm_storeu_si128((__m128i*)(out + 2 * output_stride), _mm512_extracti32x4_epi32(bytes, 2));
    _mm_storeu_si128((__m128i*)(out + 3 * output_stride), _mm512_extracti32x4_epi32(bytes, 3));
#pragma GCC unroll 2
    for (int j = 0; j < kept; j++) {
      c[j] = c[group_columns - kept + j];
    }
  }
  return p;
}

/* Pixels from p on, each alone: every column transposed, the weights read per column. */
QWINO_INLINE void single_pixels(size_t p, size_t pixels, size_t columns,
                                const uint8_t* const* input, size_t step, size_t offset,
                                const int8_t* weights, uint8_t* output, size_t output_stride,
                                const struct block* b, const struct qwino_avx512_requantization* q,
                                int form, int is_signed, int flip, int partial) {
  for (; p < pixels; p++) {
    __m512i acc[4];
    acc[0] = b->start;
    for (size_t dx = 0; dx < columns; dx++) {
      const __m512i x = column(input + p * step + 3 * dx, offset, b, flip, partial);
      acc[0] = _mm512_dpbusd_epi32(acc[0], x, _mm512_loadu_si512(weights + dx * COLUMN_BYTES));
    }
    acc[1] = acc[2] = acc[3] = acc[0];
    const __m512i bytes = finish(acc, b, q, form, is_signed);
    store16(output + p * output_stride, _mm512_castsi512_si128(bytes), b, partial);
  }
}

QWINO_INLINE void dwconv3(QWINO_X86_DWCONV_BODY_PARAMETERS) {
  const struct qwino_avx512_requantization q =
      qwino_avx512_requantization_init(params, form, is_signed);
  const size_t columns = taps / 3;
  const size_t block_bytes = qwino_dwconv_block_bytes(qwino_dwconv_layout_int8_col3, taps, CR);
  struct block b;
  {
    int8_t index[3][64];
    for (int at = 0; at < 64; at++) {
      const int8_t channel = (int8_t)(at / 16 * 4 + at % 16 / 4), byte = (int8_t)(at % 4);
      index[0][at] = byte == 0 ? channel : -128;
      index[1][at] = byte == 1 ? channel : -128;
      index[2][at] = byte >= 2 ? channel : -128;
    }
    for (int i = 0; i < 3; i++) {
      b.row[i] = _mm512_loadu_si512(index[i]);
    }
  }
  b.flipv = _mm512_set1_epi8((char)(a_sign ^ 0x80));
  const __m512i high_bits = _mm512_set1_epi8((char)0x80);
  for (size_t c = 0; c < channels; c += CR) {
    const size_t count = channels - c < CR ? channels - c : CR;
    const int8_t* w = (const int8_t*)packed_weights + c / CR * block_bytes;
    b.mask = (__mmask16)((1u << count) - 1);
    b.ch = qwino_avx512_load_channels(channel_params + c, q.channel_stride, b.mask, &q, form);
    __m512i weighted = _mm512_setzero_si512();
    for (size_t dx = 0; dx < columns; dx++) {
      weighted =
          _mm512_dpbusd_epi32(weighted, high_bits, _mm512_loadu_si512(w + dx * COLUMN_BYTES));
    }
    b.start = _mm512_sub_epi32(b.ch.bias, weighted);
    uint8_t* out = output + c;
    const size_t offset = input_offset + c;
    size_t done = 0;
    if (count == CR && columns == 3 && (input_pixel_step == 3 || input_pixel_step == 6) &&
        !QWINO_X86_DWCONV_COMPACT(form)) {
      for (int i = 0; i < 3; i++) {
        b.w[i] = _mm512_loadu_si512(w + i * COLUMN_BYTES);
      }
      done = input_pixel_step == 3 ? sliding_groups(pixels, input, offset, out, output_pixel_stride,
                                                    &b, &q, form, is_signed, flip, 1)
                                   : sliding_groups(pixels, input, offset, out, output_pixel_stride,
                                                    &b, &q, form, is_signed, flip, 2);
    }
    if (count == CR) {
      single_pixels(done, pixels, columns, input, input_pixel_step, offset, w, out,
                    output_pixel_stride, &b, &q, form, is_signed, flip, 0);
    } else {
      single_pixels(done, pixels, columns, input, input_pixel_step, offset, w, out,
                    output_pixel_stride, &b, &q, form, is_signed, flip, 1);
    }
  }
}

#define QWINO_X86_DWCONV_FN dwconv3
QWINO_X86_DWCONV_ENTRY(qwino_s8_dwconv_gemmlowp_ukernel_up16__avx512vnni_col3, gemmlowp)
QWINO_X86_DWCONV_ENTRY(qwino_s8_dwconv_fp32_ukernel_up16__avx512vnni_col3, fp32)
