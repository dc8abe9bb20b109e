"""acldump's C ABI with the pyACL call shape: ``ret = acl.mdl.set_dump(path)``.

Every function returns the C function's ``aclError`` as an int (0 = ``ACL_SUCCESS``); one with
out-parameters returns them first and the code last: ``model_id, ret = acl.mdl.load_from_file(p)``.
After a non-zero code, ``acl.get_recent_err_msg()`` says why.

Handles (data buffers, datasets, descriptions, tensor descs, attrs) are freed when Python drops
them, or earlier by their ``destroy_*`` function. For a Pythonic layer (exceptions, context
managers, numpy) see the ``acldump`` package.

The ordinary calls of each module are generated from bindings/calls.py (``_calls_<module>``);
the modules hold the special ones (buffers, callbacks, destructors).
"""

import sys as _sys

from . import aclswig as _c
from ._calls_acl import *  # noqa: F401,F403  (init, finalize, tensor descriptions...)

# Error codes, data types and formats, as in acl_base.h (ACL_SUCCESS, ACL_ERROR_*, ACL_FLOAT...).
globals().update({k: v for k, v in vars(_c).items() if k.startswith("ACL_")})


def get_recent_err_msg():
    """The message of this thread's most recent acl call ("" after a success). It is copied
    right after each call, so a handle freed by the garbage collector meanwhile (which calls
    an aclDestroy* function) does not erase it."""
    return _c.aclGetRecentErrMsg()


def app_log(log_level, message):
    """pyACL's acl.app_log: writes `message` to the application log (stderr) with the calling
    function, file and line, when `log_level` (0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR) is at or above
    ASCEND_GLOBAL_LOG_LEVEL (default 3: errors only). Returns None, as pyACL's does."""
    if isinstance(log_level, bool) or not isinstance(log_level, int):
        raise TypeError("log_level must be an int (0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR), not %s"
                        % type(log_level).__name__)
    caller = _sys._getframe(1)
    _c.AclPy_AppLog(log_level, caller.f_code.co_name, caller.f_code.co_filename,
                    caller.f_lineno, str(message))


# pyACL documents its handles (data buffers, datasets, model and tensor descriptions, op attrs)
# as ints, their addresses. acldump's are objects (they free themselves), which behave as those
# ints do: int(h) and operator.index(h) give the address, two handles of one address (read out of
# a dataset twice, say) are equal and hash alike, and a handle equals its address as an int.
def _handle_address(handle):
    return int(handle.this)


def _handle_eq(handle, other):
    if isinstance(other, int) and not isinstance(other, bool):
        return _handle_address(handle) == other
    if isinstance(other, _HANDLE_TYPES):
        return _handle_address(handle) == _handle_address(other)
    return NotImplemented


def _handle_ne(handle, other):
    equal = _handle_eq(handle, other)
    return equal if equal is NotImplemented else not equal


_HANDLE_TYPES = (_c.aclDataBuffer, _c.aclmdlDataset, _c.aclmdlDesc, _c.aclTensorDesc,
                 _c.aclopAttr)
for _type in _HANDLE_TYPES:
    _type.__int__ = _type.__index__ = _handle_address
    _type.__eq__ = _handle_eq
    _type.__ne__ = _handle_ne
    _type.__hash__ = lambda handle: hash(_handle_address(handle))


def _writable_view(data, size):
    view = memoryview(data)
    if view.readonly:
        raise TypeError("the buffer is read-only (e.g. bytes): the runtime may write into it; "
                        "pass a bytearray or a numpy array")
    if size is not None and size > view.nbytes:
        raise ValueError("size %d exceeds the buffer's %d bytes" % (size, view.nbytes))
    return view


def create_data_buffer(data, size=None):
    """aclCreateDataBuffer over `data`: an address (int, with `size`) or a writable buffer
    (bytearray, numpy array, memoryview; `size` defaults to all of it). The handle keeps a
    buffer object alive; memory given by address must outlive the handle."""
    if isinstance(data, int) or data is None:
        return _c.aclCreateDataBuffer(data, 0 if size is None else size)
    view = _writable_view(data, size)
    handle = _c.aclCreateDataBuffer(data, view.nbytes if size is None else size)
    if handle is not None:
        handle._acl_memory = view  # holds the export: the memory cannot move or be freed
    return handle


def update_data_buffer(buffer, data, size=None):
    """aclUpdateDataBuffer: points `buffer` at other memory (same forms as create_data_buffer)."""
    if isinstance(data, int) or data is None:
        return _c.aclUpdateDataBuffer(buffer, data, 0 if size is None else size)
    view = _writable_view(data, size)
    ret = _c.aclUpdateDataBuffer(buffer, data, view.nbytes if size is None else size)
    if ret == 0:
        buffer._acl_memory = view
    return ret


def destroy_data_buffer(buffer):
    return _c.aclDestroyDataBuffer(buffer)


def get_data_buffer_addr(buffer):
    return _c.aclGetDataBufferAddr(buffer)


def destroy_tensor_desc(desc):
    return _c.aclDestroyTensorDesc(desc)


from . import dump, mdl, op, rt, util  # noqa: E402  (they use the functions above)
