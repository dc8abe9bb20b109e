// The host runtime on its own, below the C ABI: every failure is a status with
// the ErrorKind the ABI maps to its code, and a message saying what to do.
#include "runtime/host/host_runtime.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "base/error_kind.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/host/memory_registry.h"

namespace acldump::host {
namespace {

using ::testing::HasSubstr;

TEST(HostRuntimeTest, DevicesAreCheckedAndGiveTheThreadAContext) {
  HostRuntime runtime;
  EXPECT_EQ(KindOf(runtime.RequireCurrent().status()),
            ErrorKind::kRtContextNull);
  EXPECT_THAT(runtime.RequireCurrent().status().message(),
              HasSubstr("call aclrtSetDevice"));
  EXPECT_EQ(runtime.CurrentDevice(), 0);

  absl::Status bad = runtime.SetDevice(kMaxDeviceId + 1);
  EXPECT_EQ(KindOf(bad), ErrorKind::kRtInvalidDeviceId);
  EXPECT_THAT(bad.message(), HasSubstr("is not in 0..1023"));
  EXPECT_EQ(KindOf(runtime.SetDevice(-1)), ErrorKind::kRtInvalidDeviceId);

  ASSERT_TRUE(runtime.SetDevice(3).ok());
  EXPECT_EQ(runtime.CurrentDevice(), 3);
  // Another thread has no current context of its own.
  std::thread([&] {
    EXPECT_EQ(KindOf(runtime.RequireCurrent().status()),
              ErrorKind::kRtContextNull);
  }).join();
  ASSERT_TRUE(runtime.ResetDevice(3).ok());
  EXPECT_EQ(KindOf(runtime.RequireCurrent().status()),
            ErrorKind::kRtContextNull);
  // Resetting a device that is not open is not an error.
  EXPECT_TRUE(runtime.ResetDevice(3).ok());
}

TEST(HostRuntimeTest, ContextsAreLiveHandles) {
  HostRuntime runtime;
  ASSERT_TRUE(runtime.SetDevice(0).ok());
  absl::StatusOr<void*> made = runtime.CreateContext(2);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(runtime.CurrentDevice(), 2);
  EXPECT_EQ(*runtime.GetCurrentContext(), *made);

  absl::StatusOr<void*> default_context = [&] {
    EXPECT_TRUE(runtime.SetDevice(0).ok());
    return runtime.GetCurrentContext();
  }();
  ASSERT_TRUE(default_context.ok());
  absl::Status refused = runtime.DestroyContext(*default_context);
  EXPECT_EQ(KindOf(refused), ErrorKind::kRtContextNull);
  EXPECT_THAT(refused.message(), HasSubstr("aclrtResetDevice releases it"));

  ASSERT_TRUE(runtime.DestroyContext(*made).ok());
  absl::Status again = runtime.DestroyContext(*made);
  EXPECT_EQ(KindOf(again), ErrorKind::kRtContextNull);
  EXPECT_THAT(again.message(), HasSubstr("is not a live context"));
  EXPECT_EQ(KindOf(runtime.SetCurrentContext(*made)),
            ErrorKind::kRtContextNull);
}

TEST(HostRuntimeTest, StreamsRunWorkInOrderAndReportTheFirstFailure) {
  HostRuntime runtime;
  ASSERT_TRUE(runtime.SetDevice(0).ok());
  absl::StatusOr<void*> handle = runtime.CreateStream();
  ASSERT_TRUE(handle.ok());
  absl::StatusOr<std::shared_ptr<Stream>> stream =
      runtime.ResolveStream(*handle);
  ASSERT_TRUE(stream.ok());
  std::vector<int> order;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*stream)
                    ->Enqueue([&order, i] {
                      order.push_back(i);
                      return i == 1 ? absl::DataLossError("work 1 failed")
                                    : absl::OkStatus();
                    })
                    .ok());
  }
  absl::Status synchronized = runtime.Synchronize(**stream, std::nullopt);
  EXPECT_EQ(synchronized.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(synchronized.message(), "work 1 failed");
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  // Reported once.
  EXPECT_TRUE(runtime.Synchronize(**stream, std::nullopt).ok());

  // The default stream is the context's, NULL names it.
  absl::StatusOr<std::shared_ptr<Stream>> fallback =
      runtime.ResolveStream(nullptr);
  ASSERT_TRUE(fallback.ok());
  EXPECT_NE(fallback->get(), stream->get());

  ASSERT_TRUE(runtime.DestroyStream(*handle).ok());
  absl::Status gone = runtime.ResolveStream(*handle).status();
  EXPECT_EQ(KindOf(gone), ErrorKind::kRtParamInvalid);
  EXPECT_THAT(gone.message(), HasSubstr("is not a live stream"));
}

TEST(HostRuntimeTest, ASynchronizeThatRunsOutSaysSo) {
  HostRuntime runtime;
  ASSERT_TRUE(runtime.SetDevice(0).ok());
  std::shared_ptr<Stream> stream = *runtime.ResolveStream(nullptr);
  std::atomic<bool> release{false};
  ASSERT_TRUE(stream
                  ->Enqueue([&] {
                    while (!release) std::this_thread::yield();
                    return absl::OkStatus();
                  })
                  .ok());
  absl::Status late =
      runtime.Synchronize(*stream, std::chrono::milliseconds(20));
  EXPECT_EQ(KindOf(late), ErrorKind::kRtStreamSyncTimeout);
  EXPECT_THAT(late.message(), HasSubstr("within 20 ms"));
  release = true;
  EXPECT_TRUE(runtime.Synchronize(*stream, std::nullopt).ok());
}

TEST(HostRuntimeTest, AStreamOfAnotherContextIsRefused) {
  HostRuntime runtime;
  ASSERT_TRUE(runtime.SetDevice(0).ok());
  void* first = *runtime.CreateStream();
  ASSERT_TRUE(runtime.CreateContext(1).ok());
  absl::Status other = runtime.ResolveStream(first).status();
  EXPECT_EQ(KindOf(other), ErrorKind::kRtStreamContext);
  EXPECT_THAT(other.message(), HasSubstr("aclrtSetCurrentContext"));
}

TEST(HostRuntimeTest, EventsAreLiveHandles) {
  HostRuntime runtime;
  EXPECT_EQ(KindOf(runtime.CreateEvent().status()), ErrorKind::kRtContextNull);
  ASSERT_TRUE(runtime.SetDevice(0).ok());
  void* event = *runtime.CreateEvent();
  ASSERT_TRUE(runtime.FindEvent(event).ok());
  ASSERT_TRUE(runtime.DestroyEvent(event).ok());
  EXPECT_EQ(KindOf(runtime.FindEvent(event).status()),
            ErrorKind::kRtParamInvalid);
  EXPECT_EQ(KindOf(runtime.DestroyEvent(event)), ErrorKind::kRtParamInvalid);
}

void CountCall(void* data) { ++*static_cast<std::atomic<int>*>(data); }

TEST(HostRuntimeTest, ReportsGoToTheSubscribedThread) {
  HostRuntime runtime;
  ASSERT_TRUE(runtime.SetDevice(0).ok());
  std::shared_ptr<Stream> stream = *runtime.ResolveStream(nullptr);
  ReportBoard& board = runtime.reports();
  EXPECT_EQ(KindOf(board.Process(7, 10)), ErrorKind::kRtThreadSubscribe);
  ASSERT_TRUE(board.Subscribe(7, stream.get()).ok());
  EXPECT_EQ(KindOf(board.Subscribe(8, stream.get())),
            ErrorKind::kRtStreamSubscribe);
  EXPECT_EQ(KindOf(board.Process(7, 10)), ErrorKind::kRtReportTimeout);

  std::atomic<int> calls{0};
  ASSERT_TRUE(stream
                  ->Enqueue([&] {
                    runtime.reports().Deliver(stream.get(), CountCall, &calls,
                                              /*block=*/false);
                    return absl::OkStatus();
                  })
                  .ok());
  ASSERT_TRUE(runtime.Synchronize(*stream, std::nullopt).ok());
  ASSERT_TRUE(board.Process(7, 1000).ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(KindOf(board.Unsubscribe(8, stream.get())),
            ErrorKind::kRtThreadSubscribe);
  ASSERT_TRUE(board.Unsubscribe(7, stream.get()).ok());
  EXPECT_EQ(KindOf(board.Unsubscribe(7, stream.get())),
            ErrorKind::kRtStreamSubscribe);
}

TEST(HostRuntimeTest, ShutdownEndsEveryWait) {
  HostRuntime runtime;
  ASSERT_TRUE(runtime.SetDevice(0).ok());
  std::shared_ptr<Stream> stream = *runtime.ResolveStream(nullptr);
  ASSERT_TRUE(runtime.reports().Subscribe(1, stream.get()).ok());
  absl::Status waited;
  std::thread waiter([&] { waited = runtime.reports().Process(1, -1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  runtime.Shutdown();
  waiter.join();
  EXPECT_EQ(KindOf(waited), ErrorKind::kNotInitialized);
  EXPECT_EQ(KindOf(runtime.CreateContext(0).status()),
            ErrorKind::kNotInitialized);
}

TEST(MemoryRegistryTest, RangesKindsAndPins) {
  MemoryRegistry registry;
  EXPECT_EQ(registry.Allocate(0, MemoryKind::kDevice), nullptr);
  void* device = registry.Allocate(100, MemoryKind::kDevice);
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(device) % 64, 0u);
  auto* bytes = static_cast<char*>(device);
  EXPECT_TRUE(registry.Contains(bytes + 10, 90, MemoryKind::kDevice));
  EXPECT_FALSE(registry.Contains(bytes + 10, 91, MemoryKind::kDevice));
  EXPECT_FALSE(registry.Contains(device, 10, MemoryKind::kHost));
  EXPECT_TRUE(registry.Holds(bytes + 99, MemoryKind::kDevice));
  EXPECT_FALSE(registry.Holds(bytes + 100, MemoryKind::kDevice));

  const void* used[] = {bytes + 5};
  {
    std::shared_ptr<MemoryRegistry::Pins> pins = registry.Pin(used);
    EXPECT_EQ(registry.Free(device, MemoryKind::kDevice),
              MemoryRegistry::FreeResult::kInUse);
  }
  EXPECT_EQ(registry.Free(device, MemoryKind::kHost),
            MemoryRegistry::FreeResult::kUnknown);
  EXPECT_EQ(registry.Free(device, MemoryKind::kDevice),
            MemoryRegistry::FreeResult::kFreed);
  EXPECT_EQ(registry.Free(device, MemoryKind::kDevice),
            MemoryRegistry::FreeResult::kUnknown);
}

}  // namespace
}  // namespace acldump::host
