/*
 * Loads of 1, 2, 4 or 8 bytes into the low lanes of an SSE register (zeros above), for the x86
 * kernels' channel tails: exactly `width` bytes are read, so a tail never touches memory past
 * the sizes a kernel was given (two overlapping loads of a power-of-two width cover any count).
 * SSE2 only, so every x86 kernel file can include it whatever its ISA flags.
 */
#ifndef QWINO_X86_PARTIAL_LOADS_H_
#define QWINO_X86_PARTIAL_LOADS_H_

#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "qwino/partial-loads.h"

static inline __attribute__((always_inline)) __m128i qwino_x86_load_bytes(const uint8_t* p,
                                                                          size_t width) {
  switch (width) {
    case 8:
      return _mm_loadl_epi64((const __m128i*)p);
    case 4: {
      int32_t v;
      memcpy(&v, p, sizeof(v));
      return _mm_cvtsi32_si128(v);
    }
    case 2: {
      uint16_t v;
      memcpy(&v, p, sizeof(v));
      return _mm_cvtsi32_si128(v);
    }
    default:
      return _mm_cvtsi32_si128(*p);
  }
}

/* The n = 1..15 bytes at p in the low lanes, zeros above: exactly n bytes are read. */
static inline __attribute__((always_inline)) __m128i qwino_x86_load_upto15(const uint8_t* p,
                                                                           size_t n) {
  const uint64_t low = qwino_load_upto8(p, n & 8 ? 8 : n);
  const uint64_t high = n & 8 ? qwino_load_upto8(p + 8, n & 7) : 0;
  return _mm_set_epi64x((long long)high, (long long)low);
}

#endif /* QWINO_X86_PARTIAL_LOADS_H_ */
