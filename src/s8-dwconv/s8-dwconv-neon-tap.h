/*
 * One plain tap of 16 channels on NEON, shared by the NEON depthwise kernels
 * (src/s8-dwconv/s8-dwconv-neon.c, src/s8-dwconv/s8-dwconv-columns-neon.c).
 */
#ifndef QWINO_S8_DWCONV_NEON_TAP_H_
#define QWINO_S8_DWCONV_NEON_TAP_H_

#include <arm_neon.h>

/*
 * acc0..acc3 (channels 0-3, 4-7, 8-11, 12-15) += a x b, 16 lanes: SMULL/SMULL2 into int16
 * (|a b| <= 128 x 127), SADDW/SADDW2 into int32. Inline assembly: the int16 products are scratch
 * outputs (with intrinsics GCC 12 copies them between registers).
 */
#define QWINO_MAC16_ONE(acc0, acc1, acc2, acc3, a, b)                                          \
  do {                                                                                         \
    int16x8_t lo_, hi_;                                                                        \
    __asm__(                                                                                   \
        "smull  %[lo].8h, %[x].8b, %[y].8b\n\t"                                                \
        "smull2 %[hi].8h, %[x].16b, %[y].16b\n\t"                                              \
        "saddw  %[s0].4s, %[s0].4s, %[lo].4h\n\t"                                              \
        "saddw2 %[s1].4s, %[s1].4s, %[lo].8h\n\t"                                              \
        "saddw  %[s2].4s, %[s2].4s, %[hi].4h\n\t"                                              \
        "saddw2 %[s3].4s, %[s3].4s, %[hi].8h"                                                  \
        : [lo] "=&w"(lo_), [hi] "=&w"(hi_), [s0] "+w"(acc0), [s1] "+w"(acc1), [s2] "+w"(acc2), \
          [s3] "+w"(acc3)                                                                      \
        : [x] "w"(a), [y] "w"(b));                                                             \
  } while (0)

#endif /* QWINO_S8_DWCONV_NEON_TAP_H_ */
