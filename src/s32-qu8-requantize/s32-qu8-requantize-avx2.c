/*
 * Bias + requantization of int32 accumulators into 8-bit values (the direct path's output stage),
 * AVX2: bit-exact twin of src/s32-qu8-requantize/s32-qu8-requantize-scalar.c for every
 * accumulator and bias and every parameter the scalar twin takes (gemmlowp multipliers but
 * INT32_MIN), both requantization modes, uint8 and int8 outputs.
 *
 * Channels sit in lanes. The loops run over channel groups outside and pixels inside: 32
 * channels (four ymm of 8 int32, one 32-byte store) for all pixels, then groups of 8, so the
 * per-channel vectors of a group (src/qwino/requantization-avx2.h: loaded and prepared once)
 * serve every pixel; the accumulators are the caller's GEMM block, in cache. The channel tail
 * (< 8) stages the per-channel values, the accumulators and the bytes through stack buffers,
 * so that exactly `channels` values are read per pixel and per array and `channels` bytes
 * written per pixel. The bias add (VPADDD) wraps modulo 2^32 like qwino_wrapping_add_s32. The
 * requantization and the narrowing are src/qwino/requantization-avx2.h (shared with the output
 * transforms; its comment has the argument for every step); one always-inline body, specialised
 * on the mode and the gemmlowp form, for both output types, by
 * QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/requantization-avx2.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* acc + bias (wrapping), requantized. */
QWINO_INLINE __m256i requantize8(const int32_t* accumulators, const struct qwino_avx2_channels* ch,
                                 const struct qwino_avx2_requantization* q, int form) {
  const __m256i x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i*)accumulators), ch->bias);
  return qwino_avx2_requantize(x, ch, q, form);
}

/* 8 channels -> the low 8 bytes. */
QWINO_INLINE __m128i bytes8(const int32_t* accumulators, const struct qwino_avx2_channels* ch,
                            const struct qwino_avx2_requantization* q, int form, int is_signed) {
  const __m256i r = requantize8(accumulators, ch, q, form);
  return _mm256_castsi256_si128(qwino_avx2_narrow_4x8(r, r, r, r, q, form, is_signed));
}

QWINO_INLINE void requantize(size_t pixels, size_t channels, const int32_t* accumulators,
                             size_t accumulator_stride, const int32_t* channel_params,
                             uint8_t* output, size_t output_stride,
                             const union qwino_qu8_requantization_params* params, int form,
                             int is_signed) {
  const struct qwino_avx2_requantization q =
      qwino_avx2_requantization_init(params, form, is_signed);
  const size_t stride = q.channel_stride;
  size_t c = 0;
  for (; c + 32 <= channels; c += 32) {
    struct qwino_avx2_channels ch[4];
    for (int g = 0; g < 4; g++) {
      ch[g] = qwino_avx2_load_channels(channel_params + c + 8 * g, stride, &q, form);
    }
    const int32_t* a = accumulators + c;
    uint8_t* o = output + c;
    for (size_t p = 0; p < pixels; p++) {
      const __m256i r0 = requantize8(a, &ch[0], &q, form);
      const __m256i r1 = requantize8(a + 8, &ch[1], &q, form);
      const __m256i r2 = requantize8(a + 16, &ch[2], &q, form);
      const __m256i r3 = requantize8(a + 24, &ch[3], &q, form);
      _mm256_storeu_si256((__m256i*)o, qwino_avx2_narrow_4x8(r0, r1, r2, r3, &q, form, is_signed));
      a += accumulator_stride;
      o += output_stride;
    }
  }
  for (; c + 8 <= channels; c += 8) {
    const struct qwino_avx2_channels ch =
        qwino_avx2_load_channels(channel_params + c, stride, &q, form);
    const int32_t* a = accumulators + c;
    uint8_t* o = output + c;
    for (size_t p = 0; p < pixels; p++) {
      _mm_storel_epi64((__m128i*)o, bytes8(a, &ch, &q, form, is_signed));
      a += accumulator_stride;
      o += output_stride;
    }
  }
  if (c < channels) {
    const size_t tail = channels - c;
    const struct qwino_avx2_channels ch =
        qwino_avx2_load_channels_tail(channel_params + c, stride, tail, &q, form);
    const int32_t* a = accumulators + c;
    uint8_t* o = output + c;
    for (size_t p = 0; p < pixels; p++) {
      int32_t accumulator_buffer[8] = {0};
      memcpy(accumulator_buffer, a, tail * sizeof(int32_t));
      uint8_t bytes[16];
      _mm_storeu_si128((__m128i*)bytes, bytes8(accumulator_buffer, &ch, &q, form, is_signed));
      memcpy(o, bytes, tail);
      a += accumulator_stride;
      o += output_stride;
    }
  }
}

#define QWINO_REQUANTIZE_BODY(form, is_signed)                                           \
  requantize(pixels, channels, accumulators, accumulator_stride, channel_params, output, \
             output_stride, params, form, is_signed)
#define QWINO_REQUANTIZE_ENTRY(mode)                                                          \
  void qwino_s32_qu8_requantize_##mode##_ukernel__avx2(                                       \
      size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride, \
      const int32_t* channel_params, uint8_t* output, size_t output_stride,                   \
      const union qwino_qu8_requantization_params* params) {                                  \
    QWINO_X86_REQUANTIZATION_DISPATCH_SIGN_BY_XOR(mode, params, QWINO_REQUANTIZE_BODY);       \
  }
QWINO_REQUANTIZE_ENTRY(gemmlowp)
QWINO_REQUANTIZE_ENTRY(fp32)
