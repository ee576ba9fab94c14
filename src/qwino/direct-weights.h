// Create-time work of the direct (im2col + GEMM) path: the weights as the GEMM's B operand.
#ifndef QWINO_DIRECT_WEIGHTS_H_
#define QWINO_DIRECT_WEIGHTS_H_

#include <cstddef>
#include <cstdint>

struct qwino_operator;

namespace qwino {

// Packs B = w - kernel_zero_point (int16) of one group as [ceil(output_channels / nr) panels]
// [panel of round_up(k, 4) x nr, k interleaved by kr (see qwino_gemm_ukernel_fn)], zero-filled
// past k and past output_channels. kernel: [output_channels][k] (k = kh * kw * input channels,
// the caller's [oc][kh][kw][ic] layout).
void pack_direct_weights(const uint8_t* kernel, size_t k, size_t output_channels,
                         uint8_t kernel_zero_point, size_t nr, size_t kr, int16_t* packed);

// Packs op->direct from op->kernel for op->kernels unless already done. Returns false when out
// of memory (the operator is left as it was).
bool prepare_direct_weights(qwino_operator* op);

}  // namespace qwino

#endif  // QWINO_DIRECT_WEIGHTS_H_
