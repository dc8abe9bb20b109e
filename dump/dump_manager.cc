#include "dump/dump_manager.h"

#include <algorithm>
#include <cstdio>

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "dump/policy.h"
#include "dump/record.h"

namespace acldump::dump {
DumpManager::DumpManager(SessionOptions options)
    : options_(std::move(options)) {}

DumpManager::~DumpManager() { Shutdown().IgnoreError(); }

absl::Status DumpManager::InitDump() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (initialized_) {
    return KindError(
        ErrorKind::kDumpAlreadyInitialized,
        "aclmdlInitDump was already called; call aclmdlFinalizeDump first");
  }
  initialized_ = true;
  return absl::OkStatus();
}

bool DumpManager::dump_initialized() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return initialized_;
}

absl::Status DumpManager::SetDump(const std::string& config_path) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!initialized_) {
      return KindError(ErrorKind::kDumpNotInitialized,
                       "aclmdlSetDump needs aclmdlInitDump first");
    }
  }
  ASSIGN_OR_RETURN(DumpConfig config, LoadDumpConfigFile(config_path));
  // As the SDK: accepted, and the config in effect stays.
  if (YieldsToEnvironment(config)) return absl::OkStatus();
  std::shared_ptr<DumpSession> session;
  if (config.enabled()) {
    ASSIGN_OR_RETURN(session, DumpSession::Create(std::move(config), options_));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!initialized_) {
    return KindError(ErrorKind::kDumpNotInitialized,
                     "aclmdlFinalizeDump ran while "
                     "aclmdlSetDump was reading its config");
  }
  current_ = session;
  set_since_init_ = true;
  if (session) sessions_.push_back(std::move(session));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::shared_ptr<DumpSession>>>
DumpManager::EndDump() {
  std::vector<std::shared_ptr<DumpSession>> sessions;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!initialized_) {
    return KindError(ErrorKind::kDumpNotInitialized,
                     "aclmdlFinalizeDump needs aclmdlInitDump first");
  }
  initialized_ = false;
  set_since_init_ = false;
  current_.reset();
  sessions.swap(sessions_);
  return sessions;
}

namespace {

absl::Status CloseSessions(
    const std::vector<std::shared_ptr<DumpSession>>& sessions) {
  absl::Status first;
  for (const auto& session : sessions) {
    absl::Status closed = session->Close();
    if (first.ok()) first = closed;
  }
  return first;
}

}  // namespace

absl::Status DumpManager::FinalizeDump() {
  ASSIGN_OR_RETURN(std::vector<std::shared_ptr<DumpSession>> sessions,
                   EndDump());
  return CloseSessions(sessions);
}

absl::Status DumpManager::FinalizeDumpInBackground(
    std::function<absl::Status()> before_close) {
  ASSIGN_OR_RETURN(std::vector<std::shared_ptr<DumpSession>> sessions,
                   EndDump());
  std::future<absl::Status> done;
  try {
    done = std::async(
        std::launch::async, [sessions = std::move(sessions),
                             before_close = std::move(before_close)] {
          absl::Status first = before_close ? before_close() : absl::OkStatus();
          absl::Status closed = CloseSessions(sessions);
          return first.ok() ? closed : first;
        });
  } catch (const std::system_error& e) {
    return WithKind(absl::ResourceExhaustedError(
                        StrCat("cannot start a thread to finalize the dump: ",
                               e.what(), "; call aclmdlFinalizeDump instead")),
                    ErrorKind::kOutOfMemory);
  }
  std::lock_guard<std::mutex> lock(finalizing_mutex_);
  finalizing_.push_back(std::move(done));
  return absl::OkStatus();
}

absl::Status DumpManager::WaitFinalized(
    std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::lock_guard<std::mutex> lock(finalizing_mutex_);
  absl::Status first;
  size_t waited = 0;
  for (; waited < finalizing_.size(); ++waited) {
    std::future<absl::Status>& done = finalizing_[waited];
    if (deadline && done.wait_until(*deadline) != std::future_status::ready) {
      break;
    }
    absl::Status status = done.get();
    if (first.ok()) first = status;
  }
  const size_t running = finalizing_.size() - waited;
  finalizing_.erase(finalizing_.begin(), finalizing_.begin() + waited);
  if (running > 0 && first.ok()) {
    return absl::DeadlineExceededError(StrCat(
        running, running == 1 ? " dump finalize is" : " dump finalizes are",
        " still writing files"));
  }
  return first;
}

absl::Status DumpManager::ConfigureFromAclInit(const std::string& config_path) {
  ASSIGN_OR_RETURN(DumpConfig config, LoadDumpConfigFile(config_path));
  if (!config.enabled() || YieldsToEnvironment(config)) {
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(auto session,
                   DumpSession::Create(std::move(config), options_));
  std::lock_guard<std::mutex> lock(mutex_);
  init_session_ = std::move(session);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>>
DumpManager::EnableExceptionDumpFromEnvironment(
    const ExceptionEnvironment& environment) {
  if (!environment.level) return environment.warnings;
  SessionOptions options = options_;
  options.exception_root = environment.root;
  ASSIGN_OR_RETURN(
      auto session,
      DumpSession::Create(EnvironmentExceptionConfig(environment), options));
  std::lock_guard<std::mutex> lock(mutex_);
  env_exception_ = std::move(session);
  return environment.warnings;
}

std::shared_ptr<DumpSession> DumpManager::environment_exception_session()
    const {
  std::lock_guard<std::mutex> lock(mutex_);
  return env_exception_;
}

std::shared_ptr<DumpSession> DumpManager::exception_session() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (env_exception_ && !env_exception_->closed()) return env_exception_;
  std::shared_ptr<DumpSession> active = ActiveSessionLocked();
  if (active && !active->closed() &&
      active->config().scene == DumpScene::kException)
    return active;
  return nullptr;
}

bool DumpManager::YieldsToEnvironment(const DumpConfig& config) const {
  if (config.scene != DumpScene::kException) return false;
  std::shared_ptr<DumpSession> env;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    env = env_exception_;
  }
  if (!env) return false;
  std::fprintf(stderr,
               "[acldump] warning: %s: dump_scene '%s' is ignored: exception "
               "dump is already on from the environment (%s)\n",
               config.source.c_str(), config.exception_scene.c_str(),
               env->config().source.c_str());
  return true;
}

absl::Status DumpManager::Shutdown() {
  absl::Status background = WaitFinalized(std::nullopt);
  std::vector<std::shared_ptr<DumpSession>> sessions;
  std::map<uint32_t, ModelArms> models;
  {
    std::lock_guard<std::mutex> lock(arms_mutex_);
    models.swap(arms_);
  }
  absl::Status stopped;
  for (auto& [id, model] : models) {
    model.signal.reset();
    if (model.recorder) {
      absl::Status status = model.recorder->Stop();
      if (stopped.ok()) stopped = status;
    }
    for (auto& arm : model.arms) sessions.push_back(arm->shared_session());
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sessions.swap(sessions_);
    if (init_session_) sessions.push_back(std::move(init_session_));
    init_session_.reset();
    if (env_exception_) sessions.push_back(std::move(env_exception_));
    env_exception_.reset();
    current_.reset();
    initialized_ = false;
    set_since_init_ = false;
  }
  absl::Status closed = CloseSessions(sessions);
  if (!background.ok()) return background;
  return stopped.ok() ? closed : stopped;
}

std::shared_ptr<DumpSession> DumpManager::ActiveSessionLocked() const {
  if (initialized_ && set_since_init_) return current_;
  return init_session_;
}

Attachment DumpManager::OnModelLoad(const CompiledModel& model,
                                    const ModelIdentity& identity,
                                    std::vector<std::string>* warnings) {
  std::shared_ptr<DumpSession> session, env;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    session = ActiveSessionLocked();
    env = env_exception_;
  }
  return AttachmentFor(session, std::move(env), model, identity, warnings);
}

Attachment DumpManager::AttachmentFor(
    const std::shared_ptr<DumpSession>& session,
    std::shared_ptr<DumpSession> env, const CompiledModel& model,
    const ModelIdentity& identity, std::vector<std::string>* warnings) const {
  Attachment attachment = ConfigAttachment(session, model, identity, warnings);
  if (!env || env->closed()) return attachment;
  return WithExceptionDump(std::move(attachment), std::move(env),
                           identity.device_id, model.graph().name,
                           model.steps().size());
}

namespace {

// Scenes other than the model dump plan their records before execution and
// do not cover the steps a model prepares while it runs: said once per load.
void WarnOfDynamicSteps(const CompiledModel& model, std::string_view scene,
                        std::vector<std::string>* warnings) {
  if (warnings == nullptr) return;
  size_t dynamic = 0;
  for (const StepInfo& step : model.steps()) dynamic += step.dynamic ? 1 : 0;
  if (dynamic == 0) return;
  warnings->push_back(
      StrCat("model '", model.graph().name, "': ", dynamic,
             " operators run where shapes are known only while the model runs "
             "(control flow, sizes that depend on values); ",
             scene, " does not cover them (a model dump does)"));
}

}  // namespace

Attachment DumpManager::ConfigAttachment(
    const std::shared_ptr<DumpSession>& session, const CompiledModel& model,
    const ModelIdentity& identity, std::vector<std::string>* warnings) const {
  if (!session || session->closed()) return {};
  const DumpConfig& config = session->config();
  switch (config.scene) {
    case DumpScene::kException:
      WarnOfDynamicSteps(model, "the exception dump", warnings);
      break;
    case DumpScene::kOverflow:
      WarnOfDynamicSteps(model, "overflow detection", warnings);
      break;
    case DumpScene::kWatcher:
      WarnOfDynamicSteps(model, "the watcher dump", warnings);
      break;
    default:
      if (session->baseline()) {
        WarnOfDynamicSteps(model, "the baseline diff", warnings);
      }
      break;
  }
  // The exception scene wins over model and single-op dump.
  if (config.scene == DumpScene::kException)
    return MakeExceptionObserver(session, model, identity);
  if (config.scene == DumpScene::kOverflow)
    return MakeOverflowObserver(session, model, identity);
  if (config.scene == DumpScene::kWatcher)
    return MakeWatcherObserver(session, model, identity, warnings);
  DumpPlan plan = BuildDumpPlan(config, model, identity.file_stem);
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), plan.warnings.begin(),
                     plan.warnings.end());
  }
  if (!plan.selected) return {};
  if (session->baseline()) {
    absl::StatusOr<Attachment> baseline =
        MakeBaselineObserver(session, plan, model, identity, warnings);
    if (!baseline.ok()) return Attachment{nullptr, {}, baseline.status()};
    return *std::move(baseline);
  }
  return MakeModelDumpObserver(session, plan, model, identity);
}

absl::Status DumpManager::OnModelLoaded(const LoadedModel& model,
                                        int32_t device,
                                        std::vector<std::string>* warnings) {
  const ModelIdentity identity{model.id, model.file_stem, device};
  std::vector<std::string> found;
  for (size_t i = 0; i < model.model->num_plans(); ++i) {
    CompiledModel& plan = model.model->plan(i);
    Attachment attachment = OnModelLoad(plan, identity, &found);
    RETURN_IF_ERROR(attachment.status);
    if (!attachment.observer) continue;
    RETURN_IF_ERROR(plan.AttachObserver(std::move(attachment.observer),
                                        std::move(attachment.step_flags)));
  }
  if (warnings == nullptr) return absl::OkStatus();
  // Gears share their layer names: one warning per distinct text.
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  warnings->insert(warnings->end(), found.begin(), found.end());
  return absl::OkStatus();
}

std::shared_ptr<ExecutionObserver> DumpManager::SingleOpObserver(
    int32_t device_id) {
  std::shared_ptr<DumpSession> session, env;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    session = ActiveSessionLocked();
    env = env_exception_;
  }
  std::shared_ptr<ExecutionObserver> observer;
  if (session && !session->closed() &&
      (session->config().scene == DumpScene::kException ||
       session->config().op_switch)) {
    observer = MakeSingleOpObserver(std::move(session), device_id);
  }
  if (!env || env->closed()) return observer;
  if (!observer) return MakeSingleOpObserver(std::move(env), device_id);
  return WithExceptionDump(Attachment{std::move(observer), {}}, std::move(env),
                           device_id, "(single op)", 0)
      .observer;
}

std::shared_ptr<DumpSession> DumpManager::current_session() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ActiveSessionLocked();
}

namespace {

std::string ArmName(uint32_t model_id, std::string_view tag) {
  return tag.empty()
             ? StrCat("the untagged arm of model ", model_id)
             : StrCat("the arm of model ", model_id, " for tag '", tag, "'");
}

absl::Status CloseAll(const std::vector<std::shared_ptr<DumpArm>>& arms) {
  absl::Status first;
  for (const auto& arm : arms) {
    absl::Status closed = arm->session().Close();
    if (first.ok()) first = closed;
  }
  return first;
}

}  // namespace

absl::Status DumpManager::Reattach(const LoadedModel& model,
                                   const ModelArms& arms) const {
  for (size_t i = 0; i < model.model->num_plans(); ++i) {
    CompiledModel& plan = model.model->plan(i);
    Attachment attachment =
        arms.arms.empty() ? arms.base[i]
                          : MakeArmedAttachment(arms.base[i], arms.arms, i,
                                                plan.steps().size(), model.id);
    if (arms.recorder != nullptr) {
      attachment =
          MakeRecorderAttachment(std::move(attachment), arms.recorder, i, plan);
    }
    RETURN_IF_ERROR(plan.AttachObserver(std::move(attachment.observer),
                                        std::move(attachment.step_flags)));
  }
  return absl::OkStatus();
}

DumpManager::ModelArms& DumpManager::EntryLocked(const LoadedModel& model) {
  auto [it, inserted] = arms_.try_emplace(model.id);
  ModelArms& entry = it->second;
  if (inserted) {
    for (size_t i = 0; i < model.model->num_plans(); ++i) {
      const CompiledModel& plan = model.model->plan(i);
      entry.base.push_back(Attachment{plan.observer(), plan.observer_flags()});
    }
  }
  return entry;
}

absl::StatusOr<std::shared_ptr<DumpArm>> DumpManager::MakeArm(
    const LoadedModel& model, std::shared_ptr<DumpSession> session,
    std::string tag, uint64_t executions, std::vector<std::string>* found) {
  std::shared_ptr<DumpSession> env = environment_exception_session();
  auto arm = std::make_shared<DumpArm>(std::move(tag), executions, session);
  const ModelIdentity identity{model.id, model.file_stem, model.device};
  bool selects = false;
  for (size_t i = 0; i < model.model->num_plans(); ++i) {
    const CompiledModel& plan = model.model->plan(i);
    Attachment attachment = AttachmentFor(session, env, plan, identity, found);
    RETURN_IF_ERROR(attachment.status);
    selects = selects || attachment.observer != nullptr;
    arm->plans.push_back(std::move(attachment));
  }
  if (!selects) {
    return KindError(
        ErrorKind::kInvalidParam,
        StrCat(session->config().source, ": its dump_list selects nothing of ",
               "model ", model.id, " ('", model.model->plan(0).graph().name,
               "'); name it in a model_name, or leave model_name out"));
  }
  arm->directory = ModelFolder(
      model.device,
      BuildDumpPlan(session->config(), model.model->plan(0), model.file_stem)
          .model_name,
      model.id);
  return arm;
}

absl::Status DumpManager::Install(
    const LoadedModel& model, std::shared_ptr<DumpArm> arm,
    std::vector<std::shared_ptr<DumpArm>>* replaced) {
  std::lock_guard<std::mutex> lock(arms_mutex_);
  ModelArms& entry = EntryLocked(model);
  for (auto a = entry.arms.begin(); a != entry.arms.end();) {
    if ((*a)->tag() == arm->tag()) {
      replaced->push_back(*a);
      a = entry.arms.erase(a);
    } else {
      ++a;
    }
  }
  entry.arms.push_back(arm);
  absl::Status attached = Reattach(model, entry);
  if (!attached.ok()) {
    entry.arms.pop_back();
    Reattach(model, entry).IgnoreError();
    replaced->push_back(std::move(arm));
    if (entry.empty()) arms_.erase(model.id);
  }
  return attached;
}

absl::Status DumpManager::Arm(const LoadedModel& model,
                              const std::string& config_path, std::string tag,
                              uint64_t executions,
                              std::vector<std::string>* warnings) {
  ASSIGN_OR_RETURN(DumpConfig config, LoadDumpConfigFile(config_path));
  if (!config.enabled()) {
    return KindError(ErrorKind::kInvalidParam,
                     StrCat(config.source,
                            ": its dump section turns no dump on (set "
                            "dump_path and dump_list, or dump_op_switch); "
                            "nothing to arm model ",
                            model.id, " with"));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<DumpSession> session,
                   DumpSession::Create(std::move(config), options_));
  std::vector<std::string> found;
  absl::StatusOr<std::shared_ptr<DumpArm>> arm =
      MakeArm(model, session, std::move(tag), executions, &found);
  if (!arm.ok()) {
    session->Close().IgnoreError();
    return arm.status();
  }
  std::vector<std::shared_ptr<DumpArm>> replaced;
  absl::Status installed = Install(model, *std::move(arm), &replaced);
  if (!installed.ok()) {
    CloseAll(replaced).IgnoreError();
    return installed;
  }
  if (warnings != nullptr) {
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    warnings->insert(warnings->end(), found.begin(), found.end());
  }
  return CloseAll(replaced);
}

absl::StatusOr<std::vector<std::shared_ptr<DumpArm>>> DumpManager::RemoveArms(
    const LoadedModel* model, uint32_t model_id, const std::string* tag) {
  std::vector<std::shared_ptr<DumpArm>> removed;
  std::lock_guard<std::mutex> lock(arms_mutex_);
  auto it = arms_.find(model_id);
  if (it != arms_.end()) {
    ModelArms& entry = it->second;
    for (auto a = entry.arms.begin(); a != entry.arms.end();) {
      if (tag == nullptr || (*a)->tag() == *tag) {
        removed.push_back(*a);
        a = entry.arms.erase(a);
      } else {
        ++a;
      }
    }
    // The executions under way finish first (AttachObserver waits), so
    // closing the sessions after writes all they dumped.
    if (!removed.empty() && model != nullptr) {
      RETURN_IF_ERROR(Reattach(*model, entry));
    }
    if (entry.empty()) arms_.erase(it);
  }
  return removed;
}

absl::Status DumpManager::Disarm(const LoadedModel* model, uint32_t model_id,
                                 const std::string* tag) {
  ASSIGN_OR_RETURN(std::vector<std::shared_ptr<DumpArm>> removed,
                   RemoveArms(model, model_id, tag));
  if (removed.empty()) {
    return KindError(ErrorKind::kInvalidParam,
                     tag == nullptr
                         ? StrCat("model ", model_id, " is not armed")
                         : StrCat(ArmName(model_id, *tag),
                                  " does not exist (arm it first)"));
  }
  return CloseAll(removed);
}

absl::StatusOr<DumpManager::ArmCounts> DumpManager::ArmStatus(
    uint32_t model_id, const std::string& tag) const {
  std::lock_guard<std::mutex> lock(arms_mutex_);
  auto it = arms_.find(model_id);
  if (it != arms_.end()) {
    for (const auto& arm : it->second.arms) {
      if (arm->tag() != tag) continue;
      // Take() never claims past the arm's executions.
      return ArmCounts{arm->executions(), arm->taken(), arm->remaining()};
    }
  }
  return KindError(ErrorKind::kInvalidParam,
                   StrCat(ArmName(model_id, tag), " does not exist"));
}

absl::Status DumpManager::OnModelUnloaded(uint32_t model_id) {
  std::vector<std::shared_ptr<DumpArm>> removed;
  ModelArms entry;
  {
    std::lock_guard<std::mutex> lock(arms_mutex_);
    auto it = arms_.find(model_id);
    if (it == arms_.end()) return absl::OkStatus();
    entry = std::move(it->second);
    arms_.erase(it);
  }
  // Outside the lock: a report under way may arm the model for its replay.
  entry.signal.reset();
  absl::Status stopped =
      entry.recorder ? entry.recorder->Stop() : absl::OkStatus();
  absl::Status closed = CloseAll(entry.arms);
  return stopped.ok() ? closed : stopped;
}

DropCounts DumpManager::DropsOf(uint32_t model_id) const {
  std::vector<std::shared_ptr<DumpSession>> sessions;
  {
    std::lock_guard<std::mutex> lock(arms_mutex_);
    auto it = arms_.find(model_id);
    if (it != arms_.end()) {
      for (const auto& arm : it->second.arms) {
        sessions.push_back(arm->shared_session());
      }
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sessions.insert(sessions.end(), sessions_.begin(), sessions_.end());
    if (init_session_) sessions.push_back(init_session_);
  }
  DropCounts total;
  for (const auto& session : sessions) {
    const DropCounts counts = session->DropsOf(model_id);
    if (counts.iterations == 0) continue;
    if (total.iterations == 0 || counts.first_iteration < total.first_iteration)
      total.first_iteration = counts.first_iteration;
    total.last_iteration =
        std::max(total.last_iteration, counts.last_iteration);
    total.records += counts.records;
    total.bytes += counts.bytes;
    total.iterations += counts.iterations;
  }
  return total;
}

}  // namespace acldump::dump
