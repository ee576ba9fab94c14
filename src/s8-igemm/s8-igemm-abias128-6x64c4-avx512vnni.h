/*
 * The accumulation of the 6x64c4 AVX-512 VNNI indirect GEMM, A biased by 128: the scheme and the
 * argument for it are at the top of src/s8-igemm/s8-igemm-abias128-6x64c4-avx512vnni.c, which
 * stores the int32 block; src/qu8-igemm/qu8-igemm-abias128-6x64c4-avx512vnni.c requantizes the
 * same accumulators instead. The loops are the VNNI kernels' shared ones
 * (src/s8-igemm/s8-igemm-abias128-6xc4-vnni.h) on zmm registers. Only for files built with
 * AVX-512 VNNI.
 */
#ifndef QWINO_S8_IGEMM_ABIAS128_6X64C4_AVX512VNNI_H_
#define QWINO_S8_IGEMM_ABIAS128_6X64C4_AVX512VNNI_H_

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

static inline __attribute__((always_inline)) __m512i qwino_avx512vnni_broadcast_quad(
    const uint8_t* p) {
  int32_t quad;
  memcpy(&quad, p, sizeof(quad));
  return _mm512_set1_epi32(quad);
}

/* One masked load (fault-suppressed past the r bytes) and a broadcast. */
static inline __attribute__((always_inline)) __m512i qwino_avx512vnni_broadcast_tail(
    const uint8_t* p, size_t r) {
  return _mm512_broadcastd_epi32(_mm_maskz_loadu_epi8((__mmask16)((1u << r) - 1), p));
}

#define QWINO_VNNI_VECTOR __m512i
#define QWINO_VNNI_COLUMN_REGISTERS 4
#define QWINO_VNNI_ZERO() _mm512_setzero_si512()
#define QWINO_VNNI_SET1_EPI8(b) _mm512_set1_epi8(b)
#define QWINO_VNNI_LOAD(p) _mm512_loadu_si512(p)
#define QWINO_VNNI_XOR(x, y) _mm512_xor_si512(x, y)
#define QWINO_VNNI_DPBUSD(acc, u, s) _mm512_dpbusd_epi32(acc, u, s)
/* A row's four accumulators + the products of the quad at p (in every lane) and the four B
 * registers, the broadcast, an optional XOR and the four VPDPBUSDs in one statement, so that the
 * 24 accumulators, 4 B registers and the broadcast keep their registers: with intrinsics GCC 12
 * copied accumulators in the loop and kept one on the stack (a store and a reload on its chain
 * per k quad: int8 1x1 7x7x1152>320 55 us against uint8's 45). XOR is "" or the XOR of the quad
 * with `flip`; OPERANDS(j) the sources of VPDPBUSD j in AT&T order (signed, then unsigned). */
#define QWINO_VNNI_ROW4_ASM(acc, b, p, flip, XOR, OPERANDS)                             \
  do {                                                                                  \
    __m512i qwino_quad_;                                                                \
    __asm__("vpbroadcastd %[q], %[t]\n\t" XOR                                         \
            "vpdpbusd " OPERANDS(0) ", %[s0]\n\t"                                      \
            "vpdpbusd " OPERANDS(1) ", %[s1]\n\t"                                      \
            "vpdpbusd " OPERANDS(2) ", %[s2]\n\t"                                      \
            "vpdpbusd " OPERANDS(3) ", %[s3]"                                         \
            : [s0] "+v"((acc)[0]), [s1] "+v"((acc)[1]), [s2] "+v"((acc)[2]),          \
              [s3] "+v"((acc)[3]), [t] "=&v"(qwino_quad_)                             \
            : [b0] "v"((b)[0]), [b1] "v"((b)[1]), [b2] "v"((b)[2]), [b3] "v"((b)[3]), \
              [f] "v"(flip), [q] "m"(*(const int32_t*)(const void*)(p))); \
  } while (0)
#define QWINO_VNNI_QUAD_SIGNED(j) "%[t], %[b" #j "]"
#define QWINO_VNNI_QUAD_UNSIGNED(j) "%[b" #j "], %[t]"
/* With `swap` (int8 activations, B + 128 unsigned): the quad is the signed operand, no XOR. */
#define QWINO_VNNI_DPBUSD_ROW4(acc, b, p, flip) \
  QWINO_VNNI_ROW4_ASM(acc, b, p, flip, "", QWINO_VNNI_QUAD_SIGNED)
/* Without `swap`, for int8 activations: the quad XORed with `flip` (A + 128, the unsigned
 * operand). The same statement for uint8 activations (no XOR) measured 2-4% slower than the
 * intrinsics on Zen 5, so those keep them (see qwino_vnni_igemm_multiply_quad). */
#define QWINO_VNNI_DPBUSD_FLIPPED_ROW4(acc, b, p, flip) \
  QWINO_VNNI_ROW4_ASM(acc, b, p, flip, "vpxord %[f], %[t], %[t]\n\t", QWINO_VNNI_QUAD_UNSIGNED)
#define QWINO_VNNI_BROADCAST_QUAD(p) qwino_avx512vnni_broadcast_quad(p)
#define QWINO_VNNI_BROADCAST_TAIL(p, r) qwino_avx512vnni_broadcast_tail(p, r)
#include "s8-igemm/s8-igemm-abias128-6xc4-vnni.h"

/* Calls BODY(registers, flip_a) with the constants of the call: ceil(nr / 16) column registers,
 * and whether A needs the XOR (int8 activations). */
#define QWINO_VNNI_IGEMM_DISPATCH(nr, a_sign, BODY) \
  do {                                              \
    const int qwino_flip_ = (a_sign) != 0x80;       \
    if ((nr) > 48) {                                \
      if (qwino_flip_)                              \
        BODY(4, 1);                                 \
      else                                          \
        BODY(4, 0);                                 \
    } else if ((nr) > 32) {                         \
      if (qwino_flip_)                              \
        BODY(3, 1);                                 \
      else                                          \
        BODY(3, 0);                                 \
    } else if ((nr) > 16) {                         \
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

#endif /* QWINO_S8_IGEMM_ABIAS128_6X64C4_AVX512VNNI_H_ */
