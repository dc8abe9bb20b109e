"""acl.rt: devices, contexts, streams, events, memory and callbacks (pyACL call shapes).

Handles (contexts, streams, events) and addresses are ints; ``None`` or 0 for a stream is the
current context's default stream. A context is per thread, as in C: a thread that did not call
``set_device`` / ``create_context`` / ``set_context`` has none.
"""

from . import aclswig as _c
from ._calls_rt import *  # noqa: F401,F403  (the ordinary calls, from bindings/calls.py)

ACL_MEM_MALLOC_HUGE_FIRST = _c.ACL_MEM_MALLOC_HUGE_FIRST
ACL_MEM_MALLOC_HUGE_ONLY = _c.ACL_MEM_MALLOC_HUGE_ONLY
ACL_MEM_MALLOC_NORMAL_ONLY = _c.ACL_MEM_MALLOC_NORMAL_ONLY


def _handle(value):
    """A handle or address argument: an int (0 for NULL), None, or a buffer object."""
    return None if value is None or (isinstance(value, int) and value == 0) else value


def launch_callback(callback, user_data, block_type, stream):
    """Queues callback(user_data) on the stream; it runs in the subscribed thread's
    process_report. block_type 1 (ACL_CALLBACK_BLOCK): later work waits for it."""
    return _c.AclPy_LaunchCallback(callback, user_data, block_type, _handle(stream))
