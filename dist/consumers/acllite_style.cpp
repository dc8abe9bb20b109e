// A program written the way the Ascend samples' C++ acllite library is: log
// macros over ACL_APP_LOG, a resource class (aclInit(NULL), device, context,
// stream), media memory and JPEG header reading from acl_dvpp.h, and a model
// class (load, description, device buffers, execute). It never mentions
// dumping: it dumps only when ACLDUMP_CONFIG names a config.
// Usage: main <model.om> <image.jpg>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

#define LOG_INFO(fmt, ...) ACL_APP_LOG(ACL_INFO, "[INFO] " fmt, ##__VA_ARGS__)
#define LOG_ERROR(fmt, ...) \
  ACL_APP_LOG(ACL_ERROR, "[ERROR] " fmt, ##__VA_ARGS__)

namespace {

bool Ok(aclError ret, const char* what) {
  if (ret == ACL_SUCCESS) return true;
  LOG_ERROR("%s failed, ret %d: %s", what, static_cast<int>(ret),
            aclGetRecentErrMsg());
  std::fprintf(stderr, "%s failed: %d %s\n", what, static_cast<int>(ret),
               aclGetRecentErrMsg());
  return false;
}

class AclLiteResource {
 public:
  bool Init() {
    if (!Ok(aclInit(nullptr), "aclInit")) return false;
    if (!Ok(aclrtSetDevice(device_), "aclrtSetDevice")) return false;
    if (!Ok(aclrtCreateContext(&context_, device_), "aclrtCreateContext"))
      return false;
    if (!Ok(aclrtCreateStream(&stream_), "aclrtCreateStream")) return false;
    aclrtRunMode mode;
    if (!Ok(aclrtGetRunMode(&mode), "aclrtGetRunMode")) return false;
    LOG_INFO("resource ready, run mode %d", static_cast<int>(mode));
    return true;
  }
  void Release() {
    if (stream_ != nullptr) aclrtDestroyStream(stream_);
    if (context_ != nullptr) aclrtDestroyContext(context_);
    aclrtResetDevice(device_);
    aclFinalize();
  }

 private:
  int32_t device_ = 0;
  aclrtContext context_ = nullptr;
  aclrtStream stream_ = nullptr;
};

// acllite's ImageData: a JPEG read into media memory, its size from the
// header.
bool ReadJpeg(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  if (bytes.empty()) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  void* media = nullptr;
  if (!Ok(acldvppMalloc(&media, bytes.size()), "acldvppMalloc")) return false;
  if (!Ok(aclrtMemcpy(media, bytes.size(), bytes.data(), bytes.size(),
                      ACL_MEMCPY_HOST_TO_DEVICE),
          "aclrtMemcpy")) {
    return false;
  }
  uint32_t width = 0, height = 0;
  int32_t components = 0;
  acldvppJpegFormat format;
  const bool ok =
      Ok(acldvppJpegGetImageInfoV2(bytes.data(), bytes.size(), &width, &height,
                                   &components, &format),
         "acldvppJpegGetImageInfoV2");
  if (ok) {
    std::printf("jpeg %ux%u, %d components\n", width, height, components);
  }
  return Ok(acldvppFree(media), "acldvppFree") && ok && width > 0;
}

class AclLiteModel {
 public:
  bool Load(const char* path) {
    if (!Ok(aclmdlLoadFromFile(path, &id_), "aclmdlLoadFromFile")) return false;
    desc_ = aclmdlCreateDesc();
    if (!Ok(aclmdlGetDesc(desc_, id_), "aclmdlGetDesc")) return false;
    input_ = Dataset(aclmdlGetNumInputs(desc_), true);
    output_ = Dataset(aclmdlGetNumOutputs(desc_), false);
    return input_ != nullptr && output_ != nullptr;
  }
  bool Execute(const std::vector<float>& host, std::vector<float>* prob) {
    aclDataBuffer* in = aclmdlGetDatasetBuffer(input_, 0);
    if (!Ok(aclrtMemcpy(aclGetDataBufferAddr(in), aclGetDataBufferSizeV2(in),
                        host.data(), host.size() * sizeof(float),
                        ACL_MEMCPY_HOST_TO_DEVICE),
            "aclrtMemcpy"))
      return false;
    if (!Ok(aclmdlExecute(id_, input_, output_), "aclmdlExecute")) return false;
    const size_t last = aclmdlGetDatasetNumBuffers(output_) - 1;
    aclDataBuffer* out = aclmdlGetDatasetBuffer(output_, last);
    prob->resize(aclGetDataBufferSizeV2(out) / sizeof(float));
    return Ok(
        aclrtMemcpy(prob->data(), prob->size() * sizeof(float),
                    aclGetDataBufferAddr(out), aclGetDataBufferSizeV2(out),
                    ACL_MEMCPY_DEVICE_TO_HOST),
        "aclrtMemcpy");
  }
  size_t InputElements() const {
    return aclmdlGetInputSizeByIndex(desc_, 0) / sizeof(float);
  }
  void Destroy() {
    for (aclmdlDataset* dataset : {input_, output_}) {
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(dataset); ++i) {
        aclDataBuffer* buffer = aclmdlGetDatasetBuffer(dataset, i);
        aclrtFree(aclGetDataBufferAddr(buffer));
        aclDestroyDataBuffer(buffer);
      }
      aclmdlDestroyDataset(dataset);
    }
    aclmdlDestroyDesc(desc_);
    aclmdlUnload(id_);
  }

 private:
  aclmdlDataset* Dataset(size_t count, bool inputs) {
    aclmdlDataset* dataset = aclmdlCreateDataset();
    for (size_t i = 0; i < count; ++i) {
      const size_t size = inputs ? aclmdlGetInputSizeByIndex(desc_, i)
                                 : aclmdlGetOutputSizeByIndex(desc_, i);
      void* memory = nullptr;
      if (!Ok(aclrtMalloc(&memory, size, ACL_MEM_MALLOC_HUGE_FIRST),
              "aclrtMalloc"))
        return nullptr;
      if (!Ok(aclmdlAddDatasetBuffer(dataset,
                                     aclCreateDataBuffer(memory, size)),
              "aclmdlAddDatasetBuffer"))
        return nullptr;
    }
    return dataset;
  }

  uint32_t id_ = 0;
  aclmdlDesc* desc_ = nullptr;
  aclmdlDataset* input_ = nullptr;
  aclmdlDataset* output_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s model.om image.jpg\n", argv[0]);
    return 2;
  }
  AclLiteResource resource;
  if (!resource.Init() || !ReadJpeg(argv[2])) return 1;
  AclLiteModel model;
  if (!model.Load(argv[1])) return 1;
  std::vector<float> input(model.InputElements());
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = std::sin(0.01f * static_cast<float>(i));
  std::vector<float> prob;
  if (!model.Execute(input, &prob)) return 1;
  double sum = 0;
  for (float p : prob) sum += p;
  model.Destroy();
  resource.Release();
  if (std::fabs(sum - 1.0) > 1e-4) {
    std::fprintf(stderr, "prob sums to %f\n", sum);
    return 1;
  }
  std::printf("acllite-style: ok\n");
  return 0;
}
