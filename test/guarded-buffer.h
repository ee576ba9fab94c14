// GuardedBuffer: test memory that ends exactly where an inaccessible page begins, so a kernel or
// operator that reads or writes one element past its buffer faults at once, also under qemu
// where AddressSanitizer cannot run. Shared by every tester.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <new>

namespace qwino_test {

// `count` elements of T whose end touches a PROT_NONE page. Throws std::bad_alloc when the
// mapping fails.
template <typename T>
class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t count) : count_(count) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = count * sizeof(T);
    const size_t data_bytes = std::max(page, (bytes + page - 1) / page * page);
    mapping_bytes_ = data_bytes + page;
    void* base =
        mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
      throw std::bad_alloc();
    }
    base_ = static_cast<char*>(base);
    mprotect(base_ + data_bytes, page, PROT_NONE);
    data_ = reinterpret_cast<T*>(base_ + data_bytes - bytes);
  }
  GuardedBuffer(GuardedBuffer&& other) noexcept
      : base_(other.base_),
        mapping_bytes_(other.mapping_bytes_),
        data_(other.data_),
        count_(other.count_) {
    other.base_ = nullptr;
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() {
    if (base_ != nullptr) {
      munmap(base_, mapping_bytes_);
    }
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return count_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  char* base_;
  size_t mapping_bytes_;
  T* data_;
  size_t count_;
};

}  // namespace qwino_test
