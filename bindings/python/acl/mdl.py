"""acl.mdl: model dump, load / execute / unload, model descriptions and datasets.

Models can be given as paths, bytes-like objects, or (pyACL style) an address and a size.
"""

import ctypes as _ctypes

from . import aclswig as _c
from ._calls_mdl import *  # noqa: F401,F403  (the ordinary calls, from bindings/calls.py)


def _model_bytes(model, size):
    """A memoryview of a model given as a bytes-like object or an address (int) and size."""
    if isinstance(model, int):
        if not model or not size:
            return memoryview(b"")
        return memoryview((_ctypes.c_char * size).from_address(model)).cast("B")
    view = memoryview(model)
    if size is not None:
        view = view.cast("B")[:size]
    return view


def _address(value):
    return None if value is None or (isinstance(value, int) and value == 0) else value


def load_from_mem(model, size=None):
    """Loads a model from a bytes-like object, or an address and size (copied). Returns
    (model_id, ret)."""
    ret, model_id = _c.aclmdlLoadFromMem(_model_bytes(model, size))
    return model_id, ret


def load_from_mem_with_mem(model, model_size, work_ptr, work_size, weight_ptr, weight_size):
    """As load_from_file_with_mem for a model in memory. Returns (model_id, ret)."""
    ret, model_id = _c.aclmdlLoadFromMemWithMem(
        _model_bytes(model, model_size), _address(work_ptr), work_size, _address(weight_ptr),
        weight_size)
    return model_id, ret


def query_size_from_mem(model, model_size=None):
    """Returns (work_size, weight_size, ret) for a model in memory."""
    ret, work, weight = _c.aclmdlQuerySizeFromMem(_model_bytes(model, model_size))
    return work, weight, ret


def destroy_desc(model_desc):
    return _c.aclmdlDestroyDesc(model_desc)


def destroy_dataset(dataset):
    """Frees the dataset, not its buffers."""
    return _c.aclmdlDestroyDataset(dataset)


def add_dataset_buffer(dataset, data_buffer):
    """Returns (dataset, ret). The dataset keeps the buffer's Python handle alive."""
    ret = _c.aclmdlAddDatasetBuffer(dataset, data_buffer)
    if ret == 0:
        # The C dataset does not own its buffers; without this a buffer handle dropped by the
        # caller would be freed by the garbage collector while still in the dataset.
        if not hasattr(dataset, "_acl_buffers"):
            dataset._acl_buffers = []
        dataset._acl_buffers.append(data_buffer)
    return dataset, ret
