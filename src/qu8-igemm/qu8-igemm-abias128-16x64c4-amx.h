/*
 * The requantization of the AMX-INT8 GEMMs with it fused (both modes, uint8 and int8 outputs):
 * the indirect one (src/qu8-igemm/qu8-igemm-abias128-16x64c4-amx.c) and the one on the
 * operator's gathered rows (src/qu8-gemm/qu8-gemm-abias128-16x64c4-amx.c) include this.
 *
 * Each 16x64 C block goes from the tiles to an aligned block on the stack (tiles have no other
 * way out, src/s8-igemm/s8-igemm-abias128-16x64c4-amx.h), and each of its rows through the s32
 * requantize kernel's steps (src/qwino/requantization-avx512skx.h, the argument for each), as in
 * the AVX-512 VNNI fused kernel: + the row's term where there are row terms, + bias (wrapping),
 * the mode's requantization, one narrowing of the row's four registers into 64 bytes, stored
 * with a byte mask of exactly nr bytes. A call takes any number of rows and columns (the list
 * entries' row_blocks), so the tiles are configured once per work item and panel block.
 */
#ifndef QWINO_QU8_IGEMM_ABIAS128_16X64C4_AMX_H_
#define QWINO_QU8_IGEMM_ABIAS128_16X64C4_AMX_H_

#include <immintrin.h>

#include "qwino/requantization-avx512skx.h"
#include "s8-igemm/s8-igemm-abias128-16x64c4-amx.h"

QWINO_AMX_INLINE void qwino_amx_requantize_block(const int32_t (*c)[kQwinoAmxNR], size_t block_mr,
                                                 size_t nr, const int32_t* channel_params,
                                                 const int32_t* row_terms, uint8_t* output,
                                                 size_t output_stride,
                                                 const struct qwino_avx512_requantization* q,
                                                 int form, int is_signed) {
  struct qwino_avx512_channels ch[4];
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) {
    const size_t first = 16 * (size_t)j;
    const size_t columns = nr <= first ? 0 : nr - first < 16 ? nr - first : 16;
    ch[j] = qwino_avx512_load_channels(channel_params + first, q->channel_stride,
                                       (__mmask16)((1u << columns) - 1), q, form);
  }
  const __mmask64 store_mask = nr == 64 ? ~(__mmask64)0 : ((__mmask64)1 << nr) - 1;
  for (size_t i = 0; i < block_mr; i++) {
    const __m512i term =
        row_terms != NULL ? _mm512_set1_epi32(row_terms[i]) : _mm512_setzero_si512();
    __m512i r[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) { /* columns past nr hold 0 (B's zero padding): not stored */
      const __m512i x = _mm512_load_si512(&c[i][16 * j]);
      r[j] = qwino_avx512_requantize(_mm512_add_epi32(_mm512_add_epi32(x, term), ch[j].bias),
                                     &ch[j], q, form);
    }
    _mm512_mask_storeu_epi8(output + i * output_stride, store_mask,
                            qwino_avx512_narrow_4x16(r[0], r[1], r[2], r[3], q, form, is_signed));
  }
}

/* block() of QWINO_AMX_BLOCKS for the entries below (their parameters and locals). */
#define QWINO_AMX_REQUANTIZE_BLOCK(m, block_mr, n, nr, c)                                      \
  qwino_amx_requantize_block((const int32_t(*)[kQwinoAmxNR])(c), block_mr, nr,                 \
                             channel_params + (n), row_terms != NULL ? row_terms + (m) : NULL, \
                             output + (m)*output_stride + (n), output_stride, &q, form, is_signed)

/* One requantization form: QWINO_AMX_BLOCKS with the A arguments given (a, a_offset, zero,
 * a_sign, rows, row_stride of QWINO_AMX_BLOCKS), the entries' other parameters as they are. */
#define QWINO_AMX_FUSED(form_value, ks, pointers, a_offset, zero, a_sign, rows, row_stride)        \
  do {                                                                                             \
    const int form = (form_value), is_signed = QWINO_X86_SIGN_BY_XOR;                              \
    const struct qwino_avx512_requantization q =                                                   \
        qwino_avx512_requantization_init(params, form, is_signed);                                 \
    QWINO_AMX_BLOCKS(mr, nc, kc, ks, pointers, a_offset, zero, a_sign, rows, row_stride, packed_b, \
                     QWINO_AMX_REQUANTIZE_BLOCK);                                                  \
  } while (0)

/* The gemmlowp entry's body: the general form runs as the left-shift form (a shift by 0 changes
 * nothing). */
#define QWINO_AMX_FUSED_GEMMLOWP(...)                                  \
  do {                                                                 \
    const struct qwino_qu8_gemmlowp_params* p = &params->gemmlowp;     \
    if (qwino_x86_gemmlowp_shortcut(p)) {                              \
      QWINO_AMX_FUSED(qwino_x86_gemmlowp_positive_shift, __VA_ARGS__); \
    } else {                                                           \
      QWINO_AMX_FUSED(qwino_x86_gemmlowp_left_shift, __VA_ARGS__);     \
    }                                                                  \
  } while (0)

#endif /* QWINO_QU8_IGEMM_ABIAS128_16X64C4_AMX_H_ */
