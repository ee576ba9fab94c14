// Micro-benchmarks of the micro-kernels in isolation (google-benchmark): the F(2x2,3x3) ones and
// the 8-bit indirect GEMMs (Igemm: MACs/s on the indirect GEMM issue's layer shapes), the row
// sums of their A (Irsum: bytes/s of A), and on AVX-512 VNNI CPUs VPDPBUSD's own ceiling.
//
// Why: the operator's speed is the GEMM kernel's speed times 2.25 as long as the transforms stay
// a few percent of the time (doc/DESIGN.md section 6). These benchmarks show each part alone on the
// thesis' ResNet layer shapes, so a regression can be pinned on one kernel:
//  - GEMM: the 16 Winograd GEMMs of a layer are (tiles x K) x (K x N) with packed B; one
//    benchmark iteration is one such GEMM, run as the operator runs it (per 8-column B panel,
//    all 8-row blocks of A), and reports MACs/s.
//  - transforms: one iteration transforms every tile of the layer; reported as bytes/s of the
//    kernel's input (uint8 pixels resp. int32 M) and tiles/s.
//  - GEMM row blocks (GemmRows): one call per B panel with mr = 1..8 rows (K = 256, N = 256 or
//    32), i.e. what a layer's last, partial block of tiles costs (28x28 has 49 = 6 x 8 + 1
//    tiles with F(4x4,3x3)). The cost should be proportional to mr.
// Stage split of a layer on the A72 ruler: one Gemm iteration is one of the layer's 16 GEMMs,
// one transform iteration is the whole layer's transform. For 14x14x256, for example:
//   measure.sh -- qwino-ukernels-bench --iterations={N} --benchmark_filter='^Gemm/neon/M:49/'
// (times 16), and likewise '^InputTransform/neon/tiles:49/' and '^OutputTransform/neon/tiles:49/'.
// Every kernel of the GEMM and F(2x2,3x3) transform lists (src/<family>/<family>.inc) that the CPU
// can run, named <Benchmark>/<the kernel's ISA>. GEMMs run with their own tile (MR x NR, B packed
// with their k interleave KR). Under qemu the absolute numbers mean nothing; use the A72 ruler
// (shared/a72-ruler) or a board.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "qwino/common.h"
#if QWINO_ARCH_X86_64
#include <immintrin.h>
#endif

#include "qwino/dispatch.h"
#include "qwino/microparams.h"
#include "qwino/packing.h"
#include "qwino/ukernels.h"

namespace {

// A GEMM kernel's tile, from its list entry: MR rows, NR columns (B panel width), B interleaved by
// KR and padded to a multiple of k_padding rows.
struct GemmTile {
  size_t mr;
  size_t nr;
  size_t kr;
  size_t k_padding;
};

// One panel of round_up(k, k_padding) x tile.nr values, interleaved as the kernel reads it.
std::vector<int16_t> PackedPanels(size_t k, size_t n, const GemmTile& tile, std::mt19937& rng,
                                  bool fill_padding) {
  std::uniform_int_distribution<int> u_values(-9 * 255, 9 * 255);
  const size_t k_padded = (k + tile.k_padding - 1) / tile.k_padding * tile.k_padding;
  const size_t panels = (n + tile.nr - 1) / tile.nr;
  std::vector<int16_t> packed(panels * k_padded * tile.nr, 0);
  for (size_t panel = 0; panel < panels; panel++) {
    int16_t* b = packed.data() + panel * k_padded * tile.nr;
    for (size_t kk = 0; kk < k; kk++) {
      for (size_t j = 0; j < tile.nr && (fill_padding || panel * tile.nr + j < n); j++) {
        b[qwino::packed_b_index(kk, j, tile.nr, tile.kr)] = static_cast<int16_t>(u_values(rng));
      }
    }
  }
  return packed;
}

// {tiles (M of the GEMM), input channels (K), output channels (N)}: ResNet-18 3x3 layers at
// 56x56, 28x28, 14x14 and 7x7 (7x7 rounds up to 4x4 tiles of 2x2).
void LayerShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "K", "N"});
  b->Args({784, 64, 64});
  b->Args({196, 128, 128});
  b->Args({49, 256, 256});
  b->Args({16, 512, 512});
}

// {tiles, channels} for the transforms.
void TransformShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"tiles", "C"});
  b->Args({784, 64});
  b->Args({196, 128});
  b->Args({49, 256});
  b->Args({16, 512});
}

void Gemm(benchmark::State& state, qwino_gemm_ukernel_fn gemm, GemmTile tile) {
  const size_t m = static_cast<size_t>(state.range(0));
  const size_t k = static_cast<size_t>(state.range(1));
  const size_t n = static_cast<size_t>(state.range(2));
  const size_t k_padded = (k + tile.k_padding - 1) / tile.k_padding * tile.k_padding;

  std::mt19937 rng(42);
  std::uniform_int_distribution<int> v_values(-4 * 255, 4 * 255);
  std::vector<int16_t> a(m * k);
  std::generate(a.begin(), a.end(), [&] { return static_cast<int16_t>(v_values(rng)); });
  const std::vector<int16_t> packed_b = PackedPanels(k, n, tile, rng, /*fill_padding=*/false);
  std::vector<int32_t> c(m * n);

  for (auto _ : state) {
    const int16_t* b = packed_b.data();
    for (size_t col = 0; col < n; col += tile.nr, b += k_padded * tile.nr) {
      for (size_t row = 0; row < m; row += tile.mr) {
        gemm(std::min(tile.mr, m - row), std::min(tile.nr, n - col), k, a.data() + row * k, k, b,
             c.data() + row * n + col, n);
      }
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["MACs"] = benchmark::Counter(static_cast<double>(m * n * k),
                                              benchmark::Counter::kIsIterationInvariantRate);
}

// {mr, K, N}: one block of mr rows against every B panel, mr = 1..MR of the kernel; with N = 256
// the panels (128 KiB) stream from L2, with N = 32 they (16 KiB) stay in L1, as they do for the
// operator's partial blocks, which follow a full block on the same panel.
template <int64_t kMaxRows>
void RowBlocks(benchmark::internal::Benchmark* b) {
  b->ArgNames({"mr", "K", "N"});
  for (int64_t n : {256, 32}) {
    for (int64_t mr = 1; mr <= kMaxRows; mr++) {
      b->Args({mr, 256, n});
    }
  }
}

void GemmRows(benchmark::State& state, qwino_gemm_ukernel_fn gemm, GemmTile tile) {
  const size_t mr = static_cast<size_t>(state.range(0));
  const size_t k = static_cast<size_t>(state.range(1));
  const size_t n = static_cast<size_t>(state.range(2));
  const size_t k_padded = (k + tile.k_padding - 1) / tile.k_padding * tile.k_padding;

  std::mt19937 rng(43);
  std::uniform_int_distribution<int> v_values(-4 * 255, 4 * 255);
  std::vector<int16_t> a(mr * k);
  std::generate(a.begin(), a.end(), [&] { return static_cast<int16_t>(v_values(rng)); });
  const std::vector<int16_t> packed_b = PackedPanels(k, n, tile, rng, /*fill_padding=*/true);
  std::vector<int32_t> c(mr * n);

  for (auto _ : state) {
    const int16_t* b = packed_b.data();
    for (size_t col = 0; col < n; col += tile.nr, b += k_padded * tile.nr) {
      gemm(mr, std::min(tile.nr, n - col), k, a.data(), k, b, c.data() + col, n);
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["MACs"] = benchmark::Counter(static_cast<double>(mr * n * k),
                                              benchmark::Counter::kIsIterationInvariantRate);
}

// The 8-bit indirect GEMM's tile, k interleave and b_bias, from its list entry
// (src/s8-igemm/s8-igemm.inc).
struct IgemmTile {
  size_t mr;
  size_t nr;
  size_t kr;
  uint32_t b_bias;
};

// {pixels (M), input channels per tap (K), output channels (N), taps}: the 1x1 layers of the
// indirect GEMM's issue (28x28x128>128, 56x56x64>256, 14x14x256>1024) and a 3x3/2 layer
// (28x28 outputs of 56x56x64>128), and MobileNet's first layer as the operator runs it on
// gathered rows (112x112 outputs of 224x224x3>32 3x3/2: one tap of 27 bytes) and with one k quad
// (K = 4: what a tile costs beyond its multiplies, the requantization and stores).
void IgemmShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "K", "N", "taps"});
  b->Args({784, 128, 128, 1});
  b->Args({3136, 64, 256, 1});
  b->Args({196, 256, 1024, 1});
  b->Args({784, 64, 128, 9});
  b->Args({12544, 27, 32, 1});
  b->Args({12544, 4, 32, 1});
}

int32_t FloatBits(float value) {
  int32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// Per-tensor requantization as the operator benchmarks run it: random biases (|b| < 2^24), then
// one channel's TFLite multiplier (~0.7071 * 2^-12) or fp32 scale repeated over the channels
// (qwino/microparams.h), zero point 127, no clamp; microparams from the kernel's init function.
struct BenchRequantization {
  std::vector<int32_t> channel_params;
  qwino_qu8_requantization_params params{};

  BenchRequantization(size_t channels, qwino_requantization_mode mode,
                      qwino_init_qu8_requantization_params_fn init_params, std::mt19937& rng)
      : channel_params(QWINO_MAX_CHANNEL_ARRAYS * channels) {
    std::uniform_int_distribution<int32_t> bias(-(1 << 24), 1 << 24);
    std::generate_n(channel_params.begin(), channels, [&] { return bias(rng); });
    const float scale = 0x1.6A09E6p-13f;
    for (size_t c = 0; c < channels; c++) {
      channel_params[channels + c] =
          mode == qwino_requantization_fp32 ? FloatBits(scale) : 1518500250;
      channel_params[2 * channels + c] = 0;
      channel_params[3 * channels + c] = 12;
    }
    qwino_output_quantization quantization{};
    quantization.channel_stride = channels;
    quantization.channels = channels;
    quantization.channel_params = channel_params.data();
    quantization.output_zero_point = 127;
    quantization.output_min = 0;
    quantization.output_max = 255;
    init_params(&params, &quantization);
  }
};

// The operands of a layer's GEMM for a kernel's tile: packed random int8 weights, one input image
// whose pixels' taps point at distinct rows, the zero row.
// The activations are uint8 (a_sign 0x80) for the kernels that take A as VPDPBUSD's unsigned
// operand and int8 (a_sign 0) for the bbias128 ones, as the operator gives them (it never gives
// the bbias128 kernels uint8 rows: those would take their XOR body).
struct IgemmOperands {
  size_t m, k, n, taps, panel_bytes;
  uint8_t a_sign;
  std::vector<int8_t> packed_b;
  std::vector<uint8_t> input, zero;
  std::vector<const uint8_t*> a;

  IgemmOperands(const benchmark::State& state, IgemmTile tile, std::mt19937& rng)
      : m(static_cast<size_t>(state.range(0))),
        k(static_cast<size_t>(state.range(1))),
        n(static_cast<size_t>(state.range(2))),
        taps(static_cast<size_t>(state.range(3))),
        panel_bytes(qwino::packed_igemm_panel_bytes(taps, k, tile.nr, tile.kr)),
        a_sign(tile.b_bias != 0 ? 0 : 0x80),
        packed_b((n + tile.nr - 1) / tile.nr * panel_bytes),
        input(m * taps * k),
        zero(k, 128),
        a(m * taps) {
    std::vector<uint8_t> kernel(n * taps * k);
    std::generate(kernel.begin(), kernel.end(),
                  [&] { return static_cast<uint8_t>(1 + rng() % 255); });
    std::vector<int64_t> column_sums(n);
    const std::vector<uint8_t> offsets(n, 128);
    qwino::pack_igemm_weights(kernel.data(), taps, k, n, offsets.data(), tile.nr, tile.kr,
                              tile.b_bias, packed_b.data(), column_sums.data());
    std::generate(input.begin(), input.end(), [&] { return static_cast<uint8_t>(rng()); });
    for (size_t i = 0; i < m * taps; i++) a[i] = input.data() + i * k;
  }

  // One pass as the operator's items make it: per block of mr pixels, every B panel;
  // call(mr, nr, a, b, row, column) runs one tile.
  template <typename Call>
  void Run(IgemmTile tile, Call call) const {
    for (size_t row = 0; row < m; row += tile.mr) {
      const int8_t* b = packed_b.data();
      for (size_t col = 0; col < n; col += tile.nr, b += panel_bytes) {
        call(std::min(tile.mr, m - row), std::min(tile.nr, n - col), a.data() + row * taps, b, row,
             col);
      }
    }
  }
  void Count(benchmark::State& state) const {
    state.counters["MACs"] = benchmark::Counter(static_cast<double>(m * n * k * taps),
                                                benchmark::Counter::kIsIterationInvariantRate);
  }
};

void Igemm(benchmark::State& state, qwino_igemm_ukernel_fn igemm, IgemmTile tile) {
  std::mt19937 rng(42);
  const IgemmOperands op(state, tile, rng);
  std::vector<int32_t> c(op.m * op.n);
  for (auto _ : state) {
    op.Run(tile, [&](size_t mr, size_t nr, const uint8_t* const* a, const int8_t* b, size_t row,
                     size_t col) {
      igemm(mr, nr, op.k, op.taps, a, 0, op.zero.data(), op.a_sign, b, c.data() + row * op.n + col,
            op.n);
    });
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  op.Count(state);
}

// The same GEMM with the requantization fused: bytes out, as the operator's items write them
// (kernels that walk row blocks themselves, row_blocks != 0, take all the rows in one call per
// panel, as the operator gives them a region's: a call per 6 rows put 25-55 us of set-up on
// MobileNet's first layer, 12544 rows, on Zen 5).
void IgemmRequantize(benchmark::State& state, qwino_igemm_requantize_ukernel_fn igemm,
                     IgemmTile tile, unsigned row_blocks,
                     qwino_init_qu8_requantization_params_fn init_params,
                     qwino_requantization_mode mode) {
  std::mt19937 rng(42);
  const IgemmOperands op(state, tile, rng);
  const BenchRequantization requantization(op.n, mode, init_params, rng);
  std::vector<uint8_t> output(op.m * op.n);
  IgemmTile call_tile = tile;
  if (row_blocks != 0) {
    call_tile.mr = op.m;
  }
  for (auto _ : state) {
    op.Run(call_tile, [&](size_t mr, size_t nr, const uint8_t* const* a, const int8_t* b,
                          size_t row, size_t col) {
      igemm(mr, nr, op.k, op.taps, a, 0, op.zero.data(), op.a_sign, b,
            requantization.channel_params.data() + col, nullptr, output.data() + row * op.n + col,
            op.n, &requantization.params);
    });
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  op.Count(state);
}

// {kc, taps, rows}: row sums of the indirect GEMM's A for one block of 6 output pixels (the x86
// igemm tiles' MR), a 3x3 layer of 64 channels and 1x1 layers of 128 and 576 channels.
#if QWINO_ARCH_X86_64
// The ceiling of the AVX-512 VNNI indirect GEMM on this CPU: 12 independent chains of VPDPBUSD
// on registers (no loads, enough chains to cover its latency on two ports), 64 MACs each. Its
// MACs/s are what a layer's 8-bit multiplies could reach at best, one thread (the x86 3x3/2
// comparison with oneDNN in doc/PERFORMANCE.md).
__attribute__((target("avx512f,avx512vnni"))) void VpdpbusdPeak(benchmark::State& state) {
  constexpr int kChains = 12, kSteps = 1000;
  __m512i acc[kChains];
  for (int i = 0; i < kChains; i++) acc[i] = _mm512_set1_epi32(i);
  const __m512i a = _mm512_set1_epi32(0x01020304), b = _mm512_set1_epi32(0x05060708);
  for (auto _ : state) {
    for (int step = 0; step < kSteps; step++) {
#pragma GCC unroll 12
      for (int i = 0; i < kChains; i++) acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
    }
    for (int i = 0; i < kChains; i++) benchmark::DoNotOptimize(acc[i]);
  }
  state.counters["MACs"] =
      benchmark::Counter(64.0 * kChains * kSteps, benchmark::Counter::kIsIterationInvariantRate);
}
#endif

void IrsumShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"kc", "taps", "rows"});
  b->Args({64, 9, 6});
  b->Args({128, 1, 6});
  b->Args({576, 1, 6});
}

// One call per iteration, every (row, tap) pointer at its own random row; bytes/s of A read.
void Irsum(benchmark::State& state, qwino_irsum_ukernel_fn irsum) {
  const size_t kc = static_cast<size_t>(state.range(0));
  const size_t taps = static_cast<size_t>(state.range(1));
  const size_t rows = static_cast<size_t>(state.range(2));
  std::mt19937 rng(42);
  std::vector<uint8_t> input(rows * taps * kc), zero(kc, 128);
  std::generate(input.begin(), input.end(), [&] { return static_cast<uint8_t>(rng()); });
  std::vector<const uint8_t*> a(rows * taps);
  for (size_t i = 0; i < rows * taps; i++) a[i] = input.data() + i * kc;
  std::vector<int32_t> sums(rows);
  for (auto _ : state) {
    irsum(rows, kc, taps, a.data(), 0, zero.data(), 0x80, sums.data());
    benchmark::DoNotOptimize(sums.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * rows * taps * kc));
}

void InputTransform(benchmark::State& state, qwino_input_transform_ukernel_fn transform) {
  const size_t tiles = static_cast<size_t>(state.range(0));
  const size_t channels = static_cast<size_t>(state.range(1));
  // A square-ish map of tiles; neighbouring tiles overlap by 2 pixels as in the operator.
  size_t tiles_width = 1;
  while (tiles_width * tiles_width < tiles) tiles_width++;
  const size_t tiles_height = (tiles + tiles_width - 1) / tiles_width;
  const size_t width = tiles_width * 2 + 2, height = tiles_height * 2 + 2;

  std::mt19937 rng(7);
  std::vector<uint8_t> image(height * width * channels);
  std::generate(image.begin(), image.end(), [&] { return static_cast<uint8_t>(rng()); });
  std::vector<const uint8_t*> pointers(tiles * 16);
  for (size_t t = 0; t < tiles; t++) {
    const size_t y0 = t / tiles_width * 2, x0 = t % tiles_width * 2;
    for (size_t p = 0; p < 16; p++) {
      pointers[t * 16 + p] = image.data() + ((y0 + p / 4) * width + x0 + p % 4) * channels;
    }
  }
  std::vector<int16_t> v(16 * tiles * channels);

  for (auto _ : state) {
    for (size_t t = 0; t < tiles; t++) {
      transform(channels, pointers.data() + t * 16, 128, /*input_sign=*/0, v.data() + t * channels,
                tiles * channels);
    }
    benchmark::DoNotOptimize(v.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * tiles * 16 * channels));
  state.counters["tiles"] =
      benchmark::Counter(static_cast<double>(tiles), benchmark::Counter::kIsIterationInvariantRate);
}

void OutputTransform(benchmark::State& state, qwino_f23_output_transform_ukernel_fn transform,
                     qwino_init_qu8_requantization_params_fn init_params,
                     qwino_requantization_mode mode) {
  const size_t tiles = static_cast<size_t>(state.range(0));
  const size_t channels = static_cast<size_t>(state.range(1));
  size_t tiles_width = 1;
  while (tiles_width * tiles_width < tiles) tiles_width++;
  const size_t width = tiles_width * 2;
  const size_t height = (tiles + tiles_width - 1) / tiles_width * 2;

  std::mt19937 rng(9);
  std::uniform_int_distribution<int32_t> m_values(-(1 << 24), 1 << 24);
  std::vector<int32_t> m(16 * tiles * channels);
  std::generate(m.begin(), m.end(), [&] { return m_values(rng); });
  const BenchRequantization requantization(channels, mode, init_params, rng);
  const std::vector<int32_t>& channel_params = requantization.channel_params;
  const qwino_qu8_requantization_params& params = requantization.params;
  std::vector<uint8_t> output(height * width * channels);

  for (auto _ : state) {
    for (size_t t = 0; t < tiles; t++) {
      const size_t oy = t / tiles_width * 2, ox = t % tiles_width * 2;
      transform(channels, m.data() + t * channels, tiles * channels, channel_params.data(),
                output.data() + (oy * width + ox) * channels, width * channels, channels, 2, 2,
                &params);
    }
    benchmark::DoNotOptimize(output.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * tiles * 16 * channels * sizeof(int32_t)));
  state.counters["tiles"] =
      benchmark::Counter(static_cast<double>(tiles), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

// Registration is done in main so that --iterations=N (or QWINO_BENCH_ITERATIONS=N) can pin
// every benchmark to N iterations: the A72 ruler (shared/a72-ruler) counts instructions of a run
// with N = 11 minus a run with N = 1, which needs identical work apart from the iteration count.
// The flag form is what the ruler's measure.sh can vary (it substitutes {N} in an argument).
int main(int argc, char** argv) {
  long fixed_iterations = 0;
  if (const char* iterations = std::getenv("QWINO_BENCH_ITERATIONS"); iterations != nullptr) {
    fixed_iterations = std::strtol(iterations, nullptr, 10);
  }
  {
    static const char kFlag[] = "--iterations=";
    int kept = 1;
    for (int i = 1; i < argc; i++) {
      if (std::strncmp(argv[i], kFlag, sizeof(kFlag) - 1) == 0) {
        fixed_iterations = std::strtol(argv[i] + sizeof(kFlag) - 1, nullptr, 10);
      } else {
        argv[kept++] = argv[i];
      }
    }
    argc = kept;
  }

  std::vector<benchmark::internal::Benchmark*> benchmarks;
  const auto add = [&](benchmark::internal::Benchmark* b,
                       void (*shapes)(benchmark::internal::Benchmark*)) {
    b->Apply(shapes)->UseRealTime();
    benchmarks.push_back(b);
  };
  // One set of benchmarks per kernel of each family's list the CPU can run, named after the
  // family and the kernel's ISA (e.g. Gemm/neon, OutputTransform/avx512skx).
#define QWINO_S16_GEMM(isa, ukernel, mr, nr, kr, k_padding, mac_cost)     \
  if (qwino_isa_detected(qwino_isa_##isa)) {                              \
    add(benchmark::RegisterBenchmark("Gemm/" #isa, Gemm, ukernel,         \
                                     GemmTile{mr, nr, kr, k_padding}),    \
        LayerShapes);                                                     \
    add(benchmark::RegisterBenchmark("GemmRows/" #isa, GemmRows, ukernel, \
                                     GemmTile{mr, nr, kr, k_padding}),    \
        RowBlocks<mr>);                                                   \
  }
#include "s16-gemm/s16-gemm.inc"
#undef QWINO_S16_GEMM
#define QWINO_S8_IGEMM(isa, ukernel, mr, nr, kr, a_bias, b_bias, b_min, k_step, mac_cost,     \
                       tile_cost)                                                             \
  if (qwino_isa_detected(qwino_isa_##isa)) {                                                  \
    add(benchmark::RegisterBenchmark(b_bias == 0 ? "Igemm/" #isa : "Igemm/" #isa "/bbias128", \
                                     Igemm, ukernel, IgemmTile{mr, nr, kr, b_bias}),          \
        IgemmShapes);                                                                         \
  }
#include "s8-igemm/s8-igemm.inc"
#undef QWINO_S8_IGEMM
#define QWINO_QU8_IGEMM(isa, mode, ukernel, mr, nr, kr, a_bias, b_bias, b_min, row_blocks,        \
                        resident_row_bytes, init_params)                                          \
  if (qwino_isa_detected(qwino_isa_##isa)) {                                                      \
    add(benchmark::RegisterBenchmark(b_bias == 0 ? "IgemmRequantize/" #mode "/" #isa              \
                                                 : "IgemmRequantize/" #mode "/" #isa "/bbias128", \
                                     IgemmRequantize, ukernel, IgemmTile{mr, nr, kr, b_bias},     \
                                     row_blocks, init_params, qwino_requantization_##mode),       \
        IgemmShapes);                                                                             \
  }
#include "qu8-igemm/qu8-igemm.inc"
#undef QWINO_QU8_IGEMM
#define QWINO_S8_IRSUM(isa, ukernel)                                               \
  if (qwino_isa_detected(qwino_isa_##isa)) {                                       \
    add(benchmark::RegisterBenchmark("Irsum/" #isa, Irsum, ukernel), IrsumShapes); \
  }
#include "s8-irsum/s8-irsum.inc"
#undef QWINO_S8_IRSUM
#define QWINO_QU8_WINOGRAD_F2X2_INPUT(isa, ukernel, value_cost)                        \
  if (qwino_isa_detected(qwino_isa_##isa)) {                                           \
    add(benchmark::RegisterBenchmark("InputTransform/" #isa, InputTransform, ukernel), \
        TransformShapes);                                                              \
  }
#include "qu8-winograd-f2x2-input/qu8-winograd-f2x2-input.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_INPUT
#define QWINO_QU8_WINOGRAD_F2X2_OUTPUT(isa, mode, ukernel, init_params, value_cost)               \
  if (qwino_isa_detected(qwino_isa_##isa)) {                                                      \
    add(benchmark::RegisterBenchmark("OutputTransform/" #mode "/" #isa, OutputTransform, ukernel, \
                                     init_params, qwino_requantization_##mode),                   \
        TransformShapes);                                                                         \
  }
#include "qu8-winograd-f2x2-output/qu8-winograd-f2x2-output.inc"
#undef QWINO_QU8_WINOGRAD_F2X2_OUTPUT
#if QWINO_ARCH_X86_64
  if (qwino_isa_detected(qwino_isa_avx512vnni)) {
    benchmarks.push_back(benchmark::RegisterBenchmark("VpdpbusdPeak", VpdpbusdPeak));
  }
#endif
  if (fixed_iterations > 0) {
    for (auto* b : benchmarks) b->Iterations(fixed_iterations);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
