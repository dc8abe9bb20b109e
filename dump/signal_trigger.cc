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

struct Dispatcher {
  std::mutex mutex;  // guards everything below
  std::map<uint64_t, std::function<void()>> subscribers;
  uint64_t next_id = 1;
  struct sigaction previous {};
  std::thread thread;
  bool stopping = false;
};

Dispatcher& TheDispatcher() {
  static Dispatcher* dispatcher = new Dispatcher;  // never destroyed
  return *dispatcher;
}

void Dispatch() {
  Dispatcher& d = TheDispatcher();
  while (true) {
    if (sem_wait(&g_posted) != 0) continue;  // EINTR
    std::vector<std::function<void()>> calls;
    {
      std::lock_guard<std::mutex> lock(d.mutex);
      if (d.stopping) return;
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
  if (d.subscribers.empty()) {
    if (d.thread.joinable()) d.thread.join();  // the previous dispatcher
    sem_init(&g_posted, 0, 0);
    d.stopping = false;
    struct sigaction action {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGUSR2, &action, &d.previous) != 0) {
      return absl::InternalError(
          StrCat("cannot install a SIGUSR2 handler: ", std::strerror(errno)));
    }
    d.thread = std::thread(Dispatch);
  }
  const uint64_t id = d.next_id++;
  d.subscribers.emplace(id, std::move(on_signal));
  return std::make_unique<SignalSubscription>(id);
}

SignalSubscription::~SignalSubscription() {
  Dispatcher& d = TheDispatcher();
  std::thread finished;
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    d.subscribers.erase(id_);
    if (!d.subscribers.empty()) return;
    sigaction(SIGUSR2, &d.previous, nullptr);
    d.stopping = true;
    sem_post(&g_posted);
    finished = std::move(d.thread);
  }
  // Outside the lock: the dispatcher takes it to see that it stops. A
  // subscriber ending its subscription from the dispatcher's own call
  // leaves the thread to end by itself.
  if (finished.joinable()) {
    if (finished.get_id() == std::this_thread::get_id()) {
      finished.detach();
    } else {
      finished.join();
    }
  }
}

}  // namespace acldump::dump
