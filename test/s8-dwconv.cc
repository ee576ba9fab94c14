// Tests of the depthwise micro-kernels (src/s8-dwconv/): channels 1 to 80 (every remainder of the
// channel block and several blocks), 1 to 27 taps (3x3, 5x5, and taps split into slices), pixels
// sharing pointers as the operator's indirection shares them (stride 1 and 2 of a 3x3 and a 5x5),
// padding rows, input offsets (a channel block's first channel), both activation signs, output
// slack, more taps than a kernel's stack buffers hold, the values whose products and pair sums
// reach the limits, accumulators on rounding ties, per-channel and random requantization, int8
// outputs, and each SIMD kernel against its scalar twin.
#include <gtest/gtest.h>

#include <cstdint>

#include "dwconv-tester.h"
#include "isa-check.h"
#include "qwino/ukernels.h"

namespace {

using Values = DwconvTester::Values;

// The scalar twin of a kernel with this layout and mode (list entries of src/s8-dwconv/).
qwino_dwconv_ukernel_fn Twin(qwino_dwconv_layout layout, qwino_requantization_mode mode) {
  if (layout == qwino_dwconv_layout_int8_taps) {
    return mode == qwino_requantization_fp32 ? qwino_s8_dwconv_fp32_ukernel_up8__scalar
                                             : qwino_s8_dwconv_gemmlowp_ukernel_up8__scalar;
  }
  if (layout == qwino_dwconv_layout_int8_col3) {
    return mode == qwino_requantization_fp32 ? qwino_s8_dwconv_fp32_ukernel_up8__scalar_col3
                                             : qwino_s8_dwconv_gemmlowp_ukernel_up8__scalar_col3;
  }
  if (layout == qwino_dwconv_layout_int8_col3_pairs) {
    return mode == qwino_requantization_fp32
               ? qwino_s8_dwconv_fp32_ukernel_up8__scalar_col3_pairs
               : qwino_s8_dwconv_gemmlowp_ukernel_up8__scalar_col3_pairs;
  }
  if (layout == qwino_dwconv_layout_int8_col5_pairs) {
    return mode == qwino_requantization_fp32
               ? qwino_s8_dwconv_fp32_ukernel_up8__scalar_col5_pairs
               : qwino_s8_dwconv_gemmlowp_ukernel_up8__scalar_col5_pairs;
  }
  if (layout == qwino_dwconv_layout_int8_col5) {
    return mode == qwino_requantization_fp32 ? qwino_s8_dwconv_fp32_ukernel_up8__scalar_col5
                                             : qwino_s8_dwconv_gemmlowp_ukernel_up8__scalar_col5;
  }
  return mode == qwino_requantization_fp32 ? qwino_s8_dwconv_fp32_ukernel_up8__scalar_madd
                                           : qwino_s8_dwconv_gemmlowp_ukernel_up8__scalar_madd;
}

// Whether the layout's contract covers calls with these taps and pointer step (0: no sharing):
// int8_col3 and int8_col5 kernels take columns of 3 and 5 taps only.
// The taps of one column the layout groups (1: no grouping).
size_t ColumnRows(qwino_dwconv_layout layout) {
  if (layout == qwino_dwconv_layout_int8_col3) return 3;
  if (layout == qwino_dwconv_layout_int8_col3_pairs) return 3;
  if (layout == qwino_dwconv_layout_int8_col5_pairs) return 5;
  return layout == qwino_dwconv_layout_int8_col5 ? 5 : 1;
}
// A square kernel the layout takes (3x3, or 5x5 for int8_col5) and its stride-1 pointer step.
size_t SquareTaps(qwino_dwconv_layout layout) { return ColumnRows(layout) == 5 ? 25 : 9; }
size_t StrideOneStep(qwino_dwconv_layout layout) { return ColumnRows(layout) == 5 ? 5 : 3; }
bool Fits(qwino_dwconv_layout layout, size_t taps, size_t step) {
  const size_t rows = ColumnRows(layout);
  return taps % rows == 0 && (step == 0 ? taps : step) % rows == 0;
}
}  // namespace

#define QWINO_DWCONV_TESTS(SUITE, dwconv, mode_, init, CR, layout, CHECK)                         \
  TEST(SUITE, every_channel_count) {                                                              \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    for (size_t channels = 1; channels <= 80; channels++) {                                       \
      DwconvTester()                                                                              \
          .mode(mode_)                                                                            \
          .channels(channels)                                                                     \
          .pixels(3)                                                                              \
          .taps(SquareTaps(layout))                                                               \
          .input_pixel_step(StrideOneStep(layout))                                                \
          .random_params(true)                                                                    \
          .per_channel(true)                                                                      \
          .iterations(1)                                                                          \
          .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);                 \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, every_tap_count) {                                                                  \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    for (size_t taps = 1; taps <= 27; taps++) {                                                   \
      if (!Fits(layout, taps, 0)) continue;                                                       \
      for (size_t channels : {size_t{CR}, size_t{CR} + 3, 2 * size_t{CR} + 1}) {                  \
        DwconvTester()                                                                            \
            .mode(mode_)                                                                          \
            .channels(channels)                                                                   \
            .pixels(2)                                                                            \
            .taps(taps)                                                                           \
            .random_params(true)                                                                  \
            .iterations(1)                                                                        \
            .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);               \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, shared_pointers_and_padding) {                                                      \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    /* 3x3 stride 1 and 2 (steps 3, 6), 5x5 stride 1 and 2 (5, 10), dilated (taps), 3x5. */       \
    const size_t shapes[][2] = {{9, 3}, {9, 6}, {25, 5}, {25, 10}, {9, 9}, {18, 6}, {15, 3}};     \
    for (const auto& shape : shapes) {                                                            \
      if (!Fits(layout, shape[0], shape[1])) continue;                                            \
      for (size_t pixels : {1, 2, 3, 4, 5, 8, 17}) {                                              \
        for (uint32_t odds : {0u, 4u, 1u}) {                                                      \
          DwconvTester()                                                                          \
              .mode(mode_)                                                                        \
              .channels(2 * CR + 5)                                                               \
              .pixels(pixels)                                                                     \
              .taps(shape[0])                                                                     \
              .input_pixel_step(shape[1])                                                         \
              .zero_row_odds(odds)                                                                \
              .random_params(true)                                                                \
              .iterations(1)                                                                      \
              .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);             \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, sign_and_output_stride) {                                                           \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    for (uint8_t sign : {0x00, 0x80}) {                                                           \
      for (bool int8 : {false, true}) {                                                           \
        for (size_t stride : {0, 1, 13}) {                                                        \
          const size_t channels = CR + 7;                                                         \
          DwconvTester()                                                                          \
              .mode(mode_)                                                                        \
              .channels(channels)                                                                 \
              .pixels(4)                                                                          \
              .taps(SquareTaps(layout))                                                           \
              .input_pixel_step(StrideOneStep(layout))                                            \
              .input_offset(stride * 5)                                                           \
              .a_sign(sign)                                                                       \
              .int8_output(int8)                                                                  \
              .output_stride(stride == 0 ? 0 : channels + stride)                                 \
              .random_params(true)                                                                \
              .per_channel(true)                                                                  \
              .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);             \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, extreme_values) {                                                                   \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    for (uint8_t sign : {0x00, 0x80}) {                                                           \
      for (size_t taps : {1, 2, 9, 25, 27}) {                                                     \
        if (!Fits(layout, taps, 0)) continue;                                                     \
        DwconvTester()                                                                            \
            .mode(mode_)                                                                          \
            .channels(3 * CR + 1)                                                                 \
            .pixels(3)                                                                            \
            .taps(taps)                                                                           \
            .a_sign(sign)                                                                         \
            .values(Values::kExtreme)                                                             \
            .random_params(true)                                                                  \
            .bias_values(qwino_test::BiasValues::kExtreme)                                        \
            .iterations(8)                                                                        \
            .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);               \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, long_rows) {                                                                        \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    /* Many pixels per call, with shared pointers: runs of pixels a kernel may split a row into.  \
     */                                                                                           \
    const size_t shapes[][2] = {{9, 3}, {9, 6}, {9, 1}, {25, 5}, {25, 10}, {18, 6}, {15, 6}};     \
    for (const auto& shape : shapes) {                                                            \
      if (!Fits(layout, shape[0], shape[1])) continue;                                            \
      for (size_t pixels : {35, 63, 70, 190}) {                                                   \
        for (uint8_t sign : {0x00, 0x80}) {                                                       \
          DwconvTester()                                                                          \
              .mode(mode_)                                                                        \
              .channels(CR + 3)                                                                   \
              .pixels(pixels)                                                                     \
              .taps(shape[0])                                                                     \
              .input_pixel_step(shape[1])                                                         \
              .a_sign(sign)                                                                       \
              .zero_row_odds(8)                                                                   \
              .random_params(true)                                                                \
              .iterations(1)                                                                      \
              .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);             \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, many_taps) {                                                                        \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    /* More taps than the kernels stage (a 9x9 or 11x11 kernel, or 3-way split weights of a 7x7   \
     * one): 81, 130 and 147, odd and even, with channel remainders of every block width; 201 and \
     * 325, more columns of 3 and 5 rows than the column kernels stage at a time. */              \
    for (size_t taps : {81, 130, 147, 201, 325}) {                                                \
      if (!Fits(layout, taps, 0)) continue;                                                       \
      for (size_t channels : {size_t{7}, size_t{CR} + 21, size_t{CR} / 2 + 5}) {                  \
        DwconvTester()                                                                            \
            .mode(mode_)                                                                          \
            .channels(channels)                                                                   \
            .pixels(3)                                                                            \
            .taps(taps)                                                                           \
            .random_params(true)                                                                  \
            .iterations(1)                                                                        \
            .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);               \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, clamp_bounds) {                                                                     \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    /* The whole range (nothing to clamp) and the bounds one step inside it. */                   \
    const uint8_t bounds[][2] = {{0, 255}, {1, 255}, {0, 254}, {1, 254}, {128, 127}};             \
    for (const auto& bound : bounds) {                                                            \
      for (bool int8 : {false, true}) {                                                           \
        for (size_t taps : {9, 25, 4, 15}) {                                                      \
          /* Else the column kernels' stride 1. */                                                \
          size_t step = taps / 3 + 1;                                                             \
          if (!Fits(layout, taps, step)) step = taps % 5 == 0 ? 5 : 3;                            \
          if (!Fits(layout, taps, step)) continue;                                                \
          DwconvTester()                                                                          \
              .mode(mode_)                                                                        \
              .channels(2 * CR + 11)                                                              \
              .pixels(7)                                                                          \
              .taps(taps)                                                                         \
              .input_pixel_step(step)                                                             \
              .int8_output(int8)                                                                  \
              .output_min(bound[0])                                                               \
              .output_max(bound[1])                                                               \
              .output_zero_point(int8 ? 100 : 128)                                                \
              .per_channel(true)                                                                  \
              .values(Values::kExtreme)                                                           \
              .iterations(2)                                                                      \
              .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);             \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, rectified_outputs) { /* output_min at or above the zero point, as with a ReLU */    \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    /* One right shift >= 1 for every channel: the gemmlowp shortcut's condition. */              \
    for (bool int8 : {false, true}) {                                                             \
      for (int above : {0, 3}) {                                                                  \
        for (uint32_t shift : {1u, 9u}) {                                                         \
          const int zero_point = int8 ? 100 : 128;                                                \
          DwconvTester()                                                                          \
              .mode(mode_)                                                                        \
              .channels(2 * CR + 7)                                                               \
              .pixels(3)                                                                          \
              .taps(SquareTaps(layout))                                                           \
              .values(Values::kTies)                                                              \
              .int8_output(int8)                                                                  \
              .output_zero_point(zero_point)                                                      \
              .output_min(static_cast<uint8_t>(zero_point + above))                               \
              .right_shift(shift)                                                                 \
              .iterations(20)                                                                     \
              .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);             \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, shift_windows) {                                                                    \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    /* Per-channel right shifts close together (a block's common shift, where a kernel has one),  \
     * and just too far apart for it; a square kernel at stride 1 and 2; activations and outputs  \
     * of either type (the pairs of different types take other paths in some kernels). */         \
    for (uint32_t window : {1u, 3u, 6u, 7u, 8u, 12u}) {                                           \
      for (int types = 0; types < 4; types++) {                                                   \
        const bool int8 = (types & 1) != 0;                                                       \
        const uint8_t sign = (types & 2) != 0 ? 0x80 : 0x00;                                      \
        for (Values values : {Values::kFull, Values::kTies, Values::kExtreme}) {                  \
          for (size_t step : {StrideOneStep(layout), 2 * StrideOneStep(layout)}) {                \
            if (!Fits(layout, SquareTaps(layout), step)) continue;                                \
            DwconvTester()                                                                        \
                .mode(mode_)                                                                      \
                .channels(2 * CR + 5)                                                             \
                .pixels(5)                                                                        \
                .taps(SquareTaps(layout))                                                         \
                .input_pixel_step(step)                                                           \
                .int8_output(int8)                                                                \
                .values(values)                                                                   \
                .a_sign(sign)                                                                     \
                .random_params(true)                                                              \
                .per_channel(true)                                                                \
                .shift_window(window)                                                             \
                .iterations(6)                                                                    \
                .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);           \
          }                                                                                       \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, every_shift_window) {                                                               \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    /* Every block shift from 1 to 25 alone and with windows of 4 and 7 above it: each immediate  \
     * a kernel chooses per block (one shift for all channels, a common pre-shift) and the ones   \
     * just past them. */                                                                         \
    for (uint32_t window : {1u, 4u, 7u}) {                                                        \
      for (uint32_t base = 1; base <= 25; base++) {                                               \
        for (bool int8 : {false, true}) {                                                         \
          DwconvTester()                                                                          \
              .mode(mode_)                                                                        \
              .channels(CR + 3)                                                                   \
              .pixels(4)                                                                          \
              .taps(SquareTaps(layout))                                                           \
              .input_pixel_step(StrideOneStep(layout))                                            \
              .int8_output(int8)                                                                  \
              .values(Values::kTies)                                                              \
              .a_sign(int8 ? 0 : 0x80)                                                            \
              .random_params(true)                                                                \
              .per_channel(true)                                                                  \
              .shift_window(window)                                                               \
              .shift_base(base)                                                                   \
              .iterations(2)                                                                      \
              .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);             \
        }                                                                                         \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  TEST(SUITE, rounding_ties) {                                                                    \
    CHECK;                                                                                        \
    const qwino_dwconv_ukernel_fn twin = Twin(layout, mode_);                                     \
    for (bool int8 : {false, true}) {                                                             \
      DwconvTester()                                                                              \
          .mode(mode_)                                                                            \
          .channels(2 * CR + 3)                                                                   \
          .pixels(2)                                                                              \
          .taps(SquareTaps(layout))                                                               \
          .values(Values::kTies)                                                                  \
          .int8_output(int8)                                                                      \
          .random_params(true)                                                                    \
          .per_channel(true)                                                                      \
          .iterations(40)                                                                         \
          .Test(dwconv, CR, layout, init, twin == dwconv ? nullptr : twin, init);                 \
    }                                                                                             \
  }

#define QWINO_S8_DWCONV(isa, mode, ukernel, init_params, cr, layout, mac_cost)       \
  QWINO_DWCONV_TESTS(ukernel, ukernel, qwino_requantization_##mode, init_params, cr, \
                     qwino_dwconv_layout_##layout, QWINO_REQUIRE_ISA(isa))
#include "s8-dwconv/s8-dwconv.inc"
#undef QWINO_S8_DWCONV
