/*
 * The entry points of the AVX-512 VNNI depthwise kernel files
 * (src/s8-dwconv/s8-dwconv-avx512vnni.c, src/s8-dwconv/s8-dwconv-columns-avx512vnni.c): a file
 * defines its body function
 *   static void fn(QWINO_X86_DWCONV_BODY_PARAMETERS)
 * names it QWINO_X86_DWCONV_FN, and QWINO_X86_DWCONV_ENTRY(name, mode) defines the entry point,
 * one body per requantization form for both output types
 * (QWINO_AVX512_REQUANTIZATION_DISPATCH_SIGN_BY_XOR, the rectified shortcut included) and per
 * activation type: the XOR-free body (flip 0) for uint8 activations (a_sign 0x80), the other for
 * int8 ones (the left-shift form: one compact body). Only for files built with AVX-512.
 */
#ifndef QWINO_S8_DWCONV_X86_ENTRIES_H_
#define QWINO_S8_DWCONV_X86_ENTRIES_H_

#include "qwino/requantization-avx512skx.h"
#include "qwino/ukernels.h"

/* The entry point's parameters and the body's constants. */
#define QWINO_X86_DWCONV_BODY_PARAMETERS QWINO_DWCONV_PARAMETERS, int form, int is_signed, int flip

/* The left-shift form (multipliers of 0.5 and more, zero points beyond the shortcut's margin:
 * rare in trained layers) in one compact body: flip 1 for both activation types (the XOR with
 * a_sign ^ 0x80, 0 for uint8 ones, changes nothing) and each file's general pixel loop only (no
 * pixel pairs, no sliding columns), as the NEON kernels keep it (s8-dwconv-neon-entries.h). */
#define QWINO_X86_DWCONV_COMPACT(form) ((form) == qwino_x86_gemmlowp_left_shift)

#define QWINO_X86_DWCONV_BODY(form, is_signed)                                                   \
  do {                                                                                           \
    if (a_sign == 0x80 && !QWINO_X86_DWCONV_COMPACT(form)) {                                     \
      QWINO_X86_DWCONV_FN(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign, \
                          packed_weights, channel_params, output, output_pixel_stride, params,   \
                          form, is_signed, 0);                                                   \
    } else {                                                                                     \
      QWINO_X86_DWCONV_FN(channels, pixels, taps, input, input_pixel_step, input_offset, a_sign, \
                          packed_weights, channel_params, output, output_pixel_stride, params,   \
                          form, is_signed, 1);                                                   \
    }                                                                                            \
  } while (0)
#define QWINO_X86_DWCONV_ENTRY(name, mode)                                                 \
  void name(QWINO_DWCONV_PARAMETERS) {                                                     \
    QWINO_AVX512_REQUANTIZATION_DISPATCH_SIGN_BY_XOR(mode, params, QWINO_X86_DWCONV_BODY); \
  }

#endif /* QWINO_S8_DWCONV_X86_ENTRIES_H_ */
