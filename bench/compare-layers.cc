// qwino-compare: the main job. Runs the benchmark suite (ResNet-18, VGG-19, MobileNet-style and
// non-Winograd layers) through qwino and the peers this build has, on the same random bytes, and
// checks them against each other: qwino's automatic path == its direct path == TFLite's
// im2col + gemmlowp byte for byte, XNNPACK within 1. Prints one table (median ms per contender,
// qwino's speedup over each, check) and writes it as text, CSV and an SVG bar chart.
//
//   qwino-compare [-n REPEATS] [-t THREADS] [--layers resnet18|all] [-o DIR]
// THREADS applies to every contender (qwino and XNNPACK share one pthreadpool, gemmlowp runs
// its own workers). Exit status 1 if any check fails or a contender cannot run a layer.
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
#include <string>
#include <vector>

#include "peers/contender.h"
#include "random-layer.h"

namespace {

struct Options {
  size_t repeats = 11;
  size_t threads = 1;
  bool all_layers = true;
  std::string output_directory = "build/results";
};

[[noreturn]] void usage(const std::string& message) {
  std::fprintf(stderr,
               "qwino-compare: %s\nusage: qwino-compare [-n REPEATS] [-t THREADS] "
               "[--layers resnet18|all] [-o DIR]\n",
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

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    const std::string option = argv[i];
    if (i + 1 >= argc) usage("missing value after " + option);
    const std::string value = argv[++i];
    if (option == "-n") {
      o.repeats = parse_count(value);
    } else if (option == "-t") {
      o.threads = parse_count(value);
    } else if (option == "-o") {
      o.output_directory = value;
    } else if (option == "--layers") {
      if (value != "resnet18" && value != "all") usage("--layers takes resnet18 or all");
      o.all_layers = value == "all";
    } else {
      usage("unknown option " + option);
    }
  }
  return o;
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

// One contender on one layer.
struct Result {
  std::string error;  // why it did not run, or ""
  double ms = 0;      // median of the timed runs
  std::string algorithm;
  size_t differing = 0;  // bytes that differ from qwino's automatic path
  int max_difference = 0;
  bool agrees = false;
};

struct Row {
  LayerShape layer;
  std::vector<Result> results;  // one per contender, in contenders() order
  bool ok = true;
  std::string check;
};

Result measure(const ContenderInfo& info, const LayerShape& layer, const RandomLayer& data,
               size_t repeats, const std::vector<uint8_t>& reference,
               std::vector<uint8_t>* output) {
  Result r;
  std::unique_ptr<Contender> contender = info.make();
  r.error = contender->prepare(layer, data);
  if (!r.error.empty()) return r;
  contender->run();  // warm-up: first-touch of buffers, lazily built tables, thread start-up
  std::vector<double> ms;
  for (size_t i = 0; i < repeats; i++) {
    const auto start = std::chrono::steady_clock::now();
    contender->run();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  r.ms = ms[ms.size() / 2];
  r.algorithm = contender->algorithm();
  // The bytes of the last timed run, so that repeated runs are covered by the check too.
  output->assign(contender->output(), contender->output() + layer.output_bytes());
  if (info.agreement == Agreement::kReference) {
    r.agrees = true;
    return r;
  }
  for (size_t i = 0; i < output->size(); i++) {
    const int difference = std::abs(int{(*output)[i]} - int{reference[i]});
    r.differing += difference != 0;
    r.max_difference = std::max(r.max_difference, difference);
  }
  r.agrees = info.agreement == Agreement::kExact ? r.differing == 0 : r.max_difference <= 1;
  return r;
}

Row run_layer(const LayerShape& layer, const std::vector<ContenderInfo>& list, size_t repeats) {
  Row row{layer, {}, true, ""};
  const RandomLayer data(layer);
  std::vector<uint8_t> reference, output;
  for (const ContenderInfo& info : list) {
    if (info.agreement != Agreement::kReference && reference.empty()) {
      row.results.emplace_back();
      row.results.back().error = "no qwino output to check against";
    } else {
      row.results.push_back(measure(info, layer, data, repeats, reference, &output));
      if (info.agreement == Agreement::kReference && row.results.back().error.empty()) {
        reference = output;
      }
    }
    const Result& r = row.results.back();
    std::string problem;
    if (!r.error.empty()) {
      problem = info.name + " did not run: " + r.error;
    } else if (!r.agrees) {
      problem = info.name + ": " + std::to_string(r.differing) + " bytes differ (max " +
                std::to_string(r.max_difference) + ")";
    }
    if (!problem.empty()) {
      row.ok = false;
      row.check += (row.check.empty() ? "" : "; ") + problem;
    }
  }
  if (row.ok) row.check = "ok";
  return row;
}

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...) {
  char text[512];
  va_list arguments;
  va_start(arguments, pattern);
  std::vsnprintf(text, sizeof(text), pattern, arguments);
  va_end(arguments);
  return text;
}

// Speedup of qwino (contender 0) over contender c: its time / qwino's, 0 when either did not run.
double speedup(const Row& row, size_t c) {
  const Result& q = row.results[0];
  const Result& p = row.results[c];
  return q.error.empty() && p.error.empty() && q.ms > 0 ? p.ms / q.ms : 0.0;
}

std::string table(const std::vector<Row>& rows, const std::vector<ContenderInfo>& list) {
  std::string t = format("%-9s %-20s %-17s %9s", "network", "layer", "qwino algorithm",
                         "GMAC/s");
  for (const ContenderInfo& c : list) t += format(" %15s", (c.name + " ms").c_str());
  for (size_t c = 1; c < list.size(); c++) t += format(" %15s", ("vs " + list[c].name).c_str());
  t += "  check\n";
  for (const Row& row : rows) {
    const Result& q = row.results[0];
    t += format("%-9s %-20s %-17s %9.2f", row.layer.network, row.layer.name().c_str(),
                q.algorithm.c_str(), q.ms > 0 ? row.layer.macs() / q.ms * 1e-6 : 0.0);
    for (const Result& r : row.results) {
      t += r.error.empty() ? format(" %15.3f", r.ms) : format(" %15s", "-");
    }
    for (size_t c = 1; c < list.size(); c++) t += format(" %14.2fx", speedup(row, c));
    t += "  " + (row.ok ? row.check : "MISMATCH: " + row.check) + "\n";
  }
  // Geometric means: one number per peer that no single layer dominates.
  for (const bool winograd_only : {true, false}) {
    t += format("%-48s", winograd_only ? "geometric mean, 3x3 stride-1 layers"
                                       : "geometric mean, all layers");
    t += std::string(16 * list.size(), ' ');
    for (size_t c = 1; c < list.size(); c++) {
      double log_sum = 0;
      size_t count = 0;
      for (const Row& row : rows) {
        const bool winograd_shape = row.layer.kernel == 3 && row.layer.stride == 1;
        if ((winograd_only && !winograd_shape) || speedup(row, c) <= 0) continue;
        log_sum += std::log(speedup(row, c));
        count++;
      }
      t += count ? format(" %14.2fx", std::exp(log_sum / count)) : format(" %15s", "-");
    }
    t += "\n";
  }
  return t;
}

std::string csv(const std::vector<Row>& rows, const std::vector<ContenderInfo>& list) {
  std::string t = "network,layer,height,width,input_channels,output_channels,kernel,stride,macs,"
                  "qwino_algorithm";
  for (const ContenderInfo& c : list) t += "," + c.name + "_ms";
  for (size_t c = 1; c < list.size(); c++) {
    t += ",speedup_vs_" + list[c].name + "," + list[c].name + "_differing_bytes";
  }
  t += ",check\n";
  for (const Row& row : rows) {
    const LayerShape& l = row.layer;
    t += format("%s,%s,%zu,%zu,%zu,%zu,%u,%u,%.0f,%s", l.network, l.name().c_str(), l.height,
                l.width, l.input_channels, l.output_channels, l.kernel, l.stride, l.macs(),
                row.results[0].algorithm.c_str());
    for (const Result& r : row.results) t += r.error.empty() ? format(",%.4f", r.ms) : ",";
    for (size_t c = 1; c < list.size(); c++) {
      t += format(",%.4f,%zu", speedup(row, c), row.results[c].differing);
    }
    t += ",\"" + row.check + "\"\n";
  }
  return t;
}

std::string escape_xml(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    switch (ch) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      default: out += ch;
    }
  }
  return out;
}

// Grouped bars, one group per layer and one bar per peer, growing up (qwino faster) or down
// (slower) from parity on a log2 axis, since ratios here span 1/30 to 30. Plain SVG text, so the
// chart needs nothing to build and opens in any browser.
std::string svg(const std::vector<Row>& rows, const std::vector<ContenderInfo>& list,
                const std::string& subtitle) {
  static const char* const kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1"};
  const size_t peers = list.size() - 1;
  const double bar = 18, gap = 16, group = peers * bar + gap;
  const double left = 110, top = 70, plot_height = 300, bottom = 140;
  const double width = std::max(760.0, left + rows.size() * group + 20);  // room for the title
  double lowest = 1, highest = 1;
  for (const Row& row : rows) {
    for (size_t c = 1; c < list.size(); c++) {
      if (speedup(row, c) <= 0) continue;
      lowest = std::min(lowest, speedup(row, c));
      highest = std::max(highest, speedup(row, c));
    }
  }
  const int low_exponent = std::min(-1, int(std::floor(std::log2(lowest))));
  const int high_exponent = std::max(1, int(std::ceil(std::log2(highest))));
  auto y = [&](double v) {
    return top + plot_height * (high_exponent - std::log2(v)) / (high_exponent - low_exponent);
  };
  const double axis_bottom = y(std::ldexp(1.0, low_exponent));

  std::string s = format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" "
      "fill=\"white\"/>\n",
      width, top + plot_height + bottom);
  s += format("<text x=\"%.0f\" y=\"22\" font-size=\"15\" font-weight=\"bold\">qwino speedup "
              "over each contender (its median time / qwino's; up = qwino faster, log scale)"
              "</text>\n",
              left);
  s += format("<text x=\"%.0f\" y=\"40\">%s</text>\n", left, escape_xml(subtitle).c_str());
  for (int e = low_exponent; e <= high_exponent; e++) {
    const double v = std::ldexp(1.0, e);
    s += format("<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s%gx</text>\n",
                left, width - 20, y(v), y(v), e == 0 ? "black" : "#ddd", left - 6, y(v) + 4,
                e < 0 ? "1/" : "", e < 0 ? 1 / v : v);
  }
  for (size_t i = 0; i < rows.size(); i++) {
    const double x0 = left + i * group + gap / 2;
    for (size_t c = 1; c < list.size(); c++) {
      const double v = speedup(rows[i], c);
      if (v <= 0) continue;  // that contender did not run this layer
      const double x = x0 + (c - 1) * bar;
      s += format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"%s\">"
                  "<title>%s vs %s: %.2fx</title></rect>\n",
                  x, std::min(y(v), y(1)), bar - 2, std::fabs(y(v) - y(1)), kColors[(c - 1) % 5],
                  escape_xml(rows[i].layer.name()).c_str(), list[c].name.c_str(), v);
      s += format("<text x=\"%.1f\" y=\"%.1f\" font-size=\"8\" text-anchor=\"middle\">%.2f</text>\n",
                  x + bar / 2 - 1, v >= 1 ? y(v) - 3 : y(v) + 9, v);
    }
    const double label_x = x0 + peers * bar / 2, label_y = axis_bottom + 14;
    s += format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(-45 %.1f "
                "%.1f)\">%s %s</text>\n",
                label_x, label_y, label_x, label_y, rows[i].layer.network,
                escape_xml(rows[i].layer.name()).c_str());
  }
  for (size_t c = 1; c < list.size(); c++) {
    const double x = left + (c - 1) * 150;
    s += format("<rect x=\"%.0f\" y=\"50\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text x=\"%.0f\" y=\"60\">vs %s</text>\n",
                x, kColors[(c - 1) % 5], x + 16, list[c].name.c_str());
  }
  return s + "</svg>\n";
}

bool write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  return static_cast<bool>(file);
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  pthreadpool_t pool = options.threads > 1 ? pthreadpool_create(options.threads) : nullptr;
  const std::vector<ContenderInfo> list = contenders(pool, options.threads);

  std::string header = format(
      "qwino-compare: %s, qwino %s kernels, %zu thread(s) for every contender, median of %zu "
      "runs, batch 1\n",
      machine_name().c_str(), qwino_isa_name(), options.threads, options.repeats);
  for (const std::string& missing : missing_peers()) header += "  skipped: " + missing + "\n";
  std::fputs((header + "\n").c_str(), stdout);
  std::fflush(stdout);

  std::vector<Row> rows;
  bool all_ok = true;
  for (const LayerShape& layer : suite_layers()) {
    if (!options.all_layers && std::strcmp(layer.network, "resnet18") != 0) continue;
    rows.push_back(run_layer(layer, list, options.repeats));
    all_ok = all_ok && rows.back().ok;
    if (!rows.back().ok) {
      std::fprintf(stderr, "qwino-compare: MISMATCH on %s %s: %s\n", layer.network,
                   layer.name().c_str(), rows.back().check.c_str());
    }
  }
  if (pool != nullptr) pthreadpool_destroy(pool);

  const std::string verdict =
      all_ok ? "checks passed: qwino auto == qwino direct == im2col+gemmlowp byte for byte (where "
               "built), xnnpack within 1\n"
             : "ERROR: some checks failed (see the check column)\n";
  const std::string results = table(rows, list) + "\n" + verdict;
  std::fputs(results.c_str(), stdout);

  const std::filesystem::path directory(options.output_directory);
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  const std::string subtitle = format("%s; qwino %s kernels; %zu thread(s); median of %zu runs",
                                      machine_name().c_str(), qwino_isa_name(), options.threads,
                                      options.repeats);
  if (error || !write_file(directory / "qwino-compare.txt", header + "\n" + results) ||
      !write_file(directory / "qwino-compare.csv", csv(rows, list)) ||
      !write_file(directory / "qwino-compare-speedup.svg", svg(rows, list, subtitle))) {
    std::fprintf(stderr, "qwino-compare: cannot write the results to %s\n",
                 directory.string().c_str());
    return 1;
  }
  std::printf("wrote %s/qwino-compare.{txt,csv} and qwino-compare-speedup.svg\n",
              directory.string().c_str());
  return all_ok ? 0 : 1;
}
