// The list of contenders this build has: qwino always, each peer only when CMake found it
// (QWINO_BENCH_HAVE_GEMMLOWP, QWINO_BENCH_HAVE_XNNPACK, QWINO_BENCH_HAVE_ONEDNN), so the bench
// builds everywhere qwino does. QWINO_BENCH_*_VERSION: the Debian package version CMake saw.
#include <qwino.h>

#include <cstdio>
#include <cstdlib>

#ifdef QWINO_BENCH_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

#include "contender.h"

#ifndef QWINO_BENCH_GEMMLOWP_VERSION
#define QWINO_BENCH_GEMMLOWP_VERSION "version unknown"
#endif
#ifndef QWINO_BENCH_XNNPACK_VERSION
#define QWINO_BENCH_XNNPACK_VERSION "version unknown"
#endif

std::vector<ContenderInfo> contenders(pthreadpool_t pool, size_t threads) {
  const qwino_status status = qwino_initialize();
  if (status != qwino_status_success) contender_failure("qwino", "qwino_initialize", status);
  std::vector<ContenderInfo> list = {
      {"qwino", Agreement::kReference, [pool] { return make_qwino_contender(0, pool); }, "",
       "qwino uint8 (qu8), automatic algorithm choice"},
      {"qwino-direct", Agreement::kExact,
       [pool] { return make_qwino_contender(QWINO_FLAG_FORCE_DIRECT, pool); }, "qwino",
       "qwino uint8 forced onto its direct path (im2col + int16 GEMM)"},
      // int8 activations with int8 per-channel weights: the same values shifted by -128, so
      // the same bytes (XOR 0x80) under TFLite's requantization.
      {"qwino-qs8", Agreement::kExact,
       [pool] { return make_qwino_contender(0, pool, QwinoData::kQs8); }, "",
       "qwino int8 activations, int8 per-channel weights (qs8_qc8w), automatic choice"},
      // oneDNN's data and arithmetic (float scaling): the fair match for oneDNN's times.
      {"qwino-fp32", Agreement::kWithinOne,
       [pool] { return make_qwino_contender(0, pool, QwinoData::kQu8Qc8wFp32); }, "qwino",
       "qwino uint8 activations, int8 per-channel weights, fp32 requantization (qu8_qc8w), "
       "automatic choice"},
  };
#ifdef QWINO_BENCH_HAVE_GEMMLOWP
  list.push_back(
      {"gemmlowp", Agreement::kExact, [threads] { return make_gemmlowp_contender(threads); },
       "qwino",
       std::string("TFLite's uint8 algorithm: im2col + gemmlowp (Debian libgemmlowp-dev ") +
           QWINO_BENCH_GEMMLOWP_VERSION + ")"});
#endif
#ifdef QWINO_BENCH_HAVE_XNNPACK
  list.push_back({"xnnpack", Agreement::kWithinOne, [pool] { return make_xnnpack_contender(pool); },
                  "qwino",
                  std::string("XNNPACK qu8 convolution (Debian libxnnpack-dev ") +
                      QWINO_BENCH_XNNPACK_VERSION + ")"});
  list.push_back(
      {"xnnpack-qs8", Agreement::kWithinOne, [pool] { return make_xnnpack_contender(pool, true); },
       "qwino-qs8",
       std::string("XNNPACK int8 per-channel (qc8) convolution (Debian libxnnpack-dev ") +
           QWINO_BENCH_XNNPACK_VERSION + ")"});
#endif
#ifdef QWINO_BENCH_HAVE_ONEDNN
  const dnnl_version_t* version = dnnl_version();
  list.push_back({"onednn", Agreement::kWithinOne,
                  [threads] { return make_onednn_contender(threads); }, "qwino-fp32",
                  "oneDNN " + std::to_string(version->major) + "." +
                      std::to_string(version->minor) + "." + std::to_string(version->patch) +
                      " int8 convolution, u8 activations, s8 per-channel weights (Debian "
                      "libdnnl-dev)"});
#endif
#if !defined(QWINO_BENCH_HAVE_GEMMLOWP) && !defined(QWINO_BENCH_HAVE_ONEDNN)
  (void)threads;
#endif
  return list;
}

std::vector<std::string> missing_peers() {
  std::vector<std::string> missing;
#ifndef QWINO_BENCH_HAVE_GEMMLOWP
  missing.push_back(
      "gemmlowp (TFLite's im2col + gemmlowp): libgemmlowp-dev not found at build time");
#endif
#ifndef QWINO_BENCH_HAVE_XNNPACK
  missing.push_back(
      "xnnpack, xnnpack-qs8 (XNNPACK convolution): libxnnpack-dev not found at build time");
#endif
#ifndef QWINO_BENCH_HAVE_ONEDNN
  missing.push_back("onednn (oneDNN int8 convolution): libdnnl-dev not found at build time");
#endif
  return missing;
}

void contender_failure(const char* contender, const char* what, int status) {
  std::fprintf(stderr, "%s: %s failed with status %d\n", contender, what, status);
  std::exit(2);
}
