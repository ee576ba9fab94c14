/*
 * Row sums of the indirect GEMM's A, AVX-512 (F + BW): bit-exact twin of
 * src/s8-irsum/s8-irsum-scalar.c (contract: qwino_irsum_ukernel_fn in src/qwino/ukernel-types.h).
 *
 * The SSE4.1 kernel's method (src/s8-irsum/s8-irsum-sse41.c) on 64 bytes: the bytes XOR
 * a_sign ^ 0x80 are the unsigned A + 128, VPSADBW against zero adds them 8 at a time into 64-bit
 * lanes that no row can overflow, and 128 x kc x ks comes off once per row, modulo 2^32.
 * The last 1..63 bytes of each pointer's row are one masked byte load (BW), which reads exactly
 * kc bytes and faults on none past them; its masked-off lanes take the value `flip`, so the XOR
 * turns them into zeros that the PSADBW ignores, with no separate masking step. A row of up to
 * 64 bytes (most taps of the layers the indirect convolution runs) is thus a single load.
 */
#include <immintrin.h>

#include "qwino/ukernels.h"
#include "s8-irsum/s8-irsum-excess.h"

void qwino_s8_irsum_ukernel__avx512skx(size_t rows, size_t kc, size_t ks, const uint8_t* const* a,
                                       size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                                       int32_t* sums) {
  const __m512i flip = _mm512_set1_epi8((char)(a_sign ^ 0x80));
  const __m512i vzero = _mm512_setzero_si512();
  const size_t tail = kc & 63;
  const __mmask64 tail_mask = _cvtu64_mask64(tail != 0 ? UINT64_MAX >> (64 - tail) : 0);
  /* The masked loads' lanes past the row are 0 after the XOR. */
  const uint32_t bias = qwino_irsum_excess(kc, ks, 64, 0);
  for (size_t i = 0; i < rows; i++) {
    const uint8_t* const* pointers = a + i * ks;
    __m512i acc = vzero;
    for (size_t t = 0; t < ks; t++) {
      const uint8_t* p = pointers[t];
      if (p != zero) {
        p += a_offset;
      }
      size_t n = kc;
      for (; n >= 64; n -= 64, p += 64) {
        const __m512i u = _mm512_xor_si512(_mm512_loadu_si512((const void*)p), flip);
        acc = _mm512_add_epi64(acc, _mm512_sad_epu8(u, vzero));
      }
      if (n != 0) {
        const __m512i u = _mm512_xor_si512(_mm512_mask_loadu_epi8(flip, tail_mask, p), flip);
        acc = _mm512_add_epi64(acc, _mm512_sad_epu8(u, vzero));
      }
    }
    const uint64_t total = (uint64_t)_mm512_reduce_add_epi64(acc);
    sums[i] = (int32_t)((uint32_t)total - bias);
  }
}
