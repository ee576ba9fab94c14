// The handle table of operator-registry.h: chunks of slots allocated on demand and never freed,
// a free list of slot numbers, and a generation counter. A handle is
//   (generation << kSlotBits) | slot
// with generation >= 1, so no handle is 0 (NULL).
#include "qwino/operator-registry.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

namespace qwino {
namespace {

constexpr unsigned kSlotBits = sizeof(uintptr_t) >= 8 ? 24 : 16;
constexpr uintptr_t kSlotMask = (uintptr_t{1} << kSlotBits) - 1;
constexpr uintptr_t kGenerations = (~uintptr_t{0} >> kSlotBits);  // 1 .. kGenerations
constexpr unsigned kChunkBits = 10;  // 16 KiB of slots per chunk on 64-bit targets
constexpr size_t kChunkSlots = size_t{1} << kChunkBits;
constexpr size_t kChunks = size_t{1} << (kSlotBits - kChunkBits);

struct Slot {
  std::atomic<uintptr_t> handle{0};  // 0 while empty
  std::atomic<qwino_operator*> op{nullptr};
};

// Zero-initialised statics: no constructor runs, so operators may be created and deleted from
// other static constructors and destructors of the application.
std::atomic<Slot*> chunks[kChunks];

struct Allocator {
  std::mutex mutex;
  std::vector<uintptr_t> free_slots;
  size_t used_slots = 0;  // slots ever handed out: 0 .. used_slots - 1 exist
  uintptr_t last_generation = 0;
};
Allocator& allocator() {
  static auto* state = new Allocator();  // never destroyed, as the chunks
  return *state;
}

Slot* slot_of(uintptr_t handle) {
  const uintptr_t slot = handle & kSlotMask;
  Slot* chunk = chunks[slot >> kChunkBits].load(std::memory_order_acquire);
  return chunk == nullptr ? nullptr : &chunk[slot & (kChunkSlots - 1)];
}

}  // namespace

qwino_operator_t register_operator(qwino_operator* op) {
  Allocator& a = allocator();
  std::lock_guard<std::mutex> lock(a.mutex);
  uintptr_t slot = 0;
  try {
    if (a.free_slots.empty()) {
      if (a.used_slots == kChunks * kChunkSlots) {
        return nullptr;
      }
      if (a.free_slots.capacity() < a.used_slots + 1) {  // so that unregister never allocates
        a.free_slots.reserve(2 * a.used_slots + 64);
      }
      slot = a.used_slots;
      std::atomic<Slot*>& chunk = chunks[slot >> kChunkBits];
      if (chunk.load(std::memory_order_relaxed) == nullptr) {
        chunk.store(new Slot[kChunkSlots], std::memory_order_release);
      }
      a.used_slots++;
    } else {
      slot = a.free_slots.back();
      a.free_slots.pop_back();
    }
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  a.last_generation = a.last_generation == kGenerations ? 1 : a.last_generation + 1;
  const uintptr_t handle = (a.last_generation << kSlotBits) | slot;
  Slot* s = slot_of(handle);
  s->op.store(op, std::memory_order_relaxed);
  s->handle.store(handle, std::memory_order_release);  // publishes op with the handle
  return reinterpret_cast<qwino_operator_t>(handle);
}

qwino_operator* find_operator(qwino_operator_t handle) {
  const uintptr_t value = reinterpret_cast<uintptr_t>(handle);
  if (value == 0) {
    return nullptr;
  }
  Slot* s = slot_of(value);
  if (s == nullptr || s->handle.load(std::memory_order_acquire) != value) {
    return nullptr;
  }
  return s->op.load(std::memory_order_relaxed);
}

qwino_operator* unregister_operator(qwino_operator_t handle) {
  const uintptr_t value = reinterpret_cast<uintptr_t>(handle);
  Allocator& a = allocator();
  std::lock_guard<std::mutex> lock(a.mutex);
  qwino_operator* op = find_operator(handle);
  if (op == nullptr) {
    return nullptr;
  }
  Slot* s = slot_of(value);
  s->handle.store(0, std::memory_order_release);
  s->op.store(nullptr, std::memory_order_relaxed);
  a.free_slots.push_back(value & kSlotMask);  // capacity reserved at register: cannot throw
  return op;
}

}  // namespace qwino
