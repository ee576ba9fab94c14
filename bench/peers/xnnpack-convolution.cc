// XNNPACK's qu8 NHWC convolution (QNNPACK's successor; Debian libxnnpack-dev) as a contender,
// through its public operator API. Its requantization rounds differently from TFLite's
// fixed-point pipeline (this 2022 version computes in fp32), so its bytes are only expected
// within 1 of qwino's.
#include <xnnpack.h>

#include <vector>

#include "contender.h"

namespace {

class XnnpackConvolution : public Contender {
 public:
  explicit XnnpackConvolution(pthreadpool_t pool) : pool_(pool) {}
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
    const uint32_t p = l.padding();
    status = xnn_create_convolution2d_nhwc_qu8(
        p, p, p, p, l.kernel, l.kernel, l.stride, l.stride, 1, 1, 1, l.input_channels,
        l.output_channels, l.input_channels, l.output_channels, RandomLayer::kInputZeroPoint,
        RandomLayer::kInputScale, RandomLayer::kKernelZeroPoint, RandomLayer::kKernelScale,
        data.kernel.data(), data.bias.data(), RandomLayer::kOutputZeroPoint,
        RandomLayer::kOutputScale, 0, 255, 0, &op_);
    if (status != xnn_status_success) {
      return call_failed("xnn_create_convolution2d_nhwc_qu8", status);
    }
    // XNNPACK's kernels may read up to XNN_EXTRA_BYTES past the end of the input.
    input_.assign(data.input.size() + XNN_EXTRA_BYTES, 0);
    std::copy(data.input.begin(), data.input.end(), input_.begin());
    output_.assign(l.output_bytes(), 0);
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
  bool initialized_ = false;
  xnn_operator_t op_ = nullptr;
  std::vector<uint8_t> input_;
};

}  // namespace

std::unique_ptr<Contender> make_xnnpack_contender(pthreadpool_t pool) {
  return std::make_unique<XnnpackConvolution>(pool);
}
