// The ISA check of the micro-kernel tests: the statement every test of a kernel runs first. A
// kernel's ISA (its list entry's first column) may be an extension the CPU lacks, so the test asks
// the library's hardware detection and skips itself (GTEST_SKIP) instead of crashing on an
// illegal instruction.
#pragma once

#include <gtest/gtest.h>

#include "qwino/dispatch.h"

#define QWINO_REQUIRE_ISA(isa)                  \
  do {                                          \
    if (!qwino_isa_detected(qwino_isa_##isa)) { \
      GTEST_SKIP() << "the CPU lacks " #isa;    \
    }                                           \
  } while (0)

// The scalar twin a kernel is compared with: none for the twin itself.
#define QWINO_TWIN_OF(ukernel, scalar) (&ukernel == &scalar ? nullptr : &scalar)
