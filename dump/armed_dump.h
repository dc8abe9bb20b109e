// Dump armed on a loaded model, an acldump extension beside the SDK's calls:
// the next N executions of a model (or every one until disarmed), or only
// those run for a request tag, dump as a config says, with no reload. A model
// with arms gets an ArmedObserver, which picks per execution what observes it:
// the arm of the execution's request tag, else an untagged arm, else what the
// model's load attached (or nothing). A model without arms pays nothing.
#ifndef ACLDUMP_DUMP_ARMED_DUMP_H_
#define ACLDUMP_DUMP_ARMED_DUMP_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dump/observers.h"
#include "dump/session.h"

namespace acldump::dump {

// Written beside the dump files of each execution an arm dumped (in both
// layouts): which request it ran for, and which arm dumped it.
inline constexpr std::string_view kRequestFileName = "request.json";

class DumpArm {
 public:
  // `executions` 0: every matching execution until disarmed.
  DumpArm(std::string tag, uint64_t executions,
          std::shared_ptr<DumpSession> session);

  // Claims one execution for this arm; false once its executions are spent.
  bool Take();

  const std::string& tag() const { return tag_; }
  uint64_t executions() const { return executions_; }
  // Executions claimed so far.
  uint64_t taken() const { return taken_.load(std::memory_order_acquire); }
  // Executions left (UINT64_MAX when unlimited).
  uint64_t remaining() const;
  // The iteration of the latest execution it dumped; none before one (a
  // claimed execution is not dumped when the arm selects nothing of the
  // gear it ran).
  std::optional<uint64_t> last_iteration() const {
    const uint64_t stored = last_iteration_.load(std::memory_order_acquire);
    if (stored == 0) return std::nullopt;
    return stored - 1;
  }
  void set_last_iteration(uint64_t iteration) {
    last_iteration_.store(iteration + 1, std::memory_order_release);
  }
  DumpSession& session() const { return *session_; }
  const std::shared_ptr<DumpSession>& shared_session() const {
    return session_;
  }

  // What the arm attaches to each plan of the model (a dynamic-shape model
  // has one per gear), and the model folder its files go to.
  std::vector<Attachment> plans;
  std::string directory;

 private:
  const std::string tag_;
  const uint64_t executions_;
  const std::shared_ptr<DumpSession> session_;
  std::atomic<uint64_t> taken_{0};
  std::atomic<uint64_t> last_iteration_{0};  // the iteration + 1; 0: none
};

// The observer (and step flags) of plan `plan` (of `num_steps` steps) of a
// model with `arms`; `base` is what its load attached (may be empty).
Attachment MakeArmedAttachment(Attachment base,
                               std::vector<std::shared_ptr<DumpArm>> arms,
                               size_t plan, size_t num_steps,
                               uint32_t model_id);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_ARMED_DUMP_H_
