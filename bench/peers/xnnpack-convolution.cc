// XNNPACK's qu8 NHWC convolution (QNNPACK's successor; Debian libxnnpack-dev) as a contender,
// or its int8 per-channel one (qc8, what XNNPACK's later releases call qs8_qc8w), through its
// public operator API. Its requantization rounds differently from TFLite's fixed-point pipeline
// (this 2022 version computes in fp32), so its bytes are only expected within 1 of qwino's.
#include <xnnpack.h>

#include <vector>

#include "contender.h"

namespace {

class XnnpackConvolution : public Contender {
 public:
  XnnpackConvolution(pthreadpool_t pool, bool int8) : Contender(int8), pool_(pool), int8_(int8) {}
  ~XnnpackConvolution() override {
    if (op_ != nullptr) xnn_delete_operator(op_);
    if (initialized_) xnn_deinitialize();
  }

  std::string prepare(const LayerShape& l, const RandomLayer& data) override {
    xnn_status status = xnn_initialize(nullptr);
    if (status != xnn_status_success) {
      return call_failed("xnn_initialize", status);
    }
    initialized_ = true;
    const uint32_t top = l.top(), right = l.right(), bottom = l.bottom(), left = l.left();
    const uint32_t groups = l.groups;
    const size_t gic = l.group_input_channels(), goc = l.group_output_channels();
    output_.assign(l.output_bytes(), 0);
    if (int8_) {
      const std::vector<int8_t> kernel = shifted(data.kernel);
      const std::vector<int8_t> input = shifted(data.input);
      const std::vector<float> scales(l.output_channels, RandomLayer::kKernelScale);
      status = xnn_create_convolution2d_nhwc_qc8(
          top, right, bottom, left, l.kernel, l.kernel, l.stride, l.stride, 1, 1, groups, gic, goc,
          l.input_channels, l.output_channels, RandomLayer::kInputZeroPoint - 128,
          RandomLayer::kInputScale, scales.data(), kernel.data(), data.bias.data(),
          RandomLayer::kOutputZeroPoint - 128, RandomLayer::kOutputScale, -128, 127, 0, &op_);
      if (status != xnn_status_success) {
        return call_failed("xnn_create_convolution2d_nhwc_qc8", status);
      }
      input_.assign(input.size() + XNN_EXTRA_BYTES, 0);
      std::copy(input.begin(), input.end(), reinterpret_cast<int8_t*>(input_.data()));
      status = xnn_setup_convolution2d_nhwc_qc8(op_, 1, l.height, l.width,
                                                reinterpret_cast<const int8_t*>(input_.data()),
                                                reinterpret_cast<int8_t*>(output_.data()), pool_);
      return status == xnn_status_success ? ""
                                          : call_failed("xnn_setup_convolution2d_nhwc_qc8", status);
    }
    status = xnn_create_convolution2d_nhwc_qu8(
        top, right, bottom, left, l.kernel, l.kernel, l.stride, l.stride, 1, 1, groups, gic, goc,
        l.input_channels, l.output_channels, RandomLayer::kInputZeroPoint, RandomLayer::kInputScale,
        data.kernel_zero_point, RandomLayer::kKernelScale, data.kernel.data(), data.bias.data(),
        RandomLayer::kOutputZeroPoint, RandomLayer::kOutputScale, 0, 255, 0, &op_);
    if (status != xnn_status_success) {
      return call_failed("xnn_create_convolution2d_nhwc_qu8", status);
    }
    // XNNPACK's kernels may read up to XNN_EXTRA_BYTES past the end of the input.
    input_.assign(data.input.size() + XNN_EXTRA_BYTES, 0);
    std::copy(data.input.begin(), data.input.end(), input_.begin());
    status = xnn_setup_convolution2d_nhwc_qu8(op_, 1, l.height, l.width, input_.data(),
                                              output_.data(), pool_);
    if (status != xnn_status_success) {
      return call_failed("xnn_setup_convolution2d_nhwc_qu8", status);
    }
    return "";
  }

  void run() override {
    const xnn_status status = xnn_run_operator(op_, pool_);
    if (status != xnn_status_success) contender_failure("xnnpack", "xnn_run_operator", status);
  }

 private:
  pthreadpool_t pool_;
  bool int8_;
  bool initialized_ = false;
  xnn_operator_t op_ = nullptr;
  std::vector<uint8_t> input_;
};

}  // namespace

std::unique_ptr<Contender> make_xnnpack_contender(pthreadpool_t pool, bool int8) {
  return std::make_unique<XnnpackConvolution>(pool, int8);
}
