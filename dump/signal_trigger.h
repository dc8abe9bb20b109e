// SIGUSR2 as a trigger: while a subscription lives, each SIGUSR2 the process
// receives calls every subscriber on a dispatcher thread (the signal handler
// itself only posts a semaphore, which is async-signal-safe). The handler
// that was installed before the first subscription is restored after the
// last one ends. The dispatcher thread, started with the first subscription,
// lives as long as the process. Ending a subscription never waits for a call
// under way: a subscriber must stay valid for one (hold it weakly).
#ifndef ACLDUMP_DUMP_SIGNAL_TRIGGER_H_
#define ACLDUMP_DUMP_SIGNAL_TRIGGER_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"

namespace acldump::dump {

class SignalSubscription {
 public:
  explicit SignalSubscription(uint64_t id) : id_(id) {}
  ~SignalSubscription();
  SignalSubscription(const SignalSubscription&) = delete;
  SignalSubscription& operator=(const SignalSubscription&) = delete;

 private:
  const uint64_t id_;
};

// Fails (with the reason) when the handler cannot be installed.
absl::StatusOr<std::unique_ptr<SignalSubscription>> SubscribeToSignal(
    std::function<void()> on_signal);

}  // namespace acldump::dump

#endif  // ACLDUMP_DUMP_SIGNAL_TRIGGER_H_
