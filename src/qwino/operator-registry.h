// Operator handles that a stale or foreign value can never alias.
//
// A qwino_operator_t is not the operator's address: it is an opaque number made of a slot of a
// handle table and the generation that slot had when the operator was created. Deleting an
// operator empties its slot; the next create may reuse the slot (and the allocator may hand back
// the operator's very address) but gets a new generation, so the old handle matches nothing and
// every call with it returns qwino_status_invalid_parameter. Generations come from one process-
// wide counter of 40 bits on 64-bit targets (a handle is reused only after 2^40 creates), 16 bits
// on 32-bit ones; a value that is not a handle at all (a pointer, garbage) decodes to an empty
// slot or a generation that does not match.
//
// Looking a handle up takes no lock (two acquire loads), so run and setup on different operators
// never contend; create and delete take a mutex. A lookup racing with the delete of the same
// handle is the caller's error (qwino.h, "Threads"); the table itself stays valid, since its
// chunks are never freed.
#ifndef QWINO_OPERATOR_REGISTRY_H_
#define QWINO_OPERATOR_REGISTRY_H_

#include "qwino.h"

namespace qwino {

// A new handle for op, or nullptr when out of memory or out of slots.
qwino_operator_t register_operator(qwino_operator* op);
// The operator of a live handle, or nullptr for NULL, stale and foreign values.
qwino_operator* find_operator(qwino_operator_t handle);
// Empties the handle's slot and returns its operator (nullptr if the handle was not live); the
// caller deletes it.
qwino_operator* unregister_operator(qwino_operator_t handle);

}  // namespace qwino

#endif  // QWINO_OPERATOR_REGISTRY_H_
