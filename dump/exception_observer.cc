// Exception dump (dump_scene lite_exception / aic_err_brief_dump /
// aic_err_norm_dump): when an operator fails, its inputs, outputs, workspace
// and launch parameters are written to {root}/extra-info/data-dump/{device}/,
// read-only, before the failure is returned. The brief file is named
// exception_info.{stream}.{task}.{time}; the norm file
// {op_type}.{op_name}.{task}.{time} and adds formats and attributes.
#include <chrono>
#include <cstring>
#include <filesystem>
#include <span>
#include <system_error>

#include "base/error_kind.h"
#include "base/status_macros.h"
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

// Brief files describe a tensor by shape and size (and, since a CPU knows it,
// its data type); norm files add the format.
template <typename TensorProto>
void Describe(const TensorInfo& info, uint32_t arg_index, ExceptionLevel level,
              TensorProto* proto) {
  proto->set_data_type(static_cast<OutputDataType>(ToDumpDataType(info.dtype)));
  if (level == ExceptionLevel::kNorm) {
    proto->set_format(static_cast<OutputFormat>(FormatOf(info)));
  }
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
                        ExceptionLevel level, std::string_view model_name,
                        const std::string& tiling,
                        std::vector<std::string_view>& payloads) {
  DumpProto header;
  header.set_version(std::string(kDumpFormatVersion));
  header.set_dump_time(NowMicros());
  header.set_op_name(e.step.name);
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    if (!e.inputs[i].present()) continue;
    auto* in = header.add_input();
    Describe(e.inputs[i].info(), static_cast<uint32_t>(i), level, in);
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
    Describe(e.outputs[o].info(), static_cast<uint32_t>(o), level, out);
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
  std::string message =
      StrCat("model '", model_name, "', iteration ", e.iteration, ", task ",
             e.step.task_id, ", operator '", e.step.name, "' (", e.step.op_type,
             "): ", status.message());
  if (level == ExceptionLevel::kNorm) {
    // The SDK's norm dump logs the attributes as "[AIC_INFO] all_attrs:" and
    // keeps those lines in dfx_message; here they are attrs as well.
    std::vector<std::string> all_attrs;
    if (e.step.attrs != nullptr) {
      for (const auto& [name, value] : e.step.attrs->values()) {
        AddAttr(header, name, AttrValueToString(value));
        all_attrs.push_back(StrCat(name, "=", AttrValueToString(value)));
      }
    }
    for (const auto& [name, value] : e.step.launch_params) {
      AddAttr(header, "launch." + name, value);
    }
    StrAppend(message, "\n[AIC_INFO] all_attrs:", StrJoin(all_attrs, ";"));
  }
  header.set_dfx_message(std::move(message));
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

// Forwards to another observer and writes the exception dump of failures.
class AlongsideExceptionObserver final : public ExecutionObserver {
 public:
  AlongsideExceptionObserver(std::shared_ptr<ExecutionObserver> inner,
                             std::shared_ptr<DumpSession> session,
                             int32_t device_id, std::string model)
      : inner_(std::move(inner)),
        exception_(std::move(session), device_id, std::move(model)) {}
  bool BeginIteration(uint64_t iteration) override {
    return inner_->BeginIteration(iteration);
  }
  void BeforeNode(const NodeEvent& e) override { inner_->BeforeNode(e); }
  void AfterNode(const NodeEvent& e) override { inner_->AfterNode(e); }
  void OnNodeFailure(const NodeEvent& e, const absl::Status& status) override {
    inner_->OnNodeFailure(e, status);
    exception_.OnNodeFailure(e, status);
  }
  absl::Status EndIteration(uint64_t iteration) override {
    return inner_->EndIteration(iteration);
  }

 private:
  const std::shared_ptr<ExecutionObserver> inner_;
  ExceptionObserver exception_;
};

}  // namespace

Attachment WithExceptionDump(Attachment inner,
                             std::shared_ptr<DumpSession> exception_session,
                             int32_t device_id, std::string model_name,
                             size_t num_steps) {
  if (inner.observer == nullptr) {
    return Attachment{
        std::make_shared<ExceptionObserver>(std::move(exception_session),
                                            device_id, std::move(model_name)),
        std::vector<uint8_t>(num_steps, kObserveNothing)};
  }
  inner.observer = std::make_shared<AlongsideExceptionObserver>(
      std::move(inner.observer), std::move(exception_session), device_id,
      std::move(model_name));
  return inner;
}

namespace {

// Writes one file of the exception folder: `header`, then `payloads`, named
// `name` in `directory` (relative to the session's root), and waits until it
// is on disk. Returns whether it was written (failures stay recorded for the
// session's report too).
absl::Status WriteExceptionFolderFile(
    DumpSession& session, std::string directory, std::string name,
    DumpProto header, std::span<const std::string_view> payloads) {
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
      std::move(directory), std::move(name), std::move(header),
      std::move(sizes));
  // The SDK creates the folder of exception files when it writes one.
  std::error_code ignored;
  std::filesystem::create_directories(writer.root(), ignored);
  const uint64_t failed_before = writer.stats().files_failed;
  writer.Submit(std::move(job));
  absl::Status flushed = writer.Flush();
  if (writer.stats().files_failed > failed_before) return flushed;
  return absl::OkStatus();
}

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
  const ExceptionLevel level = session.config().exception_level;
  std::vector<std::string_view> payloads;
  DumpProto header =
      FailureHeader(e, status, level, model_name, tiling, payloads);
  const std::string time =
      ExceptionTimestamp(std::chrono::system_clock::time_point(
          std::chrono::microseconds(header.dump_time())));
  std::string name =
      level == ExceptionLevel::kNorm
          ? StrCat(EscapeNamePart(e.step.op_type), ".",
                   EscapeNamePart(e.step.name), ".", e.step.task_id, ".", time)
          : StrCat(kBriefExceptionFilePrefix, ".0.", e.step.task_id, ".", time);
  // Failures stay recorded for the session's report.
  WriteExceptionFolderFile(session, StrCat("extra-info/data-dump/", device_id),
                           std::move(name), std::move(header), payloads)
      .IgnoreError();
}

namespace {

// The non-empty segments of a custom file's relative name.
absl::StatusOr<std::vector<std::string_view>> CustomFileSegments(
    std::string_view relative) {
  std::vector<std::string_view> segments;
  for (size_t begin = 0; begin <= relative.size();) {
    size_t end = relative.find('/', begin);
    if (end == std::string_view::npos) end = relative.size();
    const std::string_view segment = relative.substr(begin, end - begin);
    begin = end + 1;
    if (segment == "..") {
      return absl::InvalidArgumentError(
          StrCat("fileName '", relative, "' must not contain '..'"));
    }
    if (!segment.empty() && segment != ".") segments.push_back(segment);
  }
  if (segments.empty() || relative.front() == '/') {
    return absl::InvalidArgumentError(
        StrCat("fileName '", relative,
               "' must be a relative path naming a file (e.g. \"info\" or "
               "\"step3/info\")"));
  }
  return segments;
}

}  // namespace

absl::Status CheckCustomFileName(std::string_view relative) {
  return CustomFileSegments(relative).status();
}

absl::StatusOr<std::string> SaveCustomExceptionFile(
    DumpSession& session, int32_t device_id, std::string_view relative,
    std::string_view user_tag, std::span<const CustomTensor> tensors) {
  ASSIGN_OR_RETURN(std::vector<std::string_view> segments,
                   CustomFileSegments(relative));
  DumpProto header;
  header.set_version(std::string(kDumpFormatVersion));
  header.set_dump_time(NowMicros());
  header.set_op_name(std::string(segments.back()));
  if (!user_tag.empty()) AddAttr(header, "user_tag", std::string(user_tag));
  std::vector<std::string_view> payloads;
  auto describe = [](const CustomTensor& t, auto* proto, uint32_t index) {
    proto->set_data_type(static_cast<OutputDataType>(ToDumpDataType(t.dtype)));
    proto->set_format(static_cast<OutputFormat>(t.format));
    for (uint64_t dim : t.shape) proto->mutable_shape()->add_dim(dim);
    for (uint64_t dim : t.original_shape)
      proto->mutable_original_shape()->add_dim(dim);
    proto->set_size(t.bytes);
    proto->set_arg_index(index);
  };
  // The file holds inputs, then outputs, then workspaces, as its header
  // lists them.
  for (CustomTensor::Kind kind :
       {CustomTensor::Kind::kInput, CustomTensor::Kind::kOutput,
        CustomTensor::Kind::kWorkspace}) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      const CustomTensor& t = tensors[i];
      if (t.kind != kind) continue;
      const uint32_t index = static_cast<uint32_t>(i);
      if (kind == CustomTensor::Kind::kInput) {
        auto* in = header.add_input();
        describe(t, in, index);
        in->set_input_type(kInputTypeInput);
      } else if (kind == CustomTensor::Kind::kOutput) {
        describe(t, header.add_output(), index);
      } else {
        auto* space = header.add_space();
        space->set_size(t.bytes);
        space->set_arg_index(index);
      }
      payloads.emplace_back(static_cast<const char*>(t.data), t.bytes);
    }
  }
  std::string directory = StrCat("extra-info/data-dump/", device_id);
  for (size_t i = 0; i + 1 < segments.size(); ++i)
    StrAppend(directory, "/", segments[i]);
  std::string name =
      StrCat(segments.back(), ".custom.",
             ExceptionTimestamp(std::chrono::system_clock::time_point(
                 std::chrono::microseconds(header.dump_time()))));
  const std::string path =
      StrCat(session.writer().root(), "/", directory, "/", name);
  absl::Status written =
      WriteExceptionFolderFile(session, std::move(directory), std::move(name),
                               std::move(header), payloads);
  if (!written.ok()) {
    return WithKind(absl::DataLossError(StrCat("cannot write '", path,
                                               "': ", written.message())),
                    ErrorKind::kWriteFile);
  }
  return path;
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
