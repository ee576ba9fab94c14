// qwino as a contender, either with its automatic algorithm choice or forced onto the direct
// path (flags), through the public C API only: what an engine linking qwino would do.
#include <qwino.h>

#include <vector>

#include "contender.h"

namespace {

class QwinoConvolution : public Contender {
 public:
  QwinoConvolution(uint32_t flags, pthreadpool_t pool) : flags_(flags), pool_(pool) {}
  ~QwinoConvolution() override { qwino_delete_operator(op_); }

  std::string prepare(const LayerShape& l, const RandomLayer& data) override {
    const uint32_t p = l.padding();
    qwino_status status = qwino_create_convolution2d_nhwc_q8(
        p, p, p, p, l.kernel, l.kernel, l.stride, l.stride, 1, 1, 1, l.input_channels,
        l.output_channels, RandomLayer::kInputZeroPoint, RandomLayer::kInputScale,
        RandomLayer::kKernelZeroPoint, RandomLayer::kKernelScale, data.kernel.data(),
        data.bias.data(), RandomLayer::kOutputZeroPoint, RandomLayer::kOutputScale, 0, 255,
        flags_, &op_);
    if (status != qwino_status_success) {
      return call_failed("qwino_create_convolution2d_nhwc_q8", status);
    }
    output_.assign(l.output_bytes(), 0);
    status = qwino_setup_convolution2d_nhwc_q8(op_, 1, l.height, l.width, data.input.data(),
                                               l.input_channels, output_.data(),
                                               l.output_channels, pool_);
    if (status != qwino_status_success) {
      return call_failed("qwino_setup_convolution2d_nhwc_q8", status);
    }
    return "";
  }

  void run() override {
    const qwino_status status = qwino_run_operator(op_, pool_);
    if (status != qwino_status_success) contender_failure("qwino", "qwino_run_operator", status);
  }

  std::string algorithm() const override {
    return qwino_algorithm_name(qwino_operator_algorithm(op_));
  }

 private:
  uint32_t flags_;
  pthreadpool_t pool_;
  qwino_operator_t op_ = nullptr;
};

}  // namespace

std::unique_ptr<Contender> make_qwino_contender(uint32_t flags, pthreadpool_t pool) {
  return std::make_unique<QwinoConvolution>(flags, pool);
}
