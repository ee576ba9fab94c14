/*
 * 6x64 8-bit indirect GEMM with the requantization fused, AVX-512 VNNI, A biased by 128, or B
 * biased by 128 for int8 activations (the bbias128 entries; both modes, uint8 and int8 outputs;
 * contract: qwino_igemm_requantize_ukernel_fn in src/qwino/ukernel-types.h). Bit-exact twin of
 * the composition of the scalar kernels qwino_s8_igemm_abias128_ukernel_4x4c16__scalar (or
 * qwino_s8_igemm_bbias128_ukernel_4x4c16__scalar) and qwino_s32_qu8_requantize_*_ukernel__scalar.
 *
 * The accumulation is the s8-igemm kernel's (src/s8-igemm/s8-igemm-abias128-6x64c4-avx512vnni.h,
 * whose top comment has the scheme). Each row's accumulators then go through the s32 requantize
 * kernel's steps (src/qwino/requantization-avx512skx.h, the argument for each): + the row's
 * term where there are row terms, + bias (VPADDD, wrapping), the mode's requantization, and one
 * narrowing of the row's four registers of 16 columns into 64 bytes in column order, stored
 * with a byte mask of exactly nr bytes. The
 * per-channel vectors are loaded once per tile, masked to the tile's columns, so nothing past
 * the nr channels' values is read. What this saves against the s8-igemm kernel and the
 * requantize pass: the int32 block's stores and loads, and the pass's own loop. A call takes any
 * number of rows (blocks of 6), so the operator calls it once per work item and panel block
 * (shallow 1x1 layers: 0.5-6% faster than a call per 6 rows).
 */
#include <immintrin.h>

#include "qwino/requantization-avx512skx.h"
#include "qwino/ukernels.h"
#include "s8-igemm/s8-igemm-abias128-6x64c4-avx512vnni.h"

#define QWINO_INLINE static inline __attribute__((always_inline))

QWINO_INLINE void igemm_requantize(size_t mr, size_t nr, size_t kc, size_t ks,
                                   const uint8_t* const* a, size_t a_offset, const uint8_t* zero,
                                   uint8_t a_sign, const int8_t* packed_b,
                                   const int32_t* channel_params, const int32_t* row_terms,
                                   uint8_t* output, size_t output_stride,
                                   const union qwino_qu8_requantization_params* params,
                                   int registers, int flip_a, int swap, int form, int is_signed) {
  __m512i acc[kQwinoVnniIgemmMR][4];
  /* The sums start from the bias + the row's term (see qwino_vnni_igemm_accumulate). */
  __mmask16 masks[4];
#pragma GCC unroll 4
  for (int j = 0; j < registers; j++) {
    const size_t first = 16 * (size_t)j;
    const size_t columns = nr <= first ? 0 : nr - first < 16 ? nr - first : 16;
    masks[j] = (__mmask16)((1u << columns) - 1);
    const __m512i bias = qwino_avx512_load_s32(channel_params + first, masks[j]);
#pragma GCC unroll 6
    for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
      acc[i][j] = row_terms != NULL && (size_t)i < mr
                      ? _mm512_add_epi32(bias, _mm512_set1_epi32(row_terms[i]))
                      : bias;
    }
  }
  qwino_vnni_igemm_accumulate(acc, mr, kc, ks, a, a_offset, zero, a_sign, packed_b, registers,
                              flip_a, swap);
  const struct qwino_avx512_requantization q =
      qwino_avx512_requantization_init(params, form, is_signed);
  struct qwino_avx512_channels ch[4];
#pragma GCC unroll 4
  for (int j = 0; j < registers; j++) {
    ch[j] = qwino_avx512_load_channels(channel_params + 16 * (size_t)j, q.channel_stride, masks[j],
                                       &q, form);
  }
  const __mmask64 store_mask = nr == 64 ? ~(__mmask64)0 : ((__mmask64)1 << nr) - 1;
  /* One narrowing takes 64 bytes: a row of 3-4 column registers, or the rows of 2 (1-2 registers
   * a row: 32 bytes each) or 4 (1 register: 16 bytes each), so narrow tiles (first layers, 16-32
   * channel projections) do not narrow duplicates. */
  const int per_vector = registers == 1 ? 4 : registers == 2 ? 2 : 1;
  const int width = 4 / per_vector; /* a row's registers in the narrowed vector */
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoVnniIgemmMR; i += per_vector) {
    if ((size_t)i < mr) {
      __m512i r[4];
#pragma GCC unroll 4
      for (int v = 0; v < 4; v++) {
        const int row = i + v / width, j = v % width;
        /* Columns past nr and rows past mr: narrowed, not stored. */
        r[v] = row < kQwinoVnniIgemmMR && (size_t)row < mr && j < registers
                   ? qwino_avx512_requantize(acc[row < kQwinoVnniIgemmMR ? row : 0][j], &ch[j], &q,
                                             form)
                   : r[0];
      }
      const __m512i bytes = qwino_avx512_narrow_4x16(r[0], r[1], r[2], r[3], &q, form, is_signed);
      if (per_vector == 1) {
        _mm512_mask_storeu_epi8(output + i * output_stride, store_mask, bytes);
      } else if (per_vector == 2) {
        _mm256_mask_storeu_epi8(output + i * output_stride, (__mmask32)store_mask,
                                _mm512_castsi512_si256(bytes));
        if ((size_t)(i + 1) < mr) {
          _mm256_mask_storeu_epi8(output + (i + 1) * output_stride, (__mmask32)store_mask,
                                  _mm512_extracti64x4_epi64(bytes, 1));
        }
      } else {
        _mm_mask_storeu_epi8(output + i * output_stride, (__mmask16)store_mask,
                             _mm512_castsi512_si128(bytes));
        if (i + 1 < kQwinoVnniIgemmMR && (size_t)(i + 1) < mr) {
          _mm_mask_storeu_epi8(output + (i + 1) * output_stride, (__mmask16)store_mask,
                               _mm512_extracti32x4_epi32(bytes, 1));
        }
        if (i + 2 < kQwinoVnniIgemmMR && (size_t)(i + 2) < mr) {
          _mm_mask_storeu_epi8(output + (i + 2) * output_stride, (__mmask16)store_mask,
                               _mm512_extracti32x4_epi32(bytes, 2));
        }
        if (i + 3 < kQwinoVnniIgemmMR && (size_t)(i + 3) < mr) {
          _mm_mask_storeu_epi8(output + (i + 3) * output_stride, (__mmask16)store_mask,
                               _mm512_extracti32x4_epi32(bytes, 3));
        }
      }
    }
  }
}

#define QWINO_FUSED_BODY(registers, flip_a)                                                  \
  igemm_requantize(block_mr, nr, kc, ks, a + m * ks, a_offset, zero, a_sign,                 \
                   packed_b + n / 64 * panel_bytes, channel_params + n,                      \
                   row_terms != NULL ? row_terms + m : NULL, output + m * output_stride + n, \
                   output_stride, params, registers, flip_a, swap, form, is_signed)
/* Each panel (QWINO_VNNI_FUSED_PANELS) through the body for its column-register count and A
 * sign. With `swap` (the bbias128 kernels: B unsigned, A signed) int8 activations need no XOR;
 * the body for other activations, which the operator never gives these kernels (it takes the
 * abias128 ones for them), XORs and runs the full 64-column tile, one body instead of four. */
#define QWINO_FUSED_PANEL()                                                  \
  do {                                                                       \
    if (swap && a_sign != 0) {                                               \
      QWINO_FUSED_BODY(4, 1);                                                \
    } else {                                                                 \
      QWINO_VNNI_IGEMM_DISPATCH(nr, swap ? 0x80 : a_sign, QWINO_FUSED_BODY); \
    }                                                                        \
  } while (0)
#define QWINO_FUSED_PANELS() QWINO_VNNI_FUSED_PANELS(64, QWINO_FUSED_PANEL())
/* The left-shift form (multipliers of 0.5 and more, zero points beyond the shortcut's margin:
 * rare in trained layers) in one body: the full tile and the XOR (with 0 where the activations
 * need none) for every panel, for what the other forms spend eight bodies on. */
#define QWINO_FUSED_PANELS_COMPACT() QWINO_VNNI_FUSED_PANELS(64, QWINO_FUSED_BODY(4, 1))

/* Code size: one body per form, column-register count and A sign, for both output types
 * (QWINO_X86_SIGN_BY_XOR: one VPXOR per row of 64 outputs), the general gemmlowp form run as
 * the left-shift form (a shift by 0 changes nothing) and that form in one body. */
#define QWINO_FUSED_ENTRIES(name, SWAP)                                                \
  void qwino_qu8_igemm_##name##_gemmlowp_ukernel_6x64c4__avx512vnni(                   \
      QWINO_IGEMM_REQUANTIZE_PARAMETERS) {                                             \
    const struct qwino_qu8_gemmlowp_params* p = &params->gemmlowp;                     \
    const int is_signed = QWINO_X86_SIGN_BY_XOR, swap = (SWAP);                        \
    if (qwino_x86_gemmlowp_shortcut(p)) {                                              \
      if (qwino_x86_gemmlowp_rectified(p)) {                                           \
        const int form = qwino_x86_gemmlowp_positive_shift_rectified;                  \
        QWINO_FUSED_PANELS();                                                          \
      } else {                                                                         \
        const int form = qwino_x86_gemmlowp_positive_shift;                            \
        QWINO_FUSED_PANELS();                                                          \
      }                                                                                \
    } else {                                                                           \
      const int form = qwino_x86_gemmlowp_left_shift;                                  \
      QWINO_FUSED_PANELS_COMPACT();                                                    \
    }                                                                                  \
  }                                                                                    \
  void qwino_qu8_igemm_##name##_fp32_ukernel_6x64c4__avx512vnni(                       \
      QWINO_IGEMM_REQUANTIZE_PARAMETERS) {                                             \
    const int is_signed = QWINO_X86_SIGN_BY_XOR, swap = (SWAP), form = qwino_x86_fp32; \
    QWINO_FUSED_PANELS();                                                              \
  }
QWINO_FUSED_ENTRIES(abias128, 0)
QWINO_FUSED_ENTRIES(bbias128, 1)
