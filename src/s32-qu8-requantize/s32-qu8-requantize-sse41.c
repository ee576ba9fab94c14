/*
 * Bias + requantization of int32 accumulators into 8-bit values (the direct path's output
 * stage), SSE4.1: bit-exact twin of src/s32-qu8-requantize/s32-qu8-requantize-scalar.c, both
 * requantization modes, for every accumulator and bias and the parameter values that
 * src/qwino/requantization-sse41.h lists, for x86-64 CPUs without AVX2.
 *
 * The requantization works on blocks of 4 pixels x 4 channels (src/qwino/requantization-sse41.h,
 * whose comment has the argument for every step: the gemmlowp right shifts need the 4 pixels of
 * one channel in one vector). So the loops run over channel groups outside and blocks of 4
 * pixels inside: a group's per-channel values are loaded and turned into shift counts once per
 * call, not once per pixel. Groups are 16 channels (four blocks; a 4x4 transposition of their
 * dwords gives each pixel's 16 bytes for one store), then 4, then the tail (< 4), whose
 * per-channel values and accumulators are staged through stack buffers so that exactly
 * `channels` values are read per pixel and per channel array and `channels` bytes written per
 * pixel. A last, partial block of pixels (the direct path's regions are multiples of the GEMM's
 * MR, 4 for the SSE4.1 GEMM, except the last region: src/work-split.cc) repeats the last pixel's
 * row in place of the missing ones, so reads stay inside the accumulators, and stores those rows
 * to scratch. The bias add (PADDD) wraps modulo 2^32 like qwino_wrapping_add_s32.
 */
#include <smmintrin.h>
#include <string.h>

#include "qwino/requantization-sse41.h"
#include "qwino/ukernels.h"

/* 4 pixels (rows r[0..3], at the group's first channel) x 4 channels -> 16 bytes, pixel order. */
QWINO_SSE41_INLINE __m128i block4(const int32_t* const r[4], size_t offset,
                                  const struct qwino_sse41_channels* k,
                                  const struct qwino_sse41_requantization* q,
                                  enum qwino_sse41_form form) {
  __m128i x[4];
  for (int p = 0; p < 4; p++) {
    x[p] = _mm_add_epi32(_mm_loadu_si128((const __m128i*)(r[p] + offset)), k->bias);
  }
  return qwino_sse41_requantize_4x4(x[0], x[1], x[2], x[3], k, q, form);
}

/* 4 pixels (rows r[0..3], at the group's first channel) x 16 channels -> rows o[0..3]. */
QWINO_SSE41_INLINE void block16(const int32_t* const r[4], const struct qwino_sse41_channels k[4],
                                const struct qwino_sse41_requantization* q,
                                enum qwino_sse41_form form, uint8_t* const o[4]) {
  const __m128i b0 = block4(r, 0, &k[0], q, form);
  const __m128i b1 = block4(r, 4, &k[1], q, form);
  const __m128i b2 = block4(r, 8, &k[2], q, form);
  const __m128i b3 = block4(r, 12, &k[3], q, form);
  /* Dword i of block g is pixel i's channels 4g..4g+3. */
  const __m128i t01 = _mm_unpacklo_epi32(b0, b1), t23 = _mm_unpacklo_epi32(b2, b3);
  const __m128i u01 = _mm_unpackhi_epi32(b0, b1), u23 = _mm_unpackhi_epi32(b2, b3);
  _mm_storeu_si128((__m128i*)o[0], _mm_unpacklo_epi64(t01, t23));
  _mm_storeu_si128((__m128i*)o[1], _mm_unpackhi_epi64(t01, t23));
  _mm_storeu_si128((__m128i*)o[2], _mm_unpacklo_epi64(u01, u23));
  _mm_storeu_si128((__m128i*)o[3], _mm_unpackhi_epi64(u01, u23));
}

/* The last block has count (1..3) pixels: the missing rows repeat the last real one and are
 * stored to scratch. */
static inline void last_rows(size_t count, const int32_t* r[4], uint8_t* o[4], uint8_t* scratch) {
  if (count < 2) {
    r[1] = r[0];
    o[1] = scratch;
  }
  if (count < 3) {
    r[2] = r[1];
    o[2] = scratch;
  }
  r[3] = r[2];
  o[3] = scratch;
}

QWINO_SSE41_INLINE void requantize(size_t pixels, size_t channels, const int32_t* accumulators,
                                   size_t accumulator_stride, const int32_t* channel_params,
                                   uint8_t* output, size_t output_stride,
                                   const union qwino_qu8_requantization_params* params,
                                   enum qwino_sse41_form form) {
  const enum qwino_requantization_mode mode = QWINO_SSE41_MODE(form);
  const struct qwino_sse41_requantization q = qwino_sse41_requantization_init(params, mode);
  const size_t stride = qwino_sse41_channel_stride(params, mode);
  size_t c = 0;
  for (; c + 16 <= channels; c += 16) {
    struct qwino_sse41_channels k[4];
    for (int g = 0; g < 4; g++) {
      k[g] = qwino_sse41_load_channels(channel_params + c + 4 * g, stride, form);
    }
    uint8_t scratch[16]; /* the stores of the repeated rows */
    const int32_t* a = accumulators + c;
    uint8_t* out = output + c;
    for (size_t p = 0; p < pixels; p += 4) {
      const int32_t* r[4] = {a, a + accumulator_stride, a + 2 * accumulator_stride,
                             a + 3 * accumulator_stride};
      uint8_t* o[4] = {out, out + output_stride, out + 2 * output_stride, out + 3 * output_stride};
      if (__builtin_expect(pixels - p < 4, 0)) {
        last_rows(pixels - p, r, o, scratch);
      }
      block16(r, k, &q, form, o);
      a += 4 * accumulator_stride;
      out += 4 * output_stride;
    }
  }
  /* Groups of 4 channels, then the tail (< 4) through the buffers. */
  for (; c < channels; c += 4) {
    const size_t group = channels - c < 4 ? channels - c : 4;
    const int32_t* values = channel_params + c;
    size_t values_stride = stride;
    int32_t value_buffer[QWINO_MAX_CHANNEL_ARRAYS][4];
    if (group < 4) {
      const size_t arrays = qwino_sse41_channel_arrays(mode);
      memset(value_buffer, 0, sizeof(value_buffer));
      for (size_t i = 0; i < arrays; i++) {
        memcpy(value_buffer[i], channel_params + i * stride + c, group * sizeof(int32_t));
      }
      values = value_buffer[0];
      values_stride = 4;
    }
    const struct qwino_sse41_channels k = qwino_sse41_load_channels(values, values_stride, form);
    for (size_t p = 0; p < pixels; p += 4) {
      const size_t count = pixels - p < 4 ? pixels - p : 4;
      int32_t buffer[4][4];
      const int32_t* r[4];
      for (size_t i = 0; i < 4; i++) {
        r[i] = accumulators + (p + (i < count ? i : count - 1)) * accumulator_stride + c;
        if (group < 4) {
          memset(buffer[i], 0, sizeof(buffer[i]));
          memcpy(buffer[i], r[i], group * sizeof(int32_t));
          r[i] = buffer[i];
        }
      }
      uint8_t bytes[16];
      _mm_storeu_si128((__m128i*)bytes, block4(r, 0, &k, &q, form));
      for (size_t i = 0; i < count; i++) {
        memcpy(output + (p + i) * output_stride + c, bytes + 4 * i, group);
      }
    }
  }
}

/* One entry per mode; QWINO_SSE41_DISPATCH instantiates the body once per form of the mode. */
#define QWINO_REQUANTIZE_CALL(form)                                                      \
  requantize(pixels, channels, accumulators, accumulator_stride, channel_params, output, \
             output_stride, params, form)
#define QWINO_REQUANTIZE_ENTRY(mode)                                                          \
  void qwino_s32_qu8_requantize_##mode##_ukernel__sse41(                                      \
      size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride, \
      const int32_t* channel_params, uint8_t* output, size_t output_stride,                   \
      const union qwino_qu8_requantization_params* params) {                                  \
    QWINO_SSE41_DISPATCH(qwino_requantization_##mode, params, QWINO_REQUANTIZE_CALL);         \
  }
QWINO_REQUANTIZE_ENTRY(gemmlowp)
QWINO_REQUANTIZE_ENTRY(fp32)
