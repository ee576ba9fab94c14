/*
 * 16x64 8-bit indirect GEMM with the requantization fused, AMX-INT8, A biased by 128 (both
 * modes, uint8 and int8 outputs; contract: qwino_igemm_requantize_ukernel_fn in
 * src/qwino/ukernel-types.h). Bit-exact twin of the composition of
 * qwino_s8_igemm_abias128_ukernel_4x4c16__scalar and qwino_s32_qu8_requantize_*_ukernel__scalar.
 *
 * The accumulation is the s8-igemm kernel's (src/s8-igemm/s8-igemm-abias128-16x64c4-amx.h, whose
 * top comment has the scheme). Each 16x64 C block is stored from the tiles to an aligned block on
 * the stack (tiles have no other way out), and each of its rows goes through the s32 requantize
 * kernel's steps (src/qwino/requantization-avx512skx.h, the argument for each), as in the AVX-512
 * VNNI fused kernel: + the row's term where there are row terms, + bias (wrapping), the mode's
 * requantization, one narrowing of the row's four registers into 64 bytes, stored with a byte
 * mask of exactly nr bytes. A call takes any number of rows and columns (the list entry's
 * row_blocks), so the tiles are configured once per work item and panel block, and a row
 * block's gathered A serves all its panels.
 */
#include <immintrin.h>

#include "qwino/requantization-avx512skx.h"
#include "qwino/ukernels.h"
#include "s8-igemm/s8-igemm-abias128-16x64c4-amx.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

QWINO_INLINE void requantize_block(const int32_t (*c)[kQwinoAmxNR], size_t block_mr, size_t nr,
                                   const int32_t* channel_params, const int32_t* row_terms,
                                   uint8_t* output, size_t output_stride,
                                   const struct qwino_avx512_requantization* q, int form,
                                   int is_signed) {
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

#define QWINO_AMX_REQUANTIZE_BLOCK(m, block_mr, n, nr, c)                                        \
  requantize_block((const int32_t(*)[kQwinoAmxNR])(c), block_mr, nr, channel_params + (n),       \
                   row_terms != NULL ? row_terms + (m) : NULL, output + (m)*output_stride + (n), \
                   output_stride, &q, form, is_signed)

#define QWINO_AMX_FUSED(form_value)                                             \
  do {                                                                          \
    const int form = (form_value), is_signed = QWINO_X86_SIGN_BY_XOR;           \
    const struct qwino_avx512_requantization q =                                \
        qwino_avx512_requantization_init(params, form, is_signed);              \
    QWINO_AMX_IGEMM_BLOCKS(mr, nc, kc, ks, a, a_offset, zero, a_sign, packed_b, \
                           QWINO_AMX_REQUANTIZE_BLOCK);                         \
  } while (0)

/* The general gemmlowp form runs as the left-shift form (a shift by 0 changes nothing). */
void qwino_qu8_igemm_abias128_gemmlowp_ukernel_16x64c4__amx(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {
  const struct qwino_qu8_gemmlowp_params* p = &params->gemmlowp;
  if (p->positive_shift && p->output_zero_point >= -128 && p->output_zero_point <= 255) {
    QWINO_AMX_FUSED(qwino_x86_gemmlowp_positive_shift);
  } else {
    QWINO_AMX_FUSED(qwino_x86_gemmlowp_left_shift);
  }
}

void qwino_qu8_igemm_abias128_fp32_ukernel_16x64c4__amx(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {
  QWINO_AMX_FUSED(qwino_x86_fp32);
}
