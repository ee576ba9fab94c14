/*
 * qwino: exact quantized NHWC convolution. 3x3 stride-1 layers run exact integer Winograd
 * F(4x4,3x3) or F(2x2,3x3) where the weights prove it exact; other layers run QNNPACK's indirect
 * convolution with 8-bit multiplies, the depthwise kernels (groups of one channel), or im2col +
 * an int16 GEMM (the direct path, which takes every layer), whichever the CPU's cost model finds
 * cheapest. Every path returns the same bytes.
 *
 * Data types (as XNNPACK names them): qu8 = uint8 activations and uint8 weights with zero points,
 * one scale per tensor (TensorFlow Lite's legacy scheme; _q8 is the same entry point);
 * qs8 = int8 activations with a zero point and int8 symmetric weights; _qc8w = int8 symmetric
 * weights with one scale per output channel (TensorFlow Lite's int8 scheme, ONNX Runtime's and
 * PyTorch's per-channel weights), with int8 (qs8_qc8w) or uint8 (qu8_qc8w) activations.
 *
 * Requantization, chosen at create (the accumulator is the same exact int32 in both):
 *  - default, TensorFlow Lite's: per output channel M = input_scale * kernel_scale /
 *    output_scale in double, the product rounded to float first for uint8 weights (_qu8, _q8:
 *    TFLite's uint8 kernels) and not for int8 weights (TFLite's int8 kernels); QuantizeMultiplier,
 *    MultiplyByQuantizedMultiplier (SaturatingRoundingDoublingHighMul, RoundingDivideByPOT, the
 *    left shift for M >= 1, wrapping modulo 2^32 like TFLite's reference kernels), + output
 *    zero point (int32, modulo 2^32), clamp. Bytes of TFLite's uint8 convolution and of its int8
 *    reference_integer_ops::ConvPerChannel.
 *  - QWINO_FLAG_REQUANTIZE_FP32, ONNX Runtime's QLinearConv, XNNPACK's fp32 and PyTorch's: per
 *    output channel the float32 scale = input_scale * kernel_scale / output_scale (float32, that
 *    order), y = clamp(round_half_to_even((float) (acc + bias) * scale) + output_zero_point,
 *    output_min, output_max), one float32 multiply. The clamp bounds are integers, so clamping
 *    before or after rounding gives the same result. Assumes the default floating-point
 *    environment (round to nearest) on x86.
 * Padding holds the input zero point. Output bytes are these definitions exactly, whatever the
 * algorithm, instruction set or thread count.
 *
 * Life cycle, as in QNNPACK:
 *   qwino_initialize()                      once per process (picks the kernels for this CPU)
 *   qwino_create_convolution2d_nhwc_*()     weights are transformed and packed here
 *   qwino_setup_convolution2d_nhwc_qu8/qs8() binds sizes and buffers (scratch is sized here)
 *   qwino_run_operator()                    any number of times (or _parallel_for on the
 *                                           caller's own thread pool)
 *   qwino_delete_operator()
 *
 * Every call returns a status. A call that fails changes nothing: outputs and operators are left
 * as they were. No call reads or writes memory beyond what its sizes describe, and no C++
 * exception leaves the library.
 *
 * Handles: a qwino_operator_t is an opaque value, not an address. A handle stays valid until
 * qwino_delete_operator; after that every call with it returns qwino_status_invalid_parameter
 * (queries return 0, NULL or qwino_algorithm_none), even when a later create reuses the memory
 * (on 64-bit targets a handle value comes back only after 2^40 creates). So do values that were
 * never handles.
 *
 * Threads: different operators may be created, set up, run and deleted from any threads at the
 * same time, with no lock taken on the setup and run paths. One operator is used by one call at
 * a time: a setup or run that finds another setup or run of the same operator under way returns
 * qwino_status_invalid_state and does nothing (the other call is unaffected). Queries during a
 * setup, and a delete during any other call on the same operator, are not allowed (they are not
 * always detected).
 */
#ifndef QWINO_H_
#define QWINO_H_

#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility: only these functions are its interface. */
#if defined(__GNUC__)
#define QWINO_API __attribute__((visibility("default")))
#else
#define QWINO_API
#endif

enum qwino_status {
  qwino_status_success = 0,
  qwino_status_uninitialized = 1,
  qwino_status_invalid_parameter = 2,
  qwino_status_unsupported_parameter = 3,
  qwino_status_unsupported_hardware = 4,
  qwino_status_out_of_memory = 5,
  /* Another setup or run of the same operator is under way (see "Threads" above). */
  qwino_status_invalid_state = 6,
};

typedef struct qwino_operator* qwino_operator_t;

/* Which algorithm an operator runs. */
enum qwino_algorithm {
  qwino_algorithm_none = 0,              /* not a valid operator */
  qwino_algorithm_direct = 1,            /* direct convolution: any kernel, stride, dilation */
  qwino_algorithm_winograd_f2x2_3x3 = 2, /* exact integer Winograd F(2x2,3x3) */
  qwino_algorithm_winograd_f4x4_3x3 = 3, /* exact integer Winograd F(4x4,3x3) */
  qwino_algorithm_indirect_gemm = 4,     /* indirect convolution, 8-bit multiplies */
  qwino_algorithm_depthwise = 5          /* depthwise: one input and one output channel a group */
};

/*
 * Flags. Without any, the operator picks the cheapest algorithm that is exact for its weights.
 * A forced Winograd algorithm that cannot be exact for these weights (or is not a 3x3 stride-1
 * dilation-1 layer) fails with qwino_status_unsupported_parameter. At most one of these five.
 */
#define QWINO_FLAG_FORCE_WINOGRAD_F2X2 0x00000001u /* Winograd F(2x2,3x3) */
#define QWINO_FLAG_FORCE_DIRECT 0x00000002u        /* the direct path */
#define QWINO_FLAG_FORCE_WINOGRAD_F4X4 0x00000004u /* Winograd F(4x4,3x3) */
/* The indirect convolution with 8-bit multiplies: any shape and any 8-bit weights, except that
 * on CPUs without the dot-product instructions of ARMv8.2 (AArch64 only) no output channel may
 * hold both weights 0 and 255 as uint8 (-128 and 127 as int8), otherwise
 * qwino_status_unsupported_parameter. */
#define QWINO_FLAG_FORCE_INDIRECT_GEMM 0x00000008u
/* The depthwise kernels: only layers whose groups have one input and one output channel
 * (otherwise qwino_status_unsupported_parameter); any kernel size, stride, dilation, padding. */
#define QWINO_FLAG_FORCE_DEPTHWISE 0x00000010u
/* Requantization mode: ONNX Runtime's / XNNPACK's fp32 instead of TensorFlow Lite's. May be
 * combined with one of the flags above. */
#define QWINO_FLAG_REQUANTIZE_FP32 0x00000100u
/* After each qwino_run_operator, the thread pool's workers sleep at once instead of spinning for
 * the next run (pthreadpool's PTHREADPOOL_FLAG_YIELD_WORKERS). For callers whose cores are shared
 * with other threads between runs, such as an engine's own pool running the layers around a
 * qwino convolution; the bytes are the same either way. May be combined with any flag above. */
#define QWINO_FLAG_YIELD_WORKERS 0x00000200u
/* Earlier names, kept for existing callers. */
#define QWINO_FLAG_FORCE_WINOGRAD QWINO_FLAG_FORCE_WINOGRAD_F2X2
#define QWINO_FLAG_FORCE_WINOGRAD_F4 QWINO_FLAG_FORCE_WINOGRAD_F4X4

/*
 * Detects the CPU and chooses each kernel family's best kernel for it. Must precede every other
 * call; calling it again is harmless. The environment variable QWINO_ISA caps the kernels at a
 * level ("scalar", "sse41", "avx2", "avxvnni" (AVX2 + AVX-VNNI), "avx512", "amx" (AVX-512 VNNI +
 * AMX-INT8 tiles), "neon", "neondot", "neoni8mm"); an unknown level or one the CPU lacks makes this
 * return qwino_status_unsupported_hardware.
 */
QWINO_API enum qwino_status qwino_initialize(void);
QWINO_API enum qwino_status qwino_deinitialize(void);

/* The ISA level qwino_initialize chose ("scalar", "neon", "avx512", ...), or NULL before. */
QWINO_API const char* qwino_isa_name(void);

/*
 * kernel: [groups][group_output_channels][kernel_height][kernel_width][group_input_channels]
 * bias:   [groups * group_output_channels] in units of input_scale * kernel_scale (of the
 *         channel), or NULL.
 * Scales must be finite and positive (qwino_status_invalid_parameter otherwise); the
 * requantization scale input_scale * kernel_scale / output_scale of every output channel must be
 * at most 256 (qwino_status_unsupported_parameter otherwise). A channel whose scale lies below
 * 2^-32 (a trained model's dead channel) outputs its output zero point, clamped to [output_min,
 * output_max], in both modes: TensorFlow Lite's QuantizeMultiplier flushes it to multiplier 0
 * (after rounding the scale to 31 significant bits, so the scales at most 2^-64 below 2^-32
 * become 2^-32 and are kept, as there), and in the fp32 mode |(float) acc * scale| < 0.5.
 * output_min <= output_max.
 * The operator keeps its own copy of everything it needs from kernel, kernel_scale and bias.
 * Sizes: the kernel's and the bias's bytes must not overflow size_t nor exceed PTRDIFF_MAX
 * (qwino_status_invalid_parameter). Padding may be any uint32_t value.
 * Memory (qwino_operator_weight_bytes): the operator's copy of kernel, bias and the per-channel
 * requantization values, and the packed weights of each algorithm it has chosen so far (up to
 * three). Each algorithm's packing is held
 * to a budget: with P = 2 x positions x round_up(K, 4) x 32 bytes (one 32-channel panel),
 *   groups x ceil(group_output_channels / 32) x P  <=  16 x kernel bytes + max(64 KiB, P)
 * where positions x K is 16 x group_input_channels for F(2x2,3x3), 36 x group_input_channels
 * for F(4x4,3x3), 1 x kernel_height x kernel_width x group_input_channels for the direct path;
 * the 8-bit indirect GEMM's panels are P = kernel_height x kernel_width x
 * round_up(group_input_channels, 16) x 32 bytes, and it is not used beyond the budget.
 * Winograd is not used where it would exceed its budget (grouped layers with few channels per
 * group; a forced Winograd algorithm fails with unsupported_parameter); the direct path then
 * packs weights per work item in scratch memory instead of holding them.
 */
#define QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS                                            \
  uint32_t input_padding_top, uint32_t input_padding_right, uint32_t input_padding_bottom, \
      uint32_t input_padding_left, uint32_t kernel_height, uint32_t kernel_width,          \
      uint32_t subsampling_height, uint32_t subsampling_width, uint32_t dilation_height,   \
      uint32_t dilation_width, uint32_t groups, size_t group_input_channels,               \
      size_t group_output_channels

/* uint8 activations, uint8 weights with a zero point, one scale per tensor. */
QWINO_API enum qwino_status qwino_create_convolution2d_nhwc_qu8(
    QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS, uint8_t input_zero_point, float input_scale,
    uint8_t kernel_zero_point, float kernel_scale, const uint8_t* kernel, const int32_t* bias,
    uint8_t output_zero_point, float output_scale, uint8_t output_min, uint8_t output_max,
    uint32_t flags, qwino_operator_t* convolution_out);

/* The same as qwino_create_convolution2d_nhwc_qu8 (its earlier name, QNNPACK's). */
QWINO_API enum qwino_status qwino_create_convolution2d_nhwc_q8(
    QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS, uint8_t input_zero_point, float input_scale,
    uint8_t kernel_zero_point, float kernel_scale, const uint8_t* kernel, const int32_t* bias,
    uint8_t output_zero_point, float output_scale, uint8_t output_min, uint8_t output_max,
    uint32_t flags, qwino_operator_t* convolution_out);

/* int8 activations, int8 symmetric weights (zero point 0), one scale per tensor. */
QWINO_API enum qwino_status qwino_create_convolution2d_nhwc_qs8(
    QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS, int8_t input_zero_point, float input_scale,
    float kernel_scale, const int8_t* kernel, const int32_t* bias, int8_t output_zero_point,
    float output_scale, int8_t output_min, int8_t output_max, uint32_t flags,
    qwino_operator_t* convolution_out);

/* int8 activations, int8 symmetric weights with kernel_scale[groups * group_output_channels],
 * one per output channel (TensorFlow Lite's int8 convolution). */
QWINO_API enum qwino_status qwino_create_convolution2d_nhwc_qs8_qc8w(
    QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS, int8_t input_zero_point, float input_scale,
    const float* kernel_scale, const int8_t* kernel, const int32_t* bias, int8_t output_zero_point,
    float output_scale, int8_t output_min, int8_t output_max, uint32_t flags,
    qwino_operator_t* convolution_out);

/* uint8 activations, int8 symmetric weights with one scale per output channel (ONNX Runtime's
 * QLinearConv with int8 weights, PyTorch). */
QWINO_API enum qwino_status qwino_create_convolution2d_nhwc_qu8_qc8w(
    QWINO_CONVOLUTION2D_GEOMETRY_PARAMETERS, uint8_t input_zero_point, float input_scale,
    const float* kernel_scale, const int8_t* kernel, const int32_t* bias, uint8_t output_zero_point,
    float output_scale, uint8_t output_min, uint8_t output_max, uint32_t flags,
    qwino_operator_t* convolution_out);

/*
 * input:  [batch_size][input_height][input_width] pixels, input_pixel_stride bytes apart
 *         (>= groups * group_input_channels); channels of group g start at g *
 * group_input_channels. output: [batch_size][output_height][output_width] pixels,
 * output_pixel_stride bytes apart
 *         (>= groups * group_output_channels). Bytes between pixels are never written.
 * threadpool: the pool that will run the operator; NULL runs in the caller's thread. Scratch
 *         memory is sized for its thread count.
 * Sizes: batch_size x height x width x pixel stride, of the input and of the output, must not
 * overflow size_t nor exceed PTRDIFF_MAX, nor may a padded input size; otherwise
 * qwino_status_invalid_parameter.
 */
QWINO_API enum qwino_status qwino_setup_convolution2d_nhwc_qu8(
    qwino_operator_t convolution, size_t batch_size, size_t input_height, size_t input_width,
    const uint8_t* input, size_t input_pixel_stride, uint8_t* output, size_t output_pixel_stride,
    pthreadpool_t threadpool);

/* The same as qwino_setup_convolution2d_nhwc_qu8. */
QWINO_API enum qwino_status qwino_setup_convolution2d_nhwc_q8(
    qwino_operator_t convolution, size_t batch_size, size_t input_height, size_t input_width,
    const uint8_t* input, size_t input_pixel_stride, uint8_t* output, size_t output_pixel_stride,
    pthreadpool_t threadpool);

/* For operators with int8 activations (_qs8, _qs8_qc8w); the uint8 setup refuses them, and this
 * one refuses operators with uint8 activations (qwino_status_invalid_parameter). */
QWINO_API enum qwino_status qwino_setup_convolution2d_nhwc_qs8(
    qwino_operator_t convolution, size_t batch_size, size_t input_height, size_t input_width,
    const int8_t* input, size_t input_pixel_stride, int8_t* output, size_t output_pixel_stride,
    pthreadpool_t threadpool);

/* Output size of a set-up operator (0 before setup). */
QWINO_API size_t qwino_operator_output_height(qwino_operator_t op);
QWINO_API size_t qwino_operator_output_width(qwino_operator_t op);

/*
 * Runs a set-up operator. A pool with more threads than the one given to setup returns
 * qwino_status_invalid_parameter (set up again with that pool instead).
 */
QWINO_API enum qwino_status qwino_run_operator(qwino_operator_t op, pthreadpool_t threadpool);

/*
 * For engines with a thread pool of their own (ONNX Runtime's KernelContext_ParallelFor, an
 * Eigen or TBB pool): parallel_for(parallel_context, task, task_context, count) must call
 * task(task_context, i) once for each i in [0, count), on any threads and in any order, and
 * return when all have returned. Work is shared by the tasks dynamically, so the bytes do not
 * depend on how many of them run at once, or on which threads.
 */
typedef void (*qwino_task_fn)(void* task_context, size_t index);
typedef void (*qwino_parallel_for_fn)(void* parallel_context, qwino_task_fn task,
                                      void* task_context, size_t count);

/*
 * Runs a set-up operator through the caller's parallel_for instead of a pthreadpool, with at most
 * as many tasks as the pool given to setup has threads (its scratch has one slot per task; that
 * pool itself is not used here). NULL parallel_for: qwino_status_invalid_parameter. If
 * parallel_for returns before every task ran, the run returns qwino_status_invalid_parameter and
 * the output's bytes are unspecified.
 */
QWINO_API enum qwino_status qwino_run_operator_parallel_for(qwino_operator_t op,
                                                            qwino_parallel_for_fn parallel_for,
                                                            void* parallel_context);

QWINO_API enum qwino_status qwino_delete_operator(qwino_operator_t op);

/* The algorithm op runs (qwino_algorithm_none for NULL or a deleted operator). */
QWINO_API enum qwino_algorithm qwino_operator_algorithm(qwino_operator_t op);
/* "direct", "winograd-f2x2-3x3", "winograd-f4x4-3x3", "indirect-gemm", "depthwise", or "none". */
QWINO_API const char* qwino_algorithm_name(enum qwino_algorithm algorithm);
/* The ISA level whose kernels the operator runs ("scalar", "neon", ...), or NULL if invalid. */
QWINO_API const char* qwino_operator_isa_name(qwino_operator_t op);
/* Bytes of scratch memory the operator holds after setup (0 before setup). */
QWINO_API size_t qwino_operator_scratch_bytes(qwino_operator_t op);
/* Bytes the operator holds for its weights: its copy of kernel and bias and every packing. */
QWINO_API size_t qwino_operator_weight_bytes(qwino_operator_t op);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QWINO_H_ */
