// The process-wide dump state behind aclmdlInitDump / aclmdlSetDump /
// aclmdlFinalizeDump and aclInit's dump section: which config is in
// effect, which sessions are open, and the observer a newly loaded model gets.
// Thread-safe.
#ifndef ACLDUMP_DUMP_DUMP_MANAGER_H_
#define ACLDUMP_DUMP_DUMP_MANAGER_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dump/config.h"
#include "dump/exception_env.h"
#include "dump/observers.h"
#include "dump/session.h"
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

 private:
  std::shared_ptr<DumpSession> ActiveSessionLocked() const;
  // What the config of `session` attaches to a model being loaded.
  Attachment ConfigAttachment(const std::shared_ptr<DumpSession>& session,
                              const CompiledModel& model,
                              const ModelIdentity& identity,
                              std::vector<std::string>* warnings) const;

  SessionOptions options_;
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
