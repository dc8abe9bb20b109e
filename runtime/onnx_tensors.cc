#include "runtime/onnx_tensors.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/half.h"

namespace acldump {
namespace {

absl::Status Invalid(const onnx::TensorProto& proto, std::string_view reason) {
  return absl::InvalidArgumentError(
      StrCat("tensor '", proto.name(), "': ", reason));
}

// Copies typed repeated-field values into the tensor, converting each to T.
template <typename T, typename Field>
absl::Status CopyField(const onnx::TensorProto& proto, const Field& field,
                       Tensor& tensor, std::string_view field_name) {
  if (static_cast<int64_t>(field.size()) != tensor.NumElements()) {
    return Invalid(proto, StrCat(field_name, " holds ", field.size(),
                                 " values, shape ", tensor.shape().ToString(),
                                 " needs ", tensor.NumElements()));
  }
  T* out = tensor.as<T>();
  for (int i = 0; i < field.size(); ++i) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      // ONNX stores 16-bit floats as their bit patterns in int32_data.
      out[i] = T::FromBits(static_cast<uint16_t>(field.Get(i)));
    } else {
      out[i] = static_cast<T>(field.Get(i));
    }
  }
  return absl::OkStatus();
}

}  // namespace

int64_t DefaultOpset(const onnx::ModelProto& model) {
  for (const auto& opset : model.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      return opset.version();
  }
  return 0;
}

namespace {

// Fills `tensor` from the typed field its data type uses (ONNX keeps the
// small integer, bool and 16-bit float types in int32_data, uint32 and uint64
// in uint64_data).
absl::Status CopyTypedField(const onnx::TensorProto& proto, Tensor& tensor) {
  switch (tensor.dtype()) {
    case DType::kFloat32:
      RETURN_IF_ERROR(
          CopyField<float>(proto, proto.float_data(), tensor, "float_data"));
      break;
    case DType::kFloat64:
      RETURN_IF_ERROR(
          CopyField<double>(proto, proto.double_data(), tensor, "double_data"));
      break;
    case DType::kInt64:
      RETURN_IF_ERROR(
          CopyField<int64_t>(proto, proto.int64_data(), tensor, "int64_data"));
      break;
    case DType::kInt32:
      RETURN_IF_ERROR(
          CopyField<int32_t>(proto, proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kInt16:
      RETURN_IF_ERROR(
          CopyField<int16_t>(proto, proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kInt8:
      RETURN_IF_ERROR(
          CopyField<int8_t>(proto, proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kUInt8:
      RETURN_IF_ERROR(
          CopyField<uint8_t>(proto, proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kUInt16:
      RETURN_IF_ERROR(
          CopyField<uint16_t>(proto, proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kUInt32:
      RETURN_IF_ERROR(CopyField<uint32_t>(proto, proto.uint64_data(), tensor,
                                          "uint64_data"));
      break;
    case DType::kUInt64:
      RETURN_IF_ERROR(CopyField<uint64_t>(proto, proto.uint64_data(), tensor,
                                          "uint64_data"));
      break;
    case DType::kBool:
      RETURN_IF_ERROR(
          CopyField<bool>(proto, proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kFloat16:
      RETURN_IF_ERROR(
          CopyField<Float16>(proto, proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kBFloat16:
      RETURN_IF_ERROR(
          CopyField<BFloat16>(proto, proto.int32_data(), tensor, "int32_data"));
      break;
    case DType::kUndefined:
      break;
  }
  return absl::OkStatus();
}

// The bytes of a tensor stored outside the model file. The entries are
// untrusted: the location may not leave the model's folder, and offset and
// length must lie inside the file and give exactly the tensor's size.
absl::Status ReadExternalData(const onnx::TensorProto& proto,
                              const std::string& dir, size_t bytes,
                              Tensor& tensor) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto& entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      int64_t value = 0;
      const char* end = entry.value().data() + entry.value().size();
      const auto [ptr, ec] = std::from_chars(entry.value().data(), end, value);
      if (ec != std::errc() || ptr != end || value < 0) {
        return Invalid(
            proto, StrCat("external data ", entry.key(), " '", entry.value(),
                          "' is not a non-negative integer"));
      }
      (entry.key() == "offset" ? offset : length) = value;
    }
  }
  if (dir.empty()) {
    return absl::UnimplementedError(StrCat(
        "tensor '", proto.name(), "' is stored as external data ('", location,
        "'): convert the model from its .onnx file, next to that data"));
  }
  const std::filesystem::path relative(location);
  if (location.empty() || relative.is_absolute() ||
      std::any_of(
          relative.begin(), relative.end(),
          [](const std::filesystem::path& part) { return part == ".."; })) {
    return Invalid(proto, StrCat("external data location '", location,
                                 "' must be a relative path inside the "
                                 "model's folder"));
  }
  const std::filesystem::path path = std::filesystem::path(dir) / relative;
  std::error_code error;
  const uintmax_t file_size = std::filesystem::file_size(path, error);
  if (error) {
    return absl::NotFoundError(StrCat("tensor '", proto.name(),
                                      "': external data file '", path.string(),
                                      "' cannot be read: ", error.message()));
  }
  if (length < 0) length = static_cast<int64_t>(bytes);
  if (static_cast<size_t>(length) != bytes) {
    return Invalid(proto, StrCat("external data length ", length, ", ",
                                 DTypeName(tensor.dtype()),
                                 tensor.shape().ToString(), " needs ", bytes));
  }
  if (static_cast<uintmax_t>(offset) > file_size ||
      file_size - static_cast<uintmax_t>(offset) < bytes) {
    return Invalid(proto, StrCat("external data [", offset, ", ",
                                 offset + length, ") lies past the end of '",
                                 path.string(), "' (", file_size, " bytes)"));
  }
  std::ifstream in(path, std::ios::binary);
  in.seekg(offset);
  if (bytes > 0 && !in.read(static_cast<char*>(tensor.data()),
                            static_cast<std::streamsize>(bytes))) {
    return absl::DataLossError(StrCat("tensor '", proto.name(),
                                      "': reading external data from '",
                                      path.string(), "' failed"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tensor> TensorFromOnnx(const onnx::TensorProto& proto) {
  return TensorFromOnnx(proto, "");
}

absl::StatusOr<Tensor> TensorFromOnnx(const onnx::TensorProto& proto,
                                      const std::string& external_data_dir) {
  std::optional<DType> dtype = FromOnnxDataType(proto.data_type());
  if (!dtype) {
    return absl::UnimplementedError(
        StrCat("tensor '", proto.name(), "': ONNX data type ",
               proto.data_type(), " is not supported"));
  }
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  absl::StatusOr<int64_t> count = CheckedNumElements(dims);
  if (!count.ok()) return Invalid(proto, ToStd(count.status().message()));
  const size_t bytes = static_cast<size_t>(*count) * DTypeSize(*dtype);
  if (proto.data_location() == onnx::TensorProto::EXTERNAL ||
      proto.external_data_size() > 0) {
    Tensor tensor(*dtype, Shape(std::move(dims)));
    RETURN_IF_ERROR(ReadExternalData(proto, external_data_dir, bytes, tensor));
    return tensor;
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != bytes) {
      return Invalid(proto, StrCat("raw_data has ", proto.raw_data().size(),
                                   " bytes, ", DTypeName(*dtype),
                                   Shape(dims).ToString(), " needs ", bytes));
    }
    Tensor tensor(*dtype, Shape(std::move(dims)));
    if (bytes > 0) std::memcpy(tensor.data(), proto.raw_data().data(), bytes);
    return tensor;
  }
  // Typed fields: refuse to allocate more than the field can possibly fill.
  const int64_t available = proto.float_data_size() + proto.int32_data_size() +
                            proto.int64_data_size() + proto.double_data_size() +
                            proto.uint64_data_size();
  if (*count > available) {
    return Invalid(proto, StrCat("holds ", available, " values, shape ",
                                 Shape(dims).ToString(), " needs ", *count));
  }
  Tensor tensor(*dtype, Shape(std::move(dims)));
  RETURN_IF_ERROR(CopyTypedField(proto, tensor));
  return tensor;
}

void TensorToOnnx(const Tensor& tensor, onnx::TensorProto* proto) {
  proto->set_data_type(ToOnnxDataType(tensor.dtype()));
  proto->clear_dims();
  for (int64_t dim : tensor.shape().dims()) proto->add_dims(dim);
  proto->set_raw_data(tensor.data(), tensor.ByteSize());
}

absl::StatusOr<Attributes> AttributesFromOnnx(const onnx::NodeProto& node,
                                              int64_t opset) {
  Attributes attrs;
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (!attr.ref_attr_name().empty()) {
      return absl::UnimplementedError(StrCat(
          "attribute '", attr.name(), "' refers to a function attribute"));
    }
    switch (attr.type()) {
      case onnx::AttributeProto::INT:
        attrs.Set(attr.name(), attr.i());
        break;
      case onnx::AttributeProto::FLOAT:
        attrs.Set(attr.name(), attr.f());
        break;
      case onnx::AttributeProto::STRING:
        attrs.Set(attr.name(), attr.s());
        break;
      case onnx::AttributeProto::INTS:
        attrs.Set(attr.name(),
                  std::vector<int64_t>(attr.ints().begin(), attr.ints().end()));
        break;
      case onnx::AttributeProto::FLOATS:
        attrs.Set(attr.name(), std::vector<float>(attr.floats().begin(),
                                                  attr.floats().end()));
        break;
      case onnx::AttributeProto::STRINGS:
        attrs.Set(attr.name(), std::vector<std::string>(attr.strings().begin(),
                                                        attr.strings().end()));
        break;
      case onnx::AttributeProto::TENSOR: {
        absl::StatusOr<Tensor> tensor = TensorFromOnnx(attr.t());
        if (!tensor.ok())
          return Annotate(tensor.status(),
                          StrCat("attribute '", attr.name(), "'"));
        attrs.Set(attr.name(),
                  std::make_shared<const Tensor>(std::move(*tensor)));
        break;
      }
      case onnx::AttributeProto::GRAPH:
        break;  // the import reads it as a subgraph
      default:
        return absl::UnimplementedError(
            StrCat("attribute '", attr.name(), "' has type ",
                   onnx::AttributeProto::AttributeType_Name(attr.type()),
                   ", which is not supported"));
    }
  }
  if (node.op_type() == "Softmax" || node.op_type() == "LogSoftmax" ||
      node.op_type() == "Hardmax" || node.op_type() == "Resize") {
    attrs.Set("onnx_opset", opset);
  }
  // RoiAlign before opset 16 has no coordinate_transformation_mode and
  // behaves as output_half_pixel (no half-pixel shift); the attribute's
  // default, half_pixel, is opset 16's. Written out so the kernel and the
  // model file say which.
  if (node.op_type() == "RoiAlign" && opset < 16 &&
      !attrs.Has("coordinate_transformation_mode")) {
    attrs.Set("coordinate_transformation_mode",
              std::string("output_half_pixel"));
  }
  return attrs;
}

absl::StatusOr<const onnx::TypeProto_Tensor*> OnnxTensorType(
    const onnx::ValueInfoProto& value, DType* dtype) {
  if (!value.type().has_tensor_type()) {
    return absl::UnimplementedError(
        StrCat("'", value.name(), "' is not a tensor"));
  }
  const auto& tensor_type = value.type().tensor_type();
  std::optional<DType> known = FromOnnxDataType(tensor_type.elem_type());
  if (!known) {
    return absl::UnimplementedError(
        StrCat("'", value.name(), "' has ONNX data type ",
               tensor_type.elem_type(), ", which is not supported"));
  }
  *dtype = *known;
  return &tensor_type;
}

absl::StatusOr<TensorInfo> TensorInfoFromOnnx(
    const onnx::ValueInfoProto& value) {
  DType dtype = DType::kUndefined;
  ASSIGN_OR_RETURN(const onnx::TypeProto_Tensor* type,
                   OnnxTensorType(value, &dtype));
  const onnx::TypeProto_Tensor& tensor_type = *type;
  if (!tensor_type.has_shape()) {
    return absl::UnimplementedError(
        StrCat("'", value.name(), "' has no static shape"));
  }
  std::vector<int64_t> dims;
  for (const auto& dim : tensor_type.shape().dim()) {
    if (!dim.has_dim_value()) {
      return absl::UnimplementedError(
          StrCat("'", value.name(), "' has a symbolic dimension '",
                 dim.dim_param(), "'; only static shapes are supported"));
    }
    dims.push_back(dim.dim_value());
  }
  absl::StatusOr<int64_t> count = CheckedNumElements(dims);
  if (!count.ok())
    return Annotate(count.status(), StrCat("'", value.name(), "'"));
  return TensorInfo{dtype, Shape(std::move(dims))};
}

}  // namespace acldump
