// Every bad call returns its status and changes nothing (qwino.h: "A call that fails changes
// nothing: outputs and operators are left as they were"): *convolution_out keeps its value, the
// output buffer keeps its bytes, a set-up operator keeps its previous setup and still runs.
#include <qwino.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "reference-convolution.h"

namespace {

constexpr uint8_t kSentinel = 0x5A;

// A valid 3x3 layer; each test breaks one argument.
struct CreateArgs {
  uint32_t padding_top = 1, padding_right = 1, padding_bottom = 1, padding_left = 1;
  uint32_t kernel_height = 3, kernel_width = 3;
  uint32_t subsampling_height = 1, subsampling_width = 1;
  uint32_t dilation_height = 1, dilation_width = 1;
  uint32_t groups = 2;
  size_t group_input_channels = 5, group_output_channels = 6;
  uint8_t input_zero_point = 120;
  float input_scale = 0.5f;
  uint8_t kernel_zero_point = 130;
  float kernel_scale = 0.25f;
  const uint8_t* kernel = nullptr;  // filled by Create() unless overridden with a non-default
  bool null_kernel = false;
  const int32_t* bias = nullptr;
  uint8_t output_zero_point = 128;
  float output_scale = 4.0f;
  uint8_t output_min = 0, output_max = 255;
  uint32_t flags = 0;
};

class InvalidParameters : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(qwino_status_success, qwino_initialize());
    kernel_.assign(4096, 0);  // big enough for every kernel shape below (2 x 6 x 7 x 7 x 5)
    for (size_t i = 0; i < kernel_.size(); i++) kernel_[i] = static_cast<uint8_t>(i * 37 + 11);
    bias_.assign(16, 1000);
  }

  // Calls create with args; returns the status and checks *convolution_out on failure.
  qwino_status Create(const CreateArgs& a, qwino_operator_t* op_out = nullptr,
                      bool null_out = false) {
    qwino_operator_t const untouched = reinterpret_cast<qwino_operator_t>(&kernel_);
    qwino_operator_t op = untouched;
    const qwino_status status = qwino_create_convolution2d_nhwc_q8(
        a.padding_top, a.padding_right, a.padding_bottom, a.padding_left, a.kernel_height,
        a.kernel_width, a.subsampling_height, a.subsampling_width, a.dilation_height,
        a.dilation_width, a.groups, a.group_input_channels, a.group_output_channels,
        a.input_zero_point, a.input_scale, a.kernel_zero_point, a.kernel_scale,
        a.null_kernel ? nullptr : (a.kernel != nullptr ? a.kernel : kernel_.data()), a.bias,
        a.output_zero_point, a.output_scale, a.output_min, a.output_max, a.flags,
        null_out ? nullptr : &op);
    if (status != qwino_status_success) {
      EXPECT_EQ(untouched, op) << "failed create wrote *convolution_out";
    } else if (op_out != nullptr) {
      *op_out = op;
    } else {
      EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
    }
    return status;
  }

  qwino_operator_t CreateValid(uint32_t flags = 0) {
    CreateArgs a;
    a.flags = flags;
    a.bias = bias_.data();
    qwino_operator_t op = nullptr;
    EXPECT_EQ(qwino_status_success, Create(a, &op));
    return op;
  }

  // A set-up 5x5, batch 1 run for the operator of CreateValid().
  struct Buffers {
    std::vector<uint8_t> input = std::vector<uint8_t>(2 * 5 * 5 * 10, 77);
    std::vector<uint8_t> output = std::vector<uint8_t>(2 * 5 * 5 * 12, kSentinel);
  };

  std::vector<uint8_t> kernel_;
  std::vector<int32_t> bias_;
};

bool AllEqual(const std::vector<uint8_t>& v, uint8_t value) {
  for (uint8_t b : v) {
    if (b != value) return false;
  }
  return true;
}

// Every call with a value that is not a live operator handle (NULL, deleted, stale, bogus) is
// rejected and writes nothing.
void ExpectNotAnOperator(qwino_operator_t op) {
  std::vector<uint8_t> input(5 * 5 * 10, 77), output(5 * 5 * 12, kSentinel);
  EXPECT_EQ(
      qwino_status_invalid_parameter,
      qwino_setup_convolution2d_nhwc_q8(op, 1, 5, 5, input.data(), 10, output.data(), 12, nullptr));
  EXPECT_EQ(qwino_status_invalid_parameter,
            qwino_setup_convolution2d_nhwc_qu8(op, 1, 5, 5, input.data(), 10, output.data(), 12,
                                               nullptr));
  EXPECT_EQ(qwino_status_invalid_parameter,
            qwino_setup_convolution2d_nhwc_qs8(
                op, 1, 5, 5, reinterpret_cast<const int8_t*>(input.data()), 10,
                reinterpret_cast<int8_t*>(output.data()), 12, nullptr));
  EXPECT_EQ(qwino_status_invalid_parameter, qwino_run_operator(op, nullptr));
  EXPECT_EQ(qwino_status_invalid_parameter, qwino_delete_operator(op));
  EXPECT_EQ(qwino_algorithm_none, qwino_operator_algorithm(op));
  EXPECT_EQ(nullptr, qwino_operator_isa_name(op));
  EXPECT_EQ(0u, qwino_operator_output_height(op));
  EXPECT_EQ(0u, qwino_operator_output_width(op));
  EXPECT_EQ(0u, qwino_operator_scratch_bytes(op));
  EXPECT_EQ(0u, qwino_operator_weight_bytes(op));
  EXPECT_TRUE(AllEqual(output, kSentinel));
}

// ---------------------------------------------------------------------------------------------
// Before qwino_initialize (and after qwino_deinitialize).

// Re-initialises however the test ends, so that later tests of this process still work.
struct Reinitialize {
  ~Reinitialize() { EXPECT_EQ(qwino_status_success, qwino_initialize()); }
};

TEST_F(InvalidParameters, calls_before_initialize_return_uninitialized) {
  qwino_operator_t op = CreateValid();
  ASSERT_NE(nullptr, op);
  Buffers b;
  ASSERT_EQ(qwino_status_success, qwino_setup_convolution2d_nhwc_q8(op, 1, 5, 5, b.input.data(), 10,
                                                                    b.output.data(), 12, nullptr));
  ASSERT_NE(nullptr, qwino_isa_name());
  {
    Reinitialize reinitialize;
    ASSERT_EQ(qwino_status_success, qwino_deinitialize());
    EXPECT_EQ(nullptr, qwino_isa_name());
    EXPECT_EQ(qwino_status_uninitialized, qwino_deinitialize());

    CreateArgs a;
    EXPECT_EQ(qwino_status_uninitialized, Create(a));
    EXPECT_EQ(qwino_status_uninitialized,
              qwino_setup_convolution2d_nhwc_q8(op, 1, 5, 5, b.input.data(), 10, b.output.data(),
                                                12, nullptr));
    EXPECT_EQ(qwino_status_uninitialized, qwino_run_operator(op, nullptr));
    EXPECT_TRUE(AllEqual(b.output, kSentinel)) << "run while uninitialized wrote output";
  }
  // Initialised again: the operator still has its setup and runs.
  EXPECT_NE(nullptr, qwino_isa_name());
  EXPECT_EQ(5u, qwino_operator_output_height(op));
  EXPECT_EQ(qwino_status_success, qwino_run_operator(op, nullptr));
  EXPECT_FALSE(AllEqual(b.output, kSentinel));
  EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
}

TEST_F(InvalidParameters, initialize_twice_is_harmless) {
  EXPECT_EQ(qwino_status_success, qwino_initialize());
  EXPECT_EQ(qwino_status_success, qwino_initialize());
  EXPECT_NE(nullptr, qwino_isa_name());
}

// QWINO_ISA naming no kernel set: unsupported_hardware, and the kernels chosen before stay.
TEST_F(InvalidParameters, initialize_with_unknown_isa) {
  const char* before = qwino_isa_name();
  ASSERT_NE(nullptr, before);
  const char* saved = std::getenv("QWINO_ISA");
  const std::string saved_value = saved != nullptr ? saved : "";
  struct Restore {
    bool had;
    std::string value;
    ~Restore() {
      if (had) {
        setenv("QWINO_ISA", value.c_str(), 1);
      } else {
        unsetenv("QWINO_ISA");
      }
      EXPECT_EQ(qwino_status_success, qwino_initialize());
    }
  } restore{saved != nullptr, saved_value};
  for (const char* isa : {"no-such-isa", "SCALAR", "neon-but-not-really"}) {
    ASSERT_EQ(0, setenv("QWINO_ISA", isa, 1));
    EXPECT_EQ(qwino_status_unsupported_hardware, qwino_initialize()) << isa;
    EXPECT_STREQ(before, qwino_isa_name()) << "a failed initialize changed the kernel set";
  }
  ASSERT_EQ(0, setenv("QWINO_ISA", "scalar", 1));
  EXPECT_EQ(qwino_status_success, qwino_initialize());
  EXPECT_STREQ("scalar", qwino_isa_name());
}

// ---------------------------------------------------------------------------------------------
// Create.

TEST_F(InvalidParameters, create_null_pointers) {
  CreateArgs a;
  a.null_kernel = true;
  EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  EXPECT_EQ(qwino_status_invalid_parameter, Create(CreateArgs(), nullptr, /*null_out=*/true));
  // bias NULL is valid
  CreateArgs b;
  b.bias = nullptr;
  EXPECT_EQ(qwino_status_success, Create(b));
}

TEST_F(InvalidParameters, create_zero_sizes) {
  {
    CreateArgs a;
    a.kernel_height = 0;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.kernel_width = 0;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.groups = 0;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.group_input_channels = 0;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.group_output_channels = 0;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.subsampling_height = 0;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.subsampling_width = 0;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.dilation_height = 0;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.dilation_width = 0;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  // Zero sizes on the direct path too (forced).
  {
    CreateArgs a;
    a.kernel_height = 0;
    a.flags = QWINO_FLAG_FORCE_DIRECT;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
}

// Sizes whose product overflows size_t (the kernel pointer is never read).
TEST_F(InvalidParameters, create_overflowing_sizes) {
  const size_t huge = std::numeric_limits<size_t>::max() / 2 + 1;
  {
    CreateArgs a;
    a.group_input_channels = huge;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.group_output_channels = huge;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.groups = 0xFFFFFFFFu;
    a.group_input_channels = huge / 4;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
}

// Sizes whose bytes cannot be objects: a status, never an exception escaping the C API (a
// bias of 2^62 channels made std::vector throw std::length_error through create).
TEST_F(InvalidParameters, create_sizes_beyond_the_address_space) {
  const size_t two_62 = size_t{1} << 62;
  {
    CreateArgs a;
    a.kernel_height = a.kernel_width = 1;
    a.groups = 1;
    a.group_input_channels = 1;
    a.group_output_channels = two_62;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.groups = 1;
    a.group_output_channels = two_62;  // 3x3, 5 input channels
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.kernel_height = a.kernel_width = 1;
    a.groups = 1;
    a.group_input_channels = two_62;
    a.group_output_channels = 2;  // 2^63 kernel bytes
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    CreateArgs a;
    a.kernel_height = 1;
    a.kernel_width = 0xFFFFFFFFu;
    a.groups = 0xFFFFFFFFu;
    a.group_input_channels = 1;
    a.group_output_channels = 1;  // 2^64 - 2^33 + 1 kernel bytes
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  }
  {
    // Addressable, but far more than any machine has: the allocation fails, cleanly. The
    // kernel is never read: the bias copy (2^42 bytes) fails first.
    CreateArgs a;
    a.kernel_height = a.kernel_width = 1;
    a.groups = 1;
    a.group_input_channels = size_t{1} << 21;
    a.group_output_channels = size_t{1} << 40;
    EXPECT_EQ(qwino_status_out_of_memory, Create(a));
  }
}

TEST_F(InvalidParameters, create_bad_scales) {
  const float bad[] = {0.0f,
                       -0.0f,
                       -1.0f,
                       -std::numeric_limits<float>::min(),
                       std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN(),
                       -std::numeric_limits<float>::quiet_NaN()};
  for (float s : bad) {
    SCOPED_TRACE(s);
    {
      CreateArgs a;
      a.input_scale = s;
      EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
    }
    {
      CreateArgs a;
      a.kernel_scale = s;
      EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
    }
    {
      CreateArgs a;
      a.output_scale = s;
      EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
    }
  }
}

TEST_F(InvalidParameters, create_output_min_above_max) {
  CreateArgs a;
  a.output_min = 101;
  a.output_max = 100;
  EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  a.output_min = 255;
  a.output_max = 0;
  EXPECT_EQ(qwino_status_invalid_parameter, Create(a));
  a.output_min = a.output_max = 100;  // equal is fine
  EXPECT_EQ(qwino_status_success, Create(a));
}

// The force flags qwino.h defines (F(4x4,3x3) once it is there).
std::vector<uint32_t> ForceFlags() {
  std::vector<uint32_t> flags = {QWINO_FLAG_FORCE_WINOGRAD, QWINO_FLAG_FORCE_DIRECT,
                                 QWINO_FLAG_FORCE_INDIRECT_GEMM, QWINO_FLAG_FORCE_DEPTHWISE};
#ifdef QWINO_FLAG_FORCE_WINOGRAD_F4
  flags.push_back(QWINO_FLAG_FORCE_WINOGRAD_F4);
#endif
  return flags;
}

TEST_F(InvalidParameters, create_bad_flags) {
  uint32_t known = QWINO_FLAG_REQUANTIZE_FP32 | QWINO_FLAG_YIELD_WORKERS;
  for (uint32_t f : ForceFlags()) known |= f;
  // Every bit qwino.h does not define, alone and next to a valid flag.
  for (uint32_t bit = 0; bit < 32; bit++) {
    const uint32_t flag = uint32_t{1} << bit;
    if ((known & flag) != 0) continue;
    CreateArgs a;
    a.flags = flag;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a)) << "flags " << a.flags;
    a.flags = flag | QWINO_FLAG_FORCE_DIRECT;
    EXPECT_EQ(qwino_status_invalid_parameter, Create(a)) << "flags " << a.flags;
  }
  CreateArgs all;
  all.flags = 0xFFFFFFFFu;
  EXPECT_EQ(qwino_status_invalid_parameter, Create(all));
  // At most one force flag.
  const std::vector<uint32_t> force = ForceFlags();
  for (size_t i = 0; i < force.size(); i++) {
    for (size_t j = i + 1; j < force.size(); j++) {
      CreateArgs two;
      two.flags = force[i] | force[j];
      EXPECT_EQ(qwino_status_invalid_parameter, Create(two)) << "flags " << two.flags;
    }
  }
  CreateArgs every;
  every.flags = known;
  EXPECT_EQ(qwino_status_invalid_parameter, Create(every));
  // Each one alone, and with the fp32 requantization, is fine on this 3x3 layer.
  for (uint32_t f : force) {
    CreateArgs fp32;
    fp32.flags = f | QWINO_FLAG_REQUANTIZE_FP32;
    const qwino_status fp32_status = Create(fp32);
    EXPECT_TRUE(fp32_status == qwino_status_success ||
                (f != QWINO_FLAG_FORCE_WINOGRAD && f != QWINO_FLAG_FORCE_DIRECT &&
                 fp32_status == qwino_status_unsupported_parameter))
        << "flags " << fp32.flags;
    // Depthwise takes only groups of one input and one output channel: not this layer's. (The
    // indirect GEMM takes its uint8 weights: no output channel holds both 0 and 255.)
    if (f == QWINO_FLAG_FORCE_DEPTHWISE) {
      CreateArgs refused;
      refused.flags = f;
      EXPECT_EQ(qwino_status_unsupported_parameter, Create(refused)) << "flags " << f;
      continue;
    }
    CreateArgs one;
    one.flags = f;
    const qwino_status status = Create(one);
#ifdef QWINO_FLAG_FORCE_WINOGRAD_F4
    // F(4x4,3x3) may be missing from the kernel set (unsupported_parameter), never invalid.
    if (f == QWINO_FLAG_FORCE_WINOGRAD_F4 && status == qwino_status_unsupported_parameter) continue;
#endif
    EXPECT_EQ(qwino_status_success, status) << "flags " << f;
  }
}

// Requantization scales above 256 are unsupported; every positive scale up to 256 is taken
// (below 2^-32 a channel's outputs are its output zero point).
TEST_F(InvalidParameters, create_unsupported_requantization_scale) {
  struct Scales {
    float input, kernel, output;
  };
  const float below_one = 1.0f - std::ldexp(1.0f, -24);
  const Scales unsupported[] = {
      {256.0f, 1.0f, below_one},                               // just above 256
      {512.0f, 1.0f, 1.0f},                                    // 512
      {1e30f, 1e30f, 1e-30f},                                  // huge
      {1.0f, 1.0f, std::numeric_limits<float>::denorm_min()},  // huge through a denormal
  };
  for (const Scales& s : unsupported) {
    SCOPED_TRACE(::testing::Message() << s.input << " * " << s.kernel << " / " << s.output);
    for (uint32_t flags :
         {0u, QWINO_FLAG_FORCE_DIRECT, QWINO_FLAG_FORCE_WINOGRAD, QWINO_FLAG_REQUANTIZE_FP32,
          QWINO_FLAG_REQUANTIZE_FP32 | QWINO_FLAG_FORCE_DIRECT}) {
      CreateArgs a;
      a.input_scale = s.input;
      a.kernel_scale = s.kernel;
      a.output_scale = s.output;
      a.flags = flags;
      EXPECT_EQ(qwino_status_unsupported_parameter, Create(a));
    }
  }
  // The ends that are supported, the scales at and above 1 (TFLite's left shift), and those
  // below 2^-32, down to ones whose float product underflows to 0.
  const Scales supported[] = {
      {1.0f, std::ldexp(1.0f, -33), 1.0f},                     // 2^-33
      {below_one, std::ldexp(1.0f, -32), 1.0f},                // just below 2^-32
      {std::numeric_limits<float>::denorm_min(), 1.0f, 1.0f},  // tiny
      {std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::denorm_min(),
       1.0f},                   // 0 in float
      {1e-30f, 1e-30f, 1e30f},  // tiny
      {1.0f, 1e-36f, 1.0f},     // a dead channel's
      {1.0f, std::ldexp(1.0f, -32), 1.0f},
      {below_one, 1.0f, 1.0f},
      {1.0f + std::ldexp(1.0f, -22), 1.0f - std::ldexp(1.0f, -23), 1.0f + std::ldexp(1.0f, -23)},
      {1.0f, 1.0f, 1.0f},
      {2.0f, 1.0f, 1.0f},
      {256.0f, 1.0f, 1.0f},
  };
  for (const Scales& s : supported) {
    SCOPED_TRACE(::testing::Message() << s.input << " * " << s.kernel << " / " << s.output);
    for (uint32_t flags : {0u, QWINO_FLAG_FORCE_DIRECT, QWINO_FLAG_REQUANTIZE_FP32,
                           QWINO_FLAG_REQUANTIZE_FP32 | QWINO_FLAG_FORCE_DIRECT}) {
      CreateArgs a;
      a.input_scale = s.input;
      a.kernel_scale = s.kernel;
      a.output_scale = s.output;
      a.flags = flags;
      EXPECT_EQ(qwino_status_success, Create(a));
    }
  }
}

// Forced Winograd on shapes it cannot run.
TEST_F(InvalidParameters, create_forced_winograd_unsupported_shapes) {
  struct Shape {
    uint32_t kh, kw, sh, sw, dh, dw;
  };
  const Shape shapes[] = {{5, 5, 1, 1, 1, 1}, {3, 3, 2, 2, 1, 1}, {3, 3, 1, 2, 1, 1},
                          {3, 3, 2, 1, 1, 1}, {3, 3, 1, 1, 2, 2}, {3, 3, 1, 1, 1, 2},
                          {3, 3, 2, 1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 3, 1, 1, 1, 1},
                          {3, 1, 1, 1, 1, 1}, {2, 2, 1, 1, 1, 1}, {4, 4, 1, 1, 1, 1}};
  for (const Shape& s : shapes) {
    SCOPED_TRACE(::testing::Message() << s.kh << "x" << s.kw << " stride " << s.sh << "x" << s.sw
                                      << " dilation " << s.dh << "x" << s.dw);
    CreateArgs a;
    a.kernel_height = s.kh;
    a.kernel_width = s.kw;
    a.subsampling_height = s.sh;
    a.subsampling_width = s.sw;
    a.dilation_height = s.dh;
    a.dilation_width = s.dw;
    a.flags = QWINO_FLAG_FORCE_WINOGRAD;
    EXPECT_EQ(qwino_status_unsupported_parameter, Create(a));
#ifdef QWINO_FLAG_FORCE_WINOGRAD_F4
    a.flags = QWINO_FLAG_FORCE_WINOGRAD_F4;
    EXPECT_EQ(qwino_status_unsupported_parameter, Create(a));
#endif
    a.flags = 0;  // the same shape is fine on the direct path or the indirect GEMM
    qwino_operator_t op = nullptr;
    EXPECT_EQ(qwino_status_success, Create(a, &op));
    const qwino_algorithm chosen = qwino_operator_algorithm(op);
    EXPECT_TRUE(chosen == qwino_algorithm_direct || chosen == qwino_algorithm_indirect_gemm)
        << qwino_algorithm_name(chosen);
    EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
  }
}

// Forced Winograd with weights beyond the exactness bound (kzp = 0, w = 255, izp = 0,
// 918 channels: 9 * 918 * 255 * 255 > 2^29).
TEST_F(InvalidParameters, create_forced_winograd_weights_beyond_bound) {
  std::vector<uint8_t> kernel(9 * 918, 255);
  CreateArgs a;
  a.groups = 1;
  a.group_input_channels = 918;
  a.group_output_channels = 1;
  a.kernel = kernel.data();
  a.kernel_zero_point = 0;
  a.input_zero_point = 0;
  a.flags = QWINO_FLAG_FORCE_WINOGRAD;
  EXPECT_EQ(qwino_status_unsupported_parameter, Create(a));
  a.flags = 0;  // automatic choice: anything but F(2x2,3x3)
  qwino_operator_t op = nullptr;
  ASSERT_EQ(qwino_status_success, Create(a, &op));
  EXPECT_NE(qwino_algorithm_winograd_f2x2_3x3, qwino_operator_algorithm(op));
  EXPECT_NE(qwino_algorithm_none, qwino_operator_algorithm(op));
  EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
}

// Error precedence is not specified beyond "fails"; but an invalid argument must never produce
// an operator, whatever else is wrong.
TEST_F(InvalidParameters, create_several_errors) {
  CreateArgs a;
  a.groups = 0;
  a.input_scale = -1.0f;
  a.flags = 0x40;
  const qwino_status status = Create(a);
  EXPECT_TRUE(status == qwino_status_invalid_parameter ||
              status == qwino_status_unsupported_parameter)
      << status;
}

// ---------------------------------------------------------------------------------------------
// Setup.

class InvalidSetup : public InvalidParameters,
                     public ::testing::WithParamInterface<uint32_t /* flags */> {};

TEST_P(InvalidSetup, bad_setup_changes_nothing) {
  CreateArgs args;
  args.flags = GetParam();
  args.bias = bias_.data();
  // The indirect GEMM needs weights in [-127, 127] around a zero point of 128.
  std::vector<uint8_t> symmetric(kernel_.size());
  for (size_t i = 0; i < symmetric.size(); i++) symmetric[i] = static_cast<uint8_t>(1 + i % 255);
  if (GetParam() == QWINO_FLAG_FORCE_INDIRECT_GEMM) {
    args.kernel_zero_point = 128;
    args.kernel = symmetric.data();
  }
  // Depthwise: 10 groups of one channel, the same pixel strides.
  if (GetParam() == QWINO_FLAG_FORCE_DEPTHWISE) {
    args.groups = 10;
    args.group_input_channels = args.group_output_channels = 1;
  }
  qwino_operator_t op = nullptr;
  const qwino_status status = Create(args, &op);
#ifdef QWINO_FLAG_FORCE_WINOGRAD_F4
  if (GetParam() == QWINO_FLAG_FORCE_WINOGRAD_F4 && status == qwino_status_unsupported_parameter) {
    GTEST_SKIP() << "no Winograd F(4x4,3x3) in kernel set " << qwino_isa_name();
  }
#endif
  ASSERT_EQ(qwino_status_success, status);
  Buffers b;  // 5x5 input, 2 groups x 5 channels (stride 10), output stride 12
  // A first, valid setup (3 threads) whose state must survive every failed setup.
  pthreadpool_t pool = pthreadpool_create(3);
  ASSERT_EQ(qwino_status_success, qwino_setup_convolution2d_nhwc_q8(op, 1, 5, 5, b.input.data(), 10,
                                                                    b.output.data(), 12, pool));
  ASSERT_EQ(qwino_status_success, qwino_run_operator(op, pool));
  const std::vector<uint8_t> good = b.output;
  ASSERT_FALSE(AllEqual(good, kSentinel));
  const size_t scratch = qwino_operator_scratch_bytes(op);

  std::vector<uint8_t> input(3 * 9 * 9 * 40, 1), output(3 * 9 * 9 * 40, kSentinel);
  const size_t input_channels = args.groups * args.group_input_channels;
  const size_t output_channels = args.groups * args.group_output_channels;
  struct Case {
    const char* what;
    size_t batch, height, width;
    const uint8_t* input;
    size_t input_stride;
    uint8_t* output;
    size_t output_stride;
  };
  const Case cases[] = {
      {"batch 0", 0, 5, 5, input.data(), 10, output.data(), 12},
      {"height 0", 1, 0, 5, input.data(), 10, output.data(), 12},
      {"width 0", 1, 5, 0, input.data(), 10, output.data(), 12},
      {"input NULL", 1, 5, 5, nullptr, 10, output.data(), 12},
      {"output NULL", 1, 5, 5, input.data(), 10, nullptr, 12},
      {"input stride < groups * channels", 1, 5, 5, input.data(), input_channels - 1, output.data(),
       12},
      {"input stride 0", 1, 5, 5, input.data(), 0, output.data(), 12},
      {"output stride < groups * channels", 1, 5, 5, input.data(), 10, output.data(),
       output_channels - 1},
      {"output stride 0", 1, 5, 5, input.data(), 10, output.data(), 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(
        qwino_status_invalid_parameter,
        qwino_setup_convolution2d_nhwc_q8(op, c.batch, c.height, c.width, c.input, c.input_stride,
                                          c.output, c.output_stride, nullptr));
    EXPECT_TRUE(AllEqual(output, kSentinel));
  }
  // The earlier setup is intact: same sizes, same scratch, runs into the old buffer.
  EXPECT_EQ(5u, qwino_operator_output_height(op));
  EXPECT_EQ(5u, qwino_operator_output_width(op));
  EXPECT_EQ(scratch, qwino_operator_scratch_bytes(op));
  std::fill(b.output.begin(), b.output.end(), kSentinel);
  EXPECT_EQ(qwino_status_success, qwino_run_operator(op, pool));
  EXPECT_EQ(good, b.output);
  EXPECT_TRUE(AllEqual(output, kSentinel));
  pthreadpool_destroy(pool);
  EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
}

INSTANTIATE_TEST_SUITE_P(Paths, InvalidSetup, ::testing::ValuesIn(ForceFlags()));
INSTANTIATE_TEST_SUITE_P(Automatic, InvalidSetup, ::testing::Values(0u));

// Padding that leaves no output: the padded input is smaller than the (dilated) kernel.
TEST_F(InvalidParameters, setup_no_output) {
  struct Case {
    uint32_t kernel, dilation, padding;
    size_t height, width;
  };
  const Case cases[] = {
      {3, 1, 0, 2, 5}, {3, 1, 0, 5, 2}, {3, 1, 0, 1, 1}, {5, 1, 1, 2, 2},
      {3, 2, 1, 2, 9}, {3, 3, 2, 1, 1}, {7, 1, 2, 2, 8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << c.kernel << "x" << c.kernel << " dilation " << c.dilation << " padding "
                 << c.padding << " input " << c.height << "x" << c.width);
    CreateArgs a;
    a.kernel_height = a.kernel_width = c.kernel;
    a.dilation_height = a.dilation_width = c.dilation;
    a.padding_top = a.padding_right = a.padding_bottom = a.padding_left = c.padding;
    qwino_operator_t op = nullptr;
    ASSERT_EQ(qwino_status_success, Create(a, &op));
    std::vector<uint8_t> input(c.height * c.width * 10, 1), output(64, kSentinel);
    EXPECT_EQ(qwino_status_invalid_parameter,
              qwino_setup_convolution2d_nhwc_q8(op, 1, c.height, c.width, input.data(), 10,
                                                output.data(), 12, nullptr));
    EXPECT_EQ(0u, qwino_operator_output_height(op));
    EXPECT_EQ(0u, qwino_operator_output_width(op));
    EXPECT_EQ(qwino_status_invalid_parameter, qwino_run_operator(op, nullptr));
    EXPECT_TRUE(AllEqual(output, kSentinel));
    EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
  }
}

// Sizes that wrap around or describe tensors no process can hold: each was accepted before and
// made run write out of bounds, divide by zero or never return. The operator keeps its setup.
TEST_F(InvalidParameters, setup_sizes_beyond_the_address_space) {
  const size_t two_32 = size_t{1} << 32;
  const size_t size_max = std::numeric_limits<size_t>::max();
  struct Case {
    const char* what;
    uint32_t kernel, padding, groups;
    size_t input_channels, output_channels;
    size_t batch, height, width, input_stride, output_stride;
  };
  const Case cases[] = {
      {"3x3, 2^32 x 2^32 image", 3, 1, 1, 1, 1, 1, two_32, two_32, 1, 1},
      {"1x1, 2^32 x 2^32 image", 1, 0, 1, 1, 1, 1, two_32, two_32, 1, 1},
      {"1x1, (2^32 + 1) x 2^32 image", 1, 0, 1, 1, 1, 1, two_32 + 1, two_32, 1, 1},
      {"batch 2^62 + 1 of 2x2", 3, 1, 1, 1, 1, (size_t{1} << 62) + 1, 2, 2, 1, 1},
      {"output stride SIZE_MAX, 1x2 image", 3, 1, 1, 1, 1, 1, 1, 2, 1, size_max},
      {"output stride 2^63, 1x2 image", 3, 1, 1, 1, 1, 1, 1, 2, 1, size_t{1} << 63},
      {"input stride SIZE_MAX, 1x2 image", 3, 1, 1, 1, 1, 1, 1, 2, size_max, 1},
      {"1x1 kernel, padding 2^32 - 1, 3x3 image", 1, 0xFFFFFFFFu, 1, 1, 1, 1, 3, 3, 1, 1},
      {"2^20 output channels, 2^22 x 2^22 image", 1, 0, 1, 1, size_t{1} << 20, 1, size_t{1} << 22,
       size_t{1} << 22, 1, size_t{1} << 20},
      {"height SIZE_MAX - 1, padding 10", 3, 10, 1, 1, 1, 1, size_max - 1, 4, 1, 1},
      {"height SIZE_MAX, padding 1", 3, 1, 1, 1, 1, 1, size_max, 1, 1, 1},
  };
  std::vector<uint8_t> input(64, 1), output(64, kSentinel);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    CreateArgs a;
    a.kernel_height = a.kernel_width = c.kernel;
    a.padding_top = a.padding_right = a.padding_bottom = a.padding_left = c.padding;
    a.groups = c.groups;
    a.group_input_channels = c.input_channels;
    a.group_output_channels = c.output_channels;
    std::vector<uint8_t> kernel(c.output_channels * c.kernel * c.kernel * c.input_channels, 3);
    a.kernel = kernel.data();
    qwino_operator_t op = nullptr;
    ASSERT_EQ(qwino_status_success, Create(a, &op));
    // A valid setup first, where the padding leaves a small output (a 3x3 image): it must
    // survive the bad one.
    const bool small = c.padding <= 10;
    const size_t side = small ? 3 + 2 * c.padding - c.kernel + 1 : 0;
    std::vector<uint8_t> small_input(9 * c.input_channels, 5);
    std::vector<uint8_t> small_output(side * side * c.output_channels, kSentinel);
    if (small) {
      ASSERT_EQ(qwino_status_success,
                qwino_setup_convolution2d_nhwc_q8(op, 1, 3, 3, small_input.data(), c.input_channels,
                                                  small_output.data(), c.output_channels, nullptr));
    }
    EXPECT_EQ(
        qwino_status_invalid_parameter,
        qwino_setup_convolution2d_nhwc_q8(op, c.batch, c.height, c.width, input.data(),
                                          c.input_stride, output.data(), c.output_stride, nullptr));
    EXPECT_TRUE(AllEqual(output, kSentinel));
    EXPECT_EQ(side, qwino_operator_output_height(op));
    if (small) {
      EXPECT_EQ(qwino_status_success, qwino_run_operator(op, nullptr));
      EXPECT_FALSE(AllEqual(small_output, kSentinel));
    } else {
      EXPECT_EQ(qwino_status_invalid_parameter, qwino_run_operator(op, nullptr));  // no setup
    }
    EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
  }
}

// Padding may be any uint32_t: a top padding of 2^32 - 1 on a one-row image describes an
// output of 2^32 - 2 rows, which setup sizes at once (it used to take time in proportion to the
// image, and to wrap region offsets past 2^64) with no more scratch than a small image needs.
TEST_F(InvalidParameters, setup_huge_padding_is_sized_at_once) {
  for (uint32_t flags : {0u, uint32_t{QWINO_FLAG_FORCE_DIRECT}}) {
    CreateArgs a;
    a.padding_top = 0xFFFFFFFFu;
    a.padding_right = a.padding_bottom = a.padding_left = 0;
    a.groups = 1;
    a.group_input_channels = 1;
    a.group_output_channels = 1;
    a.flags = flags;
    qwino_operator_t op = nullptr;
    ASSERT_EQ(qwino_status_success, Create(a, &op));
    std::vector<uint8_t> input(4096, 1), output(64, kSentinel);
    for (size_t width : {size_t{3}, size_t{64}, size_t{4096}}) {
      SCOPED_TRACE(width);
      ASSERT_EQ(qwino_status_success,
                qwino_setup_convolution2d_nhwc_q8(op, 1, 1, width, input.data(), 1, output.data(),
                                                  1, nullptr));
      EXPECT_EQ(size_t{0xFFFFFFFFu} - 1, qwino_operator_output_height(op));
      EXPECT_EQ(width - 2, qwino_operator_output_width(op));
      EXPECT_LT(qwino_operator_scratch_bytes(op), size_t{1} << 20);
    }
    EXPECT_TRUE(AllEqual(output, kSentinel));
    EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
  }
}

// ---------------------------------------------------------------------------------------------
// Run.

TEST_F(InvalidParameters, run_before_setup) {
  for (uint32_t flags : {0u, QWINO_FLAG_FORCE_DIRECT}) {
    qwino_operator_t op = CreateValid(flags);
    ASSERT_NE(nullptr, op);
    EXPECT_EQ(0u, qwino_operator_output_height(op));
    EXPECT_EQ(0u, qwino_operator_scratch_bytes(op));
    EXPECT_EQ(qwino_status_invalid_parameter, qwino_run_operator(op, nullptr));
    pthreadpool_t pool = pthreadpool_create(2);
    EXPECT_EQ(qwino_status_invalid_parameter, qwino_run_operator(op, pool));
    pthreadpool_destroy(pool);
    EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
  }
}

TEST_F(InvalidParameters, run_with_bigger_pool_than_setup) {
  for (uint32_t flags : {0u, QWINO_FLAG_FORCE_DIRECT}) {
    qwino_operator_t op = CreateValid(flags);
    ASSERT_NE(nullptr, op);
    Buffers b;
    pthreadpool_t two = pthreadpool_create(2), four = pthreadpool_create(4);
    ASSERT_EQ(qwino_status_success,
              qwino_setup_convolution2d_nhwc_q8(op, 1, 5, 5, b.input.data(), 10, b.output.data(),
                                                12, nullptr));
    EXPECT_EQ(qwino_status_invalid_parameter, qwino_run_operator(op, two));
    EXPECT_TRUE(AllEqual(b.output, kSentinel));
    ASSERT_EQ(qwino_status_success, qwino_setup_convolution2d_nhwc_q8(
                                        op, 1, 5, 5, b.input.data(), 10, b.output.data(), 12, two));
    EXPECT_EQ(qwino_status_invalid_parameter, qwino_run_operator(op, four));
    EXPECT_TRUE(AllEqual(b.output, kSentinel));
    // Smaller or equal pools are fine.
    EXPECT_EQ(qwino_status_success, qwino_run_operator(op, two));
    const std::vector<uint8_t> first = b.output;
    std::fill(b.output.begin(), b.output.end(), kSentinel);
    EXPECT_EQ(qwino_status_success, qwino_run_operator(op, nullptr));
    EXPECT_EQ(first, b.output);
    pthreadpool_destroy(two);
    pthreadpool_destroy(four);
    EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
  }
}

// ---------------------------------------------------------------------------------------------
// NULL, deleted and bogus operators.

TEST_F(InvalidParameters, null_operator) { ExpectNotAnOperator(nullptr); }

TEST_F(InvalidParameters, deleted_operator) {
  for (uint32_t flags : {0u, QWINO_FLAG_FORCE_DIRECT}) {
    qwino_operator_t op = CreateValid(flags);
    ASSERT_NE(nullptr, op);
    Buffers b;
    ASSERT_EQ(qwino_status_success,
              qwino_setup_convolution2d_nhwc_q8(op, 1, 5, 5, b.input.data(), 10, b.output.data(),
                                                12, nullptr));
    ASSERT_EQ(qwino_status_success, qwino_delete_operator(op));
    ExpectNotAnOperator(op);
    EXPECT_TRUE(AllEqual(b.output, kSentinel));
  }
}

TEST_F(InvalidParameters, bogus_operator_pointer) {
  struct NotAnOperator {
    char bytes[4096];
  } bogus;
  std::memset(&bogus, 0xEE, sizeof(bogus));
  ExpectNotAnOperator(reinterpret_cast<qwino_operator_t>(&bogus));
  for (size_t i = 0; i < sizeof(bogus.bytes); i++) {
    ASSERT_EQ(0xEE, static_cast<uint8_t>(bogus.bytes[i])) << "bogus operator memory written";
  }
  // Values near a live handle (another slot, another generation) are not operators either, and
  // the live one survives the probes.
  qwino_operator_t live = CreateValid();
  ASSERT_NE(nullptr, live);
  for (uintptr_t offset :
       {uintptr_t{1}, uintptr_t{8}, uintptr_t{1} << 24, uintptr_t{1} << 32, ~uintptr_t{0}}) {
    SCOPED_TRACE(offset);
    ExpectNotAnOperator(
        reinterpret_cast<qwino_operator_t>(reinterpret_cast<uintptr_t>(live) + offset));
  }
  EXPECT_NE(qwino_algorithm_none, qwino_operator_algorithm(live));
  EXPECT_EQ(qwino_status_success, qwino_delete_operator(live));
}

// The allocator hands a freed operator's memory straight to the next create: the old handle must
// still be rejected, and must not reach (or delete) the new operator.
TEST_F(InvalidParameters, stale_handle_after_its_memory_is_reused) {
  for (int round = 0; round < 100; round++) {
    qwino_operator_t old_op = CreateValid();
    ASSERT_NE(nullptr, old_op);
    ASSERT_EQ(qwino_status_success, qwino_delete_operator(old_op));
    qwino_operator_t new_op = CreateValid();
    ASSERT_NE(nullptr, new_op);
    EXPECT_NE(old_op, new_op);
    ExpectNotAnOperator(old_op);
    // The new operator is intact and works.
    Buffers b;
    ASSERT_EQ(qwino_status_success,
              qwino_setup_convolution2d_nhwc_q8(new_op, 1, 5, 5, b.input.data(), 10,
                                                b.output.data(), 12, nullptr));
    EXPECT_EQ(qwino_status_success, qwino_run_operator(new_op, nullptr));
    EXPECT_FALSE(AllEqual(b.output, kSentinel));
    ASSERT_EQ(qwino_status_success, qwino_delete_operator(new_op));
  }
}

// 8192 groups of one channel (a depthwise layer) used to pack 1,490x their 72 KiB of weights:
// every algorithm's packing now stays within qwino.h's budget, whatever setups choose.
TEST_F(InvalidParameters, grouped_weights_stay_within_the_packing_budget) {
  const size_t groups = 8192;
  std::vector<uint8_t> kernel(groups * 9);
  for (size_t i = 0; i < kernel.size(); i++) kernel[i] = static_cast<uint8_t>(i * 29 + 3);
  CreateArgs a;
  a.groups = groups;
  a.group_input_channels = a.group_output_channels = 1;
  a.kernel = kernel.data();
  for (uint32_t flags :
       {uint32_t{QWINO_FLAG_FORCE_WINOGRAD}, uint32_t{QWINO_FLAG_FORCE_WINOGRAD_F4}}) {
    a.flags = flags;
    EXPECT_EQ(qwino_status_unsupported_parameter, Create(a)) << "flags " << flags;
  }
  a.flags = 0;
  qwino_operator_t op = nullptr;
  ASSERT_EQ(qwino_status_success, Create(a, &op));
  for (size_t size : {1, 5, 56}) {
    std::vector<uint8_t> input(size * size * groups, 9), output(size * size * groups);
    ASSERT_EQ(qwino_status_success,
              qwino_setup_convolution2d_nhwc_q8(op, 1, size, size, input.data(), groups,
                                                output.data(), groups, nullptr));
    ASSERT_EQ(qwino_status_success, qwino_run_operator(op, nullptr));
  }
  // qwino.h: the copies of kernel and bias, plus per algorithm at most 16 x kernel bytes +
  // max(64 KiB, P), P = 2 x positions x round_up(K, 4) x 32 <= 2 x 9 x 4 x 32 here.
  const size_t copies = kernel.size() + groups * sizeof(int32_t) + 1;
  EXPECT_LE(qwino_operator_weight_bytes(op), copies + 3 * (16 * kernel.size() + 64 * 1024));
  // The depthwise path runs it, and its packing (every tap of every channel at least once, and
  // the per-channel values) is counted too, as qwino.h promises for every packing.
  EXPECT_EQ(qwino_algorithm_depthwise, qwino_operator_algorithm(op));
  EXPECT_GE(qwino_operator_weight_bytes(op), copies + kernel.size() + groups * sizeof(int32_t));
  EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
}

// qwino.h's names of the algorithms (qwino_algorithm_name), and "none" for qwino_algorithm_none
// and for a value that is no algorithm.
TEST(AlgorithmNames, every_algorithm_and_none) {
  EXPECT_STREQ("direct", qwino_algorithm_name(qwino_algorithm_direct));
  EXPECT_STREQ("winograd-f2x2-3x3", qwino_algorithm_name(qwino_algorithm_winograd_f2x2_3x3));
  EXPECT_STREQ("winograd-f4x4-3x3", qwino_algorithm_name(qwino_algorithm_winograd_f4x4_3x3));
  EXPECT_STREQ("indirect-gemm", qwino_algorithm_name(qwino_algorithm_indirect_gemm));
  EXPECT_STREQ("depthwise", qwino_algorithm_name(qwino_algorithm_depthwise));
  EXPECT_STREQ("none", qwino_algorithm_name(qwino_algorithm_none));
  EXPECT_STREQ("none", qwino_algorithm_name(static_cast<qwino_algorithm>(7)));  // in range, unused
}

// qwino.h: qwino_operator_weight_bytes counts the operator's copies and every packing. Each
// algorithm packs every weight at least once, so with each one forced its count is at least twice
// the kernel's bytes; the copies alone (kernel, bias and 16 bytes of per-channel values a channel)
// stay below that on these layers, whose channels hold 45 and 49 weights.
TEST_F(InvalidParameters, weight_bytes_count_each_algorithms_packing) {
  std::vector<uint8_t> kernel(8 * 49);
  for (size_t i = 0; i < kernel.size(); i++) kernel[i] = static_cast<uint8_t>(120 + i % 21);
  const struct {
    uint32_t flags;
    qwino_algorithm algorithm;
  } cases[] = {{QWINO_FLAG_FORCE_WINOGRAD_F2X2, qwino_algorithm_winograd_f2x2_3x3},
               {QWINO_FLAG_FORCE_WINOGRAD_F4X4, qwino_algorithm_winograd_f4x4_3x3},
               {QWINO_FLAG_FORCE_DIRECT, qwino_algorithm_direct},
               {QWINO_FLAG_FORCE_INDIRECT_GEMM, qwino_algorithm_indirect_gemm},
               {QWINO_FLAG_FORCE_DEPTHWISE, qwino_algorithm_depthwise}};
  for (const auto& c : cases) {
    SCOPED_TRACE(qwino_algorithm_name(c.algorithm));
    CreateArgs a;
    a.kernel = kernel.data();
    size_t kernel_bytes = 0;
    if (c.algorithm == qwino_algorithm_depthwise) {
      a.groups = 8;  // 7x7 depthwise: 8 groups of one channel
      a.group_input_channels = a.group_output_channels = 1;
      a.kernel_height = a.kernel_width = 7;
      a.padding_top = a.padding_right = a.padding_bottom = a.padding_left = 3;
      kernel_bytes = 8 * 49;
    } else {
      a.groups = 1;  // 3x3, 5 input and 6 output channels
      kernel_bytes = 6 * 9 * 5;
    }
    a.flags = c.flags;
    qwino_operator_t op = nullptr;
    ASSERT_EQ(qwino_status_success, Create(a, &op));
    EXPECT_EQ(c.algorithm, qwino_operator_algorithm(op));
    EXPECT_GE(qwino_operator_weight_bytes(op), 2 * kernel_bytes);
    EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
  }
}

TEST_F(InvalidParameters, algorithm_names) {
  EXPECT_STREQ("direct", qwino_algorithm_name(qwino_algorithm_direct));
  EXPECT_STREQ("winograd-f2x2-3x3", qwino_algorithm_name(qwino_algorithm_winograd_f2x2_3x3));
  EXPECT_STREQ("none", qwino_algorithm_name(qwino_algorithm_none));
#ifdef QWINO_FLAG_FORCE_WINOGRAD_F4
  EXPECT_STREQ("winograd-f4x4-3x3", qwino_algorithm_name(qwino_algorithm_winograd_f4x4_3x3));
#endif
  EXPECT_STREQ("indirect-gemm", qwino_algorithm_name(qwino_algorithm_indirect_gemm));
  EXPECT_STREQ("depthwise", qwino_algorithm_name(qwino_algorithm_depthwise));
  EXPECT_STREQ("none", qwino_algorithm_name(static_cast<qwino_algorithm>(7)));  // in range, unused
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The int8 and per-channel entry points (qwino.h): the same checks, and their own.

namespace {

// Creates through one of the int8-weight entry points with per-channel scales (per-tensor _qs8
// takes scales[0]); the layer is CreateArgs' (2 groups x 5 -> 6).
enum class Int8Entry { kQS8, kQS8QC8W, kQU8QC8W };

qwino_status CreateInt8(Int8Entry entry, const std::vector<int8_t>& kernel, const float* scales,
                        int8_t output_min, int8_t output_max, uint32_t flags,
                        qwino_operator_t* op_out) {
  static int marker;
  qwino_operator_t const untouched = reinterpret_cast<qwino_operator_t>(&marker);
  qwino_operator_t op = untouched;
  qwino_status status = qwino_status_invalid_parameter;
  switch (entry) {
    case Int8Entry::kQS8:
      status = qwino_create_convolution2d_nhwc_qs8(
          1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 2, 5, 6, -3, 0.5f, scales != nullptr ? scales[0] : 1.0f,
          kernel.data(), nullptr, 7, 4.0f, output_min, output_max, flags, &op);
      break;
    case Int8Entry::kQS8QC8W:
      status = qwino_create_convolution2d_nhwc_qs8_qc8w(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 2, 5, 6, -3,
                                                        0.5f, scales, kernel.data(), nullptr, 7,
                                                        4.0f, output_min, output_max, flags, &op);
      break;
    case Int8Entry::kQU8QC8W:
      status = qwino_create_convolution2d_nhwc_qu8_qc8w(
          1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 2, 5, 6, 125, 0.5f, scales, kernel.data(), nullptr, 135,
          4.0f, static_cast<uint8_t>(output_min + 128), static_cast<uint8_t>(output_max + 128),
          flags, &op);
      break;
  }
  if (status != qwino_status_success) {
    EXPECT_EQ(untouched, op) << "failed create wrote *convolution_out";
  } else {
    *op_out = op;
  }
  return status;
}

std::vector<int8_t> Int8Kernel() {
  std::vector<int8_t> kernel(2 * 6 * 9 * 5);
  for (size_t i = 0; i < kernel.size(); i++) kernel[i] = static_cast<int8_t>(i * 37 + 11);
  return kernel;
}

}  // namespace

TEST_F(InvalidParameters, int8_entry_points_bad_arguments) {
  const std::vector<int8_t> kernel = Int8Kernel();
  const std::vector<float> good(12, 0.25f);
  for (Int8Entry entry : {Int8Entry::kQS8, Int8Entry::kQS8QC8W, Int8Entry::kQU8QC8W}) {
    SCOPED_TRACE(static_cast<int>(entry));
    qwino_operator_t op = nullptr;
    for (uint32_t flags : {0u, QWINO_FLAG_REQUANTIZE_FP32, QWINO_FLAG_FORCE_DIRECT,
                           QWINO_FLAG_YIELD_WORKERS | QWINO_FLAG_FORCE_DIRECT}) {
      ASSERT_EQ(qwino_status_success,
                CreateInt8(entry, kernel, good.data(), -128, 127, flags, &op));
      EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
    }
    // Clamp bounds the wrong way round, unknown flags, two force flags.
    EXPECT_EQ(qwino_status_invalid_parameter, CreateInt8(entry, kernel, good.data(), 5, 4, 0, &op));
    EXPECT_EQ(qwino_status_invalid_parameter,
              CreateInt8(entry, kernel, good.data(), -128, 127, 0x400, &op));
    EXPECT_EQ(qwino_status_invalid_parameter,
              CreateInt8(entry, kernel, good.data(), -128, 127,
                         QWINO_FLAG_FORCE_DIRECT | QWINO_FLAG_FORCE_WINOGRAD, &op));
    if (entry == Int8Entry::kQS8) continue;
    // Per-channel scales: a NULL array, and a bad scale in any one channel.
    EXPECT_EQ(qwino_status_invalid_parameter,
              CreateInt8(entry, kernel, nullptr, -128, 127, 0, &op));
    const float bad[] = {0.0f, -0.0f, -1.0f, std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN()};
    for (float b : bad) {
      for (size_t channel : {size_t{0}, size_t{5}, size_t{11}}) {
        std::vector<float> scales = good;
        scales[channel] = b;
        EXPECT_EQ(qwino_status_invalid_parameter,
                  CreateInt8(entry, kernel, scales.data(), -128, 127, 0, &op))
            << "scale " << b << " in channel " << channel;
      }
    }
    // One channel's requantization scale above 256 (input 0.5, output 4): in either mode,
    // forced or not, create fails with unsupported_parameter.
    for (uint32_t flags : {0u, QWINO_FLAG_REQUANTIZE_FP32, QWINO_FLAG_FORCE_DIRECT}) {
      std::vector<float> scales = good;
      scales[7] = 4096.0f;
      EXPECT_EQ(qwino_status_unsupported_parameter,
                CreateInt8(entry, kernel, scales.data(), -128, 127, flags, &op));
    }
    // The ends of the range and scales below it are supported: kernel scales 256 * 4 / 0.5 and
    // 2^-32 * 4 / 0.5 make requantization scales of exactly 256 and 2^-32, 2^-40 and 1e-34 ones
    // of 2^-43 and 1.25e-35 (channels whose outputs are the zero point).
    std::vector<float> ends = good;
    ends[0] = 256.0f * 4.0f / 0.5f;
    ends[11] = std::ldexp(1.0f, -32) * 4.0f / 0.5f;
    ends[7] = std::ldexp(1.0f, -40);
    ends[3] = 1e-34f;
    for (uint32_t flags : {0u, QWINO_FLAG_REQUANTIZE_FP32, QWINO_FLAG_FORCE_DIRECT}) {
      ASSERT_EQ(qwino_status_success,
                CreateInt8(entry, kernel, ends.data(), -128, 127, flags, &op));
      EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
    }
  }
}

// An operator takes only the setup of its activation type; the refused setup changes nothing
// (its earlier setup still runs and writes the same bytes).
TEST_F(InvalidParameters, setup_with_the_other_activation_type) {
  const std::vector<int8_t> kernel = Int8Kernel();
  const std::vector<float> scales(12, 0.25f);
  std::vector<uint8_t> input(5 * 5 * 10, 77), output(5 * 5 * 12, kSentinel);
  const auto input_s8 = reinterpret_cast<const int8_t*>(input.data());
  const auto output_s8 = reinterpret_cast<int8_t*>(output.data());
  // int8 activations: the uint8 setups refuse it.
  qwino_operator_t op = nullptr;
  ASSERT_EQ(qwino_status_success,
            CreateInt8(Int8Entry::kQS8QC8W, kernel, scales.data(), -128, 127, 0, &op));
  EXPECT_EQ(qwino_status_invalid_parameter,
            qwino_setup_convolution2d_nhwc_qu8(op, 1, 5, 5, input.data(), 10, output.data(), 12,
                                               nullptr));
  EXPECT_EQ(
      qwino_status_invalid_parameter,
      qwino_setup_convolution2d_nhwc_q8(op, 1, 5, 5, input.data(), 10, output.data(), 12, nullptr));
  EXPECT_EQ(qwino_status_invalid_parameter, qwino_run_operator(op, nullptr));  // never set up
  EXPECT_TRUE(AllEqual(output, kSentinel));
  ASSERT_EQ(qwino_status_success,
            qwino_setup_convolution2d_nhwc_qs8(op, 1, 5, 5, input_s8, 10, output_s8, 12, nullptr));
  ASSERT_EQ(qwino_status_success, qwino_run_operator(op, nullptr));
  const std::vector<uint8_t> first = output;
  EXPECT_EQ(qwino_status_invalid_parameter,
            qwino_setup_convolution2d_nhwc_qu8(op, 1, 4, 4, input.data(), 10, output.data(), 12,
                                               nullptr));
  std::fill(output.begin(), output.end(), kSentinel);
  ASSERT_EQ(qwino_status_success, qwino_run_operator(op, nullptr));
  EXPECT_EQ(first, output);
  EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
  // uint8 activations with int8 weights: the int8 setup refuses it.
  ASSERT_EQ(qwino_status_success,
            CreateInt8(Int8Entry::kQU8QC8W, kernel, scales.data(), -128, 127, 0, &op));
  std::fill(output.begin(), output.end(), kSentinel);
  EXPECT_EQ(qwino_status_invalid_parameter,
            qwino_setup_convolution2d_nhwc_qs8(op, 1, 5, 5, input_s8, 10, output_s8, 12, nullptr));
  EXPECT_EQ(qwino_status_invalid_parameter, qwino_run_operator(op, nullptr));  // never set up
  EXPECT_TRUE(AllEqual(output, kSentinel));
  EXPECT_EQ(qwino_status_success, qwino_delete_operator(op));
}
