/*
 * 6x16 8-bit indirect GEMM with the requantization fused, AVX2 + AVX-VNNI, A biased by 128 (both
 * modes, uint8 and int8 outputs; contract: qwino_igemm_requantize_ukernel_fn in
 * src/qwino/ukernel-types.h). Bit-exact twin of the composition of the scalar kernels
 * qwino_s8_igemm_abias128_ukernel_4x4c16__scalar and qwino_s32_qu8_requantize_*_ukernel__scalar.
 *
 * The accumulation is the s8-igemm kernel's (src/s8-igemm/s8-igemm-abias128-6x16c4-avxvnni.h,
 * whose top comment has the scheme). Each row's two registers of 8 columns then go through the
 * s32 requantize kernel's steps (src/qwino/requantization-avx2.h, the argument for each): + the
 * row's term where there are row terms, + bias (VPADDD, wrapping), the mode's requantization, and
 * one narrowing (qwino_avx2_narrow_4x8) per pair of rows: 32 bytes, row i's 16 columns then row
 * i + 1's, each stored whole or, for a last panel of nr < 16 columns, through a stack buffer of
 * which exactly nr bytes per row are copied. The per-channel values are loaded once per tile,
 * for a last panel through the staged tail load (exactly nr values of each array are read). A
 * call takes any number of rows (blocks of 6) and columns (panels of 16), as the AVX-512 VNNI
 * kernel does (src/qu8-igemm/qu8-igemm-abias128-6x64c4-avx512vnni.c).
 */
#include <immintrin.h>
#include <string.h>

#include "qwino/requantization-avx2.h"
#include "qwino/ukernels.h"
#include "s8-igemm/s8-igemm-abias128-6x16c4-avxvnni.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

QWINO_INLINE void igemm_requantize(size_t mr, size_t nr, size_t kc, size_t ks,
                                   const uint8_t* const* a, size_t a_offset, const uint8_t* zero,
                                   uint8_t a_sign, const int8_t* packed_b,
                                   const int32_t* channel_params, const int32_t* row_terms,
                                   uint8_t* output, size_t output_stride,
                                   const union qwino_qu8_requantization_params* params,
                                   int registers, int flip_a, int form, int is_signed) {
  __m256i acc[kQwinoVnniIgemmMR][2];
  qwino_vnni_igemm_zero(acc, registers);
  qwino_vnni_igemm_accumulate(acc, mr, kc, ks, a, a_offset, zero, a_sign, packed_b, registers,
                              flip_a, 0);
  const struct qwino_avx2_requantization q =
      qwino_avx2_requantization_init(params, form, is_signed);
  struct qwino_avx2_channels ch[2];
#pragma GCC unroll 2
  for (int j = 0; j < registers; j++) {
    const size_t first = 8 * (size_t)j;
    const size_t columns = nr - first < 8 ? nr - first : 8;
    ch[j] = columns == 8
                ? qwino_avx2_load_channels(channel_params + first, q.channel_stride, &q, form)
                : qwino_avx2_load_channels_tail(channel_params + first, q.channel_stride, columns,
                                                &q, form);
  }
#pragma GCC unroll 3
  for (int i = 0; i < kQwinoVnniIgemmMR; i += 2) {
    if ((size_t)i < mr) {
      __m256i r[2][2];
#pragma GCC unroll 2
      for (int row = 0; row < 2; row++) {
        const __m256i term = row_terms != NULL && (size_t)(i + row) < mr
                                 ? _mm256_set1_epi32(row_terms[i + row])
                                 : _mm256_setzero_si256();
#pragma GCC unroll 2
        for (int j = 0; j < registers; j++) {
          r[row][j] = qwino_avx2_requantize(
              _mm256_add_epi32(_mm256_add_epi32(acc[i + row][j], term), ch[j].bias), &ch[j], &q,
              form);
        }
        if (registers == 1) {
          r[row][1] = r[row][0]; /* columns past nr: narrowed, not stored */
        }
      }
      const __m256i bytes =
          qwino_avx2_narrow_4x8(r[0][0], r[0][1], r[1][0], r[1][1], &q, form, is_signed);
      uint8_t* first_row = output + i * output_stride;
      const int second = (size_t)(i + 1) < mr;
      if (nr == 16) {
        _mm_storeu_si128((__m128i*)first_row, _mm256_castsi256_si128(bytes));
        if (second) {
          _mm_storeu_si128((__m128i*)(first_row + output_stride),
                           _mm256_extracti128_si256(bytes, 1));
        }
      } else {
        uint8_t buffer[32];
        _mm256_storeu_si256((__m256i*)buffer, bytes);
        memcpy(first_row, buffer, nr);
        if (second) {
          memcpy(first_row + output_stride, buffer + 16, nr);
        }
      }
    }
  }
}

#define QWINO_FUSED_BODY(registers, flip_a)                                                  \
  igemm_requantize(block_mr, nr, kc, ks, a + m * ks, a_offset, zero, a_sign,                 \
                   packed_b + n / 16 * panel_bytes, channel_params + n,                      \
                   row_terms != NULL ? row_terms + m : NULL, output + m * output_stride + n, \
                   output_stride, params, registers, flip_a, form, is_signed)
/* Each panel through the body for its column-register count and A sign. */
#define QWINO_FUSED_PANELS() \
  QWINO_VNNI_FUSED_PANELS(16, QWINO_VNNI_IGEMM_DISPATCH(nr, a_sign, QWINO_FUSED_BODY))
/* The left-shift form (multipliers of 0.5 and more: rare in trained layers) in one body, as in
 * the AVX-512 VNNI kernel: the full tile and the XOR (with 0 where the activations need none). */
#define QWINO_FUSED_PANELS_COMPACT() \
  QWINO_VNNI_FUSED_PANELS(16, QWINO_FUSED_BODY(QWINO_VNNI_COLUMN_REGISTERS, 1))

/* One body per form, column-register count and A sign, for both output types
 * (QWINO_X86_SIGN_BY_XOR: one VPXOR per pair of rows), the general gemmlowp form run as the
 * left-shift form (a shift by 0 changes nothing) and that form in one body, as in the AVX-512
 * VNNI kernel. */
void qwino_qu8_igemm_abias128_gemmlowp_ukernel_6x16c4__avxvnni(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {
  const struct qwino_qu8_gemmlowp_params* p = &params->gemmlowp;
  const int is_signed = QWINO_X86_SIGN_BY_XOR;
  if (qwino_x86_gemmlowp_shortcut(p)) {
    const int form = qwino_x86_gemmlowp_positive_shift;
    QWINO_FUSED_PANELS();
  } else {
    const int form = qwino_x86_gemmlowp_left_shift;
    QWINO_FUSED_PANELS_COMPACT();
  }
}

void qwino_qu8_igemm_abias128_fp32_ukernel_6x16c4__avxvnni(QWINO_IGEMM_REQUANTIZE_PARAMETERS) {
  const int is_signed = QWINO_X86_SIGN_BY_XOR;
  const int form = qwino_x86_fp32;
  QWINO_FUSED_PANELS();
}
