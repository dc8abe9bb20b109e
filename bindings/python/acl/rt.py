"""acl.rt: devices, contexts, streams, events, memory and callbacks (pyACL call shapes).

Handles (contexts, streams, events) and addresses are ints; ``None`` or 0 for a stream is the
current context's default stream. A context is per thread, as in C: a thread that did not call
``set_device`` / ``create_context`` / ``set_context`` has none.
"""

from . import aclswig as _c

ACL_MEM_MALLOC_HUGE_FIRST = _c.ACL_MEM_MALLOC_HUGE_FIRST
ACL_MEM_MALLOC_HUGE_ONLY = _c.ACL_MEM_MALLOC_HUGE_ONLY
ACL_MEM_MALLOC_NORMAL_ONLY = _c.ACL_MEM_MALLOC_NORMAL_ONLY


def _handle(value):
    """A handle or address argument: an int (0 for NULL), None, or a buffer object."""
    return None if value is None or (isinstance(value, int) and value == 0) else value


# ---- Devices ----


def set_device(device_id):
    return _c.aclrtSetDevice(device_id)


def reset_device(device_id):
    return _c.aclrtResetDevice(device_id)


def get_device():
    """Returns (device_id, ret)."""
    ret, device_id = _c.aclrtGetDevice()
    return device_id, ret


def get_device_count():
    """Returns (count, ret)."""
    ret, count = _c.aclrtGetDeviceCount()
    return count, ret


def get_run_mode():
    """Returns (run_mode, ret): ACL_HOST (1) on this runtime."""
    ret, mode = _c.aclrtGetRunMode()
    return mode, ret


def get_soc_name():
    return _c.aclrtGetSocName()


def synchronize_device():
    return _c.aclrtSynchronizeDevice()


def get_version():
    """Returns (major, minor, patch, ret)."""
    ret, major, minor, patch = _c.aclrtGetVersion()
    return major, minor, patch, ret


# ---- Contexts ----


def create_context(device_id):
    """Returns (context, ret); the new context is current for the calling thread."""
    ret, context = _c.aclrtCreateContext(device_id)
    return context, ret


def destroy_context(context):
    return _c.aclrtDestroyContext(_handle(context))


def set_context(context):
    return _c.aclrtSetCurrentContext(_handle(context))


def get_context():
    """Returns (context, ret)."""
    ret, context = _c.aclrtGetCurrentContext()
    return context, ret


# ---- Streams ----


def create_stream():
    """Returns (stream, ret)."""
    ret, stream = _c.aclrtCreateStream()
    return stream, ret


def create_stream_with_config(priority, flag):
    ret, stream = _c.aclrtCreateStreamWithConfig(priority, flag)
    return stream, ret


def destroy_stream(stream):
    return _c.aclrtDestroyStream(_handle(stream))


def synchronize_stream(stream):
    """Waits for the stream's queued work; returns the first failure among it."""
    return _c.aclrtSynchronizeStream(_handle(stream))


def synchronize_stream_with_timeout(stream, timeout):
    return _c.aclrtSynchronizeStreamWithTimeout(_handle(stream), timeout)


def stream_query(stream):
    """Returns (status, ret): ACL_STREAM_STATUS_COMPLETE (0) or ..._NOT_READY (1)."""
    ret, status = _c.aclrtStreamQuery(_handle(stream))
    return status, ret


def stream_wait_event(stream, event):
    return _c.aclrtStreamWaitEvent(_handle(stream), _handle(event))


# ---- Events ----


def create_event():
    """Returns (event, ret)."""
    ret, event = _c.aclrtCreateEvent()
    return event, ret


def create_event_with_flag(flag):
    ret, event = _c.aclrtCreateEventWithFlag(flag)
    return event, ret


def destroy_event(event):
    return _c.aclrtDestroyEvent(_handle(event))


def record_event(event, stream):
    return _c.aclrtRecordEvent(_handle(event), _handle(stream))


def reset_event(event, stream):
    return _c.aclrtResetEvent(_handle(event), _handle(stream))


def synchronize_event(event):
    return _c.aclrtSynchronizeEvent(_handle(event))


def query_event_status(event):
    """Returns (status, ret): ACL_EVENT_RECORDED_STATUS_COMPLETE (1) or ..._NOT_READY (0)."""
    ret, status = _c.aclrtQueryEventStatus(_handle(event))
    return status, ret


def event_elapsed_time(start, end):
    """Returns (milliseconds, ret)."""
    ret, ms = _c.aclrtEventElapsedTime(_handle(start), _handle(end))
    return ms, ret


# ---- Memory ----


def malloc(size, policy=ACL_MEM_MALLOC_HUGE_FIRST):
    """Returns (address, ret); free with acl.rt.free(address)."""
    ret, address = _c.aclrtMalloc(size, policy)
    return address, ret


def free(address):
    return _c.aclrtFree(_handle(address))


def malloc_host(size):
    """Returns (address, ret); free with acl.rt.free_host(address)."""
    ret, address = _c.aclrtMallocHost(size)
    return address, ret


def free_host(address):
    return _c.aclrtFreeHost(_handle(address))


def memcpy(dst, dst_max, src, count, kind):
    """aclrtMemcpy between addresses (ints; a buffer object is taken as its memory)."""
    return _c.aclrtMemcpy(_handle(dst), dst_max, _handle(src), count, kind)


def memcpy_async(dst, dst_max, src, count, kind, stream):
    return _c.aclrtMemcpyAsync(_handle(dst), dst_max, _handle(src), count, kind,
                               _handle(stream))


def memset(address, max_count, value, count):
    return _c.aclrtMemset(_handle(address), max_count, value, count)


def memset_async(address, max_count, value, count, stream):
    return _c.aclrtMemsetAsync(_handle(address), max_count, value, count, _handle(stream))


def get_mem_info(attr):
    """Returns (free, total, ret) in bytes."""
    ret, free_bytes, total = _c.aclrtGetMemInfo(attr)
    return free_bytes, total, ret


# ---- Callbacks ----


def subscribe_report(thread_id, stream):
    """thread_id: from acl.util.start_thread (or threading.get_ident() of the thread that
    calls process_report)."""
    return _c.aclrtSubscribeReport(thread_id, _handle(stream))


def launch_callback(callback, user_data, block_type, stream):
    """Queues callback(user_data) on the stream; it runs in the subscribed thread's
    process_report. block_type 1 (ACL_CALLBACK_BLOCK): later work waits for it."""
    return _c.AclPy_LaunchCallback(callback, user_data, block_type, _handle(stream))


def process_report(timeout):
    """Runs the callbacks waiting for this thread, waiting up to timeout ms (-1: no limit)."""
    return _c.aclrtProcessReport(timeout)


def unsubscribe_report(thread_id, stream):
    return _c.aclrtUnSubscribeReport(thread_id, _handle(stream))
