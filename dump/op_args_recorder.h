// aclopStartDumpArgs / aclopStopDumpArgs: while on, every single-operator
// execution appends one JSON line describing its arguments (what a CPU kernel
// has in place of the AI Core's argument table: the op type, each tensor's
// data type, shape and format, the attributes, and how the execution ended)
// to {path}/op_args.{pid}.jsonl. Each line is written with one append, so a
// reader never sees half a line; a line that cannot be written is counted
// and reported by Stop. Process-wide, independent of aclInit (as in the SDK).
#ifndef ACLDUMP_DUMP_OP_ARGS_RECORDER_H_
#define ACLDUMP_DUMP_OP_ARGS_RECORDER_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "kernels/attributes.h"
#include "kernels/tensor.h"

namespace acldump::dump {

struct OpArgTensor {
  TensorInfo info;
  int32_t format = 2;  // aclFormat (ND)
};

struct OpArgs {
  std::string_view op_type;
  std::vector<OpArgTensor> inputs;  // absent optional inputs: dtype unset
  std::vector<OpArgTensor> outputs;
  const Attributes* attrs = nullptr;
  absl::Status status;  // of the execution
};

class OpArgsRecorder {
 public:
  ~OpArgsRecorder();
  // FailedPrecondition when already started; InvalidArgument for an empty
  // path, one that cannot be created, is not a directory or is not readable
  // and writable. Creates the directory (and its parents) when missing.
  absl::Status Start(const std::string& path);
  // OK when not started. Else closes the file and reports lines that could
  // not be written since Start (DataLoss, naming the first reason).
  absl::Status Stop();
  bool active() const { return active_.load(std::memory_order_acquire); }
  // The file lines go to ("" when not started).
  std::string file() const;
  void Record(const OpArgs& args);

 private:
  mutable std::mutex mutex_;
  std::atomic<bool> active_{false};
  int fd_ = -1;
  std::string file_;
  uint64_t failed_ = 0;
  std::string first_failure_;
  uint64_t sequence_ = 0;
};

OpArgsRecorder& GlobalOpArgsRecorder();

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_OP_ARGS_RECORDER_H_
