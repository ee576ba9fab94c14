/*
 * The n <= 8 bytes at p in the low bytes of a uint64_t, zeros above, reading exactly those n
 * bytes (1, 2 and 4-byte pieces, or one 8-byte load): the 8-bit GEMM kernels' short row tails,
 * whose rows end where the caller's sizes say (an input row's last channel). Little-endian, like
 * every target of the library. Plain C, for kernel files of any ISA.
 */
#ifndef QWINO_PARTIAL_LOADS_H_
#define QWINO_PARTIAL_LOADS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline __attribute__((always_inline)) uint64_t qwino_load_upto8(const uint8_t* p, size_t n) {
  uint64_t value = 0;
  if (n & 8) {
    memcpy(&value, p, 8);
    return value;
  }
  size_t offset = 0;
  if (n & 4) {
    uint32_t part;
    memcpy(&part, p, 4);
    value = part;
    offset = 4;
  }
  if (n & 2) {
    uint16_t part;
    memcpy(&part, p + offset, 2);
    value |= (uint64_t)part << (8 * offset);
    offset += 2;
  }
  if (n & 1) {
    value |= (uint64_t)p[offset] << (8 * offset);
  }
  return value;
}

#endif /* QWINO_PARTIAL_LOADS_H_ */
