"""acl.util: addresses to and from Python memory, and threads (pyACL's helpers).

Samples feature-detect with ``"bytes_to_ptr" in dir(acl.util)``: every helper is a plain
module-level function.
"""

import ctypes as _ctypes
import threading as _threading

from . import aclswig as _c

# pyACL's npy_type numbers (numpy's type numbers) for ptr_to_numpy.
_NPY_TYPES = {
    0: "bool", 1: "int8", 2: "uint8", 3: "int16", 4: "uint16", 5: "int32", 6: "uint32",
    7: "int64", 8: "uint64", 9: "longlong", 10: "ulonglong", 11: "float32", 12: "float64",
    23: "float16",
}


def bytes_to_ptr(data):
    """The address of a bytes (or any buffer) object's memory, without copying. The object
    must stay alive (and unresized) while the address is used."""
    return _c.AclPy_BufferAddress(data)


def ptr_to_bytes(address, size):
    """A copy of `size` bytes at `address`."""
    return _ctypes.string_at(address, size)


def numpy_to_ptr(array):
    """The address of a C-contiguous numpy array's data (the array must outlive its use)."""
    if not array.flags["C_CONTIGUOUS"]:
        raise ValueError("array is not C-contiguous")
    return array.ctypes.data


def numpy_contiguous_to_ptr(array):
    """Returns (address, array): a C-contiguous version of `array` (copied when needed) and its
    address; keep the returned array alive while the address is used."""
    import numpy as np

    contiguous = np.ascontiguousarray(array)
    return contiguous.ctypes.data, contiguous


def ptr_to_numpy(address, shape, npy_type):
    """A numpy array viewing (not copying) memory at `address`, which must outlive it.
    npy_type: pyACL's type number (11 = float32, 23 = float16, ...) or a numpy dtype."""
    import numpy as np

    if isinstance(npy_type, int) and not isinstance(npy_type, bool):
        if npy_type not in _NPY_TYPES:
            raise ValueError("unknown npy_type %d" % npy_type)
        npy_type = _NPY_TYPES[npy_type]
    dtype = np.dtype(npy_type)
    count = 1
    for dim in shape:
        count *= int(dim)
    raw = (_ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


_threads = {}
_threads_lock = _threading.Lock()


def start_thread(function, args):
    """Runs function(args) on a new thread. Returns (thread_id, ret): the id to pass to
    acl.rt.subscribe_report (the thread's pthread id, as the C API expects)."""
    thread = _threading.Thread(target=function, args=(args,), daemon=True)
    thread.start()
    with _threads_lock:
        _threads[thread.ident] = thread
    return thread.ident, 0


def stop_thread(thread_id):
    """Waits for a thread from start_thread to return (make its function return first)."""
    with _threads_lock:
        thread = _threads.pop(thread_id, None)
    if thread is None:
        return _c.ACL_ERROR_INVALID_PARAM
    thread.join()
    return 0
