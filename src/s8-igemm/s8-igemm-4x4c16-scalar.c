/*
 * 4x4 8-bit indirect GEMM micro-kernels, portable C: the references for every SIMD twin, one per
 * pair of values of the list's a_bias and b_bias columns (src/s8-igemm/s8-igemm.inc).
 *
 * Each A value is the byte the row pointer of its tap points at, XOR a_sign, read as int8: the
 * offset-binary view of qwino/microparams.h turned signed, so uint8 activations (a_sign 0x80)
 * and int8 ones (a_sign 0) both arrive as their value - 128 or their value. The abias128 kernel
 * multiplies that value + 128 (the unsigned byte VPDPBUSD takes) instead; the abias128_bbias128
 * kernel multiplies it by the weight + 128 too (both unsigned bytes, as UDOT takes them), the
 * packed byte read as uint8 (the packing stores weight + 128 for such kernels); the bbias128
 * kernel multiplies the value itself by the weight + 128 (VPDPBUSD with the weights as its
 * unsigned operand, which takes int8 activations without an XOR). Products and
 * sums wrap modulo 2^32 in uint32_t, like the int32 accumulator they compute, free of
 * signed-overflow undefined behaviour.
 */
#include "qwino/ukernels.h"

static inline void igemm_4x4c16(size_t mr, size_t nr, size_t kc, size_t ks, const uint8_t* const* a,
                                size_t a_offset, const uint8_t* zero, uint8_t a_sign,
                                int32_t a_bias, int b_bias128, const int8_t* packed_b, int32_t* c,
                                size_t c_stride) {
  enum { kNR = 4, kKR = 16 };
  const size_t kc_padded = qwino_round_up(kc, kKR);
  for (size_t i = 0; i < mr; i++) {
    uint32_t accumulators[kNR] = {0};
    for (size_t t = 0; t < ks; t++) {
      const uint8_t* row = a[i * ks + t];
      row = row == zero ? zero : row + a_offset;
      const int8_t* b = packed_b + t * kc_padded * kNR;
      for (size_t k = 0; k < kc; k++) {
        const int32_t a_value = (int8_t)(row[k] ^ a_sign) + a_bias;
        for (size_t j = 0; j < kNR; j++) {
          const int8_t b_byte = b[(k / kKR * kNR + j) * kKR + k % kKR];
          const int32_t b_value = b_bias128 ? (int32_t)(uint8_t)b_byte : (int32_t)b_byte;
          accumulators[j] += (uint32_t)(a_value * b_value);
        }
      }
    }
    for (size_t j = 0; j < nr; j++) {
      c[i * c_stride + j] = (int32_t)accumulators[j];
    }
  }
}

void qwino_s8_igemm_ukernel_4x4c16__scalar(size_t mr, size_t nr, size_t kc, size_t ks,
                                           const uint8_t* const* a, size_t a_offset,
                                           const uint8_t* zero, uint8_t a_sign,
                                           const int8_t* packed_b, int32_t* c, size_t c_stride) {
  igemm_4x4c16(mr, nr, kc, ks, a, a_offset, zero, a_sign, 0, 0, packed_b, c, c_stride);
}

void qwino_s8_igemm_abias128_ukernel_4x4c16__scalar(size_t mr, size_t nr, size_t kc, size_t ks,
                                                    const uint8_t* const* a, size_t a_offset,
                                                    const uint8_t* zero, uint8_t a_sign,
                                                    const int8_t* packed_b, int32_t* c,
                                                    size_t c_stride) {
  igemm_4x4c16(mr, nr, kc, ks, a, a_offset, zero, a_sign, 128, 0, packed_b, c, c_stride);
}

void qwino_s8_igemm_abias128_bbias128_ukernel_4x4c16__scalar(size_t mr, size_t nr, size_t kc,
                                                             size_t ks, const uint8_t* const* a,
                                                             size_t a_offset, const uint8_t* zero,
                                                             uint8_t a_sign, const int8_t* packed_b,
                                                             int32_t* c, size_t c_stride) {
  igemm_4x4c16(mr, nr, kc, ks, a, a_offset, zero, a_sign, 128, 1, packed_b, c, c_stride);
}

void qwino_s8_igemm_bbias128_ukernel_4x4c16__scalar(size_t mr, size_t nr, size_t kc, size_t ks,
                                                    const uint8_t* const* a, size_t a_offset,
                                                    const uint8_t* zero, uint8_t a_sign,
                                                    const int8_t* packed_b, int32_t* c,
                                                    size_t c_stride) {
  igemm_4x4c16(mr, nr, kc, ks, a, a_offset, zero, a_sign, 0, 1, packed_b, c, c_stride);
}
