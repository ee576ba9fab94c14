// qwino-compare: the main job. Runs convolutions through qwino and the peers this build has, on
// the same random bytes, checks their outputs against each other and reports times.
//
// Default (network mode): every convolution of the networks in bench/networks/ (ResNet-18,
// ResNet-50, VGG-16, MobileNetV1, MobileNetV2, EfficientNet-Lite0), each unique layer shape once,
// weighted by how often its network has it. Prints per network and per layer type (first conv,
// 3x3 stride 1, 1x1, strided, depthwise) the total convolution time of every contender and
// qwino's speedup over each, and writes a per-layer CSV, the summaries as CSV and text, and SVG
// bar charts of the per-network and per-type speedups. Progress goes to stderr.
//
// Layer mode (--layers resnet18|all, --quick = --layers resnet18): the benchmark suite's single
// layers (ResNet-18's four 3x3 layers, or all of bench/random-layer.h's suite) as one table.
//
//   qwino-compare [--networks all|NAME,...] [--network-dir DIR] [--quick | --layers resnet18|all]
//                 [-n REPEATS] [--seconds S] [--statistic best|median] [-t THREADS]
//                 [--contenders NAME,...] [--per-layer] [-o DIR]
// -n fixes the timed runs per layer and contender (layer mode: 11); without it network mode
// times each layer and contender for about S seconds (default 1), between 7 and 301 runs,
// which keeps the whole run of six networks and six contenders to about 5 minutes. The runs of
// a layer's contenders are interleaved in five rounds, so that load from other processes falls
// on all of them. The tables take each contender's fastest run (--statistic median: the median
// run): on a machine shared with other work, the fastest repetition is the undisturbed speed
// and moves least from run to run; the CSV has both. THREADS applies to every contender (qwino
// and XNNPACK share one pthreadpool, gemmlowp and oneDNN run their own workers).
//
// Checks: qwino's automatic path == its direct path == its int8 path (XOR 0x80) == TFLite's
// im2col + gemmlowp byte for byte, XNNPACK (qu8, qs8) and oneDNN (fp32 requantization) within 1.
// Exit status 1 if any check fails or qwino cannot run a layer; a peer that cannot run a layer
// says why (the tables mark its totals as partial) and is not a failure.
#include <qwino.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "peers/contender.h"
#include "random-layer.h"

#ifndef QWINO_BENCH_NETWORKS_DIR
#define QWINO_BENCH_NETWORKS_DIR "bench/networks"
#endif

namespace {

const char* const kAllNetworks[] = {"resnet18",     "resnet50",     "vgg16",
                                    "mobilenet-v1", "mobilenet-v2", "efficientnet-lite0"};

struct Options {
  bool network_mode = true;
  bool all_layers = true;  // layer mode: the whole suite, else ResNet-18's four layers
  std::vector<std::string> networks;
  std::string network_directory = QWINO_BENCH_NETWORKS_DIR;
  size_t repeats = 0;  // 0: automatic (network mode) or 11 (layer mode)
  double seconds = 1.0;
  bool median = false;  // tables from the median run instead of the fastest
  size_t threads = 1;
  std::vector<std::string> contender_names;  // empty: the mode's default
  bool per_layer = false;
  std::string output_directory = "build/results";
};

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr,
               "qwino-compare: %s\nusage: qwino-compare [--networks all|NAME,...] "
               "[--network-dir DIR] [--quick | --layers resnet18|all] [-n REPEATS] [--seconds S] "
               "[--statistic best|median] [-t THREADS] [--contenders NAME,...] [--per-layer] "
               "[-o DIR]\n",
               message.c_str());
  std::exit(2);
}

size_t parse_count(const std::string& text) {
  char* end = nullptr;
  const unsigned long value = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value == 0 || text[0] == '-') {
    usage("not a positive integer: " + text);
  }
  return value;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    const std::string option = argv[i];
    if (option == "--quick") {
      o.network_mode = false;
      o.all_layers = false;
      continue;
    }
    if (option == "--per-layer") {
      o.per_layer = true;
      continue;
    }
    if (i + 1 >= argc) usage("missing value after " + option);
    const std::string value = argv[++i];
    if (option == "-n") {
      o.repeats = parse_count(value);
    } else if (option == "-t") {
      o.threads = parse_count(value);
    } else if (option == "-o") {
      o.output_directory = value;
    } else if (option == "--seconds") {
      char* end = nullptr;
      o.seconds = std::strtod(value.c_str(), &end);
      if (*end != '\0' || !(o.seconds > 0)) usage("--seconds takes a positive number");
    } else if (option == "--layers") {
      if (value != "resnet18" && value != "all") usage("--layers takes resnet18 or all");
      o.network_mode = false;
      o.all_layers = value == "all";
    } else if (option == "--statistic") {
      if (value != "best" && value != "median") usage("--statistic takes best or median");
      o.median = value == "median";
    } else if (option == "--networks") {
      o.network_mode = true;
      o.networks = value == "all" ? std::vector<std::string>() : split(value, ',');
    } else if (option == "--network-dir") {
      o.network_directory = value;
    } else if (option == "--contenders") {
      o.contender_names = split(value, ',');
    } else {
      usage("unknown option " + option);
    }
  }
  if (o.networks.empty()) o.networks.assign(std::begin(kAllNetworks), std::end(kAllNetworks));
  return o;
}

// A network list (bench/networks/NAME.txt, or a path): one layer per line, "name height width
// input_channels output_channels kernel stride top,right,bottom,left groups count".
std::vector<LayerShape> read_network(const std::string& name_or_path, const std::string& directory,
                                     std::string* network) {
  const bool is_path =
      name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() > 4 && name_or_path.compare(name_or_path.size() - 4, 4, ".txt") == 0);
  const std::filesystem::path path =
      is_path ? std::filesystem::path(name_or_path)
              : std::filesystem::path(directory) / (name_or_path + ".txt");
  *network = path.stem().string();
  std::ifstream file(path);
  if (!file) usage("cannot read the network list " + path.string());
  std::vector<LayerShape> layers;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    LayerShape l;
    std::string padding, rest;
    fields >> l.layer >> l.height >> l.width >> l.input_channels >> l.output_channels >> l.kernel >>
        l.stride >> padding >> l.groups >> l.count;
    char comma[3] = {};
    std::istringstream pads(padding);
    pads >> l.padding[0] >> comma[0] >> l.padding[1] >> comma[1] >> l.padding[2] >> comma[2] >>
        l.padding[3];
    if (fields.fail() || (fields >> rest) || pads.fail() || comma[0] != ',' || comma[1] != ',' ||
        comma[2] != ',' || !l.valid()) {
      usage(path.string() + ": not a valid layer line: " + line);
    }
    l.network = *network;
    layers.push_back(l);
  }
  if (layers.empty()) usage(path.string() + " lists no layer");
  return layers;
}

// Layer types of the per-type table, in its order. A layer is the first that applies: the
// network's first convolution (3 input channels), depthwise, strided (stride > 1: 3x3/2 and the
// 1x1/2 downsampling shortcuts), 1x1, 3x3 stride 1, other.
const char* const kLayerTypes[] = {"first conv", "3x3 stride 1", "1x1",
                                   "strided",    "depthwise",    "other"};
size_t layer_type(const LayerShape& l) {
  if (l.input_channels == 3 && l.groups == 1) return 0;
  if (l.depthwise()) return 4;
  if (l.stride > 1) return 3;
  if (l.kernel == 1) return 2;
  if (l.kernel == 3 && l.groups == 1) return 1;
  return 5;
}

// The CPU model plus the architecture built for: under qemu-aarch64 /proc/cpuinfo is the host's.
std::string machine_name() {
#if defined(__aarch64__)
  const std::string build = " (aarch64 build)";
#elif defined(__x86_64__)
  const std::string build = " (x86-64 build)";
#else
  const std::string build = "";
#endif
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      return line.substr(line.find(':') + 2) + build;
    }
  }
  return "unknown CPU" + build;
}

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...) {
  char text[1024];
  va_list arguments;
  va_start(arguments, pattern);
  std::vsnprintf(text, sizeof(text), pattern, arguments);
  va_end(arguments);
  return text;
}

// One contender on one layer.
struct Result {
  std::string error;     // why it did not run, or ""
  double ms = 0;         // what the tables use: best_ms, or median_ms with --statistic median
  double median_ms = 0;  // median of the timed runs
  double best_ms = 0;    // fastest of them
  size_t repeats = 0;
  size_t held_bytes = 0;  // heap the contender holds after prepare and one run (heap_in_use)
  std::string algorithm;
  size_t differing = 0;  // bytes that differ from qwino's automatic path
  int max_difference = 0;
  bool agrees = false;
  std::string unchecked;  // why a difference beyond its agreement is reported, not a failure
  bool ran() const { return error.empty(); }
};

struct Row {
  LayerShape layer;
  std::vector<Result> results;  // one per contender, in list order
  bool ok = true;
  std::string check;
};

struct Timing {
  size_t repeats;  // fixed count, or 0: adaptive
  double seconds;  // adaptive: timed seconds aimed at per layer and contender
  bool median;     // report the median run, else the fastest
};

// Bytes of heap in use in this process (glibc: small blocks and mmap'd ones). Every library
// measured here takes its memory from malloc, so the growth over a contender's prepare and first
// run is what it holds for the layer: packed weights, scratch, indirection buffers, its output
// tensor (the same size for every contender; the input and weights are shared, not counted).
size_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Every contender on one layer. All are prepared first (weights packed outside the timing),
// then timed in interleaved rounds, each contender a share of its runs per round, so that a
// burst of load from other processes on this shared machine falls on all of them rather than
// on whichever happened to be running.
Row run_layer(const LayerShape& layer, const std::vector<ContenderInfo>& list,
              const Timing& timing) {
  constexpr size_t kRounds = 5;
  Row row{layer, std::vector<Result>(list.size()), true, ""};
  const RandomLayer data(layer);
  std::vector<std::unique_ptr<Contender>> contenders(list.size());
  std::vector<std::vector<double>> times(list.size());
  for (size_t c = 0; c < list.size(); c++) {
    Result& r = row.results[c];
    const size_t heap_before = heap_in_use();
    contenders[c] = list[c].make();
    r.error = contenders[c]->prepare(layer, data);
    if (!r.ran()) {
      contenders[c].reset();
      continue;
    }
    // Warm-up: first-touch of buffers, lazily built tables, thread start-up; its time sets the
    // adaptive repeat count.
    const auto start = std::chrono::steady_clock::now();
    contenders[c]->run();
    const double warm_ms = elapsed_ms(start);
    const size_t heap_after = heap_in_use();
    r.held_bytes = heap_after > heap_before ? heap_after - heap_before : 0;
    r.repeats = timing.repeats;
    if (r.repeats == 0) {
      const double wanted = std::ceil(timing.seconds * 1e3 / std::max(warm_ms, 1e-3));
      r.repeats = static_cast<size_t>(std::clamp(wanted, 7.0, 301.0));
    }
    r.algorithm = contenders[c]->algorithm();
  }
  for (size_t round = 0; round < kRounds; round++) {
    // Each round starts with another contender, so that none always runs first.
    for (size_t i = 0; i < list.size(); i++) {
      const size_t c = (i + round) % list.size();
      if (!contenders[c]) continue;
      const size_t total = row.results[c].repeats;
      const size_t runs = total * (round + 1) / kRounds - total * round / kRounds;
      for (size_t run = 0; run < runs; run++) {
        const auto start = std::chrono::steady_clock::now();
        contenders[c]->run();
        times[c].push_back(elapsed_ms(start));
      }
    }
  }
  // Times, then the bytes of each contender's last timed run against qwino's.
  const uint8_t* reference = contenders[0] ? contenders[0]->output() : nullptr;
  std::vector<uint8_t> reference_bytes;
  if (reference != nullptr) reference_bytes.assign(reference, reference + layer.output_bytes());
  for (size_t c = 0; c < list.size(); c++) {
    Result& r = row.results[c];
    const ContenderInfo& info = list[c];
    std::string problem;
    if (!contenders[c]) {
      // qwino must run every valid layer; a peer may decline one (the tables show it).
      if (info.agreement == Agreement::kReference) problem = info.name + " did not run: " + r.error;
    } else {
      std::vector<double>& ms = times[c];
      std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
      r.median_ms = ms[ms.size() / 2];
      r.best_ms = *std::min_element(ms.begin(), ms.end());
      r.ms = timing.median ? r.median_ms : r.best_ms;
      if (reference == nullptr) {
        problem = info.name + ": no qwino output to check against";
      } else {
        const uint8_t* output = contenders[c]->output();
        for (size_t i = 0; i < layer.output_bytes(); i++) {
          const int difference = std::abs(int{output[i]} - int{reference_bytes[i]});
          r.differing += difference != 0;
          r.max_difference = std::max(r.max_difference, difference);
        }
        r.agrees = info.agreement == Agreement::kReference ||
                   (info.agreement == Agreement::kExact ? r.differing == 0 : r.max_difference <= 1);
        if (!r.agrees && !contenders[c]->unchecked_because().empty()) {
          r.unchecked = contenders[c]->unchecked_because();
          r.agrees = true;
        }
        if (!r.agrees) {
          problem = info.name + ": " + std::to_string(r.differing) + " bytes differ (max " +
                    std::to_string(r.max_difference) + ")";
        }
      }
    }
    if (!problem.empty()) {
      row.ok = false;
      row.check += (row.check.empty() ? "" : "; ") + problem;
    }
  }
  if (row.ok) {
    row.check = "ok";
    // Reported differences of contenders whose bytes are not checked on this machine.
    for (size_t c = 0; c < list.size(); c++) {
      const Result& r = row.results[c];
      if (r.ran() && !r.unchecked.empty()) {
        row.check += "; " + list[c].name + " not checked: " + std::to_string(r.differing) +
                     " bytes differ (max " + std::to_string(r.max_difference) + ")";
      }
    }
  }
  return row;
}

// Index of the contender each one is compared with (qwino's speedup over it), or -1.
std::vector<int> comparison_indices(const std::vector<ContenderInfo>& list) {
  std::vector<int> index(list.size(), -1);
  for (size_t c = 0; c < list.size(); c++) {
    if (list[c].compare_with.empty()) continue;
    for (size_t d = 0; d < list.size(); d++) {
      if (list[d].name == list[c].compare_with) index[c] = static_cast<int>(d);
    }
    if (index[c] < 0) index[c] = 0;  // its own qwino flavour was not selected: plain qwino
  }
  return index;
}

std::string versus(const std::vector<ContenderInfo>& list, const std::vector<int>& against,
                   size_t c) {
  const std::string& base = list[size_t(against[c])].name;
  return "vs " + list[c].name + (base == "qwino" ? "" : " (" + base + ")");
}

// --- Totals over a set of layers -----------------------------------------------------------------

// Per contender: time over the layers it ran (median x count), how many of the set's layer
// instances that is, and the time of its comparison contender on exactly those layers.
struct Total {
  double ms = 0;
  size_t layers_run = 0;
  double compared_ms = 0;  // the comparison contender on the same layers
  double speedup() const { return ms > 0 && compared_ms > 0 ? ms / compared_ms : 0.0; }
};

struct Group {
  std::string label;
  size_t layers = 0;  // layer instances (counts summed)
  size_t shapes = 0;  // rows
  double macs = 0;
  std::vector<Total> totals;
  size_t mismatches = 0;
};

Group summarize(const std::string& label, const std::vector<const Row*>& rows,
                const std::vector<ContenderInfo>& list, const std::vector<int>& against) {
  Group g;
  g.label = label;
  g.totals.resize(list.size());
  for (const Row* row : rows) {
    const double count = double(row->layer.count);
    g.layers += row->layer.count;
    g.shapes++;
    g.macs += row->layer.macs() * count;
    g.mismatches += row->ok ? 0 : 1;
    for (size_t c = 0; c < list.size(); c++) {
      const Result& r = row->results[c];
      // A compared contender counts only where its comparison ran too: same layers both sides.
      if (!r.ran() || (against[c] >= 0 && !row->results[size_t(against[c])].ran())) continue;
      g.totals[c].ms += r.ms * count;
      g.totals[c].layers_run += row->layer.count;
      if (against[c] >= 0) g.totals[c].compared_ms += row->results[size_t(against[c])].ms * count;
    }
  }
  return g;
}

// Totals table: one row per group (network or layer type).
std::string totals_table(const std::string& title, const std::string& first_column,
                         const std::vector<Group>& groups, const std::vector<ContenderInfo>& list,
                         const std::vector<int>& against, bool* any_partial) {
  std::string t = title + "\n";
  t += format("%-20s %8s %7s", first_column.c_str(), "layers", "GMACs");
  for (const ContenderInfo& c : list) t += format(" %13s", (c.name + " ms").c_str());
  for (size_t c = 0; c < list.size(); c++) {
    if (against[c] >= 0) t += format(" %16s", versus(list, against, c).c_str());
  }
  t += "  check\n";
  for (const Group& g : groups) {
    t += format("%-20s %8zu %7.2f", g.label.c_str(), g.layers, g.macs * 1e-9);
    for (size_t c = 0; c < list.size(); c++) {
      const Total& total = g.totals[c];
      const bool partial = total.layers_run != g.layers;
      *any_partial = *any_partial || partial;
      t += total.layers_run == 0 ? format(" %13s", "-")
                                 : format(" %12.3f%s", total.ms, partial ? "*" : " ");
    }
    for (size_t c = 0; c < list.size(); c++) {
      if (against[c] < 0) continue;
      const Total& total = g.totals[c];
      const bool partial = total.layers_run != g.layers;
      t += total.speedup() > 0 ? format(" %15.2fx%s", total.speedup(), partial ? "*" : " ")
                               : format(" %16s ", "-");
    }
    t += g.mismatches == 0 ? "  ok\n" : format("  MISMATCH in %zu layer shapes\n", g.mismatches);
  }
  return t;
}

// Per-layer table (both modes).
std::string layer_table(const std::vector<Row>& rows, const std::vector<ContenderInfo>& list,
                        const std::vector<int>& against, bool with_count) {
  std::string t = format("%-20s %-28s %5s %-18s %7s", "network / layer", "shape",
                         with_count ? "count" : "", "qwino algorithm", "GMAC/s");
  for (const ContenderInfo& c : list) t += format(" %13s", (c.name + " ms").c_str());
  for (size_t c = 0; c < list.size(); c++) {
    if (against[c] >= 0) t += format(" %16s", versus(list, against, c).c_str());
  }
  t += "  check\n";
  for (const Row& row : rows) {
    const Result& q = row.results[0];
    const std::string label = row.layer.layer.empty() ? row.layer.network : row.layer.layer;
    t += format("%-20s %-28s %5s %-18s %7.2f", label.c_str(), row.layer.name().c_str(),
                with_count ? std::to_string(row.layer.count).c_str() : "", q.algorithm.c_str(),
                q.ms > 0 ? row.layer.macs() / q.ms * 1e-6 : 0.0);
    for (const Result& r : row.results) {
      t += r.ran() ? format(" %13.3f", r.ms) : format(" %13s", "-");
    }
    for (size_t c = 0; c < list.size(); c++) {
      if (against[c] < 0) continue;
      const Result& r = row.results[c];
      const Result& base = row.results[size_t(against[c])];
      t += r.ran() && base.ran() && base.ms > 0 ? format(" %15.2fx", r.ms / base.ms)
                                                : format(" %16s", "-");
    }
    t += "  " + (row.ok ? row.check : "MISMATCH: " + row.check) + "\n";
  }
  return t;
}

// Layer mode's geometric means: one number per peer that no single layer dominates.
std::string geometric_means(const std::vector<Row>& rows, const std::vector<ContenderInfo>& list,
                            const std::vector<int>& against) {
  std::string t;
  for (const bool winograd_only : {true, false}) {
    t += format("%-95s", winograd_only ? "geometric mean, 3x3 stride-1 layers"
                                       : "geometric mean, all layers");
    t += std::string(14 * list.size(), ' ');
    for (size_t c = 0; c < list.size(); c++) {
      if (against[c] < 0) continue;
      double log_sum = 0;
      size_t count = 0;
      for (const Row& row : rows) {
        const bool winograd_shape =
            row.layer.kernel == 3 && row.layer.stride == 1 && row.layer.groups == 1;
        const Result& r = row.results[c];
        const Result& base = row.results[size_t(against[c])];
        if ((winograd_only && !winograd_shape) || !r.ran() || !base.ran()) continue;
        log_sum += std::log(r.ms / base.ms);
        count++;
      }
      t += count ? format(" %15.2fx", std::exp(log_sum / count)) : format(" %16s", "-");
    }
    t += "\n";
  }
  return t;
}

// Which layers each peer declined, with its reasons (one line per contender and reason).
std::string declined(const std::vector<Row>& rows, const std::vector<ContenderInfo>& list) {
  std::string t;
  for (size_t c = 0; c < list.size(); c++) {
    // reason -> (distinct shapes, layer instances)
    std::map<std::string, std::pair<std::set<std::string>, size_t>> reasons;
    for (const Row& row : rows) {
      const Result& r = row.results[c];
      if (r.ran()) continue;
      auto& entry = reasons[r.error];
      entry.first.insert(row.layer.name());
      entry.second += row.layer.count;
    }
    for (const auto& [reason, n] : reasons) {
      t += format("  %s did not run %zu layer shapes (%zu layers): %s\n", list[c].name.c_str(),
                  n.first.size(), n.second, reason.c_str());
    }
  }
  return t;
}

// Contenders whose bytes are reported but not checked on this machine: why, and how far off.
std::string unchecked(const std::vector<Row>& rows, const std::vector<ContenderInfo>& list) {
  std::string t;
  for (size_t c = 0; c < list.size(); c++) {
    std::string reason;
    std::set<std::string> shapes, beyond;
    size_t differing = 0, bytes = 0;
    int max_difference = 0;
    for (const Row& row : rows) {
      const Result& r = row.results[c];
      if (r.ran()) shapes.insert(row.layer.name());
      if (!r.ran() || r.unchecked.empty() || !beyond.insert(row.layer.name()).second) continue;
      reason = r.unchecked;
      differing += r.differing;
      bytes += row.layer.output_bytes();
      max_difference = std::max(max_difference, r.max_difference);
    }
    if (beyond.empty()) continue;
    t += format(
        "  %s's bytes are not checked here: %s. %zu of the %zu layer shapes it ran "
        "differ by more than 1 somewhere (%zu of their %zu output bytes differ at all, "
        "by at most %d); the others are within 1.\n",
        list[c].name.c_str(), reason.c_str(), beyond.size(), shapes.size(), differing, bytes,
        max_difference);
  }
  return t;
}

std::string csv_escape(const std::string& text) {
  std::string out = "\"";
  for (const char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

// One row per layer (network mode: per network layer, with its count and type).
std::string layer_csv(const std::vector<Row>& rows, const std::vector<ContenderInfo>& list,
                      const std::vector<int>& against) {
  std::string t =
      "network,layer,count,type,shape,height,width,input_channels,output_channels,"
      "kernel,stride,padding_top,padding_right,padding_bottom,padding_left,groups,"
      "macs,qwino_algorithm";
  for (const ContenderInfo& c : list) {
    t += "," + c.name + "_ms," + c.name + "_median_ms," + c.name + "_best_ms," + c.name + "_runs," +
         c.name + "_differing_bytes," + c.name + "_max_difference," + c.name + "_implementation," +
         c.name + "_not_run_because," + c.name + "_held_bytes";
  }
  for (size_t c = 0; c < list.size(); c++) {
    if (against[c] >= 0) t += ",qwino_speedup_vs_" + list[c].name;
  }
  t += ",check\n";
  for (const Row& row : rows) {
    const LayerShape& l = row.layer;
    t += format("%s,%s,%zu,%s,%s,%zu,%zu,%zu,%zu,%u,%u,%u,%u,%u,%u,%u,%.0f,%s", l.network.c_str(),
                l.layer.c_str(), l.count, kLayerTypes[layer_type(l)], csv_escape(l.name()).c_str(),
                l.height, l.width, l.input_channels, l.output_channels, l.kernel, l.stride, l.top(),
                l.right(), l.bottom(), l.left(), l.groups, l.macs(),
                row.results[0].algorithm.c_str());
    for (const Result& r : row.results) {
      t += r.ran() ? format(",%.4f,%.4f,%.4f,%zu,%zu,%d,%s,,%zu", r.ms, r.median_ms, r.best_ms,
                            r.repeats, r.differing, r.max_difference,
                            csv_escape(r.algorithm).c_str(), r.held_bytes)
                   : ",,,,,,," + csv_escape(r.error) + ",";
    }
    for (size_t c = 0; c < list.size(); c++) {
      if (against[c] < 0) continue;
      const Result& r = row.results[c];
      const Result& base = row.results[size_t(against[c])];
      t += r.ran() && base.ran() && base.ms > 0 ? format(",%.4f", r.ms / base.ms) : ",";
    }
    t += "," + csv_escape(row.check) + "\n";
  }
  return t;
}

// One row per network and per layer type (kind says which).
std::string groups_csv(const std::vector<Group>& networks, const std::vector<Group>& types,
                       const std::vector<ContenderInfo>& list, const std::vector<int>& against) {
  std::string t = "kind,group,layers,layer_shapes,macs";
  for (size_t c = 0; c < list.size(); c++) {
    t += "," + list[c].name + "_ms," + list[c].name + "_layers_run";
    if (against[c] >= 0) {
      t += "," + list[c].name + "_compared_with," + list[c].name + "_compared_ms_same_layers," +
           "qwino_speedup_vs_" + list[c].name;
    }
  }
  t += ",mismatched_layer_shapes\n";
  for (const auto* set : {&networks, &types}) {
    for (const Group& g : *set) {
      t += format("%s,%s,%zu,%zu,%.0f", set == &networks ? "network" : "layer type",
                  csv_escape(g.label).c_str(), g.layers, g.shapes, g.macs);
      for (size_t c = 0; c < list.size(); c++) {
        const Total& total = g.totals[c];
        t += total.layers_run ? format(",%.4f,%zu", total.ms, total.layers_run) : ",,0";
        if (against[c] >= 0) {
          t += "," + list[size_t(against[c])].name +
               (total.speedup() > 0 ? format(",%.4f,%.4f", total.compared_ms, total.speedup())
                                    : std::string(",,"));
        }
      }
      t += format(",%zu\n", g.mismatches);
    }
  }
  return t;
}

std::string escape_xml(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    switch (ch) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

// One bar group of a chart: a label and, per compared contender, qwino's speedup (0: none) and
// whether it covers only part of the group's layers.
struct BarGroup {
  std::string label;
  std::vector<double> speedups;
  std::vector<bool> partial;
};

// Grouped bars, one group per row and one bar per compared contender, growing up (qwino faster)
// or down (slower) from parity on a log2 axis, since ratios here span 1/30 to 30. Each bar is
// labelled with its value. Plain SVG text, so the chart needs nothing to build and opens in any
// browser.
std::string svg(const std::string& title, const std::string& subtitle,
                const std::vector<BarGroup>& groups, const std::vector<std::string>& series,
                const std::string& footnote, bool rotate_labels) {
  static const char* const kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                        "#b07aa1", "#76b7b2", "#9c755f"};
  const size_t bars = series.size();
  const double bar = bars > 4 ? 22 : 26, gap = 26, group_width = bars * bar + gap;
  const double left = 70, top = 92, plot_height = 340;
  const double bottom = rotate_labels ? 150 : 70;
  // Wide enough for the bars, the title (about 9 px per bold 16 px character) and the legend.
  double legend_width = 0;
  for (const std::string& name : series) legend_width += 30 + 6.8 * (name.size() + 3);
  const double width =
      std::max({640.0, left + groups.size() * group_width + 30, left + 9.5 * title.size() + 20,
                left + 6.8 * subtitle.size() + 20, left + legend_width + 20});
  double lowest = 1, highest = 1;
  for (const BarGroup& g : groups) {
    for (const double v : g.speedups) {
      if (v <= 0) continue;
      lowest = std::min(lowest, v);
      highest = std::max(highest, v);
    }
  }
  // Room beyond the extreme bars for their value labels.
  const int low_exponent = std::min(-1, int(std::floor(std::log2(lowest) - 0.3)));
  const int high_exponent = std::max(1, int(std::ceil(std::log2(highest) + 0.2)));
  auto y = [&](double v) {
    return top + plot_height * (high_exponent - std::log2(v)) / (high_exponent - low_exponent);
  };
  const double axis_bottom = y(std::ldexp(1.0, low_exponent));

  std::string s = format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
      "fill=\"white\"/>\n",
      width, top + plot_height + bottom);
  s += format("<text x=\"%.0f\" y=\"22\" font-size=\"16\" font-weight=\"bold\">%s</text>\n", left,
              escape_xml(title).c_str());
  s += format("<text x=\"%.0f\" y=\"41\" fill=\"#444\">%s</text>\n", left,
              escape_xml(subtitle).c_str());
  for (int e = low_exponent; e <= high_exponent; e++) {
    const double v = std::ldexp(1.0, e);
    s += format(
        "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
        "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s%gx</text>\n",
        left, width - 20, y(v), y(v), e == 0 ? "black" : "#ddd", left - 6, y(v) + 4,
        e < 0 ? "1/" : "", e < 0 ? 1 / v : v);
  }
  s += format(
      "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\" "
      "fill=\"#444\">qwino faster (up) / slower (down)</text>\n",
      top + plot_height / 2, top + plot_height / 2);
  for (size_t i = 0; i < groups.size(); i++) {
    const double x0 = left + i * group_width + gap / 2;
    for (size_t c = 0; c < bars; c++) {
      const double v = groups[i].speedups[c];
      const double x = x0 + c * bar;
      if (v <= 0) {
        s += format(
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" text-anchor=\"middle\" "
            "fill=\"#888\">n/a</text>\n",
            x + bar / 2 - 1, y(1) - 3);
        continue;
      }
      const bool partial = groups[i].partial[c];
      s += format(
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"%s\"%s>"
          "<title>%s, qwino vs %s: %.2fx%s</title></rect>\n",
          x, std::min(y(v), y(1)), bar - 3, std::max(1.0, std::fabs(y(v) - y(1))), kColors[c % 7],
          partial ? " fill-opacity=\"0.55\"" : "", escape_xml(groups[i].label).c_str(),
          series[c].c_str(), v, partial ? " (layers it ran)" : "");
      // Below 1/2, "1/33" reads better than "0.03".
      const std::string value = v >= 0.5  ? format(v >= 10 ? "%.1f" : "%.2f", v)
                                : v > 0.1 ? format("1/%.1f", 1 / v)
                                          : format("1/%.0f", 1 / v);
      s += format(
          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" text-anchor=\"middle\">%s%s</text>\n",
          x + (bar - 3) / 2, v >= 1 ? y(v) - 3 : y(v) + 10, value.c_str(), partial ? "*" : "");
    }
    const double label_x = x0 + bars * bar / 2, label_y = axis_bottom + 16;
    if (rotate_labels) {
      s += format(
          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(-40 %.1f "
          "%.1f)\">%s</text>\n",
          label_x, label_y, label_x, label_y, escape_xml(groups[i].label).c_str());
    } else {
      s += format(
          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-weight=\"bold\">%s"
          "</text>\n",
          label_x, label_y, escape_xml(groups[i].label).c_str());
    }
  }
  double legend_x = left;
  for (size_t c = 0; c < bars; c++) {
    s += format(
        "<rect x=\"%.0f\" y=\"56\" width=\"12\" height=\"12\" fill=\"%s\"/>"
        "<text x=\"%.0f\" y=\"66\">vs %s</text>\n",
        legend_x, kColors[c % 7], legend_x + 16, escape_xml(series[c]).c_str());
    legend_x += 30 + 6.8 * (series[c].size() + 3);
  }
  if (!footnote.empty()) {
    s += format("<text x=\"%.0f\" y=\"%.0f\" fill=\"#444\">%s</text>\n", left,
                top + plot_height + bottom - 12, escape_xml(footnote).c_str());
  }
  return s + "</svg>\n";
}

std::vector<BarGroup> bar_groups(const std::vector<Group>& groups,
                                 const std::vector<int>& against) {
  std::vector<BarGroup> bars;
  for (const Group& g : groups) {
    BarGroup b{g.label, {}, {}};
    for (size_t c = 0; c < against.size(); c++) {
      if (against[c] < 0) continue;
      b.speedups.push_back(g.totals[c].speedup());
      b.partial.push_back(g.totals[c].layers_run != g.layers);
    }
    bars.push_back(b);
  }
  return bars;
}

std::vector<std::string> series_names(const std::vector<ContenderInfo>& list,
                                      const std::vector<int>& against) {
  std::vector<std::string> names;
  for (size_t c = 0; c < list.size(); c++) {
    if (against[c] < 0) continue;
    const std::string& base = list[size_t(against[c])].name;
    names.push_back(list[c].name + (base == "qwino" ? "" : " (" + base + ")"));
  }
  return names;
}

bool write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  return static_cast<bool>(file);
}

std::string minutes(double seconds) {
  return format("%dm%02ds", int(seconds) / 60, int(seconds) % 60);
}

// The contenders to run: the mode's default (network mode leaves out qwino's forced direct
// path: non-3x3 layers take it anyway) or --contenders, with qwino always first.
std::vector<ContenderInfo> select(const std::vector<ContenderInfo>& all, const Options& o) {
  std::vector<ContenderInfo> list;
  for (const ContenderInfo& info : all) {
    bool wanted = info.name == "qwino";
    if (!o.contender_names.empty()) {
      wanted = wanted || std::find(o.contender_names.begin(), o.contender_names.end(), info.name) !=
                             o.contender_names.end();
    } else {
      wanted = wanted || !o.network_mode || info.name != "qwino-direct";
    }
    if (wanted) list.push_back(info);
  }
  for (const std::string& name : o.contender_names) {
    if (std::none_of(all.begin(), all.end(),
                     [&](const ContenderInfo& info) { return info.name == name; })) {
      std::string known;
      for (const ContenderInfo& info : all) known += " " + info.name;
      usage("no contender " + name + " in this build (it has:" + known + ")");
    }
  }
  return list;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const auto start = std::chrono::steady_clock::now();
  pthreadpool_t pool = options.threads > 1 ? pthreadpool_create(options.threads) : nullptr;
  const std::vector<ContenderInfo> list = select(contenders(pool, options.threads), options);
  const std::vector<int> against = comparison_indices(list);
  const Timing timing{options.repeats != 0 ? options.repeats : (options.network_mode ? 0 : 11),
                      options.seconds, options.median};
  const char* const statistic = options.median ? "median" : "fastest";
  const std::string timing_text =
      timing.repeats != 0
          ? format("%s of %zu runs in 5 interleaved rounds", statistic, timing.repeats)
          : format("%s of 7-301 runs (about %.1f s per layer and contender, 5 interleaved rounds)",
                   statistic, timing.seconds);

  std::string header = format(
      "qwino-compare: %s, qwino %s kernels, %zu thread(s) for every contender, %s, batch 1\n",
      machine_name().c_str(), qwino_isa_name(), options.threads, timing_text.c_str());
  for (const ContenderInfo& c : list) {
    header += format("  %-12s %s\n", c.name.c_str(), c.description.c_str());
  }
  for (const std::string& missing : missing_peers()) header += "  skipped: " + missing + "\n";
  std::fputs((header + "\n").c_str(), stdout);
  std::fflush(stdout);

  // The layers: network lists (each unique shape measured once, across networks too) or the
  // suite's single layers.
  std::vector<std::vector<Row>> networks;  // network mode: one row per list line
  std::vector<std::string> network_names;
  std::vector<LayerShape> layers;
  if (options.network_mode) {
    for (const std::string& name : options.networks) {
      std::string network;
      std::vector<LayerShape> list_layers = read_network(name, options.network_directory, &network);
      network_names.push_back(network);
      layers.insert(layers.end(), list_layers.begin(), list_layers.end());
    }
  } else {
    for (const LayerShape& layer : suite_layers()) {
      if (options.all_layers || layer.network == "resnet18") layers.push_back(layer);
    }
  }
  std::map<std::string, Row> measured;  // by shape name (it names every field that matters)
  size_t unique = 0;
  {
    std::set<std::string> names;
    for (const LayerShape& l : layers) names.insert(l.name());
    unique = names.size();
  }
  std::vector<Row> rows;
  bool all_ok = true;
  for (const LayerShape& layer : layers) {
    auto found = measured.find(layer.name());
    if (found == measured.end()) {
      Row row = run_layer(layer, list, timing);
      found = measured.emplace(layer.name(), row).first;
      std::string progress = format(
          "qwino-compare: [%zu/%zu, %s] %s%s %s:", measured.size(), unique,
          minutes(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count())
              .c_str(),
          layer.network.c_str(), layer.layer.empty() ? "" : (" " + layer.layer).c_str(),
          layer.name().c_str());
      for (size_t c = 0; c < list.size(); c++) {
        progress += row.results[c].ran()
                        ? format(" %s %.3f ms%s", list[c].name.c_str(), row.results[c].ms,
                                 c + 1 < list.size() ? "," : "")
                        : format(" %s -%s", list[c].name.c_str(), c + 1 < list.size() ? "," : "");
      }
      std::fprintf(stderr, "%s; %s\n", progress.c_str(), row.ok ? "ok" : row.check.c_str());
      if (!row.ok) {
        std::fprintf(stderr, "qwino-compare: MISMATCH on %s %s: %s\n", layer.network.c_str(),
                     layer.name().c_str(), row.check.c_str());
      }
    }
    Row row = found->second;
    row.layer = layer;  // its own network, name and count
    all_ok = all_ok && row.ok;
    rows.push_back(row);
  }
  if (pool != nullptr) pthreadpool_destroy(pool);

  // What was checked, by the contenders this run had.
  std::string exact = "qwino", within_one;
  for (const ContenderInfo& c : list) {
    if (c.agreement == Agreement::kExact) exact += " == " + c.name;
    if (c.agreement == Agreement::kWithinOne)
      within_one += (within_one.empty() ? "" : ", ") + c.name;
  }
  const std::string verdict =
      all_ok ? "checks passed: " + exact + " byte for byte" +
                   (within_one.empty() ? "" : "; " + within_one + " within 1") +
                   " (on every layer each ran; unchecked differences listed above)\n"
             : "ERROR: some checks failed (see the check column)\n";
  const std::filesystem::path directory(options.output_directory);
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  const std::string subtitle =
      format("%s; qwino %s kernels; %zu thread(s); %s", machine_name().c_str(), qwino_isa_name(),
             options.threads, timing_text.c_str());
  bool written = !error;
  std::string wrote;
  if (!options.network_mode) {
    const std::string results = layer_table(rows, list, against, false) +
                                geometric_means(rows, list, against) + declined(rows, list) +
                                unchecked(rows, list) + "\n" + verdict;
    std::fputs(results.c_str(), stdout);
    std::vector<BarGroup> bars;
    for (const Row& row : rows) {
      BarGroup b{row.layer.network + " " + row.layer.name(), {}, {}};
      for (size_t c = 0; c < list.size(); c++) {
        if (against[c] < 0) continue;
        const Result& r = row.results[c];
        const Result& base = row.results[size_t(against[c])];
        b.speedups.push_back(r.ran() && base.ran() && base.ms > 0 ? r.ms / base.ms : 0.0);
        b.partial.push_back(false);
      }
      bars.push_back(b);
    }
    written = written && write_file(directory / "qwino-compare.txt", header + "\n" + results) &&
              write_file(directory / "qwino-compare.csv", layer_csv(rows, list, against)) &&
              write_file(directory / "qwino-compare-speedup.svg",
                         svg("qwino's speedup over each contender, per layer (its time / "
                             "qwino's; log scale)",
                             subtitle, bars, series_names(list, against), "", true));
    wrote = directory.string() + "/qwino-compare.{txt,csv} and qwino-compare-speedup.svg";
  } else {
    // Per network, then per layer type over all networks.
    std::vector<Group> network_groups;
    std::vector<const Row*> all_rows;
    std::vector<std::vector<const Row*>> by_type(std::size(kLayerTypes));
    for (const std::string& network : network_names) {
      std::vector<const Row*> members;
      for (const Row& row : rows) {
        if (row.layer.network == network) members.push_back(&row);
      }
      network_groups.push_back(summarize(network, members, list, against));
    }
    for (const Row& row : rows) {
      all_rows.push_back(&row);
      by_type[layer_type(row.layer)].push_back(&row);
    }
    std::vector<Group> type_groups;
    for (size_t t = 0; t < by_type.size(); t++) {
      if (!by_type[t].empty())
        type_groups.push_back(summarize(kLayerTypes[t], by_type[t], list, against));
    }
    type_groups.push_back(summarize("all layers", all_rows, list, against));
    bool partial = false;
    std::string results =
        totals_table(
            std::string("Per network: total convolution time (sum over its layers of the ") +
                statistic + " run x count), ms, and qwino's speedup over each contender (its " +
                "time / qwino's)",
            "network", network_groups, list, against, &partial) +
        "\n" +
        totals_table(
            "Per layer type, the networks above together (first conv: 3 input channels; "
            "strided: stride 2, not depthwise)",
            "layer type", type_groups, list, against, &partial);
    if (partial) {
      results +=
          "* the contender did not run every layer of the row: its time and speedup cover "
          "the layers it ran (qwino's time on the same layers is the comparison)\n";
    }
    results += declined(rows, list) + unchecked(rows, list) + "\n" + verdict;
    std::string per_layer;
    for (const std::string& network : network_names) {
      std::vector<Row> members;
      for (const Row& row : rows) {
        if (row.layer.network == network) members.push_back(row);
      }
      per_layer += "\n== " + network + "\n" + layer_table(members, list, against, true);
    }
    std::fputs(results.c_str(), stdout);
    if (options.per_layer) std::fputs(per_layer.c_str(), stdout);
    const std::string footnote =
        "faded bars marked *: the peer did not run every layer; the bar compares the layers it ran";
    written =
        written &&
        write_file(directory / "qwino-networks.txt", header + "\n" + results +
                                                         "\nPer layer (ms per run, " + statistic +
                                                         " run, one instance):\n" + per_layer) &&
        write_file(directory / "qwino-networks-layers.csv", layer_csv(rows, list, against)) &&
        write_file(directory / "qwino-networks.csv",
                   groups_csv(network_groups, type_groups, list, against)) &&
        write_file(directory / "qwino-networks-speedup.svg",
                   svg("qwino's speedup per network: each contender's total convolution time / "
                       "qwino's (log scale)",
                       subtitle, bar_groups(network_groups, against), series_names(list, against),
                       partial ? footnote : "", false)) &&
        write_file(
            directory / "qwino-layer-types-speedup.svg",
            svg("qwino's speedup per layer type, the " + std::to_string(network_names.size()) +
                    " networks together: each contender's time / qwino's (log scale)",
                subtitle, bar_groups(type_groups, against), series_names(list, against),
                partial ? footnote : "", false));
    wrote = directory.string() +
            "/qwino-networks.{txt,csv}, qwino-networks-layers.csv, qwino-networks-speedup.svg, "
            "qwino-layer-types-speedup.svg";
  }
  if (!written) {
    std::fprintf(stderr, "qwino-compare: cannot write the results to %s\n",
                 directory.string().c_str());
    return 1;
  }
  std::printf(
      "wrote %s (%s)\n", wrote.c_str(),
      minutes(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count())
          .c_str());
  return all_ok ? 0 : 1;
}
