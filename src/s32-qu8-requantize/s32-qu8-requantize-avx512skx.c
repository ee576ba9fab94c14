/*
 * Bias + requantization of int32 accumulators into 8-bit values (the direct path's output stage),
 * AVX-512 (F + BW + VL): bit-exact twin of src/s32-qu8-requantize/s32-qu8-requantize-scalar.c for
 * every accumulator and bias and every parameter the scalar twin takes (gemmlowp multipliers but
 * INT32_MIN), both requantization modes, uint8 and int8 outputs.
 *
 * Channels sit in lanes. The loops run over channel groups outside and pixels inside: 64
 * channels (four zmm of 16 int32, one 64-byte store) for all pixels, then groups of 16, the
 * last one masked, so the per-channel vectors of a group (src/qwino/requantization-avx512skx.h:
 * loaded and prepared once) serve every pixel; the accumulators are the caller's GEMM block, in
 * cache. Masked loads read exactly `channels` values per pixel and per array and the masked byte
 * store writes exactly `channels` bytes per pixel. The bias add (VPADDD) wraps modulo 2^32 like
 * qwino_wrapping_add_s32. The requantization and the narrowing are
 * src/qwino/requantization-avx512skx.h (shared with the output transforms; the argument for every
 * step is in it and in src/qwino/requantization-avx2.h); one always-inline body, specialised on
 * the mode and the gemmlowp form, for both output types, by
 * QWINO_AVX512_REQUANTIZATION_DISPATCH_SIGN_BY_XOR.
 */
#include <immintrin.h>

#include "qwino/requantization-avx512skx.h"
#include "qwino/ukernels.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

/* acc + bias (wrapping) of the channels in `mask`, requantized. */
QWINO_INLINE __m512i requantize16(const int32_t* accumulators, __mmask16 mask,
                                  const struct qwino_avx512_channels* ch,
                                  const struct qwino_avx512_requantization* q, int form) {
  const __m512i x = _mm512_add_epi32(qwino_avx512_load_s32(accumulators, mask), ch->bias);
  return qwino_avx512_requantize(x, ch, q, form);
}

QWINO_INLINE void requantize(size_t pixels, size_t channels, const int32_t* accumulators,
                             size_t accumulator_stride, const int32_t* channel_params,
                             uint8_t* output, size_t output_stride,
                             const union qwino_qu8_requantization_params* params, int form,
                             int is_signed) {
  const __mmask16 all = (__mmask16)0xFFFF;
  const struct qwino_avx512_requantization q =
      qwino_avx512_requantization_init(params, form, is_signed);
  const size_t stride = q.channel_stride;
  size_t c = 0;
  for (; c + 64 <= channels; c += 64) {
    struct qwino_avx512_channels ch[4];
    for (int g = 0; g < 4; g++) {
      ch[g] = qwino_avx512_load_channels(channel_params + c + 16 * g, stride, all, &q, form);
    }
    const int32_t* a = accumulators + c;
    uint8_t* o = output + c;
    for (size_t p = 0; p < pixels; p++) {
      const __m512i r0 = requantize16(a, all, &ch[0], &q, form);
      const __m512i r1 = requantize16(a + 16, all, &ch[1], &q, form);
      const __m512i r2 = requantize16(a + 32, all, &ch[2], &q, form);
      const __m512i r3 = requantize16(a + 48, all, &ch[3], &q, form);
      _mm512_storeu_si512(o, qwino_avx512_narrow_4x16(r0, r1, r2, r3, &q, form, is_signed));
      a += accumulator_stride;
      o += output_stride;
    }
  }
  for (; c < channels; c += 16) {
    const size_t remaining = channels - c;
    const __mmask16 mask = remaining >= 16 ? all : (__mmask16)((1u << remaining) - 1);
    const struct qwino_avx512_channels ch =
        qwino_avx512_load_channels(channel_params + c, stride, mask, &q, form);
    const int32_t* a = accumulators + c;
    uint8_t* o = output + c;
    for (size_t p = 0; p < pixels; p++) {
      const __m512i r = requantize16(a, mask, &ch, &q, form);
      const __m512i bytes = qwino_avx512_narrow_4x16(r, r, r, r, &q, form, is_signed);
      _mm_mask_storeu_epi8(o, mask, _mm512_castsi512_si128(bytes));
      a += accumulator_stride;
      o += output_stride;
    }
  }
}

#define QWINO_REQUANTIZE_BODY(form, is_signed)                                           \
  requantize(pixels, channels, accumulators, accumulator_stride, channel_params, output, \
             output_stride, params, form, is_signed)
#define QWINO_REQUANTIZE_ENTRY(mode)                                                          \
  void qwino_s32_qu8_requantize_##mode##_ukernel__avx512skx(                                  \
      size_t pixels, size_t channels, const int32_t* accumulators, size_t accumulator_stride, \
      const int32_t* channel_params, uint8_t* output, size_t output_stride,                   \
      const union qwino_qu8_requantization_params* params) {                                  \
    QWINO_AVX512_REQUANTIZATION_DISPATCH_SIGN_BY_XOR(mode, params, QWINO_REQUANTIZE_BODY);    \
  }
QWINO_REQUANTIZE_ENTRY(gemmlowp)
QWINO_REQUANTIZE_ENTRY(fp32)
