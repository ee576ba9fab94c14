// Random layer data and layer shapes shared by the bench programs: the same seed gives the same
// layer in every program, so timings of different contenders (qwino, the peers) are of identical
// work on identical bytes.
#ifndef QWINO_BENCH_RANDOM_LAYER_H_
#define QWINO_BENCH_RANDOM_LAYER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

// One batch-1 convolution of the benchmark suite. Padding keeps the size for odd kernels at
// stride 1 (k / 2 on every side), and stride 2 uses the same padding (pad 1 for 3x3), as the
// networks the shapes come from do.
struct LayerShape {
  const char* network;  // where the shape comes from: the table groups rows by it
  size_t height, width, input_channels, output_channels;
  uint32_t kernel, stride;

  uint32_t padding() const { return kernel / 2; }
  size_t output_height() const { return (height + 2 * padding() - kernel) / stride + 1; }
  size_t output_width() const { return (width + 2 * padding() - kernel) / stride + 1; }
  size_t output_bytes() const { return output_height() * output_width() * output_channels; }
  // Multiply-accumulates of the direct definition: what "direct-equivalent GMAC/s" divides by.
  double macs() const {
    return double(output_height()) * output_width() * input_channels * output_channels * kernel *
           kernel;
  }
  // e.g. "56x56x64>64" for 3x3 stride 1, "56x56x64>128 3x3/2", "28x28x32>32 5x5".
  std::string name() const {
    char text[64];
    int n = std::snprintf(text, sizeof(text), "%zux%zux%zu>%zu", height, width, input_channels,
                          output_channels);
    if (kernel != 3 || stride != 1) {
      n += std::snprintf(text + n, sizeof(text) - n, " %ux%u", kernel, kernel);
      if (stride != 1) std::snprintf(text + n, sizeof(text) - n, "/%u", stride);
    }
    return text;
  }
};

// The suite (issue 5): ResNet-18's and VGG-19's 3x3 layers (doc/DESIGN.md section 7), small
// MobileNet-style layers where Winograd's transforms weigh most, and shapes Winograd does not
// cover, so that the direct fallback's cost shows next to the peers'.
inline const std::vector<LayerShape>& suite_layers() {
  static const std::vector<LayerShape> layers = {
      {"resnet18", 56, 56, 64, 64, 3, 1},     {"resnet18", 28, 28, 128, 128, 3, 1},
      {"resnet18", 14, 14, 256, 256, 3, 1},   {"resnet18", 7, 7, 512, 512, 3, 1},
      {"vgg19", 224, 224, 64, 64, 3, 1},      {"vgg19", 112, 112, 128, 128, 3, 1},
      {"vgg19", 56, 56, 256, 256, 3, 1},      {"vgg19", 28, 28, 512, 512, 3, 1},
      {"vgg19", 14, 14, 512, 512, 3, 1},      {"mobilenet", 112, 112, 32, 32, 3, 1},
      {"mobilenet", 14, 14, 96, 96, 3, 1},    {"fallback", 28, 28, 128, 128, 1, 1},
      {"fallback", 56, 56, 64, 128, 3, 2},    {"fallback", 28, 28, 32, 32, 5, 1},
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

  std::vector<uint8_t> kernel;  // [cout][k][k][cin]
  std::vector<int32_t> bias;    // [cout]
  std::vector<uint8_t> input;   // [batch][h][w][cin]

  RandomLayer(size_t batch, size_t height, size_t width, size_t input_channels,
              size_t output_channels, size_t kernel_size, uint32_t seed = 42) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    // Weights spread around the zero point like a trained layer's, well inside Winograd's bound.
    // Never 0: TFLite's gemmlowp path (L8R8WithLhsNonzeroBitDepthParams) requires weights in
    // [1, 255], and its ARM kernels rely on it (pairs of int8 products summed in int16).
    std::normal_distribution<double> weight(kKernelZeroPoint, 24.0);
    kernel.resize(output_channels * kernel_size * kernel_size * input_channels);
    for (uint8_t& w : kernel) w = static_cast<uint8_t>(std::clamp(weight(rng), 1.0, 255.0));
    bias.resize(output_channels);
    for (int32_t& b : bias) b = byte(rng) * 16 - 2048;
    input.resize(batch * height * width * input_channels);
    for (uint8_t& x : input) x = static_cast<uint8_t>(byte(rng));
  }

  explicit RandomLayer(const LayerShape& l, uint32_t seed = 42)
      : RandomLayer(1, l.height, l.width, l.input_channels, l.output_channels, l.kernel, seed) {}
};

#endif  // QWINO_BENCH_RANDOM_LAYER_H_
