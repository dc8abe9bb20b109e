#include "bench/dump_fixture.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "base/strings.h"
#include "bench/bench_dir.h"
#include "kernels/ops.h"
#include "runtime/geared_model.h"
#include "runtime/graph.h"
#include "runtime/model_file.h"
#include "runtime/model_loader.h"

namespace acldump::bench {

namespace fs = std::filesystem;

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kNoObserver:
      return "no_observer";
    case Mode::kDumpOff:
      return "dump_off";
    case Mode::kNotSelected:
      return "not_selected";
    case Mode::kStepNotSelected:
      return "step_not_selected";
    case Mode::kStats:
      return "stats";
    case Mode::kTensorAll:
      return "tensor_all";
    case Mode::kTensorFive:
      return "tensor_5_layers";
    case Mode::kStatsPacked:
      return "stats_packed";
    case Mode::kTensorAllPacked:
      return "tensor_all_packed";
    case Mode::kStatsChecksumPacked:
      return "stats_checksum_packed";
    case Mode::kBaselinePacked:
      return "baseline_packed";
    case Mode::kTensorAllDrop1ms:
      return "tensor_all_drop_1ms";
    case Mode::kRecorder:
      return "recorder";
  }
  return "?";
}

namespace {

std::string Die(const absl::Status& status) {
  std::fprintf(stderr, "bench setup failed: %s\n",
               std::string(status.message()).c_str());
  std::exit(1);
}

}  // namespace

namespace {

std::shared_ptr<CompiledModel> Load(const std::string& model_bytes) {
  auto compiled = LoadStaticModel(ModelSource::Memory(model_bytes));
  if (!compiled.ok()) Die(compiled.status());
  return std::move(*compiled);
}

}  // namespace

DumpedModel::DumpedModel(const std::string& model_bytes, Mode mode,
                         std::vector<std::string> five_layers,
                         dump::FileSystem* fs)
    : DumpedModel(Load(model_bytes), mode, std::move(five_layers), fs) {}

DumpedModel::DumpedModel(std::shared_ptr<CompiledModel> model, Mode mode,
                         std::vector<std::string> five_layers,
                         dump::FileSystem* fs)
    : model_(std::move(model)) {
  static std::atomic<int> next_tree{0};
  dir_ = StrCat(BenchRootPath(), "/", ModeName(mode), "_", next_tree++);
  fs::create_directories(dir_ + "/dump");
  absl::Status detached = model_->AttachObserver(nullptr, {});
  if (!detached.ok()) Die(detached);
  MakeInputs();
  const std::string name = model_->graph().name;
  dump::SessionOptions options = dump::SessionOptionsFromEnvironment();
  options.fs = fs;
  manager_ = std::make_unique<dump::DumpManager>(options);
  if (mode == Mode::kDumpOff) ArmAnotherModel();
  if (mode == Mode::kRecorder) {
    dump::RecorderOptions options;
    options.executions = 8;
    options.operator_stats = true;
    recorder_ = std::make_shared<dump::FlightRecorder>(
        1, options,
        [](dump::FrozenRing ring) -> absl::StatusOr<dump::RecorderReport> {
          Die(absl::InternalError(
              StrCat("the recorder triggered on finite inputs: ",
                     ring.trigger.detail)));
          return absl::InternalError("unreachable");
        });
    dump::Attachment attachment =
        dump::MakeRecorderAttachment({}, recorder_, 0, *model_);
    absl::Status status =
        model_->AttachObserver(attachment.observer, attachment.step_flags);
    if (!status.ok()) Die(status);
    return;
  }
  if (mode != Mode::kNoObserver && mode != Mode::kDumpOff) {
    std::string list;
    std::string extra;
    switch (mode) {
      case Mode::kNotSelected:
        list = R"({"model_name":"some_other_model"})";
        break;
      case Mode::kStepNotSelected:
        list = StrCat(R"({"model_name":")", name, R"("})");
        extra = R"("dump_step":"1000000000",)";
        break;
      case Mode::kStats:
        list = StrCat(R"({"model_name":")", name, R"("})");
        extra = R"("dump_data":"stats",)";
        break;
      case Mode::kStatsPacked:
        list = StrCat(R"({"model_name":")", name, R"("})");
        extra = R"("dump_data":"stats","dump_layout":"packed",)";
        break;
      case Mode::kTensorAllPacked:
        list = StrCat(R"({"model_name":")", name, R"("})");
        extra = R"("dump_layout":"packed",)";
        break;
      case Mode::kStatsChecksumPacked:
        list = StrCat(R"({"model_name":")", name, R"("})");
        extra = R"("dump_data":"stats","dump_layout":"packed",)"
                R"("dump_stats":["Max","Min","Avg","Nan","Negative Inf",)"
                R"("Positive Inf","Checksum"],)";
        break;
      case Mode::kBaselinePacked:
        list = StrCat(R"({"model_name":")", name, R"("})");
        extra = StrCat(R"("dump_layout":"packed","dump_baseline":")",
                       MakeBaseline(), R"(",)");
        break;
      case Mode::kTensorAllDrop1ms:
        list = StrCat(R"({"model_name":")", name, R"("})");
        extra = R"("dump_backpressure":"drop","dump_wait_budget_us":"1000",)";
        break;
      case Mode::kTensorFive:
        list = StrCat(R"({"model_name":")", name, R"(","layer":[")",
                      StrJoin(five_layers, "\",\""), R"("]})");
        break;
      default:
        list = StrCat(R"({"model_name":")", name, R"("})");
    }
    const std::string config = dir_ + "/acl.json";
    std::ofstream(config) << R"({"dump":{)" << extra << R"("dump_path":")"
                          << dir_ << R"(/dump","dump_list":[)" << list << "]}}";
    absl::Status status = manager_->InitDump();
    if (status.ok()) status = manager_->SetDump(config);
    if (!status.ok()) Die(status);
    session_ = manager_->current_session();
  }
  if (mode != Mode::kNoObserver) {
    std::vector<std::string> warnings;
    dump::Attachment attachment = manager_->OnModelLoad(
        *model_, dump::ModelIdentity{1, "", 0}, &warnings);
    for (const auto& w : warnings)
      std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (attachment.observer) {
      absl::Status status =
          model_->AttachObserver(attachment.observer, attachment.step_flags);
      if (!status.ok()) Die(status);
    }
  }
}

void DumpedModel::ArmAnotherModel() {
  Graph graph;
  graph.name = "armed_elsewhere";
  graph.inputs = {{"x", {DType::kFloat32, Shape({1, 16})}}};
  graph.outputs = {{"y", {DType::kFloat32, Shape({1, 16})}}};
  graph.nodes.push_back(GraphNode{"relu", "Relu", {"x"}, {"y"}, {}, {"relu"}});
  auto compiled = LoadStaticModel(ModelSource::Memory(SerializeModel(graph)));
  if (!compiled.ok()) Die(compiled.status());
  absl::StatusOr<uint32_t> id = armed_elsewhere_.Add(
      std::make_shared<GearedModel>(std::move(*compiled)), "armed_elsewhere");
  if (!id.ok()) Die(id.status());
  const std::string config = dir_ + "/armed_elsewhere.json";
  std::ofstream(config) << R"({"dump":{"dump_path":")" << dir_
                        << R"(/dump","dump_list":[{"model_name":)"
                        << R"("armed_elsewhere"}]}})";
  absl::Status armed = manager_->Arm(*armed_elsewhere_.Find(*id), config,
                                     "some-request", 0, nullptr);
  if (!armed.ok()) Die(armed);
}

void DumpedModel::MakeInputs() {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const auto& in : model_->graph().inputs) {
    inputs_.emplace_back(in.info.dtype, in.info.shape);
    for (int64_t i = 0; i < inputs_.back().NumElements(); ++i) {
      inputs_.back().as<float>()[i] = dist(rng);
    }
    in_.push_back({inputs_.back().data(), inputs_.back().ByteSize()});
  }
  for (const auto& out : model_->graph().outputs) {
    outputs_.emplace_back(out.info.dtype, out.info.shape);
    out_.push_back({outputs_.back().data(), outputs_.back().ByteSize()});
  }
}

std::string DumpedModel::MakeBaseline() {
  const std::string root = dir_ + "/baseline";
  fs::create_directories(root);
  const std::string config = dir_ + "/baseline.json";
  std::ofstream(config) << R"({"dump":{"dump_path":")" << root
                        << R"(","dump_data":"checksum","dump_layout":"packed",)"
                        << R"("dump_list":[{"model_name":")"
                        << model_->graph().name << R"("}]}})";
  dump::DumpManager manager;
  absl::Status status = manager.InitDump();
  if (status.ok()) status = manager.SetDump(config);
  if (!status.ok()) Die(status);
  dump::Attachment attachment =
      manager.OnModelLoad(*model_, dump::ModelIdentity{1, "", 0}, nullptr);
  status = model_->AttachObserver(attachment.observer, attachment.step_flags);
  if (status.ok()) status = model_->Execute(in_, out_);
  if (status.ok()) status = manager.FinalizeDump();
  if (status.ok()) status = model_->AttachObserver(nullptr, {});
  if (!status.ok()) Die(status);
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().filename() == "statistic.csv") {
      return entry.path().parent_path().string();
    }
  }
  Die(absl::InternalError("the baseline run wrote no statistic.csv"));
  return "";
}

DumpedModel::~DumpedModel() {
  Finish();
  if (model_->observer() != nullptr) {
    absl::Status detached = model_->AttachObserver(nullptr, {});
    if (!detached.ok()) Die(detached);
  }
  model_.reset();
  manager_.reset();
  EmptyTree(dir_);
}

void DumpedModel::Run() {
  absl::Status status = model_->Execute(in_, out_);
  if (!status.ok()) Die(status);
}

void DumpedModel::Drain() {
  if (!session_) return;
  absl::Status status = session_->writer().Flush();
  if (!status.ok()) Die(status);
}

uint64_t DumpedModel::Finish() {
  if (!session_) return 0;
  if (!finished_) {
    finished_ = true;
    absl::Status status = manager_->FinalizeDump();
    if (!status.ok()) Die(status);
  }
  return session_->writer().stats().bytes_written;
}

}  // namespace acldump::bench
