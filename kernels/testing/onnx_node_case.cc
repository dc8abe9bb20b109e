#include "kernels/testing/onnx_node_case.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/strings.h"

namespace acldump::testing {
namespace {

namespace fs = std::filesystem;

// One field of a protobuf message: its number, wire type and payload.
struct Field {
  int number = 0;
  int wire_type = 0;
  uint64_t varint = 0;     // wire types 0, 1 and 5 (the raw bits)
  std::string_view bytes;  // wire type 2
};

bool ReadVarint(std::string_view& in, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
    value |= uint64_t{byte & 0x7fu} << shift;
    if (byte < 0x80) return true;
  }
  return false;
}

absl::StatusOr<std::vector<Field>> ParseMessage(std::string_view in,
                                                std::string_view what) {
  std::vector<Field> fields;
  uint64_t key;
  while (!in.empty()) {
    if (!ReadVarint(in, key)) break;
    Field field;
    field.number = static_cast<int>(key >> 3);
    field.wire_type = static_cast<int>(key & 7);
    bool ok = true;
    if (field.wire_type == 0) {
      ok = ReadVarint(in, field.varint);
    } else if (field.wire_type == 1 || field.wire_type == 5) {
      const size_t size = field.wire_type == 1 ? 8 : 4;
      ok = in.size() >= size;
      if (ok) {
        std::memcpy(&field.varint, in.data(), size);
        in.remove_prefix(size);
      }
    } else if (field.wire_type == 2) {
      uint64_t size = 0;
      ok = ReadVarint(in, size) && size <= in.size();
      if (ok) {
        field.bytes = in.substr(0, size);
        in.remove_prefix(size);
      }
    } else {
      ok = false;
    }
    if (!ok) {
      return absl::DataLossError(StrCat(what, ": malformed protobuf"));
    }
    fields.push_back(field);
  }
  return fields;
}

// Repeated varint fields, packed or not.
void AppendVarints(const Field& field, std::vector<int64_t>& out) {
  if (field.wire_type == 0) {
    out.push_back(static_cast<int64_t>(field.varint));
    return;
  }
  std::string_view packed = field.bytes;
  uint64_t v;
  while (!packed.empty() && ReadVarint(packed, v)) {
    out.push_back(static_cast<int64_t>(v));
  }
}

// Repeated fixed-size fields (float: 4 bytes, double: 8), packed or not.
template <typename T>
void AppendFixed(const Field& field, std::vector<T>& out) {
  if (field.wire_type != 2) {
    T v;
    std::memcpy(&v, &field.varint, sizeof(T));
    out.push_back(v);
    return;
  }
  const size_t n = field.bytes.size() / sizeof(T);
  const size_t old = out.size();
  out.resize(old + n);
  std::memcpy(out.data() + old, field.bytes.data(), n * sizeof(T));
}

absl::StatusOr<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat(path.string(), ": cannot open"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

int64_t IndexOf(const std::vector<std::string>& names,
                const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : it - names.begin();
}

// AttributeProto: name (1), f (2), i (3), s (4), floats (7), ints (8),
// strings (9), type (20).
absl::Status ReadAttribute(std::string_view bytes, std::string_view what,
                           Attributes& attrs) {
  auto fields = ParseMessage(bytes, what);
  if (!fields.ok()) return fields.status();
  std::string name;
  int64_t type = 0, i = 0;
  float f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::string> strings;
  for (const Field& a : *fields) {
    if (a.number == 1) name = std::string(a.bytes);
    if (a.number == 2) std::memcpy(&f, &a.varint, sizeof(f));
    if (a.number == 3) i = static_cast<int64_t>(a.varint);
    if (a.number == 4) s = std::string(a.bytes);
    if (a.number == 7) AppendFixed(a, floats);
    if (a.number == 8) AppendVarints(a, ints);
    if (a.number == 9) strings.emplace_back(a.bytes);
    if (a.number == 20) type = static_cast<int64_t>(a.varint);
  }
  switch (type) {
    case 1:
      attrs.Set(name, f);
      return absl::OkStatus();
    case 2:
      attrs.Set(name, i);
      return absl::OkStatus();
    case 3:
      attrs.Set(name, s);
      return absl::OkStatus();
    case 6:
      attrs.Set(name, floats);
      return absl::OkStatus();
    case 7:
      attrs.Set(name, ints);
      return absl::OkStatus();
    case 8:
      attrs.Set(name, strings);
      return absl::OkStatus();
    default:
      return absl::UnimplementedError(
          StrCat(what, ": attribute ", name, " of type ", type));
  }
}

}  // namespace

absl::StatusOr<Tensor> ReadOnnxTensor(const fs::path& path) {
  auto bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  auto fields = ParseMessage(*bytes, path.string());
  if (!fields.ok()) return fields.status();
  std::vector<int64_t> dims, int32_data, int64_data;
  std::vector<float> float_data;
  std::vector<double> double_data;
  std::string_view raw;
  int32_t data_type = 0;
  for (const Field& f : *fields) {
    if (f.number == 1) AppendVarints(f, dims);
    if (f.number == 2) data_type = static_cast<int32_t>(f.varint);
    if (f.number == 4) AppendFixed(f, float_data);
    if (f.number == 5) AppendVarints(f, int32_data);
    if (f.number == 7) AppendVarints(f, int64_data);
    if (f.number == 9) raw = f.bytes;
    if (f.number == 10) AppendFixed(f, double_data);
  }
  const std::optional<DType> dtype = FromOnnxDataType(data_type);
  if (!dtype) {
    return absl::UnimplementedError(
        StrCat(path.string(), ": data type ", data_type));
  }
  Tensor tensor(*dtype, Shape(std::move(dims)));
  const size_t n = static_cast<size_t>(tensor.NumElements());
  const size_t esize = DTypeSize(*dtype);
  std::byte* dst = static_cast<std::byte*>(tensor.data());
  if (!raw.empty()) {
    if (raw.size() != tensor.ByteSize()) {
      return absl::DataLossError(StrCat(path.string(), ": raw_data holds ",
                                        raw.size(), " bytes, expected ",
                                        tensor.ByteSize()));
    }
    std::memcpy(dst, raw.data(), raw.size());
  } else if (*dtype == DType::kFloat32 && float_data.size() == n) {
    std::memcpy(dst, float_data.data(), tensor.ByteSize());
  } else if (*dtype == DType::kFloat64 && double_data.size() == n) {
    std::memcpy(dst, double_data.data(), tensor.ByteSize());
  } else if (*dtype == DType::kInt64 && int64_data.size() == n) {
    std::memcpy(dst, int64_data.data(), tensor.ByteSize());
  } else if (esize <= 4 && int32_data.size() == n) {
    // The narrow types (and float16 bits) live in int32_data: the low bytes
    // on this little-endian machine.
    for (size_t i = 0; i < n; ++i) {
      const int32_t v = static_cast<int32_t>(int32_data[i]);
      std::memcpy(dst + i * esize, &v, esize);
    }
  } else if (n != 0) {
    return absl::UnimplementedError(
        StrCat(path.string(), ": no data field this reader knows"));
  }
  return tensor;
}

// ModelProto.graph (7); GraphProto node (1) / input (11) / output (12);
// ValueInfoProto name (1); NodeProto input (1) / output (2) / op_type (4) /
// attribute (5) / domain (7).
absl::StatusOr<OnnxNodeCase> ReadOnnxNodeCase(const fs::path& model_path) {
  const std::string what = model_path.string();
  auto bytes = ReadFile(model_path);
  if (!bytes.ok()) return bytes.status();
  auto model = ParseMessage(*bytes, what);
  if (!model.ok()) return model.status();
  OnnxNodeCase c;
  int nodes = 0;
  for (const Field& m : *model) {
    if (m.number != 7) continue;
    auto graph = ParseMessage(m.bytes, what);
    if (!graph.ok()) return graph.status();
    for (const Field& g : *graph) {
      if (g.number == 11 || g.number == 12) {
        auto value_info = ParseMessage(g.bytes, what);
        if (!value_info.ok()) return value_info.status();
        for (const Field& v : *value_info) {
          if (v.number != 1) continue;
          (g.number == 11 ? c.graph_inputs : c.graph_outputs)
              .emplace_back(v.bytes);
        }
      }
      if (g.number != 1) continue;
      ++nodes;
      auto node = ParseMessage(g.bytes, what);
      if (!node.ok()) return node.status();
      for (const Field& n : *node) {
        if (n.number == 1) c.inputs.emplace_back(n.bytes);
        if (n.number == 2) c.outputs.emplace_back(n.bytes);
        if (n.number == 4) c.op_type = std::string(n.bytes);
        if (n.number == 7) c.domain = std::string(n.bytes);
        if (n.number == 5) {
          const absl::Status status = ReadAttribute(n.bytes, what, c.attrs);
          if (!status.ok()) return status;
        }
      }
    }
  }
  if (nodes != 1) {
    return absl::UnimplementedError(
        StrCat(what, ": ", nodes, " nodes (one expected)"));
  }
  return c;
}

absl::StatusOr<std::vector<OnnxNodeData>> ReadOnnxNodeData(
    const fs::path& dir, const OnnxNodeCase& node) {
  std::vector<OnnxNodeData> sets;
  for (int set = 0; fs::exists(dir / StrCat("test_data_set_", set)); ++set) {
    const fs::path data = dir / StrCat("test_data_set_", set);
    OnnxNodeData d;
    for (const std::string& name : node.inputs) {
      const int64_t index = IndexOf(node.graph_inputs, name);
      const fs::path file = data / StrCat("input_", index, ".pb");
      if (name.empty() || index < 0 || !fs::exists(file)) {
        d.inputs.emplace_back();
        d.present.push_back(false);
        continue;
      }
      auto tensor = ReadOnnxTensor(file);
      if (!tensor.ok()) return tensor.status();
      d.inputs.push_back(std::move(*tensor));
      d.present.push_back(true);
    }
    for (const std::string& name : node.outputs) {
      const int64_t index = IndexOf(node.graph_outputs, name);
      if (index < 0) {
        return absl::NotFoundError(
            StrCat(dir.string(), ": output ", name, " is not a graph output"));
      }
      auto tensor = ReadOnnxTensor(data / StrCat("output_", index, ".pb"));
      if (!tensor.ok()) return tensor.status();
      d.outputs.push_back(std::move(*tensor));
    }
    sets.push_back(std::move(d));
  }
  return sets;
}

std::vector<fs::path> OnnxNodeTestDirs(std::string_view prefix) {
  std::vector<fs::path> dirs;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(kOnnxNodeTestRoot, error)) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0) {
      dirs.push_back(entry.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

}  // namespace acldump::testing
