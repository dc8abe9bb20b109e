#include "tools/device/device_graph.h"

#include <charconv>
#include <optional>
#include <set>

#include "base/file_reader.h"
#include "base/strings.h"
#include "dump/format/dump_names.h"
#include "nlohmann/json.hpp"

namespace acldump::tools {
namespace {

using Json = nlohmann::json;

// A field that is not what the converter writes: the path says where.
struct BadField {
  std::string path, reason;
};

const Json* Member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(std::string(key));
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

const Json& ArrayAt(const Json& object, std::string_view key,
                    const std::string& path) {
  static const Json kEmpty = Json::array();
  const Json* member = Member(object, key);
  if (member == nullptr) return kEmpty;
  if (!member->is_array()) {
    throw BadField{StrCat(path, ".", key), "is not an array"};
  }
  return *member;
}

std::string StringAt(const Json& object, std::string_view key,
                     const std::string& path) {
  const Json* member = Member(object, key);
  if (member == nullptr) return "";
  if (!member->is_string()) {
    throw BadField{StrCat(path, ".", key), "is not a string"};
  }
  return member->get<std::string>();
}

std::vector<int64_t> IntList(const Json& list, const std::string& path) {
  std::vector<int64_t> values;
  const Json* ints = Member(list, "i");
  if (ints == nullptr) return values;
  if (!ints->is_array()) throw BadField{path + ".i", "is not an array"};
  for (const Json& v : *ints) {
    if (!v.is_number_integer()) {
      throw BadField{path + ".i", "holds a value that is not an integer"};
    }
    values.push_back(v.get<int64_t>());
  }
  return values;
}

// The converter's attribute list: [{"key": k, "value": {"s"|"i"|"b"|"list"}}].
class Attributes {
 public:
  Attributes(const Json& object, const std::string& path) : path_(path) {
    const Json& attrs = ArrayAt(object, "attr", path);
    for (size_t i = 0; i < attrs.size(); ++i) {
      const Json& a = attrs[i];
      const std::string at = StrCat(path, ".attr[", i, "]");
      const std::string key = StringAt(a, "key", at);
      const Json* value = Member(a, "value");
      if (!key.empty() && value != nullptr) values_[key] = {value, at};
    }
  }

  std::string String(std::string_view key) const {
    auto it = values_.find(std::string(key));
    if (it == values_.end()) return "";
    return StringAt(*it->second.first, "s", it->second.second + ".value");
  }
  std::optional<int64_t> Int(std::string_view key) const {
    auto it = values_.find(std::string(key));
    if (it == values_.end()) return std::nullopt;
    const Json* i = Member(*it->second.first, "i");
    if (i == nullptr) return std::nullopt;
    if (!i->is_number_integer()) {
      throw BadField{it->second.second + ".value.i", "is not an integer"};
    }
    return i->get<int64_t>();
  }
  std::vector<int64_t> Ints(std::string_view key) const {
    auto it = values_.find(std::string(key));
    if (it == values_.end()) return {};
    const Json* list = Member(*it->second.first, "list");
    if (list == nullptr) return {};
    return IntList(*list, it->second.second + ".value.list");
  }
  std::vector<std::string> Strings(std::string_view key) const {
    std::vector<std::string> values;
    auto it = values_.find(std::string(key));
    if (it == values_.end()) return values;
    const Json* list = Member(*it->second.first, "list");
    if (list == nullptr) return values;
    const std::string at = it->second.second + ".value.list.s";
    const Json* strings = Member(*list, "s");
    if (strings == nullptr) return values;
    if (!strings->is_array()) throw BadField{at, "is not an array"};
    for (const Json& s : *strings) {
      if (!s.is_string()) throw BadField{at, "holds a value that is not text"};
      values.push_back(s.get<std::string>());
    }
    return values;
  }

 private:
  std::string path_;
  std::map<std::string, std::pair<const Json*, std::string>> values_;
};

DeviceGraphTensor TensorOf(const Json& desc, const std::string& path) {
  DeviceGraphTensor t;
  t.dtype = StringAt(desc, "dtype", path);
  t.layout = StringAt(desc, "layout", path);
  if (const Json* shape = Member(desc, "shape")) {
    const Json* dims = Member(*shape, "dim");
    if (dims != nullptr) {
      if (!dims->is_array())
        throw BadField{path + ".shape.dim", "is not an array"};
      for (const Json& d : *dims) {
        if (!d.is_number_integer()) {
          throw BadField{path + ".shape.dim", "holds a non-integer"};
        }
        t.shape.push_back(d.get<int64_t>());
      }
    }
  }
  const Attributes attrs(desc, path);
  t.origin_format = attrs.String("origin_format");
  if (t.origin_format.empty()) {
    t.origin_format = attrs.String("_datadump_origin_format");
  }
  t.origin_shape = attrs.Ints("origin_shape");
  t.origin_name = attrs.String("_datadump_origin_name");
  if (std::optional<int64_t> index =
          attrs.Int("_datadump_origin_output_index")) {
    t.origin_output_index = *index;
  }
  return t;
}

DeviceGraphEdge EdgeOf(const std::string& text, const std::string& path) {
  const size_t colon = text.rfind(':');
  DeviceGraphEdge edge;
  if (colon == std::string::npos || colon == 0) {
    throw BadField{path, StrCat("'", text, "' is not 'name:index'")};
  }
  edge.op = text.substr(0, colon);
  const std::string_view digits = std::string_view(text).substr(colon + 1);
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, edge.index);
  if (ec != std::errc() || ptr != end || digits.empty()) {
    throw BadField{path, StrCat("'", text, "' is not 'name:index'")};
  }
  return edge;
}

DeviceGraphOp OpOf(const Json& op, const std::string& path) {
  if (!op.is_object()) throw BadField{path, "is not an object"};
  DeviceGraphOp result;
  result.name = StringAt(op, "name", path);
  if (result.name.empty()) throw BadField{path + ".name", "is missing"};
  result.type = StringAt(op, "type", path);
  const Json& inputs = ArrayAt(op, "input", path);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string at = StrCat(path, ".input[", i, "]");
    if (!inputs[i].is_string()) throw BadField{at, "is not a string"};
    const std::string text = inputs[i].get<std::string>();
    if (text.empty()) continue;  // an unconnected (optional) input
    DeviceGraphEdge edge = EdgeOf(text, at);
    if (edge.index < 0) {
      ++result.control_inputs;
    } else {
      result.inputs.push_back(std::move(edge));
    }
  }
  const Attributes attrs(op, path);
  result.original_names = attrs.Strings("_datadump_original_op_names");
  if (std::optional<int64_t> group = attrs.Int("_L1_fusion_sub_graph_no")) {
    result.l1_fusion_group = *group;
  }
  const Json& in_desc = ArrayAt(op, "input_desc", path);
  for (size_t i = 0; i < in_desc.size(); ++i) {
    result.input_desc.push_back(
        TensorOf(in_desc[i], StrCat(path, ".input_desc[", i, "]")));
  }
  const Json& out_desc = ArrayAt(op, "output_desc", path);
  for (size_t i = 0; i < out_desc.size(); ++i) {
    result.output_desc.push_back(
        TensorOf(out_desc[i], StrCat(path, ".output_desc[", i, "]")));
  }
  return result;
}

}  // namespace

const DeviceGraphOp* DeviceGraph::Find(std::string_view name) const {
  auto it = by_name.find(name);
  if (it != by_name.end()) return &ops[it->second];
  // Dump file names escape the name; the graph keeps it as is.
  for (const DeviceGraphOp& op : ops) {
    if (dump::EscapeNamePart(op.name) == name) return &op;
  }
  return nullptr;
}

absl::StatusOr<DeviceGraph> ParseDeviceGraph(std::string_view json,
                                             std::string_view source) {
  Json root;
  try {
    root = Json::parse(json.begin(), json.end());
  } catch (const Json::exception& e) {
    // Not only parse_error: a number too large for a double is out_of_range.
    return absl::InvalidArgumentError(
        StrCat(source, ": not JSON (", e.what(),
               "); give the file `atc --mode=1 --om=model.om "
               "--json=model.json` writes"));
  }
  DeviceGraph graph;
  try {
    if (!root.is_object()) throw BadField{"(top level)", "is not an object"};
    graph.name = StringAt(root, "name", "");
    const Json& graphs = ArrayAt(root, "graph", "");
    if (graphs.empty()) {
      throw BadField{"graph",
                     "is missing or empty: this is not a converter "
                     "graph file"};
    }
    for (size_t g = 0; g < graphs.size(); ++g) {
      const std::string gpath = StrCat("graph[", g, "]");
      const Json& ops = ArrayAt(graphs[g], "op", gpath);
      for (size_t i = 0; i < ops.size(); ++i) {
        DeviceGraphOp op = OpOf(ops[i], StrCat(gpath, ".op[", i, "]"));
        if (graph.by_name.count(op.name) == 0) {
          graph.by_name.emplace(op.name, graph.ops.size());
        }
        graph.ops.push_back(std::move(op));
      }
    }
  } catch (const BadField& bad) {
    return absl::InvalidArgumentError(StrCat(
        source, ": ", bad.path.empty() ? "" : bad.path + " ", bad.reason));
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(StrCat(source, ": ", e.what()));
  }
  return graph;
}

absl::StatusOr<DeviceGraph> LoadDeviceGraph(const std::string& path) {
  absl::StatusOr<std::string> text =
      ReadRegularFile(path, kMaxDeviceGraphBytes, "converter graph file");
  if (!text.ok()) return text.status();
  return ParseDeviceGraph(*text, StrCat("converter graph file '", path, "'"));
}

bool IsLayoutOrCastOp(std::string_view type) {
  return type == "Cast" || type == "TransData" || type == "TransDataRNN";
}

DeviceGraphEdge OriginalInput(const DeviceGraph& graph, const DeviceGraphOp& op,
                              size_t input) {
  if (input >= op.inputs.size()) return {};
  DeviceGraphEdge edge = op.inputs[input];
  std::set<std::string> seen;  // a malformed graph may loop
  while (seen.insert(edge.op).second) {
    const DeviceGraphOp* producer = graph.Find(edge.op);
    if (producer == nullptr) return {};
    if (producer->type == "Data" || producer->type == "RefData") {
      return {producer->name, 0};
    }
    // A Cast's or TransData's own origin name is not to be trusted (the
    // converter gives a TransData before a Conv the Conv's name): the
    // original tensor is the one it converts.
    const bool converts =
        IsLayoutOrCastOp(producer->type) && producer->original_names.empty();
    if (!converts && edge.index >= 0 &&
        static_cast<size_t>(edge.index) < producer->output_desc.size()) {
      const DeviceGraphTensor& out = producer->output_desc[edge.index];
      if (!out.origin_name.empty()) {
        return {out.origin_name, std::max<int64_t>(out.origin_output_index, 0)};
      }
    }
    if (!converts || producer->inputs.empty()) return {};
    edge = producer->inputs[0];
  }
  return {};
}

}  // namespace acldump::tools
