// Deleting operators and asking them what they are.
#include "qwino.h"
#include "qwino/operator-registry.h"
#include "qwino/algorithm.h"
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
  const qwino::AlgorithmEntry* entry = qwino::find_algorithm(algorithm);
  return entry != nullptr ? entry->name : "none";
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
  return op->kernel.size() + op->channel_params.size() * sizeof(int32_t) + op->zero_pixel.size() +
         qwino::algorithm_weight_bytes(*op);
}
