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


_SIZE_MASK = (1 << 64) - 1


def get_input_dynamic_dims(model_desc, index, gear_count):
    """aclmdlGetInputDynamicDims: returns (dims_out, ret), dims_out a list with one pyACL dict
    {"name", "dimCount", "dims"} per gear (every input's dims at the gear, one input after
    another), None on failure. index is reserved (-1)."""
    ret, dims = _c.aclmdlGetInputDynamicDims(model_desc, index & _SIZE_MASK, gear_count)
    return dims, ret


def set_input_dynamic_dims(model_id, dataset, index, dims):
    """aclmdlSetInputDynamicDims: dims is pyACL's dict {"name", "dimCount", "dims"} (name
    unused) or a list of ints: every input's dims, one input after another. Returns ret."""
    return _c.aclmdlSetInputDynamicDims(model_id, dataset, index, dims)


def destroy_aipp(aipp_parms_set):
    """aclmdlDestroyAIPP: frees the parameters made by create_aipp."""
    return _c.aclmdlDestroyAIPP(aipp_parms_set)


def get_first_aipp_info(model_id, index):
    """aclmdlGetFirstAippInfo: returns (info, ret), info a dict of aclAippInfo's fields
    (outDims a list of dicts), None on failure."""
    ret, info = _c.aclmdlGetFirstAippInfo(model_id, index)
    return info, ret
