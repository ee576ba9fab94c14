/* The README's example, compiled as C by both consumers (test/consumer against the installed
 * package, test/consumer-subdirectory with qwino built by add_subdirectory): it must build, run,
 * and produce the same bytes with and without a thread pool. */
#include <qwino.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int convolve(const uint8_t* kernel, const int32_t* bias, const uint8_t* input,
                    uint8_t* output, pthreadpool_t pool) {
  qwino_operator_t conv = NULL;
  enum qwino_status status =
      qwino_create_convolution2d_nhwc_qu8(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 64, 64, 127, 0.02f, 128,
                                          0.004f, kernel, bias, 128, 0.1f, 0, 255, 0, &conv);
  if (status != qwino_status_success) return -1;
  status = qwino_setup_convolution2d_nhwc_qu8(conv, 1, 56, 56, input, 64, output, 64, pool);
  if (status == qwino_status_success) status = qwino_run_operator(conv, pool);
  printf("algorithm %s, kernels %s\n", qwino_algorithm_name(qwino_operator_algorithm(conv)),
         qwino_operator_isa_name(conv));
  qwino_delete_operator(conv);
  return status == qwino_status_success ? 0 : -1;
}

int main(void) {
  if (qwino_initialize() != qwino_status_success) return 1;
  static uint8_t kernel[64 * 9 * 64], input[56 * 56 * 64], single[56 * 56 * 64],
      pooled[56 * 56 * 64];
  static int32_t bias[64];
  unsigned state = 1;
  for (size_t i = 0; i < sizeof(kernel); i++)
    kernel[i] = (uint8_t)(128 + (int)((state = state * 1103515245u + 12345u) >> 28) - 8);
  for (size_t i = 0; i < sizeof(input); i++)
    input[i] = (uint8_t)((state = state * 1103515245u + 12345u) >> 24);
  for (size_t i = 0; i < 64; i++) bias[i] = (int32_t)i * 100 - 3200;
  pthreadpool_t pool = pthreadpool_create(2);
  if (convolve(kernel, bias, input, single, NULL) != 0 ||
      convolve(kernel, bias, input, pooled, pool) != 0)
    return 1;
  pthreadpool_destroy(pool);
  if (memcmp(single, pooled, sizeof(single)) != 0) {
    printf("consumer: outputs differ between 1 and 2 threads\n");
    return 1;
  }
  printf("consumer: ok\n");
  return 0;
}
