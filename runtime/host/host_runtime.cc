#include "runtime/host/host_runtime.h"

#include "base/error_kind.h"
#include "base/status_macros.h"
#include "base/strings.h"

namespace acldump::host {
namespace {

thread_local std::weak_ptr<Context> current_context;
thread_local const Stream* blocking_callback_stream = nullptr;

constexpr char kNoContext[] =
    "the calling thread has no current context: call aclrtSetDevice or "
    "aclrtCreateContext (or aclrtSetCurrentContext) in this thread first";

// Destroying a context's streams waits for their work, which includes the
// blocking callback the calling thread may be running.
absl::Status CheckNotInOwnCallback(const Context& context) {
  const Stream* stream = blocking_callback_stream;
  if (stream == nullptr || stream->context() != &context) {
    return absl::OkStatus();
  }
  return KindError(
      ErrorKind::kRtParamInvalid,
      "a context cannot be destroyed from a blocking callback of one of "
      "its streams (they wait for the callback to return)");
}

absl::Status CheckDevice(int32_t device) {
  if (device >= 0 && device <= kMaxDeviceId) return absl::OkStatus();
  return KindError(ErrorKind::kRtInvalidDeviceId,
                   StrCat("device id ", device, " is not in 0..", kMaxDeviceId,
                          " (aclrtGetDeviceCount)"),
                   absl::StatusCode::kInvalidArgument);
}

std::string Address(const void* pointer) {
  return StrCat("0x",
                fmt::format("{:x}", reinterpret_cast<uintptr_t>(pointer)));
}

// A handle that is not (or no longer) in the runtime's tables.
absl::Status NotLive(ErrorKind error, std::string_view kind,
                     const void* handle) {
  return KindError(error, StrCat(kind, " ", Address(handle), " is not a live ",
                                 kind, " (destroyed already?)"));
}

}  // namespace

const Stream* BlockingCallbackStream() { return blocking_callback_stream; }

// ---- Reports ------------------------------------------------------------

bool ReportBoard::ServesAnyLocked(uint64_t thread) const {
  for (const auto& [stream, subscriber] : subscribers_) {
    if (subscriber == thread) return true;
  }
  return false;
}

absl::Status ReportBoard::Subscribe(uint64_t thread, const Stream* stream) {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  auto [it, inserted] = subscribers_.emplace(stream, thread);
  if (!inserted) {
    return KindError(ErrorKind::kRtStreamSubscribe,
                     StrCat("the stream is already subscribed by thread ",
                            it->second, "; aclrtUnSubscribeReport it first"));
  }
  return absl::OkStatus();
}

void ReportBoard::DropLocked(const Stream* stream) {
  for (auto& [thread, reports] : pending_) {
    for (auto it = reports.begin(); it != reports.end();) {
      if ((*it)->stream != stream) {
        ++it;
        continue;
      }
      (*it)->finished = true;  // a blocked worker goes on
      it = reports.erase(it);
    }
  }
  sync_->changed.notify_all();
}

absl::Status ReportBoard::Unsubscribe(uint64_t thread, const Stream* stream) {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  auto it = subscribers_.find(stream);
  if (it == subscribers_.end()) {
    return KindError(ErrorKind::kRtStreamSubscribe,
                     "the stream is not subscribed (aclrtSubscribeReport)");
  }
  if (it->second != thread) {
    return KindError(ErrorKind::kRtThreadSubscribe,
                     StrCat("the stream is subscribed by thread ", it->second,
                            ", not by thread ", thread));
  }
  subscribers_.erase(it);
  DropLocked(stream);
  return absl::OkStatus();
}

bool ReportBoard::IsSubscribed(const Stream* stream) const {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  return subscribers_.count(stream) > 0;
}

void ReportBoard::Forget(const Stream* stream) {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  subscribers_.erase(stream);
  DropLocked(stream);
}

void ReportBoard::Deliver(const Stream* stream, ReportCallback fn, void* data,
                          bool block) {
  std::unique_lock<std::mutex> lock(sync_->mutex);
  auto subscriber = subscribers_.find(stream);
  if (sync_->stopping || subscriber == subscribers_.end()) return;
  auto report = std::make_shared<Report>(Report{fn, data, stream, block});
  pending_[subscriber->second].push_back(report);
  sync_->changed.notify_all();
  if (!block) return;
  sync_->changed.wait(lock,
                      [&] { return report->finished || sync_->stopping; });
}

absl::Status ReportBoard::Process(uint64_t thread, int32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(sync_->mutex);
  if (!ServesAnyLocked(thread)) {
    return KindError(ErrorKind::kRtThreadSubscribe,
                     StrCat("thread ", thread,
                            " serves no stream: aclrtSubscribeReport(thread "
                            "id, stream) first"));
  }
  std::deque<std::shared_ptr<Report>>& mine = pending_[thread];
  auto ready = [&] {
    return sync_->stopping || !mine.empty() || !ServesAnyLocked(thread);
  };
  if (timeout_ms < 0) {
    sync_->changed.wait(lock, ready);
  } else {
    sync_->changed.wait_for(lock, std::chrono::milliseconds(timeout_ms), ready);
  }
  if (mine.empty()) {
    if (sync_->stopping) {
      return KindError(ErrorKind::kNotInitialized,
                       "aclFinalize ended the runtime while this thread "
                       "waited for callbacks");
    }
    if (!ServesAnyLocked(thread)) {
      return KindError(ErrorKind::kRtThreadSubscribe,
                       StrCat("thread ", thread,
                              " stopped serving streams while it waited"));
    }
    return KindError(ErrorKind::kRtReportTimeout,
                     StrCat("no callback arrived within ", timeout_ms, " ms"),
                     absl::StatusCode::kDeadlineExceeded);
  }
  std::deque<std::shared_ptr<Report>> taken;
  taken.swap(mine);
  lock.unlock();
  for (const std::shared_ptr<Report>& report : taken) {
    blocking_callback_stream = report->block ? report->stream : nullptr;
    report->fn(report->data);
    blocking_callback_stream = nullptr;
    std::lock_guard<std::mutex> finished(sync_->mutex);
    report->finished = true;
    sync_->changed.notify_all();
  }
  return absl::OkStatus();
}

// ---- Runtime ------------------------------------------------------------

HostRuntime::HostRuntime()
    : sync_(std::make_shared<SyncPoint>()),
      reports_(std::make_shared<ReportBoard>(sync_)) {}

HostRuntime::~HostRuntime() { Shutdown(); }

void HostRuntime::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(sync_->mutex);
    sync_->stopping = true;
    sync_->changed.notify_all();
  }
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shut_down_ = true;
    for (auto& [handle, context] : contexts_) {
      context->alive = false;
      streams.push_back(context->default_stream);
    }
    for (auto& [handle, stream] : streams_) streams.push_back(stream);
    contexts_.clear();
    streams_.clear();
    events_.clear();
    devices_.clear();
  }
  StopStreams(streams);
}

void HostRuntime::StopStreams(
    const std::vector<std::shared_ptr<Stream>>& streams) {
  for (const std::shared_ptr<Stream>& stream : streams) {
    reports_->Forget(stream.get());
    stream->Stop();
  }
}

std::vector<std::shared_ptr<Stream>> HostRuntime::RetireContextLocked(
    std::shared_ptr<Context> context) {
  context->alive = false;
  contexts_.erase(context.get());
  std::vector<std::shared_ptr<Stream>> streams = {context->default_stream};
  for (auto it = streams_.begin(); it != streams_.end();) {
    if (it->second->context() != context.get()) {
      ++it;
      continue;
    }
    streams.push_back(it->second);
    it = streams_.erase(it);
  }
  return streams;
}

absl::Status HostRuntime::SetDevice(int32_t device) {
  RETURN_IF_ERROR(CheckDevice(device));
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceState& state = devices_[device];
  if (!state.default_context) {
    state.default_context = std::make_shared<Context>(this, device, true);
    contexts_[state.default_context.get()] = state.default_context;
  }
  ++state.open_count;
  current_context = state.default_context;
  return absl::OkStatus();
}

absl::Status HostRuntime::ResetDevice(int32_t device) {
  RETURN_IF_ERROR(CheckDevice(device));
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = devices_.find(device);
    if (it == devices_.end() || it->second.open_count == 0) {
      return absl::OkStatus();
    }
    if (it->second.open_count == 1 && it->second.default_context) {
      RETURN_IF_ERROR(CheckNotInOwnCallback(*it->second.default_context));
    }
    if (--it->second.open_count > 0) return absl::OkStatus();
    if (it->second.default_context) {
      streams = RetireContextLocked(it->second.default_context);
    }
    devices_.erase(it);
  }
  StopStreams(streams);
  return absl::OkStatus();
}

std::shared_ptr<Context> HostRuntime::Current() const {
  std::shared_ptr<Context> context = current_context.lock();
  if (!context || !context->alive || context->owner != this) return nullptr;
  return context;
}

absl::StatusOr<std::shared_ptr<Context>> HostRuntime::RequireCurrent() const {
  std::shared_ptr<Context> context = Current();
  if (!context) return KindError(ErrorKind::kRtContextNull, kNoContext);
  return context;
}

int32_t HostRuntime::CurrentDevice() const {
  std::shared_ptr<Context> context = Current();
  return context ? context->device : 0;
}

absl::StatusOr<void*> HostRuntime::CreateContext(int32_t device) {
  RETURN_IF_ERROR(CheckDevice(device));
  auto context = std::make_shared<Context>(this, device, false);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shut_down_) {
      return KindError(ErrorKind::kNotInitialized, "aclFinalize is running");
    }
    contexts_[context.get()] = context;
  }
  current_context = context;
  return context.get();
}

absl::Status HostRuntime::DestroyContext(const void* handle) {
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = contexts_.find(handle);
    if (it == contexts_.end()) {
      return NotLive(ErrorKind::kRtContextNull, "context", handle);
    }
    if (it->second->is_default) {
      return KindError(
          ErrorKind::kRtContextNull,
          StrCat("context ", Address(handle),
                 " is the default context of "
                 "device ",
                 it->second->device,
                 ", which cannot be destroyed; aclrtResetDevice releases it"));
    }
    RETURN_IF_ERROR(CheckNotInOwnCallback(*it->second));
    streams = RetireContextLocked(it->second);
  }
  StopStreams(streams);
  return absl::OkStatus();
}

absl::Status HostRuntime::SetCurrentContext(const void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contexts_.find(handle);
  if (it == contexts_.end()) {
    return NotLive(ErrorKind::kRtContextNull, "context", handle);
  }
  current_context = it->second;
  return absl::OkStatus();
}

absl::StatusOr<void*> HostRuntime::GetCurrentContext() const {
  ASSIGN_OR_RETURN(std::shared_ptr<Context> context, RequireCurrent());
  return context.get();
}

absl::StatusOr<void*> HostRuntime::CreateStream() {
  ASSIGN_OR_RETURN(std::shared_ptr<Context> context, RequireCurrent());
  auto stream = std::make_shared<Stream>(context.get());
  std::lock_guard<std::mutex> lock(mutex_);
  if (!context->alive || shut_down_) {
    return KindError(ErrorKind::kRtContextNull,
                     "the current context was destroyed");
  }
  streams_[stream.get()] = stream;
  return stream.get();
}

absl::Status HostRuntime::DestroyStream(const void* handle) {
  ASSIGN_OR_RETURN(std::shared_ptr<Stream> stream, ResolveStream(handle));
  if (BlockingCallbackStream() == stream.get()) {
    return KindError(ErrorKind::kRtParamInvalid,
                     "a stream cannot be destroyed from one of its own "
                     "blocking callbacks (it waits for the callback to "
                     "return)");
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (streams_.erase(handle) == 0) {
      return KindError(ErrorKind::kRtParamInvalid,
                       "the stream was destroyed by another thread meanwhile");
    }
  }
  StopStreams({stream});
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Stream>> HostRuntime::ResolveStream(
    const void* handle) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Context> context, RequireCurrent());
  if (handle == nullptr) return context->default_stream;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = streams_.find(handle);
  if (it == streams_.end()) {
    return NotLive(ErrorKind::kRtParamInvalid, "stream", handle);
  }
  if (it->second->context() != context.get()) {
    return KindError(ErrorKind::kRtStreamContext,
                     StrCat("stream ", Address(handle), " belongs to context ",
                            Address(it->second->context()),
                            ", not to the calling thread's current context ",
                            Address(context.get()),
                            " (aclrtSetCurrentContext to its context first)"));
  }
  return it->second;
}

absl::Status HostRuntime::Synchronize(
    Stream& stream, std::optional<std::chrono::milliseconds> timeout) {
  if (BlockingCallbackStream() == &stream) {
    return KindError(ErrorKind::kRtParamInvalid,
                     "a stream cannot be synchronized from one of its own "
                     "blocking callbacks (it waits for the callback to "
                     "return)");
  }
  bool timed_out = false;
  absl::Status status = stream.Synchronize(timeout, &timed_out);
  if (timed_out) {
    return KindError(ErrorKind::kRtStreamSyncTimeout,
                     StrCat("the stream's work did not finish within ",
                            timeout->count(), " ms"),
                     absl::StatusCode::kDeadlineExceeded);
  }
  return status;  // the first failure of the stream's work, as it was
}

absl::Status HostRuntime::SynchronizeDevice() {
  ASSIGN_OR_RETURN(std::shared_ptr<Context> current, RequireCurrent());
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [handle, context] : contexts_) {
      if (context->device == current->device) {
        streams.push_back(context->default_stream);
      }
    }
    for (const auto& [handle, stream] : streams_) {
      auto owner = contexts_.find(stream->context());
      if (owner != contexts_.end() && owner->second->device == current->device)
        streams.push_back(stream);
    }
  }
  absl::Status first;
  for (const std::shared_ptr<Stream>& stream : streams) {
    absl::Status synchronized = Synchronize(*stream, std::nullopt);
    if (first.ok()) first = synchronized;
  }
  return first;
}

size_t HostRuntime::DrainStreams(
    std::chrono::steady_clock::time_point deadline) {
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [handle, context] : contexts_) {
      streams.push_back(context->default_stream);
    }
    for (const auto& [handle, stream] : streams_) streams.push_back(stream);
  }
  size_t busy = 0;
  for (const std::shared_ptr<Stream>& stream : streams) {
    if (stream->OnWorkerThread()) continue;
    if (!stream->WaitQueued(deadline)) ++busy;
  }
  return busy;
}

absl::StatusOr<void*> HostRuntime::CreateEvent() {
  RETURN_IF_ERROR(RequireCurrent().status());
  auto event = std::make_shared<Event>(sync_);
  std::lock_guard<std::mutex> lock(mutex_);
  events_[event.get()] = event;
  return event.get();
}

absl::Status HostRuntime::DestroyEvent(const void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (events_.erase(handle) == 0) {
    return NotLive(ErrorKind::kRtParamInvalid, "event", handle);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Event>> HostRuntime::FindEvent(
    const void* handle) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = events_.find(handle);
  if (it == events_.end()) {
    return NotLive(ErrorKind::kRtParamInvalid, "event", handle);
  }
  return it->second;
}

}  // namespace acldump::host
