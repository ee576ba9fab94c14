// The network layer lists of the benchmarks (bench/networks/*.txt) against what the networks are:
// every line well formed and a valid convolution, the number of convolutions of each network, and
// the multiply-accumulates against the totals their papers and torchvision publish (which include
// the final fully connected layer, added here). A wrong or missing layer shows up in one of them.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Layer {
  std::string name;
  uint64_t height, width, input_channels, output_channels, kernel, stride, groups, count;
  uint64_t padding[4];  // top, right, bottom, left
};

std::vector<Layer> ReadList(const std::string& network) {
  const std::string path = std::string(QWINO_NETWORKS_DIR) + "/" + network + ".txt";
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path;
  std::vector<Layer> layers;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Layer l;
    std::string padding;
    fields >> l.name >> l.height >> l.width >> l.input_channels >> l.output_channels >> l.kernel >>
        l.stride >> padding >> l.groups >> l.count;
    EXPECT_FALSE(fields.fail()) << network << ": " << line;
    std::string rest;
    EXPECT_FALSE(fields >> rest) << network << ": extra fields in " << line;
    char comma[3] = {};
    std::istringstream pads(padding);
    pads >> l.padding[0] >> comma[0] >> l.padding[1] >> comma[1] >> l.padding[2] >> comma[2] >>
        l.padding[3];
    EXPECT_TRUE(!pads.fail() && comma[0] == ',' && comma[1] == ',' && comma[2] == ',')
        << network << ": padding " << padding;
    layers.push_back(l);
  }
  return layers;
}

uint64_t OutputSize(uint64_t input, uint64_t before, uint64_t after, uint64_t kernel,
                    uint64_t stride) {
  return (input + before + after - kernel) / stride + 1;
}

struct Totals {
  uint64_t convolutions = 0;
  uint64_t macs = 0;
};

Totals Check(const std::string& network) {
  Totals t;
  for (const Layer& l : ReadList(network)) {
    SCOPED_TRACE(network + ": " + l.name);
    EXPECT_GE(l.count, 1u);
    EXPECT_GE(l.groups, 1u);
    EXPECT_EQ(0u, l.input_channels % l.groups);
    EXPECT_EQ(0u, l.output_channels % l.groups);
    EXPECT_GE(l.height + l.padding[0] + l.padding[2], l.kernel);
    EXPECT_GE(l.width + l.padding[1] + l.padding[3], l.kernel);
    // Padding below the kernel size: what "SAME" and the torchvision layers use.
    for (uint64_t p : l.padding) EXPECT_LT(p, l.kernel);
    const uint64_t oh = OutputSize(l.height, l.padding[0], l.padding[2], l.kernel, l.stride);
    const uint64_t ow = OutputSize(l.width, l.padding[3], l.padding[1], l.kernel, l.stride);
    // Every network here halves the map exactly at stride 2 and keeps it at stride 1.
    EXPECT_EQ((l.height + l.stride - 1) / l.stride, oh);
    EXPECT_EQ((l.width + l.stride - 1) / l.stride, ow);
    t.convolutions += l.count;
    t.macs +=
        l.count * oh * ow * l.output_channels * (l.input_channels / l.groups) * l.kernel * l.kernel;
  }
  return t;
}

// Published multiply-accumulates, including the fully connected classifier of fc_macs.
void ExpectMacs(const Totals& t, uint64_t fc_macs, double published, double tolerance) {
  const double macs = static_cast<double>(t.macs + fc_macs);
  EXPECT_NEAR(published, macs, published * tolerance) << "convolutions: " << t.macs;
}

TEST(NetworkLists, resnet18) {
  const Totals t = Check("resnet18");
  EXPECT_EQ(20u, t.convolutions);  // 17 + 3 downsampling projections
  ExpectMacs(t, 512 * 1000, 1.814e9, 0.005);
}

TEST(NetworkLists, resnet50) {
  const Totals t = Check("resnet50");
  EXPECT_EQ(53u, t.convolutions);  // 1 + 16 blocks x 3 + 4 projections
  ExpectMacs(t, 2048 * 1000, 4.09e9, 0.005);
}

TEST(NetworkLists, vgg16) {
  const Totals t = Check("vgg16");
  EXPECT_EQ(13u, t.convolutions);
  ExpectMacs(t, 7 * 7 * 512 * 4096 + 4096 * 4096 + 4096 * 1000, 15.47e9, 0.005);
}

TEST(NetworkLists, mobilenet_v1) {
  const Totals t = Check("mobilenet-v1");
  EXPECT_EQ(27u, t.convolutions);            // 1 + 13 x (depthwise + pointwise)
  ExpectMacs(t, 1024 * 1000, 569e6, 0.005);  // the paper's 569M mult-adds
}

TEST(NetworkLists, mobilenet_v2) {
  const Totals t = Check("mobilenet-v2");
  EXPECT_EQ(52u, t.convolutions);           // 1 + 2 + 16 blocks x 3 + 1
  ExpectMacs(t, 1280 * 1000, 300e6, 0.01);  // the paper's 300M
}

TEST(NetworkLists, efficientnet_lite0) {
  const Totals t = Check("efficientnet-lite0");
  EXPECT_EQ(49u, t.convolutions);  // stem + 2 + 15 blocks x 3 + head
}

}  // namespace
