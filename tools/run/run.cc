#include "tools/run/run.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <system_error>

#include "acl/acl.h"
#include "base/file_reader.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "bindings/c/acl_dtypes.h"
#include "dump/baseline.h"
#include "dump/config.h"
#include "dump/format/dump_names.h"
#include "dump/format/dump_tree.h"
#include "kernels/half.h"
#include "kernels/npy.h"
#include "nlohmann/json.hpp"
#include "runtime/converter.h"
#include "runtime/model_file.h"
#include "runtime/model_loader.h"
#include "tools/common/cli_util.h"
#include "tools/common/output_folder.h"
#include "tools/run/check_config.h"
#include "tools/run/model_input.h"

namespace acldump::tools {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kPathHint =
    "relative paths are taken from the directory you ran the command in";

absl::Status AclCall(aclError code, std::string_view call,
                     std::string_view hint = "") {
  if (code == ACL_SUCCESS) return absl::OkStatus();
  const char* message = aclGetRecentErrMsg();
  const bool config_error = code == ACL_ERROR_INVALID_FILE ||
                            code == ACL_ERROR_PARSE_FILE ||
                            code == ACL_ERROR_INVALID_DUMP_CONFIG;
  absl::Status status(config_error ? absl::StatusCode::kInvalidArgument
                                   : absl::StatusCode::kInternal,
                      StrCat(call, " failed with ", AclErrorName(code), " (",
                             code, "): ", message == nullptr ? "" : message));
  return hint.empty() ? status : WithHint(status, hint);
}

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

void FillRandom(const TensorView& view, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0, 1);
  std::uniform_int_distribution<int> digit(0, 9);
  const size_t n = static_cast<size_t>(view.NumElements());
  for (size_t i = 0; i < n; ++i) {
    switch (view.dtype) {
      case DType::kFloat32:
        view.as<float>()[i] = normal(rng);
        break;
      case DType::kFloat16:
        view.as<Float16>()[i] = Float16(normal(rng));
        break;
      case DType::kBFloat16:
        view.as<BFloat16>()[i] = BFloat16(normal(rng));
        break;
      case DType::kFloat64:
        view.as<double>()[i] = normal(rng);
        break;
      case DType::kInt8:
        view.as<int8_t>()[i] = static_cast<int8_t>(digit(rng));
        break;
      case DType::kInt16:
        view.as<int16_t>()[i] = static_cast<int16_t>(digit(rng));
        break;
      case DType::kInt32:
        view.as<int32_t>()[i] = digit(rng);
        break;
      case DType::kInt64:
        view.as<int64_t>()[i] = digit(rng);
        break;
      case DType::kUInt8:
        view.as<uint8_t>()[i] = static_cast<uint8_t>(digit(rng));
        break;
      case DType::kUInt16:
        view.as<uint16_t>()[i] = static_cast<uint16_t>(digit(rng));
        break;
      case DType::kUInt32:
        view.as<uint32_t>()[i] = static_cast<uint32_t>(digit(rng));
        break;
      case DType::kUInt64:
        view.as<uint64_t>()[i] = static_cast<uint64_t>(digit(rng));
        break;
      case DType::kBool:
        view.as<uint8_t>()[i] = digit(rng) & 1;
        break;
      case DType::kUndefined:
        return;
    }
  }
}

namespace {

struct IoTensor {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape shape;
  AlignedBuffer buffer;
  aclDataBuffer* handle = nullptr;
  // An output whose size depends on the input (-1 dims): its buffer has room
  // for kVaryingOutputCapacity bytes, its shape is read after each execution.
  bool varies = false;
  TensorView view() const { return TensorView{dtype, shape, buffer.data()}; }
};

// Untouched pages of a buffer cost no memory, so the room is generous.
constexpr size_t kVaryingOutputCapacity = size_t{256} << 20;

// A model's input and output buffers and datasets (kept across a reload).
class ModelIo {
 public:
  ~ModelIo() { Release(); }

  // The shapes the last execution gave the outputs whose size varies.
  absl::Status ReadVaryingShapes() {
    aclmdlDesc* desc = aclmdlCreateDesc();
    if (desc == nullptr)
      return AclCall(ACL_ERROR_BAD_ALLOC, "aclmdlCreateDesc");
    absl::Status status =
        AclCall(aclmdlGetDesc(desc, model_id_), "aclmdlGetDesc");
    for (size_t k = 0; status.ok() && k < outputs_.size(); ++k) {
      if (!outputs_[k].varies) continue;
      aclmdlIODims dims;
      status = AclCall(aclmdlGetCurOutputDims(desc, k, &dims),
                       "aclmdlGetCurOutputDims");
      if (status.ok()) {
        outputs_[k].shape =
            Shape(std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount));
      }
    }
    aclmdlDestroyDesc(desc);
    return status;
  }

  absl::Status Create(uint32_t model_id) {
    model_id_ = model_id;
    aclmdlDesc* desc = aclmdlCreateDesc();
    if (desc == nullptr)
      return AclCall(ACL_ERROR_BAD_ALLOC, "aclmdlCreateDesc");
    absl::Status status = Fill(desc, model_id);
    aclmdlDestroyDesc(desc);
    return status;
  }

  std::vector<IoTensor>& inputs() { return inputs_; }
  const std::vector<IoTensor>& outputs() const { return outputs_; }
  const aclmdlDataset* input_set() const { return input_set_; }
  aclmdlDataset* output_set() { return output_set_; }

  void Release() {
    for (auto* tensors : {&inputs_, &outputs_}) {
      for (IoTensor& t : *tensors) {
        if (t.handle != nullptr) aclDestroyDataBuffer(t.handle);
        t.handle = nullptr;
      }
    }
    if (input_set_ != nullptr) aclmdlDestroyDataset(input_set_);
    if (output_set_ != nullptr) aclmdlDestroyDataset(output_set_);
    input_set_ = output_set_ = nullptr;
  }

 private:
  absl::Status Fill(aclmdlDesc* desc, uint32_t model_id) {
    RETURN_IF_ERROR(AclCall(aclmdlGetDesc(desc, model_id), "aclmdlGetDesc"));
    input_set_ = aclmdlCreateDataset();
    output_set_ = aclmdlCreateDataset();
    if (input_set_ == nullptr || output_set_ == nullptr) {
      return AclCall(ACL_ERROR_BAD_ALLOC, "aclmdlCreateDataset");
    }
    for (bool is_input : {true, false}) {
      const size_t count =
          is_input ? aclmdlGetNumInputs(desc) : aclmdlGetNumOutputs(desc);
      for (size_t i = 0; i < count; ++i) {
        IoTensor t;
        aclmdlIODims dims;
        RETURN_IF_ERROR(AclCall(is_input ? aclmdlGetInputDims(desc, i, &dims)
                                         : aclmdlGetOutputDims(desc, i, &dims),
                                "aclmdlGet*Dims"));
        t.name = is_input ? aclmdlGetInputNameByIndex(desc, i)
                          : aclmdlGetOutputNameByIndex(desc, i);
        const aclDataType type = is_input ? aclmdlGetInputDataType(desc, i)
                                          : aclmdlGetOutputDataType(desc, i);
        const std::optional<DType> dtype = FromAclDataType(type);
        if (!dtype) {
          return absl::UnimplementedError(
              StrCat("model ", is_input ? "input" : "output", " '", t.name,
                     "' has a data type the tool cannot handle (aclDataType ",
                     type, ")"));
        }
        t.dtype = *dtype;
        t.shape =
            Shape(std::vector<int64_t>(dims.dims, dims.dims + dims.dimCount));
        size_t bytes = is_input ? aclmdlGetInputSizeByIndex(desc, i)
                                : aclmdlGetOutputSizeByIndex(desc, i);
        t.varies = !is_input &&
                   std::any_of(t.shape.dims().begin(), t.shape.dims().end(),
                               [](int64_t d) { return d < 0; });
        if (t.varies) {
          bytes = kVaryingOutputCapacity;
          t.buffer = AlignedBuffer(bytes, /*zeroed=*/false);
        } else {
          t.buffer = AlignedBuffer(std::max<size_t>(bytes, 1));
        }
        t.handle = aclCreateDataBuffer(t.buffer.data(), bytes);
        if (t.handle == nullptr) {
          return AclCall(ACL_ERROR_BAD_ALLOC, "aclCreateDataBuffer");
        }
        RETURN_IF_ERROR(
            AclCall(aclmdlAddDatasetBuffer(is_input ? input_set_ : output_set_,
                                           t.handle),
                    "aclmdlAddDatasetBuffer"));
        (is_input ? inputs_ : outputs_).push_back(std::move(t));
      }
    }
    return absl::OkStatus();
  }

  uint32_t model_id_ = 0;
  std::vector<IoTensor> inputs_, outputs_;
  aclmdlDataset* input_set_ = nullptr;
  aclmdlDataset* output_set_ = nullptr;
};

// Fills the model's inputs: from .npy files ("file" in order or
// "name=file"), the rest with seeded random data. Returns one description per
// input.
absl::StatusOr<std::vector<std::string>> FillInputs(
    std::vector<IoTensor>& inputs, const std::vector<std::string>& files,
    uint64_t seed) {
  std::vector<std::string> sources(inputs.size());
  std::vector<std::string> names;
  for (const IoTensor& in : inputs) names.push_back(in.name);
  ASSIGN_OR_RETURN(std::vector<InputFile> assigned,
                   AssignInputFiles(files, names));
  for (const InputFile& input : assigned) {
    const size_t index = input.index;
    const std::string& file = input.path;
    IoTensor& t = inputs[index];
    absl::StatusOr<Tensor> tensor = ReadNpyFile(file);
    if (!tensor.ok()) {
      return WithHint(tensor.status(), kPathHint);
    }
    if (tensor->dtype() != t.dtype || tensor->shape() != t.shape) {
      return WithHint(
          absl::InvalidArgumentError(
              StrCat("input '", t.name, "' is ", t.view().info().ToString(),
                     " but '", file, "' holds ", tensor->info().ToString())),
          StrCat("save it with that dtype and shape, e.g. "
                 "np.save(path, a.astype(np.",
                 DTypeName(t.dtype), ").reshape(", StrJoin(t.shape.dims(), ","),
                 "))"));
    }
    std::memcpy(t.buffer.data(), tensor->data(), tensor->ByteSize());
    sources[index] = StrCat("from ", DisplayPath(fs::absolute(file).string()));
  }
  std::vector<std::string> described;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (sources[i].empty()) {
      FillRandom(inputs[i].view(), seed + i);
      sources[i] = StrCat("random (seed ", seed + i, ")");
    }
    described.push_back(StrCat(inputs[i].name, " ",
                               inputs[i].view().info().ToString(), " ",
                               sources[i]));
  }
  return described;
}

// Regular files under `root`, relative to it.
std::set<std::string> ExistingFiles(const std::string& root) {
  std::set<std::string> files;
  std::error_code error;
  if (root.empty() || !fs::is_directory(root, error)) return files;
  for (auto it = fs::recursive_directory_iterator(
           root, fs::directory_options::skip_permission_denied, error);
       !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    if (it->is_regular_file(error)) {
      files.insert(fs::relative(it->path(), root, error).string());
    }
  }
  return files;
}

// Makes an .om for each model: .onnx files are converted into `temp`, named
// by their stem so the dump_list model_name still matches.
absl::StatusOr<std::string> PrepareModel(const std::string& path,
                                         TempDir& temp) {
  ASSIGN_OR_RETURN(Graph graph, ReadAnyModel(path));
  if (IsOmFile(path)) return path;
  const std::string om = StrCat(temp.path(), "/", FileStem(path), ".om");
  RETURN_IF_ERROR(WriteModelFile(graph, om));
  return om;
}

std::string Plural(size_t n, std::string_view word) {
  return StrCat(n, " ", word, n == 1 ? "" : "s");
}

absl::Status CheckOptions(const RunOptions& options) {
  if (options.models.empty()) {
    return absl::InvalidArgumentError("no model given");
  }
  if (!options.inputs.empty() && options.models.size() > 1) {
    return WithHint(
        absl::InvalidArgumentError("--input needs exactly one --model"),
        "run the models one at a time to give each its inputs");
  }
  if (options.iterations == 0) {
    return absl::InvalidArgumentError("--iterations must be at least 1");
  }
  return RequireRegularFile(options.config, "config file");
}

// One untimed execution per model warms caches and thread pools, so the first
// timed loop is not charged for them. Loaded before aclmdlSetDump, these
// models are not dumped.
absl::Status WarmUp(const std::vector<std::string>& om_paths, uint64_t seed) {
  for (const std::string& om : om_paths) {
    uint32_t id = 0;
    RETURN_IF_ERROR(
        AclCall(aclmdlLoadFromFile(om.c_str(), &id), "aclmdlLoadFromFile"));
    ModelIo warm;
    RETURN_IF_ERROR(warm.Create(id));
    RETURN_IF_ERROR(FillInputs(warm.inputs(), {}, seed).status());
    RETURN_IF_ERROR(
        AclCall(aclmdlExecute(id, warm.input_set(), warm.output_set()),
                "aclmdlExecute (warm-up)"));
    warm.Release();
    RETURN_IF_ERROR(AclCall(aclmdlUnload(id), "aclmdlUnload"));
  }
  return absl::OkStatus();
}

// Loads a model (after aclmdlSetDump, so it is dumped) and executes it
// options.iterations times.
absl::StatusOr<ModelRun> RunDumped(const RunOptions& options, size_t m,
                                   const std::string& om, ModelIo& io,
                                   const DumpForecast* forecast) {
  ModelRun run;
  run.path = options.models[m];
  run.name = FileStem(run.path);
  RETURN_IF_ERROR(AclCall(aclmdlLoadFromFile(om.c_str(), &run.model_id),
                          "aclmdlLoadFromFile"));
  RETURN_IF_ERROR(io.Create(run.model_id));
  ASSIGN_OR_RETURN(run.inputs,
                   FillInputs(io.inputs(), options.inputs, options.seed));
  Progress progress(StrCat("run ", run.name), options.iterations);
  const auto start = Clock::now();
  uint64_t dumped = 0;  // iterations the plan dumps, so far
  for (uint64_t i = 0; i < options.iterations; ++i) {
    if (forecast != nullptr && forecast->known) {
      if (!forecast->steps || forecast->steps->Contains(i)) ++dumped;
      const double elapsed = Seconds(Clock::now() - start);
      progress.Status(StrCat(
          "run ", run.name, ": iteration ", i + 1, "/", options.iterations,
          ", ", dumped * forecast->files_per_iteration, " files, ",
          HumanBytes(dumped * forecast->bytes_per_iteration), " dumped, ",
          elapsed > 0 ? fmt::format("{:.1f}", i / elapsed) : "-", " it/s"));
    } else {
      progress.Update(i + 1);
    }
    RETURN_IF_ERROR(
        AclCall(aclmdlExecute(run.model_id, io.input_set(), io.output_set()),
                StrCat("aclmdlExecute (iteration ", i, ")")));
    if (i == 0) run.first_with_dump = Seconds(Clock::now() - start);
  }
  run.seconds_with_dump = Seconds(Clock::now() - start);
  RETURN_IF_ERROR(io.ReadVaryingShapes());
  return run;
}

// A model loaded after FinalizeDump runs without dump: the same loop, timed.
absl::Status MeasureWithoutDump(const std::vector<std::string>& om_paths,
                                uint64_t iterations,
                                std::vector<std::unique_ptr<ModelIo>>& io,
                                RunSummary& summary) {
  for (size_t m = 0; m < summary.models.size(); ++m) {
    uint32_t id = 0;
    RETURN_IF_ERROR(AclCall(aclmdlLoadFromFile(om_paths[m].c_str(), &id),
                            "aclmdlLoadFromFile"));
    const auto start = Clock::now();
    for (uint64_t i = 0; i < iterations; ++i) {
      RETURN_IF_ERROR(
          AclCall(aclmdlExecute(id, io[m]->input_set(), io[m]->output_set()),
                  "aclmdlExecute"));
    }
    summary.models[m].seconds_without_dump = Seconds(Clock::now() - start);
    RETURN_IF_ERROR(AclCall(aclmdlUnload(id), "aclmdlUnload"));
  }
  return absl::OkStatus();
}

// The model outputs of the last iteration as
// {output_dir}/{model}.output.{name}.npy; a name too long for the file system,
// or not a file name, uses the model's and output's indexes instead.
absl::Status WriteOutputs(const std::string& output_dir,
                          std::vector<std::unique_ptr<ModelIo>>& io,
                          RunSummary& summary) {
  ASSIGN_OR_RETURN(std::unique_ptr<OutputFolder> folder,
                   OutputFolder::Open(output_dir));
  for (size_t m = 0; m < summary.models.size(); ++m) {
    const std::vector<IoTensor>& outputs = io[m]->outputs();
    for (size_t k = 0; k < outputs.size(); ++k) {
      // The model's name comes from its file: one that is not a file name
      // ("../x", a NUL) is replaced, as a too-long one is.
      std::string name = StrCat(summary.models[m].name, ".output.",
                                dump::EscapeNamePart(outputs[k].name), ".npy");
      if (dump::ExceedsNameMax(name) || !dump::WhyNotAFileName(name).empty()) {
        name = StrCat("model", m, ".output.", k, ".npy");
      }
      ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(outputs[k].view()));
      ASSIGN_OR_RETURN(const std::string path, folder->Write(name, bytes));
      summary.models[m].outputs.push_back(
          DisplayPath(fs::absolute(path).lexically_normal().string()));
    }
  }
  return absl::OkStatus();
}

// A baseline summary in one line: "resnet (iteration 0) departs at 'conv2'
// (Conv, output 0: Checksum 5e1f.. vs 9a0c..); 3 operators differ, tensors of
// 1 written".
std::string BaselineLine(const std::string& path) {
  absl::StatusOr<std::string> text =
      ReadRegularFile(path, size_t{64} << 20, "baseline summary");
  if (!text.ok()) return std::string(ToStd(text.status().message()));
  const nlohmann::json summary = nlohmann::json::parse(*text, nullptr, false);
  if (summary.is_discarded() || !summary.contains("first_difference")) {
    return StrCat(path, ": not a baseline summary");
  }
  const nlohmann::json& first = summary["first_difference"];
  std::string what = first.value("reason", "");
  if (first.contains("baseline")) {
    what = StrCat(first.value("column", ""), " ",
                  first["baseline"].get<std::string>(), " in the baseline, ",
                  first["run"].get<std::string>(), " now");
  } else if (first.contains("columns")) {
    std::vector<std::string> columns;
    for (const nlohmann::json& c : first["columns"]) {
      columns.push_back(StrCat(c.value("column", ""), " ",
                               c.value("baseline", ""), " vs ",
                               c.value("run", "")));
    }
    what = StrJoin(columns, ", ");
  }
  return StrCat(summary.value("model", ""), " (iteration ",
                summary.value("iteration", 0), ") departs at '",
                first.value("op_name", ""), "' (", first.value("op_type", ""),
                ", ", first.value("tensor", ""), ": ", what, "); ",
                Plural(summary.value("operators_differing", 0), "operator"),
                " differ, tensors of ", summary.value("tensors_written_for", 0),
                " written; ", DisplayPath(path));
}

// The dump files (and their folders) that appeared under dump_root.
void CountNewFiles(const std::set<std::string>& before, RunSummary& summary) {
  absl::StatusOr<dump::DumpTree> tree = dump::ScanDumpTree(summary.dump_root);
  if (!tree.ok()) return;
  for (const dump::DumpEntry& e : tree->entries) {
    if (e.file_name == dump::kBaselineSummaryFileName &&
        !before.count(e.relative)) {
      summary.baseline_lines.push_back(BaselineLine(e.path));
    }
  }
  for (const dump::DumpRun& run : tree->runs) {
    bool any = false;
    for (const dump::DumpEntry* e : run.files) {
      if (before.count(e->relative)) continue;
      any = true;
      ++summary.files;
      summary.bytes += e->bytes;
      if (summary.first_file.empty() && e->kind == dump::EntryKind::kTensor &&
          e->name->op_type != "Data") {
        summary.first_file = e->path;
      }
    }
    if (any) summary.folders.push_back(run.directory);
  }
}

absl::StatusOr<std::vector<std::string>> PrepareModels(
    const std::vector<std::string>& models, TempDir& temp) {
  std::vector<std::string> om_paths;
  for (const std::string& model : models) {
    ASSIGN_OR_RETURN(std::string om, PrepareModel(model, temp));
    om_paths.push_back(std::move(om));
  }
  return om_paths;
}

// What the plan dumps, to show progress and to say why a run dumped
// nothing. A config or model the API rejects is reported by the API later.
std::vector<std::optional<DumpForecast>> ForecastModels(
    const RunOptions& options, const std::vector<std::string>& om_paths,
    RunSummary& summary) {
  std::vector<std::optional<DumpForecast>> forecasts(om_paths.size());
  bool all_nothing = !om_paths.empty();
  for (size_t m = 0; m < om_paths.size(); ++m) {
    absl::StatusOr<DumpForecast> forecast =
        ForecastDump(options.config, om_paths[m], options.iterations);
    if (!forecast.ok() || !forecast->known) {
      all_nothing = false;
      continue;
    }
    for (const std::string& w : forecast->warnings) {
      if (std::find(summary.warnings.begin(), summary.warnings.end(), w) ==
          summary.warnings.end()) {
        summary.warnings.push_back(w);
      }
    }
    if (forecast->nothing_reason.empty()) {
      all_nothing = false;
    } else {
      summary.nothing_reasons.push_back(
          StrCat(FileStem(options.models[m]), ": ", forecast->nothing_reason));
    }
    forecasts[m] = *std::move(forecast);
  }
  summary.nothing_selected = all_nothing;
  return forecasts;
}

absl::Status StartDump(const RunOptions& options) {
  RETURN_IF_ERROR(AclCall(aclmdlInitDump(), "aclmdlInitDump"));
  return AclCall(
      aclmdlSetDump(options.config.c_str()), "aclmdlSetDump",
      StrCat("`dump check-config ", options.config,
             "` explains the config; dump_path must exist and be writable"));
}

}  // namespace

absl::StatusOr<RunSummary> RunWithDump(const RunOptions& options) {
  RETURN_IF_ERROR(CheckOptions(options));
  RunSummary summary;
  summary.iterations = options.iterations;
  summary.device = options.device;
  // For the summary only: aclmdlSetDump below reports any config error.
  absl::StatusOr<dump::DumpConfig> config =
      dump::LoadDumpConfigFile(options.config);
  if (config.ok()) {
    summary.config_description = dump::DescribeDumpConfig(*config);
    summary.dump_root = config->dump_path_resolved;
    summary.baseline = config->baseline;
  }
  ASSIGN_OR_RETURN(std::unique_ptr<TempDir> temp,
                   TempDir::Create("acldump-run"));
  ASSIGN_OR_RETURN(std::vector<std::string> om_paths,
                   PrepareModels(options.models, *temp));
  const std::set<std::string> before = ExistingFiles(summary.dump_root);
  std::vector<std::optional<DumpForecast>> forecasts =
      ForecastModels(options, om_paths, summary);

  RETURN_IF_ERROR(AclCall(aclInit(nullptr), "aclInit"));
  struct Finalizer {
    bool armed = true;
    ~Finalizer() {
      if (armed) aclFinalize();
    }
  } finalizer;
  RETURN_IF_ERROR(AclCall(aclrtSetDevice(options.device), "aclrtSetDevice",
                          "--device takes 0..1023"));
  if (options.measure_without_dump) {
    RETURN_IF_ERROR(WarmUp(om_paths, options.seed));
  }
  RETURN_IF_ERROR(StartDump(options));
  std::vector<std::unique_ptr<ModelIo>> io;
  for (size_t m = 0; m < options.models.size(); ++m) {
    io.push_back(std::make_unique<ModelIo>());
    ASSIGN_OR_RETURN(ModelRun run,
                     RunDumped(options, m, om_paths[m], *io.back(),
                               forecasts[m] ? &*forecasts[m] : nullptr));
    summary.models.push_back(std::move(run));
  }
  const auto finalize_start = Clock::now();
  // A dump that could not be written is reported after the model outputs,
  // which are right either way, have been saved.
  summary.dump_status =
      AclCall(aclmdlFinalizeDump(), "aclmdlFinalizeDump",
              "check free space and permissions of dump_path");
  summary.finalize_seconds = Seconds(Clock::now() - finalize_start);
  for (const ModelRun& run : summary.models) {
    RETURN_IF_ERROR(AclCall(aclmdlUnload(run.model_id), "aclmdlUnload"));
  }
  if (options.measure_without_dump) {
    RETURN_IF_ERROR(
        MeasureWithoutDump(om_paths, options.iterations, io, summary));
  }
  RETURN_IF_ERROR(WriteOutputs(
      options.output_dir.empty() ? kDefaultOutputDir : options.output_dir, io,
      summary));
  for (auto& model_io : io) model_io->Release();
  finalizer.armed = false;
  RETURN_IF_ERROR(AclCall(aclFinalize(), "aclFinalize"));
  if (!summary.dump_root.empty()) CountNewFiles(before, summary);
  return summary;
}

std::string RunSummaryJson(const RunSummary& s) {
  nlohmann::ordered_json j;
  j["schema"] = "acldump.run/1";
  j["iterations"] = s.iterations;
  j["device"] = s.device;
  j["dump_config"] = s.config_description;
  j["models"] = nlohmann::ordered_json::array();
  for (const ModelRun& run : s.models) {
    nlohmann::ordered_json m;
    m["name"] = run.name;
    m["path"] = run.path;
    m["model_id"] = run.model_id;
    m["inputs"] = run.inputs;
    m["outputs"] = run.outputs;
    m["seconds_with_dump"] = run.seconds_with_dump;
    m["first_iteration_seconds"] = run.first_with_dump;
    m["seconds_without_dump"] =
        run.seconds_without_dump >= 0
            ? nlohmann::ordered_json(run.seconds_without_dump)
            : nlohmann::ordered_json(nullptr);
    j["models"].push_back(std::move(m));
  }
  j["finalize_seconds"] = s.finalize_seconds;
  j["dump_root"] = s.dump_root;
  j["files"] = s.files;
  j["bytes"] = s.bytes;
  j["folders"] = s.folders;
  j["first_file"] = s.first_file;
  j["warnings"] = s.warnings;
  j["nothing_selected"] = s.nothing_selected;
  j["nothing_reasons"] = s.nothing_reasons;
  j["baseline"] = s.baseline;
  j["baseline_lines"] = s.baseline_lines;
  j["dump_error"] =
      s.dump_status.ok()
          ? nlohmann::ordered_json(nullptr)
          : nlohmann::ordered_json(std::string(s.dump_status.message()));
  return j.dump(2) + "\n";
}

std::string FormatRunSummary(const RunSummary& s) {
  std::string out = StrCat("ran ", Plural(s.models.size(), "model"), ", ",
                           Plural(s.iterations, "iteration"),
                           " each, on device ", s.device, "\n");
  if (!s.config_description.empty()) {
    StrAppend(out, "  dump config  ", s.config_description, "\n");
  }
  for (const ModelRun& run : s.models) {
    StrAppend(out, "  model        ", run.name, "  (", DisplayPath(run.path),
              ", model id ", run.model_id, ")\n");
    for (const std::string& input : run.inputs) {
      StrAppend(out, "    input      ", input, "\n");
    }
    const double with = run.seconds_with_dump / s.iterations;
    StrAppend(out, "    time       ", HumanDuration(with),
              " per iteration with dump");
    if (s.iterations > 1) {
      // The first dumped iteration also pays for the writer's buffers.
      StrAppend(out, " (first ", HumanDuration(run.first_with_dump), ", then ",
                HumanDuration((run.seconds_with_dump - run.first_with_dump) /
                              (s.iterations - 1)),
                ")");
    }
    if (run.seconds_without_dump >= 0) {
      const double without = run.seconds_without_dump / s.iterations;
      StrAppend(out, ", ", HumanDuration(without), " without");
      if (without > 0)
        StrAppend(out, fmt::format(" ({:.1f}x)", with / without));
    }
    out += "\n";
    if (!run.outputs.empty()) {
      StrAppend(out, "    outputs    ", StrJoin(run.outputs, ", "), "\n");
    }
  }
  StrAppend(out, "  finalize     ", HumanDuration(s.finalize_seconds),
            " (aclmdlFinalizeDump: writing what was still queued)\n");
  for (const std::string& warning : s.warnings) {
    StrAppend(out, "  warning      ", warning, "\n");
  }
  if (s.dump_root.empty()) return out;
  if (s.files == 0 && !s.nothing_reasons.empty()) {
    StrAppend(out, "  dump files   none: nothing was dumped because\n");
    for (const std::string& reason : s.nothing_reasons) {
      StrAppend(out, "               ", reason, "\n");
    }
    StrAppend(out,
              "               (`dump check-config <config> --model "
              "<model>` shows the plan)\n");
  } else {
    StrAppend(out, "  dump files   ", s.files, " new, ", HumanBytes(s.bytes),
              s.folders.empty() ? "" : " in", "\n");
    if (!s.nothing_reasons.empty()) {
      for (const std::string& reason : s.nothing_reasons) {
        StrAppend(out, "               nothing of ", reason, "\n");
      }
    }
  }
  // Long runs: the iteration folders as ranges, not one line each.
  if (s.folders.size() > 6) {
    for (size_t i = 0; i < 3; ++i) {
      StrAppend(out, "               ", DisplayPath(s.folders[i]), "\n");
    }
    StrAppend(out, "               ... ", s.folders.size() - 4,
              " more folders ...\n               ",
              DisplayPath(s.folders.back()), "\n");
  } else {
    for (const std::string& folder : s.folders) {
      StrAppend(out, "               ", DisplayPath(folder), "\n");
    }
  }
  if (!s.baseline.empty()) {
    if (s.baseline_lines.empty()) {
      StrAppend(out, "  baseline     every compared operator matches ",
                DisplayPath(s.baseline), "\n");
    }
    for (const std::string& line : s.baseline_lines) {
      StrAppend(out, "  baseline     ", line, "\n");
    }
  }
  if (!s.dump_status.ok()) {
    StrAppend(out, "  dump FAILED  ", ToStd(s.dump_status.message()), "\n");
  }
  return out;
}

}  // namespace acldump::tools
