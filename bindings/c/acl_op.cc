// Tensor descriptions, operator attributes and single-operator execution.
#include <filesystem>
#include <mutex>
#include <optional>
#include <span>
#include <system_error>
#include <vector>

#include "acl/acl.h"
#include "acl_dtypes.h"
#include "api_support.h"
#include "base/strings.h"
#include "dump/op_args_recorder.h"
#include "library.h"
#include "runtime/single_op.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT

namespace {

// Every aclDataType of acl_base.h.
bool IsAclDataType(int32_t type) {
  switch (type) {
    case ACL_DT_UNDEFINED:
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_INT8:
    case ACL_INT32:
    case ACL_UINT8:
    case ACL_INT16:
    case ACL_UINT16:
    case ACL_UINT32:
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_BOOL:
    case ACL_STRING:
    case ACL_COMPLEX64:
    case ACL_COMPLEX128:
    case ACL_BF16:
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_COMPLEX32:
      return true;
  }
  return false;
}

bool CheckTensorDescArgs(int32_t type, int num_dims, const int64_t* dims) {
  if (!IsAclDataType(type)) {
    Fail(ACL_ERROR_INVALID_PARAM,
         StrCat("data type ", type,
                " is not an aclDataType (ACL_FLOAT, ACL_FLOAT16, ...)"));
    return false;
  }
  if (num_dims < 0 || num_dims > ACL_MAX_DIM_CNT ||
      (num_dims > 0 && dims == nullptr)) {
    Fail(ACL_ERROR_INVALID_PARAM,
         StrCat("numDims ", num_dims, " with dims ", dims ? "set" : "NULL",
                " is not valid"));
    return false;
  }
  for (int i = 0; i < num_dims; ++i) {
    if (dims[i] < 0) {
      Fail(ACL_ERROR_INVALID_PARAM,
           StrCat("dims[", i, "] is negative (", dims[i], ")"));
      return false;
    }
  }
  if (!CheckedNumElements(std::span<const int64_t>(dims, num_dims)).ok()) {
    Fail(ACL_ERROR_INVALID_PARAM, "the tensor described is too large");
    return false;
  }
  return true;
}

bool LiveDesc(const aclTensorDesc* desc) {
  if (desc != nullptr && Lib().tensor_descs.Contains(desc)) return true;
  Fail(ACL_ERROR_INVALID_PARAM, "tensor desc is NULL or was destroyed");
  return false;
}

// Bytes of the tensor a live desc describes.
size_t DescBytes(const aclTensorDesc& desc) {
  return Shape(desc.dims).NumElements() * aclDataTypeSize(desc.data_type);
}

aclError SetAttr(aclopAttr* attr, const char* name, AttrValue value) {
  if (attr == nullptr || !Lib().attrs.Contains(attr)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "attr is NULL or was destroyed");
  }
  if (name == nullptr || name[0] == '\0') {
    return Fail(ACL_ERROR_INVALID_PARAM, "attribute name is NULL or empty");
  }
  attr->attrs.Set(name, std::move(value));
  return ACL_SUCCESS;
}

// One operator input or output as a tensor view over its buffer.
aclError ToView(const aclTensorDesc* desc, const aclDataBuffer* buffer,
                bool input, int index, TensorView& view) {
  const char* what = input ? "input" : "output";
  if (desc == nullptr && buffer == nullptr && input) return ACL_SUCCESS;
  if (desc == nullptr || !Lib().tensor_descs.Contains(desc)) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat(what, " desc ", index, " is NULL or destroyed"));
  }
  // A constant input (aclSetTensorConst) given no buffer: its own value.
  const bool constant = input && buffer == nullptr && desc->const_data;
  if (!constant && (buffer == nullptr || !Lib().buffers.Contains(buffer))) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                StrCat(what, " buffer ", index, " is NULL or destroyed"));
  }
  std::optional<DType> dtype = FromAclDataType(desc->data_type);
  if (!dtype) {
    return Fail(ACL_ERROR_UNSUPPORTED_DATA_TYPE,
                StrCat(what, " ", index, ": data type ",
                       static_cast<int>(desc->data_type), " is not supported"));
  }
  if (constant) {
    // Inputs are only read.
    view = TensorView{*dtype, Shape(desc->dims),
                      const_cast<char*>(desc->const_data->data())};
    return ACL_SUCCESS;
  }
  view = TensorView{*dtype, Shape(desc->dims), buffer->data};
  if (buffer->size < view.ByteSize()) {
    return Fail(
        input ? ACL_ERROR_OP_INPUT_NOT_MATCH : ACL_ERROR_OP_OUTPUT_NOT_MATCH,
        StrCat(what, " ", index, " (", view.info().ToString(), ") needs ",
               view.ByteSize(), " bytes, its buffer has ", buffer->size));
  }
  return ACL_SUCCESS;
}

aclError CheckOpArgs(const char* op_type, int num_inputs, bool has_inputs,
                     int num_outputs, bool has_outputs, const aclopAttr* attr) {
  if (op_type == nullptr || op_type[0] == '\0') {
    return Fail(ACL_ERROR_INVALID_PARAM, "opType is NULL or empty");
  }
  if (num_inputs < 0 || num_outputs < 0 || (num_inputs > 0 && !has_inputs) ||
      (num_outputs > 0 && !has_outputs)) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                "input/output counts and arrays do not match");
  }
  if (attr != nullptr && !Lib().attrs.Contains(attr)) {
    return Fail(ACL_ERROR_INVALID_PARAM, "attr was destroyed");
  }
  return ACL_SUCCESS;
}

// The single operator `opType` on checked arguments: aclopExecuteV2 and
// aclopCast, which has attributes of its own (not a handle).
aclError RunSingleOp(const char* opType, int numInputs,
                     aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                     int numOutputs, aclTensorDesc* outputDesc[],
                     aclDataBuffer* outputs[], const Attributes* attrs) {
  std::shared_ptr<State> state = Acquire();
  if (!state) return ACL_ERROR_UNINITIALIZE;
  std::vector<TensorView> in_views(numInputs), out_views(numOutputs);
  for (int i = 0; i < numInputs; ++i) {
    if (aclError e = ToView(inputDesc[i], inputs[i], true, i, in_views[i]))
      return e;
  }
  for (int i = 0; i < numOutputs; ++i) {
    if (aclError e = ToView(outputDesc[i], outputs[i], false, i, out_views[i]))
      return e;
  }
  SingleOpCall call;
  call.op_type = opType;
  call.op_name = opType;
  call.attrs = attrs;
  call.inputs = in_views;
  call.outputs = out_views;
  std::shared_ptr<ExecutionObserver> observer =
      state->dump.SingleOpObserver(state->runtime.CurrentDevice());
  absl::Status status = ExecuteSingleOp(call, observer.get());
  dump::OpArgsRecorder& args_dump = dump::GlobalOpArgsRecorder();
  if (args_dump.active()) {
    dump::OpArgs args;
    args.op_type = opType;
    args.attrs = call.attrs;
    args.status = status;
    auto describe = [](aclTensorDesc* desc, const TensorView& view) {
      dump::OpArgTensor tensor;
      tensor.info = view.info();
      if (desc != nullptr) tensor.format = aclGetTensorDescFormat(desc);
      return tensor;
    };
    for (int i = 0; i < numInputs; ++i)
      args.inputs.push_back(describe(inputDesc[i], in_views[i]));
    for (int i = 0; i < numOutputs; ++i)
      args.outputs.push_back(describe(outputDesc[i], out_views[i]));
    args_dump.Record(args);
  }
  return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_FAILURE);
}

}  // namespace

extern "C" {

// ---- Tensor descriptions

aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims,
                                   const int64_t* dims, aclFormat format) {
  return Guarded<aclTensorDesc*>(nullptr, [&]() -> aclTensorDesc* {
    if (!CheckTensorDescArgs(RawEnum(dataType), numDims, dims)) return nullptr;
    auto* desc = new aclTensorDesc;
    desc->data_type = dataType;
    desc->dims.assign(dims, dims + numDims);
    desc->format = RawEnum(format);  // any format number is kept as given
    Lib().tensor_descs.Add(desc);
    return desc;
  });
}

void aclDestroyTensorDesc(const aclTensorDesc* desc) {
  Guarded<int>(0, [&] {
    if (desc != nullptr && Lib().tensor_descs.Remove(desc)) delete desc;
    return 0;
  });
}

void aclSetTensorDescName(aclTensorDesc* desc, const char* name) {
  Guarded<int>(0, [&] {
    if (desc != nullptr && name != nullptr && Lib().tensor_descs.Contains(desc))
      desc->name = name;
    return 0;
  });
}

aclDataType aclGetTensorDescType(const aclTensorDesc* desc) {
  return Guarded<aclDataType>(ACL_DT_UNDEFINED, [&] {
    return LiveDesc(desc) ? desc->data_type : ACL_DT_UNDEFINED;
  });
}

aclFormat aclGetTensorDescFormat(const aclTensorDesc* desc) {
  return Guarded<aclFormat>(ACL_FORMAT_UNDEFINED, [&] {
    return LiveDesc(desc) ? static_cast<aclFormat>(desc->format)
                          : ACL_FORMAT_UNDEFINED;
  });
}

size_t aclGetTensorDescNumDims(const aclTensorDesc* desc) {
  return Guarded<size_t>(
      0, [&]() -> size_t { return LiveDesc(desc) ? desc->dims.size() : 0; });
}

size_t aclGetTensorDescElementCount(const aclTensorDesc* desc) {
  return Guarded<size_t>(0, [&]() -> size_t {
    return LiveDesc(desc) ? Shape(desc->dims).NumElements() : 0;
  });
}

size_t aclGetTensorDescSize(const aclTensorDesc* desc) {
  return Guarded<size_t>(0, [&]() -> size_t {
    if (!LiveDesc(desc)) return 0;
    return DescBytes(*desc);
  });
}

aclError aclSetTensorConst(aclTensorDesc* desc, void* dataBuffer,
                           size_t length) {
  return GuardedCall([&] {
    if (!LiveDesc(desc)) return ACL_ERROR_INVALID_PARAM;
    if (dataBuffer == nullptr) return NullArgument("dataBuffer");
    const size_t size = DescBytes(*desc);
    if (length != size) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("aclSetTensorConst: length ", length,
                         " is not the described tensor's ", size, " bytes"));
    }
    desc->const_data.emplace(static_cast<const char*>(dataBuffer), length);
    return ACL_SUCCESS;
  });
}

aclError aclGetTensorDescDimV2(const aclTensorDesc* desc, size_t index,
                               int64_t* dimSize) {
  return GuardedCall([&] {
    if (!LiveDesc(desc)) return ACL_ERROR_INVALID_PARAM;
    if (dimSize == nullptr) return NullArgument("dimSize");
    if (index >= desc->dims.size()) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("dim index ", index, " is out of range (",
                         desc->dims.size(), " dims)"));
    }
    *dimSize = desc->dims[index];
    return ACL_SUCCESS;
  });
}

// ---- Attributes

aclopAttr* aclopCreateAttr(void) {
  return Guarded<aclopAttr*>(nullptr, [&] {
    auto* attr = new aclopAttr;
    Lib().attrs.Add(attr);
    return attr;
  });
}

void aclopDestroyAttr(const aclopAttr* attr) {
  Guarded<int>(0, [&] {
    if (attr != nullptr && Lib().attrs.Remove(attr)) delete attr;
    return 0;
  });
}

aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName,
                          uint8_t attrValue) {
  return GuardedCall(
      [&] { return SetAttr(attr, attrName, int64_t{attrValue != 0}); });
}

aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName,
                         int64_t attrValue) {
  return GuardedCall([&] { return SetAttr(attr, attrName, attrValue); });
}

aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName,
                           float attrValue) {
  return GuardedCall([&] { return SetAttr(attr, attrName, attrValue); });
}

aclError aclopSetAttrString(aclopAttr* attr, const char* attrName,
                            const char* attrValue) {
  return GuardedCall([&] {
    if (attrValue == nullptr) return NullArgument("attrValue");
    return SetAttr(attr, attrName, std::string(attrValue));
  });
}

aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName,
                             int numValues, const int64_t* values) {
  return GuardedCall([&] {
    if (numValues < 0 || (numValues > 0 && values == nullptr)) {
      return Fail(ACL_ERROR_INVALID_PARAM, "numValues/values are not valid");
    }
    return SetAttr(attr, attrName,
                   std::vector<int64_t>(values, values + numValues));
  });
}

aclError aclopSetAttrListFloat(aclopAttr* attr, const char* attrName,
                               int numValues, const float* values) {
  return GuardedCall([&] {
    if (numValues < 0 || (numValues > 0 && values == nullptr)) {
      return Fail(ACL_ERROR_INVALID_PARAM, "numValues/values are not valid");
    }
    return SetAttr(attr, attrName,
                   std::vector<float>(values, values + numValues));
  });
}

// ---- Execution

aclError aclopExecuteV2(const char* opType, int numInputs,
                        aclTensorDesc* inputDesc[], aclDataBuffer* inputs[],
                        int numOutputs, aclTensorDesc* outputDesc[],
                        aclDataBuffer* outputs[], aclopAttr* attr,
                        aclrtStream stream) {
  (void)stream;  // the op runs before the call returns
  return GuardedCall([&] {
    if (aclError e = CheckOpArgs(opType, numInputs, inputDesc && inputs,
                                 numOutputs, outputDesc && outputs, attr)) {
      return e;
    }
    return RunSingleOp(opType, numInputs, inputDesc, inputs, numOutputs,
                       outputDesc, outputs,
                       attr != nullptr ? &attr->attrs : nullptr);
  });
}

aclError aclopCast(const aclTensorDesc* srcDesc, const aclDataBuffer* srcBuffer,
                   const aclTensorDesc* dstDesc, aclDataBuffer* dstBuffer,
                   uint8_t truncate, aclrtStream stream) {
  (void)truncate;  // float -> integer always rounds toward zero (ONNX Cast)
  (void)stream;    // the op runs before the call returns
  return GuardedCall([&] {
    if (srcDesc == nullptr || srcBuffer == nullptr || dstDesc == nullptr ||
        dstBuffer == nullptr) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "aclopCast: srcDesc, srcBuffer, dstDesc and dstBuffer must "
                  "not be NULL");
    }
    // A destroyed description is that, not a type to cast to.
    if (!LiveDesc(srcDesc) || !LiveDesc(dstDesc))
      return ACL_ERROR_INVALID_PARAM;
    const std::optional<DType> to = FromAclDataType(dstDesc->data_type);
    if (!to) {
      return Fail(ACL_ERROR_OP_ATTR_NOT_MATCH,
                  StrCat("aclopCast: cannot cast to data type ",
                         static_cast<int>(dstDesc->data_type),
                         ": acldump has no tensors of that type"));
    }
    Attributes attrs;
    attrs.Set("to", int64_t{ToOnnxDataType(*to)});
    // The op neither writes nor keeps the descriptions and the input.
    aclTensorDesc* in_desc[] = {const_cast<aclTensorDesc*>(srcDesc)};
    aclDataBuffer* in[] = {const_cast<aclDataBuffer*>(srcBuffer)};
    aclTensorDesc* out_desc[] = {const_cast<aclTensorDesc*>(dstDesc)};
    aclDataBuffer* out[] = {dstBuffer};
    return RunSingleOp("Cast", 1, in_desc, in, 1, out_desc, out, &attrs);
  });
}

aclError aclopSetModelDir(const char* modelDir) {
  return GuardedCall([&] {
    static std::mutex mutex;
    static bool set = false;
    std::lock_guard<std::mutex> lock(mutex);
    if (modelDir == nullptr || *modelDir == '\0') {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  "aclopSetModelDir: modelDir is NULL or empty");
    }
    if (set) {
      return Fail(ACL_ERROR_REPEAT_INITIALIZE,
                  "aclopSetModelDir: the model folder is set once per "
                  "process, and was set already");
    }
    std::error_code error;
    if (!std::filesystem::is_directory(modelDir, error)) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("aclopSetModelDir: '", modelDir, "' is not a folder",
                         error ? " (" : "", error ? error.message() : "",
                         error ? ")" : ""));
    }
    std::filesystem::directory_iterator check(modelDir, error);
    if (error) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("aclopSetModelDir: cannot read the folder '", modelDir,
                         "': ", error.message()));
    }
    set = true;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
