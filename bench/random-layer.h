// Random layer data shared by the bench programs: the same seed gives the same layer in every
// program, so timings of different contenders are of identical work.
#ifndef QWINO_BENCH_RANDOM_LAYER_H_
#define QWINO_BENCH_RANDOM_LAYER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

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
    std::normal_distribution<double> weight(kKernelZeroPoint, 24.0);
    kernel.resize(output_channels * kernel_size * kernel_size * input_channels);
    for (uint8_t& w : kernel) w = static_cast<uint8_t>(std::clamp(weight(rng), 0.0, 255.0));
    bias.resize(output_channels);
    for (int32_t& b : bias) b = byte(rng) * 16 - 2048;
    input.resize(batch * height * width * input_channels);
    for (uint8_t& x : input) x = static_cast<uint8_t>(byte(rng));
  }
};

#endif  // QWINO_BENCH_RANDOM_LAYER_H_
