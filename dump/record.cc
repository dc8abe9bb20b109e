#include "dump/record.h"

#include "base/strings.h"
#include "dump/format/dump_names.h"

namespace acldump::dump {
namespace {

constexpr int32_t kFormatNchw = 0;
constexpr int32_t kFormatNd = 2;

}  // namespace

int32_t FormatOf(const TensorInfo& info) {
  return info.shape.rank() == 4 ? kFormatNchw : kFormatNd;
}

void RecordSpec::Place(const WriteJob& job, RecordFile form,
                       RenderedFile& file) const {
  // Appended, not assigned: the writer's strings keep their capacity.
  file.directory.assign(directory);
  if (per_iteration) StrAppend(file.directory, "/", job.iteration);
  file.per_iteration = per_iteration;
  file.name.clear();
  AppendDumpFileName(
      file.name, op_type, op_name,
      task_id_from_job ? static_cast<uint32_t>(job.sequence) : task_id,
      /*stream_id=*/0, job.timestamp_us);
  file.form = form;
}

std::vector<uint32_t> PresentInputs(const StepInfo& step) {
  std::vector<uint32_t> slots;
  for (size_t i = 0; i < step.input_infos.size(); ++i) {
    if (step.input_infos[i].present())
      slots.push_back(static_cast<uint32_t>(i));
  }
  return slots;
}

std::vector<uint32_t> AllOutputs(const StepInfo& step, bool outputs) {
  std::vector<uint32_t> indices;
  if (!outputs) return indices;
  for (size_t o = 0; o < step.output_infos.size(); ++o) {
    indices.push_back(static_cast<uint32_t>(o));
  }
  return indices;
}

RecordSpec StepRecord(const StepInfo& step, std::string directory,
                      const std::vector<uint32_t>& input_slots,
                      const std::vector<uint32_t>& output_indices) {
  RecordSpec spec;
  spec.directory = std::move(directory);
  spec.op_type = step.op_type;
  spec.op_name = step.name;
  spec.task_id = step.task_id;
  for (uint32_t slot : input_slots) {
    spec.tensors.push_back({true, slot, step.input_infos[slot], ""});
  }
  const std::string& original =
      step.original_names.empty() ? step.name : step.original_names.back();
  for (uint32_t o : output_indices) {
    spec.tensors.push_back({false, o, step.output_infos[o], original});
  }
  spec.attrs = {{"op_type", step.op_type},
                {"original_names", StrJoin(step.original_names, ",")}};
  return spec;
}

RecordSpec DataRecord(const NamedTensorInfo& input, std::string directory,
                      uint32_t task_id) {
  RecordSpec spec;
  spec.directory = std::move(directory);
  spec.op_type = "Data";
  spec.op_name = input.name;
  spec.task_id = task_id;
  spec.tensors.push_back({false, 0, input.info, input.name});
  spec.attrs = {{"op_type", "Data"}};
  return spec;
}

std::string ModelFolder(int32_t device_id, std::string_view model_name,
                        uint32_t model_id) {
  return StrCat(device_id, "/", EscapeNamePart(model_name), "/", model_id);
}

}  // namespace acldump::dump
