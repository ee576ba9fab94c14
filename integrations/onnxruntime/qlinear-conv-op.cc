// qwino inside ONNX Runtime: a custom-op library with ORT's standard entry point
// RegisterCustomOps, registering QLinearConv in the domain "qwino".
//
// The op is ONNX's QLinearConv (same inputs, attributes and arithmetic) with x and y in NHWC
// instead of NCHW; w stays in ONNX's [M][C/group][kH][kW] layout. qwino_rewrite.py puts
// Transpose pairs around it, which ORT's transpose optimizer cancels between consecutive
// convolutions. It computes in qwino's fp32 requantization mode, which is ORT's own QLinearConv
// arithmetic (float32 scale x_scale * w_scale / y_scale, one multiply, round half to even), so the
// bytes are ORT's.
//
// Life cycle: the kernel (one per node and session) reads the weights, scales, zero points and
// bias, which must be constant initializers, and creates the qwino operator once at session
// creation; anything qwino cannot take fails there, with the node's name and the reason, never
// at run time with other bytes. Compute sets the operator up again only when the input shape or
// the input/output addresses change (ORT's memory planner normally hands the same ones every run),
// then runs it. SAME_UPPER/SAME_LOWER with a stride above 1 pad by the input size's remainder; the
// operator is re-created when that padding changes, from a copy of the reordered weights kept for
// that case only.
//
// Threads: qwino's tasks run on ORT's own intra-op pool (KernelContext_ParallelFor, through
// qwino_run_operator_parallel_for), so one pool serves the whole graph, spinning or not, and no
// second set of workers competes for the cores. The number of tasks is the session's config entry
// "qwino.intra_op_num_threads", else 1: a custom op cannot read ORT's own thread count (ORT 1.30
// keeps SetIntraOpNumThreads, and a "session.intra_op_num_threads" entry, out of the config
// entries a kernel sees), so sessions set both to the same number. qwino sizes an operator's
// scratch at setup by a pthreadpool's thread count; the op passes it a pool of that many threads,
// one per thread count, shared by every qwino node of the process, which only counts: its
// workers sleep from their creation on (bench/onnxruntime-models.py; doc/PERFORMANCE.md).

#include <onnxruntime_c_api.h>
#include <pthreadpool.h>
#include <qwino.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace {

const OrtApi* g_api = nullptr;

constexpr const char* kDomain = "qwino";
constexpr const char* kOpName = "QLinearConv";

enum Input : size_t {
  kX = 0,
  kXScale,
  kXZeroPoint,
  kW,
  kWScale,
  kWZeroPoint,
  kYScale,
  kYZeroPoint,
  kBias,
  kInputCount
};

// An error status carrying a message; ORT takes ownership.
class Failure {
 public:
  explicit Failure(std::string message) : message_(std::move(message)) {}
  OrtStatus* status(const std::string& node) const {
    const std::string text = "qwino.QLinearConv '" + node + "': " + message_;
    return g_api->CreateStatus(ORT_INVALID_ARGUMENT, text.c_str());
  }
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

// Turns an ORT status into a Failure (and releases the status).
void check_ort(OrtStatus* status, const char* what) {
  if (status == nullptr) return;
  std::string message = std::string(what) + ": " + g_api->GetErrorMessage(status);
  g_api->ReleaseStatus(status);
  throw Failure(message);
}

const char* status_name(qwino_status status) {
  switch (status) {
    case qwino_status_success:
      return "success";
    case qwino_status_uninitialized:
      return "uninitialized";
    case qwino_status_invalid_parameter:
      return "invalid parameter";
    case qwino_status_unsupported_parameter:
      return "unsupported parameter (e.g. a requantization scale above 256)";
    case qwino_status_unsupported_hardware:
      return "unsupported hardware";
    case qwino_status_out_of_memory:
      return "out of memory";
    case qwino_status_invalid_state:
      return "invalid state";
  }
  return "unknown status";
}

void check_qwino(qwino_status status, const char* what) {
  if (status != qwino_status_success)
    throw Failure(std::string(what) + " failed: " + status_name(status));
}

// qwino's tasks on ORT's intra-op pool (KernelContext_ParallelFor takes the same task shape as
// qwino_parallel_for_fn): qwino and ORT then never have workers of two pools on the same cores.
struct OrtParallelFor {
  OrtKernelContext* context;
  OrtStatus* status = nullptr;

  static void call(void* self_pointer, qwino_task_fn task, void* task_context, size_t count) {
    auto* self = static_cast<OrtParallelFor*>(self_pointer);
    self->status = g_api->KernelContext_ParallelFor(self->context, task, count, 0, task_context);
  }
};

// --- The shared thread pools ------------------------------------------------------------------

class SharedPools {
 public:
  static pthreadpool_t acquire(size_t threads) {
    std::lock_guard<std::mutex> lock(mutex());
    Entry& entry = pools()[threads];
    if (entry.pool == nullptr) {
      entry.pool = pthreadpool_create(threads);
      if (entry.pool == nullptr) throw Failure("pthreadpool_create failed");
    }
    entry.users++;
    return entry.pool;
  }
  static void release(size_t threads) {
    std::lock_guard<std::mutex> lock(mutex());
    auto it = pools().find(threads);
    if (it == pools().end() || --it->second.users > 0) return;
    pthreadpool_destroy(it->second.pool);
    pools().erase(it);
  }

 private:
  struct Entry {
    pthreadpool_t pool = nullptr;
    size_t users = 0;
  };
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::map<size_t, Entry>& pools() {
    static std::map<size_t, Entry> p;
    return p;
  }
};

// --- Reading the node -------------------------------------------------------------------------

struct ConstantTensor {
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  std::vector<int64_t> shape;
  size_t count = 0;
  const void* data = nullptr;
};

ConstantTensor constant_input(const OrtKernelInfo* info, size_t index, const char* name) {
  int is_constant = 0;
  const OrtValue* value = nullptr;
  check_ort(g_api->KernelInfoGetConstantInput_tensor(info, index, &is_constant, &value), name);
  if (!is_constant || value == nullptr) {
    throw Failure(std::string(name) + " must be a constant initializer");
  }
  ConstantTensor tensor;
  OrtTensorTypeAndShapeInfo* shape_info = nullptr;
  check_ort(g_api->GetTensorTypeAndShape(value, &shape_info), name);
  size_t rank = 0;
  OrtStatus* status = g_api->GetTensorElementType(shape_info, &tensor.type);
  if (status == nullptr) status = g_api->GetDimensionsCount(shape_info, &rank);
  if (status == nullptr) {
    tensor.shape.resize(rank);
    status = g_api->GetDimensions(shape_info, tensor.shape.data(), rank);
  }
  if (status == nullptr) status = g_api->GetTensorShapeElementCount(shape_info, &tensor.count);
  g_api->ReleaseTensorTypeAndShapeInfo(shape_info);
  check_ort(status, name);
  check_ort(g_api->GetTensorData(value, &tensor.data), name);
  return tensor;
}

ONNXTensorElementDataType input_element_type(const OrtKernelInfo* info, size_t index) {
  OrtTypeInfo* type_info = nullptr;
  check_ort(g_api->KernelInfo_GetInputTypeInfo(info, index, &type_info), "input type");
  const OrtTensorTypeAndShapeInfo* tensor_info = nullptr;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  OrtStatus* status = g_api->CastTypeInfoToTensorInfo(type_info, &tensor_info);
  if (status == nullptr && tensor_info != nullptr)
    status = g_api->GetTensorElementType(tensor_info, &type);
  g_api->ReleaseTypeInfo(type_info);
  check_ort(status, "input type");
  return type;
}

// Attributes read from a node at kernel creation (OrtKernelInfo); absent ones give the fallback.
struct KernelAttributes {
  const OrtKernelInfo* info;
  std::vector<int64_t> ints(const char* name) const {
    size_t size = 0;
    OrtStatus* status = g_api->KernelInfoGetAttributeArray_int64(info, name, nullptr, &size);
    if (status != nullptr) {
      g_api->ReleaseStatus(status);
      return {};
    }
    std::vector<int64_t> values(size);
    check_ort(g_api->KernelInfoGetAttributeArray_int64(info, name, values.data(), &size), name);
    return values;
  }
  int64_t integer(const char* name, int64_t fallback) const {
    int64_t value = fallback;
    OrtStatus* status = g_api->KernelInfoGetAttribute_int64(info, name, &value);
    if (status != nullptr) {
      g_api->ReleaseStatus(status);
      return fallback;
    }
    return value;
  }
  std::string text(const char* name, const char* fallback) const {
    size_t size = 0;
    OrtStatus* status = g_api->KernelInfoGetAttribute_string(info, name, nullptr, &size);
    if (status != nullptr) {
      g_api->ReleaseStatus(status);
      return fallback;
    }
    std::string value(size, '\0');
    check_ort(g_api->KernelInfoGetAttribute_string(info, name, &value[0], &size), name);
    value.resize(std::strlen(value.c_str()));
    return value;
  }
};

// The same attributes read during ORT's shape inference (OrtShapeInferContext).
struct InferenceAttributes {
  const OrtShapeInferContext* context;
  const OrtOpAttr* find(const char* name) const {
    const OrtOpAttr* attr = nullptr;
    OrtStatus* status = g_api->ShapeInferContext_GetAttribute(context, name, &attr);
    if (status != nullptr) {
      g_api->ReleaseStatus(status);
      return nullptr;
    }
    return attr;
  }
  std::vector<int64_t> ints(const char* name) const {
    const OrtOpAttr* attr = find(name);
    if (attr == nullptr) return {};
    size_t bytes = 0;
    OrtStatus* status = g_api->ReadOpAttr(attr, ORT_OP_ATTR_INTS, nullptr, 0, &bytes);
    if (status != nullptr) g_api->ReleaseStatus(status);
    std::vector<int64_t> values(bytes / sizeof(int64_t));
    check_ort(g_api->ReadOpAttr(attr, ORT_OP_ATTR_INTS, values.data(), bytes, &bytes), name);
    return values;
  }
  int64_t integer(const char* name, int64_t fallback) const {
    const OrtOpAttr* attr = find(name);
    if (attr == nullptr) return fallback;
    int64_t value = fallback;
    size_t bytes = 0;
    check_ort(g_api->ReadOpAttr(attr, ORT_OP_ATTR_INT, &value, sizeof(value), &bytes), name);
    return value;
  }
  std::string text(const char* name, const char* fallback) const {
    const OrtOpAttr* attr = find(name);
    if (attr == nullptr) return fallback;
    size_t bytes = 0;
    OrtStatus* status = g_api->ReadOpAttr(attr, ORT_OP_ATTR_STRING, nullptr, 0, &bytes);
    if (status != nullptr) g_api->ReleaseStatus(status);
    std::string value(bytes, '\0');
    check_ort(g_api->ReadOpAttr(attr, ORT_OP_ATTR_STRING, &value[0], bytes, &bytes), name);
    value.resize(std::strlen(value.c_str()));
    return value;
  }
};

enum class AutoPad { kNotSet, kValid, kSameUpper, kSameLower };

// The convolution's spatial geometry: ONNX's attributes checked against the weights' shape.
struct Geometry {
  int64_t groups = 1, kernel_h = 0, kernel_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1,
          dilation_w = 1;
  std::array<int64_t, 4> pads{};  // ONNX's order: top, left, bottom, right
  AutoPad auto_pad = AutoPad::kNotSet;

  // weight_shape: [M][C/group][kH][kW].
  template <class Attributes>
  static Geometry read(const Attributes& attributes, const std::vector<int64_t>& weight_shape) {
    Geometry g;
    if (weight_shape.size() != 4) throw Failure("only 2-D convolutions (4-D weights)");
    g.groups = attributes.integer("group", 1);
    if (g.groups < 1 || weight_shape[0] % g.groups != 0)
      throw Failure("group must divide the output channels");
    g.kernel_h = weight_shape[2];
    g.kernel_w = weight_shape[3];
    const std::vector<int64_t> kernel_shape = attributes.ints("kernel_shape");
    if (!kernel_shape.empty() && (kernel_shape.size() != 2 || kernel_shape[0] != g.kernel_h ||
                                  kernel_shape[1] != g.kernel_w)) {
      throw Failure("kernel_shape does not match the weights");
    }
    const std::vector<int64_t> strides = attributes.ints("strides");
    const std::vector<int64_t> dilations = attributes.ints("dilations");
    const std::vector<int64_t> pads = attributes.ints("pads");
    if ((!strides.empty() && strides.size() != 2) ||
        (!dilations.empty() && dilations.size() != 2) || (!pads.empty() && pads.size() != 4)) {
      throw Failure("strides, dilations and pads must describe 2 spatial axes");
    }
    if (!strides.empty()) g.stride_h = strides[0], g.stride_w = strides[1];
    if (!dilations.empty()) g.dilation_h = dilations[0], g.dilation_w = dilations[1];
    for (int64_t v : {g.stride_h, g.stride_w, g.dilation_h, g.dilation_w}) {
      if (v < 1 || v > 65535) throw Failure("strides and dilations must be in [1, 65535]");
    }
    for (size_t i = 0; i < 4; i++) {
      g.pads[i] = pads.empty() ? 0 : pads[i];
      if (g.pads[i] < 0 || g.pads[i] > 65535) throw Failure("pads must be in [0, 65535]");
    }
    const std::string auto_pad = attributes.text("auto_pad", "NOTSET");
    if (auto_pad == "NOTSET")
      g.auto_pad = AutoPad::kNotSet;
    else if (auto_pad == "VALID")
      g.auto_pad = AutoPad::kValid;
    else if (auto_pad == "SAME_UPPER")
      g.auto_pad = AutoPad::kSameUpper;
    else if (auto_pad == "SAME_LOWER")
      g.auto_pad = AutoPad::kSameLower;
    else
      throw Failure("unknown auto_pad " + auto_pad);
    return g;
  }

  // Without SAME and a stride above 1, the padding does not depend on the input size.
  bool padding_depends_on_input() const {
    return (auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower) &&
           (stride_h > 1 || stride_w > 1);
  }

  // ONNX's order: [top, left, bottom, right].
  std::array<int64_t, 4> padding_for(int64_t height, int64_t width) const {
    const auto axis = [this](int64_t begin, int64_t end, int64_t input, int64_t kernel,
                             int64_t stride, int64_t dilation) -> std::pair<int64_t, int64_t> {
      if (auto_pad == AutoPad::kNotSet) return {begin, end};
      if (auto_pad == AutoPad::kValid) return {0, 0};
      const int64_t output = (input + stride - 1) / stride;
      const int64_t total =
          std::max<int64_t>(0, (output - 1) * stride + (kernel - 1) * dilation + 1 - input);
      const int64_t small = total / 2;  // SAME_UPPER puts the odd row or column at the end
      return auto_pad == AutoPad::kSameUpper ? std::make_pair(small, total - small)
                                             : std::make_pair(total - small, small);
    };
    const auto rows = axis(pads[0], pads[2], height, kernel_h, stride_h, dilation_h);
    const auto cols = axis(pads[1], pads[3], width, kernel_w, stride_w, dilation_w);
    return {rows.first, cols.first, rows.second, cols.second};
  }

  // Output height and width for this input size; -1 where the input is smaller than the kernel.
  std::pair<int64_t, int64_t> output_size(int64_t height, int64_t width) const {
    const std::array<int64_t, 4> p = padding_for(height, width);
    const auto axis = [](int64_t input, int64_t padding, int64_t kernel, int64_t stride,
                         int64_t dilation) {
      const int64_t reach = (kernel - 1) * dilation + 1;
      const int64_t padded = input + padding;
      return padded < reach ? int64_t(-1) : (padded - reach) / stride + 1;
    };
    return {axis(height, p[0] + p[2], kernel_h, stride_h, dilation_h),
            axis(width, p[1] + p[3], kernel_w, stride_w, dilation_w)};
  }
};

std::string node_name(const OrtKernelInfo* info) {
  size_t size = 0;
  if (OrtStatus* status = g_api->KernelInfo_GetNodeName(info, nullptr, &size)) {
    g_api->ReleaseStatus(status);
    return "?";
  }
  std::string name(size, '\0');
  if (OrtStatus* status = g_api->KernelInfo_GetNodeName(info, &name[0], &size)) {
    g_api->ReleaseStatus(status);
    return "?";
  }
  name.resize(std::strlen(name.c_str()));
  return name;
}

size_t configured_threads(const OrtKernelInfo* info) {
  OrtKeyValuePairs* entries = nullptr;
  check_ort(g_api->KernelInfo_GetConfigEntries(info, &entries), "config entries");
  size_t threads = 1;
  const char* value = g_api->GetKeyValue(entries, "qwino.intra_op_num_threads");
  if (value != nullptr) {
    char* end = nullptr;
    const long parsed = std::strtol(value, &end, 10);
    const bool valid = end != value && *end == '\0' && parsed >= 1 && parsed <= 1024;
    if (!valid) {
      const std::string message =
          std::string("qwino.intra_op_num_threads '") + value + "' is not a count in [1, 1024]";
      g_api->ReleaseKeyValuePairs(entries);
      throw Failure(message);
    }
    threads = size_t(parsed);
  }
  g_api->ReleaseKeyValuePairs(entries);
  return threads;
}

// --- The kernel -------------------------------------------------------------------------------

class QLinearConvKernel {
 public:
  explicit QLinearConvKernel(const OrtKernelInfo* info) : name_(node_name(info)) {
    try {
      read_node(info);
      threads_ = configured_threads(info);
      pool_ = SharedPools::acquire(threads_);
      if (!geometry_.padding_depends_on_input()) {
        create_operator(geometry_.padding_for(1, 1));
        kernel_.clear();
        kernel_.shrink_to_fit();
      }
      log_created(info);
    } catch (...) {
      release();
      throw;
    }
  }
  ~QLinearConvKernel() { release(); }

  // One INFO line per node on the session's logger, which tells a user (and test.sh) the thread
  // count and algorithm each node got.
  void log_created(const OrtKernelInfo* info) const {
    const OrtLogger* logger = nullptr;
    OrtLoggingLevel level = ORT_LOGGING_LEVEL_FATAL;
    if (OrtStatus* status = g_api->KernelInfo_GetLogger(info, &logger)) {
      g_api->ReleaseStatus(status);
      return;
    }
    if (OrtStatus* status = g_api->Logger_GetLoggingSeverityLevel(logger, &level)) {
      g_api->ReleaseStatus(status);
      return;
    }
    if (level > ORT_LOGGING_LEVEL_INFO) return;
    const std::string message =
        "qwino.QLinearConv '" + name_ + "': " + std::to_string(threads_) +
        " thread(s), algorithm " +
        (op_ != nullptr ? qwino_algorithm_name(qwino_operator_algorithm(op_))
                        : "chosen at the first run");
    if (OrtStatus* status =
            g_api->Logger_LogMessage(logger, ORT_LOGGING_LEVEL_INFO, message.c_str(),
                                     ORT_TSTR(__FILE__), __LINE__, __func__)) {
      g_api->ReleaseStatus(status);
    }
  }

  const std::string& name() const { return name_; }

  // ORT may run one session from several threads at once, and so this node: a qwino operator
  // serves one setup or run at a time, so concurrent runs of the node take turns.
  void compute(OrtKernelContext* context) {
    std::lock_guard<std::mutex> lock(mutex_);
    const OrtValue* x = nullptr;
    check_ort(g_api->KernelContext_GetInput(context, kX, &x), "x");
    OrtTensorTypeAndShapeInfo* shape_info = nullptr;
    check_ort(g_api->GetTensorTypeAndShape(x, &shape_info), "x");
    size_t rank = 0;
    std::array<int64_t, 4> shape{};
    OrtStatus* status = g_api->GetDimensionsCount(shape_info, &rank);
    if (status == nullptr && rank == 4) status = g_api->GetDimensions(shape_info, shape.data(), 4);
    g_api->ReleaseTensorTypeAndShapeInfo(shape_info);
    check_ort(status, "x shape");
    if (rank != 4) throw Failure("x must be 4-D NHWC, got rank " + std::to_string(rank));
    const int64_t batch = shape[0], height = shape[1], width = shape[2];
    if (shape[3] != geometry_.groups * group_input_channels_) {
      throw Failure("x has " + std::to_string(shape[3]) + " channels, the weights take " +
                    std::to_string(geometry_.groups * group_input_channels_));
    }
    const std::array<int64_t, 4> padding = geometry_.padding_for(height, width);
    const std::pair<int64_t, int64_t> output_size = geometry_.output_size(height, width);
    const int64_t output_h = output_size.first, output_w = output_size.second;
    if (output_h < 0 || output_w < 0) throw Failure("the input is smaller than the kernel's reach");

    const int64_t output_shape[4] = {batch, output_h, output_w,
                                     geometry_.groups * group_output_channels_};
    OrtValue* y = nullptr;
    check_ort(g_api->KernelContext_GetOutput(context, 0, output_shape, 4, &y), "y");
    if (batch == 0 || output_h == 0 || output_w == 0) return;

    if (op_ == nullptr || padding != operator_padding_) {
      create_operator(padding);
      set_up_ = false;
    }
    const void* x_data = nullptr;
    void* y_data = nullptr;
    check_ort(g_api->GetTensorData(x, &x_data), "x data");
    check_ort(g_api->GetTensorMutableData(y, &y_data), "y data");
    const std::array<int64_t, 3> sizes{batch, height, width};
    if (!set_up_ || sizes != setup_sizes_ || x_data != setup_x_ || y_data != setup_y_) {
      const size_t input_stride = size_t(shape[3]);
      const size_t output_stride = size_t(output_shape[3]);
      qwino_status result;
      if (int8_activations_) {
        result = qwino_setup_convolution2d_nhwc_qs8(
            op_, size_t(batch), size_t(height), size_t(width), static_cast<const int8_t*>(x_data),
            input_stride, static_cast<int8_t*>(y_data), output_stride, pool_);
      } else {
        result = qwino_setup_convolution2d_nhwc_qu8(
            op_, size_t(batch), size_t(height), size_t(width), static_cast<const uint8_t*>(x_data),
            input_stride, static_cast<uint8_t*>(y_data), output_stride, pool_);
      }
      set_up_ = false;
      check_qwino(result, "qwino setup");
      set_up_ = true;
      setup_sizes_ = sizes;
      setup_x_ = x_data;
      setup_y_ = y_data;
    }
    OrtParallelFor parallel_for{context};
    const qwino_status result =
        qwino_run_operator_parallel_for(op_, OrtParallelFor::call, &parallel_for);
    check_ort(parallel_for.status, "ORT's parallel-for");
    check_qwino(result, "qwino run");
  }

 private:
  void read_node(const OrtKernelInfo* info) {
    const ONNXTensorElementDataType x_type = input_element_type(info, kX);
    if (x_type != ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 &&
        x_type != ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8) {
      throw Failure("x must be uint8 or int8");
    }
    int8_activations_ = x_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;

    const ConstantTensor w = constant_input(info, kW, "w");
    const ConstantTensor x_scale = constant_input(info, kXScale, "x_scale");
    const ConstantTensor x_zero_point = constant_input(info, kXZeroPoint, "x_zero_point");
    const ConstantTensor w_scale = constant_input(info, kWScale, "w_scale");
    const ConstantTensor w_zero_point = constant_input(info, kWZeroPoint, "w_zero_point");
    const ConstantTensor y_scale = constant_input(info, kYScale, "y_scale");
    const ConstantTensor y_zero_point = constant_input(info, kYZeroPoint, "y_zero_point");

    geometry_ = Geometry::read(KernelAttributes{info}, w.shape);
    for (int64_t d : w.shape) {
      if (d <= 0 || d > (int64_t(1) << 30)) throw Failure("weight dimensions must be positive");
    }
    const int64_t output_channels = w.shape[0];
    group_input_channels_ = w.shape[1];
    group_output_channels_ = output_channels / geometry_.groups;

    const auto scalar_float = [](const ConstantTensor& t, const char* name) {
      if (t.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || t.count != 1) {
        throw Failure(std::string(name) + " must be one float");
      }
      return *static_cast<const float*>(t.data);
    };
    const auto zero_point = [x_type](const ConstantTensor& t, const char* name) -> int32_t {
      if (t.type != x_type || t.count != 1)
        throw Failure(std::string(name) + " must be one value of x's type");
      return x_type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8
                 ? int32_t(*static_cast<const int8_t*>(t.data))
                 : int32_t(*static_cast<const uint8_t*>(t.data));
    };
    input_scale_ = scalar_float(x_scale, "x_scale");
    output_scale_ = scalar_float(y_scale, "y_scale");
    input_zero_point_ = zero_point(x_zero_point, "x_zero_point");
    output_zero_point_ = zero_point(y_zero_point, "y_zero_point");

    if (w_scale.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT ||
        (w_scale.count != 1 && w_scale.count != size_t(output_channels))) {
      throw Failure("w_scale must be float, one per tensor or one per output channel");
    }
    if (w_zero_point.type != w.type ||
        (w_zero_point.count != 1 && w_zero_point.count != size_t(output_channels))) {
      throw Failure("w_zero_point must have w's type, one per tensor or one per output channel");
    }
    const float* scales = static_cast<const float*>(w_scale.data);
    kernel_scales_.resize(size_t(output_channels));
    for (int64_t m = 0; m < output_channels; m++)
      kernel_scales_[m] = scales[w_scale.count == 1 ? 0 : m];

    if (w.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8) {
      const int8_t* zps = static_cast<const int8_t*>(w_zero_point.data);
      for (size_t i = 0; i < w_zero_point.count; i++) {
        if (zps[i] != 0) throw Failure("int8 weights need zero point 0 (symmetric)");
      }
      uint8_weights_ = false;
    } else if (w.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8) {
      if (int8_activations_) throw Failure("int8 activations take int8 weights only");
      const uint8_t* zps = static_cast<const uint8_t*>(w_zero_point.data);
      for (size_t i = 1; i < w_zero_point.count; i++) {
        if (zps[i] != zps[0]) throw Failure("uint8 weights need one zero point per tensor");
      }
      for (float s : kernel_scales_) {
        if (s != kernel_scales_[0]) throw Failure("uint8 weights need one scale per tensor");
      }
      kernel_zero_point_ = zps[0];
      uint8_weights_ = true;
    } else {
      throw Failure("w must be int8 or uint8");
    }

    bias_.clear();
    size_t input_count = 0;
    check_ort(g_api->KernelInfo_GetInputCount(info, &input_count), "input count");
    if (input_count > kBias) {
      const ConstantTensor bias = constant_input(info, kBias, "B");
      if (bias.type != ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 ||
          bias.count != size_t(output_channels)) {
        throw Failure("B must be int32, one per output channel");
      }
      const int32_t* b = static_cast<const int32_t*>(bias.data);
      bias_.assign(b, b + output_channels);
    }

    // [M][C/group][kH][kW] -> qwino's [group][M/group][kH][kW][C/group] (M is group-major in both).
    const size_t cg = size_t(group_input_channels_), kh = size_t(geometry_.kernel_h),
                 kw = size_t(geometry_.kernel_w);
    kernel_.resize(size_t(output_channels) * cg * kh * kw);
    const uint8_t* src = static_cast<const uint8_t*>(w.data);
    for (size_t m = 0; m < size_t(output_channels); m++) {
      for (size_t c = 0; c < cg; c++) {
        for (size_t y = 0; y < kh; y++) {
          for (size_t x = 0; x < kw; x++) {
            kernel_[((m * kh + y) * kw + x) * cg + c] = src[((m * cg + c) * kh + y) * kw + x];
          }
        }
      }
    }
  }

  // padding: ONNX's order, [top, left, bottom, right].
  void create_operator(const std::array<int64_t, 4>& padding) {
    if (op_ != nullptr) {
      qwino_delete_operator(op_);
      op_ = nullptr;
    }
    const uint32_t top = uint32_t(padding[0]), left = uint32_t(padding[1]);
    const uint32_t bottom = uint32_t(padding[2]), right = uint32_t(padding[3]);
    const int32_t* bias = bias_.empty() ? nullptr : bias_.data();
    const uint32_t flags = QWINO_FLAG_REQUANTIZE_FP32;
    qwino_operator_t op = nullptr;
    qwino_status status;
#define QWINO_GEOMETRY                                                                            \
  top, right, bottom, left, uint32_t(geometry_.kernel_h), uint32_t(geometry_.kernel_w),           \
      uint32_t(geometry_.stride_h), uint32_t(geometry_.stride_w), uint32_t(geometry_.dilation_h), \
      uint32_t(geometry_.dilation_w), uint32_t(geometry_.groups), size_t(group_input_channels_),  \
      size_t(group_output_channels_)
    if (uint8_weights_) {
      status = qwino_create_convolution2d_nhwc_qu8(
          QWINO_GEOMETRY, uint8_t(input_zero_point_), input_scale_, uint8_t(kernel_zero_point_),
          kernel_scales_[0], kernel_.data(), bias, uint8_t(output_zero_point_), output_scale_, 0,
          255, flags, &op);
    } else if (int8_activations_) {
      status = qwino_create_convolution2d_nhwc_qs8_qc8w(
          QWINO_GEOMETRY, int8_t(input_zero_point_), input_scale_, kernel_scales_.data(),
          reinterpret_cast<const int8_t*>(kernel_.data()), bias, int8_t(output_zero_point_),
          output_scale_, -128, 127, flags, &op);
    } else {
      status = qwino_create_convolution2d_nhwc_qu8_qc8w(
          QWINO_GEOMETRY, uint8_t(input_zero_point_), input_scale_, kernel_scales_.data(),
          reinterpret_cast<const int8_t*>(kernel_.data()), bias, uint8_t(output_zero_point_),
          output_scale_, 0, 255, flags, &op);
    }
#undef QWINO_GEOMETRY
    check_qwino(status, "qwino create");
    op_ = op;
    operator_padding_ = padding;
  }

  void release() {
    if (op_ != nullptr) qwino_delete_operator(op_);
    op_ = nullptr;
    if (pool_ != nullptr) SharedPools::release(threads_);
    pool_ = nullptr;
  }

  std::string name_;
  std::mutex mutex_;
  bool int8_activations_ = false;
  bool uint8_weights_ = false;
  Geometry geometry_;
  int64_t group_input_channels_ = 0, group_output_channels_ = 0;
  float input_scale_ = 0, output_scale_ = 0;
  int32_t input_zero_point_ = 0, output_zero_point_ = 0, kernel_zero_point_ = 0;
  std::vector<float> kernel_scales_;
  std::vector<int32_t> bias_;
  std::vector<uint8_t> kernel_;  // reordered; kept only while the padding depends on the input

  size_t threads_ = 1;
  pthreadpool_t pool_ = nullptr;
  qwino_operator_t op_ = nullptr;
  std::array<int64_t, 4> operator_padding_{};
  bool set_up_ = false;
  std::array<int64_t, 3> setup_sizes_{};
  const void* setup_x_ = nullptr;
  void* setup_y_ = nullptr;
};

// --- The OrtCustomOp --------------------------------------------------------------------------

// x, x_zero_point, w, w_zero_point and y_zero_point are typed at session creation (uint8 or int8);
// y takes y_zero_point's type (infer_output_shape), as in ONNX's QLinearConv.
ONNXTensorElementDataType input_type(const OrtCustomOp*, size_t index) {
  switch (index) {
    case kXScale:
    case kWScale:
    case kYScale:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    case kBias:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
    default:
      return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  }
}

// ORT asks the custom op for y's type and shape at session creation: y_zero_point's type, and
// [N, H', W', M] with -1 where the input's size is not known yet.
OrtStatusPtr infer_output_shape(const OrtCustomOp*, OrtShapeInferContext* context) {
  // The inputs' infos belong to the context (ORT's C++ wrapper does not release them either).
  std::vector<OrtTensorTypeAndShapeInfo*> infos;
  OrtTensorTypeAndShapeInfo* output = nullptr;
  const auto release = [&]() {
    if (output != nullptr) g_api->ReleaseTensorTypeAndShapeInfo(output);
  };
  try {
    const auto shape_of = [&](size_t index) {
      OrtTensorTypeAndShapeInfo* info = nullptr;
      check_ort(g_api->ShapeInferContext_GetInputTypeShape(context, index, &info), "input shape");
      infos.push_back(info);
      size_t rank = 0;
      check_ort(g_api->GetDimensionsCount(info, &rank), "input rank");
      std::vector<int64_t> dims(rank);
      check_ort(g_api->GetDimensions(info, dims.data(), rank), "input dims");
      return dims;
    };
    const std::vector<int64_t> x = shape_of(kX);
    std::string batch_name;
    if (x.size() == 4 && x[0] < 0) {
      const char* names[4] = {};
      check_ort(g_api->GetSymbolicDimensions(infos.back(), names, 4), "x's symbolic dims");
      if (names[0] != nullptr) batch_name = names[0];
    }
    const std::vector<int64_t> w = shape_of(kW);
    shape_of(kYZeroPoint);
    ONNXTensorElementDataType y_type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    check_ort(g_api->GetTensorElementType(infos.back(), &y_type), "y_zero_point type");

    std::array<int64_t, 4> y{-1, -1, -1, -1};
    if (x.size() == 4) y[0] = x[0];
    const bool known_weights =
        w.size() == 4 && std::all_of(w.begin(), w.end(), [](int64_t d) { return d > 0; });
    if (known_weights) {
      y[3] = w[0];
      const Geometry geometry = Geometry::read(InferenceAttributes{context}, w);
      if (x.size() == 4 && x[1] >= 0 && x[2] >= 0) {
        const std::pair<int64_t, int64_t> size = geometry.output_size(x[1], x[2]);
        if (size.first < 0 || size.second < 0)
          throw Failure("the input is smaller than the kernel's reach");
        y[1] = size.first;
        y[2] = size.second;
      }
    }
    // An unknown dimension needs a name: ORT would take a nameless -1 for a size. The batch keeps
    // x's name; unknown heights and widths get names of their own.
    static std::atomic<uint64_t> next_name{0};
    const uint64_t name_id = next_name++;
    std::array<std::string, 4> names;
    for (size_t d = 0; d < 4; d++) {
      if (y[d] >= 0) continue;
      names[d] = d == 0 && !batch_name.empty()
                     ? batch_name
                     : "qwino_conv" + std::to_string(name_id) + "_" + "nhwc"[d];
    }
    const char* name_ptrs[4] = {names[0].c_str(), names[1].c_str(), names[2].c_str(),
                                names[3].c_str()};
    check_ort(g_api->CreateTensorTypeAndShapeInfo(&output), "output info");
    check_ort(g_api->SetTensorElementType(output, y_type), "output type");
    check_ort(g_api->SetDimensions(output, y.data(), 4), "output shape");
    check_ort(g_api->SetSymbolicDimensions(output, name_ptrs, 4), "output dimension names");
    check_ort(g_api->ShapeInferContext_SetOutputTypeShape(context, 0, output),
              "output type and shape");
    release();
    return nullptr;
  } catch (const Failure& failure) {
    release();
    return failure.status("(shape inference)");
  } catch (...) {
    release();
    return Failure("unexpected error").status("(shape inference)");
  }
}

OrtStatusPtr create_kernel(const OrtCustomOp*, const OrtApi*, const OrtKernelInfo* info,
                           void** kernel) {
  std::string name = "?";
  try {
    name = node_name(info);
    *kernel = new QLinearConvKernel(info);
    return nullptr;
  } catch (const Failure& failure) {
    return failure.status(name);
  } catch (const std::bad_alloc&) {
    return Failure("out of memory").status(name);
  } catch (...) {
    return Failure("unexpected error").status(name);
  }
}

OrtStatusPtr compute_kernel(void* kernel, OrtKernelContext* context) {
  QLinearConvKernel* conv = static_cast<QLinearConvKernel*>(kernel);
  try {
    conv->compute(context);
    return nullptr;
  } catch (const Failure& failure) {
    return failure.status(conv->name());
  } catch (const std::bad_alloc&) {
    return Failure("out of memory").status(conv->name());
  } catch (...) {
    return Failure("unexpected error").status(conv->name());
  }
}

OrtCustomOp make_custom_op() {
  OrtCustomOp op;
  std::memset(&op, 0, sizeof(op));
  op.version = ORT_API_VERSION;
  op.GetName = [](const OrtCustomOp*) { return kOpName; };
  op.GetExecutionProviderType = [](const OrtCustomOp*) -> const char* {
    return "CPUExecutionProvider";
  };
  op.GetInputType = input_type;
  op.GetInputTypeCount = [](const OrtCustomOp*) -> size_t { return kInputCount; };
  op.GetOutputType = [](const OrtCustomOp*, size_t) {
    return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  };
  op.GetOutputTypeCount = [](const OrtCustomOp*) -> size_t { return 1; };
  op.KernelDestroy = [](void* kernel) { delete static_cast<QLinearConvKernel*>(kernel); };
  op.GetInputCharacteristic = [](const OrtCustomOp*, size_t index) {
    return index == kBias ? INPUT_OUTPUT_OPTIONAL : INPUT_OUTPUT_REQUIRED;
  };
  op.GetOutputCharacteristic = [](const OrtCustomOp*, size_t) { return INPUT_OUTPUT_REQUIRED; };
  op.GetInputMemoryType = [](const OrtCustomOp*, size_t) { return OrtMemTypeDefault; };
  op.GetVariadicInputMinArity = [](const OrtCustomOp*) { return 1; };
  op.GetVariadicInputHomogeneity = [](const OrtCustomOp*) { return 1; };
  op.GetVariadicOutputMinArity = [](const OrtCustomOp*) { return 1; };
  op.GetVariadicOutputHomogeneity = [](const OrtCustomOp*) { return 1; };
  op.CreateKernelV2 = create_kernel;
  op.KernelComputeV2 = compute_kernel;
  op.InferOutputShapeFn = infer_output_shape;
  op.GetStartVersion = [](const OrtCustomOp*) { return 1; };
  op.GetEndVersion = [](const OrtCustomOp*) { return 1000; };
  return op;
}

const OrtCustomOp g_qlinear_conv = make_custom_op();

}  // namespace

extern "C" __attribute__((visibility("default"))) OrtStatus* ORT_API_CALL
RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* api_base) {
  const OrtApi* api = api_base->GetApi(ORT_API_VERSION);
  if (api == nullptr) return nullptr;  // an ORT older than these headers: nothing can be reported
  g_api = api;
  if (qwino_initialize() != qwino_status_success) {
    return api->CreateStatus(ORT_FAIL, "qwino: qwino_initialize failed (unsupported CPU?)");
  }
  OrtCustomOpDomain* domain = nullptr;
  if (OrtStatus* status = api->CreateCustomOpDomain(kDomain, &domain)) return status;
  if (OrtStatus* status = api->CustomOpDomain_Add(domain, &g_qlinear_conv)) {
    api->ReleaseCustomOpDomain(domain);
    return status;
  }
  // The session options keep the domain for the sessions they create; ORT does not release it.
  // One domain per call: a process that registers the library for several session options
  // holds one small domain object per call, as ORT's own custom-op examples do.
  return api->AddCustomOpDomain(options, domain);
}
