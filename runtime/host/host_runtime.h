// The host runtime behind acl_rt.h for one aclInit..aclFinalize: devices (a
// use count and a default context each), contexts (a thread-local current
// one), streams, events and the callback reports threads process. Failures
// are statuses tagged with an ErrorKind (kRtContextNull, kRtParamInvalid...),
// which the C ABI turns into its codes. Thread-safe.
#ifndef ACLDUMP_RUNTIME_HOST_HOST_RUNTIME_H_
#define ACLDUMP_RUNTIME_HOST_HOST_RUNTIME_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/host/stream.h"

namespace acldump::host {

// Devices are numbered 0..kMaxDeviceId (the SDK's ACL_MAX_DEVICE_ID).
inline constexpr int32_t kMaxDeviceId = 1023;

// A callback a stream delivers to the thread that processes its reports.
using ReportCallback = void (*)(void* data);

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

  absl::Status Subscribe(uint64_t thread, const Stream* stream);
  absl::Status Unsubscribe(uint64_t thread, const Stream* stream);
  bool IsSubscribed(const Stream* stream) const;
  // The stream is going away: its subscription ends, its reports are dropped.
  void Forget(const Stream* stream);
  // Run by the stream's worker when it reaches a callback: hands fn(data) to
  // the subscribed thread and, when `block`, waits until it has run (or the
  // runtime shuts down). Dropped when the stream has no subscriber by then.
  void Deliver(const Stream* stream, ReportCallback fn, void* data, bool block);
  // aclrtProcessReport for the calling thread.
  absl::Status Process(uint64_t thread, int32_t timeout_ms);

 private:
  struct Report {
    ReportCallback fn;
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
  absl::Status SetDevice(int32_t device);
  absl::Status ResetDevice(int32_t device);
  // The calling thread's current context if it is alive and ours, else null.
  std::shared_ptr<Context> Current() const;
  // As Current(), failing with kRtContextNull.
  absl::StatusOr<std::shared_ptr<Context>> RequireCurrent() const;
  // The current context's device, 0 without one (the dump layout's device).
  int32_t CurrentDevice() const;
  // Handles are the objects' addresses: what the C ABI hands out.
  absl::StatusOr<void*> CreateContext(int32_t device);
  absl::Status DestroyContext(const void* handle);
  absl::Status SetCurrentContext(const void* handle);
  absl::StatusOr<void*> GetCurrentContext() const;

  // ---- Streams
  absl::StatusOr<void*> CreateStream();
  absl::Status DestroyStream(const void* handle);
  // `handle` (NULL: the current context's default stream), which must belong
  // to the current context.
  absl::StatusOr<std::shared_ptr<Stream>> ResolveStream(
      const void* handle) const;
  // Synchronizes `stream` as aclrtSynchronizeStream(WithTimeout) reports it.
  absl::Status Synchronize(Stream& stream,
                           std::optional<std::chrono::milliseconds> timeout);
  absl::Status SynchronizeDevice();
  // Waits, until `deadline`, for the work queued on every stream of every
  // context before the call (the calling thread's own stream, when it is a
  // stream's worker, excepted: it cannot wait for itself). Returns how many
  // streams still had such work; failures stay with their streams.
  size_t DrainStreams(std::chrono::steady_clock::time_point deadline);

  // ---- Events
  absl::StatusOr<void*> CreateEvent();
  absl::Status DestroyEvent(const void* handle);
  absl::StatusOr<std::shared_ptr<Event>> FindEvent(const void* handle) const;

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

}  // namespace acldump::host

#endif  // ACLDUMP_RUNTIME_HOST_HOST_RUNTIME_H_
