// The state behind acl_rt.h for one aclInit..aclFinalize: devices (a use
// count and a default context each), contexts (a thread-local current one),
// streams, events and the callback reports threads process. Methods return an
// aclError and record the recent error message (Fail) when they fail.
// Thread-safe.
#ifndef ACLDUMP_BINDINGS_C_HOST_RUNTIME_H_
#define ACLDUMP_BINDINGS_C_HOST_RUNTIME_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "acl/acl_rt.h"
#include "stream.h"

namespace acldump::capi {

class HostRuntime;

struct Context {
  Context(const HostRuntime* owner, int32_t device, bool is_default)
      : owner(owner),
        device(device),
        is_default(is_default),
        default_stream(std::make_shared<Stream>(this)) {}

  const HostRuntime* const owner;
  const int32_t device;
  const bool is_default;  // a device's default context (aclrtSetDevice)
  std::atomic<bool> alive{true};
  const std::shared_ptr<Stream> default_stream;
};

// Which thread runs which stream's callbacks, and the callbacks waiting for
// each thread. All state is guarded by the SyncPoint's mutex.
class ReportBoard {
 public:
  explicit ReportBoard(std::shared_ptr<SyncPoint> sync)
      : sync_(std::move(sync)) {}

  aclError Subscribe(uint64_t thread, const Stream* stream);
  aclError Unsubscribe(uint64_t thread, const Stream* stream);
  bool IsSubscribed(const Stream* stream) const;
  // The stream is going away: its subscription ends, its reports are dropped.
  void Forget(const Stream* stream);
  // Run by the stream's worker when it reaches a callback: hands fn(data) to
  // the subscribed thread and, when `block`, waits until it has run (or the
  // runtime shuts down). Dropped when the stream has no subscriber by then.
  void Deliver(const Stream* stream, aclrtCallback fn, void* data, bool block);
  // aclrtProcessReport for the calling thread.
  aclError Process(uint64_t thread, int32_t timeout_ms);

 private:
  struct Report {
    aclrtCallback fn;
    void* data;
    const Stream* stream;
    bool block;
    bool finished = false;
  };
  bool ServesAnyLocked(uint64_t thread) const;
  void DropLocked(const Stream* stream);

  const std::shared_ptr<SyncPoint> sync_;
  std::map<const Stream*, uint64_t> subscribers_;
  std::map<uint64_t, std::deque<std::shared_ptr<Report>>> pending_;
};

class HostRuntime {
 public:
  HostRuntime();
  ~HostRuntime();  // Shutdown()
  HostRuntime(const HostRuntime&) = delete;
  HostRuntime& operator=(const HostRuntime&) = delete;

  // Releases every wait, runs the queued work of every stream, ends their
  // workers and destroys every context, stream and event. Idempotent.
  void Shutdown();

  // ---- Devices and contexts
  aclError SetDevice(int32_t device);
  aclError ResetDevice(int32_t device);
  // The calling thread's current context if it is alive and ours, else null.
  std::shared_ptr<Context> Current() const;
  // As Current(), failing with ACL_ERROR_RT_CONTEXT_NULL.
  aclError RequireCurrent(std::shared_ptr<Context>* context) const;
  // The current context's device, 0 without one (the dump layout's device).
  int32_t CurrentDevice() const;
  aclError CreateContext(int32_t device, void** handle);
  aclError DestroyContext(const void* handle);
  aclError SetCurrentContext(const void* handle);
  aclError GetCurrentContext(void** handle) const;

  // ---- Streams
  aclError CreateStream(void** handle);
  aclError DestroyStream(const void* handle);
  // `handle` (NULL: the current context's default stream), which must belong
  // to the current context.
  aclError ResolveStream(const void* handle,
                         std::shared_ptr<Stream>* stream) const;
  // Synchronizes `stream` as aclrtSynchronizeStream(WithTimeout) reports it.
  aclError Synchronize(Stream& stream,
                       std::optional<std::chrono::milliseconds> timeout);
  aclError SynchronizeDevice();
  // Waits, until `deadline`, for the work queued on every stream of every
  // context before the call (the calling thread's own stream, when it is a
  // stream's worker, excepted: it cannot wait for itself). Returns how many
  // streams still had such work; failures stay with their streams.
  size_t DrainStreams(std::chrono::steady_clock::time_point deadline);

  // ---- Events
  aclError CreateEvent(void** handle);
  aclError DestroyEvent(const void* handle);
  aclError FindEvent(const void* handle, std::shared_ptr<Event>* event) const;

  const std::shared_ptr<SyncPoint>& sync() const { return sync_; }
  ReportBoard& reports() { return *reports_; }
  const std::shared_ptr<ReportBoard>& shared_reports() const {
    return reports_;
  }

 private:
  struct DeviceState {
    int open_count = 0;
    std::shared_ptr<Context> default_context;
  };
  // Marks `context` dead and takes it and its streams out of the tables (by
  // value: the caller may pass the table's own pointer); mutex_ held.
  std::vector<std::shared_ptr<Stream>> RetireContextLocked(
      std::shared_ptr<Context> context);
  void StopStreams(const std::vector<std::shared_ptr<Stream>>& streams);

  const std::shared_ptr<SyncPoint> sync_;
  const std::shared_ptr<ReportBoard> reports_;
  mutable std::mutex mutex_;
  bool shut_down_ = false;
  std::map<int32_t, DeviceState> devices_;
  std::map<const void*, std::shared_ptr<Context>> contexts_;
  std::map<const void*, std::shared_ptr<Stream>> streams_;
  std::map<const void*, std::shared_ptr<Event>> events_;
};

// The stream whose blocking callback the calling thread is running, if any
// (synchronizing or destroying that stream from there would never return).
const Stream* BlockingCallbackStream();

}  // namespace acldump::capi

#endif  // ACLDUMP_BINDINGS_C_HOST_RUNTIME_H_
