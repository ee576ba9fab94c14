// Fuzz target over the whole public API: create, setup (twice, so a bad setup meets a good
// one), run on a thread pool, delete, and calls with the stale handle afterwards.
//
// An input is text: whitespace-separated `name=value` fields (values decimal or 0x hex, wrapping
// modulo 2^64; unknown names ignored, missing ones keep the valid 3x3 layer below), so the
// corpus in corpus/ is readable and each hostile case of the issue tracker is one small file.
// libFuzzer mutates the digits and names; seed= fills weights, bias and inputs.
//
// What it checks, with oracles written here from qwino.h's contract (no code shared with src/):
//   - create and setup return invalid_parameter exactly when qwino.h says the arguments are
//     invalid (zero sizes, byte counts past PTRDIFF_MAX, padding leaving no output, ...), and
//     unsupported_parameter only where qwino.h allows it (forced Winograd, requantization scale);
//   - the library reads and writes only what the sizes describe: weights, bias, input and output
//     live in heap blocks of exactly those sizes (AddressSanitizer catches a byte past them), and
//     the bytes between output pixels keep their sentinel;
//   - every run's bytes equal test/reference-convolution.h's;
//   - a failed call changes nothing, and the deleted handle is rejected.
// Sizes the process cannot back (weights past kMaxWeightBytes, tensors past kMaxTensorBytes) are
// still passed to create and setup when the contract says they must fail before touching memory;
// otherwise the input is skipped.
#include <qwino.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "reference-convolution.h"

namespace {

constexpr uint64_t kMaxWeightBytes = 1 << 20;
constexpr uint64_t kMaxTensorBytes = 1 << 20;
constexpr uint64_t kMaxReferenceMacs = 1 << 22;
constexpr uint64_t kMaxObjectBytes = static_cast<uint64_t>(PTRDIFF_MAX);
constexpr uint8_t kSentinel = 0xA7;

using u128 = unsigned __int128;

[[noreturn]] void fail(const char* what, int status) {
  std::fprintf(stderr, "convolution-fuzzer: %s (status %d)\n", what, status);
  std::abort();
}
#define FUZZ_CHECK(condition, status)                             \
  do {                                                            \
    if (!(condition)) fail(#condition, static_cast<int>(status)); \
  } while (0)

struct Case {
  std::map<std::string, uint64_t> fields;
  uint64_t get(const char* name, uint64_t fallback) const {
    auto it = fields.find(name);
    return it == fields.end() ? fallback : it->second;
  }
};

Case parse(const uint8_t* data, size_t size) {
  Case c;
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) i++;
    const size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) i++;
    const std::string token = text.substr(start, i - start);
    const size_t equals = token.find('=');
    if (equals == std::string::npos || equals == 0) continue;
    const std::string value = token.substr(equals + 1);
    const bool hex = value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
    uint64_t v = 0;
    for (size_t j = hex ? 2 : 0; j < value.size(); j++) {
      const char ch = static_cast<char>(std::tolower(static_cast<unsigned char>(value[j])));
      const int digit = ch >= '0' && ch <= '9'          ? ch - '0'
                        : hex && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                                                        : -1;
      if (digit < 0) break;
      v = v * (hex ? 16 : 10) + static_cast<uint64_t>(digit);  // wraps, as documented
    }
    c.fields[token.substr(0, equals)] = v;
  }
  return c;
}

// A scale from a small code: 2^(code % 64 - 40), with a few invalid values mixed in.
float scale_from(uint64_t code) {
  switch (code % 71) {
    case 64:
      return 0.0f;
    case 65:
      return -1.0f;
    case 66:
      return std::numeric_limits<float>::infinity();
    case 67:
      return std::numeric_limits<float>::quiet_NaN();
    case 68:
      return std::numeric_limits<float>::denorm_min();
    case 69:
      return 0.3f;
    case 70:
      return 1.7f;
    default:
      return std::ldexp(1.0f, static_cast<int>(code % 71) - 40);
  }
}

// Heap bytes of exactly `size` (AddressSanitizer guards both ends), filled from rng.
std::unique_ptr<uint8_t[]> random_bytes(size_t size, std::mt19937& rng) {
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[size == 0 ? 1 : size]);
  for (size_t i = 0; i < size; i++) bytes[i] = static_cast<uint8_t>(rng());
  return bytes;
}

pthreadpool_t pool_for(uint64_t threads) {
  static pthreadpool_t pools[4] = {nullptr, pthreadpool_create(1), pthreadpool_create(2),
                                   pthreadpool_create(3)};
  return pools[threads % 4];
}

struct Tensor {
  uint64_t batch, height, width, stride, channels;
  // (batch x height x width - 1) x stride + channels, or 0 if the pixel count is 0; in 128 bits.
  u128 pixels() const { return u128{batch} * height * width; }
  u128 bytes() const { return pixels() == 0 ? 0 : (pixels() - 1) * stride + channels; }
  bool addressable() const { return pixels() * stride <= kMaxObjectBytes; }
};

uint64_t output_size(uint64_t input, uint64_t before, uint64_t after, uint64_t kernel,
                     uint64_t dilation, uint64_t stride) {
  const u128 padded = u128{input} + before + after;
  const u128 effective = (u128{kernel} - 1) * dilation + 1;
  if (padded < effective || padded > kMaxObjectBytes || stride == 0) return 0;
  return static_cast<uint64_t>((padded - effective) / stride + 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool initialized = qwino_initialize() == qwino_status_success;
  if (!initialized) fail("qwino_initialize", 0);
  const Case c = parse(data, size);
  std::mt19937 rng(static_cast<uint32_t>(c.get("seed", 1)));

  const uint32_t kh = static_cast<uint32_t>(c.get("kh", 3)),
                 kw = static_cast<uint32_t>(c.get("kw", 3));
  const uint32_t sh = static_cast<uint32_t>(c.get("sh", 1)),
                 sw = static_cast<uint32_t>(c.get("sw", 1));
  const uint32_t dh = static_cast<uint32_t>(c.get("dh", 1)),
                 dw = static_cast<uint32_t>(c.get("dw", 1));
  const uint32_t pt = static_cast<uint32_t>(c.get("pt", 1)),
                 pr = static_cast<uint32_t>(c.get("pr", 1));
  const uint32_t pb = static_cast<uint32_t>(c.get("pb", 1)),
                 pl = static_cast<uint32_t>(c.get("pl", 1));
  const uint32_t groups = static_cast<uint32_t>(c.get("groups", 1));
  const uint64_t gic = c.get("gic", 4), goc = c.get("goc", 5);
  const uint8_t izp = static_cast<uint8_t>(c.get("izp", 128)),
                kzp = static_cast<uint8_t>(c.get("kzp", 127));
  const uint8_t ozp = static_cast<uint8_t>(c.get("ozp", 120));
  const float iscale = scale_from(c.get("iscale", 39)), kscale = scale_from(c.get("kscale", 33));
  const float oscale = scale_from(c.get("oscale", 38));
  const uint8_t qmin = static_cast<uint8_t>(c.get("qmin", 0)),
                qmax = static_cast<uint8_t>(c.get("qmax", 255));
  const uint32_t flags = static_cast<uint32_t>(c.get("flags", 0));
  const bool with_bias = c.get("bias", 1) % 2 != 0;
  // Data type (type=0 qu8, 1 qs8, 2 qs8_qc8w, 3 qu8_qc8w) and, for per-channel weights, the
  // kernel scale of channel c: scale_from(kscale + c * kstep). Zero points, qmin and qmax are
  // given in the uint8 view; for int8 tensors the values passed are view - 128.
  const uint64_t type = c.get("type", 0) % 4;
  const bool int8_activations = type == 1 || type == 2;
  const bool int8_kernel = type != 0;
  const bool per_channel = type >= 2;
  const uint64_t kstep = c.get("kstep", 0);
  const bool fp32 = (flags & QWINO_FLAG_REQUANTIZE_FP32) != 0;
  const uint32_t force = flags & ~(QWINO_FLAG_REQUANTIZE_FP32 | QWINO_FLAG_YIELD_WORKERS);
  const uint8_t kernel_view_zp = int8_kernel ? 128 : kzp;

  // Create: what qwino.h calls invalid, computed in 128 bits.
  const u128 kernel_bytes = u128{groups} * goc * kh * kw * gic;
  const u128 output_channels = u128{groups} * goc;
  const bool sizes_invalid =
      kernel_bytes == 0 || kernel_bytes > kMaxObjectBytes || output_channels * 4 > kMaxObjectBytes;
  const auto bad_scale = [](float s) { return !std::isfinite(s) || !(s > 0.0f); };
  const bool backed = !sizes_invalid && kernel_bytes <= kMaxWeightBytes;
  const size_t weight_count = backed ? static_cast<size_t>(kernel_bytes) : 1;
  const size_t channel_count = backed ? static_cast<size_t>(output_channels) : 1;
  std::vector<float> kernel_scales(per_channel ? channel_count : 1);
  bool bad_kernel_scale = false;
  for (size_t ch = 0; ch < kernel_scales.size(); ch++) {
    kernel_scales[ch] = per_channel ? scale_from(c.get("kscale", 33) + ch * kstep) : kscale;
    bad_kernel_scale = bad_kernel_scale || bad_scale(kernel_scales[ch]);
  }
  const bool invalid_before_scales = sizes_invalid || sh == 0 || sw == 0 || dh == 0 || dw == 0 ||
                                     bad_scale(iscale) || bad_scale(oscale) || qmin > qmax ||
                                     (force & ~uint32_t{31}) != 0 || (force & (force - 1)) != 0;
  // The per-channel scales are read only once the sizes are valid (there are that many).
  const bool invalid = invalid_before_scales || (backed && bad_kernel_scale);
  if (!invalid && !backed) return 0;  // valid but too large to back with real weights
  // Weights within `spread` of the zero point: small spreads keep Winograd exact, so that it is
  // chosen and checked too.
  const int spread = static_cast<int>(c.get("spread", 255) % 256);
  std::vector<uint8_t> weights(weight_count);  // the tensor's bytes
  for (uint8_t& w : weights) {
    w = static_cast<uint8_t>(std::clamp<int>(
        kernel_view_zp + static_cast<int>(rng() % static_cast<uint32_t>(2 * spread + 1)) - spread,
        0, 255));
    if (int8_kernel) w ^= 0x80;
  }
  std::vector<int32_t> bias_values(channel_count);
  for (int32_t& b : bias_values) b = static_cast<int32_t>(rng() % 200001) - 100000;
  // What create gets: heap blocks of exactly the sizes the arguments describe.
  std::unique_ptr<uint8_t[]> kernel(new uint8_t[weight_count]);
  std::unique_ptr<int32_t[]> bias(new int32_t[channel_count]);
  std::memcpy(kernel.get(), weights.data(), weight_count);
  std::memcpy(bias.get(), bias_values.data(), channel_count * sizeof(int32_t));

  qwino_operator_t const untouched = reinterpret_cast<qwino_operator_t>(&rng);
  qwino_operator_t op = untouched;
  std::unique_ptr<float[]> scales(new float[kernel_scales.size()]);
  std::copy(kernel_scales.begin(), kernel_scales.end(), scales.get());
  const auto s8 = [](uint8_t view) { return static_cast<int8_t>(int{view} - 128); };
  const int8_t* kernel_s8 = reinterpret_cast<const int8_t*>(kernel.get());
  const int32_t* bias_arg = with_bias ? bias.get() : nullptr;
  const size_t ic = static_cast<size_t>(gic), oc = static_cast<size_t>(goc);
  qwino_status created = qwino_status_success;
  switch (type) {
    case 0:
      created = qwino_create_convolution2d_nhwc_q8(pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, groups,
                                                   ic, oc, izp, iscale, kzp, kscale, kernel.get(),
                                                   bias_arg, ozp, oscale, qmin, qmax, flags, &op);
      break;
    case 1:
      created = qwino_create_convolution2d_nhwc_qs8(
          pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, groups, ic, oc, s8(izp), iscale, kscale,
          kernel_s8, bias_arg, s8(ozp), oscale, s8(qmin), s8(qmax), flags, &op);
      break;
    case 2:
      created = qwino_create_convolution2d_nhwc_qs8_qc8w(
          pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, groups, ic, oc, s8(izp), iscale, scales.get(),
          kernel_s8, bias_arg, s8(ozp), oscale, s8(qmin), s8(qmax), flags, &op);
      break;
    default:
      created = qwino_create_convolution2d_nhwc_qu8_qc8w(
          pt, pr, pb, pl, kh, kw, sh, sw, dh, dw, groups, ic, oc, izp, iscale, scales.get(),
          kernel_s8, bias_arg, ozp, oscale, qmin, qmax, flags, &op);
      break;
  }
  if (invalid) {
    FUZZ_CHECK(created == qwino_status_invalid_parameter, created);
    FUZZ_CHECK(op == untouched, created);
    return 0;
  }
  const qwino_test::ReferenceScaleProduct product =
      qwino_test::ReferenceScaleProductFor(int8_kernel);
  const bool supported =
      qwino_test::ReferenceOutputSupported(fp32, product, iscale, kernel_scales, oscale);
  if (created != qwino_status_success) {
    // Forced Winograd (exactness, shape), the forced indirect GEMM (weights outside
    // [-127, 127] around 128 in the view) and forced depthwise (groups with more than one
    // channel) may be refused; so may scales out of range.
    const bool forced_refusable =
        (flags & (QWINO_FLAG_FORCE_WINOGRAD | QWINO_FLAG_FORCE_WINOGRAD_F4 |
                  QWINO_FLAG_FORCE_INDIRECT_GEMM | QWINO_FLAG_FORCE_DEPTHWISE)) != 0;
    FUZZ_CHECK(created == qwino_status_unsupported_parameter, created);
    FUZZ_CHECK(forced_refusable || !supported, created);
    FUZZ_CHECK(op == untouched, created);
    return 0;
  }
  FUZZ_CHECK(supported, created);
  const int32_t offset = int8_activations ? -128 : 0;
  const qwino_test::ReferenceOutputQuantization output_quantization =
      qwino_test::ReferenceOutput(fp32, product, iscale, kernel_scales, oscale, channel_count,
                                  ozp + offset, qmin + offset, qmax + offset);
  // The operator keeps its own copies.
  std::memset(kernel.get(), 0xCD, weight_count);
  std::memset(bias.get(), 0xCD, channel_count * sizeof(int32_t));

  qwino_test::ReferenceConvolutionShape shape;
  shape.padding_top = pt;
  shape.padding_right = pr;
  shape.padding_bottom = pb;
  shape.padding_left = pl;
  shape.kernel_height = kh;
  shape.kernel_width = kw;
  shape.stride_height = sh;
  shape.stride_width = sw;
  shape.dilation_height = dh;
  shape.dilation_width = dw;
  shape.groups = groups;
  shape.group_input_channels = static_cast<size_t>(gic);
  shape.group_output_channels = static_cast<size_t>(goc);
  // Two setups: the second (prefix "b") must leave the first in place when it fails.
  bool have_setup = false;
  uint64_t setup_threads = 0;
  std::vector<uint8_t> expected;
  std::unique_ptr<uint8_t[]> input, output;
  Tensor out_tensor{};
  for (const char* prefix : {"", "b"}) {
    const auto field = [&](const char* name, uint64_t fallback) {
      return c.get((std::string(prefix) + name).c_str(), fallback);
    };
    Tensor in{field("n", 1), field("h", 6), field("w", 7), field("is", gic * groups), gic * groups};
    Tensor out{in.batch, output_size(in.height, pt, pb, kh, dh, sh),
               output_size(in.width, pl, pr, kw, dw, sw), field("os", goc * groups), goc * groups};
    const uint64_t threads = field("threads", 0);
    const bool setup_invalid = in.pixels() == 0 || in.stride < in.channels ||
                               out.stride < out.channels || out.height == 0 || out.width == 0 ||
                               !in.addressable() || !out.addressable();
    const bool fits = !setup_invalid && in.bytes() <= kMaxTensorBytes &&
                      out.bytes() <= kMaxTensorBytes &&
                      out.pixels() * goc * groups * kh * kw * gic <= kMaxReferenceMacs;
    if (!setup_invalid && !fits) continue;  // valid but too large to back and check
    const size_t in_bytes = fits ? static_cast<size_t>(in.bytes()) : 1;
    const size_t out_bytes = fits ? static_cast<size_t>(out.bytes()) : 1;
    std::unique_ptr<uint8_t[]> next_input = random_bytes(in_bytes, rng);
    std::unique_ptr<uint8_t[]> next_output(new uint8_t[out_bytes]);
    std::memset(next_output.get(), kSentinel, out_bytes);
    const size_t height_before = qwino_operator_output_height(op);
    const qwino_status status =
        int8_activations
            ? qwino_setup_convolution2d_nhwc_qs8(
                  op, static_cast<size_t>(in.batch), static_cast<size_t>(in.height),
                  static_cast<size_t>(in.width), reinterpret_cast<const int8_t*>(next_input.get()),
                  static_cast<size_t>(in.stride), reinterpret_cast<int8_t*>(next_output.get()),
                  static_cast<size_t>(out.stride), pool_for(threads))
            : qwino_setup_convolution2d_nhwc_q8(
                  op, static_cast<size_t>(in.batch), static_cast<size_t>(in.height),
                  static_cast<size_t>(in.width), next_input.get(), static_cast<size_t>(in.stride),
                  next_output.get(), static_cast<size_t>(out.stride), pool_for(threads));
    if (setup_invalid) {
      FUZZ_CHECK(status == qwino_status_invalid_parameter, status);
      FUZZ_CHECK(qwino_operator_output_height(op) == height_before, status);
      FUZZ_CHECK(next_output[0] == kSentinel, status);
      continue;
    }
    FUZZ_CHECK(status == qwino_status_success, status);
    FUZZ_CHECK(qwino_operator_output_height(op) == out.height, status);
    FUZZ_CHECK(qwino_operator_output_width(op) == out.width, status);
    have_setup = true;
    setup_threads = std::max<uint64_t>(1, threads % 4);
    input = std::move(next_input);
    output = std::move(next_output);
    out_tensor = out;
    shape.batch_size = static_cast<size_t>(in.batch);
    shape.input_height = static_cast<size_t>(in.height);
    shape.input_width = static_cast<size_t>(in.width);
    shape.input_pixel_stride = static_cast<size_t>(in.stride);
    shape.output_pixel_stride = static_cast<size_t>(out.stride);
    const int32_t* reference_bias = with_bias ? bias_values.data() : nullptr;
    const auto* input_s8 = reinterpret_cast<const int8_t*>(input.get());
    const auto* weights_s8 = reinterpret_cast<const int8_t*>(weights.data());
    const std::vector<int32_t> accumulators =
        int8_activations ? qwino_test::ReferenceConvolutionAccumulators(
                               shape, input_s8, izp + offset, weights_s8, 0, reference_bias)
        : int8_kernel ? qwino_test::ReferenceConvolutionAccumulators(shape, input.get(), izp,
                                                                     weights_s8, 0, reference_bias)
                      : qwino_test::ReferenceConvolutionAccumulators(
                            shape, input.get(), izp, weights.data(), kzp, reference_bias);
    expected = qwino_test::ReferenceRequantizeAll(accumulators, output_quantization);
  }
  if (have_setup) {
    const uint64_t run_threads = c.get("rthreads", setup_threads);
    const qwino_status ran = qwino_run_operator(op, pool_for(run_threads));
    if (std::max<uint64_t>(1, run_threads % 4) > setup_threads) {
      // A pool with more threads than the last successful setup's.
      FUZZ_CHECK(ran == qwino_status_invalid_parameter, ran);
      FUZZ_CHECK(output[0] == kSentinel, ran);
    } else {
      FUZZ_CHECK(ran == qwino_status_success, ran);
      const size_t channels = static_cast<size_t>(out_tensor.channels);
      const size_t pixels = static_cast<size_t>(out_tensor.pixels());
      for (size_t p = 0; p < pixels; p++) {
        const uint8_t* pixel = output.get() + p * out_tensor.stride;
        if (std::memcmp(pixel, expected.data() + p * channels, channels) != 0) {
          fail("output differs from the reference", 0);
        }
        if (p + 1 < pixels) {
          for (size_t gap = channels; gap < out_tensor.stride; gap++) {
            FUZZ_CHECK(pixel[gap] == kSentinel, 0);  // bytes between pixels are never written
          }
        }
      }
    }
  } else {
    FUZZ_CHECK(qwino_run_operator(op, nullptr) == qwino_status_invalid_parameter, 0);
  }
  FUZZ_CHECK(qwino_delete_operator(op) == qwino_status_success, 0);
  FUZZ_CHECK(qwino_delete_operator(op) == qwino_status_invalid_parameter, 0);
  FUZZ_CHECK(qwino_run_operator(op, nullptr) == qwino_status_invalid_parameter, 0);
  FUZZ_CHECK(qwino_operator_algorithm(op) == qwino_algorithm_none, 0);
  return 0;
}
