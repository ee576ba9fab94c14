// Randomized differential run of the fuzz target (convolution-fuzzer.cc) without libFuzzer: it
// generates random, mostly valid, small layers as the target's `name=value` text and feeds them
// to LLVMFuzzerTestOneInput, which checks statuses, sentinels, stale handles and every output
// byte against test/reference-convolution.h, and aborts on any difference. Built with any
// compiler, so it runs where libFuzzer cannot: the gcc and sanitizer builds and, in
// scripts/test.sh aarch64, under qemu-aarch64 -cpu cortex-a72 and -cpu neoverse-n1 (the NEON and
// dot-product kernels).
//
// Environment:
//   QWINO_RANDOM_SEED     the run's seed (decimal); default: a fresh one, printed first
//   QWINO_RANDOM_SECONDS  wall-clock budget (default 60)
//   QWINO_RANDOM_CASES    at most this many cases (default: no limit)
//   QWINO_RANDOM_VERBOSE  1: print every case before running it
// Case k of a seed is the same text on every machine (own integer draws, no std distributions).
// On a failure (abort, a crash, a sanitizer report) the seed, the case number and the case text
// are written to stderr: save the text into test/fuzz/corpus/ as a regression file.
#include <qwino.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// Counts the checked runs per algorithm: the target compares every byte after each successful
// qwino_run_operator, and its calls reach this wrapper through the linker's --wrap (Linux).
#ifdef QWINO_RANDOM_COUNT_ALGORITHMS
namespace {
uint64_t g_checked_runs[8];
}  // namespace
extern "C" qwino_status __real_qwino_run_operator(qwino_operator_t op, pthreadpool_t pool);
extern "C" qwino_status __wrap_qwino_run_operator(qwino_operator_t op, pthreadpool_t pool) {
  const qwino_status status = __real_qwino_run_operator(op, pool);
  if (status == qwino_status_success) {
    const unsigned algorithm = static_cast<unsigned>(qwino_operator_algorithm(op));
    g_checked_runs[algorithm < 8 ? algorithm : 0]++;
  }
  return status;
}
#endif

// The sanitizers end the process on a report through their own exit, not abort(): their death
// callback prints the case too. Weak, so that builds without a sanitizer runtime link.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace {

// The failure report for the case being run, formatted before it runs: the handlers only write.
char g_report[8192];
volatile size_t g_report_size = 0;

void write_report() {
  const size_t size = g_report_size;
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(STDERR_FILENO, g_report + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

struct sigaction g_previous[32];
const int kSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE};

void on_signal(int signal, siginfo_t* info, void*) {
  write_report();
  // Back to the previous handler (a sanitizer's, or the default). A fault (a positive si_code)
  // happens again when this returns, now with that handler; a sent signal (abort() raises
  // SIGABRT, kill) is sent again, and arrives once this returns.
  sigaction(signal, &g_previous[signal], nullptr);
  if (info == nullptr || info->si_code <= 0) raise(signal);
}

void install_handlers() {
  for (int signal : kSignals) {
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_sigaction = on_signal;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, &g_previous[signal]);
  }
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(write_report);
}

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  return std::strtoull(value, nullptr, 10);
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() { return state_ = splitmix64(state_); }
  // Uniform in [lo, hi] (the modulo bias is irrelevant here).
  uint64_t range(uint64_t lo, uint64_t hi) { return lo + next() % (hi - lo + 1); }
  bool chance(unsigned percent) { return next() % 100 < percent; }
  template <size_t N>
  uint64_t pick(const uint64_t (&values)[N]) {
    return values[next() % N];
  }

 private:
  uint64_t state_;
};

// What the target computes from the fields (convolution-fuzzer.cc), for keeping cases small.
uint64_t output_size(uint64_t input, uint64_t before, uint64_t after, uint64_t kernel,
                     uint64_t dilation, uint64_t stride) {
  const uint64_t padded = input + before + after, effective = (kernel - 1) * dilation + 1;
  return padded < effective ? 0 : (padded - effective) / stride + 1;
}

struct Layer {
  uint64_t kh = 3, kw = 3, sh = 1, sw = 1, dh = 1, dw = 1, pt = 1, pr = 1, pb = 1, pl = 1;
  uint64_t groups = 1, gic = 1, goc = 1;
};

struct Setup {
  uint64_t n = 1, h = 1, w = 1, is = 1, os = 1, threads = 0;
};

// The smallest input extent that gives one output row or column.
uint64_t min_input(uint64_t kernel, uint64_t dilation, uint64_t before, uint64_t after) {
  const uint64_t effective = (kernel - 1) * dilation + 1;
  return effective > before + after ? effective - before - after : 1;
}

uint64_t macs(const Layer& l, const Setup& s) {
  return s.n * output_size(s.h, l.pt, l.pb, l.kh, l.dh, l.sh) *
         output_size(s.w, l.pl, l.pr, l.kw, l.dw, l.sw) * l.groups * l.goc * l.kh * l.kw * l.gic;
}

// A valid setup of at most `budget` reference MACs (the target checks up to 2^22).
Setup random_setup(Random& r, const Layer& l, uint64_t budget) {
  Setup s;
  s.n = r.chance(20) ? 2 : 1;
  const uint64_t h0 = min_input(l.kh, l.dh, l.pt, l.pb), w0 = min_input(l.kw, l.dw, l.pl, l.pr);
  s.h = r.range(h0, std::max<uint64_t>(h0, 24));
  s.w = r.range(w0, std::max<uint64_t>(w0, 24));
  while (macs(l, s) > budget && (s.h > h0 || s.w > w0 || s.n > 1)) {
    if (s.n > 1) {
      s.n = 1;
    } else if (s.h > h0 && (s.h >= s.w || s.w == w0)) {
      s.h = std::max(h0, s.h * 3 / 4);
    } else {
      s.w = std::max(w0, s.w * 3 / 4);
    }
  }
  const uint64_t ic = l.groups * l.gic, oc = l.groups * l.goc;
  s.is = r.chance(25) ? ic + r.range(1, 16) : ic;
  s.os = r.chance(25) ? oc + r.range(1, 16) : oc;
  s.threads = r.range(0, 3);
  return s;
}

void random_geometry(Random& r, Layer& l, int kind) {
  switch (kind) {
    case 0:  // 3x3 stride 1: Winograd
      l.kh = l.kw = 3;
      l.sh = l.sw = l.dh = l.dw = 1;
      if (r.chance(60)) {
        l.pt = l.pr = l.pb = l.pl = 1;
      } else {
        l.pt = r.range(0, 2), l.pr = r.range(0, 2), l.pb = r.range(0, 2), l.pl = r.range(0, 2);
      }
      l.groups = r.chance(80) ? 1 : r.range(2, 4);
      break;
    case 1:  // 1x1
      l.kh = l.kw = 1;
      l.sh = l.sw = r.chance(70) ? 1 : r.range(2, 3);
      if (r.chance(15)) l.sw = r.range(1, 3);
      l.dh = l.dw = 1;
      l.pt = l.pr = l.pb = l.pl = 0;
      if (r.chance(15))
        l.pt = r.range(0, 1), l.pr = r.range(0, 1), l.pb = r.range(0, 1), l.pl = r.range(0, 1);
      l.groups = r.chance(85) ? 1 : r.range(2, 4);
      break;
    case 2:  // depthwise: one input and one output channel a group
    {
      const uint64_t sizes[] = {3, 3, 3, 5, 5, 1, 2, 7};
      l.kh = l.kw = r.pick(sizes);
      if (r.chance(15)) l.kw = r.range(1, 7);
      l.sh = l.sw = r.chance(65) ? 1 : 2;
      if (r.chance(10)) l.sh = r.range(1, 3), l.sw = r.range(1, 3);
      l.dh = l.dw = 1;
      if (r.chance(15)) l.dh = r.range(1, 3), l.dw = r.range(1, 3);
      if (r.chance(50)) {
        l.pt = l.pb = (l.kh - 1) / 2, l.pl = l.pr = (l.kw - 1) / 2;
      } else {
        l.pt = r.range(0, 3), l.pr = r.range(0, 3), l.pb = r.range(0, 3), l.pl = r.range(0, 3);
      }
      l.groups = r.range(1, 64);
      break;
    }
    default:  // anything: any kernel, stride, dilation, padding, groups
      l.kh = r.range(1, 7), l.kw = r.chance(60) ? l.kh : r.range(1, 7);
      l.sh = r.range(1, 3), l.sw = r.chance(70) ? l.sh : r.range(1, 3);
      l.dh = r.chance(70) ? 1 : r.range(1, 3), l.dw = r.chance(70) ? l.dh : r.range(1, 3);
      l.pt = r.range(0, 3), l.pr = r.range(0, 3), l.pb = r.range(0, 3), l.pl = r.range(0, 3);
      l.groups = r.chance(60) ? 1 : r.range(2, 4);
      break;
  }
  if (kind == 2) {
    l.gic = l.goc = 1;
  } else if (l.groups == 1) {
    l.gic = r.chance(30) ? r.range(1, 8) : r.range(1, 48);
    l.goc = r.chance(30) ? r.range(1, 8) : r.range(1, 48);
  } else {
    l.gic = r.chance(15) ? 1 : r.range(1, 16);  // gic = 1: channel multipliers
    l.goc = r.range(1, 16);
  }
}

void add(std::string& text, const char* name, uint64_t value) {
  if (!text.empty()) text += ' ';
  text += name;
  text += '=';
  text += std::to_string(value);
}

// One case: a random layer of one of the kinds, mostly valid; a few carry one invalid argument.
std::string random_case(Random& r) {
  const unsigned k = static_cast<unsigned>(r.range(0, 99));
  const int kind = k < 35 ? 0 : k < 50 ? 1 : k < 70 ? 2 : 3;  // 3x3, 1x1, depthwise, any
  Layer l;
  random_geometry(r, l, kind);
  const uint64_t budget = r.chance(10) ? (uint64_t{1} << 22) : (uint64_t{1} << 19);
  // Keep the weights of a layer that the budget cannot hold with a one-pixel output small too.
  while (l.groups * l.goc * l.kh * l.kw * l.gic > budget / 2) {
    if (l.gic > 1)
      l.gic = (l.gic + 1) / 2;
    else if (l.goc > 1)
      l.goc = (l.goc + 1) / 2;
    else
      break;
  }
  Setup first = random_setup(r, l, budget);
  const uint64_t type = r.range(0, 3);
  // Flags: auto most of the time, else a force flag that suits the layer (now and then any).
  uint64_t force = 0;
  if (r.chance(45)) {
    const bool winograd_shape =
        l.kh == 3 && l.kw == 3 && l.sh == 1 && l.sw == 1 && l.dh == 1 && l.dw == 1;
    const bool depthwise_shape = l.gic == 1 && l.goc == 1;
    std::vector<uint64_t> suitable = {QWINO_FLAG_FORCE_DIRECT, QWINO_FLAG_FORCE_INDIRECT_GEMM};
    if (winograd_shape) {
      suitable.push_back(QWINO_FLAG_FORCE_WINOGRAD_F2X2);
      suitable.push_back(QWINO_FLAG_FORCE_WINOGRAD_F4X4);
    }
    if (depthwise_shape) {
      suitable.push_back(QWINO_FLAG_FORCE_DEPTHWISE);
      suitable.push_back(QWINO_FLAG_FORCE_DEPTHWISE);
    }
    force = r.chance(10) ? uint64_t{1} << r.range(0, 4) : suitable[r.next() % suitable.size()];
  }
  const uint64_t flags = force | (r.chance(40) ? QWINO_FLAG_REQUANTIZE_FP32 : 0) |
                         (r.chance(20) ? QWINO_FLAG_YIELD_WORKERS : 0);
  // Weights within `spread` of the zero point: small spreads let Winograd prove exactness.
  const bool winograd_flags =
      force == QWINO_FLAG_FORCE_WINOGRAD_F2X2 || force == QWINO_FLAG_FORCE_WINOGRAD_F4X4;
  uint64_t spread = 255;
  if (r.chance(kind == 0 || winograd_flags ? 70 : 25)) {
    spread = r.chance(50) ? r.range(1, 4) : r.range(2, 30);
  } else if (r.chance(20)) {
    spread = r.range(31, 254);
  }
  const uint64_t extremes[] = {0, 1, 127, 128, 254, 255};
  const uint64_t izp = r.chance(20) ? r.pick(extremes) : r.range(0, 255);
  const uint64_t kzp = r.chance(20) ? r.pick(extremes) : r.range(0, 255);
  const uint64_t ozp = r.chance(20) ? r.pick(extremes) : r.range(0, 255);
  uint64_t qmin = 0, qmax = 255;
  if (r.chance(30)) {
    qmin = r.range(0, 255), qmax = r.range(0, 255);
    if (qmin > qmax) std::swap(qmin, qmax);
  }
  // Scales 2^(code - 40): the requantization scale 2^(iscale + kscale - oscale - 40) must be at
  // most 256, so kscale <= oscale - iscale + 48; from kscale = oscale - iscale + 8 down it is
  // below 2^-32, where a channel's outputs are its output zero point (a dead channel: kdead
  // makes 2^-40, or the smallest code).
  const uint64_t iscale = r.range(36, 42), oscale = r.range(35, 41);
  const uint64_t klo = oscale - iscale + 8, khi = oscale - iscale + 48;
  const uint64_t kdead = klo >= 8 ? klo - 8 : 0;
  uint64_t kscale = r.range(30, 36), kstep = 0;
  const uint64_t channels = l.groups * l.goc;
  if (type >= 2 && r.chance(50) && channels > 1) {
    // Per-channel scales scale_from(kscale + c * kstep), all in range; in a quarter of these
    // layers the first channels are dead and the others not.
    const bool dead_first = r.chance(25);
    const uint64_t first = dead_first ? r.range(kdead, klo - 1) : klo;
    kstep = std::min<uint64_t>(r.range(1, 3), (khi - first) / (channels - 1));
    if (dead_first) {
      kscale = first;
    } else if (kstep > 0) {
      kscale = r.range(klo, khi - (channels - 1) * kstep);
    }
  } else if (r.chance(4)) {
    kscale = r.range(kdead, klo - 1);  // every channel dead
  }
  std::string text;
  add(text, "type", type);
  add(text, "flags", flags);
  add(text, "kh", l.kh), add(text, "kw", l.kw), add(text, "sh", l.sh), add(text, "sw", l.sw);
  add(text, "dh", l.dh), add(text, "dw", l.dw);
  add(text, "pt", l.pt), add(text, "pr", l.pr), add(text, "pb", l.pb), add(text, "pl", l.pl);
  add(text, "groups", l.groups), add(text, "gic", l.gic), add(text, "goc", l.goc);
  add(text, "izp", izp), add(text, "kzp", kzp), add(text, "ozp", ozp);
  add(text, "qmin", qmin), add(text, "qmax", qmax);
  add(text, "iscale", iscale), add(text, "kscale", kscale), add(text, "oscale", oscale);
  if (kstep != 0) add(text, "kstep", kstep);
  add(text, "spread", spread);
  add(text, "bias", r.chance(85) ? 1 : 0);
  add(text, "seed", r.next() & 0xFFFFFFFFu);
  add(text, "n", first.n), add(text, "h", first.h), add(text, "w", first.w);
  add(text, "is", first.is), add(text, "os", first.os), add(text, "threads", first.threads);
  // The second setup (fields "b..."): the same sizes again, other sizes, or an invalid one that
  // must leave the first in place.
  Setup second = first;
  bool second_valid = true;
  const unsigned s = static_cast<unsigned>(r.range(0, 99));
  if (s < 45) {
    second.threads = r.range(0, 3);
  } else if (s < 93) {
    second = random_setup(r, l, budget);
  } else {
    second_valid = false;
    switch (r.range(0, 2)) {
      case 0:
        second.h = 0;
        break;
      case 1:
        second.is = l.groups * l.gic - 1;
        break;
      default:
        second.os = l.groups * l.goc - 1;
        break;
    }
  }
  add(text, "bn", second.n), add(text, "bh", second.h), add(text, "bw", second.w);
  add(text, "bis", second.is), add(text, "bos", second.os), add(text, "bthreads", second.threads);
  // The run's pool: at most as many threads as the last successful setup's, now and then more
  // (which the run must refuse).
  const uint64_t setup_threads = std::max<uint64_t>(1, (second_valid ? second : first).threads % 4);
  if (r.chance(90)) {
    if (r.chance(70)) add(text, "rthreads", r.range(0, setup_threads));
  } else {
    add(text, "rthreads", r.range(0, 3));
  }
  // A few cases carry one invalid or unsupported argument.
  if (r.chance(4)) {
    switch (r.range(0, 8)) {
      case 0:
        text += " kh=0";
        break;
      case 1:
        text += " sw=0";
        break;
      case 2:
        text += " dh=0";
        break;
      case 3:
        text += " qmin=200 qmax=100";
        break;
      case 4:
        text += " iscale=" + std::to_string(r.range(64, 68));
        break;
      case 5:
        text += " flags=" + std::to_string(r.pick(extremes) | 3);
        break;
      case 6:
        text += " oscale=0";
        break;  // scale 2^(iscale + kscale - 80): above 256
      case 7:
        text += " groups=0";
        break;
      default:
        text += " h=0 bh=0";
        break;
    }
  }
  return text;
}

}  // namespace

int main() {
  uint64_t seed = 0;
  if (std::getenv("QWINO_RANDOM_SEED") != nullptr && *std::getenv("QWINO_RANDOM_SEED") != '\0') {
    seed = env_u64("QWINO_RANDOM_SEED", 0);
  } else {
    std::random_device device;
    seed = (uint64_t{device()} << 32 | device()) ^
           static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  }
  const uint64_t seconds = env_u64("QWINO_RANDOM_SECONDS", 60);
  const uint64_t max_cases = env_u64("QWINO_RANDOM_CASES", UINT64_MAX);
  const bool verbose = env_u64("QWINO_RANDOM_VERBOSE", 0) != 0;
  std::printf("random-layers: seed %" PRIu64 " (QWINO_RANDOM_SEED=%" PRIu64
              " reproduces this run), %" PRIu64 " s",
              seed, seed, seconds);
  if (max_cases != UINT64_MAX) std::printf(", at most %" PRIu64 " cases", max_cases);
  std::printf(", ISA %s\n", qwino_initialize() == qwino_status_success ? qwino_isa_name() : "?");
  std::fflush(stdout);
  install_handlers();

  const auto start = std::chrono::steady_clock::now();
  auto next_progress = start + std::chrono::seconds(30);
  uint64_t cases = 0;
  while (cases < max_cases) {
    const auto now = std::chrono::steady_clock::now();
    if (now - start >= std::chrono::seconds(seconds)) break;
    if (now >= next_progress) {
      std::printf("random-layers: %" PRIu64 " cases so far\n", cases);
      std::fflush(stdout);
      next_progress += std::chrono::seconds(30);
    }
    // Case k depends on the seed and k only.
    Random r(splitmix64(seed ^ splitmix64(cases)));
    const std::string text = random_case(r);
    const int size = std::snprintf(
        g_report, sizeof(g_report),
        "\nrandom-layers: FAILED at seed %" PRIu64 " case %" PRIu64
        "; the case (qwino-fuzz-replay runs it from a file; keep it in test/fuzz/corpus/):\n"
        "%s\n",
        seed, cases, text.c_str());
    g_report_size =
        size < 0 ? 0 : std::min<size_t>(static_cast<size_t>(size), sizeof(g_report) - 1);
    if (verbose) {
      std::printf("case %" PRIu64 ": %s\n", cases, text.c_str());
      std::fflush(stdout);
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(text.data()), text.size());
    cases++;
  }
  g_report_size = 0;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("random-layers: %" PRIu64 " cases in %.1f s (%.1f cases/s), seed %" PRIu64 "\n",
              cases, elapsed, elapsed > 0 ? cases / elapsed : 0.0, seed);
#ifdef QWINO_RANDOM_COUNT_ALGORITHMS
  std::printf("random-layers: runs checked byte for byte, by algorithm:");
  uint64_t other = g_checked_runs[0];
  for (unsigned a = 1; a < 8; a++) {
    if (a > qwino_algorithm_depthwise) {
      other += g_checked_runs[a];
    } else {
      std::printf(" %s %" PRIu64 "%s", qwino_algorithm_name(static_cast<qwino_algorithm>(a)),
                  g_checked_runs[a], a < qwino_algorithm_depthwise ? "," : "");
    }
  }
  if (other != 0) std::printf(", other %" PRIu64, other);
  std::printf("\n");
#endif
  std::printf("%" PRIu64 " passed, 0 failed\n", cases);
  return 0;
}
