// Random layer data and layer shapes shared by the bench programs: the same seed gives the same
// layer in every program, so timings of different contenders (qwino, the peers) are of identical
// work on identical bytes.
#ifndef QWINO_BENCH_RANDOM_LAYER_H_
#define QWINO_BENCH_RANDOM_LAYER_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

// One batch-1 convolution: a layer of the benchmark suite or of a network list
// (bench/networks/*.txt). Channel counts are all groups' together, as in the network lists;
// padding is explicit per side (TensorFlow's "SAME" stride-2 layers pad bottom and right only).
struct LayerShape {
  std::string network;  // where the shape comes from: the tables group rows by it
  std::string layer;    // its name in the network list ("" for the suite's layers)
  size_t height = 0, width = 0, input_channels = 0, output_channels = 0;
  uint32_t kernel = 3, stride = 1, groups = 1;
  uint32_t padding[4] = {1, 1, 1, 1};  // top, right, bottom, left
  size_t count = 1;                    // how often the network has this layer

  // Padding k / 2 on every side (keeps the size for odd kernels at stride 1; stride 2 uses the
  // same padding, as the networks the suite's shapes come from do), one group.
  static LayerShape same(const char* network, size_t height, size_t width, size_t input_channels,
                         size_t output_channels, uint32_t kernel, uint32_t stride) {
    LayerShape l;
    l.network = network;
    l.height = height;
    l.width = width;
    l.input_channels = input_channels;
    l.output_channels = output_channels;
    l.kernel = kernel;
    l.stride = stride;
    for (uint32_t& p : l.padding) p = kernel / 2;
    return l;
  }

  uint32_t top() const { return padding[0]; }
  uint32_t right() const { return padding[1]; }
  uint32_t bottom() const { return padding[2]; }
  uint32_t left() const { return padding[3]; }
  size_t group_input_channels() const { return input_channels / groups; }
  size_t group_output_channels() const { return output_channels / groups; }
  // One input and one output channel per group: what libraries run with depthwise kernels.
  bool depthwise() const {
    return groups > 1 && group_input_channels() == 1 && group_output_channels() == 1;
  }
  bool same_padding() const {
    return top() == kernel / 2 && right() == kernel / 2 && bottom() == kernel / 2 &&
           left() == kernel / 2;
  }
  // Positive sizes, channels divisible by the groups, the padded input at least one kernel.
  bool valid() const {
    return height > 0 && width > 0 && input_channels > 0 && output_channels > 0 && kernel > 0 &&
           stride > 0 && groups > 0 && count > 0 && input_channels % groups == 0 &&
           output_channels % groups == 0 && height + top() + bottom() >= kernel &&
           width + left() + right() >= kernel;
  }
  size_t output_height() const { return (height + top() + bottom() - kernel) / stride + 1; }
  size_t output_width() const { return (width + left() + right() - kernel) / stride + 1; }
  size_t output_bytes() const { return output_height() * output_width() * output_channels; }
  // Multiply-accumulates of the direct definition: what "direct-equivalent GMAC/s" divides by.
  double macs() const {
    return double(output_height()) * output_width() * group_input_channels() * output_channels *
           kernel * kernel;
  }
  // e.g. "56x56x64>64" for 3x3 stride 1, "56x56x64>128 3x3/2", "28x28x32>32 5x5",
  // "112x112x96>96 3x3/2 dw p0,1,1,0" (depthwise, padding other than k / 2 on every side).
  std::string name() const {
    std::string text = std::to_string(height) + "x" + std::to_string(width) + "x" +
                       std::to_string(input_channels) + ">" + std::to_string(output_channels);
    if (kernel != 3 || stride != 1) {
      text += " " + std::to_string(kernel) + "x" + std::to_string(kernel);
      if (stride != 1) text += "/" + std::to_string(stride);
    }
    if (depthwise()) {
      text += " dw";
    } else if (groups != 1) {
      text += " g" + std::to_string(groups);
    }
    if (!same_padding()) {
      text += " p" + std::to_string(top()) + "," + std::to_string(right()) + "," +
              std::to_string(bottom()) + "," + std::to_string(left());
    }
    return text;
  }
};

// The suite (issue 5): ResNet-18's and VGG-19's 3x3 layers (doc/DESIGN.md section 7), small
// MobileNet-style layers where Winograd's transforms weigh most, and shapes Winograd does not
// cover, so that the direct fallback's cost shows next to the peers'.
inline const std::vector<LayerShape>& suite_layers() {
  static const std::vector<LayerShape> layers = {
      LayerShape::same("resnet18", 56, 56, 64, 64, 3, 1),
      LayerShape::same("resnet18", 28, 28, 128, 128, 3, 1),
      LayerShape::same("resnet18", 14, 14, 256, 256, 3, 1),
      LayerShape::same("resnet18", 7, 7, 512, 512, 3, 1),
      LayerShape::same("vgg19", 224, 224, 64, 64, 3, 1),
      LayerShape::same("vgg19", 112, 112, 128, 128, 3, 1),
      LayerShape::same("vgg19", 56, 56, 256, 256, 3, 1),
      LayerShape::same("vgg19", 28, 28, 512, 512, 3, 1),
      LayerShape::same("vgg19", 14, 14, 512, 512, 3, 1),
      LayerShape::same("mobilenet", 112, 112, 32, 32, 3, 1),
      LayerShape::same("mobilenet", 14, 14, 96, 96, 3, 1),
      LayerShape::same("fallback", 28, 28, 128, 128, 1, 1),
      LayerShape::same("fallback", 56, 56, 64, 128, 3, 2),
      LayerShape::same("fallback", 28, 28, 32, 32, 5, 1),
  };
  return layers;
}

struct RandomLayer {
  // Quantization of the layer: typical of a trained ResNet layer after ReLU.
  static constexpr uint8_t kInputZeroPoint = 127;
  static constexpr float kInputScale = 0.02f;
  static constexpr uint8_t kKernelZeroPoint = 128;
  static constexpr float kKernelScale = 0.004f;
  static constexpr uint8_t kOutputZeroPoint = 128;
  static constexpr float kOutputScale = 0.1f;

  std::vector<uint8_t> kernel;                   // [groups][cout / groups][k][k][cin / groups]
  uint8_t kernel_zero_point = kKernelZeroPoint;  // of the uint8 weights
  std::vector<int32_t> bias;                     // [cout]
  std::vector<uint8_t> input;                    // [batch][h][w][cin]

  // groups: kernel of output_channels x kernel_size^2 x (input_channels / groups) weights; with
  // one group the bytes are those of every earlier version of this header.
  RandomLayer(size_t batch, size_t height, size_t width, size_t input_channels,
              size_t output_channels, size_t kernel_size, uint32_t seed = 42, size_t groups = 1) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    // Weights spread around the zero point like a trained layer's, well inside Winograd's bound.
    // Never 0: TFLite's gemmlowp path (L8R8WithLhsNonzeroBitDepthParams) requires weights in
    // [1, 255], and its ARM kernels rely on it (pairs of int8 products summed in int16).
    std::normal_distribution<double> weight(kKernelZeroPoint, 24.0);
    kernel.resize(output_channels * kernel_size * kernel_size * (input_channels / groups));
    for (uint8_t& w : kernel) w = static_cast<uint8_t>(std::clamp(weight(rng), 1.0, 255.0));
    bias.resize(output_channels);
    for (int32_t& b : bias) b = byte(rng) * 16 - 2048;
    input.resize(batch * height * width * input_channels);
    for (uint8_t& x : input) x = static_cast<uint8_t>(byte(rng));
  }

  // uint8 weights quantized asymmetrically, as TensorFlow Lite's converter writes uint8 models:
  // real weights (normal) mapped linearly onto the whole byte range, the smallest to 0 and the
  // largest to 255, the real 0 at `zero_point` (as if the trained weights had that skew: the
  // bytes do not depend on it). So w - zero_point leaves int8 unless the zero point is 128, and
  // only two weights of the tensor sit on the ends. Only the weights change: the int8 data types
  // keep the symmetric ones.
  void redraw_asymmetric_weights(uint8_t zero_point, uint32_t seed = 43) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> real(0.0, 1.0);
    std::vector<double> r(kernel.size());
    for (double& v : r) v = real(rng);
    const auto range = std::minmax_element(r.begin(), r.end());
    const double low = *range.first, scale = (*range.second - low) / 255.0;
    for (size_t i = 0; i < r.size(); i++) {
      const double q = std::round((r[i] - low) / scale);  // 0 .. 255, the real 0 at zero_point
      kernel[i] = static_cast<uint8_t>(std::clamp(q, 0.0, 255.0));
    }
    kernel_zero_point = zero_point;
  }

  explicit RandomLayer(const LayerShape& l, uint32_t seed = 42)
      : RandomLayer(1, l.height, l.width, l.input_channels, l.output_channels, l.kernel, seed,
                    l.groups) {}
};

#endif  // QWINO_BENCH_RANDOM_LAYER_H_
