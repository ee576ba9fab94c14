// Parsing of the layer arguments the single-layer runners share (qwino-conv-run,
// peer-conv-run): sizes, padding and the kernel zero point. Header-only and free of dependencies,
// so qwino-conv-run still links nothing but qwino. Each returns false on malformed text; the caller
// reports it.
#ifndef QWINO_BENCH_LAYER_ARGUMENTS_H_
#define QWINO_BENCH_LAYER_ARGUMENTS_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>

// A positive decimal integer.
inline bool parse_positive_size(const char* text, size_t* value) {
  char* end = nullptr;
  const unsigned long long parsed = std::strtoull(text, &end, 10);
  if (*text == '\0' || *end != '\0' || parsed == 0 || text[0] == '-') return false;
  *value = static_cast<size_t>(parsed);
  return true;
}

// -z's value: a kernel zero point of uint8 weights, 1..255.
inline bool parse_kernel_zero_point(const char* text, int* value) {
  size_t parsed = 0;
  if (!parse_positive_size(text, &parsed) || parsed > 255) return false;
  *value = static_cast<int>(parsed);
  return true;
}

// PAD or TOP,RIGHT,BOTTOM,LEFT, each a non-negative integer.
inline bool parse_padding(const char* text, uint32_t padding[4]) {
  unsigned long values[4];
  int count = 0;
  const char* p = text;
  while (count < 4) {
    char* end = nullptr;
    if (*p < '0' || *p > '9') return false;
    values[count++] = std::strtoul(p, &end, 10);
    if (*end == '\0') break;
    if (*end != ',') return false;
    p = end + 1;
  }
  if (count != 1 && count != 4) return false;
  for (int i = 0; i < 4; i++) padding[i] = static_cast<uint32_t>(values[count == 1 ? 0 : i]);
  return true;
}

#endif  // QWINO_BENCH_LAYER_ARGUMENTS_H_
