// The runtime calls of acl_rt.h: devices and contexts (per thread), streams as
// in-order queues, events, callbacks, memory and copies; every misuse with the
// SDK's code and a clear message. (Out-of-range enum arguments, which C++ code
// may not even form: enum_args_test.c.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "bindings/c/tests/stream_blocker.h"

namespace {

using ::testing::HasSubstr;

std::string Message() { return aclGetRecentErrMsg(); }

uint64_t ThisThread() { return static_cast<uint64_t>(pthread_self()); }

class RtTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS); }
  void TearDown() override { aclFinalize(); }
};

using Blocker = acldump::testing::StreamBlocker;

TEST_F(RtTest, DeviceQueriesNeedNoContext) {
  aclrtRunMode mode = ACL_DEVICE;
  EXPECT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS);
  EXPECT_EQ(mode, ACL_HOST);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, ACL_MAX_DEVICE_ID + 1u);
  EXPECT_STREQ(aclrtGetSocName(), "acldump_cpu");
  EXPECT_EQ(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(RtTest, ContextsArePerThread) {
  int32_t device = -1;
  aclrtContext context = nullptr;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_THAT(Message(), HasSubstr("call aclrtSetDevice"));
  EXPECT_EQ(aclrtGetCurrentContext(&context), ACL_ERROR_RT_CONTEXT_NULL);
  ASSERT_EQ(aclrtSetDevice(1), ACL_SUCCESS);
  aclrtContext default_context = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&default_context), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateContext(&context, 2), ACL_SUCCESS);
  EXPECT_NE(context, default_context);
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 2);  // the new context is current
  ASSERT_EQ(aclrtSetCurrentContext(default_context), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 1);
  std::thread([&] {
    int32_t other = -1;
    EXPECT_EQ(aclrtGetDevice(&other), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_EQ(aclrtSetCurrentContext(context), ACL_SUCCESS);
    EXPECT_EQ(aclrtGetDevice(&other), ACL_SUCCESS);
    EXPECT_EQ(other, 2);
  }).join();
  EXPECT_EQ(aclrtDestroyContext(default_context), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_THAT(Message(), HasSubstr("default context of device 1"));
  ASSERT_EQ(aclrtSetCurrentContext(context), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
  // The thread's current context is gone: as if it had none.
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtDestroyContext(context), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_THAT(Message(), HasSubstr("destroyed already"));
  EXPECT_EQ(aclrtSetCurrentContext(context), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(device, 1);  // outputs untouched on failure
}

TEST_F(RtTest, ContextMisuse) {
  aclrtContext context = nullptr;
  EXPECT_EQ(aclrtCreateContext(nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateContext(&context, -1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtCreateContext(&context, ACL_MAX_DEVICE_ID + 1),
            ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(context, nullptr);
  EXPECT_EQ(aclrtDestroyContext(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
  int not_a_context = 0;
  EXPECT_EQ(aclrtSetCurrentContext(&not_a_context), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtDestroyContext(&not_a_context), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(RtTest, SetDeviceIsCountedAndResetReleasesTheDefaultContext) {
  ASSERT_EQ(aclrtSetDevice(4), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(4), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(4), ACL_SUCCESS);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);  // one use left
  EXPECT_EQ(aclrtResetDevice(4), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  ASSERT_EQ(aclrtSetDevice(4), ACL_SUCCESS);  // a new default context
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("not a live stream"));
  EXPECT_EQ(aclrtResetDevice(7), ACL_SUCCESS);  // not open: nothing to do
  EXPECT_EQ(aclrtResetDevice(-3), ACL_ERROR_RT_INVALID_DEVICEID);
}

TEST_F(RtTest, StreamRunsWorkInOrder) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  constexpr size_t kSize = 1 << 20;
  void* a = nullptr;
  void* b = nullptr;
  void* host = nullptr;
  ASSERT_EQ(aclrtMalloc(&a, kSize, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&b, kSize, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  ASSERT_EQ(aclrtMallocHost(&host, kSize), ACL_SUCCESS);
  for (int round = 1; round <= 20; ++round) {
    // Each step reads what the previous one wrote: wrong order shows.
    ASSERT_EQ(aclrtMemsetAsync(a, kSize, round, kSize, stream), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpyAsync(b, kSize, a, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE,
                               stream),
              ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpyAsync(host, kSize, b, kSize, ACL_MEMCPY_DEVICE_TO_HOST,
                               stream),
              ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << Message();
  const auto* bytes = static_cast<const unsigned char*>(host);
  EXPECT_EQ(bytes[0], 20);
  EXPECT_EQ(bytes[kSize - 1], 20);
  aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;
  EXPECT_EQ(aclrtStreamQuery(stream, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);
  // The default stream (NULL) works the same.
  ASSERT_EQ(aclrtMemsetAsync(host, kSize, 7, 16, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(bytes[15], 7);
  EXPECT_EQ(bytes[16], 20);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
}

TEST_F(RtTest, StreamMisuse) {
  aclrtStream stream = nullptr;
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_RT_CONTEXT_NULL);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, -2),
            ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtStreamQuery(stream, nullptr), ACL_ERROR_INVALID_PARAM);
  // A stream of another context: the SDK's "stream not in current context".
  aclrtContext other = nullptr;
  ASSERT_EQ(aclrtCreateContext(&other, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_STREAM_CONTEXT);
  EXPECT_THAT(Message(), HasSubstr("aclrtSetCurrentContext to its context"));
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemsetAsync(memory, 8, 0, 8, stream),
            ACL_ERROR_RT_STREAM_CONTEXT);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_RT_STREAM_CONTEXT);
  int not_a_stream = 0;
  EXPECT_EQ(aclrtSynchronizeStream(&not_a_stream), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtDestroyContext(other), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);  // the first context again
  EXPECT_EQ(aclrtMemsetAsync(memory, 8, 0, 8, stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);  // runs the memset first
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
}

TEST_F(RtTest, SynchronizeWithTimeoutAndQueryWhileBusy) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemset(memory, 64, 0, 64), ACL_SUCCESS);
  {
    Blocker blocker(stream);
    ASSERT_EQ(aclrtMemsetAsync(memory, 64, 1, 64, stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 30),
              ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
    EXPECT_EQ(aclrtStreamQuery(stream, &status), ACL_SUCCESS);
    EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
    // Memory queued work uses cannot be freed under it.
    EXPECT_EQ(aclrtFree(memory), ACL_ERROR_RT_MEMORY_FREE);
    EXPECT_THAT(Message(), HasSubstr("synchronize the stream first"));
    EXPECT_EQ(static_cast<unsigned char*>(memory)[0], 0);  // not run yet
  }
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, -1), ACL_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char*>(memory)[63], 1);
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(RtTest, Events) {
  aclrtEvent event = nullptr;
  EXPECT_EQ(aclrtCreateEvent(&event), ACL_ERROR_RT_CONTEXT_NULL);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  EXPECT_EQ(aclrtQueryEventStatus(start, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_NOT_READY);
  float ms = -1;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end),
            ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_EQ(aclrtSynchronizeEvent(start), ACL_SUCCESS);  // never recorded
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(start, stream), ACL_SUCCESS);
  {
    Blocker blocker(stream);
    ASSERT_EQ(aclrtRecordEvent(end, stream), ACL_SUCCESS);
    EXPECT_EQ(aclrtQueryEventStatus(end, &status), ACL_SUCCESS);
    EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end),
              ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    // `start` ran before the blocked callback: from here on, at least 5 ms
    // pass before `end` runs, however late the stream's thread started.
    ASSERT_EQ(aclrtSynchronizeEvent(start), ACL_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtQueryEventStatus(end, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_EVENT_RECORDED_STATUS_COMPLETE);
  aclrtEventStatus old_status = ACL_EVENT_STATUS_NOT_READY;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored \
    "-Wdeprecated-declarations"  // the SDK's old call
  EXPECT_EQ(aclrtQueryEvent(end, &old_status), ACL_SUCCESS);
#pragma GCC diagnostic pop
  EXPECT_EQ(old_status, ACL_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, 4.0f);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, end, start),
            ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL);
  EXPECT_EQ(aclrtEventElapsedTime(nullptr, start, end),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtResetEvent(end, stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end),
            ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("destroyed already"));
  EXPECT_EQ(aclrtRecordEvent(start, stream), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtDestroyEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtRecordEvent(nullptr, stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(RtTest, StreamWaitsForAnotherStreamsEvent) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream producer = nullptr, consumer = nullptr;
  ASSERT_EQ(aclrtCreateStream(&producer), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&consumer), ACL_SUCCESS);
  aclrtEvent ready = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&ready), ACL_SUCCESS);
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemset(a, 64, 0, 64), ACL_SUCCESS);
  {
    Blocker blocker(producer);
    ASSERT_EQ(aclrtMemsetAsync(a, 64, 9, 64, producer), ACL_SUCCESS);
    ASSERT_EQ(aclrtRecordEvent(ready, producer), ACL_SUCCESS);
    ASSERT_EQ(aclrtStreamWaitEvent(consumer, ready), ACL_SUCCESS);
    ASSERT_EQ(
        aclrtMemcpyAsync(b, 64, a, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, consumer),
        ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(consumer, 20),
              ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);  // waits for the producer
  }
  ASSERT_EQ(aclrtSynchronizeStream(consumer), ACL_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char*>(b)[10], 9);
  EXPECT_EQ(aclrtStreamWaitEvent(consumer, nullptr), ACL_ERROR_INVALID_PARAM);
  for (void* p : {a, b}) EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(ready), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(producer), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(consumer), ACL_SUCCESS);
}

struct CallbackLog {
  std::atomic<int> calls{0};
  std::atomic<uint64_t> thread{0};
  std::vector<int> order;  // written by the processing thread only
};

void Record(void* data) {
  auto* entry = static_cast<std::pair<CallbackLog*, int>*>(data);
  entry->first->order.push_back(entry->second);
  entry->first->thread = ThisThread();
  ++entry->first->calls;
}

TEST_F(RtTest, CallbacksRunInTheSubscribedThreadInStreamOrder) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  CallbackLog log;
  std::pair<CallbackLog*, int> entries[] = {{&log, 1}, {&log, 2}, {&log, 3}};
  EXPECT_EQ(
      aclrtLaunchCallback(Record, &entries[0], ACL_CALLBACK_BLOCK, stream),
      ACL_ERROR_RT_STREAM_NO_CB_REG);
  EXPECT_THAT(Message(), HasSubstr("aclrtSubscribeReport first"));
  EXPECT_EQ(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> worker{0};
  std::thread processor([&] {
    worker = ThisThread();
    while (!stop) aclrtProcessReport(5);
  });
  while (worker == 0) std::this_thread::yield();
  ASSERT_EQ(aclrtSubscribeReport(worker, stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtSubscribeReport(worker, stream),
            ACL_ERROR_RT_STREAM_SUBSCRIBE);
  ASSERT_EQ(
      aclrtLaunchCallback(Record, &entries[0], ACL_CALLBACK_NO_BLOCK, stream),
      ACL_SUCCESS);
  ASSERT_EQ(
      aclrtLaunchCallback(Record, &entries[1], ACL_CALLBACK_BLOCK, stream),
      ACL_SUCCESS);
  ASSERT_EQ(
      aclrtLaunchCallback(Record, &entries[2], ACL_CALLBACK_BLOCK, stream),
      ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(log.calls, 3);  // the blocking ones ran before the sync returned
  EXPECT_EQ(log.thread, worker.load());
  EXPECT_EQ(aclrtUnSubscribeReport(worker + 1, stream),
            ACL_ERROR_RT_THREAD_SUBSCRIBE);
  EXPECT_EQ(aclrtUnSubscribeReport(worker, stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtUnSubscribeReport(worker, stream),
            ACL_ERROR_RT_STREAM_SUBSCRIBE);
  stop = true;
  processor.join();
  EXPECT_EQ(log.order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// From a blocking callback, waiting for (or destroying) its own stream would
// never return: refused.
TEST_F(RtTest, BlockingCallbackCannotWaitForItsOwnStream) {
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  struct Attempt {
    aclrtContext context;
    aclrtStream stream;
    aclError sync = -1, destroy = -1, destroy_context = -1;
    std::atomic<bool> ran{false};
  } attempt{context, stream};
  std::atomic<uint64_t> worker{0};
  std::thread processor([&] {
    aclrtSetCurrentContext(context);
    worker = ThisThread();
    while (!attempt.ran) aclrtProcessReport(10);
  });
  while (worker == 0) std::this_thread::yield();
  ASSERT_EQ(aclrtSubscribeReport(worker, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchCallback(
                [](void* data) {
                  auto* a = static_cast<Attempt*>(data);
                  a->sync = aclrtSynchronizeStream(a->stream);
                  a->destroy = aclrtDestroyStream(a->stream);
                  a->destroy_context = aclrtDestroyContext(a->context);
                  a->ran = true;
                },
                &attempt, ACL_CALLBACK_BLOCK, stream),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  processor.join();
  EXPECT_EQ(attempt.sync, ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(attempt.destroy, ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(attempt.destroy_context, ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtUnSubscribeReport(worker, stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
}

TEST_F(RtTest, CallbackMisuse) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtLaunchCallback(nullptr, nullptr, ACL_CALLBACK_BLOCK, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtUnSubscribeReport(ThisThread(), nullptr),
            ACL_ERROR_RT_STREAM_SUBSCRIBE);
  // The default stream (NULL) can be subscribed; nothing arrives: timeout.
  ASSERT_EQ(aclrtSubscribeReport(ThisThread(), nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtProcessReport(10), ACL_ERROR_RT_REPORT_TIMEOUT);
  // A callback processed by the launching thread itself.
  int calls = 0;
  ASSERT_EQ(aclrtLaunchCallback([](void* n) { ++*static_cast<int*>(n); },
                                &calls, ACL_CALLBACK_NO_BLOCK, nullptr),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtProcessReport(1000), ACL_SUCCESS);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(aclrtUnSubscribeReport(ThisThread(), nullptr), ACL_SUCCESS);
}

TEST_F(RtTest, MemoryAndCopies) {
  void* host = nullptr;
  EXPECT_EQ(aclrtMallocHost(&host, 64), ACL_ERROR_RT_CONTEXT_NULL);
  char out[64] = {};
  char in[64];
  std::memset(in, 5, sizeof(in));
  void* device = nullptr;
  ASSERT_EQ(aclrtMalloc(&device, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(device, 64, in, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_RT_CONTEXT_NULL);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtMallocHost(nullptr, 64), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMallocHost(&host, 0), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtMallocHost(&host, 64), ACL_SUCCESS);
  void* device2 = nullptr;
  // Any policy is accepted, as the SDK does (flags included).
  ASSERT_EQ(aclrtMalloc(
                &device2, 64,
                static_cast<aclrtMemMallocPolicy>(
                    ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_HIGH_BAND_WIDTH)),
            ACL_SUCCESS);
  // All four kinds, and the default one.
  EXPECT_EQ(aclrtMemcpy(device, 64, in, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(device2, 64, device, 64, ACL_MEMCPY_DEVICE_TO_DEVICE),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(host, 64, device2, 64, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(out, 64, host, 64, ACL_MEMCPY_HOST_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(out[63], 5);
  EXPECT_EQ(aclrtMemcpy(out, 64, device, 32, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
  // Wrong kinds, sizes and pointers.
  EXPECT_EQ(aclrtMemcpy(out, 64, in, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("not inside one aclrtMalloc allocation"));
  EXPECT_EQ(aclrtMemcpy(device, 64, device2, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("src is device memory"));
  EXPECT_EQ(aclrtMemcpy(device, 64, in, 65, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("count 65 exceeds destMax 64"));
  EXPECT_EQ(aclrtMemcpy(device, 128, in, 65, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_RT_PARAM_INVALID);  // past the allocation's end
  EXPECT_EQ(aclrtMemcpy(device, 64, in, 0, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemcpy(nullptr, 64, in, 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(out, 64, static_cast<char*>(host) + 32, 64,
                        ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_RT_PARAM_INVALID);  // past the host allocation
  EXPECT_EQ(aclrtMemcpyAsync(device, 64, in, 64, ACL_MEMCPY_HOST_TO_DEVICE,
                             reinterpret_cast<aclrtStream>(in)),
            ACL_ERROR_RT_PARAM_INVALID);
  // Memset.
  EXPECT_EQ(aclrtMemset(device, 64, 3, 64), ACL_SUCCESS);
  EXPECT_EQ(static_cast<char*>(device)[63], 3);
  EXPECT_EQ(aclrtMemset(device, 32, 3, 64), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemset(device, 128, 3, 128), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemset(out, 64, 3, 64), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtMemset(nullptr, 64, 3, 64), ACL_ERROR_INVALID_PARAM);
  // Freeing with the wrong call, twice, or NULL.
  EXPECT_EQ(aclrtFree(host), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("free it with aclrtFreeHost"));
  EXPECT_EQ(aclrtFreeHost(device), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_THAT(Message(), HasSubstr("free it with aclrtFree"));
  EXPECT_EQ(aclrtFreeHost(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtFree(device), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(device2), ACL_SUCCESS);
  void* huge = nullptr;
  EXPECT_EQ(aclrtMalloc(&huge, size_t{1} << 50, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_BAD_ALLOC);
  EXPECT_EQ(huge, nullptr);
}

TEST_F(RtTest, MemInfo) {
  size_t free = 0, total = 0;
  EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free, &total),
            ACL_ERROR_RT_CONTEXT_NULL);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free, &total), ACL_SUCCESS);
  EXPECT_GT(total, size_t{1} << 20);
  EXPECT_LE(free, total);
  EXPECT_EQ(aclrtGetMemInfo(ACL_DDR_MEM, nullptr, &total),
            ACL_ERROR_INVALID_PARAM);
}

// aclFinalize destroys contexts, streams and events (queued work runs first);
// their handles then fail cleanly, before and after the next aclInit.
TEST_F(RtTest, FinalizeEndsEverything) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  void* memory = nullptr;
  ASSERT_EQ(aclrtMalloc(&memory, 1 << 16, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_SUCCESS);
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(aclrtMemsetAsync(memory, 1 << 16, i, 1 << 16, stream),
              ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtRecordEvent(event, stream), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char*>(memory)[0], 49);  // the work ran
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_UNINITIALIZE);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtSynchronizeEvent(event), ACL_ERROR_RT_PARAM_INVALID);
  EXPECT_EQ(aclrtFree(memory), ACL_SUCCESS);  // memory outlives aclFinalize
}

}  // namespace
