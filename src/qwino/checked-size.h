// Size arithmetic for create and setup that cannot wrap around.
//
// Every size the caller gives (channels, image sizes, strides, paddings, batch) is untrusted: a
// product that wraps modulo 2^64 turns a huge request into a small one that passes every later
// check and makes run read or write far outside the caller's buffers. So every product and sum
// that becomes a size, an offset or an allocation is computed here, and every byte count must
// also stay within kMaxObjectBytes: no object can be larger, and pointer differences inside a
// larger one would overflow ptrdiff_t (the kernels index with signed offsets).
#ifndef QWINO_CHECKED_SIZE_H_
#define QWINO_CHECKED_SIZE_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace qwino {

constexpr size_t kMaxObjectBytes = static_cast<size_t>(PTRDIFF_MAX);

// Product of the factors, or false when it wraps.
inline bool checked_product(std::initializer_list<size_t> factors, size_t* product) {
  size_t result = 1;
  for (size_t factor : factors) {
    if (__builtin_mul_overflow(result, factor, &result)) {
      return false;
    }
  }
  *product = result;
  return true;
}

// Sum of the terms, or false when it wraps.
inline bool checked_sum(std::initializer_list<size_t> terms, size_t* sum) {
  size_t result = 0;
  for (size_t term : terms) {
    if (__builtin_add_overflow(result, term, &result)) {
      return false;
    }
  }
  *sum = result;
  return true;
}

// Bytes of an array of `count` elements of `element_bytes`, or false when it wraps or exceeds
// kMaxObjectBytes.
inline bool checked_array_bytes(size_t count, size_t element_bytes, size_t* bytes) {
  return checked_product({count, element_bytes}, bytes) && *bytes <= kMaxObjectBytes;
}

// Bytes from the first byte of `count` (> 0) strided records to the last byte of the last one:
// (count - 1) * stride + record_bytes. False when it wraps or exceeds kMaxObjectBytes. This is
// the extent of an NHWC tensor of `count` pixels, `stride` bytes apart, `record_bytes` used.
inline bool checked_strided_extent(size_t count, size_t stride, size_t record_bytes,
                                   size_t* extent) {
  size_t before_last = 0;
  return count > 0 && checked_product({count - 1, stride}, &before_last) &&
         checked_sum({before_last, record_bytes}, extent) && *extent <= kMaxObjectBytes;
}

}  // namespace qwino

#endif  // QWINO_CHECKED_SIZE_H_
