#include "kernels/testing/op_tester.h"

#include "base/status_macros.h"

namespace acldump::testing {

OpTester& OpTester::AddInput(Tensor tensor, bool constant) {
  inputs_.push_back(std::move(tensor));
  constant_.push_back(constant);
  absent_.push_back(false);
  return *this;
}

OpTester& OpTester::AbsentInput() {
  inputs_.emplace_back();
  constant_.push_back(false);
  absent_.push_back(true);
  return *this;
}

absl::StatusOr<PreparedKernel> OpTester::Prepare(
    std::vector<TensorView>& views) const {
  std::vector<TensorInfo> infos;
  for (const Tensor& t : inputs_) {
    infos.push_back(t.info());
    views.push_back(t.view());
  }
  std::vector<const TensorView*> constants;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    constants.push_back(constant_[i] && !absent_[i] ? &views[i] : nullptr);
  }
  OpContext context{op_type_, attrs_, infos, constants, num_outputs_};
  return BuiltinOps().Prepare(context);
}

absl::StatusOr<std::vector<TensorInfo>> OpTester::InferOutputs() const {
  std::vector<TensorView> views;
  ASSIGN_OR_RETURN(PreparedKernel prepared, Prepare(views));
  return prepared.outputs;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
OpTester::LaunchParams() const {
  std::vector<TensorView> views;
  ASSIGN_OR_RETURN(PreparedKernel prepared, Prepare(views));
  return prepared.kernel->LaunchParams();
}

absl::StatusOr<std::vector<Tensor>> OpTester::Run() const {
  std::vector<TensorView> views;
  ASSIGN_OR_RETURN(PreparedKernel prepared, Prepare(views));
  std::vector<Tensor> outputs;
  std::vector<TensorView> output_views;
  for (const TensorInfo& info : prepared.outputs) {
    outputs.emplace_back(info.dtype, info.shape);
    output_views.push_back(outputs.back().view());
  }
  AlignedBuffer workspace(prepared.kernel->WorkspaceBytes());
  RETURN_IF_ERROR(prepared.kernel->Run(
      views, output_views,
      std::span<std::byte>(workspace.data(), workspace.size())));
  return outputs;
}

}  // namespace acldump::testing
