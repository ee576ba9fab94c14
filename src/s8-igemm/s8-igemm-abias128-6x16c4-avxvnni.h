/*
 * The accumulation of the 6x16c4 AVX-VNNI indirect GEMM, A biased by 128: the scheme and the
 * argument for it are at the top of src/s8-igemm/s8-igemm-abias128-6x16c4-avxvnni.c, which
 * stores the int32 block; src/qu8-igemm/qu8-igemm-abias128-6x16c4-avxvnni.c requantizes the same
 * accumulators instead. The loops are the VNNI kernels' shared ones
 * (src/s8-igemm/s8-igemm-abias128-6xc4-vnni.h) on ymm registers with the VEX-encoded VPDPBUSD.
 * Only for files built with AVX2 + AVX-VNNI.
 */
#ifndef QWINO_S8_IGEMM_ABIAS128_6X16C4_AVXVNNI_H_
#define QWINO_S8_IGEMM_ABIAS128_6X16C4_AVXVNNI_H_

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "qwino/partial-loads.h"

static inline __attribute__((always_inline)) __m256i qwino_avxvnni_broadcast_quad(
    const uint8_t* p) {
  int32_t quad;
  memcpy(&quad, p, sizeof(quad));
  return _mm256_set1_epi32(quad);
}

/* AVX2 has no masked byte load: 1- and 2-byte loads of exactly the r bytes. */
static inline __attribute__((always_inline)) __m256i qwino_avxvnni_broadcast_tail(const uint8_t* p,
                                                                                  size_t r) {
  return _mm256_set1_epi32((int32_t)qwino_load_upto8(p, r));
}

#define QWINO_VNNI_VECTOR __m256i
#define QWINO_VNNI_COLUMN_REGISTERS 2
#define QWINO_VNNI_ZERO() _mm256_setzero_si256()
#define QWINO_VNNI_SET1_EPI8(b) _mm256_set1_epi8(b)
#define QWINO_VNNI_LOAD(p) _mm256_loadu_si256((const __m256i*)(p))
#define QWINO_VNNI_XOR(x, y) _mm256_xor_si256(x, y)
#define QWINO_VNNI_DPBUSD(acc, u, s) _mm256_dpbusd_avx_epi32(acc, u, s)
#define QWINO_VNNI_BROADCAST_QUAD(p) qwino_avxvnni_broadcast_quad(p)
#define QWINO_VNNI_BROADCAST_TAIL(p, r) qwino_avxvnni_broadcast_tail(p, r)
#include "s8-igemm/s8-igemm-abias128-6xc4-vnni.h"

/* Calls BODY(registers, flip_a) with the constants of the call: ceil(nr / 8) column registers,
 * and whether A needs the XOR (int8 activations). */
#define QWINO_VNNI_IGEMM_DISPATCH(nr, a_sign, BODY) \
  do {                                              \
    const int qwino_flip_ = (a_sign) != 0x80;       \
    if ((nr) > 8) {                                 \
      if (qwino_flip_)                              \
        BODY(2, 1);                                 \
      else                                          \
        BODY(2, 0);                                 \
    } else {                                        \
      if (qwino_flip_)                              \
        BODY(1, 1);                                 \
      else                                          \
        BODY(1, 0);                                 \
    }                                               \
  } while (0)

#endif /* QWINO_S8_IGEMM_ABIAS128_6X16C4_AVXVNNI_H_ */
