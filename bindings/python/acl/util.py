"""acl.util: addresses to and from Python memory (pyACL's helpers)."""

import ctypes as _ctypes


def numpy_to_ptr(array):
    """The address of a C-contiguous numpy array's data (the array must outlive its use)."""
    if not array.flags["C_CONTIGUOUS"]:
        raise ValueError("array is not C-contiguous")
    return array.ctypes.data


def ptr_to_bytes(address, size):
    """A copy of `size` bytes at `address`."""
    return _ctypes.string_at(address, size)


def ptr_to_numpy(address, shape, dtype):
    """A numpy array viewing (not copying) memory at `address`; it must outlive the array."""
    import numpy as np

    dtype = np.dtype(dtype)
    count = 1
    for dim in shape:
        count *= int(dim)
    raw = (_ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(raw, dtype=dtype).reshape(shape)
