// qwino-ort-run: runs an ONNX model through ONNX Runtime's C API, with or without a custom-op
// library, for the tests and the whole-model benchmark (Python has no onnxruntime package here;
// the tools in this folder drive this program instead).
//
//   qwino-ort-run MODEL.onnx [options]
//     --custom-ops LIB.so     register a custom-op library (RegisterCustomOpsLibrary_V2)
//     --threads N             ORT intra-op threads (default 1; also the config entry
//                             qwino.intra_op_num_threads, which the qwino op sizes its pool by)
//     --log-info              ORT's log at INFO level for the session (the qwino op logs each
//                             node's thread count and algorithm there)
//     --no-spinning           session.intra_op.allow_spinning = 0
//     --config KEY=VALUE      any session config entry (repeatable)
//     --x64-exact             session.x64quantprecision = 1: ORT's exact U8U8 path on x86 CPUs
//                             without VNNI, whose U8S8 kernels saturate pair sums
//     --input NAME=FILE.npy   a graph input (repeatable, every input)
//     --output-dir DIR        every graph output to DIR/<name>.npy (name: [A-Za-z0-9_.-] kept,
//                             anything else '_')
//     --repeat R              after one warm-up run, R timed runs: prints "median_ms X" and
//                             "runs_ms a,b,..."
//     --profile PREFIX        ORT's profiling JSON; prints "profile PATH"
//     --optimized FILE.onnx   ORT's optimized graph
//     --concurrent K          then K threads run the session at once (ORT allows concurrent Run
//                             calls on one session); each output must equal the first run's,
//                             byte for byte, or it exits 1
// Exits 1 with ORT's message on any error, including a custom op's refusal at session creation.

#include <onnxruntime_c_api.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

const OrtApi* api = nullptr;

void check(OrtStatus* status) {
  if (status == nullptr) return;
  std::string message = api->GetErrorMessage(status);
  api->ReleaseStatus(status);
  throw std::runtime_error(message);
}

struct ElementType {
  ONNXTensorElementDataType onnx;
  const char* descr;
  size_t size;
};

const ElementType kTypes[] = {
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, "<f4", 4},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, "|u1", 1},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, "|i1", 1},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, "<i4", 4},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, "<i8", 8},
};

const ElementType& type_by_onnx(ONNXTensorElementDataType t) {
  for (const ElementType& e : kTypes) {
    if (e.onnx == t) return e;
  }
  throw std::runtime_error("unsupported tensor element type " + std::to_string(int(t)));
}

const ElementType& type_by_descr(const std::string& d) {
  for (const ElementType& e : kTypes) {
    if (d == e.descr ||
        (d.size() == 3 && d.substr(1) == std::string(e.descr).substr(1) && e.size == 1))
      return e;
  }
  throw std::runtime_error("unsupported .npy dtype " + d);
}

struct Array {
  const ElementType* type = nullptr;
  std::vector<int64_t> shape;
  std::vector<char> data;
};

// The .npy format (version 1.0/2.0): magic, header length, a Python dict literal, raw C-order data.
Array read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw std::runtime_error(path + ": not a .npy file");
  uint32_t header_length = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    in.read(reinterpret_cast<char*>(b), 2);
    header_length = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    in.read(reinterpret_cast<char*>(b), 4);
    header_length = b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t(b[3]) << 24);
  }
  std::string header(header_length, '\0');
  in.read(&header[0], header_length);
  if (!in) throw std::runtime_error(path + ": truncated header");
  const auto value_of = [&](const std::string& key) {
    const size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) throw std::runtime_error(path + ": no " + key);
    return header.substr(header.find(':', at) + 1);
  };
  std::string descr = value_of("descr");
  descr = descr.substr(descr.find('\'') + 1);
  descr = descr.substr(0, descr.find('\''));
  if (value_of("fortran_order").find("False") > 2)
    throw std::runtime_error(path + ": Fortran order");
  Array array;
  array.type = &type_by_descr(descr);
  std::string shape = value_of("shape");
  shape = shape.substr(shape.find('(') + 1, shape.find(')') - shape.find('(') - 1);
  std::stringstream dims(shape);
  std::string dim;
  size_t count = 1;
  while (std::getline(dims, dim, ',')) {
    if (dim.find_first_not_of(" ") == std::string::npos) continue;
    array.shape.push_back(std::stoll(dim));
    count *= size_t(array.shape.back());
  }
  array.data.resize(count * array.type->size);
  in.read(array.data.data(), std::streamsize(array.data.size()));
  if (!in) throw std::runtime_error(path + ": truncated data");
  return array;
}

void write_npy(const std::string& path, const ElementType& type, const std::vector<int64_t>& shape,
               const void* data, size_t bytes) {
  std::string dict =
      std::string("{'descr': '") + type.descr + "', 'fortran_order': False, 'shape': (";
  for (int64_t d : shape) dict += std::to_string(d) + ", ";
  dict += "), }";
  const size_t unpadded = 10 + dict.size() + 1;
  dict += std::string((64 - unpadded % 64) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  const uint16_t length = uint16_t(dict.size());
  out.write("\x93NUMPY\x01\x00", 8);
  const char length_bytes[2] = {char(length & 0xff), char(length >> 8)};
  out.write(length_bytes, 2);
  out.write(dict.data(), std::streamsize(dict.size()));
  out.write(static_cast<const char*>(data), std::streamsize(bytes));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string file_name_of(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '.' || c == '-';
    if (!keep) c = '_';
  }
  return out;
}

struct Options {
  std::string model;
  std::vector<std::string> custom_ops;
  int threads = 1;
  bool no_spinning = false;
  bool log_info = false;
  std::vector<std::pair<std::string, std::string>> config;
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string output_dir, profile, optimized;
  int repeat = 0;
  int concurrent = 0;
};

std::pair<std::string, std::string> split_pair(const std::string& text, const char* what) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw std::runtime_error(std::string(what) + " needs KEY=VALUE: " + text);
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--custom-ops")
      o.custom_ops.push_back(next());
    else if (a == "--threads")
      o.threads = std::stoi(next());
    else if (a == "--no-spinning")
      o.no_spinning = true;
    else if (a == "--log-info")
      o.log_info = true;
    else if (a == "--config")
      o.config.push_back(split_pair(next(), "--config"));
    else if (a == "--x64-exact")
      o.config.emplace_back("session.x64quantprecision", "1");
    else if (a == "--input")
      o.inputs.push_back(split_pair(next(), "--input"));
    else if (a == "--output-dir")
      o.output_dir = next();
    else if (a == "--repeat")
      o.repeat = std::stoi(next());
    else if (a == "--profile")
      o.profile = next();
    else if (a == "--optimized")
      o.optimized = next();
    else if (a == "--concurrent")
      o.concurrent = std::stoi(next());
    else if (!a.empty() && a[0] != '-' && o.model.empty())
      o.model = a;
    else
      throw std::runtime_error("unknown argument " + a);
  }
  if (o.model.empty())
    throw std::runtime_error("usage: qwino-ort-run MODEL.onnx [options] (see the source's header)");
  if (o.threads < 1) throw std::runtime_error("--threads must be >= 1");
  return o;
}

int run(const Options& o) {
  OrtEnv* env = nullptr;
  check(api->CreateEnv(o.log_info ? ORT_LOGGING_LEVEL_INFO : ORT_LOGGING_LEVEL_WARNING,
                       "qwino-ort-run", &env));
  OrtSessionOptions* options = nullptr;
  check(api->CreateSessionOptions(&options));
  check(api->SetIntraOpNumThreads(options, o.threads));
  check(api->AddSessionConfigEntry(options, "qwino.intra_op_num_threads",
                                   std::to_string(o.threads).c_str()));
  if (o.log_info) check(api->SetSessionLogSeverityLevel(options, ORT_LOGGING_LEVEL_INFO));
  if (o.no_spinning)
    check(api->AddSessionConfigEntry(options, "session.intra_op.allow_spinning", "0"));
  for (const auto& kv : o.config)
    check(api->AddSessionConfigEntry(options, kv.first.c_str(), kv.second.c_str()));
  check(api->SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL));
  if (!o.optimized.empty()) check(api->SetOptimizedModelFilePath(options, o.optimized.c_str()));
  if (!o.profile.empty()) check(api->EnableProfiling(options, o.profile.c_str()));
  for (const std::string& lib : o.custom_ops)
    check(api->RegisterCustomOpsLibrary_V2(options, lib.c_str()));

  OrtSession* session = nullptr;
  check(api->CreateSession(env, o.model.c_str(), options, &session));
  OrtAllocator* allocator = nullptr;
  check(api->GetAllocatorWithDefaultOptions(&allocator));

  size_t input_count = 0, output_count = 0;
  check(api->SessionGetInputCount(session, &input_count));
  check(api->SessionGetOutputCount(session, &output_count));
  std::vector<std::string> input_names(input_count), output_names(output_count);
  for (size_t i = 0; i < input_count; i++) {
    char* name = nullptr;
    check(api->SessionGetInputName(session, i, allocator, &name));
    input_names[i] = name;
    check(api->AllocatorFree(allocator, name));
  }
  for (size_t i = 0; i < output_count; i++) {
    char* name = nullptr;
    check(api->SessionGetOutputName(session, i, allocator, &name));
    output_names[i] = name;
    check(api->AllocatorFree(allocator, name));
  }

  OrtMemoryInfo* memory_info = nullptr;
  check(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &memory_info));
  std::vector<Array> arrays(input_count);
  std::vector<OrtValue*> inputs(input_count, nullptr);
  for (size_t i = 0; i < input_count; i++) {
    const auto it = std::find_if(
        o.inputs.begin(), o.inputs.end(),
        [&](const std::pair<std::string, std::string>& kv) { return kv.first == input_names[i]; });
    if (it == o.inputs.end())
      throw std::runtime_error("no --input for graph input " + input_names[i]);
    arrays[i] = read_npy(it->second);
    check(api->CreateTensorWithDataAsOrtValue(
        memory_info, arrays[i].data.data(), arrays[i].data.size(), arrays[i].shape.data(),
        arrays[i].shape.size(), arrays[i].type->onnx, &inputs[i]));
  }
  std::vector<const char*> input_ptrs, output_ptrs;
  for (const std::string& n : input_names) input_ptrs.push_back(n.c_str());
  for (const std::string& n : output_names) output_ptrs.push_back(n.c_str());

  std::vector<OrtValue*> outputs(output_count, nullptr);
  const auto run_once = [&]() {
    for (OrtValue*& v : outputs) {
      if (v != nullptr) api->ReleaseValue(v);
      v = nullptr;
    }
    check(api->Run(session, nullptr, input_ptrs.data(), inputs.data(), input_count,
                   output_ptrs.data(), output_count, outputs.data()));
  };
  run_once();
  if (o.repeat > 0) {
    std::vector<double> times;
    for (int r = 0; r < o.repeat; r++) {
      const auto start = std::chrono::steady_clock::now();
      run_once();
      times.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
    }
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    std::printf("median_ms %.4f\nruns_ms ", median);
    for (size_t r = 0; r < n; r++) std::printf("%s%.4f", r ? "," : "", times[r]);
    std::printf("\n");
  }

  if (o.concurrent > 0) {
    const auto bytes_of = [&](OrtValue* value) {
      OrtTensorTypeAndShapeInfo* info = nullptr;
      check(api->GetTensorTypeAndShape(value, &info));
      ONNXTensorElementDataType type;
      size_t count = 0;
      check(api->GetTensorElementType(info, &type));
      check(api->GetTensorShapeElementCount(info, &count));
      api->ReleaseTensorTypeAndShapeInfo(info);
      const void* data = nullptr;
      check(api->GetTensorData(value, &data));
      const char* begin = static_cast<const char*>(data);
      return std::string(begin, begin + count * type_by_onnx(type).size);
    };
    std::vector<std::string> expected;
    for (OrtValue* v : outputs) expected.push_back(bytes_of(v));
    std::vector<std::string> errors(size_t(o.concurrent));
    std::vector<std::thread> threads;
    for (int t = 0; t < o.concurrent; t++) {
      threads.emplace_back([&, t]() {
        std::vector<OrtValue*> mine(output_count, nullptr);
        try {
          for (int r = 0; r < 4; r++) {
            check(api->Run(session, nullptr, input_ptrs.data(), inputs.data(), input_count,
                           output_ptrs.data(), output_count, mine.data()));
            for (size_t i = 0; i < output_count; i++) {
              if (bytes_of(mine[i]) != expected[i])
                errors[t] = "output " + output_names[i] + " differs";
              api->ReleaseValue(mine[i]);
              mine[i] = nullptr;
            }
          }
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (const std::string& e : errors) {
      if (!e.empty()) throw std::runtime_error("concurrent runs: " + e);
    }
    std::printf("concurrent %d: identical\n", o.concurrent);
  }

  if (!o.output_dir.empty()) {
    mkdir(o.output_dir.c_str(), 0777);  // an existing folder is fine; a failure shows at the write
    for (size_t i = 0; i < output_count; i++) {
      OrtTensorTypeAndShapeInfo* info = nullptr;
      check(api->GetTensorTypeAndShape(outputs[i], &info));
      ONNXTensorElementDataType type;
      size_t rank = 0, count = 0;
      check(api->GetTensorElementType(info, &type));
      check(api->GetDimensionsCount(info, &rank));
      std::vector<int64_t> shape(rank);
      check(api->GetDimensions(info, shape.data(), rank));
      check(api->GetTensorShapeElementCount(info, &count));
      api->ReleaseTensorTypeAndShapeInfo(info);
      const ElementType& et = type_by_onnx(type);
      const void* data = nullptr;
      check(api->GetTensorData(outputs[i], &data));
      write_npy(o.output_dir + "/" + file_name_of(output_names[i]) + ".npy", et, shape, data,
                count * et.size);
    }
  }
  if (!o.profile.empty()) {
    char* path = nullptr;
    check(api->SessionEndProfiling(session, allocator, &path));
    std::printf("profile %s\n", path);
    check(api->AllocatorFree(allocator, path));
  }

  for (OrtValue* v : outputs) {
    if (v != nullptr) api->ReleaseValue(v);
  }
  for (OrtValue* v : inputs) api->ReleaseValue(v);
  api->ReleaseMemoryInfo(memory_info);
  api->ReleaseSession(session);
  api->ReleaseSessionOptions(options);
  api->ReleaseEnv(env);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  if (api == nullptr) {
    std::fprintf(stderr, "qwino-ort-run: this ONNX Runtime does not offer C API version %d\n",
                 ORT_API_VERSION);
    return 1;
  }
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "qwino-ort-run: %s\n", e.what());
    return 1;
  }
}
