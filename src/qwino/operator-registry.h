// Registry of live operators, so that a call on a deleted (or never created) operator handle is
// answered with qwino_status_invalid_parameter instead of touching freed memory.
#ifndef QWINO_OPERATOR_REGISTRY_H_
#define QWINO_OPERATOR_REGISTRY_H_

struct qwino_operator;

namespace qwino {

// Both return false when out of memory (registration) or when the operator was not registered.
bool register_operator(const qwino_operator* op);
bool unregister_operator(const qwino_operator* op);
bool is_live_operator(const qwino_operator* op);

}  // namespace qwino

#endif  // QWINO_OPERATOR_REGISTRY_H_
