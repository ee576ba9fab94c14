// Deleting operators and asking them what they are.
#include "qwino.h"
#include "qwino/operator-registry.h"
#include "qwino/operator.h"

extern "C" qwino_status qwino_delete_operator(qwino_operator_t handle) {
  {
    const qwino::OperatorCall call(handle);
    if (call.status() != qwino_status_success) {
      return call.status();
    }
  }
  // Released before the operator goes: deleting during another call is the caller's error
  // (qwino.h, "Threads"); this check only catches the common case.
  delete qwino::unregister_operator(handle);
  return qwino_status_success;
}

extern "C" qwino_algorithm qwino_operator_algorithm(qwino_operator_t handle) {
  const qwino_operator* op = qwino::find_operator(handle);
  return op != nullptr ? op->algorithm : qwino_algorithm_none;
}

extern "C" const char* qwino_algorithm_name(qwino_algorithm algorithm) {
  switch (algorithm) {
    case qwino_algorithm_direct:
      return "direct";
    case qwino_algorithm_winograd_f2x2_3x3:
      return "winograd-f2x2-3x3";
    case qwino_algorithm_winograd_f4x4_3x3:
      return "winograd-f4x4-3x3";
    case qwino_algorithm_indirect_gemm:
      return "indirect-gemm";
    case qwino_algorithm_depthwise:
      return "depthwise";
    case qwino_algorithm_none:
      break;
  }
  return "none";
}

extern "C" size_t qwino_operator_scratch_bytes(qwino_operator_t handle) {
  const qwino_operator* op = qwino::find_operator(handle);
  return op != nullptr
             ? op->setup.scratch_bytes + op->setup.indirection_entries * sizeof(const uint8_t*)
             : 0;
}

extern "C" size_t qwino_operator_output_height(qwino_operator_t handle) {
  const qwino_operator* op = qwino::find_operator(handle);
  return op != nullptr ? op->setup.output_height : 0;
}

extern "C" size_t qwino_operator_output_width(qwino_operator_t handle) {
  const qwino_operator* op = qwino::find_operator(handle);
  return op != nullptr ? op->setup.output_width : 0;
}

extern "C" const char* qwino_operator_isa_name(qwino_operator_t handle) {
  const qwino_operator* op = qwino::find_operator(handle);
  return op != nullptr ? op->kernels.isa_name : nullptr;
}

extern "C" size_t qwino_operator_weight_bytes(qwino_operator_t handle) {
  const qwino_operator* op = qwino::find_operator(handle);
  if (op == nullptr) {
    return 0;
  }
  const auto packed_bytes = [op](const qwino::WinogradWeights& w) {
    return w.packed_weights ? w.packed_group_stride * op->geometry.groups * sizeof(int16_t) : 0;
  };
  const size_t direct_bytes = op->direct.packed_weights ? op->direct.packed_group_stride *
                                                              op->geometry.groups * sizeof(int16_t)
                                                        : 0;
  const size_t indirect_bytes = op->indirect.packed_weights
                                    ? op->indirect.packed_group_stride * op->geometry.groups +
                                          op->indirect.channel_params.size() * sizeof(int32_t)
                                    : 0;
  // The depthwise packing's size is where its last block ends (block_offsets has blocks + 1).
  const qwino::DepthwiseWeights& dw = op->depthwise;
  const size_t depthwise_bytes =
      dw.packed_weights ? dw.block_offsets.data()[dw.block_offsets.size() - 1] +
                              dw.block_offsets.size() * sizeof(size_t) + dw.block_slices.size() +
                              dw.channel_params.size() * sizeof(int32_t) + dw.zero_row.size()
                        : 0;
  return op->kernel.size() + op->channel_params.size() * sizeof(int32_t) + op->zero_pixel.size() +
         packed_bytes(op->f23) + packed_bytes(op->f43) + direct_bytes + indirect_bytes +
         depthwise_bytes;
}
