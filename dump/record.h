// A dump record: what one file of a dump holds (an operator's selected input
// and output tensors) and where it goes. Records are described once, when a
// model is loaded; on the hot path a payload fills a job for one, and on the
// writer thread the payload's renderer turns the job into a file.
#ifndef ACLDUMP_DUMP_RECORD_H_
#define ACLDUMP_DUMP_RECORD_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dump/writer.h"
#include "kernels/tensor.h"
#include "runtime/graph.h"
#include "runtime/observer.h"

namespace acldump::dump {

struct RecordTensor {
  bool is_input = false;
  uint32_t index = 0;  // the operator's input slot or output index
  TensorInfo info;
  std::string original_op;  // outputs: the source operator that produced it
};

struct RecordSpec {
  // Folder relative to the session's time folder ("0/resnet/1"); the
  // iteration is appended per job when `per_iteration`.
  std::string directory;
  bool per_iteration = true;
  std::string op_type;  // as the operator has it (escaped when naming)
  std::string op_name;
  uint32_t task_id = 0;
  // Single operators number their executions: the job's sequence is the task
  // id.
  bool task_id_from_job = false;
  std::vector<RecordTensor> tensors;  // inputs first, in file order
  std::vector<std::pair<std::string, std::string>> attrs;

  // "{directory}/{iteration}" and "{op_type}.{op_name}.{task}.0.{time}" of a
  // job, as a file of `form`.
  void Place(const WriteJob& job, RecordFile form, RenderedFile& file) const;
};

// The input slots of a step that hold tensors (absent optional inputs are
// skipped).
std::vector<uint32_t> PresentInputs(const StepInfo& step);

// A record of a step's inputs at `input_slots` and outputs at
// `output_indices`.
RecordSpec StepRecord(const StepInfo& step, std::string directory,
                      const std::vector<uint32_t>& input_slots,
                      const std::vector<uint32_t>& output_indices);
// Every output index of a step (or none).
std::vector<uint32_t> AllOutputs(const StepInfo& step, bool outputs = true);
// The record of a graph input dumped as a "Data" operator.
RecordSpec DataRecord(const NamedTensorInfo& input, std::string directory,
                      uint32_t task_id);

// "{device}/{model_name}/{model_id}": a model's folder below the time folder.
std::string ModelFolder(int32_t device_id, std::string_view model_name,
                        uint32_t model_id);

// The dump format's OutputFormat of a tensor: NCHW for rank 4, else ND.
int32_t FormatOf(const TensorInfo& info);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_RECORD_H_
