// For tests of work queued on a stream: keeps the stream busy behind a blocking
// callback that nobody processes until Release() (the stream's later work
// waits behind it).
#ifndef ACLDUMP_BINDINGS_C_TESTS_STREAM_BLOCKER_H_
#define ACLDUMP_BINDINGS_C_TESTS_STREAM_BLOCKER_H_

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "acl/acl.h"

namespace acldump::testing {

class StreamBlocker {
 public:
  explicit StreamBlocker(aclrtStream stream) : stream_(stream) {
    aclrtContext context = nullptr;
    EXPECT_EQ(aclrtGetCurrentContext(&context), ACL_SUCCESS);
    thread_ = std::thread([this, context] {
      aclrtSetCurrentContext(context);
      subscriber_ = static_cast<uint64_t>(pthread_self());
      ready_ = true;
      while (!release_)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      // Until the callback ran, or was dropped with its stream (destroyed, or
      // the runtime finalized).
      while (!ran_) {
        const aclError e = aclrtProcessReport(10);
        if (e == ACL_ERROR_RT_THREAD_SUBSCRIBE || e == ACL_ERROR_UNINITIALIZE) {
          break;
        }
      }
    });
    while (!ready_) std::this_thread::yield();
    EXPECT_EQ(aclrtSubscribeReport(subscriber_, stream_), ACL_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(
        aclrtLaunchCallback(
            [](void* ran) { *static_cast<std::atomic<bool>*>(ran) = true; },
            &ran_, ACL_CALLBACK_BLOCK, stream_),
        ACL_SUCCESS)
        << aclGetRecentErrMsg();
  }
  StreamBlocker(const StreamBlocker&) = delete;
  StreamBlocker& operator=(const StreamBlocker&) = delete;

  // Lets the stream go on now, or after `delay` (from another thread).
  void Release() { release_ = true; }
  void ReleaseAfter(std::chrono::milliseconds delay) {
    releaser_ = std::thread([this, delay] {
      std::this_thread::sleep_for(delay);
      release_ = true;
    });
  }

  // Releases the stream and, when it still exists, waits for its work.
  ~StreamBlocker() {
    release_ = true;
    if (releaser_.joinable()) releaser_.join();
    if (thread_.joinable()) thread_.join();
    aclrtStreamStatus status;
    if (aclrtStreamQuery(stream_, &status) == ACL_SUCCESS) {
      EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS)
          << aclGetRecentErrMsg();
      EXPECT_EQ(aclrtUnSubscribeReport(subscriber_, stream_), ACL_SUCCESS);
    }
  }

 private:
  aclrtStream stream_;
  std::thread thread_, releaser_;
  std::atomic<bool> ready_{false}, release_{false}, ran_{false};
  uint64_t subscriber_ = 0;
};

}  // namespace acldump::testing

#endif  // ACLDUMP_BINDINGS_C_TESTS_STREAM_BLOCKER_H_
