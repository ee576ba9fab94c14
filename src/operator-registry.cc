// A set of live operator addresses behind a mutex. Lookups happen once per API call, never in
// the hot loops, so a lock is cheap enough and keeps the check simple and obviously correct.
#include "qwino/operator-registry.h"

#include <mutex>
#include <new>
#include <unordered_set>

namespace qwino {
namespace {

std::mutex registry_mutex;
std::unordered_set<const qwino_operator*>& live_operators() {
  static auto* operators = new std::unordered_set<const qwino_operator*>();  // never destroyed:
  return *operators;  // operators may be deleted from static destructors of the application
}

}  // namespace

bool register_operator(const qwino_operator* op) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  try {
    return live_operators().insert(op).second;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

bool unregister_operator(const qwino_operator* op) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  return live_operators().erase(op) != 0;
}

bool is_live_operator(const qwino_operator* op) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  return op != nullptr && live_operators().count(op) != 0;
}

}  // namespace qwino
