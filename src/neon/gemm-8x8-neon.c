/*
 * 8x8 int16 x int16 -> int32 GEMM micro-kernel, NEON: bit-exact twin of
 * src/scalar/gemm-8x8-scalar.c, and the kernel that decides qwino's speed (DESIGN.md section 6).
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
 * Remainders: rows >= mr alias the last valid row (computed, never stored), the k tail (1..3)
 * loads only the valid A elements (an A row may end at the end of a buffer) and only k rows of
 * B (packed B would allow round_up(k, 4)), and only nr columns are stored.
 *
 * The LLVM-MCA-BEGIN/END comments mark the k loop for bench/ukernels/gemm-mca.sh; they are plain
 * assembler comments and generate no code.
 */
#include <arm_neon.h>

#include "qwino/ukernels.h"

/* One k step: row i's A value is lane `lane` of va##i. OP is vmlal (accumulate) or vmull (the
 * first k step, which initializes the accumulators without 16 extra zeroing instructions). */
#define QWINO_GEMM_KSTEP_OP(OP, vb, lane)                                       \
  do {                                                                          \
    const int16x4_t vb_lo = vget_low_s16(vb);                                   \
    acc0_lo = OP##_LO(acc0_lo, vb_lo, va0, lane);                               \
    acc0_hi = OP##_HI(acc0_hi, vb, va0, lane);                                  \
    acc1_lo = OP##_LO(acc1_lo, vb_lo, va1, lane);                               \
    acc1_hi = OP##_HI(acc1_hi, vb, va1, lane);                                  \
    acc2_lo = OP##_LO(acc2_lo, vb_lo, va2, lane);                               \
    acc2_hi = OP##_HI(acc2_hi, vb, va2, lane);                                  \
    acc3_lo = OP##_LO(acc3_lo, vb_lo, va3, lane);                               \
    acc3_hi = OP##_HI(acc3_hi, vb, va3, lane);                                  \
    acc4_lo = OP##_LO(acc4_lo, vb_lo, va4, lane);                               \
    acc4_hi = OP##_HI(acc4_hi, vb, va4, lane);                                  \
    acc5_lo = OP##_LO(acc5_lo, vb_lo, va5, lane);                               \
    acc5_hi = OP##_HI(acc5_hi, vb, va5, lane);                                  \
    acc6_lo = OP##_LO(acc6_lo, vb_lo, va6, lane);                               \
    acc6_hi = OP##_HI(acc6_hi, vb, va6, lane);                                  \
    acc7_lo = OP##_LO(acc7_lo, vb_lo, va7, lane);                               \
    acc7_hi = OP##_HI(acc7_hi, vb, va7, lane);                                  \
  } while (0)
#define QWINO_MLAL_LO(acc, b, a, lane) vmlal_lane_s16(acc, b, a, lane)
#define QWINO_MLAL_HI(acc, b, a, lane) vmlal_high_lane_s16(acc, b, a, lane)
#define QWINO_MULL_LO(acc, b, a, lane) vmull_lane_s16(b, a, lane)
#define QWINO_MULL_HI(acc, b, a, lane) vmull_high_lane_s16(b, a, lane)
#define QWINO_GEMM_KSTEP(vb, lane) QWINO_GEMM_KSTEP_OP(QWINO_MLAL, vb, lane)
#define QWINO_GEMM_KSTEP_FIRST(vb, lane) QWINO_GEMM_KSTEP_OP(QWINO_MULL, vb, lane)

/* 4 k steps: A as int16x4 per row, B as 4 q registers. FIRST_STEP initializes or accumulates. */
#define QWINO_GEMM_K4(FIRST_STEP)                                               \
  do {                                                                          \
    const int16x4_t va0 = vld1_s16(a0); a0 += 4;                                \
    const int16x4_t va1 = vld1_s16(a1); a1 += 4;                                \
    const int16x4_t va2 = vld1_s16(a2); a2 += 4;                                \
    const int16x4_t va3 = vld1_s16(a3); a3 += 4;                                \
    const int16x4_t va4 = vld1_s16(a4); a4 += 4;                                \
    const int16x4_t va5 = vld1_s16(a5); a5 += 4;                                \
    const int16x4_t va6 = vld1_s16(a6); a6 += 4;                                \
    const int16x4_t va7 = vld1_s16(a7); a7 += 4;                                \
    const int16x8_t vb0 = vld1q_s16(b);                                         \
    const int16x8_t vb1 = vld1q_s16(b + 8);                                     \
    const int16x8_t vb2 = vld1q_s16(b + 16);                                    \
    const int16x8_t vb3 = vld1q_s16(b + 24);                                    \
    b += 32;                                                                    \
    FIRST_STEP(vb0, 0);                                                         \
    QWINO_GEMM_KSTEP(vb1, 1);                                                   \
    QWINO_GEMM_KSTEP(vb2, 2);                                                   \
    QWINO_GEMM_KSTEP(vb3, 3);                                                   \
  } while (0)

/* The last kk (1..3) k steps. */
#define QWINO_GEMM_KTAIL(FIRST_STEP)                                            \
  do {                                                                          \
    const int16x4_t va0 = load_a_tail(a0, kk);                                  \
    const int16x4_t va1 = load_a_tail(a1, kk);                                  \
    const int16x4_t va2 = load_a_tail(a2, kk);                                  \
    const int16x4_t va3 = load_a_tail(a3, kk);                                  \
    const int16x4_t va4 = load_a_tail(a4, kk);                                  \
    const int16x4_t va5 = load_a_tail(a5, kk);                                  \
    const int16x4_t va6 = load_a_tail(a6, kk);                                  \
    const int16x4_t va7 = load_a_tail(a7, kk);                                  \
    const int16x8_t vb0 = vld1q_s16(b);                                         \
    FIRST_STEP(vb0, 0);                                                         \
    if (kk >= 2) {                                                              \
      const int16x8_t vb1 = vld1q_s16(b + 8);                                   \
      QWINO_GEMM_KSTEP(vb1, 1);                                                 \
      if (kk >= 3) {                                                            \
        const int16x8_t vb2 = vld1q_s16(b + 16);                                \
        QWINO_GEMM_KSTEP(vb2, 2);                                               \
      }                                                                         \
    }                                                                           \
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

void qwino_gemm_ukernel_8x8__neon(
    size_t mr, size_t nr, size_t k, const int16_t* a, size_t a_stride,
    const int16_t* packed_b, int32_t* c, size_t c_stride) {
  const int16_t* a0 = a;
  const int16_t* a1 = mr > 1 ? a0 + a_stride : a0;
  const int16_t* a2 = mr > 2 ? a1 + a_stride : a1;
  const int16_t* a3 = mr > 3 ? a2 + a_stride : a2;
  const int16_t* a4 = mr > 4 ? a3 + a_stride : a3;
  const int16_t* a5 = mr > 5 ? a4 + a_stride : a4;
  const int16_t* a6 = mr > 6 ? a5 + a_stride : a5;
  const int16_t* a7 = mr > 7 ? a6 + a_stride : a6;
  const int16_t* b = packed_b;

  int32x4_t acc0_lo, acc0_hi, acc1_lo, acc1_hi, acc2_lo, acc2_hi, acc3_lo, acc3_hi;
  int32x4_t acc4_lo, acc4_hi, acc5_lo, acc5_hi, acc6_lo, acc6_hi, acc7_lo, acc7_hi;

  size_t kk = k;
  if (kk >= 4) {
    QWINO_GEMM_K4(QWINO_GEMM_KSTEP_FIRST);
    kk -= 4;
    for (; kk >= 4; kk -= 4) {
      __asm__ volatile("// LLVM-MCA-BEGIN qwino_gemm_8x8_kloop" ::: "memory");
      QWINO_GEMM_K4(QWINO_GEMM_KSTEP);
    }
    __asm__ volatile("// LLVM-MCA-END" ::: "memory");
    if (kk != 0) {
      QWINO_GEMM_KTAIL(QWINO_GEMM_KSTEP);
    }
  } else {
    QWINO_GEMM_KTAIL(QWINO_GEMM_KSTEP_FIRST);
  }

  /* Rows >= mr were computed from an aliased row; they are simply not stored. */
  store_row(c, nr, acc0_lo, acc0_hi);
  if (mr > 1) store_row(c + 1 * c_stride, nr, acc1_lo, acc1_hi);
  if (mr > 2) store_row(c + 2 * c_stride, nr, acc2_lo, acc2_hi);
  if (mr > 3) store_row(c + 3 * c_stride, nr, acc3_lo, acc3_hi);
  if (mr > 4) store_row(c + 4 * c_stride, nr, acc4_lo, acc4_hi);
  if (mr > 5) store_row(c + 5 * c_stride, nr, acc5_lo, acc5_hi);
  if (mr > 6) store_row(c + 6 * c_stride, nr, acc6_lo, acc6_hi);
  if (mr > 7) store_row(c + 7 * c_stride, nr, acc7_lo, acc7_hi);
}
