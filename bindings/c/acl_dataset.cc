// Data buffers and datasets (caller memory described to a model), and the
// data-type helpers of acl_base.h.
#include "acl/acl.h"
#include "acl_dtypes.h"
#include "api_support.h"
#include "base/strings.h"
#include "kernels/half.h"
#include "library.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

namespace {

bool LiveBuffer(const aclDataBuffer* buffer) {
  if (buffer != nullptr && Lib().buffers.Contains(buffer)) return true;
  Fail(ACL_ERROR_INVALID_PARAM, "data buffer is NULL or was destroyed");
  return false;
}

bool LiveDataset(const aclmdlDataset* dataset) {
  if (dataset != nullptr && Lib().datasets.Contains(dataset)) return true;
  Fail(ACL_ERROR_INVALID_PARAM, "dataset is NULL or was destroyed");
  return false;
}

}  // namespace

extern "C" {

// ---- Data buffers

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  return Guarded<aclDataBuffer*>(nullptr, [&]() -> aclDataBuffer* {
    if (data == nullptr && size != 0) {
      Fail(ACL_ERROR_INVALID_PARAM,
           "aclCreateDataBuffer: data is NULL but size is not 0");
      return nullptr;
    }
    auto* buffer = new aclDataBuffer{data, size};
    Lib().buffers.Add(buffer);
    return buffer;
  });
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  return GuardedCall([&] {
    if (dataBuffer == nullptr) return ACL_SUCCESS;
    if (!Lib().buffers.Remove(dataBuffer)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "data buffer was destroyed already or is not one");
    }
    delete dataBuffer;
    return ACL_SUCCESS;
  });
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  return Guarded<void*>(nullptr, [&]() -> void* {
    return LiveBuffer(dataBuffer) ? dataBuffer->data : nullptr;
  });
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  return Guarded<size_t>(0, [&]() -> size_t {
    return LiveBuffer(dataBuffer) ? dataBuffer->size : 0;
  });
}

uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer) {
  return Guarded<uint32_t>(0, [&]() -> uint32_t {
    return LiveBuffer(dataBuffer) ? static_cast<uint32_t>(dataBuffer->size) : 0;
  });
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data,
                             size_t size) {
  return GuardedCall([&] {
    if (!LiveBuffer(dataBuffer)) return ACL_ERROR_INVALID_PARAM;
    if (data == nullptr && size != 0) {
      return Fail(ACL_ERROR_INVALID_PARAM, "data is NULL but size is not 0");
    }
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
  });
}

// ---- Data types

size_t aclDataTypeSize(aclDataType dataType) {
  return Guarded<size_t>(0, [&]() -> size_t {
    const int32_t type = RawEnum(dataType);
    switch (type) {
      case ACL_COMPLEX64:
        return 8;
      case ACL_COMPLEX128:
        return 16;
      default:
        break;
    }
    if (type < ACL_DT_UNDEFINED || type > ACL_COMPLEX32) return 0;
    std::optional<DType> dtype =
        FromAclDataType(static_cast<aclDataType>(type));
    return dtype ? DTypeSize(*dtype) : 0;
  });
}

float aclFloat16ToFloat(aclFloat16 value) { return HalfBitsToFloat(value); }

aclFloat16 aclFloatToFloat16(float value) { return FloatToHalfBits(value); }

// ---- Datasets

aclmdlDataset* aclmdlCreateDataset(void) {
  return Guarded<aclmdlDataset*>(nullptr, [&] {
    auto* dataset = new aclmdlDataset;
    Lib().datasets.Add(dataset);
    return dataset;
  });
}

aclError aclmdlDestroyDataset(const aclmdlDataset* dataset) {
  return GuardedCall([&] {
    if (dataset == nullptr) return ACL_SUCCESS;
    if (!Lib().datasets.Remove(dataset)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "dataset was destroyed already or is not one");
    }
    delete dataset;
    return ACL_SUCCESS;
  });
}

aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset,
                                aclDataBuffer* dataBuffer) {
  return GuardedCall([&] {
    if (!LiveDataset(dataset) || !LiveBuffer(dataBuffer)) {
      return ACL_ERROR_INVALID_PARAM;
    }
    dataset->buffers.push_back(dataBuffer);
    return ACL_SUCCESS;
  });
}

size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset* dataset) {
  return Guarded<size_t>(0, [&]() -> size_t {
    return LiveDataset(dataset) ? dataset->buffers.size() : 0;
  });
}

aclDataBuffer* aclmdlGetDatasetBuffer(const aclmdlDataset* dataset,
                                      size_t index) {
  return Guarded<aclDataBuffer*>(nullptr, [&]() -> aclDataBuffer* {
    if (!LiveDataset(dataset)) return nullptr;
    if (index >= dataset->buffers.size()) {
      Fail(ACL_ERROR_INVALID_PARAM,
           StrCat("buffer index ", index, " is out of range (",
                  dataset->buffers.size(), " buffers)"));
      return nullptr;
    }
    return dataset->buffers[index];
  });
}

}  // extern "C"
