// Exception dump (dump_scene lite_exception): when an operator fails, its
// inputs, outputs, workspace and launch parameters are written to
// {root}/extra-info/data-dump/{device}/, read-only, before the failure is
// returned.
#include <cstring>

#include "base/strings.h"
#include "dump/format/data_type.h"
#include "dump/format/dump_data.pb.h"
#include "dump/format/dump_file.h"
#include "dump/format/dump_names.h"
#include "dump/observers.h"
#include "kernels/attributes.h"

namespace acldump::dump {
namespace {

using DumpProto = toolkit::dumpdata::DumpData;
using toolkit::dumpdata::OutputDataType;
using toolkit::dumpdata::OutputFormat;

// input_type of exception dumps.
constexpr uint32_t kInputTypeInput = 2;
constexpr uint32_t kInputTypeWorkspace = 4;
constexpr uint32_t kInputTypeTilingData = 7;

// A header built for one failure and the payload sizes it announces.
class ExceptionFileRenderer final : public JobRenderer {
 public:
  ExceptionFileRenderer(std::string directory, std::string name,
                        DumpProto header, std::vector<size_t> sizes)
      : directory_(std::move(directory)),
        name_(std::move(name)),
        header_(std::move(header)),
        sizes_(std::move(sizes)) {}
  absl::Status Render(const WriteJob& job, RenderedFile& file) const override {
    file.directory = directory_;
    file.name = name_;
    file.mode = 0400;
    file.head = EncodeDumpFilePrefix(header_);
    const char* data = reinterpret_cast<const char*>(job.buffer.data());
    size_t offset = 0;
    for (size_t size : sizes_) {
      file.payloads.emplace_back(data + offset, size);
      offset += size;
    }
    if (offset != job.used) {
      return absl::InternalError(StrCat("exception job holds ", job.used,
                                        " bytes, ", offset, " expected"));
    }
    return absl::OkStatus();
  }

 private:
  const std::string directory_;
  const std::string name_;
  const DumpProto header_;
  const std::vector<size_t> sizes_;
};

template <typename TensorProto>
void Describe(const TensorInfo& info, uint32_t arg_index, TensorProto* proto) {
  proto->set_data_type(static_cast<OutputDataType>(ToDumpDataType(info.dtype)));
  proto->set_format(static_cast<OutputFormat>(FormatOf(info)));
  for (int64_t dim : info.shape.dims()) {
    proto->mutable_shape()->add_dim(static_cast<uint64_t>(dim));
  }
  proto->set_size(info.ByteSize());
  proto->set_arg_index(arg_index);
}

void AddAttr(DumpProto& header, std::string name, std::string value) {
  auto* attr = header.add_attr();
  attr->set_name(std::move(name));
  attr->set_value(std::move(value));
}

// The header of a failure, and the payloads it announces in file order.
DumpProto FailureHeader(const NodeEvent& e, const absl::Status& status,
                        std::string_view model_name, const std::string& tiling,
                        std::vector<std::string_view>& payloads) {
  DumpProto header;
  header.set_version(std::string(kDumpFormatVersion));
  header.set_dump_time(NowMicros());
  header.set_op_name(e.step.name);
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    if (!e.inputs[i].present()) continue;
    auto* in = header.add_input();
    Describe(e.inputs[i].info(), static_cast<uint32_t>(i), in);
    in->set_input_type(kInputTypeInput);
    payloads.emplace_back(static_cast<const char*>(e.inputs[i].data),
                          e.inputs[i].ByteSize());
  }
  if (!tiling.empty()) {
    auto* in = header.add_input();
    in->set_data_type(toolkit::dumpdata::DT_UINT8);
    in->set_format(toolkit::dumpdata::FORMAT_ND);
    in->mutable_shape()->add_dim(tiling.size());
    in->set_size(tiling.size());
    in->set_input_type(kInputTypeTilingData);
    payloads.emplace_back(tiling);
  }
  for (size_t o = 0; o < e.outputs.size(); ++o) {
    auto* out = header.add_output();
    Describe(e.outputs[o].info(), static_cast<uint32_t>(o), out);
    payloads.emplace_back(static_cast<const char*>(e.outputs[o].data),
                          e.outputs[o].ByteSize());
  }
  if (!e.workspace.empty()) {
    auto* space = header.add_space();
    space->set_size(e.workspace.size());
    space->set_arg_index(kInputTypeWorkspace);
    payloads.emplace_back(reinterpret_cast<const char*>(e.workspace.data()),
                          e.workspace.size());
  }
  AddAttr(header, "op_type", e.step.op_type);
  AddAttr(header, "original_names", StrJoin(e.step.original_names, ","));
  if (e.step.attrs != nullptr) {
    for (const auto& [name, value] : e.step.attrs->values()) {
      AddAttr(header, name, AttrValueToString(value));
    }
  }
  for (const auto& [name, value] : e.step.launch_params) {
    AddAttr(header, "launch." + name, value);
  }
  header.set_dfx_message(StrCat("model '", model_name, "', iteration ",
                                e.iteration, ", task ", e.step.task_id, ": ",
                                status.message()));
  return header;
}

class ExceptionObserver final : public ExecutionObserver {
 public:
  ExceptionObserver(std::shared_ptr<DumpSession> session, int32_t device_id,
                    std::string model)
      : session_(std::move(session)),
        device_id_(device_id),
        model_(std::move(model)) {}
  bool BeginIteration(uint64_t) override { return false; }  // failures only
  void OnNodeFailure(const NodeEvent& e, const absl::Status& status) override {
    if (!session_->EnterExecution()) return;
    WriteExceptionDump(*session_, device_id_, e, status, model_);
    session_->ExitExecution();
  }

 private:
  std::shared_ptr<DumpSession> session_;
  int32_t device_id_;
  std::string model_;
};

}  // namespace

// Waits for the file, so it exists even if the process ends right after the
// failure.
void WriteExceptionDump(DumpSession& session, int32_t device_id,
                        const NodeEvent& e, const absl::Status& status,
                        std::string_view model_name) {
  std::string tiling;
  for (const auto& [name, value] : e.step.launch_params) {
    StrAppend(tiling, name, "=", value, ";");
  }
  std::vector<std::string_view> payloads;
  DumpProto header = FailureHeader(e, status, model_name, tiling, payloads);
  size_t total = 0;
  for (std::string_view p : payloads) total += p.size();
  DumpWriter& writer = session.writer();
  WriteJob job;
  job.timestamp_us = header.dump_time();
  job.buffer = writer.AcquireBuffer(total);
  std::vector<size_t> sizes;
  for (std::string_view p : payloads) {
    if (!p.empty())
      std::memcpy(job.buffer.data() + job.used, p.data(), p.size());
    job.used += p.size();
    sizes.push_back(p.size());
  }
  job.renderer = std::make_shared<ExceptionFileRenderer>(
      StrCat("extra-info/data-dump/", device_id),
      DumpFileName(e.step.op_type, e.step.name, e.step.task_id, 0,
                   job.timestamp_us),
      std::move(header), std::move(sizes));
  writer.Submit(std::move(job));
  // Failures stay recorded for the session's report.
  writer.Flush().IgnoreError();
}

Attachment MakeExceptionObserver(std::shared_ptr<DumpSession> session,
                                 const CompiledModel& model,
                                 const ModelIdentity& identity) {
  return Attachment{
      std::make_shared<ExceptionObserver>(
          std::move(session), identity.device_id, model.graph().name),
      std::vector<uint8_t>(model.steps().size(), kObserveNothing)};
}

}  // namespace acldump::dump
