#include "runtime/single_op.h"

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "kernels/ops.h"

namespace acldump {

namespace {

// Prepares the op for the call's input descriptions. Attribute problems name
// an attribute; everything else is about the inputs.
absl::StatusOr<PreparedKernel> PrepareCall(
    const OpRegistry& registry, const SingleOpCall& call,
    const Attributes& attrs, const std::vector<TensorInfo>& infos) {
  if (registry.Find(call.op_type) == nullptr) {
    return WithKind(absl::NotFoundError(StrCat("op type '", call.op_type,
                                               "' is not supported")),
                    ErrorKind::kOpNotFound);
  }
  std::vector<const TensorView*> constants;
  for (const TensorView& in : call.inputs)
    constants.push_back(in.present() ? &in : nullptr);
  OpContext context{call.op_type, attrs, infos, constants, call.outputs.size()};
  absl::StatusOr<PreparedKernel> prepared = registry.Prepare(context);
  if (!prepared.ok()) {
    const bool attr_error =
        ToStd(prepared.status().message()).find("attribute") !=
        std::string_view::npos;
    return WithKind(prepared.status(), attr_error
                                           ? ErrorKind::kOpAttrNotMatch
                                           : ErrorKind::kOpInputNotMatch);
  }
  return prepared;
}

// The caller's output descriptions must be what the op produces, and every
// non-empty tensor needs a buffer.
absl::Status CheckCallBuffers(const SingleOpCall& call,
                              const std::vector<TensorInfo>& produced) {
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    if (call.outputs[i].info() != produced[i]) {
      return WithKind(absl::InvalidArgumentError(StrCat(
                          call.op_type, ": output ", i, " is described as ",
                          call.outputs[i].info().ToString(),
                          " but the op produces ", produced[i].ToString())),
                      ErrorKind::kOpOutputNotMatch);
    }
    if (call.outputs[i].data == nullptr && call.outputs[i].ByteSize() > 0) {
      return WithKind(absl::InvalidArgumentError(StrCat(
                          call.op_type, ": output ", i, " has no buffer")),
                      ErrorKind::kOpOutputNotMatch);
    }
  }
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    if (call.inputs[i].present() && call.inputs[i].data == nullptr &&
        call.inputs[i].ByteSize() > 0) {
      return WithKind(absl::InvalidArgumentError(StrCat(
                          call.op_type, ": input ", i, " has no buffer")),
                      ErrorKind::kOpInputNotMatch);
    }
  }
  return absl::OkStatus();
}

// What an observer sees of the call: a one-node model.
StepInfo DescribeStep(const SingleOpCall& call, const Attributes& attrs,
                      std::vector<TensorInfo> infos,
                      const PreparedKernel& prepared) {
  StepInfo step;
  step.name = call.op_name.empty() ? call.op_type : call.op_name;
  step.op_type = call.op_type;
  step.original_names = {step.name};
  step.input_infos = std::move(infos);
  step.output_infos = prepared.outputs;
  step.input_names.resize(call.inputs.size());
  step.output_names.resize(call.outputs.size());
  step.attrs = &attrs;
  step.launch_params = prepared.kernel->LaunchParams();
  step.workspace_bytes = prepared.kernel->WorkspaceBytes();
  return step;
}

}  // namespace

absl::Status ExecuteSingleOp(const OpRegistry& registry,
                             const SingleOpCall& call,
                             ExecutionObserver* observer) {
  Attributes empty;
  const Attributes& attrs = call.attrs ? *call.attrs : empty;
  std::vector<TensorInfo> infos;
  for (const TensorView& in : call.inputs) infos.push_back(in.info());
  ASSIGN_OR_RETURN(PreparedKernel prepared,
                   PrepareCall(registry, call, attrs, infos));
  RETURN_IF_ERROR(CheckCallBuffers(call, prepared.outputs));
  const StepInfo step = DescribeStep(call, attrs, std::move(infos), prepared);
  AlignedBuffer workspace(step.workspace_bytes);
  const std::span<const std::byte> workspace_view(workspace.data(),
                                                  workspace.size());
  const bool observed = observer != nullptr && observer->BeginIteration(0);
  if (observed)
    observer->BeforeNode(NodeEvent{step, 0, call.inputs, call.outputs, {}});
  absl::Status status = prepared.kernel->Run(
      call.inputs, call.outputs, {workspace.data(), workspace.size()});
  if (!status.ok()) {
    if (observer != nullptr) {
      observer->OnNodeFailure(
          NodeEvent{step, 0, call.inputs, call.outputs, workspace_view},
          status);
      observer->EndIteration(0).IgnoreError();
    }
    return Annotate(status, StrCat("single op '", step.name, "' (",
                                   call.op_type, ") failed"));
  }
  if (observed)
    observer->AfterNode(
        NodeEvent{step, 0, call.inputs, call.outputs, workspace_view});
  if (observer != nullptr) return observer->EndIteration(0);
  return absl::OkStatus();
}

absl::Status ExecuteSingleOp(const SingleOpCall& call,
                             ExecutionObserver* observer) {
  return ExecuteSingleOp(BuiltinOps(), call, observer);
}

}  // namespace acldump
