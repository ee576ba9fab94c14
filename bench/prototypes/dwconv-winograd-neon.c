/*
 * Prototype, not built with the library: the arithmetic of exact Winograd depthwise kernels on
 * NEON (ARMv8.0), to count their ASIMD work against the direct column kernels'
 * (src/s8-dwconv/s8-dwconv-columns-neon.c: 54-58 pipe-cycles per pixel of 16 channels,
 * requantization included). tile16: F(4x4,3x3), one 4x4 output tile of 16 channels from a 6x6
 * input tile already widened to int16 and 36 transformed int16 weights per channel; tile16_f2:
 * F(2x2,3x3), one 2x2 tile from a 4x4 one. Products into int32, the output transform to int32;
 * the requantization is left out (the direct kernels spend 20-28 pipe-cycles a pixel on it).
 * doc/DESIGN.md section 6, "Winograd for depthwise layers", has the counts. The command, for
 * FN = tile16 or tile16_f2:
 *   aarch64-linux-gnu-gcc -O3 -mcpu=cortex-a72 --param max-completely-peel-times=64
 *       --param max-completely-peeled-insns=20000 -S -o proto.s
 *       bench/prototypes/dwconv-winograd-neon.c
 *   awk '/^FN:/,/\.size\tFN,/' proto.s | grep -E '^\s+[a-z]' > fn.s
 *   llvm-mca -mtriple=aarch64 -mcpu=cortex-a72 -resource-pressure fn.s
 * (A57UnitW and A57UnitX are the pipes F0 and F1.)
 */
#include <arm_neon.h>
#include <stdint.h>
#include <stddef.h>
// One column (or row) of the input transform B^T d B on int16x8 lanes (8 channels).
static inline void bt(int16x8_t x[6], int16x8_t y[6]) {
  // rows of B^T: [4 0 -5 0 1 0] [0 -4 -4 1 1 0] [0 4 -4 -1 1 0] [0 -2 -1 2 1 0] [0 2 -1 -2 1 0] [0
  // 4 0 -5 0 1]
  int16x8_t t0 = vmlsq_n_s16(vaddq_s16(vshlq_n_s16(x[0], 2), x[4]), x[2], 5);
  int16x8_t a = vsubq_s16(x[4], x[2]), b = vsubq_s16(x[3], x[1]);  // x4-x2, x3-x1
  int16x8_t c =
      vaddq_s16(x[4], vsubq_s16(x[3], vshlq_n_s16(vaddq_s16(x[1], x[2]), 2)));  // -4x1-4x2+x3+x4
  int16x8_t d =
      vaddq_s16(vsubq_s16(x[4], x[3]), vshlq_n_s16(vsubq_s16(x[1], x[2]), 2));  // 4x1-4x2-x3+x4
  y[0] = t0;
  y[1] = c;
  y[2] = d;
  y[3] = vaddq_s16(a, vshlq_n_s16(b, 1));
  y[4] = vsubq_s16(a, vshlq_n_s16(b, 1));
  y[5] = vmlsq_n_s16(vaddq_s16(vshlq_n_s16(x[1], 2), x[5]), x[3], 5);
}
// Output transform A^T m A on int32x4, 6 -> 4.
static inline void at(int32x4_t m[6], int32x4_t y[4]) {
  int32x4_t a = vaddq_s32(m[1], m[2]), b = vsubq_s32(m[1], m[2]);
  int32x4_t c = vaddq_s32(m[3], m[4]), d = vsubq_s32(m[3], m[4]);
  y[0] = vaddq_s32(vaddq_s32(m[0], a), c);
  y[1] = vaddq_s32(b, vshlq_n_s32(d, 1));
  y[2] = vaddq_s32(a, vshlq_n_s32(c, 2));
  y[3] = vaddq_s32(vaddq_s32(b, vshlq_n_s32(d, 3)), m[5]);
}
void tile16(const int16_t* restrict in, size_t row_stride, const int16_t* restrict u,
            int32_t* restrict out) {
  for (int h = 0; h < 2; h++) {  // two halves of 16 channels (int16x8 each)
    int16x8_t d[6][6], t[6][6];
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) d[i][j] = vld1q_s16(in + i * row_stride + j * 16 + h * 8);
    for (int j = 0; j < 6; j++) {  // columns: B^T d
      int16x8_t x[6], y[6];
      for (int i = 0; i < 6; i++) x[i] = d[i][j];
      bt(x, y);
      for (int i = 0; i < 6; i++) t[i][j] = y[i];
    }
    int32x4_t mlo[6][6], mhi[6][6];
    for (int i = 0; i < 6; i++) {  // rows: (B^T d) B, then the products
      int16x8_t y[6];
      bt(t[i], y);
      for (int j = 0; j < 6; j++) {
        const int16x8_t w = vld1q_s16(u + (i * 6 + j) * 16 + h * 8);
        mlo[i][j] = vmull_s16(vget_low_s16(y[j]), vget_low_s16(w));
        mhi[i][j] = vmull_high_s16(y[j], w);
      }
    }
    for (int part = 0; part < 2; part++) {
      int32x4_t(*m)[6] = part ? mhi : mlo;
      int32x4_t s[4][6];
      for (int j = 0; j < 6; j++) {
        int32x4_t x[6], y[4];
        for (int i = 0; i < 6; i++) x[i] = m[i][j];
        at(x, y);
        for (int i = 0; i < 4; i++) s[i][j] = y[i];
      }
      for (int i = 0; i < 4; i++) {
        int32x4_t y[4];
        at(s[i], y);
        for (int j = 0; j < 4; j++) vst1q_s32(out + (i * 4 + j) * 16 + h * 8 + part * 4, y[j]);
      }
    }
  }
}

// F(2x2,3x3): one column (or row) of B^T d B, 4 -> 4, and of A^T m A, 4 -> 2.
static inline void bt2(const int16x8_t x[4], int16x8_t y[4]) {
  y[0] = vsubq_s16(x[0], x[2]);
  y[1] = vaddq_s16(x[1], x[2]);
  y[2] = vsubq_s16(x[2], x[1]);
  y[3] = vsubq_s16(x[1], x[3]);
}
static inline void at2(const int32x4_t m[4], int32x4_t y[2]) {
  const int32x4_t s = vaddq_s32(m[1], m[2]);
  y[0] = vaddq_s32(m[0], s);
  y[1] = vsubq_s32(vsubq_s32(m[1], m[2]), m[3]);
}
// One 2x2 output tile of 16 channels: input tile 4x4 int16, U 16 int16 per channel, 4 int32 out.
void tile16_f2(const int16_t* restrict in, size_t row_stride, const int16_t* restrict u,
               int32_t* restrict out) {
  for (int h = 0; h < 2; h++) {
    int16x8_t t[4][4];
    for (int j = 0; j < 4; j++) {
      int16x8_t x[4], y[4];
      for (int i = 0; i < 4; i++) x[i] = vld1q_s16(in + i * row_stride + j * 16 + h * 8);
      bt2(x, y);
      for (int i = 0; i < 4; i++) t[i][j] = y[i];
    }
    int32x4_t m[2][4][4];
    for (int i = 0; i < 4; i++) {
      int16x8_t y[4];
      bt2(t[i], y);
      for (int j = 0; j < 4; j++) {
        const int16x8_t w = vld1q_s16(u + (i * 4 + j) * 16 + h * 8);
        m[0][i][j] = vmull_s16(vget_low_s16(y[j]), vget_low_s16(w));
        m[1][i][j] = vmull_high_s16(y[j], w);
      }
    }
    for (int part = 0; part < 2; part++) {
      int32x4_t s[2][4];
      for (int j = 0; j < 4; j++) {
        int32x4_t x[4], y[2];
        for (int i = 0; i < 4; i++) x[i] = m[part][i][j];
        at2(x, y);
        s[0][j] = y[0];
        s[1][j] = y[1];
      }
      for (int i = 0; i < 2; i++) {
        int32x4_t y[2];
        at2(s[i], y);
        for (int j = 0; j < 2; j++) vst1q_s32(out + (i * 2 + j) * 16 + h * 8 + part * 4, y[j]);
      }
    }
  }
}
