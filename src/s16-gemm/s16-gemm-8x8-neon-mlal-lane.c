/*
 * 8x8 int16 x int16 -> int32 GEMM micro-kernel, NEON: bit-exact twin of
 * src/s16-gemm/s16-gemm-8x8-scalar.c, and the kernel that decides qwino's speed (doc/DESIGN.md
 * section 6).
 *
 * Thesis algorithm 6: the 8x8 block of C lives in 16 int32x4 accumulators (row i: columns 0-3
 * and 4-7). Per k, one q register holds the 8 packed B values and each A value is used as a
 * lane operand: SMLAL (low 4 columns) + SMLAL2 (high 4 columns) by element, so 16 multiply
 * instructions do 64 MACs. On Cortex-A72 every such multiply issues on pipe F0 only, one per
 * cycle, so anything else that lands on F0 is lost MACs; loads go to the L pipe and the loop
 * bookkeeping to the integer pipes, which have room to spare.
 *
 * A rows are read 4 k at a time into d registers (the lane operand of a 16-bit by-element
 * multiply must be in v0-v15: 8 A registers + B leave v16-v31 for the accumulators). SMLAL wraps
 * modulo 2^32, which is the ring the Winograd result is exact in.
 *
 * The first k step multiplies with SMULL instead of accumulating into zeroed registers: the
 * 16 MOVIs it saves are ASIMD instructions that could otherwise take F0 slots.
 *
 * Row remainders: F0 time is proportional to the rows multiplied, so a partial block must not
 * pay for 8 rows (ResNet-18 14x14 has 49 tiles = 6 x 8 + 1: with aliased rows the 1-row call
 * cost a full block, 56 rows of work for 49). mr == 8 runs the 8-row body; mr < 8 runs its
 * binary decomposition into 4-, 2- and 1-row bodies (mr 7 = 4 + 2 + 1), each the same code
 * as the 8-row one with fewer rows (gemm_rows, instantiated per row count). A smaller body
 * reloads B, but loads go to the L pipe, which has room: on the A72 ruler a call with mr rows
 * costs exactly mr/8 of an 8-row call, F0 still binding (bench/ukernels GemmRows), so even
 * mr 5..7 beat computing 8 rows, and llvm-mca gives every body's loop 3.99 MACs/cycle.
 *
 * Other remainders: the k tail (1..3) loads only the valid A elements (an A row may end at the
 * end of a buffer) and only k rows of B (packed B would allow round_up(k, 4)), and only nr
 * columns are stored.
 *
 * The LLVM-MCA-BEGIN/END comments mark each body's k loop (qwino_gemm_{8,4,2,1}x8_kloop) for
 * bench/ukernels/gemm-mca.sh (default: the 8-row loop); they are plain assembler comments and
 * generate no code.
 */
#include <arm_neon.h>

#include "qwino/ukernels.h"

/* Rows `rows` and up do not exist in a block of `rows` rows (a compile-time constant in every
 * instantiation of gemm_rows, so the tests fold away). */
#define QWINO_ROW(i, statement) \
  do {                          \
    if (rows > (i)) {           \
      statement;                \
    }                           \
  } while (0)

/* One k step: row i's A value is lane `lane` of va##i. OP is vmlal (accumulate) or vmull (the
 * first k step, which initializes the accumulators without 16 extra zeroing instructions). */
#define QWINO_GEMM_KSTEP_ROW(OP, i, vb, vb_lo, lane)                   \
  QWINO_ROW(i, acc##i##_lo = OP##_LO(acc##i##_lo, vb_lo, va##i, lane); \
            acc##i##_hi = OP##_HI(acc##i##_hi, vb, va##i, lane))
#define QWINO_GEMM_KSTEP_OP(OP, vb, lane)         \
  do {                                            \
    const int16x4_t vb_lo = vget_low_s16(vb);     \
    QWINO_GEMM_KSTEP_ROW(OP, 0, vb, vb_lo, lane); \
    QWINO_GEMM_KSTEP_ROW(OP, 1, vb, vb_lo, lane); \
    QWINO_GEMM_KSTEP_ROW(OP, 2, vb, vb_lo, lane); \
    QWINO_GEMM_KSTEP_ROW(OP, 3, vb, vb_lo, lane); \
    QWINO_GEMM_KSTEP_ROW(OP, 4, vb, vb_lo, lane); \
    QWINO_GEMM_KSTEP_ROW(OP, 5, vb, vb_lo, lane); \
    QWINO_GEMM_KSTEP_ROW(OP, 6, vb, vb_lo, lane); \
    QWINO_GEMM_KSTEP_ROW(OP, 7, vb, vb_lo, lane); \
  } while (0)
#define QWINO_MLAL_LO(acc, b, a, lane) vmlal_lane_s16(acc, b, a, lane)
#define QWINO_MLAL_HI(acc, b, a, lane) vmlal_high_lane_s16(acc, b, a, lane)
#define QWINO_MULL_LO(acc, b, a, lane) vmull_lane_s16(b, a, lane)
#define QWINO_MULL_HI(acc, b, a, lane) vmull_high_lane_s16(b, a, lane)
#define QWINO_GEMM_KSTEP(vb, lane) QWINO_GEMM_KSTEP_OP(QWINO_MLAL, vb, lane)
#define QWINO_GEMM_KSTEP_FIRST(vb, lane) QWINO_GEMM_KSTEP_OP(QWINO_MULL, vb, lane)

/* Row i's A registers; rows that do not exist repeat row 0's (never loaded, never used). */
#define QWINO_A_LOAD(i, LOAD) const int16x4_t va##i = rows > (i) ? LOAD(i) : va0
#define QWINO_A_LOAD_ALL(LOAD) \
  QWINO_A_LOAD(1, LOAD);       \
  QWINO_A_LOAD(2, LOAD);       \
  QWINO_A_LOAD(3, LOAD);       \
  QWINO_A_LOAD(4, LOAD);       \
  QWINO_A_LOAD(5, LOAD);       \
  QWINO_A_LOAD(6, LOAD);       \
  QWINO_A_LOAD(7, LOAD)
#define QWINO_A_K4(i) vld1_s16(a##i)
#define QWINO_A_TAIL(i) load_a_tail(a##i, kk)

/* 4 k steps: A as int16x4 per row, B as 4 q registers. FIRST_STEP initializes or accumulates. */
#define QWINO_GEMM_K4(FIRST_STEP)            \
  do {                                       \
    const int16x4_t va0 = vld1_s16(a0);      \
    QWINO_A_LOAD_ALL(QWINO_A_K4);            \
    a0 += 4;                                 \
    a1 += 4;                                 \
    a2 += 4;                                 \
    a3 += 4;                                 \
    a4 += 4;                                 \
    a5 += 4;                                 \
    a6 += 4;                                 \
    a7 += 4;                                 \
    const int16x8_t vb0 = vld1q_s16(b);      \
    const int16x8_t vb1 = vld1q_s16(b + 8);  \
    const int16x8_t vb2 = vld1q_s16(b + 16); \
    const int16x8_t vb3 = vld1q_s16(b + 24); \
    b += 32;                                 \
    FIRST_STEP(vb0, 0);                      \
    QWINO_GEMM_KSTEP(vb1, 1);                \
    QWINO_GEMM_KSTEP(vb2, 2);                \
    QWINO_GEMM_KSTEP(vb3, 3);                \
  } while (0)

/* The last kk (1..3) k steps. */
#define QWINO_GEMM_KTAIL(FIRST_STEP)             \
  do {                                           \
    const int16x4_t va0 = load_a_tail(a0, kk);   \
    QWINO_A_LOAD_ALL(QWINO_A_TAIL);              \
    const int16x8_t vb0 = vld1q_s16(b);          \
    FIRST_STEP(vb0, 0);                          \
    if (kk >= 2) {                               \
      const int16x8_t vb1 = vld1q_s16(b + 8);    \
      QWINO_GEMM_KSTEP(vb1, 1);                  \
      if (kk >= 3) {                             \
        const int16x8_t vb2 = vld1q_s16(b + 16); \
        QWINO_GEMM_KSTEP(vb2, 2);                \
      }                                          \
    }                                            \
  } while (0)

/* Loads the first n (1..3) elements of an A row into the low lanes; never reads past them. */
static inline int16x4_t load_a_tail(const int16_t* a, size_t n) {
  int16x4_t va = vdup_n_s16(0);
  va = vld1_lane_s16(a, va, 0);
  if (n >= 2) {
    va = vld1_lane_s16(a + 1, va, 1);
  }
  if (n >= 3) {
    va = vld1_lane_s16(a + 2, va, 2);
  }
  return va;
}

static inline void store_row(int32_t* c, size_t nr, int32x4_t lo, int32x4_t hi) {
  if (nr == 8) {
    vst1q_s32(c, lo);
    vst1q_s32(c + 4, hi);
    return;
  }
  if (nr & 4) {
    vst1q_s32(c, lo);
    c += 4;
    lo = hi;
  }
  int32x2_t half = vget_low_s32(lo);
  if (nr & 2) {
    vst1_s32(c, half);
    c += 2;
    half = vget_high_s32(lo);
  }
  if (nr & 1) {
    vst1_lane_s32(c, half, 0);
  }
}

/* A block of `rows` (8, 4, 2 or 1; a constant at every call) rows of A times one B panel; all
 * `rows` rows are valid. Everything lives in registers (no stack traffic at -O2/-O3). */
static inline __attribute__((always_inline)) void gemm_rows(const size_t rows, size_t nr, size_t k,
                                                            const int16_t* a, size_t a_stride,
                                                            const int16_t* b, int32_t* c,
                                                            size_t c_stride) {
  /* Pointers of rows that do not exist alias row 0 and are dead code. */
  const int16_t* a0 = a;
  const int16_t* a1 = rows > 1 ? a0 + a_stride : a0;
  const int16_t* a2 = rows > 2 ? a1 + a_stride : a0;
  const int16_t* a3 = rows > 3 ? a2 + a_stride : a0;
  const int16_t* a4 = rows > 4 ? a3 + a_stride : a0;
  const int16_t* a5 = rows > 5 ? a4 + a_stride : a0;
  const int16_t* a6 = rows > 6 ? a5 + a_stride : a0;
  const int16_t* a7 = rows > 7 ? a6 + a_stride : a0;

  /* Zero-initialized only to keep rows that do not exist defined; every existing accumulator is
   * first written by the SMULL step, so the zeros are dead code. */
  const int32x4_t vzero = vdupq_n_s32(0);
  int32x4_t acc0_lo = vzero, acc0_hi = vzero, acc1_lo = vzero, acc1_hi = vzero;
  int32x4_t acc2_lo = vzero, acc2_hi = vzero, acc3_lo = vzero, acc3_hi = vzero;
  int32x4_t acc4_lo = vzero, acc4_hi = vzero, acc5_lo = vzero, acc5_hi = vzero;
  int32x4_t acc6_lo = vzero, acc6_hi = vzero, acc7_lo = vzero, acc7_hi = vzero;

  size_t kk = k;
  if (kk >= 4) {
    QWINO_GEMM_K4(QWINO_GEMM_KSTEP_FIRST);
    kk -= 4;
    for (; kk >= 4; kk -= 4) {
      if (rows == 8) {
        __asm__ volatile("// LLVM-MCA-BEGIN qwino_gemm_8x8_kloop" ::: "memory");
      } else if (rows == 4) {
        __asm__ volatile("// LLVM-MCA-BEGIN qwino_gemm_4x8_kloop" ::: "memory");
      } else if (rows == 2) {
        __asm__ volatile("// LLVM-MCA-BEGIN qwino_gemm_2x8_kloop" ::: "memory");
      } else {
        __asm__ volatile("// LLVM-MCA-BEGIN qwino_gemm_1x8_kloop" ::: "memory");
      }
      QWINO_GEMM_K4(QWINO_GEMM_KSTEP);
    }
    __asm__ volatile("// LLVM-MCA-END" ::: "memory");
    if (kk != 0) {
      QWINO_GEMM_KTAIL(QWINO_GEMM_KSTEP);
    }
  } else {
    QWINO_GEMM_KTAIL(QWINO_GEMM_KSTEP_FIRST);
  }

  store_row(c, nr, acc0_lo, acc0_hi);
  QWINO_ROW(1, store_row(c + 1 * c_stride, nr, acc1_lo, acc1_hi));
  QWINO_ROW(2, store_row(c + 2 * c_stride, nr, acc2_lo, acc2_hi));
  QWINO_ROW(3, store_row(c + 3 * c_stride, nr, acc3_lo, acc3_hi));
  QWINO_ROW(4, store_row(c + 4 * c_stride, nr, acc4_lo, acc4_hi));
  QWINO_ROW(5, store_row(c + 5 * c_stride, nr, acc5_lo, acc5_hi));
  QWINO_ROW(6, store_row(c + 6 * c_stride, nr, acc6_lo, acc6_hi));
  QWINO_ROW(7, store_row(c + 7 * c_stride, nr, acc7_lo, acc7_hi));
}

void qwino_s16_gemm_ukernel_8x8__neon_mlal_lane(size_t mr, size_t nr, size_t k, const int16_t* a,
                                                size_t a_stride, const int16_t* packed_b,
                                                int32_t* c, size_t c_stride) {
  if (mr >= 8) {
    gemm_rows(8, nr, k, a, a_stride, packed_b, c, c_stride);
    return;
  }
  if (mr & 4) {
    gemm_rows(4, nr, k, a, a_stride, packed_b, c, c_stride);
    a += 4 * a_stride;
    c += 4 * c_stride;
  }
  if (mr & 2) {
    gemm_rows(2, nr, k, a, a_stride, packed_b, c, c_stride);
    a += 2 * a_stride;
    c += 2 * c_stride;
  }
  if (mr & 1) {
    gemm_rows(1, nr, k, a, a_stride, packed_b, c, c_stride);
  }
}
