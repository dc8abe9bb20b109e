/*
 * A pure C program linked against libacldump.so: the dump workflows (two dump
 * sessions in one process, a session without dump after one with it, a config
 * applying only to models loaded after it, the latest config winning, and
 * aclInit's config) checked by the files they leave. Usage: c_api_test
 * <resnet_tiny.om> <mlp_block.om>
 */
#include <dirent.h>
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

#define CHECK_ACL(call, expected)                                            \
  do {                                                                       \
    aclError e_ = (call);                                                    \
    if (e_ != (expected)) {                                                  \
      fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s)\n", __FILE__, \
              __LINE__, #call, (int)e_, (int)(expected),                     \
              aclGetRecentErrMsg());                                         \
      ++failures;                                                            \
    }                                                                        \
  } while (0)

static const char* resnet_path;
static const char* mlp_path;
static char tmp[1024];

/* Counts regular files below `dir` whose name starts with `prefix` (NULL =
 * any). */
static int CountFiles(const char* dir, const char* prefix) {
  DIR* d = opendir(dir);
  if (d == NULL) return 0;
  int count = 0;
  struct dirent* entry;
  while ((entry = readdir(d)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
      continue;
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      count += CountFiles(path, prefix);
    } else if (prefix == NULL ||
               strncmp(entry->d_name, prefix, strlen(prefix)) == 0) {
      ++count;
    }
  }
  closedir(d);
  return count;
}

/* 1 when `dir` exists and holds nothing, not even an empty folder. */
static int IsEmptyDir(const char* dir) {
  DIR* d = opendir(dir);
  if (d == NULL) return 0;
  int empty = 1;
  struct dirent* entry;
  while ((entry = readdir(d)) != NULL) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
      empty = 0;
    }
  }
  closedir(d);
  return empty;
}

/* The single time folder under `dump_path` (fails the test if not exactly one).
 */
static int TimeFolder(const char* dump_path, char* out, size_t size) {
  DIR* d = opendir(dump_path);
  if (d == NULL) return 0;
  int found = 0;
  struct dirent* entry;
  while ((entry = readdir(d)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    snprintf(out, size, "%s/%s", dump_path, entry->d_name);
    ++found;
  }
  closedir(d);
  return found;
}

static void MakeDir(const char* path) { mkdir(path, 0755); }

static void WriteConfig(const char* path, const char* dump_path,
                        const char* list) {
  FILE* f = fopen(path, "w");
  fprintf(f, "{\"dump\":{\"dump_path\":\"%s\",\"dump_list\":[%s]}}", dump_path,
          list);
  fclose(f);
}

/* Runs a loaded model `times` with zero inputs. */
static void RunModel(uint32_t id, int times) {
  aclmdlDesc* desc = aclmdlCreateDesc();
  CHECK_ACL(aclmdlGetDesc(desc, id), ACL_SUCCESS);
  aclmdlDataset* inputs = aclmdlCreateDataset();
  aclmdlDataset* outputs = aclmdlCreateDataset();
  void* memory[8];
  size_t used = 0;
  for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i) {
    size_t size = aclmdlGetInputSizeByIndex(desc, i);
    CHECK_ACL(aclrtMalloc(&memory[used], size, ACL_MEM_MALLOC_NORMAL_ONLY),
              ACL_SUCCESS);
    memset(memory[used], 0, size);
    CHECK_ACL(aclmdlAddDatasetBuffer(inputs,
                                     aclCreateDataBuffer(memory[used++], size)),
              ACL_SUCCESS);
  }
  for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
    size_t size = aclmdlGetOutputSizeByIndex(desc, i);
    CHECK_ACL(aclrtMalloc(&memory[used], size, ACL_MEM_MALLOC_NORMAL_ONLY),
              ACL_SUCCESS);
    CHECK_ACL(aclmdlAddDatasetBuffer(outputs,
                                     aclCreateDataBuffer(memory[used++], size)),
              ACL_SUCCESS);
  }
  for (int t = 0; t < times; ++t)
    CHECK_ACL(aclmdlExecute(id, inputs, outputs), ACL_SUCCESS);
  for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(inputs); ++i) {
    CHECK_ACL(aclDestroyDataBuffer(aclmdlGetDatasetBuffer(inputs, i)),
              ACL_SUCCESS);
  }
  for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(outputs); ++i) {
    CHECK_ACL(aclDestroyDataBuffer(aclmdlGetDatasetBuffer(outputs, i)),
              ACL_SUCCESS);
  }
  CHECK_ACL(aclmdlDestroyDataset(inputs), ACL_SUCCESS);
  CHECK_ACL(aclmdlDestroyDataset(outputs), ACL_SUCCESS);
  for (size_t i = 0; i < used; ++i)
    CHECK_ACL(aclrtFree(memory[i]), ACL_SUCCESS);
  CHECK_ACL(aclmdlDestroyDesc(desc), ACL_SUCCESS);
}

/* Loads `path`, runs it `times`, returns the model id. */
static uint32_t LoadAndRun(const char* path, int times) {
  uint32_t id = 0;
  CHECK_ACL(aclmdlLoadFromFile(path, &id), ACL_SUCCESS);
  RunModel(id, times);
  return id;
}

static void SequenceA(void) {
  char dump1[1100], dump2[1100], cfg1[1100], cfg2[1100], folder[2048];
  snprintf(dump1, sizeof(dump1), "%s/a1", tmp);
  snprintf(dump2, sizeof(dump2), "%s/a2", tmp);
  snprintf(cfg1, sizeof(cfg1), "%s/a1.json", tmp);
  snprintf(cfg2, sizeof(cfg2), "%s/a2.json", tmp);
  MakeDir(dump1);
  MakeDir(dump2);
  WriteConfig(cfg1, dump1,
              "{\"model_name\":\"resnet_tiny\",\"layer\":[\"prob\"]}");
  WriteConfig(cfg2, dump2, "{\"model_name\":\"mlp_block\"}");
  CHECK_ACL(aclInit(NULL), ACL_SUCCESS);
  CHECK_ACL(aclmdlInitDump(), ACL_SUCCESS);
  CHECK_ACL(aclmdlSetDump(cfg1), ACL_SUCCESS);
  uint32_t id = LoadAndRun(resnet_path, 2);
  CHECK_ACL(aclmdlFinalizeDump(), ACL_SUCCESS);
  CHECK_ACL(aclmdlUnload(id), ACL_SUCCESS);
  /* Again with another config in the same process. */
  CHECK_ACL(aclmdlInitDump(), ACL_SUCCESS);
  CHECK_ACL(aclmdlSetDump(cfg2), ACL_SUCCESS);
  id = LoadAndRun(mlp_path, 1);
  CHECK_ACL(aclmdlFinalizeDump(), ACL_SUCCESS);
  CHECK_ACL(aclmdlUnload(id), ACL_SUCCESS);
  CHECK_ACL(aclFinalize(), ACL_SUCCESS);
  CHECK(TimeFolder(dump1, folder, sizeof(folder)) == 1);
  CHECK(CountFiles(folder, "Softmax.prob.") == 2);
  CHECK(CountFiles(folder, NULL) == 2);
  CHECK(TimeFolder(dump2, folder, sizeof(folder)) == 1);
  /* mlp_block: 11 executed nodes (its spelled-out GELU runs as one) + the x
     data op. */
  CHECK(CountFiles(folder, NULL) == 12);
}

static void SequenceB(void) {
  char dump[1100], cfg[1100], folder[2048];
  snprintf(dump, sizeof(dump), "%s/b", tmp);
  snprintf(cfg, sizeof(cfg), "%s/b.json", tmp);
  MakeDir(dump);
  WriteConfig(cfg, dump, "{\"model_name\":\"resnet_tiny\",\"layer\":[\"fc\"]}");
  CHECK_ACL(aclInit(NULL), ACL_SUCCESS);
  CHECK_ACL(aclmdlInitDump(), ACL_SUCCESS);
  CHECK_ACL(aclmdlSetDump(cfg), ACL_SUCCESS);
  uint32_t id = LoadAndRun(resnet_path, 1);
  CHECK_ACL(aclmdlFinalizeDump(), ACL_SUCCESS);
  CHECK_ACL(aclmdlUnload(id), ACL_SUCCESS);
  id = LoadAndRun(resnet_path, 3); /* no dump */
  CHECK_ACL(aclmdlUnload(id), ACL_SUCCESS);
  CHECK_ACL(aclFinalize(), ACL_SUCCESS);
  CHECK(TimeFolder(dump, folder, sizeof(folder)) == 1);
  CHECK(CountFiles(folder, NULL) == 1);
}

/* InitDump -> load model 1 -> SetDump -> load model 2 -> FinalizeDump: only
 * model 2 dumps. Two SetDumps before a load: the latest wins. */
static void LoadOrderAndOverride(void) {
  char dump[1100], unused[1100], cfg[1100], cfg_unused[1100], folder[2048];
  snprintf(dump, sizeof(dump), "%s/s4", tmp);
  snprintf(unused, sizeof(unused), "%s/s5", tmp);
  snprintf(cfg, sizeof(cfg), "%s/s4.json", tmp);
  snprintf(cfg_unused, sizeof(cfg_unused), "%s/s5.json", tmp);
  MakeDir(dump);
  MakeDir(unused);
  WriteConfig(cfg_unused, unused, "{\"model_name\":\"resnet_tiny\"}");
  WriteConfig(cfg, dump, "{\"layer\":[\"prob\"]}");
  CHECK_ACL(aclInit(""), ACL_SUCCESS);
  CHECK_ACL(aclmdlInitDump(), ACL_SUCCESS);
  uint32_t model1 = LoadAndRun(resnet_path, 0);
  CHECK_ACL(aclmdlSetDump(cfg_unused), ACL_SUCCESS);
  CHECK_ACL(aclmdlSetDump(cfg), ACL_SUCCESS);
  /* aclmdlSetDump creates nothing: the time folder comes with the first
   * file. */
  CHECK(IsEmptyDir(dump));
  CHECK(IsEmptyDir(unused));
  uint32_t model2 = LoadAndRun(resnet_path, 1);
  /* Model 1 runs after the SetDump but was loaded before it: not dumped. */
  RunModel(model1, 2);
  CHECK_ACL(aclmdlFinalizeDump(), ACL_SUCCESS);
  CHECK_ACL(aclmdlUnload(model1), ACL_SUCCESS);
  CHECK_ACL(aclmdlUnload(model2), ACL_SUCCESS);
  CHECK_ACL(aclFinalize(), ACL_SUCCESS);
  CHECK(TimeFolder(dump, folder, sizeof(folder)) == 1);
  CHECK(CountFiles(folder, NULL) == 1); /* model 2's prob, once */
  CHECK(IsEmptyDir(unused)); /* no time folder for a config never used */
}

/* aclInit's config dumps for the process. aclmdlInitDump succeeds too (as in
 * the SDK); without an aclmdlSetDump of its own, models still get aclInit's
 * config. A second aclInit fails. Runs in a fresh process: the SDK accepts a
 * later aclInit only with the first one's config content. */
static void AclInitConfig(void) {
  char dump[1100], cfg[1100], folder[2048];
  snprintf(dump, sizeof(dump), "%s/s6", tmp);
  snprintf(cfg, sizeof(cfg), "%s/s6.json", tmp);
  MakeDir(dump);
  WriteConfig(cfg, dump, "{\"model_name\":\"mlp_block\",\"layer\":[\"attn\"]}");
  CHECK_ACL(aclInit(cfg), ACL_SUCCESS);
  CHECK_ACL(aclInit(cfg), ACL_ERROR_REPEAT_INITIALIZE);
  CHECK(strstr(aclGetRecentErrMsg(), "aclInit was already called") != NULL);
  CHECK_ACL(aclmdlInitDump(), ACL_SUCCESS);
  uint32_t id = LoadAndRun(mlp_path, 2);
  CHECK_ACL(aclmdlFinalizeDump(), ACL_SUCCESS);
  CHECK_ACL(aclmdlFinalizeDump(), ACL_ERROR_DUMP_NOT_RUN);
  RunModel(id, 1); /* a third dump of the same model */
  CHECK_ACL(aclmdlUnload(id), ACL_SUCCESS);
  CHECK_ACL(aclFinalize(), ACL_SUCCESS); /* flushes aclInit's session */
  CHECK_ACL(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  /* The same content again after aclFinalize is accepted, another is not. */
  CHECK_ACL(aclInit(cfg), ACL_SUCCESS);
  CHECK_ACL(aclFinalize(), ACL_SUCCESS);
  CHECK_ACL(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
  CHECK(strstr(aclGetRecentErrMsg(),
               "differs from that of the first aclInit") != NULL);
  CHECK(TimeFolder(dump, folder, sizeof(folder)) >= 1);
  CHECK(CountFiles(dump, "Softmax.attn.") == 3);
}

/* Runs `sequence` in a child process; its failures count as ours. */
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

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s resnet_tiny.om mlp_block.om\n", argv[0]);
    return 2;
  }
  resnet_path = argv[1];
  mlp_path = argv[2];
  const char* base = getenv("TEST_TMPDIR");
  snprintf(tmp, sizeof(tmp), "%s/c_api_test", base ? base : "/tmp");
  MakeDir(tmp);
  /* Before aclInit everything is refused. */
  CHECK_ACL(aclmdlInitDump(), ACL_ERROR_UNINITIALIZE);
  CHECK(strlen(aclGetRecentErrMsg()) > 0);
  /* First, while this process has started no threads (kernels start thread
   * pools) that a fork would leave behind. */
  InChild(AclInitConfig);
  SequenceA();
  SequenceB();
  LoadOrderAndOverride();
  if (failures > 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("c_api_test: all checks passed\n");
  return 0;
}
