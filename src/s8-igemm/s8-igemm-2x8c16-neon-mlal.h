/*
 * The accumulation of the 2x8 8-bit indirect GEMM, NEON, k interleave 16 (c16), written for the
 * Cortex-A72 (doc/DESIGN.md section 6: 8-bit multiplies issue on pipe F0 only, one 8-lane
 * SMULL/SMLAL per cycle): the 2 x 8 sums of qwino_igemm_ukernel_fn (src/qwino/ukernel-types.h)
 * for one panel of 8 columns, returned as four int32x4. src/s8-igemm/s8-igemm-2x8c16-neon-mlal.c
 * stores them (the int32 block); src/qu8-igemm/qu8-igemm-2x8c16-neon-mlal.c requantizes them.
 *
 * Each of the 2 x 8 outputs has its own int32x4 accumulator. Per 16 k, output (i, j) takes the
 * 16 A bytes of row i and the 16 B values of column j (packed B keeps a column's 16 k values
 * together: src/packing.cc, pack_igemm_weights with kr 16):
 *   SMULL   int16x8  = A[0..7] x B[0..7]
 *   SMLAL2  int16x8 += A[8..15] x B[8..15]
 *   SADALP  int32x4 += pairwise sums of the int16x8
 * so each int16 lane holds a_k b_k + a_(k+8) b_(k+8). Exactness: a = (int8_t) (byte ^ a_sign)
 * lies in [-128, 127] and the contract keeps b in [-127, 127], so |a b| <= 128 x 127 = 16256
 * and a sum of two products lies within +-32512: it fits int16, SMLAL2 never wraps. SADALP
 * sign-extends the lanes and adds modulo 2^32, as the contract's accumulators do, and the final
 * ADDPs sum the four lanes modulo 2^32 too: the result is the scalar twin's for every input.
 *
 * A72 throughput: 32 SMULL/SMLAL2 per 16 k for 256 MACs keep F0 busy 32 cycles, the 8
 * MACs/cycle ceiling. The 16 SADALPs (and the 2 EORs of a_sign) go to F1, the 10 q loads to the
 * load pipe; the loop is 58 instructions per 32 cycles, under the 3-per-cycle decode.
 * Why 2 x 8 and not 4 x 4 (same ceiling, both 16 accumulators): per tap, every row costs its
 * pointer load, the zero check, the a_offset add and its A loads, shared by all columns; 2 rows
 * of 8 columns pay half of 4 x 4's. That decides short rows (kc <= 8, e.g. a first layer with 3
 * input channels: one SMULL per output and tap, so the row work is a large part of the
 * instructions and the 3-per-cycle decode binds first) and costs nothing on long ones (both
 * tiles run the 16-k loop at F0's ceiling; 2 x 8 loads 10 q registers per 16 k, 4 x 4 8).
 *
 * The multiply-accumulate triples are inline assembly: with intrinsics GCC 12 separates SMULL
 * from SMLAL2 (which overwrites its accumulator) and pays register copies (MOVs: ASIMD
 * instructions, F0/F1 time) and spills in the k loop; in one asm statement the int16x8 is just a
 * scratch register.
 *
 * Variants, chosen once per call (each an own function, so each gets its own register
 * allocation):
 * - a_sign != 0 (uint8 activations): the A vectors are XORed with it; a_sign == 0 (int8
 *   activations) skips the EOR.
 * - kc >= 9, the general path: 16-k blocks, then the last r = kc % 16 bytes of the row, read
 *   without passing kc: r > 8 reads the block's first 8 bytes and the row's last 8 (at
 *   kc - 8 >= the block start), the latter shifted right by 16 - r bytes (USHL) so that byte
 *   kc - r + 8 + q lands in lane q; r <= 8 reads the row's last 8 bytes (kc - 8 >= 0) shifted
 *   right by 8 - r bytes and multiplies only the low halves (SMULL). Lanes past kc meet B's zero
 *   padding (the packing zeroes k >= kc), so whatever they hold contributes 0.
 * - kc <= 8, short rows (every tap is one partial block): a row is one or two overlapping
 *   scalar loads (load_short_row), and two taps share an int16x8: SMULL (tap t) + SMLAL
 *   (tap t + 1), then one SADALP: again two products per lane, in int16 as above. Only the low
 *   8 bytes of each B block are read; the rest is padding. With a_offset == 0 and a_sign == 0
 *   (one group, int8 activations) the zero-pointer check and the EOR are left out.
 * - mr 2 or 1: only existing rows are computed (the bodies are instantiated per row count).
 * A caller picks the body once per call (qwino_mlal_igemm_choose) and runs it per panel, with
 * the operands that do not change (struct qwino_mlal_igemm_rows) by address.
 */
#ifndef QWINO_S8_IGEMM_2X8C16_NEON_MLAL_H_
#define QWINO_S8_IGEMM_2X8C16_NEON_MLAL_H_

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define QWINO_IGEMM_INLINE static inline __attribute__((always_inline))
#define QWINO_IGEMM_NOINLINE static __attribute__((noinline))

/* M(i, j) for the 8 columns of row i, M(i) for the 2 rows. Statements of rows that do not
 * exist (`rows` is a constant in every instantiation) fold away. */
#define QWINO_COLUMNS(M, i) M(i, 0) M(i, 1) M(i, 2) M(i, 3) M(i, 4) M(i, 5) M(i, 6) M(i, 7)
#define QWINO_ROWS(M) M(0) M(1)

/* The sums of a panel plus the initial values (init[j] for column j of both rows): row i,
 * columns 0-3 in r<i>lo and 4-7 in r<i>hi (row 1 is zero when mr == 1). */
struct qwino_mlal_igemm_sums {
  int32x4_t r0lo, r0hi, r1lo, r1hi;
};

/* What stays the same for all the panels of a call: the operands of qwino_igemm_ukernel_fn
 * but B and C. Passed by address, so that a caller's loop over panels keeps one register for
 * them across the calls instead of spilling and reloading seven. */
struct qwino_mlal_igemm_rows {
  size_t mr, kc, ks;
  const uint8_t* const* a;
  size_t a_offset;
  const uint8_t* zero;
  uint8_t a_sign;
};

/* acc += pairwise sums of (a.lo x b.lo + a.hi x b.hi): 16 k. */
#define QWINO_MAC16(acc, a, b)                   \
  do {                                           \
    int16x8_t product_;                          \
    __asm__(                                     \
        "smull %[p].8h, %[x].8b, %[y].8b\n\t"    \
        "smlal2 %[p].8h, %[x].16b, %[y].16b\n\t" \
        "sadalp %[s].4s, %[p].8h"                \
        : [p] "=&w"(product_), [s] "+w"(acc)     \
        : [x] "w"(a), [y] "w"(b));               \
  } while (0)
/* acc += pairwise sums of a x b: 8 k. */
#define QWINO_MAC8(acc, a, b)                 \
  do {                                        \
    int16x8_t product_;                       \
    __asm__(                                  \
        "smull %[p].8h, %[x].8b, %[y].8b\n\t" \
        "sadalp %[s].4s, %[p].8h"             \
        : [p] "=&w"(product_), [s] "+w"(acc)  \
        : [x] "w"(a), [y] "w"(b));            \
  } while (0)

/* Accumulators of row i, column j's initial value in lane 0 (rows that do not exist: dead
 * code; the zeros of existing rows are overwritten by QWINO_SEED_ROW). */
#define QWINO_ACC_DECLARE(i, j) int32x4_t acc##i##j = vdupq_n_s32(0);
/* acc<i><j0>, acc<i><j1> = [init[j0], 0, 0, 0], [init[j0 + 1], 0, 0, 0] with one LDP of two S
 * registers (a load into an S register zeroes the rest of the register): the accumulators start
 * from the caller's initial values without an ASIMD instruction (zeroing 16 registers, or
 * adding a bias to the sums, would take 16 or 4 F0/F1 slots a panel, which a panel of 64 k,
 * 128 F0 cycles of multiplies, cannot spare on F1). volatile: the two rows load their own
 * copies (a shared load would cost MOVs). */
#define QWINO_SEED_PAIR(i, j0, j1, offset)                      \
  __asm__ volatile("ldp %s[x], %s[y], [%[p], #" #offset "]"     \
                   : [x] "=w"(acc##i##j0), [y] "=w"(acc##i##j1) \
                   : [p] "r"(init), "m"(*(const int32_t(*)[8])init));
#define QWINO_SEED_ROW(i)        \
  if (rows > i) {                \
    QWINO_SEED_PAIR(i, 0, 1, 0)  \
    QWINO_SEED_PAIR(i, 2, 3, 8)  \
    QWINO_SEED_PAIR(i, 4, 5, 16) \
    QWINO_SEED_PAIR(i, 6, 7, 24) \
  }

/* Row i's sums: each accumulator's 4 lanes summed by two levels of ADDP. */
#define QWINO_SUMS_ROW(i)                                                               \
  if (rows > i) {                                                                       \
    sums.r##i##lo =                                                                     \
        vpaddq_s32(vpaddq_s32(acc##i##0, acc##i##1), vpaddq_s32(acc##i##2, acc##i##3)); \
    sums.r##i##hi =                                                                     \
        vpaddq_s32(vpaddq_s32(acc##i##4, acc##i##5), vpaddq_s32(acc##i##6, acc##i##7)); \
  }

/* ---- General path (kc >= 9) ---- */

#define QWINO_GENERAL_DECLARE(i)      \
  QWINO_COLUMNS(QWINO_ACC_DECLARE, i) \
  const uint8_t* p##i = NULL;         \
  int8x16_t va##i = vdupq_n_s8(0);    \
  int8x8_t vl##i = vdup_n_s8(0);      \
  (void)p##i;                         \
  (void)va##i;                        \
  (void)vl##i;
/* Row i's pointer for tap t: a pointer equal to `zero` is used as it is. */
#define QWINO_GENERAL_POINTER(i)                \
  if (rows > i) {                               \
    const uint8_t* row = a[i * ks + t];         \
    p##i = row == zero ? zero : row + a_offset; \
  }
#define QWINO_LOAD_A16(i)                  \
  if (rows > i) {                          \
    va##i = vld1q_s8((const int8_t*)p##i); \
    p##i += 16;                            \
    if (flip) {                            \
      va##i = veorq_s8(va##i, vsign);      \
    }                                      \
  }
/* Tail of r in 9..15 bytes: the block's first 8, then the row's last 8 >> (16 - r) bytes. */
#define QWINO_LOAD_A_TAIL16(i)                                                     \
  if (rows > i) {                                                                  \
    const int8x8_t first8 = vld1_s8((const int8_t*)p##i);                          \
    const uint64x1_t last8 = vreinterpret_u64_u8(vld1_u8(p##i + (tail - 8)));      \
    va##i = vcombine_s8(first8, vreinterpret_s8_u64(vshl_u64(last8, shift_high))); \
    if (flip) {                                                                    \
      va##i = veorq_s8(va##i, vsign);                                              \
    }                                                                              \
  }
/* Tail of r in 1..8 bytes: the row's last 8 >> (8 - r) bytes. */
#define QWINO_LOAD_A_TAIL8(i)                                                 \
  if (rows > i) {                                                             \
    const uint64x1_t last8 = vreinterpret_u64_u8(vld1_u8(p##i - (8 - tail))); \
    vl##i = vreinterpret_s8_u64(vshl_u64(last8, shift_low));                  \
    if (flip) {                                                               \
      vl##i = veor_s8(vl##i, vget_low_s8(vsign));                             \
    }                                                                         \
  }
#define QWINO_LOAD_B16(i, j) const int8x16_t vb##j = vld1q_s8(b + j * 16);
#define QWINO_LOAD_B8(i, j) const int8x8_t vb##j = vld1_s8(b + j * 16);
#define QWINO_MAC16_COLUMN(i, j) QWINO_MAC16(acc##i##j, va##i, vb##j);
#define QWINO_MAC16_ROW(i)               \
  if (rows > i) {                        \
    QWINO_COLUMNS(QWINO_MAC16_COLUMN, i) \
  }
#define QWINO_MAC8_COLUMN(i, j) QWINO_MAC8(acc##i##j, vl##i, vb##j);
#define QWINO_MAC8_ROW(i)               \
  if (rows > i) {                       \
    QWINO_COLUMNS(QWINO_MAC8_COLUMN, i) \
  }

QWINO_IGEMM_INLINE struct qwino_mlal_igemm_sums igemm_general(
    const size_t rows, const int flip, size_t kc, size_t ks, const uint8_t* const* a,
    size_t a_offset, const uint8_t* zero, uint8_t a_sign, const int8_t* b, const int32_t* init) {
  QWINO_ROWS(QWINO_GENERAL_DECLARE)
  QWINO_ROWS(QWINO_SEED_ROW)
  const int8x16_t vsign = vreinterpretq_s8_u8(vdupq_n_u8(a_sign));
  (void)vsign;
  const size_t tail = kc % 16;
  /* USHL by a negative count shifts the 64-bit lane right (by 0 to 56 bits here). */
  const int64x1_t shift_low = vdup_n_s64(tail <= 8 ? -(int64_t)(8 * (8 - tail)) : 0);
  const int64x1_t shift_high = vdup_n_s64(tail > 8 ? -(int64_t)(8 * (16 - tail)) : 0);
  for (size_t t = 0; t < ks; t++) {
    QWINO_ROWS(QWINO_GENERAL_POINTER)
    size_t k = kc;
    for (; k >= 16; k -= 16) {
      QWINO_ROWS(QWINO_LOAD_A16)
      QWINO_COLUMNS(QWINO_LOAD_B16, 0)
      b += 8 * 16;
      QWINO_ROWS(QWINO_MAC16_ROW)
    }
    if (k > 8) {
      QWINO_ROWS(QWINO_LOAD_A_TAIL16)
      QWINO_COLUMNS(QWINO_LOAD_B16, 0)
      b += 8 * 16;
      QWINO_ROWS(QWINO_MAC16_ROW)
    } else if (k != 0) {
      QWINO_ROWS(QWINO_LOAD_A_TAIL8)
      QWINO_COLUMNS(QWINO_LOAD_B8, 0)
      b += 8 * 16;
      QWINO_ROWS(QWINO_MAC8_ROW)
    }
  }
  struct qwino_mlal_igemm_sums sums = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0),
                                       vdupq_n_s32(0)};
  QWINO_ROWS(QWINO_SUMS_ROW)
  return sums;
}

/* ---- Resident rows (one tap, 9 <= kc <= 48) ---- */

/* A call's two rows loaded once for all its panels (a 1x1 layer's rows of 9-48 bytes): the
 * general path reloads them per panel, with the pointer, the zero check, the tail's shifts and
 * the loops' counters, which at 1-3 blocks of 16 k are a tenth of a panel's instructions.
 * block<b><i>: row i's k 16 b .. 16 b + 15; width<b>: 16, 8 (the low 8 lanes only: the last
 * block of a row of 16 b + 1 .. 16 b + 8 bytes) or 0 (no such block; block 0 is 16 wide). Lanes
 * past kc hold whatever the loads leave there and meet B's zero padding. The widths are tested
 * per panel (two predictable branches) rather than instantiated: five shapes per variant would
 * be five copies of the panel loop. */
struct qwino_mlal_resident_rows {
  int8x16_t block00, block01, block10, block11, block20, block21;
  size_t width1, width2; /* width0 is 16 */
};

/* Whether a call's rows fit the resident path (48: the fused kernels' list entries'
 * resident_row_bytes, src/qu8-igemm/qu8-igemm.inc, which the cost model reads). */
QWINO_IGEMM_INLINE int qwino_mlal_igemm_resident_rows(size_t kc, size_t ks) {
  return ks == 1 && kc >= 9 && kc <= 48;
}

/* The `width` (1..16) bytes of a row at p + offset, the row being kc >= 9 bytes long and the
 * block its last when width < 16: the loads stay within the row as the general path's tails
 * do (QWINO_LOAD_A_TAIL16 / QWINO_LOAD_A_TAIL8: the row's last 8 bytes, shifted down). */
QWINO_IGEMM_INLINE int8x16_t load_resident_block(const uint8_t* p, size_t kc, size_t offset,
                                                 size_t width, int8x16_t vsign) {
  if (width == 0) {
    return vdupq_n_s8(0);
  }
  int8x16_t v;
  if (width == 16) {
    v = vld1q_s8((const int8_t*)(p + offset));
  } else {
    const uint64x1_t last8 = vreinterpret_u64_u8(vld1_u8(p + kc - 8));
    if (width > 8) {
      const int64x1_t shift = vdup_n_s64(-(int64_t)(8 * (16 - width)));
      v = vcombine_s8(vld1_s8((const int8_t*)(p + offset)),
                      vreinterpret_s8_u64(vshl_u64(last8, shift)));
    } else {
      const int64x1_t shift = vdup_n_s64(-(int64_t)(8 * (8 - width)));
      v = vcombine_s8(vreinterpret_s8_u64(vshl_u64(last8, shift)), vdup_n_s8(0));
    }
  }
  return veorq_s8(v, vsign);
}

/* The bytes of block `block` of a row of kc bytes (0 past the row). */
QWINO_IGEMM_INLINE size_t resident_block_bytes(size_t kc, size_t block) {
  const size_t left = kc > 16 * block ? kc - 16 * block : 0;
  return left < 16 ? left : 16;
}

/* The width a block of `bytes` is multiplied as: blocks of 9-15 bytes as 16 (their tail lanes
 * are zero or meet padding), a last block of 1-8 as 8 (kc >= 9: never the first). */
QWINO_IGEMM_INLINE size_t resident_block_width(size_t bytes) {
  return bytes == 0 ? 0 : bytes <= 8 ? 8 : 16;
}

/* Row i (< rows) of the call's blocks (a pointer equal to `zero` is used as it is). */
#define QWINO_RESIDENT_LOAD_ROW(i)                                                         \
  if (rows > i) {                                                                          \
    const uint8_t* row = a[i] == zero ? zero : a[i] + a_offset;                            \
    res->block0##i = load_resident_block(row, kc, 0, resident_block_bytes(kc, 0), vsign);  \
    res->block1##i = load_resident_block(row, kc, 16, resident_block_bytes(kc, 1), vsign); \
    res->block2##i = load_resident_block(row, kc, 32, resident_block_bytes(kc, 2), vsign); \
  }
QWINO_IGEMM_INLINE void qwino_mlal_load_resident_rows(const size_t rows, size_t kc,
                                                      const uint8_t* const* a, size_t a_offset,
                                                      const uint8_t* zero, uint8_t a_sign,
                                                      struct qwino_mlal_resident_rows* res) {
  const int8x16_t vsign = vreinterpretq_s8_u8(vdupq_n_u8(a_sign));
  res->width1 = resident_block_width(resident_block_bytes(kc, 1));
  res->width2 = resident_block_width(resident_block_bytes(kc, 2));
  res->block00 = res->block01 = res->block10 = res->block11 = res->block20 = res->block21 =
      vdupq_n_s8(0);
  QWINO_ROWS(QWINO_RESIDENT_LOAD_ROW)
}
#undef QWINO_RESIDENT_LOAD_ROW

#define QWINO_RESIDENT_BLOCK(i)    \
  if (rows > i) {                  \
    va##i = block##i;              \
    vl##i = vget_low_s8(block##i); \
  }

/* Block `which` of the resident rows into the accumulators (B at b). */
#define QWINO_RESIDENT_MAC(which, width)           \
  {                                                \
    const int8x16_t block0 = res->block##which##0; \
    const int8x16_t block1 = res->block##which##1; \
    (void)block1;                                  \
    QWINO_ROWS(QWINO_RESIDENT_BLOCK)               \
    if (which == 0 || width == 16) {               \
      QWINO_COLUMNS(QWINO_LOAD_B16, 0)             \
      QWINO_ROWS(QWINO_MAC16_ROW)                  \
    } else {                                       \
      QWINO_COLUMNS(QWINO_LOAD_B8, 0)              \
      QWINO_ROWS(QWINO_MAC8_ROW)                   \
    }                                              \
    b += 8 * 16;                                   \
  }

/* One panel's sums from resident rows: 1-3 blocks of B, no pointer or counter. */
QWINO_IGEMM_INLINE struct qwino_mlal_igemm_sums igemm_resident(
    const size_t rows, const struct qwino_mlal_resident_rows* res, const int8_t* b,
    const int32_t* init) {
  QWINO_ROWS(QWINO_GENERAL_DECLARE)
  QWINO_ROWS(QWINO_SEED_ROW)
  QWINO_RESIDENT_MAC(0, 16)
  if (res->width1 != 0) {
    QWINO_RESIDENT_MAC(1, res->width1)
    if (res->width2 != 0) {
      QWINO_RESIDENT_MAC(2, res->width2)
    }
  }
  struct qwino_mlal_igemm_sums sums = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0),
                                       vdupq_n_s32(0)};
  QWINO_ROWS(QWINO_SUMS_ROW)
  return sums;
}
#undef QWINO_RESIDENT_BLOCK
#undef QWINO_RESIDENT_MAC

/* ---- Short rows (kc <= 8) ---- */

/* The kc bytes at p in the low lanes of a d register, never reading past them: one load when
 * width == kc (1 or 8); for width 2 (kc 2, 3) and 4 (kc 4..7), the `width` bytes at p and
 * those at p + last (last = kc - width) shifted up by `last` bytes: the two overlap in
 * 2 width - kc >= 0 bytes with equal values, so the OR keeps them. Lanes past kc are 0. */
QWINO_IGEMM_INLINE int8x8_t load_short_row(const uint8_t* p, const size_t width, size_t last) {
  if (width == 8) {
    return vld1_s8((const int8_t*)p);
  } else if (width == 1) {
    return vcreate_s8((uint64_t)*p);
  } else if (width == 2) {
    uint16_t first, second;
    memcpy(&first, p, sizeof(first));
    memcpy(&second, p + last, sizeof(second));
    return vcreate_s8((uint64_t)first | ((uint64_t)second << (8 * last)));
  } else {
    uint32_t first, second;
    memcpy(&first, p, sizeof(first));
    memcpy(&second, p + last, sizeof(second));
    return vcreate_s8((uint64_t)first | ((uint64_t)second << (8 * last)));
  }
}

/* One tap of one row: the pointer (a_offset applied unless it is `zero`), the bytes, the sign. */
QWINO_IGEMM_INLINE int8x8_t load_tap(const uint8_t* p, const size_t width, const int general,
                                     size_t a_offset, const uint8_t* zero, size_t last,
                                     int8x8_t vsign) {
  if (general) {
    p = p == zero ? zero : p + a_offset;
  }
  int8x8_t v = load_short_row(p, width, last);
  if (general) {
    v = veor_s8(v, vsign);
  }
  return v;
}

#define QWINO_SHORT_DECLARE(i)             \
  QWINO_COLUMNS(QWINO_ACC_DECLARE, i)      \
  const uint8_t* const* a##i = a + i * ks; \
  (void)a##i;
/* Row i's A for the tap at a##i[tap], as v##i##tap (zero for a row that does not exist). */
#define QWINO_SHORT_LOAD(i, tap) \
  const int8x8_t v##i##tap =     \
      rows > i ? load_tap(a##i[tap], width, general, a_offset, zero, last, vsign) : vdup_n_s8(0);
#define QWINO_SHORT_LOAD_TAP0(i) QWINO_SHORT_LOAD(i, 0)
#define QWINO_SHORT_LOAD_TAP1(i) QWINO_SHORT_LOAD(i, 1)
#define QWINO_SHORT_ADVANCE(i) \
  if (rows > i) {              \
    a##i += 2;                 \
  }
/* Column j of a tap pair: B of tap t at b + 16 j and of tap t + 1 one tap block (8 x 16 bytes)
 * later, loaded inside the statement so that the compiler cannot hoist all 16 B loads of a pair
 * (with the 16 accumulators that is more than the 32 registers: copies and spills); then each
 * row's SMULL (tap t), SMLAL (tap t + 1), SADALP. */
#define QWINO_SHORT_PAIR_COLUMN(i, j)                                                             \
  if (rows == 2) {                                                                                \
    int8x8_t b0_, b1_;                                                                            \
    int16x8_t p0_, p1_;                                                                           \
    __asm__("ldr %d[b0], [%[b], #(16 * " #j                                                       \
            ")]\n\t"                                                                              \
            "ldr %d[b1], [%[b], #(128 + 16 * " #j                                                 \
            ")]\n\t"                                                                              \
            "smull %[p0].8h, %[x00].8b, %[b0].8b\n\t"                                             \
            "smull %[p1].8h, %[x10].8b, %[b0].8b\n\t"                                             \
            "smlal %[p0].8h, %[x01].8b, %[b1].8b\n\t"                                             \
            "smlal %[p1].8h, %[x11].8b, %[b1].8b\n\t"                                             \
            "sadalp %[s0].4s, %[p0].8h\n\t"                                                       \
            "sadalp %[s1].4s, %[p1].8h"                                                           \
            : [b0] "=&w"(b0_), [b1] "=&w"(b1_), [p0] "=&w"(p0_), [p1] "=&w"(p1_),                 \
              [s0] "+w"(acc0##j), [s1] "+w"(acc1##j)                                              \
            : [b] "r"(b), "m"(*(const int8_t(*)[2 * 8 * 16]) b), [x00] "w"(v00), [x01] "w"(v01),  \
              [x10] "w"(v10), [x11] "w"(v11));                                                    \
  } else {                                                                                        \
    int8x8_t b0_, b1_;                                                                            \
    int16x8_t p0_;                                                                                \
    __asm__("ldr %d[b0], [%[b], #(16 * " #j                                                       \
            ")]\n\t"                                                                              \
            "ldr %d[b1], [%[b], #(128 + 16 * " #j                                                 \
            ")]\n\t"                                                                              \
            "smull %[p0].8h, %[x00].8b, %[b0].8b\n\t"                                             \
            "smlal %[p0].8h, %[x01].8b, %[b1].8b\n\t"                                             \
            "sadalp %[s0].4s, %[p0].8h"                                                           \
            : [b0] "=&w"(b0_), [b1] "=&w"(b1_), [p0] "=&w"(p0_), [s0] "+w"(acc0##j)               \
            : [b] "r"(b), "m"(*(const int8_t(*)[2 * 8 * 16]) b), [x00] "w"(v00), [x01] "w"(v01)); \
  }
/* The last tap of an odd count. */
#define QWINO_SHORT_SINGLE_COLUMN(i, j)      \
  {                                          \
    const int8x8_t vb = vld1_s8(b + j * 16); \
    QWINO_MAC8(acc0##j, v00, vb);            \
    if (rows == 2) {                         \
      QWINO_MAC8(acc1##j, v10, vb);          \
    }                                        \
  }

QWINO_IGEMM_INLINE struct qwino_mlal_igemm_sums igemm_short(const size_t rows, const size_t width,
                                                            const int general, size_t kc, size_t ks,
                                                            const uint8_t* const* a,
                                                            size_t a_offset, const uint8_t* zero,
                                                            uint8_t a_sign, const int8_t* b,
                                                            const int32_t* init) {
  QWINO_ROWS(QWINO_SHORT_DECLARE)
  QWINO_ROWS(QWINO_SEED_ROW)
  const int8x8_t vsign = vreinterpret_s8_u8(vdup_n_u8(a_sign));
  const size_t last = width == 2 || width == 4 ? kc - width : 0;
  size_t t = ks;
  for (; t >= 2; t -= 2) {
    QWINO_ROWS(QWINO_SHORT_LOAD_TAP0)
    QWINO_ROWS(QWINO_SHORT_LOAD_TAP1)
    QWINO_ROWS(QWINO_SHORT_ADVANCE)
    QWINO_COLUMNS(QWINO_SHORT_PAIR_COLUMN, 0)
    b += 2 * 8 * 16;
  }
  if (t != 0) {
    QWINO_ROWS(QWINO_SHORT_LOAD_TAP0)
    QWINO_COLUMNS(QWINO_SHORT_SINGLE_COLUMN, 0)
  }
  struct qwino_mlal_igemm_sums sums = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0),
                                       vdupq_n_s32(0)};
  QWINO_ROWS(QWINO_SUMS_ROW)
  return sums;
}

/* ---- Bodies, one per variant ---- */

/* Each an own function, so that each gets its own register allocation; the sums come back in
 * v0-v3 (a homogeneous vector aggregate). */
typedef struct qwino_mlal_igemm_sums (*qwino_mlal_igemm_body)(
    const struct qwino_mlal_igemm_rows* rows, const int8_t* b, const int32_t* init);
#define QWINO_IGEMM_PARAMETERS \
  const struct qwino_mlal_igemm_rows *r, const int8_t *b, const int32_t *init
#define QWINO_IGEMM_ARGUMENTS r->kc, r->ks, r->a, r->a_offset, r->zero, r->a_sign, b, init
#define QWINO_GENERAL_VARIANT(name, rows, flip)                                    \
  QWINO_IGEMM_NOINLINE struct qwino_mlal_igemm_sums name(QWINO_IGEMM_PARAMETERS) { \
    return igemm_general(rows, flip, QWINO_IGEMM_ARGUMENTS);                       \
  }
QWINO_GENERAL_VARIANT(general_2rows, 2, 0)
QWINO_GENERAL_VARIANT(general_1row, 1, 0)
QWINO_GENERAL_VARIANT(general_2rows_sign, 2, 1)
QWINO_GENERAL_VARIANT(general_1row_sign, 1, 1)
#define QWINO_SHORT_VARIANT(name, width, general)                                  \
  QWINO_IGEMM_NOINLINE struct qwino_mlal_igemm_sums name(QWINO_IGEMM_PARAMETERS) { \
    if (r->mr == 2) {                                                              \
      return igemm_short(2, width, general, QWINO_IGEMM_ARGUMENTS);                \
    }                                                                              \
    return igemm_short(1, width, general, QWINO_IGEMM_ARGUMENTS);                  \
  }
QWINO_SHORT_VARIANT(short_1, 1, 1)
QWINO_SHORT_VARIANT(short_2, 2, 1)
QWINO_SHORT_VARIANT(short_4, 4, 1)
QWINO_SHORT_VARIANT(short_8, 8, 1)
QWINO_SHORT_VARIANT(short_1_plain, 1, 0)
QWINO_SHORT_VARIANT(short_2_plain, 2, 0)
QWINO_SHORT_VARIANT(short_4_plain, 4, 0)
QWINO_SHORT_VARIANT(short_8_plain, 8, 0)
#undef QWINO_GENERAL_VARIANT
#undef QWINO_SHORT_VARIANT

/* Whether rows of kc bytes take the general path (16-k blocks) rather than the short one. */
QWINO_IGEMM_INLINE int qwino_mlal_igemm_general_rows(size_t kc) { return kc >= 9; }

/* The body for a call's rows (the same for all of its panels). */
QWINO_IGEMM_INLINE qwino_mlal_igemm_body
qwino_mlal_igemm_choose(const struct qwino_mlal_igemm_rows* rows) {
  const size_t mr = rows->mr, kc = rows->kc, a_offset = rows->a_offset;
  const uint8_t a_sign = rows->a_sign;
  if (qwino_mlal_igemm_general_rows(kc)) {
    if (a_sign == 0) {
      return mr == 2 ? general_2rows : general_1row;
    }
    return mr == 2 ? general_2rows_sign : general_1row_sign;
  }
  /* Short rows, by load width: 1, 2 (kc 2-3), 4 (kc 4-7) or 8. The plain variants (a_offset and
   * a_sign 0) leave out the zero check and the EOR. */
  const int plain = a_offset == 0 && a_sign == 0;
  if (kc == 1) {
    return plain ? short_1_plain : short_1;
  } else if (kc < 4) {
    return plain ? short_2_plain : short_2;
  } else if (kc < 8) {
    return plain ? short_4_plain : short_4;
  }
  return plain ? short_8_plain : short_8;
}

#endif /* QWINO_S8_IGEMM_2X8C16_NEON_MLAL_H_ */
