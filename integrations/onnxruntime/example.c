/*
 * The README's example: a model rewritten by qwino_rewrite.py, run by ONNX Runtime with qwino's
 * custom-op library registered. Only the registration line differs from running ORT alone.
 *
 *   example MODEL.onnx LIBQWINO_ONNXRUNTIME.so
 *
 * It feeds the model's single input (float32, shape [1, 3, 64, 64]) with a ramp and prints a
 * checksum of the first output, so that CI can compare it with ORT's own run of the original model.
 */
#include <onnxruntime_c_api.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const OrtApi* ort;

static int check(OrtStatus* status) {
  if (status == NULL) return 0;
  fprintf(stderr, "error: %s\n", ort->GetErrorMessage(status));
  ort->ReleaseStatus(status);
  exit(1);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.onnx [LIBQWINO_ONNXRUNTIME.so]\n", argv[0]);
    return 2;
  }
  ort = OrtGetApiBase()->GetApi(ORT_API_VERSION);

  OrtEnv* env;
  OrtSessionOptions* options;
  check(ort->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "example", &env));
  check(ort->CreateSessionOptions(&options));
  if (argc > 2) {
    /* The one line that brings qwino in (Python: options.register_custom_ops_library(path)). */
    check(ort->RegisterCustomOpsLibrary_V2(options, argv[2]));
  }
  OrtSession* session;
  check(ort->CreateSession(env, argv[1], options, &session));

  enum { kChannels = 3, kSize = 64 };
  static float input[kChannels * kSize * kSize];
  for (size_t i = 0; i < sizeof(input) / sizeof(input[0]); i++)
    input[i] = (float)(i % 251) / 125.0f - 1.0f;
  const int64_t shape[4] = {1, kChannels, kSize, kSize};
  OrtMemoryInfo* memory;
  OrtValue* x = NULL;
  check(ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &memory));
  check(ort->CreateTensorWithDataAsOrtValue(memory, input, sizeof(input), shape, 4,
                                            ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &x));

  OrtAllocator* allocator;
  char* input_name;
  char* output_name;
  check(ort->GetAllocatorWithDefaultOptions(&allocator));
  check(ort->SessionGetInputName(session, 0, allocator, &input_name));
  check(ort->SessionGetOutputName(session, 0, allocator, &output_name));
  OrtValue* y = NULL;
  check(ort->Run(session, NULL, (const char* const*)&input_name, (const OrtValue* const*)&x, 1,
                 (const char* const*)&output_name, 1, &y));

  OrtTensorTypeAndShapeInfo* info;
  size_t count;
  float* data;
  check(ort->GetTensorTypeAndShape(y, &info));
  check(ort->GetTensorShapeElementCount(info, &count));
  check(ort->GetTensorMutableData(y, (void**)&data));
  uint64_t checksum = 1469598103934665603ull; /* FNV-1a over the output's bytes */
  const unsigned char* bytes = (const unsigned char*)data;
  for (size_t i = 0; i < count * sizeof(float); i++)
    checksum = (checksum ^ bytes[i]) * 1099511628211ull;
  printf("%s: %zu values, checksum %016llx\n", output_name, count, (unsigned long long)checksum);

  ort->ReleaseTensorTypeAndShapeInfo(info);
  ort->ReleaseValue(y);
  ort->ReleaseValue(x);
  check(ort->AllocatorFree(allocator, input_name));
  check(ort->AllocatorFree(allocator, output_name));
  ort->ReleaseMemoryInfo(memory);
  ort->ReleaseSession(session);
  ort->ReleaseSessionOptions(options);
  ort->ReleaseEnv(env);
  return 0;
}
