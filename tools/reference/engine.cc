#include "tools/reference/engine.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/format/dump_names.h"
#include "kernels/dtype.h"
#include "kernels/npy.h"
#include "kernels/op_registry.h"
#include "kernels/ops.h"
#include "nlohmann/json.hpp"
#include "onnx/onnx.pb.h"
#include "runtime/compiled_model.h"
#include "runtime/converter.h"
#include "runtime/model_loader.h"
#include "runtime/onnx_import.h"
#include "runtime/passes.h"
#include "tools/common/array_files.h"
#include "tools/common/cli_util.h"
#include "tools/common/output_folder.h"
#include "tools/run/run.h"

extern char** environ;

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr int64_t kOnnxFloat = 1;
constexpr int64_t kOnnxDouble = 11;
constexpr std::string_view kCastPrefix = "acldump_reference_cast_";
constexpr std::string_view kF64Suffix = "@acldump_float64";

// Runs node with onnxruntime-node: reads manifest.json (model, inputs as raw
// files), writes every output as <k>.bin and outputs.json.
constexpr std::string_view kOrtScript = R"JS('use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const ARRAYS = {float32: Float32Array, float64: Float64Array, float16: Uint16Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  bool: Uint8Array};
async function main() {
  const manifest = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const session = await ort.InferenceSession.create(manifest.model, {
    executionProviders: ['cpu'], graphOptimizationLevel: 'disabled'});
  const feeds = {};
  for (const input of manifest.inputs) {
    const bytes = fs.readFileSync(input.file);
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    feeds[input.name] = new ort.Tensor(input.type, new ARRAYS[input.type](copy), input.dims);
  }
  const results = await session.run(feeds);
  const written = [];
  session.outputNames.forEach((name, k) => {
    const t = results[name];
    if (!(t.type in ARRAYS)) { written.push({name, type: t.type}); return; }
    const file = path.join(manifest.out, `${k}.bin`);
    const data = t.data;
    fs.writeFileSync(file, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    written.push({name, type: t.type, dims: t.dims.map(Number), file});
  });
  fs.writeFileSync(path.join(manifest.out, 'outputs.json'),
                   JSON.stringify({version: ort.env.versions ? ort.env.versions.common : '',
                                   outputs: written}));
}
main().catch(e => { console.error(`onnxruntime: ${e.message}`); process.exit(1); });
)JS";

absl::Status WriteText(const std::string& path, std::string_view text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) return absl::PermissionDeniedError(StrCat("cannot write ", path));
  return absl::OkStatus();
}

// An executable on PATH, or "".
std::string FindOnPath(std::string_view name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  std::string_view rest(path);
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
    const std::string candidate = StrCat(dir.empty() ? "." : dir, "/", name);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Runs argv with extra environment variables; stderr goes to `log`.
absl::Status RunProcess(const std::vector<std::string>& argv,
                        const std::vector<std::string>& extra_env,
                        const std::string& log) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    bool replaced = false;
    for (const std::string& extra : extra_env) {
      const std::string key = extra.substr(0, extra.find('=') + 1);
      if (entry.substr(0, key.size()) == key) replaced = true;
    }
    if (!replaced) env_strings.emplace_back(entry);
  }
  for (const std::string& extra : extra_env) env_strings.push_back(extra);
  std::vector<char*> env;
  for (std::string& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> arg_ptrs;
  for (std::string& a : args) arg_ptrs.push_back(a.data());
  arg_ptrs.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0600);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0].c_str(), &actions, nullptr,
                                  arg_ptrs.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return absl::InternalError(
        StrCat("cannot start ", args[0], ": ", ErrnoText(spawned)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  absl::StatusOr<std::string> text = ReadRegularFile(log, 1 << 20, "log");
  std::string message = text.ok() ? *text : "";
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return absl::InternalError(
      StrCat(args[0], " failed",
             WIFEXITED(status) ? StrCat(" (exit ", WEXITSTATUS(status), ")")
                               : std::string(" (killed)"),
             message.empty() ? "" : ": ", message));
}

struct GraphInput {
  std::string name;
  TensorInfo info;
};

// The graph inputs' values: from .npy files (in order or name=file), the
// rest seeded random as `dump run` makes them.
absl::StatusOr<std::vector<Tensor>> LoadInputs(
    const std::vector<GraphInput>& inputs, const ReferenceOptions& options,
    std::vector<std::string>& described) {
  std::vector<std::optional<Tensor>> values(inputs.size());
  std::vector<std::string> sources(inputs.size());
  std::vector<std::string> names;
  for (const GraphInput& in : inputs) names.push_back(in.name);
  ASSIGN_OR_RETURN(std::vector<InputFile> assigned,
                   AssignInputFiles(options.inputs, names));
  for (const InputFile& input : assigned) {
    const size_t index = input.index;
    const std::string& file = input.path;
    ASSIGN_OR_RETURN(Tensor tensor, ReadArrayFile(file));
    if (tensor.info() != inputs[index].info) {
      return absl::InvalidArgumentError(StrCat(
          "input '", inputs[index].name, "' is ", inputs[index].info.ToString(),
          " but '", file, "' holds ", tensor.info().ToString()));
    }
    values[index] = std::move(tensor);
    sources[index] = StrCat("from ", DisplayPath(fs::absolute(file).string()));
  }
  std::vector<Tensor> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!values[i]) {
      Tensor tensor(inputs[i].info.dtype, inputs[i].info.shape);
      FillRandom(tensor.view(), options.seed + i);
      values[i] = std::move(tensor);
      sources[i] = StrCat("random (seed ", options.seed + i,
                          ", as `dump run "
                          "--seed ",
                          options.seed, "`)");
    }
    described.push_back(StrCat(inputs[i].name, " ", inputs[i].info.ToString(),
                               " ", sources[i]));
    out.push_back(*std::move(values[i]));
  }
  return out;
}

// Writes `tensor` (converted to `dtype` when it is float64 standing for a
// float32 value) as {out}/{name}.output.{i}.npy.
absl::Status WriteOutput(const std::string& out_dir, const std::string& name,
                         size_t index, const TensorView& view, DType dtype,
                         ReferenceSummary& summary, Json& files) {
  Tensor converted;
  TensorView to_write = view;
  if (view.dtype == DType::kFloat64 && dtype == DType::kFloat32) {
    converted = Tensor(DType::kFloat32, view.shape);
    const double* in = view.as<const double>();
    float* out = converted.as<float>();
    for (int64_t i = 0; i < view.NumElements(); ++i) {
      out[i] = static_cast<float>(in[i]);
    }
    to_write = converted.view();
  }
  const std::string file =
      StrCat(dump::EscapeNamePart(name), ".output.", index, ".npy");
  if (dump::ExceedsNameMax(file)) {
    summary.skipped.push_back(
        StrCat(name, " output ", index, ": the file name is too long"));
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(to_write));
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFolder> folder,
                   OutputFolder::Open(out_dir));
  RETURN_IF_ERROR(folder->Write(file, bytes).status());
  summary.bytes += bytes.size();
  ++summary.files;
  files.push_back({{"file", file},
                   {"op", name},
                   {"output", index},
                   {"dtype", DTypeName(to_write.dtype)},
                   {"shape", to_write.shape.dims()}});
  return absl::OkStatus();
}

// ---- the acldump-unfused engine ----

// The graph with every float32 value computed in float64 where the node's
// kernel takes float64; other nodes get float32 inputs through Casts.
class Float64Promoter {
 public:
  // `original` holds the type and shape of every value of `graph`.
  Float64Promoter(
      const Graph& graph,
      const std::map<std::string, TensorInfo, std::less<>>& original,
      const OpRegistry& registry)
      : in_(graph), original_(original), registry_(registry) {}

  absl::StatusOr<Graph> Promote(ReferenceSummary& summary) {
    out_.name = in_.name;
    out_.source_opset = in_.source_opset;
    out_.inputs = in_.inputs;
    out_.outputs = in_.outputs;
    for (const NamedTensorInfo& input : in_.inputs) {
      infos_[input.name] = input.info;
    }
    // Constant nodes become initializers: what reads them (a Reshape's
    // shape) is prepared knowing their values.
    known_ = in_.initializers;
    for (const GraphNode& node : in_.nodes) {
      if (node.op_type != "Constant" || node.outputs.size() != 1) continue;
      absl::StatusOr<std::shared_ptr<const Tensor>> value =
          node.attrs.GetTensor("value");
      if (value.ok()) known_[node.outputs[0]] = *std::move(value);
    }
    std::set<std::string> fallback_types;
    for (const GraphNode& node : in_.nodes) {
      if (node.op_type == "Constant" && node.outputs.size() == 1 &&
          known_.count(node.outputs[0])) {
        continue;
      }
      absl::StatusOr<bool> promoted = TryPromoted(node);
      if (!promoted.ok()) return promoted.status();
      if (*promoted) {
        ++summary.float64_nodes;
        continue;
      }
      fallback_types.insert(node.op_type);
      RETURN_IF_ERROR(AddOriginal(node));
    }
    for (const NamedTensorInfo& output : in_.outputs) {
      RETURN_IF_ERROR(EnsureOriginal(output.name));
    }
    summary.float32_types.assign(fallback_types.begin(), fallback_types.end());
    return std::move(out_);
  }

 private:
  bool IsFloat32(const std::string& value) const {
    auto it = original_.find(value);
    return it != original_.end() && it->second.dtype == DType::kFloat32;
  }

  static std::string F64Name(const std::string& value) {
    return StrCat(value, kF64Suffix);
  }

  const TensorView* Constant(const std::string& name) {
    auto it = out_.initializers.find(name);
    if (it == out_.initializers.end()) return nullptr;
    auto [view, added] = views_.try_emplace(name);
    if (added) view->second = it->second->view();
    return &view->second;
  }

  void AddCast(const std::string& from, const std::string& to,
               int64_t onnx_type, DType dtype) {
    GraphNode cast;
    cast.name = StrCat(kCastPrefix, casts_++);
    cast.op_type = "Cast";
    cast.inputs = {from};
    cast.outputs = {to};
    cast.attrs.Set("to", onnx_type);
    infos_[to] = TensorInfo{dtype, infos_[from].shape};
    out_.nodes.push_back(std::move(cast));
  }

  // The value under its own name, in its original type.
  absl::Status EnsureOriginal(const std::string& value) {
    if (value.empty() || infos_.count(value)) return absl::OkStatus();
    auto init = known_.find(value);
    if (init != known_.end()) {
      out_.initializers[value] = init->second;
      infos_[value] = init->second->info();
      return absl::OkStatus();
    }
    if (infos_.count(F64Name(value))) {
      AddCast(F64Name(value), value, kOnnxFloat, DType::kFloat32);
      return absl::OkStatus();
    }
    return absl::InternalError(StrCat("value '", value, "' is not produced"));
  }

  // The float64 version of a float32 value.
  absl::Status EnsureFloat64(const std::string& value) {
    const std::string name = F64Name(value);
    if (infos_.count(name)) return absl::OkStatus();
    auto init = known_.find(value);
    if (init != known_.end()) {
      const Tensor& source = *init->second;
      auto copy = std::make_shared<Tensor>(DType::kFloat64, source.shape());
      for (int64_t i = 0; i < source.NumElements(); ++i) {
        copy->as<double>()[i] = source.as<const float>()[i];
      }
      infos_[name] = copy->info();
      out_.initializers[name] = std::move(copy);
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(EnsureOriginal(value));
    AddCast(value, name, kOnnxDouble, DType::kFloat64);
    return absl::OkStatus();
  }

  absl::StatusOr<PreparedKernel> Prepare(const GraphNode& node) {
    std::vector<TensorInfo> inputs;
    std::vector<const TensorView*> constants;
    for (const std::string& name : node.inputs) {
      if (name.empty()) {
        inputs.emplace_back();
        constants.push_back(nullptr);
        continue;
      }
      inputs.push_back(infos_[name]);
      constants.push_back(Constant(name));
    }
    const OpContext context{node.op_type, node.attrs, inputs, constants,
                            node.outputs.size()};
    return registry_.Prepare(context);
  }

  // Adds `node` computing in float64; false when its kernel refuses.
  absl::StatusOr<bool> TryPromoted(const GraphNode& node) {
    // The types each output has in the original graph.
    std::vector<TensorInfo> original;
    for (const std::string& output : node.outputs) {
      auto it = original_.find(output);
      if (it == original_.end()) {
        return absl::InternalError(StrCat("no type for '", output, "'"));
      }
      original.push_back(it->second);
    }
    bool any_float = false;
    GraphNode promoted = node;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i].empty() || !IsFloat32(node.inputs[i])) continue;
      any_float = true;
      promoted.inputs[i] = F64Name(node.inputs[i]);
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      if (original[o].dtype != DType::kFloat32) continue;
      any_float = true;
      promoted.outputs[o] = F64Name(node.outputs[o]);
    }
    if (node.op_type == "Cast") {
      absl::StatusOr<int64_t> to = node.attrs.GetInt("to", 0);
      if (to.ok() && *to == kOnnxFloat) {
        promoted.attrs.Set("to", kOnnxDouble);
        any_float = true;
      }
    }
    if (!any_float) return false;
    // Float64 versions are made only when the promoted node is kept.
    std::map<std::string, TensorInfo, std::less<>> saved = infos_;
    const size_t nodes = out_.nodes.size();
    const auto initializers = out_.initializers;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (promoted.inputs[i] != node.inputs[i]) {
        RETURN_IF_ERROR(EnsureFloat64(node.inputs[i]));
      } else {
        // Kept as they are (a Reshape's shape): known constants stay known.
        RETURN_IF_ERROR(EnsureOriginal(node.inputs[i]));
      }
    }
    absl::StatusOr<PreparedKernel> prepared = Prepare(promoted);
    bool ok = prepared.ok();
    for (size_t o = 0; ok && o < node.outputs.size(); ++o) {
      const DType want = original[o].dtype == DType::kFloat32
                             ? DType::kFloat64
                             : original[o].dtype;
      ok = prepared->outputs[o].dtype == want &&
           prepared->outputs[o].shape == original[o].shape;
    }
    if (!ok) {
      infos_ = std::move(saved);
      out_.nodes.resize(nodes);
      out_.initializers = initializers;
      views_.clear();
      return false;
    }
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      infos_[promoted.outputs[o]] = prepared->outputs[o];
    }
    out_.nodes.push_back(std::move(promoted));
    return true;
  }

  absl::Status AddOriginal(const GraphNode& node) {
    for (const std::string& input : node.inputs) {
      RETURN_IF_ERROR(EnsureOriginal(input));
    }
    ASSIGN_OR_RETURN(PreparedKernel prepared, Prepare(node));
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      infos_[node.outputs[o]] = prepared.outputs[o];
    }
    out_.nodes.push_back(node);
    return absl::OkStatus();
  }

  const Graph& in_;
  const std::map<std::string, TensorInfo, std::less<>>& original_;
  const OpRegistry& registry_;
  Graph out_;
  // Initializers and Constant nodes' values of in_.
  std::map<std::string, std::shared_ptr<const Tensor>> known_;
  std::map<std::string, TensorInfo, std::less<>> infos_;  // values of out_
  std::map<std::string, TensorView> views_;
  size_t casts_ = 0;
};

// Copies every step's outputs after it ran.
class CaptureObserver final : public ExecutionObserver {
 public:
  bool BeginIteration(uint64_t) override { return true; }
  void AfterNode(const NodeEvent& event) override {
    std::vector<Tensor> outputs;
    for (const TensorView& view : event.outputs) {
      Tensor copy(view.dtype, view.shape);
      if (view.ByteSize() > 0) {
        std::memcpy(copy.data(), view.data, view.ByteSize());
      }
      outputs.push_back(std::move(copy));
    }
    captured.emplace_back(event.step.name, std::move(outputs));
  }
  std::vector<std::pair<std::string, std::vector<Tensor>>> captured;
};

absl::Status RunUnfused(const ReferenceOptions& options,
                        ReferenceSummary& summary, Json& manifest,
                        Json& files) {
  PassOptions passes = PassOptions::Unfused();
  passes.mark_no_task = false;
  ImportOptions import;
  if (!options.input_shape.empty()) {
    ASSIGN_OR_RETURN(import.input_shapes,
                     ParseInputShapes(options.input_shape));
  }
  ASSIGN_OR_RETURN(Graph graph, ConvertOnnxFile(options.model, passes, import));
  // Every value's type in the model as converted.
  ASSIGN_OR_RETURN(auto value_infos, InferValueInfos(graph, BuiltinOps()));
  std::vector<GraphInput> inputs;
  for (const NamedTensorInfo& in : graph.inputs) {
    inputs.push_back({in.name, in.info});
  }
  ASSIGN_OR_RETURN(std::vector<Tensor> values,
                   LoadInputs(inputs, options, summary.inputs));
  std::map<std::string, std::vector<std::string>> outputs_of;
  for (const GraphNode& node : graph.nodes)
    outputs_of[node.name] = node.outputs;
  Float64Promoter promoter(graph, value_infos, BuiltinOps());
  ASSIGN_OR_RETURN(Graph promoted, promoter.Promote(summary));
  ASSIGN_OR_RETURN(std::unique_ptr<CompiledModel> model,
                   CompileStaticModel(std::move(promoted)));
  auto observer = std::make_shared<CaptureObserver>();
  RETURN_IF_ERROR(model->AttachObserver(
      observer, std::vector<uint8_t>(model->steps().size(), kObserveAfter)));
  std::vector<HostBuffer> in_buffers;
  for (const Tensor& t : values) in_buffers.push_back({t.data(), t.ByteSize()});
  std::vector<Tensor> out_tensors;
  std::vector<MutableHostBuffer> out_buffers;
  for (const NamedTensorInfo& out : model->graph().outputs) {
    out_tensors.emplace_back(out.info.dtype, out.info.shape);
  }
  for (Tensor& t : out_tensors) out_buffers.push_back({t.data(), t.ByteSize()});
  RETURN_IF_ERROR(model->Execute(in_buffers, out_buffers));
  for (size_t i = 0; i < inputs.size(); ++i) {
    RETURN_IF_ERROR(WriteOutput(options.out_dir, inputs[i].name, 0,
                                values[i].view(), values[i].dtype(), summary,
                                files));
  }
  for (const auto& [name, outputs] : observer->captured) {
    if (name.rfind(kCastPrefix, 0) == 0) continue;
    ++summary.nodes;
    const std::vector<std::string>& values_out = outputs_of[name];
    for (size_t o = 0; o < outputs.size(); ++o) {
      auto info = o < values_out.size() ? value_infos.find(values_out[o])
                                        : value_infos.end();
      const DType dtype =
          info != value_infos.end() ? info->second.dtype : outputs[o].dtype();
      RETURN_IF_ERROR(WriteOutput(options.out_dir, name, o, outputs[o].view(),
                                  dtype, summary, files));
    }
  }
  manifest["float64_nodes"] = summary.float64_nodes;
  manifest["float32_op_types"] = summary.float32_types;
  return absl::OkStatus();
}

// ---- the onnxruntime engine ----

// The node name and output index of every value, as the converter names the
// nodes (unnamed nodes included).
using Producers = std::map<std::string, std::pair<std::string, size_t>>;

Producers ProducersOf(const Graph& graph) {
  Producers producer;
  for (const GraphNode& node : graph.nodes) {
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      producer[node.outputs[o]] = {node.name, o};
    }
  }
  return producer;
}

// Every node output becomes a graph output, so that ONNX Runtime returns it.
void ExposeEveryValue(onnx::ModelProto& model) {
  std::set<std::string> outputs;
  for (const auto& out : model.graph().output()) outputs.insert(out.name());
  for (const auto& node : model.graph().node()) {
    for (const std::string& out : node.output()) {
      if (out.empty() || outputs.count(out)) continue;
      model.mutable_graph()->add_output()->set_name(out);
      outputs.insert(out);
    }
  }
}

// Writes the model, its inputs and the run manifest kOrtScript reads into
// `dir`; returns the manifest's path.
absl::StatusOr<std::string> WriteOrtRun(const onnx::ModelProto& model,
                                        const std::vector<GraphInput>& inputs,
                                        const std::vector<Tensor>& values,
                                        const std::string& dir) {
  const std::string model_path = dir + "/model.onnx";
  RETURN_IF_ERROR(WriteText(model_path, model.SerializeAsString()));
  Json run;
  run["model"] = model_path;
  run["out"] = dir;
  Json run_inputs = Json::array();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string file = StrCat(dir, "/input", i, ".bin");
    RETURN_IF_ERROR(WriteText(
        file, std::string_view(static_cast<const char*>(values[i].data()),
                               values[i].ByteSize())));
    run_inputs.push_back({{"name", inputs[i].name},
                          {"type", DTypeName(values[i].dtype())},
                          {"dims", values[i].shape().dims()},
                          {"file", file}});
  }
  run["inputs"] = std::move(run_inputs);
  const std::string run_path = dir + "/manifest.json";
  RETURN_IF_ERROR(WriteText(run_path, run.dump()));
  return run_path;
}

// Saves the node outputs ONNX Runtime listed in `results`; returns how many
// nodes they came from.
absl::StatusOr<size_t> WriteOrtOutputs(const Json& results,
                                       const Producers& producer,
                                       const ReferenceOptions& options,
                                       ReferenceSummary& summary, Json& files) {
  std::set<std::string> nodes;
  for (const Json& out : results["outputs"]) {
    const std::string name = out.value("name", "");
    auto it = producer.find(name);
    if (it == producer.end()) continue;
    const std::optional<DType> dtype = DTypeFromName(out.value("type", ""));
    if (!dtype || !out.contains("file")) {
      summary.skipped.push_back(
          StrCat(it->second.first, " output ", it->second.second, ": type ",
                 out.value("type", "?"), " has no .npy form here"));
      continue;
    }
    std::vector<int64_t> dims = out["dims"].get<std::vector<int64_t>>();
    Tensor tensor(*dtype, Shape(dims));
    ASSIGN_OR_RETURN(std::string data,
                     ReadRegularFile(out["file"].get<std::string>(),
                                     kMaxNpyFileBytes, "ONNX Runtime output"));
    if (data.size() != tensor.ByteSize()) {
      return absl::InternalError(StrCat(
          "ONNX Runtime output '", name, "' has ", data.size(), " bytes, ",
          tensor.info().ToString(), " needs ", tensor.ByteSize()));
    }
    if (!data.empty()) std::memcpy(tensor.data(), data.data(), data.size());
    nodes.insert(it->second.first);
    RETURN_IF_ERROR(WriteOutput(options.out_dir, it->second.first,
                                it->second.second, tensor.view(), *dtype,
                                summary, files));
  }
  return nodes.size();
}

absl::Status RunOrt(const ReferenceOptions& options, const OrtLocation& ort,
                    ReferenceSummary& summary, Json& manifest, Json& files) {
  ASSIGN_OR_RETURN(
      std::string bytes,
      ReadRegularFile(options.model, kMaxOnnxFileBytes, "ONNX file"));
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        StrCat("'", options.model, "' is not an ONNX model"));
  }
  ImportOptions import;
  if (!options.input_shape.empty()) {
    ASSIGN_OR_RETURN(import.input_shapes,
                     ParseInputShapes(options.input_shape));
  }
  ASSIGN_OR_RETURN(Graph graph, ImportOnnx(model, import));
  const Producers producer = ProducersOf(graph);
  std::vector<GraphInput> inputs;
  for (const NamedTensorInfo& in : graph.inputs) {
    inputs.push_back({in.name, in.info});
  }
  ASSIGN_OR_RETURN(std::vector<Tensor> values,
                   LoadInputs(inputs, options, summary.inputs));
  ExposeEveryValue(model);
  ASSIGN_OR_RETURN(std::unique_ptr<TempDir> temp,
                   TempDir::Create("acldump-reference"));
  ASSIGN_OR_RETURN(const std::string run_path,
                   WriteOrtRun(model, inputs, values, temp->path()));
  const std::string script = temp->path() + "/ort_reference.js";
  RETURN_IF_ERROR(WriteText(script, kOrtScript));
  RETURN_IF_ERROR(RunProcess({ort.node, script, run_path},
                             {StrCat("NODE_PATH=", ort.modules_dir)},
                             temp->path() + "/node.log"));
  ASSIGN_OR_RETURN(std::string listed,
                   ReadRegularFile(temp->path() + "/outputs.json", 64 << 20,
                                   "ONNX Runtime results"));
  const Json results = Json::parse(listed, nullptr, false);
  if (results.is_discarded() || !results.contains("outputs")) {
    return absl::InternalError("ONNX Runtime wrote no readable results");
  }
  if (results.contains("version") && results["version"].is_string()) {
    summary.engine_note =
        StrCat("ONNX Runtime ", results["version"].get<std::string>(),
               " (onnxruntime-node in ", ort.modules_dir, ")");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    RETURN_IF_ERROR(WriteOutput(options.out_dir, inputs[i].name, 0,
                                values[i].view(), values[i].dtype(), summary,
                                files));
  }
  ASSIGN_OR_RETURN(summary.nodes,
                   WriteOrtOutputs(results, producer, options, summary, files));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<OrtLocation> FindOnnxRuntime(const std::string& ort_dir) {
  OrtLocation location;
  location.node = FindOnPath("node");
  std::vector<std::string> candidates;
  if (!ort_dir.empty()) {
    const fs::path dir = fs::absolute(ort_dir);
    candidates.push_back((dir / "node_modules").string());
    candidates.push_back(dir.string());
    candidates.push_back(dir.parent_path().string());
  }
  if (const char* node_path = std::getenv("NODE_PATH")) {
    std::string_view rest(node_path);
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      if (colon > 0) candidates.emplace_back(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
    }
  }
  candidates.push_back(fs::absolute("node_modules").string());
  std::error_code error;
  for (const std::string& dir : candidates) {
    if (fs::is_regular_file(fs::path(dir) / "onnxruntime-node" / "package.json",
                            error)) {
      location.modules_dir = dir;
      break;
    }
  }
  if (location.node.empty()) {
    return WithHint(
        absl::NotFoundError("`node` (Node.js) is not on PATH, so ONNX "
                            "Runtime cannot run"),
        StrCat("install Node.js (Debian: apt-get install nodejs npm), then "
               "`",
               kOrtInstallCommand,
               "` in a folder of your choice and pass it as --ort-dir; or use "
               "--engine acldump-unfused"));
  }
  if (location.modules_dir.empty()) {
    return WithHint(
        absl::NotFoundError(
            StrCat("onnxruntime-node is not installed (looked in ",
                   candidates.empty() ? std::string("nothing")
                                      : StrJoin(candidates, ", "),
                   ")")),
        StrCat("install it in a folder outside the repository with `",
               kOrtInstallCommand,
               "` and pass that folder as --ort-dir (or put its "
               "node_modules on NODE_PATH); or use --engine acldump-unfused"));
  }
  return location;
}

absl::StatusOr<Graph> PromoteToFloat64(const Graph& graph,
                                       ReferenceSummary& summary) {
  ASSIGN_OR_RETURN(auto value_infos, InferValueInfos(graph, BuiltinOps()));
  Float64Promoter promoter(graph, value_infos, BuiltinOps());
  return promoter.Promote(summary);
}

absl::StatusOr<std::vector<NamedTensorInfo>> ModelInputs(
    const std::string& model_path, const std::string& input_shape) {
  ASSIGN_OR_RETURN(std::string bytes,
                   ReadRegularFile(model_path, kMaxOnnxFileBytes, "ONNX file"));
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        StrCat("'", model_path, "' is not an ONNX model"));
  }
  ImportOptions import;
  if (!input_shape.empty()) {
    ASSIGN_OR_RETURN(import.input_shapes, ParseInputShapes(input_shape));
  }
  ASSIGN_OR_RETURN(Graph graph, ImportOnnx(model, import));
  return graph.inputs;
}

absl::StatusOr<ReferenceSummary> WriteReferences(
    const ReferenceOptions& options) {
  ReferenceSummary summary;
  RETURN_IF_ERROR(RequireRegularFile(options.model, "model file"));
  if (fs::path(options.model).extension() != ".onnx") {
    return absl::InvalidArgumentError(
        StrCat("'", options.model,
               "' is not an .onnx model: references are "
               "made from the ONNX graph"));
  }
  std::optional<OrtLocation> ort;
  if (options.engine == "onnxruntime") {
    ASSIGN_OR_RETURN(ort, FindOnnxRuntime(options.ort_dir));
    summary.engine = "onnxruntime";
  } else if (options.engine == "auto") {
    absl::StatusOr<OrtLocation> found = FindOnnxRuntime(options.ort_dir);
    if (found.ok()) {
      ort = *found;
      summary.engine = "onnxruntime";
    } else {
      summary.engine = "acldump-unfused";
      summary.engine_note =
          StrCat("ONNX Runtime not used: ", ToStd(found.status().message()),
                 ". For an independent engine run `", kOrtInstallCommand,
                 "` outside the repository and pass --ort-dir");
    }
  } else if (options.engine == "acldump-unfused") {
    summary.engine = "acldump-unfused";
  } else {
    return absl::InvalidArgumentError(
        StrCat("unknown --engine '", options.engine,
               "'; known: auto, onnxruntime, acldump-unfused"));
  }
  std::error_code error;
  fs::create_directories(options.out_dir, error);
  if (error) {
    return absl::PermissionDeniedError(
        StrCat("cannot create '", options.out_dir, "': ", error.message()));
  }
  Json manifest;
  manifest["schema"] = "acldump.reference/1";
  manifest["engine"] = summary.engine;
  manifest["model"] = fs::absolute(options.model).lexically_normal().string();
  Json files = Json::array();
  if (ort) {
    RETURN_IF_ERROR(RunOrt(options, *ort, summary, manifest, files));
  } else {
    RETURN_IF_ERROR(RunUnfused(options, summary, manifest, files));
    if (summary.engine_note.empty()) {
      summary.engine_note =
          StrCat("acldump without fusion: ", summary.float64_nodes,
                 " nodes in float64",
                 summary.float32_types.empty()
                     ? std::string()
                     : StrCat(", float32 (no float64 kernel): ",
                              StrJoin(summary.float32_types, ", ")));
    }
  }
  manifest["engine_note"] = summary.engine_note;
  manifest["inputs"] = summary.inputs;
  manifest["skipped"] = summary.skipped;
  manifest["files"] = std::move(files);
  RETURN_IF_ERROR(
      WriteText(options.out_dir + "/reference.json", manifest.dump(1) + "\n"));
  return summary;
}

}  // namespace acldump::tools
