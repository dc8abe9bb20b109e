"""acl.mdl: model dump, load / execute / unload, model descriptions and datasets."""

import os as _os

from . import aclswig as _c

# ---- Dump ----


def init_dump():
    return _c.aclmdlInitDump()


def set_dump(dump_cfg_path):
    """aclmdlSetDump: 0 on success (S1). Applies to models loaded afterwards (S4)."""
    return _c.aclmdlSetDump(None if dump_cfg_path is None else _os.fspath(dump_cfg_path))


def finalize_dump():
    """aclmdlFinalizeDump: every queued dump file is written when it returns (S2)."""
    return _c.aclmdlFinalizeDump()


# ---- Load / execute ----


def load_from_file(model_path):
    """Returns (model_id, ret)."""
    ret, model_id = _c.aclmdlLoadFromFile(None if model_path is None else _os.fspath(model_path))
    return model_id, ret


def load_from_mem(model, size=None):
    """Loads a model from a bytes-like object (copied). Returns (model_id, ret)."""
    view = memoryview(model)
    if size is not None:
        view = view.cast("B")[:size]
    ret, model_id = _c.aclmdlLoadFromMem(view)
    return model_id, ret


def unload(model_id):
    return _c.aclmdlUnload(model_id)


def execute(model_id, input, output):  # noqa: A002  (pyACL's parameter names)
    return _c.aclmdlExecute(model_id, input, output)


# ---- Model description ----


def create_desc():
    return _c.aclmdlCreateDesc()


def destroy_desc(model_desc):
    return _c.aclmdlDestroyDesc(model_desc)


def get_desc(model_desc, model_id):
    return _c.aclmdlGetDesc(model_desc, model_id)


def get_num_inputs(model_desc):
    return _c.aclmdlGetNumInputs(model_desc)


def get_num_outputs(model_desc):
    return _c.aclmdlGetNumOutputs(model_desc)


def get_input_size_by_index(model_desc, index):
    return _c.aclmdlGetInputSizeByIndex(model_desc, index)


def get_output_size_by_index(model_desc, index):
    return _c.aclmdlGetOutputSizeByIndex(model_desc, index)


def get_input_name_by_index(model_desc, index):
    return _c.aclmdlGetInputNameByIndex(model_desc, index)


def get_output_name_by_index(model_desc, index):
    return _c.aclmdlGetOutputNameByIndex(model_desc, index)


def get_input_data_type(model_desc, index):
    return _c.aclmdlGetInputDataType(model_desc, index)


def get_output_data_type(model_desc, index):
    return _c.aclmdlGetOutputDataType(model_desc, index)


def get_input_format(model_desc, index):
    return _c.aclmdlGetInputFormat(model_desc, index)


def get_output_format(model_desc, index):
    return _c.aclmdlGetOutputFormat(model_desc, index)


def get_input_dims(model_desc, index):
    """Returns ({"name", "dimCount", "dims"}, ret); None instead of the dict on failure."""
    ret, dims = _c.aclmdlGetInputDims(model_desc, index)
    return dims, ret


def get_output_dims(model_desc, index):
    ret, dims = _c.aclmdlGetOutputDims(model_desc, index)
    return dims, ret


# ---- Datasets ----


def create_dataset():
    return _c.aclmdlCreateDataset()


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


def get_dataset_num_buffers(dataset):
    return _c.aclmdlGetDatasetNumBuffers(dataset)


def get_dataset_buffer(dataset, index):
    """A borrowed handle: the dataset's owner frees it."""
    return _c.aclmdlGetDatasetBuffer(dataset, index)
