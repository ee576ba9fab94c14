// oneDNN's int8 convolution (Debian libdnnl-dev, oneDNN 2.6) as a contender, through its C++
// API as frameworks use it: uint8 NHWC activations, int8 weights (the layer's weights minus 128:
// symmetric, zero point 0, as oneDNN requires), int32 bias, uint8 NHWC output, one output scale
// per output channel and the input and output zero points as primitive attributes.
//
// Its semantics are those of the fp32 requantization (dst = round((acc + bias) * scale[oc]) +
// output zero point, in float32), not TFLite's fixed-point pipeline, so its bytes are expected
// within 1 of qwino's. That holds where the int32 accumulator is exact: on CPUs with VNNI
// (vpdpbusd sums u8 x s8 products in int32; not seen here: the machine measured has none), and
// everywhere for weights too small to saturate (checked with weights of standard deviation 8).
// Without VNNI (AVX2, AVX-512 without VNNI) oneDNN 2.6's jit kernels multiply with vpmaddubsw,
// which adds pairs of u8 x s8 products in saturating int16: two large inputs with large weights
// of the same sign (|w1 + w2| > 128) lose the excess, so some outputs are off by more than 1.
// The comparison is then reported, not enforced (unchecked_because()).
//
// The weights go to the layout oneDNN picks for the layer (format_tag::any) with one reorder in
// prepare(), outside the timed runs, as an inference engine does once at load time. The
// threads are OpenMP's (the Debian build's runtime), set to the contender's thread count.
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "contender.h"

namespace {

class OnednnConvolution : public Contender {
 public:
  explicit OnednnConvolution(size_t threads) : threads_(static_cast<int>(threads)) {}

  std::string prepare(const LayerShape& l, const RandomLayer& data) override {
    omp_set_num_threads(threads_);
    try {
      return create(l, data);
    } catch (const dnnl::error& e) {
      // Typically "unimplemented": no int8 implementation takes this layer with these attributes.
      return std::string("oneDNN: ") + e.what() + " (status " + std::to_string(e.status) + ")";
    }
  }

  void run() override {
    try {
      convolution_.execute(stream_, arguments_);
      stream_.wait();
    } catch (const dnnl::error& e) {
      contender_failure("onednn", "convolution execute", e.status);
    }
  }

  std::string algorithm() const override { return implementation_; }

  std::string unchecked_because() const override {
    const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
    const bool vnni = isa == dnnl::cpu_isa::avx2_vnni || isa == dnnl::cpu_isa::avx512_core_vnni ||
                      isa == dnnl::cpu_isa::avx512_core_bf16 ||
                      isa == dnnl::cpu_isa::avx512_core_amx;
    return vnni ? ""
                : "oneDNN 2.6 on a CPU without VNNI adds u8 x s8 products in pairs in saturating "
                  "int16 (vpmaddubsw), so large inputs with large weights lose the excess";
  }

 private:
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;

  std::string create(const LayerShape& l, const RandomLayer& data) {
    using dims = dnnl::memory::dims;
    const auto n = dnnl::memory::dim{1};
    const auto g = static_cast<dnnl::memory::dim>(l.groups);
    const auto ic = static_cast<dnnl::memory::dim>(l.input_channels);
    const auto oc = static_cast<dnnl::memory::dim>(l.output_channels);
    const auto k = static_cast<dnnl::memory::dim>(l.kernel);
    const dims src_dims = {n, ic, static_cast<dnnl::memory::dim>(l.height),
                           static_cast<dnnl::memory::dim>(l.width)};
    const dims dst_dims = {n, oc, static_cast<dnnl::memory::dim>(l.output_height()),
                           static_cast<dnnl::memory::dim>(l.output_width())};
    // The layer's weights are [groups][cout / groups][k][k][cin / groups]: ohwi, or gohwi with
    // the groups as a leading dimension.
    const dims weight_dims = l.groups == 1 ? dims{oc, ic, k, k} : dims{g, oc / g, ic / g, k, k};
    const tag weight_tag = l.groups == 1 ? tag::ohwi : tag::gohwi;

    const dnnl::memory::desc src_md(src_dims, dt::u8, tag::nhwc);
    const dnnl::memory::desc dst_md(dst_dims, dt::u8, tag::nhwc);
    const dnnl::memory::desc bias_md({oc}, dt::s32, tag::x);
    const dnnl::memory::desc any_weights_md(weight_dims, dt::s8, tag::any);
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md,
        any_weights_md, bias_md, dst_md, {l.stride, l.stride},
        {static_cast<dnnl::memory::dim>(l.top()), static_cast<dnnl::memory::dim>(l.left())},
        {static_cast<dnnl::memory::dim>(l.bottom()), static_cast<dnnl::memory::dim>(l.right())});

    // dst = scale[oc] * (sum (src - src_zp) * weight + bias) + dst_zp, scale per output channel
    // (mask: bit 1 = the channel dimension of dst), the same float32 product as XNNPACK's and
    // qwino's fp32 mode: input_scale * kernel_scale / output_scale.
    dnnl::primitive_attr attr;
    const float scale =
        RandomLayer::kInputScale * RandomLayer::kKernelScale / RandomLayer::kOutputScale;
    attr.set_output_scales(1 << 1, std::vector<float>(l.output_channels, scale));
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    const dnnl::convolution_forward::primitive_desc pd(desc, attr, engine_);
    implementation_ = pd.impl_info_str();

    // Weights: user layout -> oneDNN's chosen layout, once.
    std::vector<int8_t> weights(data.kernel.size());
    for (size_t i = 0; i < data.kernel.size(); i++) {
      weights[i] = static_cast<int8_t>(int{data.kernel[i]} - RandomLayer::kKernelZeroPoint);
    }
    dnnl::memory user_weights({weight_dims, dt::s8, weight_tag}, engine_, weights.data());
    weights_ = dnnl::memory(pd.weights_desc(), engine_);
    dnnl::reorder(user_weights, weights_).execute(stream_, user_weights, weights_);
    stream_.wait();

    bias_ = data.bias;
    input_ = data.input;
    output_.assign(l.output_bytes(), 0);
    src_zero_point_ = RandomLayer::kInputZeroPoint;
    dst_zero_point_ = RandomLayer::kOutputZeroPoint;
    const dnnl::memory::desc zero_point_md({1}, dt::s32, tag::x);
    arguments_ = {
        {DNNL_ARG_SRC, dnnl::memory(src_md, engine_, input_.data())},
        {DNNL_ARG_WEIGHTS, weights_},
        {DNNL_ARG_BIAS, dnnl::memory(bias_md, engine_, bias_.data())},
        {DNNL_ARG_DST, dnnl::memory(dst_md, engine_, output_.data())},
        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
         dnnl::memory(zero_point_md, engine_, &src_zero_point_)},
        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST,
         dnnl::memory(zero_point_md, engine_, &dst_zero_point_)},
    };
    if (pd.scratchpad_desc().get_size() != 0) {
      arguments_.insert({DNNL_ARG_SCRATCHPAD, dnnl::memory(pd.scratchpad_desc(), engine_)});
    }
    convolution_ = dnnl::convolution_forward(pd);
    return "";
  }

  int threads_;
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_{engine_};
  dnnl::convolution_forward convolution_;
  std::unordered_map<int, dnnl::memory> arguments_;
  dnnl::memory weights_;
  std::vector<int32_t> bias_;
  std::vector<uint8_t> input_;
  int32_t src_zero_point_ = 0, dst_zero_point_ = 0;
  std::string implementation_;
};

}  // namespace

std::unique_ptr<Contender> make_onednn_contender(size_t threads) {
  return std::make_unique<OnednnConvolution>(threads);
}
