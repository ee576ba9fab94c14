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

static inline __attribute__((always_inline)) __m128i qwino_x86_load_bytes(const uint8_t* p,
                                                                          size_t width) {
  switch (width) {
    case 8:
      return _mm_loadl_epi64((const __m128i*) p);
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

#endif /* QWINO_X86_PARTIAL_LOADS_H_ */
