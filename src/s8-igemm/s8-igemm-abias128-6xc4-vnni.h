/*
 * The accumulation of the x86 VNNI indirect GEMMs (VPDPBUSD, 6 rows, k interleave 4, A biased by
 * 128), for one vector width: the AVX-512 VNNI 6x64c4 kernel
 * (src/s8-igemm/s8-igemm-abias128-6x64c4-avx512vnni.h) and the AVX-VNNI 6x16c4 one
 * (src/s8-igemm/s8-igemm-abias128-6x16c4-avxvnni.h) define the width's vector type and
 * operations, then include this. The scheme and the argument are at the top of their .c files.
 *
 * The including header defines:
 *   QWINO_VNNI_VECTOR                the vector type (int32 lanes)
 *   QWINO_VNNI_COLUMN_REGISTERS      the tile's registers of columns (NR / lanes)
 *   QWINO_VNNI_ZERO()                a zero vector
 *   QWINO_VNNI_SET1_EPI8(b)          b in every byte
 *   QWINO_VNNI_LOAD(p)               an unaligned load
 *   QWINO_VNNI_XOR(x, y)
 *   QWINO_VNNI_DPBUSD(acc, u, s)     acc + the four products of u's unsigned and s's signed bytes
 *                                    per int32 lane
 *   QWINO_VNNI_BROADCAST_QUAD(p)     the 4 bytes at p in every int32 lane
 *   QWINO_VNNI_BROADCAST_TAIL(p, r)  the r = 1..3 bytes at p, zeros above, in every int32 lane:
 *                                    exactly those bytes are read
 */
#ifndef QWINO_S8_IGEMM_ABIAS128_6XC4_VNNI_H_
#define QWINO_S8_IGEMM_ABIAS128_6XC4_VNNI_H_

#include <stddef.h>
#include <stdint.h>

#define QWINO_VNNI_IGEMM_INLINE static inline __attribute__((always_inline))

enum {
  kQwinoVnniIgemmMR = 6,
  /* Bytes of packed B per k quad: NR columns x 4. */
  kQwinoVnniIgemmQuadBytes = QWINO_VNNI_COLUMN_REGISTERS * (int)sizeof(QWINO_VNNI_VECTOR)
};

/* The A quad at p (4 bytes, or the row's last `tail` = 1..3), XORed with `flip` when `flip_a`. */
QWINO_VNNI_IGEMM_INLINE QWINO_VNNI_VECTOR qwino_vnni_igemm_broadcast(const uint8_t* p, size_t tail,
                                                                     QWINO_VNNI_VECTOR flip,
                                                                     int flip_a) {
  const QWINO_VNNI_VECTOR a =
      tail == 0 ? QWINO_VNNI_BROADCAST_QUAD(p) : QWINO_VNNI_BROADCAST_TAIL(p, tail);
  return flip_a ? QWINO_VNNI_XOR(a, flip) : a;
}

/* acc[i][j] += A quad of row i (its bytes at r[i] + k: 4, or the row's last `tail` = 1..3) x B
 * register j, for the `registers` column registers in use: A as VPDPBUSD's unsigned operand and B
 * its signed one, or with `swap` (a constant) B unsigned and A signed. Each row's broadcast address
 * passes through an empty asm that depends on the previous row's last VPDPBUSD, so GCC broadcasts
 * one row at a time: hoisting all six broadcasts (AVX-512: 6 + 4 B + 24 accumulators > 32
 * registers) made it spill two accumulators to the stack inside the loop. The asm emits nothing;
 * the CPU still issues the loads as early as it likes. A width that defines
 * QWINO_VNNI_DPBUSD_ROW4 and QWINO_VNNI_DPBUSD_FLIPPED_ROW4 (AVX-512) runs each full row of the
 * swapped form and of the XORed one through them instead: one asm statement per row, where the
 * intrinsics still copied accumulators and kept one on the stack. */
QWINO_VNNI_IGEMM_INLINE void qwino_vnni_igemm_multiply_quad(
    QWINO_VNNI_VECTOR acc[kQwinoVnniIgemmMR][QWINO_VNNI_COLUMN_REGISTERS],
    const uint8_t* const r[kQwinoVnniIgemmMR], size_t k, size_t tail, QWINO_VNNI_VECTOR flip,
    int flip_a, const int8_t* w, int registers, int swap) {
  QWINO_VNNI_VECTOR b[QWINO_VNNI_COLUMN_REGISTERS];
#pragma GCC unroll 4
  for (int j = 0; j < registers; j++) {
    b[j] = QWINO_VNNI_LOAD(w + (int)sizeof(QWINO_VNNI_VECTOR) * j);
  }
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
    const uint8_t* p = r[i] + k;
    if (i > 0) {
      __asm__("" : "+r"(p), "+v"(acc[i - 1][registers - 1]));
    }
#ifdef QWINO_VNNI_DPBUSD_ROW4
    if (swap && !flip_a && tail == 0 && registers == QWINO_VNNI_COLUMN_REGISTERS) {
      QWINO_VNNI_DPBUSD_ROW4(acc[i], b, p, flip);
      continue;
    }
    if (!swap && flip_a && tail == 0 && registers == QWINO_VNNI_COLUMN_REGISTERS) {
      QWINO_VNNI_DPBUSD_FLIPPED_ROW4(acc[i], b, p, flip);
      continue;
    }
#endif
    const QWINO_VNNI_VECTOR va = qwino_vnni_igemm_broadcast(p, tail, flip, flip_a);
#pragma GCC unroll 4
    for (int j = 0; j < registers; j++) {
      acc[i][j] =
          swap ? QWINO_VNNI_DPBUSD(acc[i][j], b[j], va) : QWINO_VNNI_DPBUSD(acc[i][j], va, b[j]);
    }
  }
}

/* acc[i][j] = 0 for the tile's registers: the start of the plain kernels' sums. */
QWINO_VNNI_IGEMM_INLINE void qwino_vnni_igemm_zero(
    QWINO_VNNI_VECTOR acc[kQwinoVnniIgemmMR][QWINO_VNNI_COLUMN_REGISTERS], int registers) {
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
#pragma GCC unroll 4
    for (int j = 0; j < registers; j++) {
      acc[i][j] = QWINO_VNNI_ZERO();
    }
  }
}

/* acc[i][j] (j < registers: the j-th register of columns) += the tile's sums of (A + 128) x B
 * (qwino_igemm_ukernel_fn's arguments) or, with `swap`, of A x B for B packed as its value + 128
 * (the list's b_bias 128: an unsigned byte), rows past mr computed from row mr - 1. The caller
 * sets the start: zero, or (the AVX-512 fused kernel) each output's bias and row term, one add
 * there instead of two after the sums (modulo 2^32 either way; the AVX-VNNI one, whose 16
 * registers spilled more that way, adds them after). Each broadcast is XORed
 * into the operand's bytes: A + 128 = byte ^ a_sign ^ 0x80, none for uint8 activations;
 * A = byte ^ a_sign, none for int8 ones. flip_a (a constant in every instantiation) says whether
 * that XOR is needed. */
QWINO_VNNI_IGEMM_INLINE void qwino_vnni_igemm_accumulate(
    QWINO_VNNI_VECTOR acc[kQwinoVnniIgemmMR][QWINO_VNNI_COLUMN_REGISTERS], size_t mr, size_t kc,
    size_t ks, const uint8_t* const* a, size_t a_offset, const uint8_t* zero, uint8_t a_sign,
    const int8_t* packed_b, int registers, int flip_a, int swap) {
  const QWINO_VNNI_VECTOR flip = QWINO_VNNI_SET1_EPI8((char)(swap ? a_sign : a_sign ^ 0x80));
  /* Rows past mr read row mr - 1's pointers. */
  size_t row_start[kQwinoVnniIgemmMR];
#pragma GCC unroll 6
  for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
    row_start[i] = ((size_t)i < mr ? (size_t)i : mr - 1) * ks;
  }
  const size_t tail = kc % 4;
  const int8_t* w = packed_b;
  for (size_t t = 0; t < ks; t++) {
    const uint8_t* r[kQwinoVnniIgemmMR];
#pragma GCC unroll 6
    for (int i = 0; i < kQwinoVnniIgemmMR; i++) {
      const uint8_t* row = a[row_start[i] + t];
      r[i] = row == zero ? row : row + a_offset;
    }
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) {
      qwino_vnni_igemm_multiply_quad(acc, r, k, 0, flip, flip_a, w, registers, swap);
      w += kQwinoVnniIgemmQuadBytes;
    }
    if (tail != 0) {
      qwino_vnni_igemm_multiply_quad(acc, r, k, tail, flip, flip_a, w, registers, swap);
      w += kQwinoVnniIgemmQuadBytes;
    }
  }
}

/* The fused kernels' walk of a call (src/qu8-igemm/qu8-igemm-abias128-*-*vnni.c): any number of
 * rows (the list entry's row_blocks) in blocks of 6 (block_mr), per block the nc columns a panel
 * of `width` at a time (n; the last nr = 1..width wide), PANEL for each, with panel_bytes the
 * packed bytes of one panel. */
#define QWINO_VNNI_FUSED_PANELS(width, PANEL)                     \
  do {                                                            \
    const size_t panel_bytes = ks * ((kc + 3) / 4 * 4) * (width); \
    for (size_t m = 0; m < mr; m += 6) {                          \
      const size_t block_mr = mr - m < 6 ? mr - m : 6;            \
      for (size_t n = 0; n < nc; n += (width)) {                  \
        const size_t nr = nc - n < (width) ? nc - n : (width);    \
        PANEL;                                                    \
      }                                                           \
    }                                                             \
  } while (0)

#endif /* QWINO_S8_IGEMM_ABIAS128_6XC4_VNNI_H_ */
