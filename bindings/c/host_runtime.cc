#include "host_runtime.h"

#include "api_support.h"
#include "base/strings.h"

namespace acldump::capi {
namespace {

thread_local std::weak_ptr<Context> current_context;
thread_local const Stream* blocking_callback_stream = nullptr;

constexpr char kNoContext[] =
    "the calling thread has no current context: call aclrtSetDevice or "
    "aclrtCreateContext (or aclrtSetCurrentContext) in this thread first";

// Destroying a context's streams waits for their work, which includes the
// blocking callback the calling thread may be running.
aclError CheckNotInOwnCallback(const Context& context) {
  const Stream* stream = blocking_callback_stream;
  if (stream == nullptr || stream->context() != &context) return ACL_SUCCESS;
  return Fail(
      ACL_ERROR_RT_PARAM_INVALID,
      "a context cannot be destroyed from a blocking callback of one of "
      "its streams (they wait for the callback to return)");
}

aclError CheckDevice(int32_t device) {
  if (device >= 0 && device <= ACL_MAX_DEVICE_ID) return ACL_SUCCESS;
  return Fail(ACL_ERROR_RT_INVALID_DEVICEID,
              StrCat("device id ", device, " is not in 0..", ACL_MAX_DEVICE_ID,
                     " (aclrtGetDeviceCount)"));
}

std::string Address(const void* pointer) {
  return StrCat("0x",
                fmt::format("{:x}", reinterpret_cast<uintptr_t>(pointer)));
}

// A handle that is not (or no longer) in the runtime's tables.
aclError NotLive(aclError code, std::string_view kind, const void* handle) {
  return Fail(code, StrCat(kind, " ", Address(handle), " is not a live ", kind,
                           " (destroyed already?)"));
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

aclError ReportBoard::Subscribe(uint64_t thread, const Stream* stream) {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  auto [it, inserted] = subscribers_.emplace(stream, thread);
  if (!inserted) {
    return Fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                StrCat("the stream is already subscribed by thread ",
                       it->second, "; aclrtUnSubscribeReport it first"));
  }
  return ACL_SUCCESS;
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

aclError ReportBoard::Unsubscribe(uint64_t thread, const Stream* stream) {
  std::lock_guard<std::mutex> lock(sync_->mutex);
  auto it = subscribers_.find(stream);
  if (it == subscribers_.end()) {
    return Fail(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                "the stream is not subscribed (aclrtSubscribeReport)");
  }
  if (it->second != thread) {
    return Fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                StrCat("the stream is subscribed by thread ", it->second,
                       ", not by thread ", thread));
  }
  subscribers_.erase(it);
  DropLocked(stream);
  return ACL_SUCCESS;
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

void ReportBoard::Deliver(const Stream* stream, aclrtCallback fn, void* data,
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

aclError ReportBoard::Process(uint64_t thread, int32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(sync_->mutex);
  if (!ServesAnyLocked(thread)) {
    return Fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                StrCat("thread ", thread,
                       " serves no stream: aclrtSubscribeReport(thread id, "
                       "stream) first"));
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
      return Fail(ACL_ERROR_UNINITIALIZE,
                  "aclFinalize ended the runtime while this thread waited for "
                  "callbacks");
    }
    if (!ServesAnyLocked(thread)) {
      return Fail(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                  StrCat("thread ", thread,
                         " stopped serving streams while it waited"));
    }
    return Fail(ACL_ERROR_RT_REPORT_TIMEOUT,
                StrCat("no callback arrived within ", timeout_ms, " ms"));
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
  return ACL_SUCCESS;
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

aclError HostRuntime::SetDevice(int32_t device) {
  if (aclError e = CheckDevice(device)) return e;
  std::lock_guard<std::mutex> lock(mutex_);
  DeviceState& state = devices_[device];
  if (!state.default_context) {
    state.default_context = std::make_shared<Context>(this, device, true);
    contexts_[state.default_context.get()] = state.default_context;
  }
  ++state.open_count;
  current_context = state.default_context;
  return ACL_SUCCESS;
}

aclError HostRuntime::ResetDevice(int32_t device) {
  if (aclError e = CheckDevice(device)) return e;
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = devices_.find(device);
    if (it == devices_.end() || it->second.open_count == 0) return ACL_SUCCESS;
    if (it->second.open_count == 1 && it->second.default_context) {
      if (aclError e = CheckNotInOwnCallback(*it->second.default_context)) {
        return e;
      }
    }
    if (--it->second.open_count > 0) return ACL_SUCCESS;
    if (it->second.default_context) {
      streams = RetireContextLocked(it->second.default_context);
    }
    devices_.erase(it);
  }
  StopStreams(streams);
  return ACL_SUCCESS;
}

std::shared_ptr<Context> HostRuntime::Current() const {
  std::shared_ptr<Context> context = current_context.lock();
  if (!context || !context->alive || context->owner != this) return nullptr;
  return context;
}

aclError HostRuntime::RequireCurrent(std::shared_ptr<Context>* context) const {
  *context = Current();
  return *context ? ACL_SUCCESS : Fail(ACL_ERROR_RT_CONTEXT_NULL, kNoContext);
}

int32_t HostRuntime::CurrentDevice() const {
  std::shared_ptr<Context> context = Current();
  return context ? context->device : 0;
}

aclError HostRuntime::CreateContext(int32_t device, void** handle) {
  if (aclError e = CheckDevice(device)) return e;
  auto context = std::make_shared<Context>(this, device, false);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shut_down_) {
      return Fail(ACL_ERROR_UNINITIALIZE, "aclFinalize is running");
    }
    contexts_[context.get()] = context;
  }
  current_context = context;
  *handle = context.get();
  return ACL_SUCCESS;
}

aclError HostRuntime::DestroyContext(const void* handle) {
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = contexts_.find(handle);
    if (it == contexts_.end()) {
      return NotLive(ACL_ERROR_RT_CONTEXT_NULL, "context", handle);
    }
    if (it->second->is_default) {
      return Fail(ACL_ERROR_RT_CONTEXT_NULL,
                  StrCat("context ", Address(handle),
                         " is the default context "
                         "of device ",
                         it->second->device,
                         ", which cannot be destroyed; aclrtResetDevice "
                         "releases it"));
    }
    if (aclError e = CheckNotInOwnCallback(*it->second)) return e;
    streams = RetireContextLocked(it->second);
  }
  StopStreams(streams);
  return ACL_SUCCESS;
}

aclError HostRuntime::SetCurrentContext(const void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contexts_.find(handle);
  if (it == contexts_.end()) {
    return NotLive(ACL_ERROR_RT_CONTEXT_NULL, "context", handle);
  }
  current_context = it->second;
  return ACL_SUCCESS;
}

aclError HostRuntime::GetCurrentContext(void** handle) const {
  std::shared_ptr<Context> context;
  if (aclError e = RequireCurrent(&context)) return e;
  *handle = context.get();
  return ACL_SUCCESS;
}

aclError HostRuntime::CreateStream(void** handle) {
  std::shared_ptr<Context> context;
  if (aclError e = RequireCurrent(&context)) return e;
  auto stream = std::make_shared<Stream>(context.get());
  std::lock_guard<std::mutex> lock(mutex_);
  if (!context->alive || shut_down_) {
    return Fail(ACL_ERROR_RT_CONTEXT_NULL, "the current context was destroyed");
  }
  streams_[stream.get()] = stream;
  *handle = stream.get();
  return ACL_SUCCESS;
}

aclError HostRuntime::DestroyStream(const void* handle) {
  std::shared_ptr<Stream> stream;
  if (aclError e = ResolveStream(handle, &stream)) return e;
  if (BlockingCallbackStream() == stream.get()) {
    return Fail(ACL_ERROR_RT_PARAM_INVALID,
                "a stream cannot be destroyed from one of its own blocking "
                "callbacks (it waits for the callback to return)");
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (streams_.erase(handle) == 0) {
      return Fail(ACL_ERROR_RT_PARAM_INVALID,
                  "the stream was destroyed by another thread meanwhile");
    }
  }
  StopStreams({stream});
  return ACL_SUCCESS;
}

aclError HostRuntime::ResolveStream(const void* handle,
                                    std::shared_ptr<Stream>* stream) const {
  std::shared_ptr<Context> context;
  if (aclError e = RequireCurrent(&context)) return e;
  if (handle == nullptr) {
    *stream = context->default_stream;
    return ACL_SUCCESS;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = streams_.find(handle);
  if (it == streams_.end()) {
    return NotLive(ACL_ERROR_RT_PARAM_INVALID, "stream", handle);
  }
  if (it->second->context() != context.get()) {
    return Fail(ACL_ERROR_RT_STREAM_CONTEXT,
                StrCat("stream ", Address(handle), " belongs to context ",
                       Address(it->second->context()),
                       ", not to the calling thread's current context ",
                       Address(context.get()),
                       " (aclrtSetCurrentContext to its context first)"));
  }
  *stream = it->second;
  return ACL_SUCCESS;
}

aclError HostRuntime::Synchronize(
    Stream& stream, std::optional<std::chrono::milliseconds> timeout) {
  if (BlockingCallbackStream() == &stream) {
    return Fail(ACL_ERROR_RT_PARAM_INVALID,
                "a stream cannot be synchronized from one of its own blocking "
                "callbacks (it waits for the callback to return)");
  }
  bool timed_out = false;
  absl::Status status = stream.Synchronize(timeout, &timed_out);
  if (timed_out) {
    return Fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                StrCat("the stream's work did not finish within ",
                       timeout->count(), " ms"));
  }
  return status.ok() ? ACL_SUCCESS : FailWith(status, ACL_ERROR_FAILURE);
}

aclError HostRuntime::SynchronizeDevice() {
  std::shared_ptr<Context> current;
  if (aclError e = RequireCurrent(&current)) return e;
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
  aclError first = ACL_SUCCESS;
  std::string message;
  for (const std::shared_ptr<Stream>& stream : streams) {
    aclError e = Synchronize(*stream, std::nullopt);
    if (e != ACL_SUCCESS && first == ACL_SUCCESS) {
      first = e;
      message = RecentError();
    }
  }
  return first == ACL_SUCCESS ? ACL_SUCCESS : Fail(first, message);
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

aclError HostRuntime::CreateEvent(void** handle) {
  std::shared_ptr<Context> context;
  if (aclError e = RequireCurrent(&context)) return e;
  auto event = std::make_shared<Event>(sync_);
  std::lock_guard<std::mutex> lock(mutex_);
  events_[event.get()] = event;
  *handle = event.get();
  return ACL_SUCCESS;
}

aclError HostRuntime::DestroyEvent(const void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (events_.erase(handle) == 0) {
    return NotLive(ACL_ERROR_RT_PARAM_INVALID, "event", handle);
  }
  return ACL_SUCCESS;
}

aclError HostRuntime::FindEvent(const void* handle,
                                std::shared_ptr<Event>* event) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = events_.find(handle);
  if (it == events_.end()) {
    return NotLive(ACL_ERROR_RT_PARAM_INVALID, "event", handle);
  }
  *event = it->second;
  return ACL_SUCCESS;
}

}  // namespace acldump::capi
