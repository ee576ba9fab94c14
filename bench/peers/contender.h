// One convolution implementation under test, behind a common interface, so that both bench
// programs (qwino-compare and qwino-convolution-bench) run qwino and its peers on the same bytes
// in the same way. Peers are optional at build time: contenders() lists only what was built.
#ifndef QWINO_BENCH_PEERS_CONTENDER_H_
#define QWINO_BENCH_PEERS_CONTENDER_H_

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../random-layer.h"

class Contender {
 public:
  virtual ~Contender() = default;
  // Creates the operator for one layer (weights packed here, outside the timed runs) and binds
  // its buffers. Returns "" on success, else why the contender cannot run this layer.
  virtual std::string prepare(const LayerShape& shape, const RandomLayer& data) = 0;
  // One timed convolution. Exits the program on a library error: a benchmark has no use for a
  // contender that stopped working half-way.
  virtual void run() = 0;
  // What the contender actually ran, when it chooses (e.g. qwino's algorithm); may be "".
  virtual std::string algorithm() const { return ""; }
  // Non-empty when, on this machine, the contender's bytes cannot be held to its Agreement (a
  // known deviation of the library, e.g. saturating intermediate sums): they are then compared
  // and reported, but a difference is not a failure. The text says why.
  virtual std::string unchecked_because() const { return ""; }
  // Dense NHWC output of the last run, shape.output_bytes() bytes, as uint8 values: int8
  // contenders run the layer shifted by -128 (RandomLayer's zero points and weights keep every
  // real value) and give their bytes back XOR 0x80, so every contender's output is compared
  // with the same reference.
  const uint8_t* output() const {
    if (!int8_) return output_.data();
    view_.resize(output_.size());
    for (size_t i = 0; i < output_.size(); i++) view_[i] = static_cast<uint8_t>(output_[i] ^ 0x80);
    return view_.data();
  }

 protected:
  explicit Contender(bool int8 = false) : int8_(int8) {}
  // The layer's data as int8 tensors (values - 128), for int8 contenders.
  static std::vector<int8_t> shifted(const std::vector<uint8_t>& bytes) {
    std::vector<int8_t> values(bytes.size());
    for (size_t i = 0; i < bytes.size(); i++) values[i] = static_cast<int8_t>(bytes[i] ^ 0x80);
    return values;
  }
  std::vector<uint8_t> output_;  // sized by prepare()

 private:
  bool int8_;
  mutable std::vector<uint8_t> view_;
};

// prepare()'s answer when a library call returned a status other than success.
inline std::string call_failed(const char* call, int status) {
  return std::string(call) + " returned status " + std::to_string(status);
}

// How a contender's output must relate to qwino's automatic path.
enum class Agreement {
  kReference,  // it is qwino's automatic path itself
  kExact,      // same semantics (TFLite's uint8 definition): byte for byte
  kWithinOne,  // other requantization rounding (fp32): every byte within 1
};

struct ContenderInfo {
  std::string name;
  Agreement agreement;
  std::function<std::unique_ptr<Contender>()> make;
  // The qwino contender whose time this one's is compared with (qwino's speedup over it): the
  // one with the same data types; "" for none (qwino's own int8 path is not a peer).
  std::string compare_with = "qwino";
  // What it is, for the reports' legends ("XNNPACK qu8 convolution (Debian 0.0~git20220216)").
  std::string description;
};

// qwino first (the reference the others are checked and compared against), then qwino's direct
// path and its int8 path, then the peers this build has: gemmlowp, xnnpack, xnnpack-qs8, onednn.
// threads: every contender's thread count (1 = caller's thread only); pool: a pthreadpool of that
// many threads or NULL, shared by qwino and XNNPACK (gemmlowp runs its own workers, oneDNN
// OpenMP's). Both must outlive the contenders.
std::vector<ContenderInfo> contenders(pthreadpool_t pool, size_t threads);

// Peers this build left out and why ("gemmlowp: not found at build time"), for the reports.
std::vector<std::string> missing_peers();

// The contenders themselves; contenders() calls the ones this build has.
// qwino's data types: kQu8 uint8 activations and weights; kQs8 int8 activations and int8
// per-channel weights (qwino's qs8_qc8w, XNNPACK's qc8), every channel with the layer's kernel
// scale, so that the bytes stay comparable with the uint8 ones; kQu8Qc8wFp32 uint8 activations
// with int8 per-channel weights in the fp32 requantization mode (qu8_qc8w,
// QWINO_FLAG_REQUANTIZE_FP32): oneDNN's data and its float scaling.
enum class QwinoData { kQu8, kQs8, kQu8Qc8wFp32 };
std::unique_ptr<Contender> make_qwino_contender(uint32_t flags, pthreadpool_t pool,
                                                QwinoData data = QwinoData::kQu8);
std::unique_ptr<Contender> make_gemmlowp_contender(size_t threads);
std::unique_ptr<Contender> make_xnnpack_contender(pthreadpool_t pool, bool int8 = false);
std::unique_ptr<Contender> make_onednn_contender(size_t threads);

// Prints which library call failed with which status and exits with status 2.
[[noreturn]] void contender_failure(const char* contender, const char* what, int status);

#endif  // QWINO_BENCH_PEERS_CONTENDER_H_
