// Algorithms as entries of one ordered list (src/algorithm-choice.cc, kAlgorithms).
//
// Every question the operator asks of an algorithm goes through its entry: its name and force
// flag (the public API's, qwino.h), may it run this layer (shape, kernels, packing budget,
// exactness for these weights: create), what does it cost for this image on this CPU's kernels
// (create and every setup), pack its weights (when first chosen), how many bytes they hold
// (qwino_operator_weight_bytes), cut a setup's work into items (setup), run one item (run). So
// adding an algorithm is one new file defining its entry and one line in kAlgorithms (besides
// its qwino.h enum value and flag); create, setup, run and the queries do not change.
#ifndef QWINO_ALGORITHM_H_
#define QWINO_ALGORITHM_H_

#include <cstddef>
#include <cstdint>

#include "qwino.h"

struct qwino_operator;

namespace qwino {

struct SetupState;

struct AlgorithmEntry {
  qwino_algorithm id;
  const char* name;     // qwino_algorithm_name's answer
  uint32_t force_flag;  // the QWINO_FLAG_FORCE_* that forces it
  // Whether the algorithm can run the operator's layer exactly (shape, kernels, packing budget,
  // weights). May keep what it learned for later (F(4x4,3x3)'s input-channel blocks). Create.
  bool (*decide)(qwino_operator* op);
  // Modeled cost of one output image of this size with the operator's kernels, in GEMM
  // multiply-accumulates (doc/DESIGN.md section 6).
  double (*cost)(const qwino_operator& op, size_t output_height, size_t output_width);
  // Packs what the algorithm needs for an output image of this size (create: the size it
  // assumed, kCreateOutputSize) unless already done; false when out of memory (the operator is
  // left as it was).
  bool (*prepare)(qwino_operator* op, size_t output_height, size_t output_width);
  // The bytes the algorithm's packing holds (0 before prepare packed it).
  size_t (*weight_bytes)(const qwino_operator& op);
  // Cuts the work of setup (sizes and thread count already in it) into items: fills its
  // schedule, work_items and scratch_bytes_per_task (qwino/work-split.h).
  void (*plan)(const qwino_operator& op, SetupState* setup);
  // Fills what plan sized outside the scratch (SetupState::indirection), once setup has
  // allocated it; nullptr when the algorithm needs nothing there.
  void (*bind)(const qwino_operator& op, SetupState* setup);
  // Runs one item; scratch is the task's slot (qwino/convolution-paths.h).
  void (*run_item)(const qwino_operator& op, size_t item, char* scratch);
};

// The entries, each defined in its algorithm's file.
extern const AlgorithmEntry kWinogradF4x4Algorithm;
extern const AlgorithmEntry kWinogradF2x2Algorithm;
extern const AlgorithmEntry kDirectAlgorithm;
extern const AlgorithmEntry kIndirectGemmAlgorithm;
extern const AlgorithmEntry kDepthwiseAlgorithm;

// The entry of an algorithm id (nullptr for qwino_algorithm_none).
const AlgorithmEntry* find_algorithm(qwino_algorithm id);

// The force flags of all entries, ORed.
uint32_t algorithm_force_flags();

// The bytes every algorithm's packing holds.
size_t algorithm_weight_bytes(const qwino_operator& op);

// Slots for per-algorithm state indexed by qwino_algorithm.
constexpr size_t kAlgorithmSlots = 6;

}  // namespace qwino

#endif  // QWINO_ALGORITHM_H_
