// OutputTransformTester: what the F(2x2,3x3) and F(4x4,3x3) output-transform testers share, the
// geometry of one tile's output (channels, strides of M and of the output, the rows x columns
// of the tile to write) and the run settings (M flavour, iterations, seed), as chainable setters
// with the defaults both use. The requantization settings come from RequantizingTester.
#pragma once

#include <cstddef>
#include <cstdint>

#include "requantizing-tester.h"

namespace qwino_test {

// kOutputTile: output pixels per tile side (2 or 4). MValues: the tester's M flavours, whose
// first, kGenuine, is the default.
template <class Tester, size_t kOutputTile, class MValues>
class OutputTransformTester : public RequantizingTester<Tester> {
 public:
  Tester& channels(size_t channels) {
    channels_ = channels;
    return self();
  }
  size_t channels() const { return channels_; }
  // Elements between the M positions (of a block); 0 means channels.
  Tester& m_position_stride(size_t stride) {
    m_position_stride_ = stride;
    return self();
  }
  size_t m_position_stride() const {
    return m_position_stride_ == 0 ? channels() : m_position_stride_;
  }
  // Bytes between output pixels; 0 means channels.
  Tester& output_pixel_stride(size_t stride) {
    output_pixel_stride_ = stride;
    return self();
  }
  size_t output_pixel_stride() const {
    return output_pixel_stride_ == 0 ? channels() : output_pixel_stride_;
  }
  // Bytes between output rows; 0 means a tile row of pixels plus 3 bytes of slack.
  Tester& output_row_stride(size_t stride) {
    output_row_stride_ = stride;
    return self();
  }
  size_t output_row_stride() const {
    return output_row_stride_ == 0 ? kOutputTile * output_pixel_stride() + 3 : output_row_stride_;
  }
  Tester& rows(size_t rows) {
    rows_ = rows;
    return self();
  }
  size_t rows() const { return rows_; }
  Tester& columns(size_t columns) {
    columns_ = columns;
    return self();
  }
  size_t columns() const { return columns_; }

  Tester& m_values(MValues values) {
    m_values_ = values;
    return self();
  }
  MValues m_values() const { return m_values_; }
  Tester& iterations(size_t iterations) {
    iterations_ = iterations;
    return self();
  }
  size_t iterations() const { return iterations_; }
  Tester& seed(uint32_t seed) {
    seed_ = seed;
    return self();
  }
  uint32_t seed() const { return seed_; }

 protected:
  OutputTransformTester() = default;

 private:
  Tester& self() { return static_cast<Tester&>(*this); }

  size_t channels_ = 8;
  size_t m_position_stride_ = 0;
  size_t output_pixel_stride_ = 0;
  size_t output_row_stride_ = 0;
  size_t rows_ = kOutputTile;
  size_t columns_ = kOutputTile;
  MValues m_values_ = MValues::kGenuine;
  size_t iterations_ = 3;
  uint32_t seed_ = 0xB5297A4Du;
};

}  // namespace qwino_test
