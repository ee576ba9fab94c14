/*
 * Small helpers shared by the C micro-kernels and the C++ operator code.
 */
#ifndef QWINO_COMMON_H_
#define QWINO_COMMON_H_

#include <stddef.h>

#ifdef __cplusplus
#define QWINO_RESTRICT __restrict__
#else
#define QWINO_RESTRICT restrict
#endif

/* The architecture a micro-kernel list entry is built for (the lists' #if guards). */
#if defined(__aarch64__)
#define QWINO_ARCH_ARM64 1
#else
#define QWINO_ARCH_ARM64 0
#endif
#if defined(__x86_64__)
#define QWINO_ARCH_X86_64 1
#else
#define QWINO_ARCH_X86_64 0
#endif

#define QWINO_MIN(a, b) ((a) < (b) ? (a) : (b))
#define QWINO_MAX(a, b) ((a) > (b) ? (a) : (b))

static inline size_t qwino_divide_round_up(size_t n, size_t q) { return (n + q - 1) / q; }
static inline size_t qwino_round_up(size_t n, size_t q) { return qwino_divide_round_up(n, q) * q; }

/* Scratch and packed weights are aligned to a cache line so that tasks never share one. */
#define QWINO_CACHE_LINE_SIZE 64

#endif /* QWINO_COMMON_H_ */
