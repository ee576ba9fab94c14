/*
 * Row sums of the indirect GEMM's A, SSE4.1: bit-exact twin of src/s8-irsum/s8-irsum-scalar.c
 * (contract: qwino_irsum_ukernel_fn in src/qwino/ukernel-types.h).
 *
 * Why PSADBW: the sum of the int8 values A = (int8_t) (byte ^ a_sign) is the sum of the unsigned
 * bytes u = byte ^ a_sign ^ 0x80 = A + 128 (in [0, 255]) minus 128 per byte. PSADBW against zero
 * adds 8 unsigned bytes into a 64-bit lane in one instruction, with no widening steps and no
 * overflow to watch: a row of any length fits the two 64-bit lanes. So each 16 bytes cost one
 * load, one XOR, one PSADBW and one 64-bit add, and the 128 x kc x ks the bias added comes off
 * once per row, modulo 2^32 like the int32 result.
 *
 * Exactly kc bytes are read at each pointer: 16-byte loads while 16 bytes remain, then the last
 * 1..15 as an 8-byte load and power-of-two pieces (src/qwino/x86-partial-loads.h). The lanes
 * past the row are zero after the load and `flip` after the XOR: their known sum comes off with
 * the 128 per byte, so no mask is needed.
 */
#include <smmintrin.h>

#include "qwino/x86-partial-loads.h"
#include "qwino/ukernels.h"
#include "s8-irsum/s8-irsum-excess.h"

void qwino_s8_irsum_ukernel__sse41(size_t rows, size_t kc, size_t ks, const uint8_t* const* a,
                                   size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                                   int32_t* sums) {
  const __m128i flip = _mm_set1_epi8((char)(a_sign ^ 0x80));
  const __m128i vzero = _mm_setzero_si128();
  /* The tails' lanes past the row hold `flip` after the XOR. */
  const uint32_t bias = qwino_irsum_excess(kc, ks, 16, (uint8_t)(a_sign ^ 0x80));
  for (size_t i = 0; i < rows; i++) {
    const uint8_t* const* pointers = a + i * ks;
    __m128i acc = vzero;
    for (size_t t = 0; t < ks; t++) {
      const uint8_t* p = pointers[t];
      if (p != zero) {
        p += a_offset;
      }
      size_t n = kc;
      for (; n >= 16; n -= 16, p += 16) {
        const __m128i u = _mm_xor_si128(_mm_loadu_si128((const __m128i*)p), flip);
        acc = _mm_add_epi64(acc, _mm_sad_epu8(u, vzero));
      }
      if (n != 0) {
        const __m128i u = _mm_xor_si128(qwino_x86_load_upto15(p, n), flip);
        acc = _mm_add_epi64(acc, _mm_sad_epu8(u, vzero));
      }
    }
    const uint64_t total = (uint64_t)_mm_cvtsi128_si64(acc) + (uint64_t)_mm_extract_epi64(acc, 1);
    sums[i] = (int32_t)((uint32_t)total - bias);
  }
}
