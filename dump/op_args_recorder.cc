#include "dump/op_args_recorder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/strings.h"
#include "kernels/dtype.h"
#include "nlohmann/json.hpp"

namespace acldump::dump {

namespace {

nlohmann::json TensorJson(const OpArgTensor& tensor) {
  if (!tensor.info.present()) return nullptr;
  return {{"dtype", std::string(DTypeName(tensor.info.dtype))},
          {"shape", tensor.info.shape.dims()},
          {"format", tensor.format},
          {"bytes", tensor.info.ByteSize()}};
}

}  // namespace

OpArgsRecorder::~OpArgsRecorder() { Stop().IgnoreError(); }

absl::Status OpArgsRecorder::Start(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ >= 0) {
    return absl::FailedPreconditionError(
        StrCat("argument dump is already on (into '", file_,
               "'): call aclopStopDumpArgs before starting it again"));
  }
  if (path.empty()) return absl::InvalidArgumentError("path is empty");
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) {
    return absl::InvalidArgumentError(
        StrCat("cannot create the directory '", path, "': ", error.message()));
  }
  if (!std::filesystem::is_directory(path, error)) {
    return absl::InvalidArgumentError(
        StrCat("'", path, "' is not a directory"));
  }
  if (access(path.c_str(), R_OK | W_OK) != 0) {
    return absl::InvalidArgumentError(StrCat(
        "'", path, "' is not readable and writable: ", ErrnoText(errno)));
  }
  const std::string file =
      StrCat(std::filesystem::absolute(path).lexically_normal().string(),
             "/op_args.", getpid(), ".jsonl");
  const int fd =
      open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
           0640);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        StrCat("cannot open '", file, "': ", ErrnoText(errno)));
  }
  fd_ = fd;
  file_ = file;
  failed_ = 0;
  first_failure_.clear();
  active_.store(true, std::memory_order_release);
  return absl::OkStatus();
}

absl::Status OpArgsRecorder::Stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0) return absl::OkStatus();
  active_.store(false, std::memory_order_release);
  if (close(fd_) != 0 && failed_ == 0) {
    ++failed_;
    first_failure_ = ErrnoText(errno);
  }
  fd_ = -1;
  if (failed_ == 0) return absl::OkStatus();
  return absl::DataLossError(
      StrCat(failed_, " operator argument records could not be written to '",
             file_, "': ", first_failure_));
}

std::string OpArgsRecorder::file() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fd_ >= 0 ? file_ : std::string();
}

void OpArgsRecorder::Record(const OpArgs& args) {
  if (!active()) return;
  nlohmann::json line;
  line["op_type"] = std::string(args.op_type);
  line["inputs"] = nlohmann::json::array();
  for (const OpArgTensor& t : args.inputs)
    line["inputs"].push_back(TensorJson(t));
  line["outputs"] = nlohmann::json::array();
  for (const OpArgTensor& t : args.outputs)
    line["outputs"].push_back(TensorJson(t));
  line["attrs"] = nlohmann::json::object();
  if (args.attrs != nullptr) {
    for (const auto& [name, value] : args.attrs->values()) {
      line["attrs"][name] = AttrValueToString(value);
    }
  }
  line["status"] = args.status.ok() ? std::string("ok")
                                    : std::string(ToStd(args.status.message()));
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0) return;
  line["sequence"] = sequence_++;
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
      "\n";
  // O_APPEND: one write puts the whole line at the end.
  const ssize_t written = write(fd_, text.data(), text.size());
  if (written == static_cast<ssize_t>(text.size())) return;
  const std::string reason =
      written < 0
          ? ErrnoText(errno)
          : StrCat("short write (", written, " of ", text.size(), " bytes)");
  if (written > 0) {
    // Cut the partial line back off.
    struct stat st;
    if (fstat(fd_, &st) == 0) {
      (void)ftruncate(fd_, st.st_size - written);
    }
  }
  if (failed_++ == 0) first_failure_ = reason;
}

OpArgsRecorder& GlobalOpArgsRecorder() {
  static OpArgsRecorder* recorder = new OpArgsRecorder();  // never destroyed
  return *recorder;
}

}  // namespace acldump::dump
