/*
 * The call sequence of the public ACL image-classification samples (resnet50,
 * C++), in plain C against libacldump.so: aclInit, device, context, stream,
 * run mode, QuerySize + LoadFromFileWithMem, aclrtMalloc + aclrtMemcpy of the
 * input, execute (sync, then async + synchronize), aclrtMallocHost +
 * aclrtMemcpy of the outputs, teardown in reverse. Dump is configured once by
 * aclInit(acl.json) and once by aclmdlInitDump/SetDump/FinalizeDump (each in
 * its own process); outputs are checked against the PyTorch reference and the
 * dump files against the outputs.
 * Usage: sample_flow_test <resnet_tiny.om> <input.npy> <prob.npy>
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl.h"

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* As the samples do: stop at the first failed call. */
#define TRY(call)                                                         \
  do {                                                                    \
    aclError e_ = (call);                                                 \
    if (e_ != ACL_SUCCESS) {                                              \
      fprintf(stderr, "%s:%d: %s returned %d (%s)\n", __FILE__, __LINE__, \
              #call, (int)e_, aclGetRecentErrMsg());                      \
      ++failures;                                                         \
      return;                                                             \
    }                                                                     \
  } while (0)

static const char *model_path, *input_path, *prob_path;
static char tmp[1024];
static float reference[10];

/* The float32 payload of a version 1.0 .npy file, malloc'd. */
static void *ReadNpy(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  unsigned char head[10];
  void *data = NULL;
  if (fread(head, 1, 10, f) == 10 && memcmp(head, "\x93NUMPY", 6) == 0) {
    long start = 10 + (head[8] | head[9] << 8);
    fseek(f, 0, SEEK_END);
    long end = ftell(f);
    *size = (size_t)(end - start);
    data = malloc(*size);
    fseek(f, start, SEEK_SET);
    if (data != NULL && fread(data, 1, *size, f) != *size) {
      free(data);
      data = NULL;
    }
  }
  fclose(f);
  return data;
}

static void CheckProb(const float *prob) {
  for (int i = 0; i < 10; ++i) CHECK(fabsf(prob[i] - reference[i]) < 1e-5f);
}

/* Checks every Softmax.prob dump file below `dir`: its tensor (the file's last
 * 40 bytes) is the model's output; returns how many there are. */
static int CheckProbDumps(const char *dir, const float *prob) {
  DIR *d = opendir(dir);
  if (d == NULL) return 0;
  int count = 0;
  struct dirent *entry;
  while ((entry = readdir(d)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      count += CheckProbDumps(path, prob);
    } else if (strncmp(entry->d_name, "Softmax.prob.", 13) == 0) {
      ++count;
      float dumped[10];
      FILE *f = fopen(path, "rb");
      CHECK(f != NULL && fseek(f, -40, SEEK_END) == 0 &&
            fread(dumped, 1, 40, f) == 40);
      if (f != NULL) fclose(f);
      CHECK(memcmp(dumped, prob, 40) == 0);
    }
  }
  closedir(d);
  return count;
}

static void WriteFile(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* Copies every output to host memory (aclrtMallocHost + aclrtMemcpy, as the
 * samples do in host run mode); the prob output goes to `prob`. */
static void OutputModelResult(aclmdlDataset *output, float *prob) {
  for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(output); ++i) {
    aclDataBuffer *buffer = aclmdlGetDatasetBuffer(output, i);
    void *data = aclGetDataBufferAddr(buffer);
    uint32_t len = (uint32_t)aclGetDataBufferSizeV2(buffer);
    void *host = NULL;
    TRY(aclrtMallocHost(&host, len));
    TRY(aclrtMemcpy(host, len, data, len, ACL_MEMCPY_DEVICE_TO_HOST));
    if (i == 1) memcpy(prob, host, 40);
    TRY(aclrtFreeHost(host));
  }
}

static void DestroyDataset(aclmdlDataset *dataset, int free_memory) {
  for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i) {
    aclDataBuffer *buffer = aclmdlGetDatasetBuffer(dataset, i);
    if (free_memory) CHECK(aclrtFree(aclGetDataBufferAddr(buffer)) == 0);
    CHECK(aclDestroyDataBuffer(buffer) == ACL_SUCCESS);
  }
  CHECK(aclmdlDestroyDataset(dataset) == ACL_SUCCESS);
}

/* Load with caller memory, run sync then async, check, unload. */
static void Process(aclrtStream stream, float *prob) {
  size_t work_size = 0, weight_size = 0;
  void *work = NULL, *weight = NULL, *pic = NULL;
  uint32_t id = 0;
  TRY(aclmdlQuerySize(model_path, &work_size, &weight_size));
  TRY(aclrtMalloc(&work, work_size, ACL_MEM_MALLOC_HUGE_FIRST));
  TRY(aclrtMalloc(&weight, weight_size, ACL_MEM_MALLOC_HUGE_FIRST));
  TRY(aclmdlLoadFromFileWithMem(model_path, &id, work, work_size, weight,
                                weight_size));
  aclmdlDesc *desc = aclmdlCreateDesc();
  TRY(aclmdlGetDesc(desc, id));
  size_t input_size = aclmdlGetInputSizeByIndex(desc, 0), file_size = 0;
  TRY(aclrtMalloc(&pic, input_size, ACL_MEM_MALLOC_NORMAL_ONLY));
  void *file = ReadNpy(input_path, &file_size);
  CHECK(file != NULL && file_size == input_size);
  void *host = NULL;
  TRY(aclrtMallocHost(&host, file_size));
  memcpy(host, file, file_size);
  free(file);
  TRY(aclrtMemcpy(pic, input_size, host, input_size,
                  ACL_MEMCPY_HOST_TO_DEVICE));
  TRY(aclrtFreeHost(host));
  aclmdlDataset *input = aclmdlCreateDataset(), *output = aclmdlCreateDataset();
  TRY(aclmdlAddDatasetBuffer(input, aclCreateDataBuffer(pic, input_size)));
  for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
    size_t size = aclmdlGetOutputSizeByIndex(desc, i);
    void *out = NULL;
    TRY(aclrtMalloc(&out, size, ACL_MEM_MALLOC_NORMAL_ONLY));
    TRY(aclmdlAddDatasetBuffer(output, aclCreateDataBuffer(out, size)));
  }
  TRY(aclmdlExecute(id, input, output));
  OutputModelResult(output, prob);
  CheckProb(prob);
  for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(output); ++i) {
    aclDataBuffer *buffer = aclmdlGetDatasetBuffer(output, i);
    TRY(aclrtMemset(aclGetDataBufferAddr(buffer),
                    aclGetDataBufferSizeV2(buffer), 0,
                    aclGetDataBufferSizeV2(buffer)));
  }
  TRY(aclmdlExecuteAsync(id, input, output, stream));
  TRY(aclrtSynchronizeStream(stream));
  OutputModelResult(output, prob);
  CheckProb(prob);
  DestroyDataset(input, 1);
  DestroyDataset(output, 1);
  TRY(aclmdlUnload(id));
  TRY(aclmdlDestroyDesc(desc));
  TRY(aclrtFree(work));
  TRY(aclrtFree(weight));
}

/* The sample from InitResource to DestroyResource; `set_dump` configures dump
 * with the aclmdl calls instead of aclInit's file. */
static void Sample(const char *init_config, const char *set_dump, float *prob) {
  aclrtContext context = NULL;
  aclrtStream stream = NULL;
  aclrtRunMode mode = ACL_DEVICE;
  TRY(aclInit(init_config));
  TRY(aclrtSetDevice(0));
  TRY(aclrtCreateContext(&context, 0));
  TRY(aclrtCreateStream(&stream));
  TRY(aclrtGetRunMode(&mode));
  CHECK(mode == ACL_HOST);
  if (set_dump != NULL) {
    TRY(aclmdlInitDump());
    TRY(aclmdlSetDump(set_dump));
  }
  Process(stream, prob);
  if (set_dump != NULL) TRY(aclmdlFinalizeDump());
  TRY(aclrtDestroyStream(stream));
  TRY(aclrtDestroyContext(context));
  TRY(aclrtResetDevice(0));
  TRY(aclFinalize());
}

static void DumpConfig(const char *name, char *config, size_t size) {
  char dir[1100], text[2400];
  snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
  mkdir(dir, 0755);
  snprintf(config, size, "%s/%s.json", tmp, name);
  snprintf(text, sizeof(text),
           "{\"dump\":{\"dump_path\":\"%s\",\"dump_list\":"
           "[{\"model_name\":\"resnet_tiny\"}]}}",
           dir);
  WriteFile(config, text);
}

static void DumpThroughAclInit(void) {
  char config[1200], dir[1100];
  float prob[10];
  DumpConfig("from_init", config, sizeof(config));
  Sample(config, NULL, prob);
  snprintf(dir, sizeof(dir), "%s/from_init", tmp);
  CHECK(CheckProbDumps(dir, prob) == 2); /* the sync and the async run */
}

static void DumpThroughSetDump(void) {
  char init[1200], config[1200], dir[1100];
  float prob[10];
  snprintf(init, sizeof(init), "%s/acl.json", tmp);
  WriteFile(init, "{}"); /* the samples' acl.json */
  DumpConfig("from_set_dump", config, sizeof(config));
  Sample(init, config, prob);
  snprintf(dir, sizeof(dir), "%s/from_set_dump", tmp);
  CHECK(CheckProbDumps(dir, prob) == 2);
}

/* Runs `sequence` in a child process (a fresh aclInit history). */
static void InChild(void (*sequence)(void)) {
  fflush(NULL);
  pid_t child = fork();
  if (child == 0) {
    sequence();
    fflush(NULL);
    _exit(failures > 0 ? 1 : 0);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    fprintf(stderr, "a sequence run in a child process failed\n");
    ++failures;
  }
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s model.om input.npy prob.npy\n", argv[0]);
    return 2;
  }
  model_path = argv[1];
  input_path = argv[2];
  prob_path = argv[3];
  const char *base = getenv("TEST_TMPDIR");
  snprintf(tmp, sizeof(tmp), "%s/sample_flow", base ? base : "/tmp");
  mkdir(tmp, 0755);
  size_t size = 0;
  float *expected = ReadNpy(prob_path, &size);
  CHECK(expected != NULL && size == sizeof(reference));
  if (expected == NULL) return 1;
  memcpy(reference, expected, sizeof(reference));
  free(expected);
  InChild(DumpThroughAclInit);
  InChild(DumpThroughSetDump);
  if (failures > 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("sample_flow_test: all checks passed\n");
  return 0;
}
