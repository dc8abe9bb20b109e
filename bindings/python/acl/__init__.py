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

from . import aclswig as _c
from ._calls_acl import *  # noqa: F401,F403  (init, finalize, tensor descriptions...)

# Error codes, data types and formats, as in acl_base.h (ACL_SUCCESS, ACL_ERROR_*, ACL_FLOAT...).
globals().update({k: v for k, v in vars(_c).items() if k.startswith("ACL_")})


def get_recent_err_msg():
    """The message of this thread's most recent acl call ("" after a success). It is copied
    right after each call, so a handle freed by the garbage collector meanwhile (which calls
    an aclDestroy* function) does not erase it."""
    return _c.aclGetRecentErrMsg()


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
