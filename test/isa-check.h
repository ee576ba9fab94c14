// The ISA checks of the micro-kernel tests: the CHECK statement that every test of a per-ISA test
// list runs first. On x86-64 a kernel's ISA is an extension the CPU may lack, so the test asks
// cpuinfo and skips itself (GTEST_SKIP) instead of crashing on an illegal instruction; scalar and
// NEON (baseline on AArch64) tests pass (void) 0.
//
// Why it exists: every test file instantiates its list once per ISA, and the checks (notably the
// AVX-512 feature sets) must mean the same thing in all of them.
#pragma once

#include <gtest/gtest.h>

#if defined(__x86_64__)
#include <cpuinfo.h>

// Runs first in every x86 test: skips it when the CPU lacks the kernel's ISA.
#define QWINO_REQUIRE_X86(has_isa)               \
  do {                                           \
    ASSERT_TRUE(cpuinfo_initialize());           \
    if (!(has_isa)) {                            \
      GTEST_SKIP() << "the CPU lacks " #has_isa; \
    }                                            \
  } while (0)

// The AVX-512 subsets the kernels use: SKX (F, BW, VL), and SKX with VNNI.
#define QWINO_HAS_X86_AVX512_SKX \
  (cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() && cpuinfo_has_x86_avx512vl())
#define QWINO_HAS_X86_AVX512_VNNI (QWINO_HAS_X86_AVX512_SKX && cpuinfo_has_x86_avx512vnni())
#endif
