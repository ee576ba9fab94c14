// Fluent tester for qwino's convolution operator (in the style of QNNPACK's
// ConvolutionOperatorTester). Test() creates the operator, sets it up, runs it and compares the
// output byte for byte with the independent reference in reference-convolution.h, then repeats
// the run with thread pools of 1, 2, 3, 4 and 8 threads (each with a fresh setup) and with NULL.
//
// What one Test() checks, per iteration:
//   - create succeeds (or, for a forced Winograd the weights cannot make exact, returns
//     qwino_status_unsupported_parameter and leaves *convolution_out alone);
//   - qwino_operator_algorithm(), after create and after every setup, is the forced algorithm, or
//     for automatic choice one that is allowed (Expect(): never Winograd F(2x2,3x3) beyond its
//     exactness bound, never Winograd on other shapes);
//   - output height/width queries after setup;
//   - every output byte equals the reference; bytes between output pixels (pixel stride > output
//     channels) and guard bytes before/after the output buffer keep their sentinel value;
//   - input, kernel and bias end right before an inaccessible page (an over-read faults) and the
//     bytes between input pixels hold garbage (they must not matter);
//   - the same bytes for every thread count (thread_counts(), default 1, 2, 3, 4, 8, each with a
//     new setup, plus NULL); a run with a pool bigger than setup's returns
//     qwino_status_invalid_parameter and leaves the output alone.
// Data types (datatype()) and the requantization mode (fp32()) choose the entry points; values
// are drawn and set in the offset-binary view (uint8 0..255: zero points, qmin/qmax, fills and
// generators), and for an int8 tensor the tester stores the int8 values view - 128 (XOR 0x80),
// hands them to qwino as int8 and computes the reference on the int8 values themselves.
#ifndef QWINO_TEST_CONVOLUTION_OPERATOR_TESTER_H_
#define QWINO_TEST_CONVOLUTION_OPERATOR_TESTER_H_

#include <qwino.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "guarded-buffer.h"
#include "qwino/dispatch.h"
#include "reference-convolution.h"

namespace qwino_test {

using GuardedBytes = GuardedBuffer<uint8_t>;

// Thread pools. A pool that has run work keeps its workers spinning for a while, which on a
// machine with fewer cores than threads (CI, qemu) starves everything else; so pools that run
// work are created for one setup and destroyed right after (ScopedThreadPool), and the only
// long-lived pool is one that never runs anything: the "bigger than setup's" pool whose runs
// must be refused.
class ScopedThreadPool {
 public:
  explicit ScopedThreadPool(size_t threads) : pool_(pthreadpool_create(threads)) {}
  ~ScopedThreadPool() {
    if (pool_ != nullptr) pthreadpool_destroy(pool_);
  }
  ScopedThreadPool(const ScopedThreadPool&) = delete;
  ScopedThreadPool& operator=(const ScopedThreadPool&) = delete;
  pthreadpool_t get() const { return pool_; }

 private:
  pthreadpool_t pool_;
};

constexpr size_t kIdlePoolThreads = 8;
// A pool of kIdlePoolThreads threads that is never given work.
inline pthreadpool_t IdleThreadPool() {
  static ScopedThreadPool pool(kIdlePoolThreads);
  return pool.get();
}

// Winograd F(4x4,3x3) is in qwino.h once QWINO_FLAG_FORCE_WINOGRAD_F4 is; these tests compile
// with and without it.
#ifdef QWINO_FLAG_FORCE_WINOGRAD_F4
constexpr bool kApiHasWinogradF4 = true;
constexpr uint32_t kFlagForceWinogradF4 = QWINO_FLAG_FORCE_WINOGRAD_F4;
constexpr qwino_algorithm kAlgorithmWinogradF4 = qwino_algorithm_winograd_f4x4_3x3;
#else
constexpr bool kApiHasWinogradF4 = false;
constexpr uint32_t kFlagForceWinogradF4 = 0;
constexpr qwino_algorithm kAlgorithmWinogradF4 = qwino_algorithm_none;
#endif

inline unsigned AlgorithmBit(qwino_algorithm a) { return 1u << static_cast<unsigned>(a); }

inline std::string AlgorithmSetName(unsigned set) {
  std::string names;
  for (unsigned a = 0; a < 8; a++) {
    if ((set >> a & 1u) != 0) {
      names += (names.empty() ? "" : " or ");
      names += qwino_algorithm_name(static_cast<qwino_algorithm>(a));
    }
  }
  return names.empty() ? "nothing" : names;
}

// Whether the current kernel set runs Winograd F(4x4,3x3): a forced F(4x4,3x3) 3x3 layer is
// created. (doc/DESIGN.md section 2: splitting input channels into blocks makes it exact for any
// weights, so availability is a property of the kernel set, not of the weights.)
inline bool WinogradF4Available() {
  if (!kApiHasWinogradF4) return false;
  const uint8_t kernel[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  qwino_operator_t op = nullptr;
  if (qwino_create_convolution2d_nhwc_q8(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 1.0f, 0, 0.5f,
                                         kernel, nullptr, 0, 1.0f, 0, 255, kFlagForceWinogradF4,
                                         &op) != qwino_status_success) {
    return false;
  }
  qwino_delete_operator(op);
  return true;
}

// Algorithms seen by Test() after setup, by qwino_algorithm value (coverage reports).
inline std::array<size_t, 8>& ObservedAlgorithms() {
  static std::array<size_t, 8> counts{};
  return counts;
}

class ConvolutionOperatorTester {
 public:
  enum class Mode {
    kAuto,
    kForceWinograd,
    kForceDirect,
    kForceWinogradF4,
    kForceIndirect,
    kForceDepthwise
  };
  enum class Fill { kRandom, kConstant, kExtremes /* random 0 or 255 */ };
  enum class BiasMode { kRandom, kNull, kZero, kConstant, kFullRange /* any int32 */ };
  // qu8: uint8 activations and weights, per tensor (the _qu8 entry points); qs8: int8 activations
  // and symmetric int8 weights, per tensor; qs8_qc8w / qu8_qc8w: int8 symmetric weights with a
  // scale per output channel and int8 / uint8 activations.
  enum class DataType { kQU8, kQS8, kQS8QC8W, kQU8QC8W };
  // Custom generators see the buffer after the default fill and may change any byte.
  using KernelGenerator = std::function<void(std::vector<uint8_t>& kernel, std::mt19937& rng)>;
  using InputGenerator = std::function<void(std::vector<uint8_t>& dense_input, std::mt19937& rng)>;

  // --- shape ---
  ConvolutionOperatorTester& batch_size(size_t v) {
    shape_.batch_size = v;
    return *this;
  }
  ConvolutionOperatorTester& input_size(size_t h, size_t w) {
    shape_.input_height = h;
    shape_.input_width = w;
    return *this;
  }
  ConvolutionOperatorTester& input_height(size_t v) {
    shape_.input_height = v;
    return *this;
  }
  ConvolutionOperatorTester& input_width(size_t v) {
    shape_.input_width = v;
    return *this;
  }
  ConvolutionOperatorTester& padding(uint32_t v) { return padding(v, v, v, v); }
  ConvolutionOperatorTester& padding(uint32_t top, uint32_t right, uint32_t bottom, uint32_t left) {
    shape_.padding_top = top;
    shape_.padding_right = right;
    shape_.padding_bottom = bottom;
    shape_.padding_left = left;
    return *this;
  }
  ConvolutionOperatorTester& kernel_size(uint32_t v) { return kernel_size(v, v); }
  ConvolutionOperatorTester& kernel_size(uint32_t h, uint32_t w) {
    shape_.kernel_height = h;
    shape_.kernel_width = w;
    return *this;
  }
  ConvolutionOperatorTester& subsampling(uint32_t v) { return subsampling(v, v); }
  ConvolutionOperatorTester& subsampling(uint32_t h, uint32_t w) {
    shape_.stride_height = h;
    shape_.stride_width = w;
    return *this;
  }
  ConvolutionOperatorTester& dilation(uint32_t v) { return dilation(v, v); }
  ConvolutionOperatorTester& dilation(uint32_t h, uint32_t w) {
    shape_.dilation_height = h;
    shape_.dilation_width = w;
    return *this;
  }
  ConvolutionOperatorTester& groups(uint32_t v) {
    shape_.groups = v;
    return *this;
  }
  ConvolutionOperatorTester& group_input_channels(size_t v) {
    shape_.group_input_channels = v;
    return *this;
  }
  ConvolutionOperatorTester& group_output_channels(size_t v) {
    shape_.group_output_channels = v;
    return *this;
  }
  // 0 = dense (groups * group channels).
  ConvolutionOperatorTester& input_pixel_stride(size_t v) {
    input_pixel_stride_ = v;
    return *this;
  }
  ConvolutionOperatorTester& output_pixel_stride(size_t v) {
    output_pixel_stride_ = v;
    return *this;
  }

  // --- quantization ---
  ConvolutionOperatorTester& input_zero_point(uint8_t v) {
    input_zero_point_ = v;
    return *this;
  }
  ConvolutionOperatorTester& kernel_zero_point(uint8_t v) {
    kernel_zero_point_ = v;
    return *this;
  }
  ConvolutionOperatorTester& input_scale(float v) {
    input_scale_ = v;
    return *this;
  }
  ConvolutionOperatorTester& kernel_scale(float v) {
    kernel_scale_ = v;
    return *this;
  }
  // Unless set, the output scale and zero point are chosen from the reference accumulators so
  // that their range maps onto [0, 255] (outputs are neither all clamped nor all equal).
  ConvolutionOperatorTester& output_scale(float v) {
    output_scale_ = v;
    auto_output_scale_ = false;
    return *this;
  }
  ConvolutionOperatorTester& output_zero_point(uint8_t v) {
    output_zero_point_ = v;
    auto_output_zero_point_ = false;
    return *this;
  }
  ConvolutionOperatorTester& qmin(uint8_t v) {
    qmin_ = v;
    return *this;
  }
  ConvolutionOperatorTester& qmax(uint8_t v) {
    qmax_ = v;
    return *this;
  }
  ConvolutionOperatorTester& datatype(DataType t) {
    datatype_ = t;
    return *this;
  }
  // Per-channel kernel scales (qc8w types), repeated over the output channels; empty (the
  // default): drawn around kernel_scale() every iteration.
  ConvolutionOperatorTester& kernel_scales(std::vector<float> v) {
    kernel_scales_ = std::move(v);
    return *this;
  }
  // int8 weights include -128 (view byte 0) where drawn; by default they are narrow-range,
  // [-127, 127], as TensorFlow Lite's converter makes them (and as the indirect GEMM needs).
  ConvolutionOperatorTester& int8_weight_minus_128(bool v) {
    int8_weight_minus_128_ = v;
    return *this;
  }
  // ONNX Runtime's / XNNPACK's fp32 requantization instead of TFLite's.
  ConvolutionOperatorTester& fp32(bool v) {
    fp32_ = v;
    return *this;
  }

  bool int8_activations() const {
    return datatype_ == DataType::kQS8 || datatype_ == DataType::kQS8QC8W;
  }
  bool int8_kernel() const { return datatype_ != DataType::kQU8; }
  bool per_channel() const {
    return datatype_ == DataType::kQS8QC8W || datatype_ == DataType::kQU8QC8W;
  }
  uint8_t activation_sign() const { return int8_activations() ? 0x80 : 0; }
  uint8_t kernel_sign() const { return int8_kernel() ? 0x80 : 0; }
  // Zero points in the view: int8 weights are symmetric (the view's 128).
  uint8_t kernel_zero_point_view() const { return int8_kernel() ? 128 : kernel_zero_point_; }
  // A view value as the tensor's own value.
  int32_t ActivationValue(uint8_t view) const {
    return int32_t{view} - (int8_activations() ? 128 : 0);
  }

  // --- data ---
  ConvolutionOperatorTester& input_fill(Fill f, uint8_t value = 0) {
    input_fill_ = f;
    input_value_ = value;
    return *this;
  }
  ConvolutionOperatorTester& kernel_fill(Fill f, uint8_t value = 0) {
    kernel_fill_ = f;
    kernel_value_ = value;
    return *this;
  }
  ConvolutionOperatorTester& kernel_generator(KernelGenerator g) {
    kernel_generator_ = std::move(g);
    return *this;
  }
  ConvolutionOperatorTester& input_generator(InputGenerator g) {
    input_generator_ = std::move(g);
    return *this;
  }
  ConvolutionOperatorTester& bias(BiasMode m, int32_t value = 0) {
    bias_mode_ = m;
    bias_value_ = value;
    return *this;
  }
  // Random bias range (kRandom): uniform in [-v, v].
  ConvolutionOperatorTester& bias_range(int32_t v) {
    bias_range_ = v;
    return *this;
  }

  // --- execution ---
  ConvolutionOperatorTester& mode(Mode m) {
    mode_ = m;
    return *this;
  }
  ConvolutionOperatorTester& iterations(size_t v) {
    iterations_ = v;
    return *this;
  }
  ConvolutionOperatorTester& seed(uint32_t v) {
    seed_ = v;
    return *this;
  }
  // Thread counts of the pools each operator is set up and run with after the run without a
  // pool; default {1, 2, 3, 4, 8}. thread_sweep(false) leaves only the run without a pool.
  ConvolutionOperatorTester& thread_counts(std::vector<size_t> v) {
    thread_counts_ = std::move(v);
    return *this;
  }
  ConvolutionOperatorTester& thread_sweep(bool v) {
    if (!v)
      thread_counts_.clear();
    else
      thread_counts_ = {1, 2, 3, 4, 8};
    return *this;
  }

  const ReferenceConvolutionShape& shape() const { return shape_; }
  size_t effective_input_pixel_stride() const {
    return input_pixel_stride_ != 0 ? input_pixel_stride_ : shape_.input_channels();
  }
  size_t effective_output_pixel_stride() const {
    return output_pixel_stride_ != 0 ? output_pixel_stride_ : shape_.output_channels();
  }

  uint32_t flags() const {
    switch (mode_) {
      case Mode::kForceWinograd:
        return QWINO_FLAG_FORCE_WINOGRAD;
      case Mode::kForceDirect:
        return QWINO_FLAG_FORCE_DIRECT;
      case Mode::kForceWinogradF4:
        return kFlagForceWinogradF4;
      case Mode::kForceIndirect:
        return QWINO_FLAG_FORCE_INDIRECT_GEMM;
      case Mode::kForceDepthwise:
        return QWINO_FLAG_FORCE_DEPTHWISE;
      case Mode::kAuto:
        break;
    }
    return 0;
  }

  bool winograd_shape() const {
    return shape_.kernel_height == 3 && shape_.kernel_width == 3 && shape_.stride_height == 1 &&
           shape_.stride_width == 1 && shape_.dilation_height == 1 && shape_.dilation_width == 1;
  }

  std::string Describe() const {
    std::ostringstream s;
    const char* modes[] = {"auto",           "force-winograd", "force-direct", "force-winograd-f4",
                           "force-indirect", "force-depthwise"};
    const char* datatypes[] = {"qu8", "qs8", "qs8_qc8w", "qu8_qc8w"};
    s << "batch " << shape_.batch_size << ", input " << shape_.input_height << "x"
      << shape_.input_width << ", pad t" << shape_.padding_top << " r" << shape_.padding_right
      << " b" << shape_.padding_bottom << " l" << shape_.padding_left << ", kernel "
      << shape_.kernel_height << "x" << shape_.kernel_width << ", stride " << shape_.stride_height
      << "x" << shape_.stride_width << ", dilation " << shape_.dilation_height << "x"
      << shape_.dilation_width << ", groups " << shape_.groups << " x ("
      << shape_.group_input_channels << " -> " << shape_.group_output_channels
      << "), pixel strides " << effective_input_pixel_stride() << "/"
      << effective_output_pixel_stride() << ", izp " << int(input_zero_point_) << ", kzp "
      << int(kernel_zero_point_view()) << ", q [" << int(qmin_) << ", " << int(qmax_) << "], "
      << modes[static_cast<int>(mode_)] << ", " << datatypes[static_cast<int>(datatype_)]
      << (fp32_ ? " fp32" : " gemmlowp")
      << " requantization (zero points and clamps in the uint8 view), seed " << seed_;
    return s.str();
  }

  // Everything one iteration needs, generated from the tester's settings.
  struct Data {
    std::vector<uint8_t> kernel_view;  // the weights in the view (what generators see)
    std::vector<uint8_t> kernel;       // the tensor's bytes (int8 values for int8 weights)
    std::vector<float> kernel_scales;  // one, or one per output channel
    std::vector<int32_t> bias;         // empty = NULL
    float output_scale = 1.0f;
    uint8_t output_zero_point = 0;  // view
  };

  Data MakeWeights(std::mt19937& rng) const {
    Data d;
    const size_t kernel_elements = shape_.output_channels() * shape_.kernel_height *
                                   shape_.kernel_width * shape_.group_input_channels;
    d.kernel_view.resize(kernel_elements);
    FillBytes(d.kernel_view, kernel_fill_, kernel_value_, rng);
    if (kernel_generator_) kernel_generator_(d.kernel_view, rng);
    if (int8_kernel() && !int8_weight_minus_128_) {
      std::replace(d.kernel_view.begin(), d.kernel_view.end(), uint8_t{0}, uint8_t{1});
    }
    d.kernel = d.kernel_view;
    for (auto& b : d.kernel) b = static_cast<uint8_t>(b ^ kernel_sign());
    d.kernel_scales.assign(1, kernel_scale_);
    if (per_channel()) {
      // Scales a factor of up to 4 apart (and exact powers of two now and then).
      std::uniform_real_distribution<float> factor(-2.0f, 2.0f);
      d.kernel_scales.resize(shape_.output_channels());
      for (size_t c = 0; c < d.kernel_scales.size(); c++) {
        const float f = factor(rng);
        d.kernel_scales[c] = !kernel_scales_.empty()
                                 ? kernel_scales_[c % kernel_scales_.size()]
                                 : kernel_scale_ * std::exp2((rng() & 3) == 0 ? std::round(f) : f);
      }
    }
    switch (bias_mode_) {
      case BiasMode::kNull:
        break;
      case BiasMode::kZero:
        d.bias.assign(shape_.output_channels(), 0);
        break;
      case BiasMode::kConstant:
        d.bias.assign(shape_.output_channels(), bias_value_);
        break;
      case BiasMode::kRandom: {
        std::uniform_int_distribution<int32_t> dist(-bias_range_, bias_range_);
        d.bias.resize(shape_.output_channels());
        for (auto& b : d.bias) b = dist(rng);
        break;
      }
      case BiasMode::kFullRange: {
        std::uniform_int_distribution<int32_t> dist(std::numeric_limits<int32_t>::min(),
                                                    std::numeric_limits<int32_t>::max());
        d.bias.resize(shape_.output_channels());
        for (auto& b : d.bias) b = dist(rng);
        // Make sure the extremes themselves show up.
        if (!d.bias.empty()) d.bias[0] = std::numeric_limits<int32_t>::max();
        if (d.bias.size() > 1) d.bias[1] = std::numeric_limits<int32_t>::min();
        break;
      }
    }
    return d;
  }

  // Dense input [batch][h][w][groups * group_input_channels] for a given spatial size, as the
  // tensor's bytes.
  std::vector<uint8_t> MakeDenseInput(const ReferenceConvolutionShape& s, std::mt19937& rng) const {
    std::vector<uint8_t> input(s.batch_size * s.input_height * s.input_width * s.input_channels());
    FillBytes(input, input_fill_, input_value_, rng);
    if (input_generator_) input_generator_(input, rng);
    for (auto& b : input) b = static_cast<uint8_t>(b ^ activation_sign());
    return input;
  }

  // The reference accumulators, on the tensors' own types.
  std::vector<int32_t> Accumulators(const ReferenceConvolutionShape& dense,
                                    const std::vector<uint8_t>& input, const Data& d) const {
    const int32_t izp = ActivationValue(input_zero_point_);
    const int32_t* bias = d.bias.empty() ? nullptr : d.bias.data();
    const auto* input_s8 = reinterpret_cast<const int8_t*>(input.data());
    const auto* kernel_s8 = reinterpret_cast<const int8_t*>(d.kernel.data());
    if (int8_activations()) {
      return ReferenceConvolutionAccumulators(dense, input_s8, izp, kernel_s8, 0, bias);
    }
    if (int8_kernel()) {
      return ReferenceConvolutionAccumulators(dense, input.data(), izp, kernel_s8, 0, bias);
    }
    return ReferenceConvolutionAccumulators(dense, input.data(), izp, d.kernel.data(),
                                            int32_t{kernel_zero_point_}, bias);
  }

  // The expected bytes for these accumulators.
  std::vector<uint8_t> Expected(const std::vector<int32_t>& accumulators, const Data& d) const {
    return ReferenceRequantizeAll(
        accumulators, ReferenceOutput(fp32_, ReferenceScaleProductFor(int8_kernel()), input_scale_,
                                      d.kernel_scales, d.output_scale, shape_.output_channels(),
                                      ActivationValue(d.output_zero_point), ActivationValue(qmin_),
                                      ActivationValue(qmax_)));
  }

  // Chooses output scale/zero point (unless fixed) so that the range of the real values
  // acc * input_scale * kernel_scale[channel] maps onto [0, 255], with every channel's
  // requantization scale within qwino's range (at most 256: scales above 1 take the left shift).
  void ChooseOutputQuantization(const std::vector<int32_t>& accumulators, Data* d) const {
    d->output_scale = output_scale_;
    d->output_zero_point = output_zero_point_;
    if (!auto_output_scale_ && !auto_output_zero_point_) return;
    const size_t channels = shape_.output_channels();
    double lo = 0.0, hi = 0.0, largest_scale = 0.0;
    for (float scale : d->kernel_scales) largest_scale = std::max(largest_scale, double{scale});
    for (size_t i = 0; i < accumulators.size(); i++) {
      const double kernel_scale = d->kernel_scales[d->kernel_scales.size() == 1 ? 0 : i % channels];
      const double real =
          static_cast<double>(accumulators[i]) * double{input_scale_} * kernel_scale;
      lo = std::min(lo, real);
      hi = std::max(hi, real);
    }
    if (auto_output_scale_) {
      const double smallest = double{input_scale_} * largest_scale / 255.0;
      d->output_scale = static_cast<float>(std::max((hi - lo) / 255.0, smallest));
    }
    if (auto_output_zero_point_) {
      const double zp = std::round(-lo / double{d->output_scale});
      d->output_zero_point = static_cast<uint8_t>(std::min(255.0, std::max(0.0, zp)));
    }
  }

  // Copies a dense input into a guarded buffer with the tester's pixel stride; the bytes between
  // pixels are garbage.
  static void StridedInput(const ReferenceConvolutionShape& s, const std::vector<uint8_t>& dense,
                           GuardedBytes* buffer, std::mt19937& rng) {
    std::uniform_int_distribution<int> byte(0, 255);
    for (size_t i = 0; i < buffer->size(); i++) buffer->data()[i] = static_cast<uint8_t>(byte(rng));
    const size_t pixels = s.batch_size * s.input_height * s.input_width;
    for (size_t p = 0; p < pixels; p++) {
      std::memcpy(buffer->data() + p * s.input_pixel_stride, dense.data() + p * s.input_channels(),
                  s.input_channels());
    }
  }

  static size_t InputBytes(const ReferenceConvolutionShape& s) {
    const size_t pixels = s.batch_size * s.input_height * s.input_width;
    return (pixels - 1) * s.input_pixel_stride + s.input_channels();
  }

  // The output buffer: kGuard sentinel bytes, pixels * stride bytes, kGuard sentinel bytes.
  static constexpr size_t kGuard = 64;
  static std::vector<uint8_t> OutputBuffer(const ReferenceConvolutionShape& s, uint8_t sentinel) {
    return std::vector<uint8_t>(2 * kGuard + s.output_pixels() * s.output_pixel_stride, sentinel);
  }

  // Compares the output buffer with the reference: every channel byte, every byte between
  // pixels (must still be the sentinel), the guards.
  static ::testing::AssertionResult CheckOutput(const ReferenceConvolutionShape& s,
                                                const std::vector<uint8_t>& buffer,
                                                uint8_t sentinel,
                                                const std::vector<uint8_t>& expected,
                                                const std::vector<int32_t>& accumulators,
                                                const char* what) {
    const size_t oc = s.output_channels(), oh = s.output_height(), ow = s.output_width();
    size_t mismatches = 0, stray_writes = 0;
    std::ostringstream first;
    for (size_t i = 0; i < kGuard; i++) {
      if (buffer[i] != sentinel || buffer[buffer.size() - 1 - i] != sentinel) stray_writes++;
    }
    for (size_t p = 0; p < s.output_pixels(); p++) {
      const uint8_t* pixel = buffer.data() + kGuard + p * s.output_pixel_stride;
      for (size_t c = 0; c < oc; c++) {
        if (pixel[c] != expected[p * oc + c]) {
          if (mismatches++ < 5) {
            const size_t n = p / (oh * ow), y = p / ow % oh, x = p % ow;
            first << "\n  image " << n << " y " << y << " x " << x << " channel " << c << ": got "
                  << int(pixel[c]) << ", expected " << int(expected[p * oc + c])
                  << " (accumulator with bias " << accumulators[p * oc + c] << ")";
          }
        }
      }
      for (size_t c = oc; c < s.output_pixel_stride; c++) {
        if (pixel[c] != sentinel && stray_writes++ < 3) {
          first << "\n  byte " << c << " of pixel " << p << " between pixels was written";
        }
      }
    }
    if (mismatches == 0 && stray_writes == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << what << ": " << mismatches << " of " << expected.size()
           << " output bytes differ from the reference, " << stray_writes
           << " bytes outside the outputs were written" << first.str();
  }

  static bool Untouched(const std::vector<uint8_t>& buffer, uint8_t sentinel) {
    return std::all_of(buffer.begin(), buffer.end(), [&](uint8_t b) { return b == sentinel; });
  }

  // Creates the operator through the data type's entry point, from the given kernel bytes,
  // kernel scales and bias (guarded copies, or d's own). Returns the status; *op is set on
  // success.
  qwino_status Create(const Data& d, const uint8_t* kernel, const float* kernel_scales,
                      const int32_t* bias, qwino_operator_t* op) const {
    const ReferenceConvolutionShape& s = shape_;
    const uint32_t f = flags() | (fp32_ ? QWINO_FLAG_REQUANTIZE_FP32 : 0u);
    const auto* kernel_s8 = reinterpret_cast<const int8_t*>(kernel);
    const auto s8 = [](uint8_t view) { return static_cast<int8_t>(int32_t{view} - 128); };
    switch (datatype_) {
      case DataType::kQU8:
        return qwino_create_convolution2d_nhwc_qu8(
            s.padding_top, s.padding_right, s.padding_bottom, s.padding_left, s.kernel_height,
            s.kernel_width, s.stride_height, s.stride_width, s.dilation_height, s.dilation_width,
            s.groups, s.group_input_channels, s.group_output_channels, input_zero_point_,
            input_scale_, kernel_zero_point_, kernel_scales[0], kernel, bias, d.output_zero_point,
            d.output_scale, qmin_, qmax_, f, op);
      case DataType::kQS8:
        return qwino_create_convolution2d_nhwc_qs8(
            s.padding_top, s.padding_right, s.padding_bottom, s.padding_left, s.kernel_height,
            s.kernel_width, s.stride_height, s.stride_width, s.dilation_height, s.dilation_width,
            s.groups, s.group_input_channels, s.group_output_channels, s8(input_zero_point_),
            input_scale_, kernel_scales[0], kernel_s8, bias, s8(d.output_zero_point),
            d.output_scale, s8(qmin_), s8(qmax_), f, op);
      case DataType::kQS8QC8W:
        return qwino_create_convolution2d_nhwc_qs8_qc8w(
            s.padding_top, s.padding_right, s.padding_bottom, s.padding_left, s.kernel_height,
            s.kernel_width, s.stride_height, s.stride_width, s.dilation_height, s.dilation_width,
            s.groups, s.group_input_channels, s.group_output_channels, s8(input_zero_point_),
            input_scale_, kernel_scales, kernel_s8, bias, s8(d.output_zero_point), d.output_scale,
            s8(qmin_), s8(qmax_), f, op);
      case DataType::kQU8QC8W:
        return qwino_create_convolution2d_nhwc_qu8_qc8w(
            s.padding_top, s.padding_right, s.padding_bottom, s.padding_left, s.kernel_height,
            s.kernel_width, s.stride_height, s.stride_width, s.dilation_height, s.dilation_width,
            s.groups, s.group_input_channels, s.group_output_channels, input_zero_point_,
            input_scale_, kernel_scales, kernel_s8, bias, d.output_zero_point, d.output_scale,
            qmin_, qmax_, f, op);
    }
    return qwino_status_invalid_parameter;
  }
  qwino_status Create(const Data& d, qwino_operator_t* op) const {
    return Create(d, d.kernel.data(), d.kernel_scales.data(),
                  d.bias.empty() ? nullptr : d.bias.data(), op);
  }

  // The setup entry point of the operator's activation type.
  static qwino_status Setup(qwino_operator_t op, bool int8, const ReferenceConvolutionShape& s,
                            const uint8_t* input, uint8_t* output, pthreadpool_t pool) {
    if (int8) {
      return qwino_setup_convolution2d_nhwc_qs8(
          op, s.batch_size, s.input_height, s.input_width, reinterpret_cast<const int8_t*>(input),
          s.input_pixel_stride, reinterpret_cast<int8_t*>(output), s.output_pixel_stride, pool);
    }
    return qwino_setup_convolution2d_nhwc_qu8(op, s.batch_size, s.input_height, s.input_width,
                                              input, s.input_pixel_stride, output,
                                              s.output_pixel_stride, pool);
  }

  // What create must do with these weights: fail with qwino_status_unsupported_parameter (a
  // forced Winograd algorithm that cannot be exact, does not fit the shape or exceeds qwino.h's
  // packing budget), or succeed with
  // an operator whose algorithm is in `allowed` (a set of AlgorithmBit()s) after create and
  // after every setup. Automatic choice may take any exact algorithm (the library has a cost
  // model, doc/DESIGN.md section 6): the direct path always, F(2x2,3x3) only below its bound
  // (max_oc sum |w - kzp| * max(izp, 255 - izp) < 2^29), F(4x4,3x3) on 3x3 stride-1 layers
  // when the kernel set has it. The bytes are checked whatever runs.
  struct Expectation {
    bool create_unsupported;
    unsigned allowed;
  };
  Expectation Expect(const std::vector<uint8_t>& kernel) const {
    // The 8-bit indirect GEMM (qwino.h): any kernel zero point; on a kernel that cannot multiply
    // -128 (its list entry's b_min) every output channel's weights must span at most 254 in the
    // view (not 0 and 255 both); packed 8-bit panels within budget.
    const bool indirect = (qwino_kernels()->igemm.b_min <= -128 || ChannelsSpanAtMost254(kernel)) &&
                          WithinIndirectPackingBudget();
    const unsigned indirect_bit = AlgorithmBit(qwino_algorithm_indirect_gemm);
    // The depthwise kernels (qwino.h): one input and one output channel per group, any weights.
    const bool depthwise = shape_.group_input_channels == 1 && shape_.group_output_channels == 1;
    const unsigned depthwise_bit = AlgorithmBit(qwino_algorithm_depthwise);
    const bool shape = winograd_shape();
    const bool f23 = shape && WithinPackingBudget(16) &&
                     ReferenceAccumulatorBound(shape_, kernel.data(), input_zero_point_,
                                               kernel_zero_point_view()) < (int64_t{1} << 29);
    const bool f43 = shape && WithinPackingBudget(36) && WinogradF4Available();
    const unsigned direct = AlgorithmBit(qwino_algorithm_direct);
    const unsigned f23_bit = AlgorithmBit(qwino_algorithm_winograd_f2x2_3x3);
    const unsigned f43_bit = AlgorithmBit(kAlgorithmWinogradF4);
    switch (mode_) {
      case Mode::kForceDirect:
        return {false, direct};
      case Mode::kForceWinograd:
        return f23 ? Expectation{false, f23_bit} : Expectation{true, 0};
      case Mode::kForceWinogradF4:
        return f43 ? Expectation{false, f43_bit} : Expectation{true, 0};
      case Mode::kForceIndirect:
        return indirect ? Expectation{false, indirect_bit} : Expectation{true, 0};
      case Mode::kForceDepthwise:
        return depthwise ? Expectation{false, depthwise_bit} : Expectation{true, 0};
      case Mode::kAuto:
        break;
    }
    return {false, direct | (f23 ? f23_bit : 0u) | (f43 ? f43_bit : 0u) |
                       (indirect ? indirect_bit : 0u) | (depthwise ? depthwise_bit : 0u)};
  }

  // qwino.h's packing budget for a Winograd algorithm with this many positions per tile:
  // P = 2 x positions x round_up(K, 4) x 32 (K = group input channels) and
  // groups x ceil(group_output_channels / 32) x P <= 16 x kernel bytes + max(64 KiB, P).
  bool WithinPackingBudget(uint64_t positions) const {
    const uint64_t k = shape_.group_input_channels, n = shape_.group_output_channels;
    const uint64_t panel = 2 * positions * ((k + 3) / 4 * 4) * 32;
    const uint64_t kernel_bytes = uint64_t{shape_.groups} * n * 9 * k;
    return uint64_t{shape_.groups} * ((n + 31) / 32) * panel <=
           16 * kernel_bytes + std::max<uint64_t>(64 * 1024, panel);
  }

  // Whether no output channel's weights (in the view) hold both 0 and 255.
  bool ChannelsSpanAtMost254(const std::vector<uint8_t>& kernel) const {
    const size_t channels = size_t{shape_.groups} * shape_.group_output_channels;
    const size_t per_channel = kernel.size() / channels;
    for (size_t oc = 0; oc < channels; oc++) {
      const auto first = kernel.begin() + static_cast<std::ptrdiff_t>(oc * per_channel);
      const auto range =
          std::minmax_element(first, first + static_cast<std::ptrdiff_t>(per_channel));
      if (*range.second - *range.first > 254) return false;
    }
    return true;
  }

  // qwino.h's packing budget for the indirect GEMM: P = taps x round_up(K, 16) x 32 bytes.
  bool WithinIndirectPackingBudget() const {
    const uint64_t k = shape_.group_input_channels, n = shape_.group_output_channels;
    const uint64_t taps = uint64_t{shape_.kernel_height} * shape_.kernel_width;
    const uint64_t panel = taps * ((k + 15) / 16 * 16) * 32;
    const uint64_t kernel_bytes = uint64_t{shape_.groups} * n * taps * k;
    return uint64_t{shape_.groups} * ((n + 31) / 32) * panel <=
           16 * kernel_bytes + std::max<uint64_t>(64 * 1024, panel);
  }

  // Non-fatal check that op runs an allowed algorithm; counts it.
  static void CheckAlgorithm(qwino_operator_t op, unsigned allowed, const char* when) {
    const qwino_algorithm a = qwino_operator_algorithm(op);
    EXPECT_NE(0u, allowed & AlgorithmBit(a)) << when << ": runs " << qwino_algorithm_name(a)
                                             << ", expected " << AlgorithmSetName(allowed);
    ObservedAlgorithms()[static_cast<unsigned>(a) & 7u]++;  // (8 slots: room for new ones)
  }

  struct OperatorDeleter {
    qwino_operator_t op = nullptr;
    ~OperatorDeleter() {
      if (op != nullptr) {
        EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
      }
    }
  };

  // Sets up op for shape s (with pool), runs it with run_pool, checks the output.
  // Returns false (after recording a failure) if anything went wrong.
  bool SetupRunCheck(qwino_operator_t op, unsigned allowed, const ReferenceConvolutionShape& s,
                     const GuardedBytes& input, pthreadpool_t setup_pool,
                     const std::vector<pthreadpool_t>& run_pools, pthreadpool_t too_big_pool,
                     const std::vector<uint8_t>& expected, const std::vector<int32_t>& accumulators,
                     uint8_t sentinel, const std::string& what) const {
    std::vector<uint8_t> output = OutputBuffer(s, sentinel);
    // The other activation type's setup refuses the operator and changes nothing.
    EXPECT_EQ(qwino_status_invalid_parameter,
              Setup(op, !int8_activations(), s, input.data(), output.data() + kGuard, setup_pool))
        << what << ": setup with the other activation type";
    const qwino_status setup =
        Setup(op, int8_activations(), s, input.data(), output.data() + kGuard, setup_pool);
    EXPECT_EQ(qwino_status_success, setup) << what << ": setup";
    if (setup != qwino_status_success) return false;
    EXPECT_EQ(s.output_height(), qwino_operator_output_height(op)) << what;
    EXPECT_EQ(s.output_width(), qwino_operator_output_width(op)) << what;
    CheckAlgorithm(op, allowed, (what + ", after setup").c_str());
    if (too_big_pool != nullptr) {
      EXPECT_EQ(qwino_status_invalid_parameter, qwino_run_operator(op, too_big_pool))
          << what << ": run with a pool bigger than setup's";
      EXPECT_TRUE(Untouched(output, sentinel))
          << what << ": a run refused for its pool size wrote output";
    }
    for (size_t r = 0; r < run_pools.size(); r++) {
      std::fill(output.begin(), output.end(), sentinel);
      const qwino_status run = qwino_run_operator(op, run_pools[r]);
      EXPECT_EQ(qwino_status_success, run) << what << ": run " << r;
      if (run != qwino_status_success) return false;
      const ::testing::AssertionResult ok =
          CheckOutput(s, output, sentinel, expected, accumulators,
                      (what + ", run with " +
                       std::to_string(pthreadpool_get_threads_count(run_pools[r])) + " thread(s)")
                          .c_str());
      EXPECT_TRUE(ok);
      if (!ok) return false;
    }
    return true;
  }

  void Test() const {
    ASSERT_EQ(qwino_status_success, qwino_initialize());
    SCOPED_TRACE(Describe() + ", isa " + qwino_isa_name());
    std::mt19937 rng(seed_);
    ReferenceConvolutionShape s = shape_;
    s.input_pixel_stride = effective_input_pixel_stride();
    s.output_pixel_stride = effective_output_pixel_stride();
    ASSERT_GT(s.output_height(), 0u);
    ASSERT_GT(s.output_width(), 0u);

    for (size_t iteration = 0; iteration < iterations_; iteration++) {
      SCOPED_TRACE("iteration " + std::to_string(iteration));
      Data d = MakeWeights(rng);
      const std::vector<uint8_t> dense_input = MakeDenseInput(s, rng);
      GuardedBytes input(InputBytes(s));
      StridedInput(s, dense_input, &input, rng);

      // Reference (dense input: same values, pixel stride = channels).
      ReferenceConvolutionShape dense_shape = s;
      dense_shape.input_pixel_stride = s.input_channels();
      const std::vector<int32_t> accumulators = Accumulators(dense_shape, dense_input, d);
      ChooseOutputQuantization(accumulators, &d);
      ASSERT_TRUE(ReferenceOutputSupported(fp32_, ReferenceScaleProductFor(int8_kernel()),
                                           input_scale_, d.kernel_scales, d.output_scale))
          << "test bug: a requantization scale is unsupported (output scale " << d.output_scale
          << ")";
      const std::vector<uint8_t> expected = Expected(accumulators, d);

      // Kernel, scales and bias handed to create from guarded memory (an over-read faults).
      GuardedBytes kernel(d.kernel.size());
      GuardedBytes bias(d.bias.size() * sizeof(int32_t));
      GuardedBuffer<float> kernel_scales(d.kernel_scales.size());
      std::memcpy(kernel.data(), d.kernel.data(), d.kernel.size());
      if (!d.bias.empty()) std::memcpy(bias.data(), d.bias.data(), d.bias.size() * sizeof(int32_t));
      std::copy(d.kernel_scales.begin(), d.kernel_scales.end(), kernel_scales.data());

      if (mode_ == Mode::kForceWinogradF4 && !kApiHasWinogradF4) {
        ADD_FAILURE() << "qwino.h has no QWINO_FLAG_FORCE_WINOGRAD_F4";
        return;
      }
      const Expectation expectation = Expect(d.kernel_view);
      qwino_operator_t const untouched = reinterpret_cast<qwino_operator_t>(&rng);
      qwino_operator_t op = untouched;
      const qwino_status status =
          Create(d, kernel.data(), kernel_scales.data(),
                 d.bias.empty() ? nullptr : reinterpret_cast<const int32_t*>(bias.data()), &op);
      if (expectation.create_unsupported) {
        if (status == qwino_status_success) qwino_delete_operator(op);
        ASSERT_EQ(qwino_status_unsupported_parameter, status)
            << "forced algorithm that cannot run this layer exactly (Winograd: weights beyond "
               "the bound, or shape; indirect GEMM: weights outside [-127, 127])";
        ASSERT_EQ(untouched, op) << "failed create wrote *convolution_out";
        continue;
      }
      ASSERT_EQ(qwino_status_success, status);
      OperatorDeleter deleter{op};
      // Not fatal: the bytes are still compared (a wrong choice usually shows there too).
      CheckAlgorithm(op, expectation.allowed, "after create");
      ASSERT_NE(nullptr, qwino_operator_isa_name(op));
      // The operator keeps its own copy of kernel and bias.
      std::memset(kernel.data(), 0xCD, kernel.size());
      std::memset(bias.data(), 0xCD, bias.size());
      std::fill(kernel_scales.data(), kernel_scales.data() + kernel_scales.size(), -1.0f);

      // NULL pool at setup; run with NULL and with a 1-thread pool (same thread count); a
      // bigger pool is refused.
      uint8_t sentinel = static_cast<uint8_t>(0xA5 + 17 * iteration);
      {
        ScopedThreadPool one(1);
        if (!SetupRunCheck(op, expectation.allowed, s, input, nullptr, {nullptr, one.get()},
                           IdleThreadPool(), expected, accumulators, sentinel,
                           "setup without pool")) {
          return;
        }
      }
      for (size_t threads : thread_counts_) {
        sentinel = static_cast<uint8_t>(sentinel * 5 + 3);
        ScopedThreadPool pool(threads);
        std::vector<pthreadpool_t> run_pools = {pool.get()};
        if (threads == 3 || threads == 8) run_pools.push_back(nullptr);  // fewer threads: fine
        if (!SetupRunCheck(op, expectation.allowed, s, input, pool.get(), run_pools,
                           threads < kIdlePoolThreads ? IdleThreadPool() : nullptr, expected,
                           accumulators, sentinel,
                           "setup with " + std::to_string(threads) + " threads")) {
          return;
        }
      }
    }
  }

  // Creates one operator and sets it up again and again for a sequence of input sizes (batch,
  // height, width, input and output pixel strides; 0 = dense), running each setup twice.
  struct SetupShape {
    size_t batch_size, input_height, input_width, input_pixel_stride, output_pixel_stride;
    size_t threads;  // pool for setup and run (0 = NULL)
  };
  void TestSetupSequence(const std::vector<SetupShape>& sequence) const {
    ASSERT_EQ(qwino_status_success, qwino_initialize());
    SCOPED_TRACE(Describe() + ", isa " + qwino_isa_name());
    ASSERT_FALSE(sequence.empty());
    std::mt19937 rng(seed_);
    Data d = MakeWeights(rng);
    auto shape_for = [&](const SetupShape& q) {
      ReferenceConvolutionShape s = shape_;
      s.batch_size = q.batch_size;
      s.input_height = q.input_height;
      s.input_width = q.input_width;
      s.input_pixel_stride = q.input_pixel_stride != 0 ? q.input_pixel_stride : s.input_channels();
      s.output_pixel_stride =
          q.output_pixel_stride != 0 ? q.output_pixel_stride : s.output_channels();
      return s;
    };
    // Output quantization from the first shape's accumulators (fixed at create).
    {
      const ReferenceConvolutionShape s = shape_for(sequence[0]);
      ReferenceConvolutionShape dense = s;
      dense.input_pixel_stride = s.input_channels();
      std::mt19937 probe_rng(seed_ + 1);
      const std::vector<uint8_t> probe = MakeDenseInput(s, probe_rng);
      ChooseOutputQuantization(Accumulators(dense, probe, d), &d);
    }
    const Expectation expectation = Expect(d.kernel_view);
    ASSERT_FALSE(expectation.create_unsupported);
    qwino_operator_t op = nullptr;
    ASSERT_EQ(qwino_status_success, Create(d, &op));
    OperatorDeleter deleter{op};
    CheckAlgorithm(op, expectation.allowed, "after create");

    uint8_t sentinel = 0x3C;
    for (size_t i = 0; i < sequence.size(); i++) {
      const ReferenceConvolutionShape s = shape_for(sequence[i]);
      SCOPED_TRACE(
          "setup " + std::to_string(i) + ": batch " + std::to_string(s.batch_size) + ", input " +
          std::to_string(s.input_height) + "x" + std::to_string(s.input_width) + ", strides " +
          std::to_string(s.input_pixel_stride) + "/" + std::to_string(s.output_pixel_stride));
      ASSERT_GT(s.output_height(), 0u);
      ASSERT_GT(s.output_width(), 0u);
      const std::vector<uint8_t> dense_input = MakeDenseInput(s, rng);
      GuardedBytes input(InputBytes(s));
      StridedInput(s, dense_input, &input, rng);
      ReferenceConvolutionShape dense = s;
      dense.input_pixel_stride = s.input_channels();
      const std::vector<int32_t> accumulators = Accumulators(dense, dense_input, d);
      const std::vector<uint8_t> expected = Expected(accumulators, d);
      ScopedThreadPool scoped(sequence[i].threads != 0 ? sequence[i].threads : 1);
      pthreadpool_t pool = sequence[i].threads != 0 ? scoped.get() : nullptr;
      sentinel = static_cast<uint8_t>(sentinel * 7 + 1);
      ASSERT_TRUE(SetupRunCheck(op, expectation.allowed, s, input, pool, {pool, pool}, nullptr,
                                expected, accumulators, sentinel, "setup sequence"));
    }
  }

 private:
  static void FillBytes(std::vector<uint8_t>& bytes, Fill fill, uint8_t value, std::mt19937& rng) {
    std::uniform_int_distribution<int> byte(0, 255);
    for (auto& b : bytes) {
      switch (fill) {
        case Fill::kRandom:
          b = static_cast<uint8_t>(byte(rng));
          break;
        case Fill::kConstant:
          b = value;
          break;
        case Fill::kExtremes:
          b = (byte(rng) & 1) ? 255 : 0;
          break;
      }
    }
  }

  ReferenceConvolutionShape shape_;
  size_t input_pixel_stride_ = 0, output_pixel_stride_ = 0;
  uint8_t input_zero_point_ = 127, kernel_zero_point_ = 127;
  float input_scale_ = 0.5f, kernel_scale_ = 0.25f;
  float output_scale_ = 1.0f;
  bool auto_output_scale_ = true;
  uint8_t output_zero_point_ = 128;
  bool auto_output_zero_point_ = true;
  uint8_t qmin_ = 0, qmax_ = 255;
  Fill input_fill_ = Fill::kRandom, kernel_fill_ = Fill::kRandom;
  uint8_t input_value_ = 0, kernel_value_ = 0;
  KernelGenerator kernel_generator_;
  InputGenerator input_generator_;
  BiasMode bias_mode_ = BiasMode::kRandom;
  int32_t bias_value_ = 0;
  int32_t bias_range_ = 1 << 16;
  Mode mode_ = Mode::kAuto;
  DataType datatype_ = DataType::kQU8;
  std::vector<float> kernel_scales_;
  bool int8_weight_minus_128_ = false;
  bool fp32_ = false;
  size_t iterations_ = 1;
  uint32_t seed_ = 0x51A0;
  std::vector<size_t> thread_counts_ = {1, 2, 3, 4, 8};
};

}  // namespace qwino_test

#endif  // QWINO_TEST_CONVOLUTION_OPERATOR_TESTER_H_
