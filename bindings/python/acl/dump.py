"""acl.dump: acl_dump.h. Dump files delivered to a Python callable instead of the disk, and the
dump paths in effect.

``acl.dump.reg_callback(fn)`` makes every dump file reach ``fn(file_name, offset, data,
is_last)`` in chunks (``data`` is bytes belonging at ``offset`` of the file ``file_name``, an
absolute path; ``is_last`` on the file's last chunk); no file is written meanwhile. ``fn`` runs on
a dump writer thread; returning None or 0 accepts the chunk, anything else (or raising) refuses
it and ``acl.mdl.finalize_dump()`` then reports the file as not written.
"""

import atexit as _atexit

from . import aclswig as _c
from ._calls_dump import *  # noqa: F401,F403  (the ordinary calls, from bindings/calls.py)

AIC_ERR_BRIEF_DUMP = _c.AIC_ERR_BRIEF_DUMP
AIC_ERR_NORM_DUMP = _c.AIC_ERR_NORM_DUMP
AIC_ERR_DETAIL_DUMP = _c.AIC_ERR_DETAIL_DUMP
DATA_DUMP = _c.DATA_DUMP
OVERFLOW_DUMP = _c.OVERFLOW_DUMP


def reg_callback(fn, flag=0):
    """acldumpRegCallback: 0 on success. flag is reserved (0). While a callback is registered, a
    second registration succeeds and has no effect, as in the SDK."""
    return _c.AclPy_DumpRegCallback(fn, flag)


def unreg_callback():
    """acldumpUnregCallback: returns once no chunk is being delivered."""
    _c.AclPy_DumpUnregCallback()


def get_exception_info_path():
    """acldumpGetExceptionInfoPath: (path, ret); path is None when ret is not 0."""
    path = _c.aclbindingExceptionInfoPath()
    return path, (0 if path is not None else _c.ACL_ERROR_FAILURE)


ACL_DUMP_TENSOR_INPUT = _c.ACL_DUMP_TENSOR_INPUT
ACL_DUMP_TENSOR_OUTPUT = _c.ACL_DUMP_TENSOR_OUTPUT
ACL_DUMP_TENSOR_WORKSPACE = _c.ACL_DUMP_TENSOR_WORKSPACE


def save_exception_info(file_name, user_tag, tensors):
    """acldumpSaveExceptionInfo: saves `tensors` as {exception path}/{file_name}.custom.{time}.
    Each tensor is a dict: "type" (ACL_DUMP_TENSOR_INPUT/OUTPUT/WORKSPACE), "data" (a numpy array
    or any buffer; or an address int with "size"), optional "format" (default ACL_FORMAT_ND),
    "data_type" (default: from a numpy array's dtype, else ACL_FLOAT), "shape" (default: the
    array's) and "origin_shape" (default: shape). Returns 0 or the error code."""
    rows, keep = [], []
    for t in tensors:
        data = t["data"]
        if isinstance(data, int):
            address, size = data, t["size"]
        else:
            view = memoryview(data)
            keep.append(data)
            address, size = _c.AclPy_BufferAddress(data), view.nbytes
        shape = list(t.get("shape", getattr(data, "shape", [])))
        data_type = t.get("data_type")
        if data_type is None:
            data_type = _numpy_acl_type(getattr(data, "dtype", None))
        rows.append((t["type"], address, size, t.get("format", _c.ACL_FORMAT_ND), data_type,
                     shape, list(t.get("origin_shape", shape))))
    return _c.AclPy_SaveExceptionInfo(file_name, user_tag, rows)


def _numpy_acl_type(dtype):
    names = {"float32": _c.ACL_FLOAT, "float16": _c.ACL_FLOAT16, "int8": _c.ACL_INT8,
             "int32": _c.ACL_INT32, "uint8": _c.ACL_UINT8, "int16": _c.ACL_INT16,
             "int64": _c.ACL_INT64, "float64": _c.ACL_DOUBLE, "bool": _c.ACL_BOOL,
             "uint16": _c.ACL_UINT16, "uint32": _c.ACL_UINT32, "uint64": _c.ACL_UINT64}
    return names.get(str(dtype), _c.ACL_FLOAT)


# A callback must not run while the interpreter shuts down.
_atexit.register(_c.AclPy_DumpUnregCallback)
