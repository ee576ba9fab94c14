// Deleting operators and asking them what they are.
#include "qwino.h"
#include "qwino/operator-registry.h"
#include "qwino/operator.h"

extern "C" qwino_status qwino_delete_operator(qwino_operator_t op) {
  if (op == nullptr || !qwino::unregister_operator(op)) {
    return qwino_status_invalid_parameter;
  }
  delete op;
  return qwino_status_success;
}

extern "C" qwino_algorithm qwino_operator_algorithm(qwino_operator_t op) {
  return qwino::is_live_operator(op) ? op->algorithm : qwino_algorithm_none;
}

extern "C" const char* qwino_algorithm_name(qwino_algorithm algorithm) {
  switch (algorithm) {
    case qwino_algorithm_direct:
      return "direct";
    case qwino_algorithm_winograd_f2x2_3x3:
      return "winograd-f2x2-3x3";
    case qwino_algorithm_winograd_f4x4_3x3:
      return "winograd-f4x4-3x3";
    case qwino_algorithm_none:
      break;
  }
  return "none";
}

extern "C" size_t qwino_operator_scratch_bytes(qwino_operator_t op) {
  return qwino::is_live_operator(op) ? op->setup.scratch_bytes : 0;
}

extern "C" size_t qwino_operator_output_height(qwino_operator_t op) {
  return qwino::is_live_operator(op) ? op->setup.output_height : 0;
}

extern "C" size_t qwino_operator_output_width(qwino_operator_t op) {
  return qwino::is_live_operator(op) ? op->setup.output_width : 0;
}

extern "C" const char* qwino_operator_isa_name(qwino_operator_t op) {
  return qwino::is_live_operator(op) ? op->kernels.isa_name : nullptr;
}
