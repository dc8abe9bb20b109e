"""acl.mdl: model dump, load / execute / unload, model descriptions and datasets.

Models can be given as paths, bytes-like objects, or (pyACL style) an address and a size.
"""

import ctypes as _ctypes
import os as _os

from . import aclswig as _c


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

# ---- Dump ----


def init_dump():
    return _c.aclmdlInitDump()


def set_dump(dump_cfg_path):
    """aclmdlSetDump: 0 on success. Applies to models loaded afterwards."""
    return _c.aclmdlSetDump(None if dump_cfg_path is None else _os.fspath(dump_cfg_path))


def finalize_dump():
    """aclmdlFinalizeDump: every queued dump file is written when it returns."""
    return _c.aclmdlFinalizeDump()


# ---- Load / execute ----


def load_from_file(model_path):
    """Returns (model_id, ret)."""
    ret, model_id = _c.aclmdlLoadFromFile(None if model_path is None else _os.fspath(model_path))
    return model_id, ret


def convert_onnx(onnx_path, om_path, input_shape=None):
    """aclmdlConvertOnnx (an acldump extension): ONNX to .om in this process. input_shape is
    None or "name:d0,d1,...;name2:..." for inputs with symbolic dimensions. Returns ret."""
    return _c.aclmdlConvertOnnx(_os.fspath(onnx_path), _os.fspath(om_path), input_shape)


def load_from_mem(model, size=None):
    """Loads a model from a bytes-like object, or an address and size (copied). Returns
    (model_id, ret)."""
    ret, model_id = _c.aclmdlLoadFromMem(_model_bytes(model, size))
    return model_id, ret


def load_from_file_with_mem(model_path, work_ptr, work_size, weight_ptr, weight_size):
    """The model runs in caller memory from acl.rt.malloc (sizes from query_size; 0 for a
    part the model allocates itself). Returns (model_id, ret)."""
    ret, model_id = _c.aclmdlLoadFromFileWithMem(
        None if model_path is None else _os.fspath(model_path), _address(work_ptr), work_size,
        _address(weight_ptr), weight_size)
    return model_id, ret


def load_from_mem_with_mem(model, model_size, work_ptr, work_size, weight_ptr, weight_size):
    """As load_from_file_with_mem for a model in memory. Returns (model_id, ret)."""
    ret, model_id = _c.aclmdlLoadFromMemWithMem(
        _model_bytes(model, model_size), _address(work_ptr), work_size, _address(weight_ptr),
        weight_size)
    return model_id, ret


def query_size(model_path):
    """Returns (work_size, weight_size, ret): the memory load_from_file_with_mem needs."""
    ret, work, weight = _c.aclmdlQuerySize(
        None if model_path is None else _os.fspath(model_path))
    return work, weight, ret


def query_size_from_mem(model, model_size=None):
    """Returns (work_size, weight_size, ret) for a model in memory."""
    ret, work, weight = _c.aclmdlQuerySizeFromMem(_model_bytes(model, model_size))
    return work, weight, ret


def unload(model_id):
    return _c.aclmdlUnload(model_id)


def execute(model_id, input, output):  # noqa: A002  (pyACL's parameter names)
    return _c.aclmdlExecute(model_id, input, output)


def execute_async(model_id, input, output, stream):  # noqa: A002
    """Queues one execution on the stream (None: the default stream); synchronize_stream
    waits for it. The datasets' memory must stay alive until then."""
    return _c.aclmdlExecuteAsync(model_id, input, output, _address(stream))


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


def get_input_dims_v2(model_desc, index):
    ret, dims = _c.aclmdlGetInputDimsV2(model_desc, index)
    return dims, ret


def get_cur_output_dims(model_desc, index):
    """Returns ({"name", "dimCount", "dims"}, ret) of the output at the gear last set on the
    model (set_dynamic_batch_size / set_dynamic_hw_size); before any, get_output_dims's."""
    ret, dims = _c.aclmdlGetCurOutputDims(model_desc, index)
    return dims, ret


def get_input_index_by_name(model_desc, name):
    """Returns (index, ret)."""
    ret, index = _c.aclmdlGetInputIndexByName(model_desc, name)
    return index, ret


def get_output_index_by_name(model_desc, name):
    """Returns (index, ret)."""
    ret, index = _c.aclmdlGetOutputIndexByName(model_desc, name)
    return index, ret


def get_dynamic_batch(model_desc):
    """Returns ({"batchCount", "batch"}, ret); batchCount 0 for a model without batch gears."""
    ret, batch = _c.aclmdlGetDynamicBatch(model_desc)
    return batch, ret


def get_dynamic_hw(model_desc, index):
    """Returns ({"hwCount", "hw"}, ret), hw as [[height, width], ...]; hwCount 0 for a model
    without image size gears. index is reserved (-1, as pyACL takes it)."""
    ret, hw = _c.aclmdlGetDynamicHW(model_desc, index % (1 << 64))
    return hw, ret


def set_dynamic_batch_size(model_id, dataset, index, batch_size):
    """Writes the batch size into the dataset's gear input (buffer `index`, the input named
    ACL_DYNAMIC_TENSOR_NAME); returns ret."""
    return _c.aclmdlSetDynamicBatchSize(model_id, dataset, index, batch_size)


def set_dynamic_hw_size(model_id, dataset, index, height, width):
    """Writes height and width into the dataset's gear input; returns ret."""
    return _c.aclmdlSetDynamicHWSize(model_id, dataset, index, height, width)


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
