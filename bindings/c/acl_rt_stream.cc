// Streams, events and callbacks (acl_rt.h).
#include <pthread.h>

#include <chrono>

#include "acl/acl.h"
#include "api_support.h"
#include "base/strings.h"
#include "library.h"
#include "runtime/host/host_runtime.h"

using namespace acldump;        // NOLINT: the entry points are thin adapters
using namespace acldump::capi;  // NOLINT
using acldump::host::Event;
using acldump::host::Stream;

namespace {

// Fails unless the library is initialised; resolves `handle` (NULL: the
// default stream) against the calling thread's current context.
aclError StreamArg(aclrtStream handle, std::shared_ptr<State>* state,
                   std::shared_ptr<Stream>* stream) {
  *state = Acquire();
  if (!*state) return ACL_ERROR_UNINITIALIZE;
  absl::StatusOr<std::shared_ptr<Stream>> resolved =
      (*state)->runtime.ResolveStream(handle);
  if (!resolved.ok()) return Translate(resolved.status());
  *stream = *std::move(resolved);
  return ACL_SUCCESS;
}

aclError EventArg(aclrtEvent handle, const State& state,
                  std::shared_ptr<Event>* event) {
  if (handle == nullptr) return NullArgument("event");
  absl::StatusOr<std::shared_ptr<Event>> found =
      state.runtime.FindEvent(handle);
  if (!found.ok()) return Translate(found.status());
  *event = *std::move(found);
  return ACL_SUCCESS;
}

aclError Queue(Stream& stream, Stream::Work work) {
  absl::Status queued = stream.Enqueue(std::move(work));
  return queued.ok() ? ACL_SUCCESS
                     : FailWith(queued, ACL_ERROR_RT_PARAM_INVALID);
}

aclError ElapsedTime(const Event& start, const Event& end, float* ms) {
  for (const Event* event : {&start, &end}) {
    const char* which = event == &start ? "startEvent" : "endEvent";
    switch (event->state()) {
      case Event::State::kNeverRecorded:
        return Fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                    StrCat(which, " was never recorded (aclrtRecordEvent)"));
      case Event::State::kPending:
        return Fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                    StrCat(which,
                           "'s record has not run yet "
                           "(aclrtSynchronizeEvent first)"));
      case Event::State::kComplete:
        break;
    }
  }
  const auto from = start.completed_at(), to = end.completed_at();
  if (!from || !to) {
    return Fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE,
                "an event was recorded again meanwhile");
  }
  if (*to < *from) {
    return Fail(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL,
                "endEvent completed before startEvent");
  }
  *ms = std::chrono::duration<float, std::milli>(*to - *from).count();
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

// ---- Streams

aclError aclrtCreateStream(aclrtStream* stream) {
  return GuardedCall([&] {
    if (stream == nullptr) return NullArgument("stream");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    absl::StatusOr<void*> created = state->runtime.CreateStream();
    if (!created.ok()) return Translate(created.status());
    *stream = *created;
    return ACL_SUCCESS;
  });
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority,
                                     uint32_t flag) {
  (void)priority;  // one worker per stream: nothing to prioritise
  (void)flag;
  return aclrtCreateStream(stream);
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return GuardedCall([&] {
    if (stream == nullptr) return NullArgument("stream");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return Translate(state->runtime.DestroyStream(stream));
  });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<Stream> resolved;
    if (aclError e = StreamArg(stream, &state, &resolved)) return e;
    return Translate(state->runtime.Synchronize(*resolved, std::nullopt));
  });
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream,
                                           int32_t timeout) {
  return GuardedCall([&] {
    if (timeout < -1) {
      return Fail(ACL_ERROR_RT_PARAM_INVALID,
                  StrCat("timeout ", timeout, " is not -1 or >= 0"));
    }
    std::shared_ptr<State> state;
    std::shared_ptr<Stream> resolved;
    if (aclError e = StreamArg(stream, &state, &resolved)) return e;
    std::optional<std::chrono::milliseconds> limit;
    if (timeout >= 0) limit = std::chrono::milliseconds(timeout);
    return Translate(state->runtime.Synchronize(*resolved, limit));
  });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  return GuardedCall([&] {
    if (status == nullptr) return NullArgument("status");
    std::shared_ptr<State> state;
    std::shared_ptr<Stream> resolved;
    if (aclError e = StreamArg(stream, &state, &resolved)) return e;
    *status = resolved->Idle() ? ACL_STREAM_STATUS_COMPLETE
                               : ACL_STREAM_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<Stream> resolved;
    if (aclError e = StreamArg(stream, &state, &resolved)) return e;
    std::shared_ptr<Event> waited;
    if (aclError e = EventArg(event, *state, &waited)) return e;
    const uint64_t generation = waited->latest();
    if (generation == 0) return ACL_SUCCESS;  // never recorded: no wait
    return Queue(*resolved, [waited, generation] {
      waited->Wait(generation);
      return absl::OkStatus();
    });
  });
}

// ---- Events

aclError aclrtCreateEvent(aclrtEvent* event) {
  return GuardedCall([&] {
    if (event == nullptr) return NullArgument("event");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    absl::StatusOr<void*> created = state->runtime.CreateEvent();
    if (!created.ok()) return Translate(created.status());
    *event = *created;
    return ACL_SUCCESS;
  });
}

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  (void)flag;  // every event here has timing and can be waited for
  return aclrtCreateEvent(event);
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  return GuardedCall([&] {
    if (event == nullptr) return NullArgument("event");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    return Translate(state->runtime.DestroyEvent(event));
  });
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<Stream> resolved;
    if (aclError e = StreamArg(stream, &state, &resolved)) return e;
    std::shared_ptr<Event> recorded;
    if (aclError e = EventArg(event, *state, &recorded)) return e;
    const uint64_t generation = recorded->BeginRecord();
    aclError e = Queue(*resolved, [recorded, generation] {
      recorded->Complete(generation);
      return absl::OkStatus();
    });
    if (e != ACL_SUCCESS) recorded->Complete(generation);  // nobody will
    return e;
  });
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<Stream> resolved;
    if (aclError e = StreamArg(stream, &state, &resolved)) return e;
    std::shared_ptr<Event> reset;
    if (aclError e = EventArg(event, *state, &reset)) return e;
    reset->Reset();
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  return GuardedCall([&] {
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<Event> waited;
    if (aclError e = EventArg(event, *state, &waited)) return e;
    const uint64_t generation = waited->latest();
    if (generation != 0) waited->Wait(generation);
    if (waited->state() == Event::State::kPending &&
        state->runtime.sync()->stopping) {
      return Fail(ACL_ERROR_UNINITIALIZE,
                  "aclFinalize ended the runtime before the event completed");
    }
    return ACL_SUCCESS;
  });
}

aclError aclrtQueryEventStatus(aclrtEvent event,
                               aclrtEventRecordedStatus* status) {
  return GuardedCall([&] {
    if (status == nullptr) return NullArgument("status");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<Event> queried;
    if (aclError e = EventArg(event, *state, &queried)) return e;
    *status = queried->state() == Event::State::kComplete
                  ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                  : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  return GuardedCall([&] {
    if (status == nullptr) return NullArgument("status");
    aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    if (aclError e = aclrtQueryEventStatus(event, &recorded)) return e;
    *status = recorded == ACL_EVENT_RECORDED_STATUS_COMPLETE
                  ? ACL_EVENT_STATUS_COMPLETE
                  : ACL_EVENT_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent,
                               aclrtEvent endEvent) {
  return GuardedCall([&] {
    if (ms == nullptr) return NullArgument("ms");
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    std::shared_ptr<Event> start, end;
    if (aclError e = EventArg(startEvent, *state, &start)) return e;
    if (aclError e = EventArg(endEvent, *state, &end)) return e;
    return ElapsedTime(*start, *end, ms);
  });
}

// ---- Callbacks

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<Stream> resolved;
    if (aclError e = StreamArg(stream, &state, &resolved)) return e;
    return Translate(
        state->runtime.reports().Subscribe(threadId, resolved.get()));
  });
}

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData,
                             aclrtCallbackBlockType blockType,
                             aclrtStream stream) {
  return GuardedCall([&] {
    if (fn == nullptr) return NullArgument("fn");
    const int32_t block_type = RawEnum(blockType);
    if (block_type != ACL_CALLBACK_NO_BLOCK &&
        block_type != ACL_CALLBACK_BLOCK) {
      return Fail(
          ACL_ERROR_INVALID_PARAM,
          StrCat("blockType ", block_type,
                 " is not ACL_CALLBACK_NO_BLOCK or ACL_CALLBACK_BLOCK"));
    }
    std::shared_ptr<State> state;
    std::shared_ptr<Stream> resolved;
    if (aclError e = StreamArg(stream, &state, &resolved)) return e;
    if (!state->runtime.reports().IsSubscribed(resolved.get())) {
      return Fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
                  "no thread processes this stream's callbacks: "
                  "aclrtSubscribeReport first");
    }
    const bool block = block_type == ACL_CALLBACK_BLOCK;
    return Queue(*resolved, [board = state->runtime.shared_reports(),
                             key = resolved.get(), fn, userData, block] {
      board->Deliver(key, fn, userData, block);
      return absl::OkStatus();
    });
  });
}

aclError aclrtProcessReport(int32_t timeout) {
  return GuardedCall([&] {
    if (timeout == 0 || timeout < -1) {
      return Fail(ACL_ERROR_INVALID_PARAM,
                  StrCat("timeout ", timeout, " is not -1 or > 0 (ms)"));
    }
    std::shared_ptr<State> state = Acquire();
    if (!state) return ACL_ERROR_UNINITIALIZE;
    const uint64_t self = static_cast<uint64_t>(pthread_self());
    return Translate(state->runtime.reports().Process(self, timeout));
  });
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return GuardedCall([&] {
    std::shared_ptr<State> state;
    std::shared_ptr<Stream> resolved;
    if (aclError e = StreamArg(stream, &state, &resolved)) return e;
    return Translate(
        state->runtime.reports().Unsubscribe(threadId, resolved.get()));
  });
}

}  // extern "C"
