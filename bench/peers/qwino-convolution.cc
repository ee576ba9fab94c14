// qwino as a contender, either with its automatic algorithm choice or forced onto the direct
// path (flags), uint8, int8 per-channel, or uint8 with int8 per-channel weights in the fp32 mode,
// through the public C API only: what an engine linking qwino would do.
#include <qwino.h>

#include <vector>

#include "contender.h"

namespace {

class QwinoConvolution : public Contender {
 public:
  QwinoConvolution(uint32_t flags, pthreadpool_t pool, QwinoData data)
      : Contender(data == QwinoData::kQs8), flags_(flags), pool_(pool), data_(data) {}
  ~QwinoConvolution() override { qwino_delete_operator(op_); }

  std::string prepare(const LayerShape& l, const RandomLayer& data) override {
    const uint32_t top = l.top(), right = l.right(), bottom = l.bottom(), left = l.left();
    const size_t gic = l.group_input_channels(), goc = l.group_output_channels();
    output_.assign(l.output_bytes(), 0);
    if (data_ == QwinoData::kQu8Qc8wFp32) {
      const std::vector<int8_t> kernel = shifted(data.kernel);
      const std::vector<float> scales(l.output_channels, RandomLayer::kKernelScale);
      qwino_status status = qwino_create_convolution2d_nhwc_qu8_qc8w(
          top, right, bottom, left, l.kernel, l.kernel, l.stride, l.stride, 1, 1, l.groups, gic,
          goc, RandomLayer::kInputZeroPoint, RandomLayer::kInputScale, scales.data(), kernel.data(),
          data.bias.data(), RandomLayer::kOutputZeroPoint, RandomLayer::kOutputScale, 0, 255,
          flags_ | QWINO_FLAG_REQUANTIZE_FP32, &op_);
      if (status != qwino_status_success) {
        return call_failed("qwino_create_convolution2d_nhwc_qu8_qc8w", status);
      }
      return setup_qu8(l, data.input.data());
    }
    if (data_ == QwinoData::kQs8) {
      const std::vector<int8_t> kernel = shifted(data.kernel);
      input_ = shifted(data.input);
      const std::vector<float> scales(l.output_channels, RandomLayer::kKernelScale);
      qwino_status status = qwino_create_convolution2d_nhwc_qs8_qc8w(
          top, right, bottom, left, l.kernel, l.kernel, l.stride, l.stride, 1, 1, l.groups, gic,
          goc, RandomLayer::kInputZeroPoint - 128, RandomLayer::kInputScale, scales.data(),
          kernel.data(), data.bias.data(), RandomLayer::kOutputZeroPoint - 128,
          RandomLayer::kOutputScale, -128, 127, flags_, &op_);
      if (status != qwino_status_success) {
        return call_failed("qwino_create_convolution2d_nhwc_qs8_qc8w", status);
      }
      status = qwino_setup_convolution2d_nhwc_qs8(
          op_, 1, l.height, l.width, input_.data(), l.input_channels,
          reinterpret_cast<int8_t*>(output_.data()), l.output_channels, pool_);
      return status == qwino_status_success
                 ? ""
                 : call_failed("qwino_setup_convolution2d_nhwc_qs8", status);
    }
    qwino_status status = qwino_create_convolution2d_nhwc_qu8(
        top, right, bottom, left, l.kernel, l.kernel, l.stride, l.stride, 1, 1, l.groups, gic, goc,
        RandomLayer::kInputZeroPoint, RandomLayer::kInputScale, data.kernel_zero_point,
        RandomLayer::kKernelScale, data.kernel.data(), data.bias.data(),
        RandomLayer::kOutputZeroPoint, RandomLayer::kOutputScale, 0, 255, flags_, &op_);
    if (status != qwino_status_success) {
      return call_failed("qwino_create_convolution2d_nhwc_qu8", status);
    }
    return setup_qu8(l, data.input.data());
  }

  void run() override {
    const qwino_status status = qwino_run_operator(op_, pool_);
    if (status != qwino_status_success) contender_failure("qwino", "qwino_run_operator", status);
  }

  std::string algorithm() const override {
    return qwino_algorithm_name(qwino_operator_algorithm(op_));
  }

 private:
  std::string setup_qu8(const LayerShape& l, const uint8_t* input) {
    const qwino_status status =
        qwino_setup_convolution2d_nhwc_qu8(op_, 1, l.height, l.width, input, l.input_channels,
                                           output_.data(), l.output_channels, pool_);
    return status == qwino_status_success
               ? ""
               : call_failed("qwino_setup_convolution2d_nhwc_qu8", status);
  }

  uint32_t flags_;
  pthreadpool_t pool_;
  QwinoData data_;
  std::vector<int8_t> input_;  // int8: the shifted input
  qwino_operator_t op_ = nullptr;
};

}  // namespace

std::unique_ptr<Contender> make_qwino_contender(uint32_t flags, pthreadpool_t pool,
                                                QwinoData data) {
  return std::make_unique<QwinoConvolution>(flags, pool, data);
}
