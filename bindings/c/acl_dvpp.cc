// The media-processing calls (acl/ops/acl_dvpp.h). acldump has no media
// processor: memory, every descriptor and the image information calls work on
// the host; the processing calls are refused with
// ACL_ERROR_FEATURE_UNSUPPORTED and a message saying what to do instead.
#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE
#endif

#include "acl/ops/acl_dvpp.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>

#include "acl/acl.h"
#include "api_support.h"
#include "base/strings.h"
#include "library.h"
#include "runtime/host/memory_registry.h"
#include "runtime/media/image_header.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT
using namespace acldump::host;  // NOLINT

// ---- The descriptors: plain data. Enum fields hold the caller's int (checked
// to be an enumerator when set). ----

struct acldvppPicDesc {
  void* data = nullptr;
  uint32_t size = 0;
  int32_t format = PIXEL_FORMAT_YUV_400;
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t width_stride = 0;
  uint32_t height_stride = 0;
  uint32_t ret_code = 0;
};

struct acldvppBatchPicDesc {
  std::unique_ptr<acldvppPicDesc[]> pics;
  uint32_t count = 0;
};

struct acldvppRoiConfig {
  uint32_t left = 0;
  uint32_t right = 0;
  uint32_t top = 0;
  uint32_t bottom = 0;
};

struct acldvppResizeConfig {
  uint32_t interpolation = 0;
};

struct acldvppBorderConfig {
  std::array<double, 4> value{};
  int32_t border_type = BORDER_CONSTANT;
  uint32_t top = 0;
  uint32_t bottom = 0;
  uint32_t left = 0;
  uint32_t right = 0;
};

struct acldvppLutMap {
  std::array<std::array<uint8_t, 256>, 3> dims{};
};

struct acldvppHist {
  std::array<std::array<uint32_t, 256>, 3> dims{};
  uint32_t ret_code = 0;
};

struct acldvppChannelDesc {
  uint64_t channel_id = 0;
  uint32_t mode = DVPP_CHNMODE_VPC | DVPP_CHNMODE_JPEGD | DVPP_CHNMODE_JPEGE;
  uint32_t csc_matrix = ACL_DVPP_CSC_MATRIX_BT601_WIDE;
  uint32_t height = 0;
  uint32_t width = 0;
  int32_t precision_mode = ACL_YUVOUT_ALIGN_DOWN;
};

struct acldvppJpegeConfig {
  uint32_t level = 0;
};

struct acldvppStreamDesc {
  void* data = nullptr;
  uint32_t size = 0;
  int32_t format = H265_MAIN_LEVEL;
  uint64_t timestamp = 0;
  uint32_t ret_code = 0;
  uint8_t eos = 0;
};

struct aclvdecChannelDesc {
  uint32_t channel_id = 0;
  uint64_t thread_id = 0;
  aclvdecCallback callback = nullptr;
  int32_t en_type = H265_MAIN_LEVEL;
  int32_t out_pic_format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  uint32_t out_pic_width = 0;
  uint32_t out_pic_height = 0;
  uint32_t ref_frame_num = 0;
  uint32_t bit_depth = 0;
  uint32_t out_mode = 0;
  uint32_t csc_matrix = ACL_DVPP_CSC_MATRIX_BT601_WIDE;
};

struct aclvdecFrameConfig {};

struct aclvencChannelDesc {
  uint32_t channel_id = 0;
  uint64_t thread_id = 0;
  aclvencCallback callback = nullptr;
  int32_t en_type = H265_MAIN_LEVEL;
  int32_t pic_format = PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  uint32_t pic_width = 0;
  uint32_t pic_height = 0;
  uint32_t key_frame_interval = 0;
  void* buf_addr = nullptr;
  uint32_t buf_size = 0;
  uint32_t rc_mode = 0;
  uint32_t src_rate = 0;
  uint32_t max_bit_rate = 0;
  uint32_t max_ip_prop = 0;
};

struct aclvencFrameConfig {
  uint8_t force_i_frame = 0;
  uint8_t eos = 0;
};

namespace {

// ---- Enum checks ----

bool IsPixelFormat(int32_t v) {
  return (v >= PIXEL_FORMAT_YUV_400 && v <= PIXEL_FORMAT_BGRA_8565) ||
         (v >= PIXEL_FORMAT_RGB_BAYER_8BPP &&
          v <= PIXEL_FORMAT_RGB_BAYER_16BPP) ||
         (v >= PIXEL_FORMAT_BGR_888_PLANAR && v <= PIXEL_FORMAT_S64C1) ||
         (v >= PIXEL_FORMAT_YUV_SEMIPLANAR_440 && v <= PIXEL_FORMAT_BUTT) ||
         v == PIXEL_FORMAT_UNKNOWN;
}
bool IsStreamFormat(int32_t v) {
  return v >= H265_MAIN_LEVEL && v <= H264_HIGH_LEVEL;
}
bool IsBorderType(int32_t v) {
  return v >= BORDER_CONSTANT && v <= BORDER_REFLECT_101;
}
bool IsCscMatrix(int32_t v) {
  return v >= ACL_DVPP_CSC_MATRIX_BT601_WIDE &&
         v <= ACL_DVPP_CSC_MATRIX_BT2020_NARROW;
}
bool IsPrecisionMode(int32_t v) {
  return v >= ACL_YUVOUT_ALIGN_DOWN && v <= ACL_YUVOUT_ALIGN_DOWN_COMPAT;
}
bool IsChannelMode(int32_t v) { return v >= 1 && v <= 15; }

using EnumCheck = bool (*)(int32_t);

aclError BadValue(const char* what, int32_t value, const char* type) {
  return Fail(ACL_ERROR_INVALID_PARAM,
              StrCat(what, " ", value, " is not ", type));
}

// ---- Live descriptors ----

// Every descriptor handed out and not destroyed, with its type; pictures of a
// batch are live while their batch is, and are destroyed with it.
class Descriptors {
 public:
  enum class Removed { kYes, kUnknown, kInBatch };
  void Add(const void* handle, std::type_index type, bool in_batch = false) {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.insert_or_assign(handle, Entry{type, in_batch});
  }
  bool IsLive(const void* handle, std::type_index type) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(handle);
    return it != live_.end() && it->second.type == type;
  }
  Removed Remove(const void* handle, std::type_index type,
                 bool batch_member = false) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(handle);
    if (it == live_.end() || it->second.type != type) return Removed::kUnknown;
    if (it->second.in_batch && !batch_member) return Removed::kInBatch;
    live_.erase(it);
    return Removed::kYes;
  }

 private:
  struct Entry {
    std::type_index type;
    bool in_batch;
  };
  mutable std::mutex mutex_;
  std::unordered_map<const void*, Entry> live_;
};

Descriptors& Handles() {
  static Descriptors* descriptors = new Descriptors;  // usable during exit
  return *descriptors;
}

// Each descriptor type's parameter name and creator, for messages.
template <typename T>
struct Names;
#define DVPP_NAMES(Type, Arg, Creator)                \
  template <>                                         \
  struct Names<Type> {                                \
    static constexpr const char* kType = #Type;       \
    static constexpr const char* kArg = Arg;          \
    static constexpr const char* kCreator = #Creator; \
  };
DVPP_NAMES(acldvppPicDesc, "picDesc", acldvppCreatePicDesc)
DVPP_NAMES(acldvppBatchPicDesc, "batchPicDesc", acldvppCreateBatchPicDesc)
DVPP_NAMES(acldvppRoiConfig, "roiConfig", acldvppCreateRoiConfig)
DVPP_NAMES(acldvppResizeConfig, "resizeConfig", acldvppCreateResizeConfig)
DVPP_NAMES(acldvppBorderConfig, "borderConfig", acldvppCreateBorderConfig)
DVPP_NAMES(acldvppLutMap, "lutMap", acldvppCreateLutMap)
DVPP_NAMES(acldvppHist, "hist", acldvppCreateHist)
DVPP_NAMES(acldvppChannelDesc, "channelDesc", acldvppCreateChannelDesc)
DVPP_NAMES(acldvppJpegeConfig, "jpegeConfig", acldvppCreateJpegeConfig)
DVPP_NAMES(acldvppStreamDesc, "streamDesc", acldvppCreateStreamDesc)
DVPP_NAMES(aclvdecChannelDesc, "channelDesc", aclvdecCreateChannelDesc)
DVPP_NAMES(aclvdecFrameConfig, "vdecFrameConfig", aclvdecCreateFrameConfig)
DVPP_NAMES(aclvencChannelDesc, "channelDesc", aclvencCreateChannelDesc)
DVPP_NAMES(aclvencFrameConfig, "config", aclvencCreateFrameConfig)
#undef DVPP_NAMES

// ACL_SUCCESS for a live descriptor of type T, else the recorded error.
template <typename T>
aclError Check(const T* handle) {
  if (handle == nullptr) return NullArgument(Names<T>::kArg);
  if (Handles().IsLive(handle, typeid(T))) return ACL_SUCCESS;
  return Fail(ACL_ERROR_INVALID_PARAM,
              StrCat(Names<T>::kArg, " is not an ", Names<T>::kType, " from ",
                     Names<T>::kCreator, " (never created, or destroyed)"));
}

template <typename T, typename... Args>
T* Create(Args&&... args) {
  return Guarded<T*>(nullptr, [&] {
    auto handle = std::make_unique<T>(std::forward<Args>(args)...);
    Handles().Add(handle.get(), typeid(T));
    return handle.release();
  });
}

template <typename T>
aclError Destroy(T* handle) {
  return GuardedCall([&] {
    if (handle == nullptr) return ACL_SUCCESS;
    switch (Handles().Remove(handle, typeid(T))) {
      case Descriptors::Removed::kYes:
        delete handle;
        return ACL_SUCCESS;
      case Descriptors::Removed::kInBatch:
        return Fail(ACL_ERROR_INVALID_PARAM,
                    StrCat(Names<T>::kArg,
                           " belongs to a batch (acldvppGetPicDesc): destroy "
                           "the batch with acldvppDestroyBatchPicDesc"));
      case Descriptors::Removed::kUnknown:
        break;
    }
    return Check(handle);  // the message for a foreign or destroyed handle
  });
}

// Stores `value` into a live descriptor's field.
template <typename T, typename F, typename V>
aclError Set(T* handle, F T::*field, V value) {
  return GuardedCall([&] {
    if (aclError e = Check(handle)) return e;
    handle->*field = value;
    return ACL_SUCCESS;
  });
}

// As Set for a field holding an enum: the value must be an enumerator.
template <typename T, typename E>
aclError SetEnum(T* handle, int32_t T::*field, const E& value, EnumCheck valid,
                 const char* what, const char* type) {
  return GuardedCall([&] {
    if (aclError e = Check(handle)) return e;
    const int32_t raw = RawEnum(value);
    if (!valid(raw)) return BadValue(what, raw, type);
    handle->*field = raw;
    return ACL_SUCCESS;
  });
}

// A field of a live descriptor; a new descriptor's value (and the recent
// error) for a NULL or dead one.
template <typename T, typename F>
F Get(const T* handle, F T::*field) {
  const F fallback = T{}.*field;
  return Guarded<F>(fallback, [&] {
    return Check(handle) == ACL_SUCCESS ? handle->*field : fallback;
  });
}

template <typename E, typename T>
E GetEnum(const T* handle, int32_t T::*field) {
  return static_cast<E>(Get(handle, field));  // an enumerator (SetEnum)
}

aclError SetLimited(uint32_t* field, uint32_t value, uint32_t max,
                    const char* what) {
  if (value > max) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat(what, " ", value, " is not 0..", max));
  }
  *field = value;
  return ACL_SUCCESS;
}

// ---- Parameters by type (the ...ChannelDescParam calls) ----

struct Param {
  int32_t type;
  size_t offset;
  size_t size;
  bool settable;
  EnumCheck valid;  // for enum values; nullptr for plain ones
  const char* enum_type;
};

#define DVPP_PARAM(Type, Struct, Field, Settable, Valid, EnumType)         \
  Param {                                                                  \
    Type, offsetof(Struct, Field), sizeof(Struct::Field), Settable, Valid, \
        EnumType                                                           \
  }

const Param kChannelParams[] = {
    DVPP_PARAM(ACL_DVPP_CSC_MATRIX_UINT32, acldvppChannelDesc, csc_matrix, true,
               IsCscMatrix, "an acldvppCscMatrix"),
    DVPP_PARAM(ACL_DVPP_MODE_UINT32, acldvppChannelDesc, mode, true,
               IsChannelMode, "a set of DVPP_CHNMODE_* bits (1..15)"),
    DVPP_PARAM(ACL_DVPP_CHANNEL_ID_UINT64, acldvppChannelDesc, channel_id,
               false, nullptr, nullptr),
    DVPP_PARAM(ACL_DVPP_CHANNEL_HEIGHT_UINT32, acldvppChannelDesc, height, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_DVPP_CHANNEL_WIDTH_UINT32, acldvppChannelDesc, width, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_DVPP_JPEGD_PRECISION_MODE_ENUM, acldvppChannelDesc,
               precision_mode, true, IsPrecisionMode,
               "an acldvppJpegdPrecisionMode"),
};

const Param kVdecParams[] = {
    DVPP_PARAM(ACL_VDEC_CSC_MATRIX_UINT32, aclvdecChannelDesc, csc_matrix, true,
               IsCscMatrix, "an acldvppCscMatrix"),
    DVPP_PARAM(ACL_VDEC_OUT_MODE_UINT32, aclvdecChannelDesc, out_mode, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VDEC_THREAD_ID_UINT64, aclvdecChannelDesc, thread_id, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VDEC_CALLBACK_PTR, aclvdecChannelDesc, callback, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VDEC_CHANNEL_ID_UINT32, aclvdecChannelDesc, channel_id, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VDEC_ENCODE_TYPE_UINT32, aclvdecChannelDesc, en_type, true,
               IsStreamFormat, "an acldvppStreamFormat"),
    DVPP_PARAM(ACL_VDEC_OUT_PIC_FORMAT_UINT32, aclvdecChannelDesc,
               out_pic_format, true, IsPixelFormat, "an acldvppPixelFormat"),
    DVPP_PARAM(ACL_VDEC_OUT_PIC_WIDTH_UINT32, aclvdecChannelDesc, out_pic_width,
               true, nullptr, nullptr),
    DVPP_PARAM(ACL_VDEC_OUT_PIC_HEIGHT_UINT32, aclvdecChannelDesc,
               out_pic_height, true, nullptr, nullptr),
    DVPP_PARAM(ACL_VDEC_REF_FRAME_NUM_UINT32, aclvdecChannelDesc, ref_frame_num,
               true, nullptr, nullptr),
    DVPP_PARAM(ACL_VDEC_BIT_DEPTH_UINT32, aclvdecChannelDesc, bit_depth, true,
               nullptr, nullptr),
};

const Param kVencParams[] = {
    DVPP_PARAM(ACL_VENC_THREAD_ID_UINT64, aclvencChannelDesc, thread_id, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VENC_CALLBACK_PTR, aclvencChannelDesc, callback, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VENC_PIXEL_FORMAT_UINT32, aclvencChannelDesc, pic_format,
               true, IsPixelFormat, "an acldvppPixelFormat"),
    DVPP_PARAM(ACL_VENC_ENCODE_TYPE_UINT32, aclvencChannelDesc, en_type, true,
               IsStreamFormat, "an acldvppStreamFormat"),
    DVPP_PARAM(ACL_VENC_PIC_WIDTH_UINT32, aclvencChannelDesc, pic_width, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VENC_PIC_HEIGHT_UINT32, aclvencChannelDesc, pic_height, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VENC_KEY_FRAME_INTERVAL_UINT32, aclvencChannelDesc,
               key_frame_interval, true, nullptr, nullptr),
    DVPP_PARAM(ACL_VENC_BUF_ADDR_PTR, aclvencChannelDesc, buf_addr, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VENC_BUF_SIZE_UINT32, aclvencChannelDesc, buf_size, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VENC_RC_MODE_UINT32, aclvencChannelDesc, rc_mode, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VENC_SRC_RATE_UINT32, aclvencChannelDesc, src_rate, true,
               nullptr, nullptr),
    DVPP_PARAM(ACL_VENC_MAX_BITRATE_UINT32, aclvencChannelDesc, max_bit_rate,
               true, nullptr, nullptr),
    DVPP_PARAM(ACL_VENC_MAX_IP_PROP_UINT32, aclvencChannelDesc, max_ip_prop,
               true, nullptr, nullptr),
};
#undef DVPP_PARAM

const Param* FindParam(std::span<const Param> params, int32_t type) {
  for (const Param& p : params) {
    if (p.type == type) return &p;
  }
  return nullptr;
}

template <typename T, typename E>
aclError SetParam(T* handle, std::span<const Param> params, const E& param_type,
                  const char* type_name, size_t length, const void* value) {
  return GuardedCall([&] {
    if (aclError e = Check(handle)) return e;
    if (value == nullptr) return NullArgument("param");
    const int32_t raw = RawEnum(param_type);
    const Param* p = FindParam(params, raw);
    if (p == nullptr) return BadValue("paramType", raw, type_name);
    if (!p->settable) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("paramType ", raw,
                         " cannot be set: the channel id "
                         "is assigned when the channel is "
                         "created"));
    }
    if (length != p->size) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("length ", length, " is not the size of paramType ",
                         raw, " (", p->size, " bytes)"));
    }
    if (p->valid != nullptr) {
      int32_t enum_value;
      std::memcpy(&enum_value, value, sizeof(enum_value));
      if (!p->valid(enum_value)) {
        return BadValue("the value", enum_value, p->enum_type);
      }
    }
    std::memcpy(reinterpret_cast<char*>(handle) + p->offset, value, p->size);
    return ACL_SUCCESS;
  });
}

template <typename T, typename E>
aclError GetParam(const T* handle, std::span<const Param> params,
                  const E& param_type, const char* type_name, size_t length,
                  size_t* ret_size, void* value) {
  return GuardedCall([&] {
    if (aclError e = Check(handle)) return e;
    if (ret_size == nullptr) return NullArgument("paramRetSize");
    if (value == nullptr) return NullArgument("param");
    const int32_t raw = RawEnum(param_type);
    const Param* p = FindParam(params, raw);
    if (p == nullptr) return BadValue("paramType", raw, type_name);
    if (length < p->size) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("length ", length,
                         " is less than the size of "
                         "paramType ",
                         raw, " (", p->size, " bytes)"));
    }
    std::memcpy(value, reinterpret_cast<const char*>(handle) + p->offset,
                p->size);
    *ret_size = p->size;
    return ACL_SUCCESS;
  });
}

// ---- Media memory ----

// acldvppMalloc's pointers, 128-byte aligned inside a larger aclrtMalloc-kind
// allocation of the registry (whose own alignment is 64): pointer -> base. A
// pointer is never the base, so aclrtFree refuses it.
class DvppMemory {
 public:
  static constexpr size_t kAlignment = 128;
  void* Allocate(size_t size) {
    // The SDK's room: size rounded up to 32, plus 32 bytes.
    const size_t usable = (size + 31) / 32 * 32 + 32;
    void* base = Memory().Allocate(usable + kAlignment, MemoryKind::kDevice);
    if (base == nullptr) return nullptr;
    const uintptr_t address = reinterpret_cast<uintptr_t>(base);
    void* pointer = reinterpret_cast<void*>((address + kAlignment) &
                                            ~uintptr_t{kAlignment - 1});
    std::lock_guard<std::mutex> lock(mutex_);
    bases_[pointer] = base;
    return pointer;
  }
  enum class Freed { kYes, kUnknown, kInUse };
  Freed Free(void* pointer) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = bases_.find(pointer);
    if (it == bases_.end()) return Freed::kUnknown;
    switch (Memory().Free(it->second, MemoryKind::kDevice)) {
      case MemoryRegistry::FreeResult::kFreed:
        bases_.erase(it);
        return Freed::kYes;
      case MemoryRegistry::FreeResult::kInUse:
        return Freed::kInUse;
      case MemoryRegistry::FreeResult::kUnknown:
        break;
    }
    bases_.erase(it);  // cannot happen: nobody else knows the base
    return Freed::kUnknown;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<const void*, void*> bases_;
};

DvppMemory& Dvpp() {
  static DvppMemory* memory = new DvppMemory;  // usable during exit
  return *memory;
}

constexpr size_t kMaxAllocation = size_t{1} << 46;

// ---- What needs the media processor ----

aclError Unsupported(const char* call, const char* what, const char* instead) {
  return Fail(ACL_ERROR_FEATURE_UNSUPPORTED,
              StrCat(call,
                     ": acldump runs on the CPU and has no media processor "
                     "(DVPP), so ",
                     what, " is not available. ", instead));
}

constexpr const char* kImageInstead =
    "Decode and preprocess images on the host (with libjpeg, libpng, OpenCV "
    "or PIL, say) and give the model its input as data buffers; "
    "acldvppJpegGetImageInfo and acldvppPngGetImageInfo work.";
constexpr const char* kVideoInstead =
    "Decode or encode video on the host (with FFmpeg, say) and give the model "
    "its frames as data buffers.";

// ---- Image information ----

std::span<const uint8_t> ImageBytes(const void* data, uint32_t size) {
  return {static_cast<const uint8_t*>(data), size};
}

aclError ReadJpeg(const void* data, uint32_t size, media::JpegInfo* info) {
  if (data == nullptr) return NullArgument("data");
  absl::StatusOr<media::JpegInfo> read =
      media::ReadJpegHeader(ImageBytes(data, size));
  if (!read.ok()) {
    const absl::string_view message = read.status().message();
    return Fail(ACL_ERROR_FAILURE,
                std::string_view(message.data(), message.size()));
  }
  *info = *std::move(read);
  return ACL_SUCCESS;
}

aclError ReadPng(const void* data, uint32_t size, media::PngInfo* info) {
  if (data == nullptr) return NullArgument("data");
  absl::StatusOr<media::PngInfo> read =
      media::ReadPngHeader(ImageBytes(data, size));
  if (!read.ok()) {
    const absl::string_view message = read.status().message();
    return Fail(ACL_ERROR_FAILURE,
                std::string_view(message.data(), message.size()));
  }
  *info = *read;
  return ACL_SUCCESS;
}

acldvppJpegFormat ToAcl(media::JpegSubsampling s) {
  switch (s) {
    case media::JpegSubsampling::k444:
      return ACL_JPEG_CSS_444;
    case media::JpegSubsampling::k422:
      return ACL_JPEG_CSS_422;
    case media::JpegSubsampling::k420:
      return ACL_JPEG_CSS_420;
    case media::JpegSubsampling::kGray:
      return ACL_JPEG_CSS_GRAY;
    case media::JpegSubsampling::k440:
      return ACL_JPEG_CSS_440;
    case media::JpegSubsampling::k411:
      return ACL_JPEG_CSS_411;
    case media::JpegSubsampling::kUnknown:
      break;
  }
  return ACL_JPEG_CSS_UNKNOWN;
}

uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

aclError WriteSize(uint64_t bytes, uint32_t* out) {
  if (bytes > UINT32_MAX) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("the output would need ", bytes,
                       " bytes, more than a uint32_t size can hold"));
  }
  *out = static_cast<uint32_t>(bytes);
  return ACL_SUCCESS;
}

aclError FormatNotMatch(const std::string& why) {
  return Fail(ACL_ERROR_FORMAT_NOT_MATCH, why);
}

// The SDK's JPEG decoding sizes: the displayed width rounded up to 128, the
// height to 16, times the bytes a pixel of the output takes (a 4:2:0 or
// grayscale picture 3/2, 4:2:2 and 4:4:0 2, 4:4:4 3). A source can be
// decoded to 4:2:0 or to its own subsampling (PIXEL_FORMAT_UNKNOWN: its own).
aclError JpegDecodedSize(const media::JpegInfo& info, int32_t format,
                         uint32_t* out) {
  auto is = [&](int32_t a, int32_t b) { return format == a || format == b; };
  const bool to_420 =
      is(PIXEL_FORMAT_YUV_SEMIPLANAR_420, PIXEL_FORMAT_YVU_SEMIPLANAR_420);
  const bool to_422 =
      is(PIXEL_FORMAT_YUV_SEMIPLANAR_422, PIXEL_FORMAT_YVU_SEMIPLANAR_422);
  const bool to_444 =
      is(PIXEL_FORMAT_YUV_SEMIPLANAR_444, PIXEL_FORMAT_YVU_SEMIPLANAR_444);
  const bool to_440 =
      is(PIXEL_FORMAT_YUV_SEMIPLANAR_440, PIXEL_FORMAT_YVU_SEMIPLANAR_440);
  const bool own = format == PIXEL_FORMAT_UNKNOWN;
  if (!to_420 && !to_422 && !to_444 && !to_440 && !own) {
    return FormatNotMatch(StrCat(
        "outputPixelFormat ", format,
        " is not a JPEG decoding output (PIXEL_FORMAT_YUV/YVU_SEMIPLANAR_420, "
        "_422, _444, _440, or PIXEL_FORMAT_UNKNOWN for the source's own)"));
  }
  const uint64_t pixels =
      AlignUp(info.width, 128) * AlignUp(info.height, 16);  // < 2^33
  uint64_t bytes = 0;                                       // times 2
  if (to_420 || info.color_space == media::JpegColorSpace::kGray) {
    bytes = pixels * 3;
  } else if (info.color_space == media::JpegColorSpace::kYCbCr) {
    switch (info.subsampling) {
      case media::JpegSubsampling::k420:
        if (own) bytes = pixels * 3;
        break;
      case media::JpegSubsampling::k422:
        if (own || to_422) bytes = pixels * 4;
        break;
      case media::JpegSubsampling::k444:
        if (own || to_444) bytes = pixels * 6;
        break;
      case media::JpegSubsampling::k440:
        if (own || to_440) bytes = pixels * 4;
        break;
      default:
        break;
    }
  }
  if (bytes == 0) {
    return FormatNotMatch(StrCat(
        "the image (", info.components.size(),
        " components, color space and subsampling as read from its header) "
        "cannot be decoded to outputPixelFormat ",
        format,
        "; PIXEL_FORMAT_YUV_SEMIPLANAR_420 works for YCbCr and gray "
        "images"));
  }
  return WriteSize(bytes / 2, out);
}

// The SDK's PNG decoding sizes: the width rounded up to 128 times the bytes of
// a pixel (3 or 4 channels of bit_depth bits), times the height rounded up
// to 16.
aclError PngDecodedSize(const media::PngInfo& info, int32_t format,
                        uint32_t* out) {
  uint64_t channels;
  if (format == PIXEL_FORMAT_RGB_888) {
    channels = 3;
  } else if (format == PIXEL_FORMAT_RGBA_8888 ||
             format == PIXEL_FORMAT_UNKNOWN) {
    channels = 4;
  } else {
    return FormatNotMatch(
        StrCat("outputPixelFormat ", format,
               " is not a PNG decoding output (PIXEL_FORMAT_RGB_888, "
               "PIXEL_FORMAT_RGBA_8888 or PIXEL_FORMAT_UNKNOWN)"));
  }
  const uint64_t row_bytes =
      (AlignUp(info.width, 128) * info.bit_depth * channels + 7) / 8;
  return WriteSize(row_bytes * AlignUp(info.height, 16), out);
}

// The SDK's JPEG encoding input rules and size (see the header).
aclError JpegEncodedSize(const acldvppPicDesc& pic, uint32_t* out) {
  const int32_t format = pic.format;
  const bool planar_420 = format == PIXEL_FORMAT_YUV_SEMIPLANAR_420 ||
                          format == PIXEL_FORMAT_YVU_SEMIPLANAR_420;
  const bool packed_422 = format == PIXEL_FORMAT_YUYV_PACKED_422 ||
                          format == PIXEL_FORMAT_UYVY_PACKED_422 ||
                          format == PIXEL_FORMAT_YVYU_PACKED_422 ||
                          format == PIXEL_FORMAT_VYUY_PACKED_422;
  if (!planar_420 && !packed_422) {
    return FormatNotMatch(StrCat(
        "the picture's format ", format,
        " is not a JPEG encoding input (PIXEL_FORMAT_YUV/YVU_SEMIPLANAR_420 "
        "or a packed 4:2:2 format)"));
  }
  if (pic.width == 0 || pic.height == 0) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("the picture is ", pic.width, "x", pic.height,
                       ": set its width and height (acldvppSetPicDescWidth, "
                       "acldvppSetPicDescHeight)"));
  }
  const uint64_t w = pic.width_stride;
  const uint64_t h = pic.height_stride;
  if (packed_422 ? w != AlignUp(uint64_t{pic.width} * 2, 16)
                 : (w < pic.width || w % 16 != 0)) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("widthStride ", w, " does not fit width ", pic.width,
                       packed_422 ? ": a packed 4:2:2 picture's is twice the "
                                    "width rounded up to 16"
                                  : ": it must be a multiple of 16 of at "
                                    "least the width"));
  }
  if (h != pic.height && (h < pic.height || h % 16 != 0)) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat("heightStride ", h, " does not fit height ", pic.height,
                       ": it must be the height or a larger multiple of 16"));
  }
  const uint64_t picture = planar_420 ? w * h * 3 / 2 : w * h;
  return WriteSize(AlignUp(picture + 640 + 128, uint64_t{2} << 20), out);
}

}  // namespace

// The definitions of one setter or getter of a descriptor field.
#define DVPP_SET(Func, Type, Value, Field)   \
  aclError Func(Type* handle, Value value) { \
    return Set(handle, &Type::Field, value); \
  }
#define DVPP_GET(Func, Ret, Type, Field) \
  Ret Func(const Type* handle) { return Get(handle, &Type::Field); }
#define DVPP_SET_ENUM(Func, Type, Enum, Field, Valid, What)                \
  aclError Func(Type* handle, Enum value) {                                \
    return SetEnum(handle, &Type::Field, value, Valid, What, "an " #Enum); \
  }
#define DVPP_GET_ENUM(Func, Enum, Type, Field) \
  Enum Func(const Type* handle) { return GetEnum<Enum>(handle, &Type::Field); }
#define DVPP_UNSUPPORTED(Func, What, Instead, ...)                        \
  aclError Func(__VA_ARGS__) {                                            \
    return GuardedCall([] { return Unsupported(#Func, What, Instead); }); \
  }

extern "C" {

// ---- Memory ----

aclError acldvppMalloc(void** devPtr, size_t size) {
  return GuardedCall([&] {
    if (devPtr == nullptr) return NullArgument("devPtr");
    if (!Acquire()) return ACL_ERROR_UNINITIALIZE;
    if (size == 0) return Fail(ACL_ERROR_INVALID_PARAM, "size must be > 0");
    void* memory = size <= kMaxAllocation ? Dvpp().Allocate(size) : nullptr;
    if (memory == nullptr) {
      return Fail(ACL_ERROR_BAD_ALLOC,
                  StrCat("cannot allocate ", size, " bytes of media memory"));
    }
    *devPtr = memory;
    return ACL_SUCCESS;
  });
}

aclError acldvppFree(void* devPtr) {
  return GuardedCall([&] {
    if (devPtr == nullptr) return NullArgument("devPtr");
    switch (Dvpp().Free(devPtr)) {
      case DvppMemory::Freed::kYes:
        return ACL_SUCCESS;
      case DvppMemory::Freed::kInUse:
        return Fail(ACL_ERROR_RT_MEMORY_FREE,
                    "devPtr is still in use by a loaded model or by work "
                    "queued on a stream: unload the model or synchronize the "
                    "stream first");
      case DvppMemory::Freed::kUnknown:
        break;
    }
    std::string what = " or was freed already";
    if (Memory().Holds(devPtr, MemoryKind::kDevice)) {
      what = " (it is inside aclrtMalloc memory: free that with aclrtFree)";
    } else if (Memory().Holds(devPtr, MemoryKind::kHost)) {
      what = " (it is aclrtMallocHost memory: free it with aclrtFreeHost)";
    }
    return Fail(ACL_ERROR_RT_PARAM_INVALID,
                StrCat("devPtr was not returned by acldvppMalloc", what));
  });
}

// ---- Image channels ----

acldvppChannelDesc* acldvppCreateChannelDesc() {
  return Create<acldvppChannelDesc>();
}
aclError acldvppDestroyChannelDesc(acldvppChannelDesc* channelDesc) {
  return Destroy(channelDesc);
}
DVPP_GET(acldvppGetChannelDescChannelId, uint64_t, acldvppChannelDesc,
         channel_id)

aclError acldvppSetChannelDescMode(acldvppChannelDesc* channelDesc,
                                   uint32_t mode) {
  return GuardedCall([&] {
    if (aclError e = Check(channelDesc)) return e;
    if (mode < 1 || mode > 15) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("mode ", mode,
                         " is not a set of DVPP_CHNMODE_* bits (1..15)"));
    }
    channelDesc->mode = mode;
    return ACL_SUCCESS;
  });
}

aclError acldvppSetChannelDescParam(acldvppChannelDesc* channelDesc,
                                    acldvppChannelDescParamType paramType,
                                    size_t length, const void* param) {
  return SetParam(channelDesc, kChannelParams, paramType,
                  "an acldvppChannelDescParamType", length, param);
}

aclError acldvppGetChannelDescParam(const acldvppChannelDesc* channelDesc,
                                    acldvppChannelDescParamType paramType,
                                    size_t length, size_t* paramRetSize,
                                    void* param) {
  return GetParam(channelDesc, kChannelParams, paramType,
                  "an acldvppChannelDescParamType", length, paramRetSize,
                  param);
}

DVPP_UNSUPPORTED(acldvppCreateChannel, "an image processing channel",
                 kImageInstead, acldvppChannelDesc*)
DVPP_UNSUPPORTED(acldvppDestroyChannel, "an image processing channel",
                 kImageInstead, acldvppChannelDesc*)

// ---- Pictures ----

acldvppPicDesc* acldvppCreatePicDesc() { return Create<acldvppPicDesc>(); }
aclError acldvppDestroyPicDesc(acldvppPicDesc* picDesc) {
  return Destroy(picDesc);
}
DVPP_SET(acldvppSetPicDescData, acldvppPicDesc, void*, data)
DVPP_SET(acldvppSetPicDescSize, acldvppPicDesc, uint32_t, size)
DVPP_SET_ENUM(acldvppSetPicDescFormat, acldvppPicDesc, acldvppPixelFormat,
              format, IsPixelFormat, "format")
DVPP_SET(acldvppSetPicDescWidth, acldvppPicDesc, uint32_t, width)
DVPP_SET(acldvppSetPicDescHeight, acldvppPicDesc, uint32_t, height)
DVPP_SET(acldvppSetPicDescWidthStride, acldvppPicDesc, uint32_t, width_stride)
DVPP_SET(acldvppSetPicDescHeightStride, acldvppPicDesc, uint32_t, height_stride)
DVPP_SET(acldvppSetPicDescRetCode, acldvppPicDesc, uint32_t, ret_code)
DVPP_GET(acldvppGetPicDescData, void*, acldvppPicDesc, data)
DVPP_GET(acldvppGetPicDescSize, uint32_t, acldvppPicDesc, size)
DVPP_GET_ENUM(acldvppGetPicDescFormat, acldvppPixelFormat, acldvppPicDesc,
              format)
DVPP_GET(acldvppGetPicDescWidth, uint32_t, acldvppPicDesc, width)
DVPP_GET(acldvppGetPicDescHeight, uint32_t, acldvppPicDesc, height)
DVPP_GET(acldvppGetPicDescWidthStride, uint32_t, acldvppPicDesc, width_stride)
DVPP_GET(acldvppGetPicDescHeightStride, uint32_t, acldvppPicDesc, height_stride)
DVPP_GET(acldvppGetPicDescRetCode, uint32_t, acldvppPicDesc, ret_code)

acldvppBatchPicDesc* acldvppCreateBatchPicDesc(uint32_t batchSize) {
  return Guarded<acldvppBatchPicDesc*>(nullptr, [&]() -> acldvppBatchPicDesc* {
    constexpr uint32_t kMaxBatch = 1u << 20;
    if (batchSize < 1 || batchSize > kMaxBatch) {
      Fail(ACL_ERROR_INVALID_PARAM,
           StrCat("batchSize ", batchSize, " is not 1..", kMaxBatch));
      return nullptr;
    }
    auto batch = std::make_unique<acldvppBatchPicDesc>();
    batch->pics = std::make_unique<acldvppPicDesc[]>(batchSize);
    batch->count = batchSize;
    for (uint32_t i = 0; i < batchSize; ++i) {
      Handles().Add(&batch->pics[i], typeid(acldvppPicDesc), /*in_batch=*/true);
    }
    Handles().Add(batch.get(), typeid(acldvppBatchPicDesc));
    return batch.release();
  });
}

acldvppPicDesc* acldvppGetPicDesc(acldvppBatchPicDesc* batchPicDesc,
                                  uint32_t index) {
  return Guarded<acldvppPicDesc*>(nullptr, [&]() -> acldvppPicDesc* {
    if (Check(batchPicDesc) != ACL_SUCCESS) return nullptr;
    if (index >= batchPicDesc->count) {
      Fail(ACL_ERROR_INVALID_PARAM,
           StrCat("index ", index, " is past the batch of ",
                  batchPicDesc->count, " pictures"));
      return nullptr;
    }
    return &batchPicDesc->pics[index];
  });
}

aclError acldvppDestroyBatchPicDesc(acldvppBatchPicDesc* batchPicDesc) {
  return GuardedCall([&] {
    if (batchPicDesc == nullptr) return ACL_SUCCESS;
    if (aclError e = Check(batchPicDesc)) return e;
    for (uint32_t i = 0; i < batchPicDesc->count; ++i) {
      Handles().Remove(&batchPicDesc->pics[i], typeid(acldvppPicDesc),
                       /*batch_member=*/true);
    }
    return Destroy(batchPicDesc);
  });
}

// ---- Regions, resizing, borders ----

acldvppRoiConfig* acldvppCreateRoiConfig(uint32_t left, uint32_t right,
                                         uint32_t top, uint32_t bottom) {
  return Create<acldvppRoiConfig>(acldvppRoiConfig{left, right, top, bottom});
}
aclError acldvppDestroyRoiConfig(acldvppRoiConfig* roiConfig) {
  return Destroy(roiConfig);
}
DVPP_SET(acldvppSetRoiConfigLeft, acldvppRoiConfig, uint32_t, left)
DVPP_SET(acldvppSetRoiConfigRight, acldvppRoiConfig, uint32_t, right)
DVPP_SET(acldvppSetRoiConfigTop, acldvppRoiConfig, uint32_t, top)
DVPP_SET(acldvppSetRoiConfigBottom, acldvppRoiConfig, uint32_t, bottom)
aclError acldvppSetRoiConfig(acldvppRoiConfig* config, uint32_t left,
                             uint32_t right, uint32_t top, uint32_t bottom) {
  return GuardedCall([&] {
    if (aclError e = Check(config)) return e;
    *config = acldvppRoiConfig{left, right, top, bottom};
    return ACL_SUCCESS;
  });
}

acldvppResizeConfig* acldvppCreateResizeConfig() {
  return Create<acldvppResizeConfig>();
}
aclError acldvppDestroyResizeConfig(acldvppResizeConfig* resizeConfig) {
  return Destroy(resizeConfig);
}
aclError acldvppSetResizeConfigInterpolation(acldvppResizeConfig* resizeConfig,
                                             uint32_t interpolation) {
  return GuardedCall([&] {
    if (aclError e = Check(resizeConfig)) return e;
    return SetLimited(&resizeConfig->interpolation, interpolation, 4,
                      "interpolation");
  });
}
DVPP_GET(acldvppGetResizeConfigInterpolation, uint32_t, acldvppResizeConfig,
         interpolation)

acldvppBorderConfig* acldvppCreateBorderConfig() {
  return Create<acldvppBorderConfig>();
}
aclError acldvppSetBorderConfigValue(acldvppBorderConfig* borderConfig,
                                     uint32_t index, double value) {
  return GuardedCall([&] {
    if (aclError e = Check(borderConfig)) return e;
    if (index >= borderConfig->value.size()) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("index ", index, " is not 0..3"));
    }
    borderConfig->value[index] = value;
    return ACL_SUCCESS;
  });
}
DVPP_SET_ENUM(acldvppSetBorderConfigBorderType, acldvppBorderConfig,
              acldvppBorderType, border_type, IsBorderType, "borderType")
DVPP_SET(acldvppSetBorderConfigTop, acldvppBorderConfig, uint32_t, top)
DVPP_SET(acldvppSetBorderConfigBottom, acldvppBorderConfig, uint32_t, bottom)
DVPP_SET(acldvppSetBorderConfigLeft, acldvppBorderConfig, uint32_t, left)
DVPP_SET(acldvppSetBorderConfigRight, acldvppBorderConfig, uint32_t, right)
double acldvppGetBorderConfigValue(const acldvppBorderConfig* borderConfig,
                                   uint32_t index) {
  return Guarded<double>(0.0, [&] {
    if (Check(borderConfig) != ACL_SUCCESS) return 0.0;
    if (index >= borderConfig->value.size()) {
      Fail(ACL_ERROR_INVALID_PARAM, StrCat("index ", index, " is not 0..3"));
      return 0.0;
    }
    return borderConfig->value[index];
  });
}
DVPP_GET_ENUM(acldvppGetBorderConfigBorderType, acldvppBorderType,
              acldvppBorderConfig, border_type)
DVPP_GET(acldvppGetBorderConfigTop, uint32_t, acldvppBorderConfig, top)
DVPP_GET(acldvppGetBorderConfigBottom, uint32_t, acldvppBorderConfig, bottom)
DVPP_GET(acldvppGetBorderConfigLeft, uint32_t, acldvppBorderConfig, left)
DVPP_GET(acldvppGetBorderConfigRight, uint32_t, acldvppBorderConfig, right)
aclError acldvppDestroyBorderConfig(acldvppBorderConfig* borderConfig) {
  return Destroy(borderConfig);
}

// ---- Color maps and histograms ----

acldvppLutMap* acldvppCreateLutMap() { return Create<acldvppLutMap>(); }
aclError acldvppDestroyLutMap(acldvppLutMap* lutMap) { return Destroy(lutMap); }
uint32_t acldvppGetLutMapDims(const acldvppLutMap* lutMap) {
  return Guarded<uint32_t>(0, [&] {
    return Check(lutMap) == ACL_SUCCESS ? uint32_t{3} : uint32_t{0};
  });
}
aclError acldvppGetLutMapData(const acldvppLutMap* lutMap, uint32_t dim,
                              uint8_t** data, uint32_t* len) {
  return GuardedCall([&] {
    if (aclError e = Check(lutMap)) return e;
    if (data == nullptr) return NullArgument("data");
    if (len == nullptr) return NullArgument("len");
    if (dim >= lutMap->dims.size()) {
      return Fail(ACL_ERROR_INVALID_PARAM, StrCat("dim ", dim, " is not 0..2"));
    }
    // The caller fills the table through the pointer (as in the SDK).
    *data = const_cast<uint8_t*>(lutMap->dims[dim].data());
    *len = static_cast<uint32_t>(lutMap->dims[dim].size());
    return ACL_SUCCESS;
  });
}

acldvppHist* acldvppCreateHist() { return Create<acldvppHist>(); }
aclError acldvppDestroyHist(acldvppHist* hist) { return Destroy(hist); }
uint32_t acldvppGetHistDims(acldvppHist* hist) {
  return Guarded<uint32_t>(0, [&] {
    return Check(hist) == ACL_SUCCESS ? uint32_t{3} : uint32_t{0};
  });
}
aclError acldvppGetHistData(acldvppHist* hist, uint32_t dim, uint32_t** data,
                            uint16_t* len) {
  return GuardedCall([&] {
    if (aclError e = Check(hist)) return e;
    if (data == nullptr) return NullArgument("data");
    if (len == nullptr) return NullArgument("len");
    if (dim >= hist->dims.size()) {
      return Fail(ACL_ERROR_INVALID_PARAM, StrCat("dim ", dim, " is not 0..2"));
    }
    *data = hist->dims[dim].data();
    *len = static_cast<uint16_t>(hist->dims[dim].size());
    return ACL_SUCCESS;
  });
}
uint32_t acldvppGetHistRetCode(acldvppHist* hist) {
  return Get(static_cast<const acldvppHist*>(hist), &acldvppHist::ret_code);
}
aclError acldvppClearHist(acldvppHist* hist) {
  return GuardedCall([&] {
    if (aclError e = Check(hist)) return e;
    for (auto& dim : hist->dims) dim.fill(0);
    return ACL_SUCCESS;
  });
}

// ---- JPEG and PNG ----

acldvppJpegeConfig* acldvppCreateJpegeConfig() {
  return Create<acldvppJpegeConfig>();
}
aclError acldvppDestroyJpegeConfig(acldvppJpegeConfig* jpegeConfig) {
  return Destroy(jpegeConfig);
}
aclError acldvppSetJpegeConfigLevel(acldvppJpegeConfig* jpegeConfig,
                                    uint32_t level) {
  return GuardedCall([&] {
    if (aclError e = Check(jpegeConfig)) return e;
    return SetLimited(&jpegeConfig->level, level, 100, "level");
  });
}
DVPP_GET(acldvppGetJpegeConfigLevel, uint32_t, acldvppJpegeConfig, level)

aclError acldvppJpegGetImageInfo(const void* data, uint32_t size,
                                 uint32_t* width, uint32_t* height,
                                 int32_t* components) {
  return acldvppJpegGetImageInfoV2(data, size, width, height, components,
                                   nullptr);
}

aclError acldvppJpegGetImageInfoV2(const void* data, uint32_t size,
                                   uint32_t* width, uint32_t* height,
                                   int32_t* components,
                                   acldvppJpegFormat* format) {
  return GuardedCall([&] {
    if (data == nullptr) return NullArgument("data");
    // As the SDK: outputs are optional; with none, nothing is read.
    if (width == nullptr && height == nullptr && components == nullptr &&
        format == nullptr) {
      return ACL_SUCCESS;
    }
    media::JpegInfo info;
    if (aclError e = ReadJpeg(data, size, &info)) return e;
    if (width != nullptr) *width = info.width;
    if (height != nullptr) *height = info.height;
    if (components != nullptr) {
      *components = static_cast<int32_t>(info.components.size());
    }
    if (format != nullptr) *format = ToAcl(info.subsampling);
    return ACL_SUCCESS;
  });
}

aclError acldvppJpegPredictDecSize(const void* data, uint32_t dataSize,
                                   acldvppPixelFormat outputPixelFormat,
                                   uint32_t* decSize) {
  return GuardedCall([&] {
    if (data == nullptr) return NullArgument("data");
    if (decSize == nullptr) return NullArgument("decSize");
    media::JpegInfo info;
    if (aclError e = ReadJpeg(data, dataSize, &info)) return e;
    return JpegDecodedSize(info, RawEnum(outputPixelFormat), decSize);
  });
}

aclError acldvppJpegPredictEncSize(const acldvppPicDesc* inputDesc,
                                   const acldvppJpegeConfig* config,
                                   uint32_t* size) {
  return GuardedCall([&] {
    if (aclError e = Check(inputDesc)) return e;
    if (aclError e = Check(config)) return e;
    if (size == nullptr) return NullArgument("size");
    return JpegEncodedSize(*inputDesc, size);
  });
}

aclError acldvppPngGetImageInfo(const void* data, uint32_t dataSize,
                                uint32_t* width, uint32_t* height,
                                int32_t* components) {
  return GuardedCall([&] {
    if (data == nullptr) return NullArgument("data");
    if (width == nullptr) return NullArgument("width");
    if (height == nullptr) return NullArgument("height");
    if (components == nullptr) return NullArgument("components");
    media::PngInfo info;
    if (aclError e = ReadPng(data, dataSize, &info)) return e;
    *width = info.width;
    *height = info.height;
    *components = info.components;
    return ACL_SUCCESS;
  });
}

aclError acldvppPngPredictDecSize(const void* data, uint32_t dataSize,
                                  acldvppPixelFormat outputPixelFormat,
                                  uint32_t* decSize) {
  return GuardedCall([&] {
    if (data == nullptr) return NullArgument("data");
    if (decSize == nullptr) return NullArgument("decSize");
    media::PngInfo info;
    if (aclError e = ReadPng(data, dataSize, &info)) return e;
    return PngDecodedSize(info, RawEnum(outputPixelFormat), decSize);
  });
}

DVPP_UNSUPPORTED(acldvppJpegDecodeAsync, "JPEG decoding", kImageInstead,
                 acldvppChannelDesc*, const void*, uint32_t, acldvppPicDesc*,
                 aclrtStream)
DVPP_UNSUPPORTED(acldvppJpegEncodeAsync, "JPEG encoding",
                 "Encode images on the host (with libjpeg or OpenCV, say).",
                 acldvppChannelDesc*, acldvppPicDesc*, const void*, uint32_t*,
                 acldvppJpegeConfig*, aclrtStream)
DVPP_UNSUPPORTED(acldvppPngDecodeAsync, "PNG decoding", kImageInstead,
                 acldvppChannelDesc*, const void*, uint32_t, acldvppPicDesc*,
                 aclrtStream)

// ---- Picture processing ----

#define DVPP_VPC_UNSUPPORTED(Func, What, ...) \
  DVPP_UNSUPPORTED(Func, What, kImageInstead, __VA_ARGS__)
DVPP_VPC_UNSUPPORTED(acldvppVpcResizeAsync, "resizing", acldvppChannelDesc*,
                     acldvppPicDesc*, acldvppPicDesc*, acldvppResizeConfig*,
                     aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcCropAsync, "cropping", acldvppChannelDesc*,
                     acldvppPicDesc*, acldvppPicDesc*, acldvppRoiConfig*,
                     aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcCropResizeAsync, "cropping and resizing",
                     acldvppChannelDesc*, acldvppPicDesc*, acldvppPicDesc*,
                     acldvppRoiConfig*, acldvppResizeConfig*, aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcBatchCropAsync, "cropping", acldvppChannelDesc*,
                     acldvppBatchPicDesc*, uint32_t*, uint32_t,
                     acldvppBatchPicDesc*, acldvppRoiConfig*[], aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcBatchCropResizeAsync, "cropping and resizing",
                     acldvppChannelDesc*, acldvppBatchPicDesc*, uint32_t*,
                     uint32_t, acldvppBatchPicDesc*, acldvppRoiConfig*[],
                     acldvppResizeConfig*, aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcCropAndPasteAsync, "cropping and pasting",
                     acldvppChannelDesc*, acldvppPicDesc*, acldvppPicDesc*,
                     acldvppRoiConfig*, acldvppRoiConfig*, aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcCropResizePasteAsync,
                     "cropping, resizing and pasting", acldvppChannelDesc*,
                     acldvppPicDesc*, acldvppPicDesc*, acldvppRoiConfig*,
                     acldvppRoiConfig*, acldvppResizeConfig*, aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcBatchCropAndPasteAsync, "cropping and pasting",
                     acldvppChannelDesc*, acldvppBatchPicDesc*, uint32_t*,
                     uint32_t, acldvppBatchPicDesc*, acldvppRoiConfig*[],
                     acldvppRoiConfig*[], aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcBatchCropResizePasteAsync,
                     "cropping, resizing and pasting", acldvppChannelDesc*,
                     acldvppBatchPicDesc*, uint32_t*, uint32_t,
                     acldvppBatchPicDesc*, acldvppRoiConfig*[],
                     acldvppRoiConfig*[], acldvppResizeConfig*, aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcBatchCropResizeMakeBorderAsync,
                     "cropping, resizing and bordering", acldvppChannelDesc*,
                     acldvppBatchPicDesc*, uint32_t*, uint32_t,
                     acldvppBatchPicDesc*, acldvppRoiConfig*[],
                     acldvppBorderConfig*[], acldvppResizeConfig*, aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcConvertColorAsync, "color conversion",
                     acldvppChannelDesc*, acldvppPicDesc*, acldvppPicDesc*,
                     aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcPyrDownAsync, "pyramid down-scaling",
                     acldvppChannelDesc*, acldvppPicDesc*, acldvppPicDesc*,
                     void*, aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcEqualizeHistAsync, "histogram equalization",
                     const acldvppChannelDesc*, const acldvppPicDesc*,
                     acldvppPicDesc*, const acldvppLutMap*, aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcMakeBorderAsync, "bordering",
                     const acldvppChannelDesc*, const acldvppPicDesc*,
                     acldvppPicDesc*, const acldvppBorderConfig*, aclrtStream)
DVPP_VPC_UNSUPPORTED(acldvppVpcCalcHistAsync, "histogram calculation",
                     acldvppChannelDesc*, acldvppPicDesc*, acldvppHist*, void*,
                     aclrtStream)
#undef DVPP_VPC_UNSUPPORTED

// ---- Video streams ----

acldvppStreamDesc* acldvppCreateStreamDesc() {
  return Create<acldvppStreamDesc>();
}
aclError acldvppDestroyStreamDesc(acldvppStreamDesc* streamDesc) {
  return Destroy(streamDesc);
}
DVPP_SET(acldvppSetStreamDescData, acldvppStreamDesc, void*, data)
DVPP_SET(acldvppSetStreamDescSize, acldvppStreamDesc, uint32_t, size)
DVPP_SET_ENUM(acldvppSetStreamDescFormat, acldvppStreamDesc,
              acldvppStreamFormat, format, IsStreamFormat, "format")
DVPP_SET(acldvppSetStreamDescTimestamp, acldvppStreamDesc, uint64_t, timestamp)
DVPP_SET(acldvppSetStreamDescRetCode, acldvppStreamDesc, uint32_t, ret_code)
DVPP_SET(acldvppSetStreamDescEos, acldvppStreamDesc, uint8_t, eos)
DVPP_GET(acldvppGetStreamDescData, void*, acldvppStreamDesc, data)
DVPP_GET(acldvppGetStreamDescSize, uint32_t, acldvppStreamDesc, size)
DVPP_GET_ENUM(acldvppGetStreamDescFormat, acldvppStreamFormat,
              acldvppStreamDesc, format)
DVPP_GET(acldvppGetStreamDescTimestamp, uint64_t, acldvppStreamDesc, timestamp)
DVPP_GET(acldvppGetStreamDescRetCode, uint32_t, acldvppStreamDesc, ret_code)
DVPP_GET(acldvppGetStreamDescEos, uint8_t, acldvppStreamDesc, eos)

// ---- Video decoding ----

aclvdecChannelDesc* aclvdecCreateChannelDesc() {
  return Create<aclvdecChannelDesc>();
}
aclError aclvdecDestroyChannelDesc(aclvdecChannelDesc* channelDesc) {
  return Destroy(channelDesc);
}
DVPP_SET(aclvdecSetChannelDescChannelId, aclvdecChannelDesc, uint32_t,
         channel_id)
DVPP_SET(aclvdecSetChannelDescThreadId, aclvdecChannelDesc, uint64_t, thread_id)
DVPP_SET(aclvdecSetChannelDescCallback, aclvdecChannelDesc, aclvdecCallback,
         callback)
DVPP_SET_ENUM(aclvdecSetChannelDescEnType, aclvdecChannelDesc,
              acldvppStreamFormat, en_type, IsStreamFormat, "enType")
DVPP_SET_ENUM(aclvdecSetChannelDescOutPicFormat, aclvdecChannelDesc,
              acldvppPixelFormat, out_pic_format, IsPixelFormat, "outPicFormat")
DVPP_SET(aclvdecSetChannelDescOutPicWidth, aclvdecChannelDesc, uint32_t,
         out_pic_width)
DVPP_SET(aclvdecSetChannelDescOutPicHeight, aclvdecChannelDesc, uint32_t,
         out_pic_height)
DVPP_SET(aclvdecSetChannelDescRefFrameNum, aclvdecChannelDesc, uint32_t,
         ref_frame_num)
DVPP_SET(aclvdecSetChannelDescBitDepth, aclvdecChannelDesc, uint32_t, bit_depth)
DVPP_SET(aclvdecSetChannelDescOutMode, aclvdecChannelDesc, uint32_t, out_mode)
DVPP_GET(aclvdecGetChannelDescChannelId, uint32_t, aclvdecChannelDesc,
         channel_id)
DVPP_GET(aclvdecGetChannelDescThreadId, uint64_t, aclvdecChannelDesc, thread_id)
DVPP_GET(aclvdecGetChannelDescCallback, aclvdecCallback, aclvdecChannelDesc,
         callback)
DVPP_GET_ENUM(aclvdecGetChannelDescEnType, acldvppStreamFormat,
              aclvdecChannelDesc, en_type)
DVPP_GET_ENUM(aclvdecGetChannelDescOutPicFormat, acldvppPixelFormat,
              aclvdecChannelDesc, out_pic_format)
DVPP_GET(aclvdecGetChannelDescOutPicWidth, uint32_t, aclvdecChannelDesc,
         out_pic_width)
DVPP_GET(aclvdecGetChannelDescOutPicHeight, uint32_t, aclvdecChannelDesc,
         out_pic_height)
DVPP_GET(aclvdecGetChannelDescBitDepth, uint32_t, aclvdecChannelDesc, bit_depth)
DVPP_GET(aclvdecGetChannelDescRefFrameNum, uint32_t, aclvdecChannelDesc,
         ref_frame_num)
DVPP_GET(aclvdecGetChannelDescOutMode, uint32_t, aclvdecChannelDesc, out_mode)

aclError aclvdecSetChannelDescParam(aclvdecChannelDesc* channelDesc,
                                    aclvdecChannelDescParamType paramType,
                                    size_t length, const void* param) {
  return SetParam(channelDesc, kVdecParams, paramType,
                  "an aclvdecChannelDescParamType", length, param);
}

aclError aclvdecGetChannelDescParam(const aclvdecChannelDesc* channelDesc,
                                    aclvdecChannelDescParamType paramType,
                                    size_t length, size_t* paramRetSize,
                                    void* param) {
  return GetParam(channelDesc, kVdecParams, paramType,
                  "an aclvdecChannelDescParamType", length, paramRetSize,
                  param);
}

aclvdecFrameConfig* aclvdecCreateFrameConfig() {
  return Create<aclvdecFrameConfig>();
}
aclError aclvdecDestroyFrameConfig(aclvdecFrameConfig* vdecFrameConfig) {
  return Destroy(vdecFrameConfig);
}

DVPP_UNSUPPORTED(aclvdecCreateChannel, "a video decoding channel",
                 kVideoInstead, aclvdecChannelDesc*)
DVPP_UNSUPPORTED(aclvdecDestroyChannel, "a video decoding channel",
                 kVideoInstead, aclvdecChannelDesc*)
DVPP_UNSUPPORTED(aclvdecSendFrame, "video decoding", kVideoInstead,
                 aclvdecChannelDesc*, acldvppStreamDesc*, acldvppPicDesc*,
                 aclvdecFrameConfig*, void*)
DVPP_UNSUPPORTED(aclvdecSendSkippedFrame, "video decoding", kVideoInstead,
                 aclvdecChannelDesc*, acldvppStreamDesc*, aclvdecFrameConfig*,
                 void*)

// ---- Video encoding ----

aclvencChannelDesc* aclvencCreateChannelDesc() {
  return Create<aclvencChannelDesc>();
}
aclError aclvencDestroyChannelDesc(aclvencChannelDesc* channelDesc) {
  return Destroy(channelDesc);
}
DVPP_SET(aclvencSetChannelDescThreadId, aclvencChannelDesc, uint64_t, thread_id)
DVPP_SET(aclvencSetChannelDescCallback, aclvencChannelDesc, aclvencCallback,
         callback)
DVPP_SET_ENUM(aclvencSetChannelDescEnType, aclvencChannelDesc,
              acldvppStreamFormat, en_type, IsStreamFormat, "enType")
DVPP_SET_ENUM(aclvencSetChannelDescPicFormat, aclvencChannelDesc,
              acldvppPixelFormat, pic_format, IsPixelFormat, "picFormat")
DVPP_SET(aclvencSetChannelDescPicWidth, aclvencChannelDesc, uint32_t, pic_width)
DVPP_SET(aclvencSetChannelDescPicHeight, aclvencChannelDesc, uint32_t,
         pic_height)
DVPP_SET(aclvencSetChannelDescKeyFrameInterval, aclvencChannelDesc, uint32_t,
         key_frame_interval)
DVPP_SET(aclvencSetChannelDescBufAddr, aclvencChannelDesc, void*, buf_addr)
DVPP_SET(aclvencSetChannelDescBufSize, aclvencChannelDesc, uint32_t, buf_size)
DVPP_SET(aclvencSetChannelDescRcMode, aclvencChannelDesc, uint32_t, rc_mode)
DVPP_SET(aclvencSetChannelDescSrcRate, aclvencChannelDesc, uint32_t, src_rate)
DVPP_SET(aclvencSetChannelDescMaxBitRate, aclvencChannelDesc, uint32_t,
         max_bit_rate)
DVPP_GET(aclvencGetChannelDescBufAddr, void*, aclvencChannelDesc, buf_addr)
DVPP_GET(aclvencGetChannelDescBufSize, uint32_t, aclvencChannelDesc, buf_size)
DVPP_GET(aclvencGetChannelDescChannelId, uint32_t, aclvencChannelDesc,
         channel_id)
DVPP_GET(aclvencGetChannelDescThreadId, uint64_t, aclvencChannelDesc, thread_id)
DVPP_GET(aclvencGetChannelDescCallback, aclvencCallback, aclvencChannelDesc,
         callback)
DVPP_GET_ENUM(aclvencGetChannelDescEnType, acldvppStreamFormat,
              aclvencChannelDesc, en_type)
DVPP_GET_ENUM(aclvencGetChannelDescPicFormat, acldvppPixelFormat,
              aclvencChannelDesc, pic_format)
DVPP_GET(aclvencGetChannelDescPicWidth, uint32_t, aclvencChannelDesc, pic_width)
DVPP_GET(aclvencGetChannelDescPicHeight, uint32_t, aclvencChannelDesc,
         pic_height)
DVPP_GET(aclvencGetChannelDescKeyFrameInterval, uint32_t, aclvencChannelDesc,
         key_frame_interval)
DVPP_GET(aclvencGetChannelDescRcMode, uint32_t, aclvencChannelDesc, rc_mode)
DVPP_GET(aclvencGetChannelDescSrcRate, uint32_t, aclvencChannelDesc, src_rate)
DVPP_GET(aclvencGetChannelDescMaxBitRate, uint32_t, aclvencChannelDesc,
         max_bit_rate)

aclError aclvencSetChannelDescParam(aclvencChannelDesc* channelDesc,
                                    aclvencChannelDescParamType paramType,
                                    size_t length, const void* param) {
  return SetParam(channelDesc, kVencParams, paramType,
                  "an aclvencChannelDescParamType", length, param);
}

aclError aclvencGetChannelDescParam(const aclvencChannelDesc* channelDesc,
                                    aclvencChannelDescParamType paramType,
                                    size_t length, size_t* paramRetSize,
                                    void* param) {
  return GetParam(channelDesc, kVencParams, paramType,
                  "an aclvencChannelDescParamType", length, paramRetSize,
                  param);
}

aclvencFrameConfig* aclvencCreateFrameConfig() {
  return Create<aclvencFrameConfig>();
}
aclError aclvencDestroyFrameConfig(aclvencFrameConfig* config) {
  return Destroy(config);
}
DVPP_SET(aclvencSetFrameConfigForceIFrame, aclvencFrameConfig, uint8_t,
         force_i_frame)
DVPP_SET(aclvencSetFrameConfigEos, aclvencFrameConfig, uint8_t, eos)
DVPP_GET(aclvencGetFrameConfigForceIFrame, uint8_t, aclvencFrameConfig,
         force_i_frame)
DVPP_GET(aclvencGetFrameConfigEos, uint8_t, aclvencFrameConfig, eos)

DVPP_UNSUPPORTED(aclvencCreateChannel, "a video encoding channel",
                 kVideoInstead, aclvencChannelDesc*)
DVPP_UNSUPPORTED(aclvencDestroyChannel, "a video encoding channel",
                 kVideoInstead, aclvencChannelDesc*)
DVPP_UNSUPPORTED(aclvencSendFrame, "video encoding", kVideoInstead,
                 aclvencChannelDesc*, acldvppPicDesc*, void*,
                 aclvencFrameConfig*, void*)

}  // extern "C"
