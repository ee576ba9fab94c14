// TensorFlow Lite's uint8 convolution algorithm as a contender: im2col (padding filled with the
// input zero point) + gemmlowp's uint8 GEMM with its fixed-point output pipeline, single
// context, as TFLite's legacy uint8 Conv kernel runs it. Same semantics as qwino (doc/DESIGN.md
// section 1), so its bytes must equal qwino's exactly. Written against gemmlowp's public
// header-only API (Debian libgemmlowp-dev); im2col and the GEMM are both timed, as in TFLite.
// Any kernel size, stride and per-side padding; one group only: TFLite runs depthwise layers
// with its own DepthwiseConv kernels, not with im2col + gemmlowp, so this contender declines
// them (and grouped layers, which TFLite's uint8 Conv does not take) instead of timing a path
// TFLite never takes.
#include <gemmlowp/public/gemmlowp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <vector>

#include "contender.h"

namespace {

// TFLite's QuantizeMultiplier, from its documented behaviour and independent of qwino's own
// (src/quantization.cc), so that the byte comparison also checks qwino's multiplier: M =
// q * 2^shift with q in [2^30, 2^31) rounded half away from zero.
void quantize_multiplier(double multiplier, int32_t* fixed_point, int* shift) {
  const double mantissa = std::frexp(multiplier, shift);
  auto q = static_cast<int64_t>(std::round(mantissa * (INT64_C(1) << 31)));
  if (q == (INT64_C(1) << 31)) {
    q /= 2;
    ++*shift;
  }
  if (*shift < -31) {  // TFLite flushes multipliers below 2^-32 to zero
    *shift = 0;
    q = 0;
  }
  *fixed_point = static_cast<int32_t>(q);
}

using BiasVector = gemmlowp::VectorMap<const int32_t, gemmlowp::VectorShape::Col>;
using OutputPipeline =
    std::tuple<gemmlowp::OutputStageBiasAddition<BiasVector>,
               gemmlowp::OutputStageScaleInt32ByFixedPointAndExponent, gemmlowp::OutputStageClamp,
               gemmlowp::OutputStageSaturatingCastToUint8>;

class GemmlowpConvolution : public Contender {
 public:
  explicit GemmlowpConvolution(size_t threads) {
    context_.set_max_num_threads(static_cast<int>(threads));
  }

  std::string prepare(const LayerShape& l, const RandomLayer& data) override {
    kernel_zero_point_ = data.kernel_zero_point;
#if defined(__SSE4_1__) && (defined(__x86_64__) || defined(__i386__))
    if (!__builtin_cpu_supports("sse4.1")) return "built with SSE4.1, which this CPU lacks";
#endif
    if (l.groups != 1) {
      return l.depthwise() ? "depthwise: TFLite runs it with DepthwiseConv, not im2col + gemmlowp"
                           : "grouped: TFLite's uint8 Conv takes one group only";
    }
    // L8R8WithLhsNonzeroBitDepthParams (TFLite's choice) promises weights in [1, 255].
    if (std::count(data.kernel.begin(), data.kernel.end(), 0) != 0) {
      return "a weight is 0, outside L8R8WithLhsNonzeroBitDepthParams' range";
    }
    shape_ = l;
    kernel_ = data.kernel;
    bias_ = data.bias;
    input_ = data.input.data();
    depth_ = size_t{l.kernel} * l.kernel * l.input_channels;
    // TFLite feeds a 1x1 stride-1 unpadded layer's input to the GEMM as it is.
    needs_im2col_ = !(l.kernel == 1 && l.stride == 1 && l.top() == 0 && l.right() == 0 &&
                      l.bottom() == 0 && l.left() == 0);
    columns_.assign(needs_im2col_ ? l.output_height() * l.output_width() * depth_ : 0, 0);
    output_.assign(l.output_bytes(), 0);

    // TFLite's uint8 kernels (GetQuantizedConvolutionMultipler): M = input_scale * filter_scale
    // rounded to float, then divided by output_scale in double; then QuantizeMultiplier.
    int32_t multiplier = 0;
    int shift = 0;
    const float input_product_scale = RandomLayer::kInputScale * RandomLayer::kKernelScale;
    quantize_multiplier(
        static_cast<double>(input_product_scale) / static_cast<double>(RandomLayer::kOutputScale),
        &multiplier, &shift);
    auto& bias_stage = std::get<0>(pipeline_);
    bias_stage.bias_vector = BiasVector(bias_.data(), static_cast<int>(l.output_channels));
    auto& scale_stage = std::get<1>(pipeline_);
    scale_stage.result_fixedpoint_multiplier = multiplier;
    scale_stage.result_exponent = shift;
    scale_stage.result_offset_after_shift = RandomLayer::kOutputZeroPoint;
    auto& clamp_stage = std::get<2>(pipeline_);
    clamp_stage.min = 0;
    clamp_stage.max = 255;
    return "";
  }

  void run() override {
    const LayerShape& l = shape_;
    if (needs_im2col_) im2col();
    const int pixels = static_cast<int>(l.output_height() * l.output_width());
    const int depth = static_cast<int>(depth_);
    const int channels = static_cast<int>(l.output_channels);
    // Weights are the LHS (channels x depth), patches the RHS (depth x pixels): the column-major
    // result is then NHWC.
    gemmlowp::MatrixMap<const uint8_t, gemmlowp::MapOrder::RowMajor> lhs(kernel_.data(), channels,
                                                                         depth);
    gemmlowp::MatrixMap<const uint8_t, gemmlowp::MapOrder::ColMajor> rhs(
        needs_im2col_ ? columns_.data() : input_, depth, pixels);
    gemmlowp::MatrixMap<uint8_t, gemmlowp::MapOrder::ColMajor> result(output_.data(), channels,
                                                                      pixels);
    gemmlowp::GemmWithOutputPipeline<uint8_t, uint8_t, gemmlowp::L8R8WithLhsNonzeroBitDepthParams>(
        &context_, lhs, rhs, &result, -int{kernel_zero_point_}, -int{RandomLayer::kInputZeroPoint},
        pipeline_);
  }

 private:
  // Row of output pixel (oy, ox) = its k x k x cin receptive field, zero point where it hangs
  // over the border: [ky][kx][cin], matching the weights' layout.
  void im2col() {
    const LayerShape& l = shape_;
    const size_t cin = l.input_channels;
    const size_t row_bytes = size_t{l.kernel} * cin;
    uint8_t* row = columns_.data();
    for (size_t oy = 0; oy < l.output_height(); oy++) {
      for (size_t ox = 0; ox < l.output_width(); ox++, row += depth_) {
        const ptrdiff_t x0 = ptrdiff_t(ox * l.stride) - ptrdiff_t(l.left());
        // Taps [first, last) of a kernel row fall inside the image horizontally.
        const size_t first = size_t(std::max<ptrdiff_t>(0, -x0));
        const size_t last = size_t(std::clamp<ptrdiff_t>(ptrdiff_t(l.width) - x0, 0, l.kernel));
        for (size_t ky = 0; ky < l.kernel; ky++) {
          uint8_t* dst = row + ky * row_bytes;
          const ptrdiff_t y = ptrdiff_t(oy * l.stride + ky) - ptrdiff_t(l.top());
          if (y < 0 || y >= ptrdiff_t(l.height) || first >= last) {
            std::memset(dst, RandomLayer::kInputZeroPoint, row_bytes);
            continue;
          }
          std::memset(dst, RandomLayer::kInputZeroPoint, first * cin);
          std::memcpy(dst + first * cin,
                      input_ + (size_t(y) * l.width + size_t(x0 + ptrdiff_t(first))) * cin,
                      (last - first) * cin);
          std::memset(dst + last * cin, RandomLayer::kInputZeroPoint, (l.kernel - last) * cin);
        }
      }
    }
  }

  gemmlowp::GemmContext context_;
  OutputPipeline pipeline_;
  LayerShape shape_{};
  std::vector<uint8_t> kernel_;
  uint8_t kernel_zero_point_ = 0;
  std::vector<int32_t> bias_;
  const uint8_t* input_ = nullptr;
  size_t depth_ = 0;
  bool needs_im2col_ = true;
  std::vector<uint8_t> columns_;
};

}  // namespace

std::unique_ptr<Contender> make_gemmlowp_contender(size_t threads) {
  return std::make_unique<GemmlowpConvolution>(threads);
}
