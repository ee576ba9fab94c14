/*
 * 6x8 8-bit indirect GEMM micro-kernel, SSE4.1: bit-exact twin of
 * src/s8-igemm/s8-igemm-4x4c16-scalar.c (same products and sums modulo 2^32).
 *
 * The kernel set for x86-64 CPUs without AVX2 (see src/s16-gemm/s16-gemm-4x8c2-sse41.c). Same
 * scheme as src/s8-igemm/s8-igemm-6x16c2-avx2.c at half width, whose header argues exactness:
 * A = (int8_t) (byte ^ a_sign) in [-128, 127] and B in [-127, 127] are sign-extended to int16
 * (PMOVSXBW), PMADDWD multiplies int16 pairs into int32 lanes exactly (a pair sum is at most
 * 2 * 128 * 127 = 32512 in magnitude) and PADDD accumulates modulo 2^32. PMADDUBSW would
 * saturate its u8 x s8 pair sums, so it is not used.
 *   - B: packed with KR = 2 (8 columns x 2 k = 16 bytes per k pair), sign-extended as it is
 *     read, 8 bytes (4 columns x 2 k) per PMOVSXBW, shared by the rows;
 *   - A: for each tap, each row's kc bytes are XORed with a_sign and sign-extended once into an
 *     int16 stack buffer, from which the k loop broadcasts pairs (MOVD + PSHUFD, as the int16
 *     kernel does).
 * Per k pair: 2 B widenings, 6 broadcasts, 12 PMADDWD + 12 PADDD = 96 MACs, with 12
 * accumulators + 2 B + A + a product temporary = the 16 xmm registers.
 *
 * Why 6 x 8: more rows share each B widening, the cost the int16 GEMM does not pay (6x8c2 ran
 * faster than 4x8c2: doc/PERFORMANCE.md, "Kernel measurements").
 *
 * Remainders: mr == 6 runs the 6-row body, mr < 6 the 4-, 2- and 1-row bodies. Each row pointer is
 * read for exactly kc bytes: a channel remainder of less than 16 is loaded piecewise (8, 4, 2,
 * 1 bytes) into a zeroed register, and the widened values past kc meet B's zeros (every tap is
 * padded to round_up(kc, 2) with zeros), so they add 0. Only nr columns are stored.
 */
#include <smmintrin.h>
#include <string.h>

#include "qwino/partial-loads.h"
#include "qwino/ukernels.h"

/* acc += x (int32 lanes, modulo 2^32), in place (see src/s16-gemm/s16-gemm-4x8c2-sse41.c). */
#define QWINO_ADD_IN_PLACE(acc, x) __asm__("paddd %1, %0" : "+x"(acc) : "x"(x))

enum {
  kMR = 6,
  kNR = 8,
  /* Channels widened per pass over the taps: the A buffer is kMR x kKCBlock int16 (3 KiB). */
  kKCBlock = 256,
};

/* The 0 < n < 16 bytes at p in the low bytes of an xmm register, zeros above. */
static inline __m128i load_tail(const uint8_t* p, size_t n) {
  if (n >= 8) {
    uint64_t low;
    memcpy(&low, p, 8);
    return _mm_set_epi64x((long long)qwino_load_upto8(p + 8, n - 8), (long long)low);
  }
  return _mm_set_epi64x(0, (long long)qwino_load_upto8(p, n));
}

/* 16 bytes XOR a_sign, sign-extended into out[0..16). */
static inline void widen16(__m128i x, __m128i sign, int16_t* out) {
  x = _mm_xor_si128(x, sign);
  _mm_store_si128((__m128i*)out, _mm_cvtepi8_epi16(x));
  _mm_store_si128((__m128i*)(out + 8), _mm_cvtepi8_epi16(_mm_srli_si128(x, 8)));
}

/* kb channels of one row from p, (int8_t) (byte ^ a_sign) sign-extended into out, rounded up to
 * 16 values (the ones past kb are multiplied by B's zero padding or not read). */
static inline void widen_row(const uint8_t* p, size_t kb, __m128i sign, int16_t* out) {
  size_t k = 0;
  for (; k + 16 <= kb; k += 16) {
    widen16(_mm_loadu_si128((const __m128i*)(p + k)), sign, out + k);
  }
  if (k < kb) {
    widen16(load_tail(p + k, kb - k), sign, out + k);
  }
}

static inline __m128i broadcast_pair(const int16_t* a) {
  int32_t pair;
  memcpy(&pair, a, sizeof(pair));
  return _mm_set1_epi32(pair);
}

/* 4 columns x 2 k of packed B, sign-extended. */
static inline __m128i load_b(const int8_t* b) {
  return _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i*)b));
}

static inline void store_row(int32_t* c, size_t nr, __m128i lo, __m128i hi) {
  if (nr >= 8) {
    _mm_storeu_si128((__m128i*)c, lo);
    _mm_storeu_si128((__m128i*)(c + 4), hi);
    return;
  }
  if (nr & 4) {
    _mm_storeu_si128((__m128i*)c, lo);
    c += 4;
    lo = hi;
  }
  if (nr & 2) {
    _mm_storel_epi64((__m128i*)c, lo);
    c += 2;
    lo = _mm_unpackhi_epi64(lo, lo);
  }
  if (nr & 1) {
    *c = _mm_cvtsi128_si32(lo);
  }
}

/* A block of `rows` (6, 4, 2 or 1; a constant at every call) output pixels times one B panel. */
static inline __attribute__((always_inline)) void igemm_rows(
    const size_t rows, size_t nr, size_t kc, size_t ks, const uint8_t* const* a, size_t a_offset,
    const uint8_t* zero, uint8_t a_sign, const int8_t* b, int32_t* c, size_t c_stride) {
  __attribute__((aligned(16))) int16_t a_buffer[kMR][kKCBlock];
  const __m128i sign = _mm_set1_epi8((char)a_sign);
  __m128i acc[kMR][2];
#pragma GCC unroll 6
  for (size_t i = 0; i < rows; i++) {
    acc[i][0] = _mm_setzero_si128();
    acc[i][1] = _mm_setzero_si128();
  }
  for (size_t t = 0; t < ks; t++) {
    const uint8_t* row[kMR];
#pragma GCC unroll 6
    for (size_t i = 0; i < rows; i++) {
      const uint8_t* pointer = a[i * ks + t];
      row[i] = pointer == zero ? zero : pointer + a_offset;
    }
    for (size_t k0 = 0; k0 < kc; k0 += kKCBlock) {
      const size_t kb = kc - k0 < kKCBlock ? kc - k0 : kKCBlock;
#pragma GCC unroll 6
      for (size_t i = 0; i < rows; i++) {
        widen_row(row[i] + k0, kb, sign, a_buffer[i]);
      }
      /* kKCBlock is even, so only the last block can end with an odd k: its last pair is
       * (A[kc - 1], a widened padding byte) x (B[kc - 1], 0), the padding times B's zero. */
      for (size_t k = 0; k < kb; k += 2) {
        const __m128i vb0 = load_b(b);
        const __m128i vb1 = load_b(b + 8);
        b += 16;
#pragma GCC unroll 6
        for (size_t i = 0; i < rows; i++) {
          const __m128i va = broadcast_pair(&a_buffer[i][k]);
          QWINO_ADD_IN_PLACE(acc[i][0], _mm_madd_epi16(vb0, va));
          QWINO_ADD_IN_PLACE(acc[i][1], _mm_madd_epi16(vb1, va));
        }
      }
    }
  }
#pragma GCC unroll 6
  for (size_t i = 0; i < rows; i++) {
    store_row(c + i * c_stride, nr, acc[i][0], acc[i][1]);
  }
}

void qwino_s8_igemm_ukernel_6x8c2__sse41(size_t mr, size_t nr, size_t kc, size_t ks,
                                         const uint8_t* const* a, size_t a_offset,
                                         const uint8_t* zero, uint8_t a_sign,
                                         const int8_t* packed_b, int32_t* c, size_t c_stride) {
  if (mr >= kMR) {
    igemm_rows(kMR, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride);
    return;
  }
  if (mr & 4) {
    igemm_rows(4, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride);
    a += 4 * ks;
    c += 4 * c_stride;
  }
  if (mr & 2) {
    igemm_rows(2, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride);
    a += 2 * ks;
    c += 2 * c_stride;
  }
  if (mr & 1) {
    igemm_rows(1, nr, kc, ks, a, a_offset, zero, a_sign, packed_b, c, c_stride);
  }
}
