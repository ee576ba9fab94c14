// qwino_setup_convolution2d_nhwc_qu8 / _q8 / _qs8: bind sizes and buffers, cut the work into
// items and size the scratch memory for the thread pool that will run it.
//
// Nothing is changed on failure: the new state is built aside and swapped in at the end.
#include <algorithm>
#include <numeric>
#include <new>

#include "qwino.h"
#include "qwino/algorithm-choice.h"
#include "qwino/checked-size.h"
#include "qwino/common.h"
#include "qwino/algorithm.h"
#include "qwino/operator.h"

namespace {

// Output size along one dimension, or 0 when the padded input is smaller than the kernel or
// larger than kMaxObjectBytes (the paths index it with ptrdiff_t coordinates).
size_t output_size(size_t input, uint32_t padding_before, uint32_t padding_after, uint32_t kernel,
                   uint32_t dilation, uint32_t stride) {
  size_t padded = 0;
  if (!qwino::checked_sum({input, padding_before, padding_after}, &padded) ||
      padded > qwino::kMaxObjectBytes) {
    return 0;
  }
  const size_t effective_kernel = (size_t{kernel} - 1) * dilation + 1;  // < 2^64: 32-bit factors
  return padded < effective_kernel ? 0 : (padded - effective_kernel) / stride + 1;
}

// Setup proper, for a live operator that this call holds.
qwino_status setup(qwino_operator* op, size_t batch_size, size_t input_height, size_t input_width,
                   const uint8_t* input, size_t input_pixel_stride, uint8_t* output,
                   size_t output_pixel_stride, pthreadpool_t threadpool) {
  const qwino::ConvolutionGeometry& g = op->geometry;
  if (batch_size == 0 || input_height == 0 || input_width == 0 || input == nullptr ||
      output == nullptr || input_pixel_stride < g.groups * g.group_input_channels ||
      output_pixel_stride < g.groups * g.group_output_channels) {
    return qwino_status_invalid_parameter;
  }
  const size_t output_height = output_size(input_height, g.padding_top, g.padding_bottom,
                                           g.kernel_height, g.dilation_height, g.stride_height);
  const size_t output_width = output_size(input_width, g.padding_left, g.padding_right,
                                          g.kernel_width, g.dilation_width, g.stride_width);
  if (output_height == 0 || output_width == 0) {
    return qwino_status_invalid_parameter;
  }
  // Both tensors, as the sizes describe them, must be objects this process could hold, so that
  // every offset run forms (pixel index x stride + channel, row stride = width x stride) fits in
  // ptrdiff_t: pixels x stride bounds them all.
  size_t input_pixels = 0, output_pixels = 0, input_bytes = 0, output_bytes = 0;
  if (!qwino::checked_product({batch_size, input_height, input_width}, &input_pixels) ||
      !qwino::checked_product({batch_size, output_height, output_width}, &output_pixels) ||
      !qwino::checked_array_bytes(input_pixels, input_pixel_stride, &input_bytes) ||
      !qwino::checked_array_bytes(output_pixels, output_pixel_stride, &output_bytes)) {
    return qwino_status_invalid_parameter;
  }
  const size_t threads = std::max<size_t>(1, pthreadpool_get_threads_count(threadpool));

  qwino::SetupState next;
  next.batch_size = batch_size;
  next.input_height = input_height;
  next.input_width = input_width;
  next.output_height = output_height;
  next.output_width = output_width;
  next.input = input;
  next.input_pixel_stride = input_pixel_stride;
  next.output = output;
  next.output_pixel_stride = output_pixel_stride;
  next.threads = threads;
  const qwino::AlgorithmEntry& algorithm =
      *qwino::find_algorithm(qwino::cheapest_algorithm(*op, output_height, output_width));
  if (!algorithm.prepare(op, output_height, output_width)) {
    return qwino_status_out_of_memory;
  }
  next.algorithm = &algorithm;
  algorithm.plan(*op, &next);
  if (next.indirection_entries != 0) {
    next.indirection = qwino::allocate_aligned<const uint8_t*>(next.indirection_entries);
    if (!next.indirection) {
      return qwino_status_out_of_memory;
    }
  }
  if (algorithm.bind != nullptr) {
    algorithm.bind(*op, &next);
  }
  const size_t tasks = std::min(threads, next.work_items);
  if (!qwino::checked_array_bytes(tasks, next.scratch_bytes_per_task, &next.scratch_bytes)) {
    return qwino_status_out_of_memory;
  }
  if (op->setup.scratch && op->setup.scratch_bytes == next.scratch_bytes) {
    next.scratch = std::move(op->setup.scratch);  // same size: reuse (cannot fail)
  } else if (next.scratch_bytes != 0) {           // (the depthwise path needs none)
    next.scratch = qwino::allocate_aligned<char>(next.scratch_bytes);
    if (!next.scratch) {
      return qwino_status_out_of_memory;
    }
  }
  op->setup = std::move(next);
  op->algorithm = algorithm.id;
  return qwino_status_success;
}

// The entry points differ only in the activation type they accept.
qwino_status setup_call(qwino_operator_t convolution, bool int8_activations, size_t batch_size,
                        size_t input_height, size_t input_width, const uint8_t* input,
                        size_t input_pixel_stride, uint8_t* output, size_t output_pixel_stride,
                        pthreadpool_t threadpool) {
  if (qwino_kernels() == nullptr) {
    return qwino_status_uninitialized;
  }
  const qwino::OperatorCall call(convolution);
  if (call.status() != qwino_status_success) {
    return call.status();
  }
  if ((call.get()->input_sign != 0) != int8_activations) {
    return qwino_status_invalid_parameter;
  }
  try {
    return setup(call.get(), batch_size, input_height, input_width, input, input_pixel_stride,
                 output, output_pixel_stride, threadpool);
  } catch (...) {  // only allocations throw (std::bad_alloc, std::length_error)
    return qwino_status_out_of_memory;
  }
}

}  // namespace

extern "C" qwino_status qwino_setup_convolution2d_nhwc_qu8(
    qwino_operator_t convolution, size_t batch_size, size_t input_height, size_t input_width,
    const uint8_t* input, size_t input_pixel_stride, uint8_t* output, size_t output_pixel_stride,
    pthreadpool_t threadpool) {
  return setup_call(convolution, false, batch_size, input_height, input_width, input,
                    input_pixel_stride, output, output_pixel_stride, threadpool);
}

extern "C" qwino_status qwino_setup_convolution2d_nhwc_q8(
    qwino_operator_t convolution, size_t batch_size, size_t input_height, size_t input_width,
    const uint8_t* input, size_t input_pixel_stride, uint8_t* output, size_t output_pixel_stride,
    pthreadpool_t threadpool) {
  return qwino_setup_convolution2d_nhwc_qu8(convolution, batch_size, input_height, input_width,
                                            input, input_pixel_stride, output, output_pixel_stride,
                                            threadpool);
}

extern "C" qwino_status qwino_setup_convolution2d_nhwc_qs8(
    qwino_operator_t convolution, size_t batch_size, size_t input_height, size_t input_width,
    const int8_t* input, size_t input_pixel_stride, int8_t* output, size_t output_pixel_stride,
    pthreadpool_t threadpool) {
  return setup_call(convolution, true, batch_size, input_height, input_width,
                    reinterpret_cast<const uint8_t*>(input), input_pixel_stride,
                    reinterpret_cast<uint8_t*>(output), output_pixel_stride, threadpool);
}
