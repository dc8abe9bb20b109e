#include "dump/signal_trigger.h"

#include <semaphore.h>
#include <signal.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/strings.h"

namespace acldump::dump {
namespace {

sem_t g_posted;

void OnSignal(int) {
  const int saved = errno;
  sem_post(&g_posted);
  errno = saved;
}

// The subscribers and the dispatcher thread. The thread starts with the first
// subscription and lives as long as the process (a stray post with nobody
// subscribed calls nobody), so it is never restarted while an old one runs.
struct Dispatcher {
  std::mutex mutex;  // guards everything below
  std::map<uint64_t, std::function<void()>> subscribers;
  uint64_t next_id = 1;
  bool handler_installed = false;
  struct sigaction previous {};
  bool started = false;
};

Dispatcher& TheDispatcher() {
  static Dispatcher* dispatcher = new Dispatcher;  // never destroyed
  return *dispatcher;
}

[[noreturn]] void Dispatch() {
  Dispatcher& d = TheDispatcher();
  while (true) {
    if (sem_wait(&g_posted) != 0) continue;  // EINTR
    std::vector<std::function<void()>> calls;
    {
      std::lock_guard<std::mutex> lock(d.mutex);
      for (const auto& [id, call] : d.subscribers) calls.push_back(call);
    }
    for (const auto& call : calls) call();
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<SignalSubscription>> SubscribeToSignal(
    std::function<void()> on_signal) {
  Dispatcher& d = TheDispatcher();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!d.started) {
    if (sem_init(&g_posted, 0, 0) != 0) {
      return absl::InternalError(
          StrCat("cannot create the SIGUSR2 trigger's semaphore: ",
                 std::strerror(errno),
                 "; start the recorder without the signal "
                 "trigger"));
    }
    std::thread(Dispatch).detach();
    d.started = true;
  }
  if (!d.handler_installed) {
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGUSR2, &action, &d.previous) != 0) {
      return absl::InternalError(
          StrCat("cannot install a SIGUSR2 handler: ", std::strerror(errno),
                 "; start the recorder without the signal trigger"));
    }
    d.handler_installed = true;
  }
  const uint64_t id = d.next_id++;
  d.subscribers.emplace(id, std::move(on_signal));
  return std::make_unique<SignalSubscription>(id);
}

SignalSubscription::~SignalSubscription() {
  Dispatcher& d = TheDispatcher();
  std::lock_guard<std::mutex> lock(d.mutex);
  d.subscribers.erase(id_);
  if (d.subscribers.empty() && d.handler_installed) {
    sigaction(SIGUSR2, &d.previous, nullptr);
    d.handler_installed = false;
  }
}

}  // namespace acldump::dump
