/*
 * 6x16 8-bit indirect GEMM micro-kernel, AVX2: bit-exact twin of
 * src/s8-igemm/s8-igemm-4x4c16-scalar.c (same products and sums modulo 2^32).
 *
 * Exactness. A = (int8_t) (byte ^ a_sign) lies in [-128, 127] and B in [-127, 127]
 * (src/qwino/ukernel-types.h); both are sign-extended to int16 (VPMOVSXBW), which keeps every
 * value, and VPMADDWD multiplies int16 pairs and adds each pair into an int32 lane: a product is
 * at most 128 * 127 = 16256 in magnitude and a pair sum at most 32512, so VPMADDWD is exact, and
 * VPADDD accumulates modulo 2^32 like the scalar kernel's uint32_t sums. VPMADDUBSW is not used:
 * it multiplies u8 by s8 and saturates its pair sums to int16 (2 * 255 * 127 does not fit), so
 * it would not be exact for every byte.
 *
 * Scheme. The multiply is the int16 GEMM's (src/s16-gemm/s16-gemm-4x16c2-avx2.c): B packed with
 * KR = 2, a ymm register holds 8 columns x 2 k, and one A pair broadcast as an int32 feeds all
 * 8 lanes. What differs is where the int16 values come from:
 *   - B: the packed int8 panel is sign-extended as it is read, 16 bytes (8 columns x 2 k) per
 *     VPMOVSXBW, two per k pair, shared by the 6 rows (2 widenings per 12 VPMADDWD);
 *   - A: for each tap, the rows' kc bytes are XORed with a_sign and sign-extended once into an
 *     int16 stack buffer (16 per VPMOVSXBW), from which the k loop broadcasts pairs with
 *     VPBROADCASTD, a load that costs no vector ALU slot. Broadcasting from the bytes instead
 *     would take a shuffle and a widening per row and k pair.
 * Per k pair: 2 B widenings, 6 broadcasts, 12 VPMADDWD + 12 VPADDD = 192 MACs, with 12
 * accumulators + 2 B + A + a product temporary = 16 ymm registers.
 *
 * Why 6 x 16: the widened B is the cost the int16 GEMM does not pay, so more rows per B widening
 * win; 6x16c2 ran faster than 4x16c2, 8x8c2, a c8 layout (XNNPACK's: A broadcast as 8 bytes and
 * widened per row, 2 columns x 8 k per register, horizontal sums at the end) and B widened per
 * tap into a stack buffer (doc/PERFORMANCE.md, "Kernel measurements"). KR = 2 also pads the
 * fewest channels (a 3-channel layer pays for 4).
 *
 * Remainders: mr == 6 runs the 6-row body, mr < 6 the 4-, 2- and 1-row bodies. Each row pointer
 * is read for exactly kc bytes: a channel remainder of less than 16 is loaded piecewise (8, 4, 2,
 * 1 bytes) into a zeroed register, and the widened values past kc meet B's zeros (the packing
 * pads every tap to round_up(kc, 2) with zeros), so they add 0. Only nr columns are stored.
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/avx2-int16-pairs.h"
#include "qwino/partial-loads.h"
#include "qwino/ukernels.h"

enum {
  kMR = 6,
  kNR = 16,
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

/* kb channels of one row from p, (int8_t) (byte ^ a_sign) sign-extended into out, rounded up to
 * 16 values (the ones past kb are multiplied by B's zero padding or not read). */
static inline void widen_row(const uint8_t* p, size_t kb, __m128i sign, int16_t* out) {
  size_t k = 0;
  for (; k + 16 <= kb; k += 16) {
    const __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i*)(p + k)), sign);
    _mm256_store_si256((__m256i*)(out + k), _mm256_cvtepi8_epi16(x));
  }
  if (k < kb) {
    const __m128i x = _mm_xor_si128(load_tail(p + k, kb - k), sign);
    _mm256_store_si256((__m256i*)(out + k), _mm256_cvtepi8_epi16(x));
  }
}

/* A block of `rows` (6, 4, 2 or 1; a constant at every call) output pixels times one B panel. */
static inline __attribute__((always_inline)) void igemm_rows(
    const size_t rows, size_t nr, size_t kc, size_t ks, const uint8_t* const* a, size_t a_offset,
    const uint8_t* zero, uint8_t a_sign, const int8_t* b, int32_t* c, size_t c_stride) {
  __attribute__((aligned(32))) int16_t a_buffer[kMR][kKCBlock];
  const __m128i sign = _mm_set1_epi8((char)a_sign);
  __m256i acc[kMR][2];
#pragma GCC unroll 6
  for (size_t i = 0; i < rows; i++) {
    acc[i][0] = _mm256_setzero_si256();
    acc[i][1] = _mm256_setzero_si256();
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
        const __m256i vb0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)b));
        const __m256i vb1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)(b + 16)));
        b += 32;
#pragma GCC unroll 6
        for (size_t i = 0; i < rows; i++) {
          const __m256i va = qwino_avx2_broadcast_pair(&a_buffer[i][k]);
          QWINO_AVX2_ADD_IN_PLACE(acc[i][0], _mm256_madd_epi16(vb0, va));
          QWINO_AVX2_ADD_IN_PLACE(acc[i][1], _mm256_madd_epi16(vb1, va));
        }
      }
    }
  }
#pragma GCC unroll 6
  for (size_t i = 0; i < rows; i++) {
    qwino_avx2_store_int32_row16(c + i * c_stride, nr, acc[i][0], acc[i][1]);
  }
}

void qwino_s8_igemm_ukernel_6x16c2__avx2(size_t mr, size_t nr, size_t kc, size_t ks,
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
