/*
 * Row sums of the indirect GEMM's A, AVX2: bit-exact twin of src/s8-irsum/s8-irsum-scalar.c
 * (contract: qwino_irsum_ukernel_fn in src/qwino/ukernel-types.h).
 *
 * The SSE4.1 kernel's method (src/s8-irsum/s8-irsum-sse41.c) at twice the width: the bytes XOR
 * a_sign ^ 0x80 are the unsigned A + 128, VPSADBW against zero adds them 8 at a time into 64-bit
 * lanes that no row can overflow, and 128 x kc x ks comes off once per row, modulo 2^32.
 * 32-byte loads while 32 bytes remain, then one 16-byte step, then the last 1..15 bytes as
 * partial loads (src/qwino/x86-partial-loads.h), whose lanes past the row come off with the
 * bias as in the SSE4.1 kernel: exactly kc bytes are read at each pointer. The 16-byte pieces
 * accumulate in an xmm of their own, folded in per row.
 */
#include <immintrin.h>

#include "qwino/x86-partial-loads.h"
#include "qwino/ukernels.h"
#include "s8-irsum/s8-irsum-excess.h"

void qwino_s8_irsum_ukernel__avx2(size_t rows, size_t kc, size_t ks, const uint8_t* const* a,
                                  size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                                  int32_t* sums) {
  const __m256i flip = _mm256_set1_epi8((char)(a_sign ^ 0x80));
  const __m128i flip16 = _mm256_castsi256_si128(flip);
  const __m256i vzero = _mm256_setzero_si256();
  const __m128i vzero16 = _mm_setzero_si128();
  /* The tails' lanes past the row hold `flip` after the XOR. */
  const uint32_t bias = qwino_irsum_excess(kc, ks, 16, (uint8_t)(a_sign ^ 0x80));
  for (size_t i = 0; i < rows; i++) {
    const uint8_t* const* pointers = a + i * ks;
    __m256i acc = vzero;
    __m128i acc16 = vzero16;
    for (size_t t = 0; t < ks; t++) {
      const uint8_t* p = pointers[t];
      if (p != zero) {
        p += a_offset;
      }
      size_t n = kc;
      for (; n >= 32; n -= 32, p += 32) {
        const __m256i u = _mm256_xor_si256(_mm256_loadu_si256((const __m256i*)p), flip);
        acc = _mm256_add_epi64(acc, _mm256_sad_epu8(u, vzero));
      }
      if (n >= 16) {
        const __m128i u = _mm_xor_si128(_mm_loadu_si128((const __m128i*)p), flip16);
        acc16 = _mm_add_epi64(acc16, _mm_sad_epu8(u, vzero16));
        n -= 16;
        p += 16;
      }
      if (n != 0) {
        const __m128i u = _mm_xor_si128(qwino_x86_load_upto15(p, n), flip16);
        acc16 = _mm_add_epi64(acc16, _mm_sad_epu8(u, vzero16));
      }
    }
    acc16 = _mm_add_epi64(
        acc16, _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1)));
    const uint64_t total =
        (uint64_t)_mm_cvtsi128_si64(acc16) + (uint64_t)_mm_extract_epi64(acc16, 1);
    sums[i] = (int32_t)((uint32_t)total - bias);
  }
}
