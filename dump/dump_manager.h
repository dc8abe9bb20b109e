// The process-wide dump state behind aclmdlInitDump / aclmdlSetDump /
// aclmdlFinalizeDump and aclInit's dump section: which config is in
// effect, which sessions are open, and the observer a newly loaded model gets.
// Thread-safe.
#ifndef ACLDUMP_DUMP_DUMP_MANAGER_H_
#define ACLDUMP_DUMP_DUMP_MANAGER_H_

#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/armed_dump.h"
#include "dump/config.h"
#include "dump/exception_env.h"
#include "dump/flight_recorder.h"
#include "dump/observers.h"
#include "dump/session.h"
#include "dump/signal_trigger.h"
#include "runtime/compiled_model.h"
#include "runtime/model_registry.h"

namespace acldump::dump {

class DumpManager final : public ModelLoadListener {
 public:
  explicit DumpManager(
      SessionOptions options = SessionOptionsFromEnvironment());
  ~DumpManager() override;

  // aclmdlInitDump: kDumpAlreadyInitialized when already initialised. Allowed
  // while aclInit's dump config is active (as the SDK does): models loaded
  // keep getting aclInit's config until SetDump sets one.
  absl::Status InitDump();
  // aclmdlSetDump: kDumpNotInitialized before InitDump; config errors as
  // LoadDumpConfigFile reports them. On success the config applies to models
  // loaded from now on; the latest call wins.
  absl::Status SetDump(const std::string& config_path);
  // aclmdlFinalizeDump: kDumpNotInitialized without InitDump. Writes everything
  // the sessions since InitDump queued and reports what could not be written
  // (kWriteFile). Models loaded with those sessions stop dumping.
  absl::Status FinalizeDump();

  // FinalizeDump that returns before the files are written: the dump ends at
  // once (InitDump may follow at once); on a background thread
  // `before_close` runs (the C ABI waits for queued executions there), then
  // the sessions close. WaitFinalized reports.
  absl::Status FinalizeDumpInBackground(
      std::function<absl::Status()> before_close);
  // Waits until every background finalize has ended (no later than
  // `deadline`, when given: DeadlineExceeded then, the rest still running)
  // and returns the first failure among them (kWriteFile as FinalizeDump's).
  absl::Status WaitFinalized(
      std::optional<std::chrono::steady_clock::time_point> deadline);

  // aclInit(config): a config with an enabled dump section dumps for the whole
  // process.
  absl::Status ConfigureFromAclInit(const std::string& config_path);
  // aclInit: the exception dump the environment turns on (ASCEND_DUMP_SCENE,
  // NPU_COLLECT_PATH; dump/exception_env.h) records failing operators for the
  // whole process, beside whatever a config dumps; a config's own exception
  // scene is then ignored with a warning, as by the SDK. Returns the
  // environment's warnings (variables ignored, and why).
  absl::StatusOr<std::vector<std::string>> EnableExceptionDumpFromEnvironment(
      const ExceptionEnvironment& environment);
  // The environment's exception session, or null.
  std::shared_ptr<DumpSession> environment_exception_session() const;
  // The session exception dumps go to (the environment's, else the config in
  // effect when its scene is an exception scene), or null.
  std::shared_ptr<DumpSession> exception_session() const;

  // aclFinalize: closes every session (aclInit's included) and reports write
  // failures.
  absl::Status Shutdown();

  // What a model being loaded gets (bound at load): an observer to attach,
  // or none. Warnings (layers that match nothing, ...) are appended to
  // `warnings`.
  Attachment OnModelLoad(const CompiledModel& model,
                         const ModelIdentity& identity,
                         std::vector<std::string>* warnings);
  // The loader's hook: attaches what OnModelLoad decides to each plan of a
  // model being loaded (every gear of a dynamic one), its warnings once each.
  absl::Status OnModelLoaded(const LoadedModel& model, int32_t device,
                             std::vector<std::string>* warnings) override;
  // For one single-op execution; null when nothing applies.
  std::shared_ptr<ExecutionObserver> SingleOpObserver(int32_t device_id);

  // Whether aclmdlInitDump ran (and aclmdlFinalizeDump has not): the SDK
  // checks it before it looks at the arguments.
  bool dump_initialized() const;

  // The session new loads would use (null when none); for tools and tests.
  std::shared_ptr<DumpSession> current_session() const;

  // Arming a loaded model (an acldump extension): from the next execution
  // on, `executions` executions of `model` (0: every one until disarmed) dump
  // as the config at `config_path` says, or with a non-empty `tag` only those
  // run for that request tag (runtime/request_tag.h). Needs no InitDump. An
  // arm for the same model and tag replaces the previous one, which is closed
  // (its files flushed; its write failures returned, the new arm in effect).
  // Config errors as SetDump's; kInvalidParam for a config that dumps
  // nothing of the model.
  absl::Status Arm(const LoadedModel& model, const std::string& config_path,
                   std::string tag, uint64_t executions,
                   std::vector<std::string>* warnings);
  // Removes the arm of `tag` (nullptr: every arm of the model), writes what it
  // queued and reports what could not be written (kWriteFile). kInvalidParam
  // when no such arm exists. `model` is null for a model since unloaded.
  absl::Status Disarm(const LoadedModel* model, uint32_t model_id,
                      const std::string* tag);
  struct ArmCounts {
    uint64_t executions = 0;  // 0: until disarmed
    uint64_t dumped = 0;      // executions claimed so far
    uint64_t remaining = 0;   // UINT64_MAX when until disarmed
  };
  // The arm of `tag` on the model; kInvalidParam when it has none.
  absl::StatusOr<ArmCounts> ArmStatus(uint32_t model_id,
                                      const std::string& tag) const;
  // What the open sessions (SetDump's since InitDump, aclInit's, the arms')
  // dropped of model `model_id` under the drop policy or a byte budget.
  DropCounts DropsOf(uint32_t model_id) const;
  // The model was unloaded: its arms are closed and its recorder stopped (a
  // failure is returned).
  absl::Status OnModelUnloaded(uint32_t model_id);

  // A flight recorder on a loaded model (an acldump extension; see
  // dump/flight_recorder.h). Its reports go where the dump config at
  // `config_path` says, and it dumps each replay as that config says (a
  // replay is one execution: a config with dump_step is refused). Config
  // errors as SetDump's; kInvalidParam when the model has a recorder already,
  // or for a config that dumps nothing of the model.
  absl::Status StartRecorder(const std::shared_ptr<const LoadedModel>& model,
                             const std::string& config_path,
                             RecorderOptions options);
  // Stops the recorder after the reports under way; returns the first report
  // failure not yet returned. kInvalidParam when the model has none.
  absl::Status StopRecorder(const LoadedModel* model, uint32_t model_id);
  // Writes a report of the model's recorder now (replaying its newest
  // execution), on the calling thread.
  absl::StatusOr<RecorderReport> TriggerRecorder(uint32_t model_id,
                                                 std::string reason);
  // The recorder's counts, and its latest report (if any).
  absl::StatusOr<RecorderCounts> RecorderStatus(
      uint32_t model_id, std::optional<RecorderReport>* last) const;
  // Waits for the reports its triggers started (see FlightRecorder::
  // WaitIdle).
  absl::Status WaitRecorder(
      uint32_t model_id,
      std::optional<std::chrono::steady_clock::time_point> deadline);

 private:
  std::shared_ptr<DumpSession> ActiveSessionLocked() const;
  // What the config of `session` attaches to a model being loaded.
  Attachment ConfigAttachment(const std::shared_ptr<DumpSession>& session,
                              const CompiledModel& model,
                              const ModelIdentity& identity,
                              std::vector<std::string>* warnings) const;

  // What OnModelLoad attaches for `session` (its config, plus the
  // environment's exception dump).
  Attachment AttachmentFor(const std::shared_ptr<DumpSession>& session,
                           std::shared_ptr<DumpSession> env,
                           const CompiledModel& model,
                           const ModelIdentity& identity,
                           std::vector<std::string>* warnings) const;

  // A model's arms, its recorder and what its load attached (per plan),
  // restored when the last arm and the recorder are gone.
  struct ModelArms {
    std::vector<Attachment> base;
    std::vector<std::shared_ptr<DumpArm>> arms;
    std::shared_ptr<FlightRecorder> recorder;
    std::unique_ptr<SignalSubscription> signal;
    bool empty() const { return arms.empty() && recorder == nullptr; }
  };
  // Attaches what `arms` needs to every plan of `model` (its base when none).
  absl::Status Reattach(const LoadedModel& model, const ModelArms& arms) const;
  // The entry of `model` (made with its base when missing); arms_mutex_ held.
  ModelArms& EntryLocked(const LoadedModel& model);
  // An arm of `model` dumping into `session`; `found` gets the warnings.
  absl::StatusOr<std::shared_ptr<DumpArm>> MakeArm(
      const LoadedModel& model, std::shared_ptr<DumpSession> session,
      std::string tag, uint64_t executions, std::vector<std::string>* found);
  // Puts `arm` in effect; the arm it replaces (same tag) goes to `replaced`.
  absl::Status Install(const LoadedModel& model, std::shared_ptr<DumpArm> arm,
                       std::vector<std::shared_ptr<DumpArm>>* replaced);
  // Takes the arms of `tag` (every arm: nullptr) off the model, unclosed.
  absl::StatusOr<std::vector<std::shared_ptr<DumpArm>>> RemoveArms(
      const LoadedModel* model, uint32_t model_id, const std::string* tag);
  // Writes a recorder's report: the frozen ring, the replay of its trigger
  // (dumped as `config` says) and recorder.json.
  absl::StatusOr<RecorderReport> WriteRecorderReport(
      const std::weak_ptr<const LoadedModel>& model, const DumpConfig& config,
      FrozenRing ring);
  std::shared_ptr<FlightRecorder> FindRecorder(uint32_t model_id) const;

  // Ends the dump; the sessions to close.
  absl::StatusOr<std::vector<std::shared_ptr<DumpSession>>> EndDump();

  SessionOptions options_;
  std::mutex finalizing_mutex_;  // guards finalizing_
  std::vector<std::future<absl::Status>> finalizing_;
  mutable std::mutex arms_mutex_;  // guards arms_; taken before mutex_
  std::map<uint32_t, ModelArms> arms_;
  mutable std::mutex mutex_;
  bool initialized_ = false;
  bool set_since_init_ = false;           // SetDump succeeded since InitDump
  std::shared_ptr<DumpSession> current_;  // from the latest SetDump
  std::vector<std::shared_ptr<DumpSession>>
      sessions_;                                // every SetDump since InitDump
  std::shared_ptr<DumpSession> init_session_;   // from aclInit's config
  std::shared_ptr<DumpSession> env_exception_;  // from the environment
  // Whether a config's exception scene gives way to the environment's (with
  // a warning).
  bool YieldsToEnvironment(const DumpConfig& config) const;
};

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_DUMP_MANAGER_H_
