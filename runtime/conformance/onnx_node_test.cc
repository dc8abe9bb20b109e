// Runs every ONNX backend node test (Debian's libonnx-testdata) whose operators
// are all in the built-in registry, and compares with the reference outputs.
// Cases that knowingly fail are listed in unsupported.txt with a reason; a
// listed case that passes is an error too, so the list stays honest.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/half.h"
#include "kernels/ops.h"
#include "runtime/compiled_model.h"
#include "runtime/graph.h"
#include "runtime/onnx_import.h"
#include "runtime/onnx_tensors.h"

namespace acldump {
namespace {

namespace fs = std::filesystem;

constexpr char kNodeTestRoot[] = "/usr/share/libonnx-testdata/data/node";

absl::StatusOr<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat("cannot open ", path.string()));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

absl::StatusOr<Tensor> ReadTensor(const fs::path& path) {
  ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(
        StrCat(path.filename().string(), " is not a TensorProto"));
  }
  return TensorFromOnnx(proto);
}

// ONNX 1.12's test data stores bfloat16 values as uint16 tensors: read as
// the value the graph declares, bit for bit.
absl::StatusOr<Tensor> ReadDeclaredTensor(const fs::path& path,
                                          const onnx::ValueInfoProto& value) {
  ASSIGN_OR_RETURN(Tensor t, ReadTensor(path));
  if (value.type().tensor_type().elem_type() == onnx::TensorProto::BFLOAT16 &&
      t.dtype() == DType::kUInt16) {
    Tensor as_declared(DType::kBFloat16, t.shape());
    if (t.ByteSize() > 0)
      std::memcpy(as_declared.data(), t.data(), t.ByteSize());
    return as_declared;
  }
  return t;
}

const onnx::ValueInfoProto& InputInfo(const onnx::GraphProto& graph,
                                      const std::string& name) {
  for (const auto& input : graph.input()) {
    if (input.name() == name) return input;
  }
  return onnx::ValueInfoProto::default_instance();
}

double ToDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat32:
      return t.as<float>()[i];
    case DType::kFloat16:
      return static_cast<float>(t.as<Float16>()[i]);
    case DType::kBFloat16:
      return static_cast<float>(t.as<BFloat16>()[i]);
    case DType::kFloat64:
      return t.as<double>()[i];
    case DType::kInt8:
      return t.as<int8_t>()[i];
    case DType::kInt16:
      return t.as<int16_t>()[i];
    case DType::kInt32:
      return t.as<int32_t>()[i];
    case DType::kInt64:
      return static_cast<double>(t.as<int64_t>()[i]);
    case DType::kUInt8:
      return t.as<uint8_t>()[i];
    case DType::kUInt16:
      return t.as<uint16_t>()[i];
    case DType::kUInt32:
      return t.as<uint32_t>()[i];
    case DType::kUInt64:
      return static_cast<double>(t.as<uint64_t>()[i]);
    case DType::kBool:
      return t.as<bool>()[i];
    case DType::kUndefined:
      break;
  }
  return 0;
}

absl::Status Compare(const Tensor& got, const Tensor& expected,
                     std::string_view name) {
  if (got.dtype() != expected.dtype() || got.shape() != expected.shape()) {
    return absl::InternalError(StrCat("output '", name, "': got ",
                                      got.info().ToString(), ", expected ",
                                      expected.info().ToString()));
  }
  double rtol = 0, atol = 0;
  if (got.dtype() == DType::kFloat32 || got.dtype() == DType::kFloat64) {
    rtol = 1e-3;
    atol = 1e-5;
  } else if (got.dtype() == DType::kFloat16 ||
             got.dtype() == DType::kBFloat16) {
    rtol = 1e-2;
    atol = 1e-3;
  }
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const double g = ToDouble(got, i), e = ToDouble(expected, i);
    if (std::isnan(e) && std::isnan(g)) continue;
    if (std::isinf(e) && g == e) continue;
    if (!(std::abs(g - e) <= atol + rtol * std::abs(e))) {
      return absl::InternalError(StrCat("output '", name, "' element ", i,
                                        ": got ", g, ", expected ", e));
    }
  }
  return absl::OkStatus();
}

// Executes the graph node by node, every value known (the test inputs are
// given).
absl::Status RunCase(const fs::path& dir, const onnx::ModelProto& model) {
  const int64_t opset = DefaultOpset(model);
  const onnx::GraphProto& graph = model.graph();
  std::set<std::string> initializer_names;
  std::map<std::string, Tensor> values;
  for (const auto& init : graph.initializer()) {
    ASSIGN_OR_RETURN(values[init.name()], TensorFromOnnx(init));
    initializer_names.insert(init.name());
  }
  std::vector<std::string> input_names;
  for (const auto& input : graph.input()) {
    if (!initializer_names.count(input.name()))
      input_names.push_back(input.name());
  }
  int data_sets = 0;
  for (int set = 0;; ++set) {
    const fs::path data_dir = dir / StrCat("test_data_set_", set);
    if (!fs::exists(data_dir)) break;
    ++data_sets;
    std::map<std::string, Tensor> env;
    for (auto& [name, tensor] : values) env[name] = tensor.Clone();
    for (size_t i = 0; i < input_names.size(); ++i) {
      const fs::path file = data_dir / StrCat("input_", i, ".pb");
      if (!fs::exists(file)) continue;  // an optional input left out
      ASSIGN_OR_RETURN(
          env[input_names[i]],
          ReadDeclaredTensor(file, InputInfo(graph, input_names[i])));
    }
    for (const onnx::NodeProto& node : graph.node()) {
      ASSIGN_OR_RETURN(Attributes attrs, AttributesFromOnnx(node, opset));
      std::vector<TensorInfo> infos;
      std::vector<TensorView> views;
      for (const std::string& name : node.input()) {
        if (name.empty()) {
          infos.emplace_back();
          views.emplace_back();
          continue;
        }
        auto it = env.find(name);
        if (it == env.end()) {
          return absl::InternalError(
              StrCat("node ", node.name(), ": input '", name, "' unknown"));
        }
        infos.push_back(it->second.info());
        views.push_back(it->second.view());
      }
      std::vector<const TensorView*> constants;
      for (const TensorView& v : views)
        constants.push_back(v.present() ? &v : nullptr);
      OpContext context{node.op_type(), attrs, infos, constants,
                        static_cast<size_t>(node.output_size())};
      ASSIGN_OR_RETURN(PreparedKernel prepared, BuiltinOps().Prepare(context));
      std::vector<Tensor> outputs;
      std::vector<TensorView> output_views;
      for (const TensorInfo& info : prepared.outputs) {
        outputs.emplace_back(info.dtype, info.shape);
        output_views.push_back(outputs.back().view());
      }
      AlignedBuffer workspace(prepared.kernel->WorkspaceBytes());
      RETURN_IF_ERROR(prepared.kernel->Run(
          views, output_views, {workspace.data(), workspace.size()}));
      for (int i = 0; i < node.output_size(); ++i) {
        if (!node.output(i).empty())
          env[node.output(i)] = std::move(outputs[i]);
      }
    }
    for (int i = 0; i < graph.output_size(); ++i) {
      const fs::path file = data_dir / StrCat("output_", i, ".pb");
      ASSIGN_OR_RETURN(Tensor expected,
                       ReadDeclaredTensor(file, graph.output(i)));
      auto it = env.find(graph.output(i).name());
      if (it == env.end()) {
        return absl::InternalError(
            StrCat("output '", graph.output(i).name(), "' not produced"));
      }
      RETURN_IF_ERROR(Compare(it->second, expected, graph.output(i).name()));
    }
  }
  if (data_sets == 0) return absl::NotFoundError("no test_data_set_0");
  return absl::OkStatus();
}

// Imports the case as a user's model is imported and runs the compiled model:
// the path control flow (If, Loop, Scan) and values whose shapes are known
// only while the model runs take.
absl::Status RunCaseCompiled(const fs::path& dir,
                             const onnx::ModelProto& model) {
  // Declared input shapes may be symbolic: pinned to the test data's.
  ImportOptions options;
  int data_sets = 0;
  for (int set = 0;; ++set) {
    const fs::path data_dir = dir / StrCat("test_data_set_", set);
    if (!fs::exists(data_dir)) break;
    ++data_sets;
    std::vector<Tensor> inputs;
    std::vector<std::string> input_names;
    {
      std::set<std::string> initializer_names;
      for (const auto& init : model.graph().initializer())
        initializer_names.insert(init.name());
      for (const auto& input : model.graph().input()) {
        if (!initializer_names.count(input.name()))
          input_names.push_back(input.name());
      }
    }
    options.input_shapes.clear();
    for (size_t i = 0; i < input_names.size(); ++i) {
      const fs::path file = data_dir / StrCat("input_", i, ".pb");
      if (!fs::exists(file)) {
        return absl::UnimplementedError("an optional graph input left out");
      }
      ASSIGN_OR_RETURN(
          Tensor t,
          ReadDeclaredTensor(file, InputInfo(model.graph(), input_names[i])));
      options.input_shapes[input_names[i]] = t.shape().dims();
      inputs.push_back(std::move(t));
    }
    ASSIGN_OR_RETURN(Graph graph, ImportOnnx(model, options));
    std::vector<Tensor> expected;
    for (int i = 0; i < model.graph().output_size(); ++i) {
      ASSIGN_OR_RETURN(
          Tensor t, ReadDeclaredTensor(data_dir / StrCat("output_", i, ".pb"),
                                       model.graph().output(i)));
      expected.push_back(std::move(t));
    }
    // The compiled model checks computed outputs against the declaration;
    // the test data says what they are.
    for (size_t i = 0; i < graph.outputs.size() && i < expected.size(); ++i) {
      if (graph.outputs[i].infer_shape) {
        graph.outputs[i].info.shape = expected[i].shape();
        graph.outputs[i].infer_shape = false;
      }
    }
    ASSIGN_OR_RETURN(std::unique_ptr<CompiledModel> compiled,
                     CompiledModel::Compile(std::move(graph), BuiltinOps()));
    std::vector<HostBuffer> in;
    for (const Tensor& t : inputs) in.push_back({t.data(), t.ByteSize()});
    std::vector<Tensor> outputs;
    std::vector<MutableHostBuffer> out;
    for (const Tensor& e : expected) outputs.emplace_back(e.dtype(), e.shape());
    for (Tensor& t : outputs) out.push_back({t.data(), t.ByteSize()});
    RETURN_IF_ERROR(compiled->Execute(in, out));
    const std::vector<TensorInfo> computed = compiled->CurrentOutputInfos();
    for (size_t i = 0; i < expected.size(); ++i) {
      if (computed[i] != expected[i].info()) {
        return absl::InvalidArgumentError(
            StrCat(model.graph().output(i).name(), ": computed ",
                   computed[i].ToString(), ", expected ",
                   expected[i].info().ToString()));
      }
      RETURN_IF_ERROR(
          Compare(outputs[i], expected[i], model.graph().output(i).name()));
    }
  }
  if (data_sets == 0) return absl::NotFoundError("no test_data_set_0");
  return absl::OkStatus();
}

// Whether a node (and the nodes of its subgraphs) uses only supported ops;
// collects the others.
bool Supported(const onnx::NodeProto& node, std::set<std::string>& missing,
               bool& control_flow) {
  // The training optimizers (Momentum, Adagrad, Adam) live in their own
  // domain; the runtime knows them by type.
  bool supported = (node.domain().empty() || node.domain() == "ai.onnx" ||
                    node.domain() == "ai.onnx.preview.training") &&
                   (BuiltinOps().Find(node.op_type()) != nullptr ||
                    IsControlFlowOp(node.op_type()));
  if (!supported) missing.insert(node.op_type());
  if (IsControlFlowOp(node.op_type())) control_flow = true;
  for (const auto& attr : node.attribute()) {
    if (attr.type() != onnx::AttributeProto::GRAPH) continue;
    for (const auto& inner : attr.g().node()) {
      supported &= Supported(inner, missing, control_flow);
    }
  }
  return supported;
}

std::optional<std::map<std::string, std::string>> ReadUnsupportedList() {
  std::map<std::string, std::string> list;
  std::ifstream in("runtime/conformance/unsupported.txt");
  if (!in) return std::nullopt;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find_first_of(" \t");
    const std::string name = line.substr(0, space);
    std::string reason = space == std::string::npos ? "" : line.substr(space);
    reason.erase(0, reason.find_first_not_of(" \t"));
    list[name] = reason;
  }
  return list;
}

TEST(OnnxNodeTest, EverySupportedCasePasses) {
  ASSERT_TRUE(fs::exists(kNodeTestRoot))
      << kNodeTestRoot
      << " is missing: install libonnx-testdata (./bazelw does)";
  const auto unsupported_list = ReadUnsupportedList();
  ASSERT_TRUE(unsupported_list.has_value())
      << "runtime/conformance/unsupported.txt not found";
  const std::map<std::string, std::string>& unsupported = *unsupported_list;
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(kNodeTestRoot))
    dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  int passed = 0, failed = 0, skipped = 0, out_of_scope = 0;
  std::set<std::string> seen;
  // Operators outside the supported set, by how many cases use each.
  std::map<std::string, int> cases_needing;
  for (const fs::path& dir : dirs) {
    const std::string name = dir.filename().string();
    absl::StatusOr<std::string> bytes = ReadFile(dir / "model.onnx");
    onnx::ModelProto model;
    if (!bytes.ok() || !model.ParseFromString(*bytes)) {
      ++out_of_scope;
      continue;
    }
    bool in_scope = model.graph().node_size() > 0;
    bool control_flow = false;
    std::set<std::string> missing_here;
    for (const auto& node : model.graph().node()) {
      in_scope &= Supported(node, missing_here, control_flow);
    }
    if (!in_scope) {
      ++out_of_scope;
      for (const std::string& op : missing_here) ++cases_needing[op];
      continue;
    }
    seen.insert(name);
    const absl::Status status =
        control_flow ? RunCaseCompiled(dir, model) : RunCase(dir, model);
    const auto listed = unsupported.find(name);
    if (listed != unsupported.end()) {
      if (status.ok()) {
        ++failed;
        ADD_FAILURE() << name
                      << " passes but is listed in unsupported.txt: remove it";
      } else {
        ++skipped;
      }
      continue;
    }
    if (status.ok()) {
      ++passed;
    } else {
      ++failed;
      ADD_FAILURE() << name << ": " << status;
    }
  }
  for (const auto& [name, reason] : unsupported) {
    EXPECT_TRUE(seen.count(name))
        << name << " is listed in unsupported.txt but is not an "
        << "in-scope test case: remove it";
    EXPECT_FALSE(reason.empty()) << name << " is listed without a reason";
  }
  std::printf(
      "onnx node tests: %d passed, %d failed, %d skipped (%d cases use ops "
      "outside the "
      "supported set)\n",
      passed, failed, skipped, out_of_scope);
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [op, count] : cases_needing)
    by_count.emplace_back(-count, op);
  std::sort(by_count.begin(), by_count.end());
  std::printf("operators outside the supported set, by cases using each:\n");
  for (const auto& [count, op] : by_count)
    std::printf("  %4d %s\n", -count, op.c_str());
  EXPECT_GE(passed, 881);
}

}  // namespace
}  // namespace acldump
