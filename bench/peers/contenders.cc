// The list of contenders this build has: qwino always, each peer only when CMake found it
// (QWINO_BENCH_HAVE_GEMMLOWP, QWINO_BENCH_HAVE_XNNPACK), so the bench builds everywhere qwino does.
#include <qwino.h>

#include <cstdio>
#include <cstdlib>

#include "contender.h"

std::vector<ContenderInfo> contenders(pthreadpool_t pool, size_t threads) {
  const qwino_status status = qwino_initialize();
  if (status != qwino_status_success) contender_failure("qwino", "qwino_initialize", status);
  std::vector<ContenderInfo> list = {
      {"qwino", Agreement::kReference, [pool] { return make_qwino_contender(0, pool); }},
      {"qwino-direct", Agreement::kExact,
       [pool] { return make_qwino_contender(QWINO_FLAG_FORCE_DIRECT, pool); }},
      // int8 activations with int8 per-channel weights: the same values shifted by -128, so
      // the same bytes (XOR 0x80) under TFLite's requantization.
      {"qwino-qs8", Agreement::kExact, [pool] { return make_qwino_contender(0, pool, true); }},
  };
#ifdef QWINO_BENCH_HAVE_GEMMLOWP
  list.push_back({"gemmlowp", Agreement::kExact, [threads] { return make_gemmlowp_contender(threads); }});
#else
  (void)threads;
#endif
#ifdef QWINO_BENCH_HAVE_XNNPACK
  list.push_back({"xnnpack", Agreement::kWithinOne, [pool] { return make_xnnpack_contender(pool); }});
  list.push_back({"xnnpack-qs8", Agreement::kWithinOne,
                  [pool] { return make_xnnpack_contender(pool, true); }});
#endif
  return list;
}

std::vector<std::string> missing_peers() {
  std::vector<std::string> missing;
#ifndef QWINO_BENCH_HAVE_GEMMLOWP
  missing.push_back("gemmlowp (TFLite's im2col + gemmlowp): libgemmlowp-dev not found at build time");
#endif
#ifndef QWINO_BENCH_HAVE_XNNPACK
  missing.push_back("xnnpack (qu8 convolution): libxnnpack-dev not found at build time");
#endif
  return missing;
}

void contender_failure(const char* contender, const char* what, int status) {
  std::fprintf(stderr, "%s: %s failed with status %d\n", contender, what, status);
  std::exit(2);
}
