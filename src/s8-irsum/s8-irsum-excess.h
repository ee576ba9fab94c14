/*
 * The SIMD row-sum kernels (src/s8-irsum/) add the unsigned bytes u = A + 128 (the bytes XOR
 * a_sign ^ 0x80, which PSADBW and UDOT take) and take off, once per row, what those sums exceed
 * the sum of A by: 128 per byte of the row, plus, per tap whose last load is partial, the lanes
 * past the row, which hold the XOR's constant `flip` after it (zeros before it: flip 0 there).
 */
#ifndef QWINO_S8_IRSUM_EXCESS_H_
#define QWINO_S8_IRSUM_EXCESS_H_

#include <stddef.h>
#include <stdint.h>

/* Modulo 2^32, for kc bytes at each of ks taps read `lanes` bytes at a time. */
static inline uint32_t qwino_irsum_excess(size_t kc, size_t ks, size_t lanes, uint8_t flip) {
  const size_t tail = kc % lanes;
  const uint32_t past_rows = tail != 0 ? (uint32_t)((lanes - tail) * ks) * flip : 0;
  return (uint32_t)(kc * ks) * UINT32_C(128) + past_rows;
}

#endif /* QWINO_S8_IRSUM_EXCESS_H_ */
