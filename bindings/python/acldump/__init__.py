"""A Pythonic layer over the ``acl`` package: exceptions, context managers and numpy.

    import acldump
    with acldump.session(), acldump.dump_session("acl.json"):
        with acldump.Model("resnet_tiny.om") as model:
            prob = model.run(image)[1]

Every failure raises ``AclError`` with the C code (``.code``) and message (``.message``). It only
adapts the C ABI: loading, running and dumping all happen in libacldump.so.
"""

import contextlib
import os
import tempfile

import acl

try:
    import numpy as _np
except ImportError:  # numpy is optional: Model.run then takes and returns raw bytes
    _np = None

# The release, as the native library reports it (aclrtGetVersion).
__version__ = "%d.%d.%d" % acl.get_version()[:3]

__all__ = ["AclError", "DumpSession", "Model", "TensorInfo", "dump_session", "session"]


class AclError(Exception):
    """A non-zero aclError: ``code`` (e.g. 100045 ACL_ERROR_DUMP_NOT_RUN) and ``message``."""

    def __init__(self, code, message):
        super().__init__("acl error %d: %s" % (code, message))
        self.code = code
        self.message = message


def _check(ret):
    # The message is read before anything else can run an acl call on this thread.
    if ret != acl.ACL_SUCCESS:
        raise AclError(ret, acl.get_recent_err_msg())


def _created(handle):
    # Create functions return NULL with a message but no code; ACL_ERROR_FAILURE stands for it.
    if handle is None:
        raise AclError(acl.ACL_ERROR_FAILURE, acl.get_recent_err_msg())
    return handle


@contextlib.contextmanager
def session(config_path=None):
    """aclInit(config_path) ... aclFinalize(). config_path may configure dump for the whole
    process (its "dump" section)."""
    _check(acl.init(config_path))
    try:
        yield
    finally:
        _check(acl.finalize())


class DumpSession:
    """aclmdlInitDump + aclmdlSetDump(config_path); closing it (or leaving ``with``) calls
    aclmdlFinalizeDump, which writes every queued dump file. A config applies to models loaded
    after it is set; ``set(path)`` switches configs for models loaded afterwards."""

    def __init__(self, config_path):
        _check(acl.mdl.init_dump())
        self._open = True
        try:
            self.set(config_path)
        except BaseException:
            self.close()
            raise

    def set(self, config_path):
        _check(acl.mdl.set_dump(os.fspath(config_path)))

    def close(self):
        if self._open:
            self._open = False
            _check(acl.mdl.finalize_dump())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def dump_session(config_path):
    return DumpSession(config_path)


# aclDataType -> numpy dtype name (bfloat16 has none: such tensors come back as raw uint16).
_NUMPY_TYPES = {
    acl.ACL_FLOAT: "float32",
    acl.ACL_FLOAT16: "float16",
    acl.ACL_DOUBLE: "float64",
    acl.ACL_INT8: "int8",
    acl.ACL_INT16: "int16",
    acl.ACL_INT32: "int32",
    acl.ACL_INT64: "int64",
    acl.ACL_UINT8: "uint8",
    acl.ACL_UINT16: "uint16",
    acl.ACL_UINT32: "uint32",
    acl.ACL_UINT64: "uint64",
    acl.ACL_BOOL: "bool",
    acl.ACL_BF16: "uint16",
}


# The name of a dynamic model's gear input (the SDK's ACL_DYNAMIC_TENSOR_NAME).
GEAR_INPUT = "ascend_mbatch_shape_data"

# Room run() gives an output whose size depends on the input; untouched pages cost no memory.
VARYING_OUTPUT_BYTES = 256 << 20


def _dims_text(dims):
    """[1,3,32,32], as the C library writes shapes."""
    return "[%s]" % ",".join(str(d) for d in dims)


class TensorInfo:
    """A model input or output: name, data_type (aclDataType), format (aclFormat), dims, size
    (bytes)."""

    __slots__ = ("name", "data_type", "format", "dims", "size")

    def __init__(self, name, data_type, format, dims, size):  # noqa: A002
        self.name = name
        self.data_type = data_type
        self.format = format
        self.dims = tuple(dims)
        self.size = size

    @property
    def numpy_dtype(self):
        name = _NUMPY_TYPES.get(self.data_type)
        return None if name is None or _np is None else _np.dtype(name)

    def __repr__(self):
        return "TensorInfo(%r, data_type=%d, dims=%r, size=%d)" % (
            self.name, self.data_type, self.dims, self.size)


def _describe(desc, count, name, data_type, fmt, dims, size):
    infos = []
    for i in range(count(desc)):
        shape, ret = dims(desc, i)
        _check(ret)
        infos.append(TensorInfo(name(desc, i), data_type(desc, i), fmt(desc, i), shape["dims"],
                                size(desc, i)))
    return infos


def _load_onnx(path, input_shape):
    # Converted in this process into a private folder, loaded, and the .om removed: the model
    # keeps its own copy. Its dump model name is the .onnx file's name.
    name = os.path.splitext(os.path.basename(path))[0]
    with tempfile.TemporaryDirectory(prefix="acldump-onnx-") as folder:
        om = os.path.join(folder, name + ".om")
        _check(acl.mdl.convert_onnx(path, om, input_shape))
        return acl.mdl.load_from_file(om)


class RecorderReport:
    """A flight recorder's report: its folder (recorder.json, each recorded execution's
    inputs as .npy files), whether the replay reproduced the triggering execution bit for
    bit, and that execution's iteration. ``summary()`` reads recorder.json."""

    def __init__(self, directory, reproduced, trigger_iteration):
        self.directory = directory
        self.reproduced = reproduced
        self.trigger_iteration = trigger_iteration

    def summary(self):
        import json
        with open(os.path.join(self.directory, "recorder.json")) as f:
            return json.load(f)

    def __repr__(self):
        return "RecorderReport(%r, reproduced=%s, trigger_iteration=%d)" % (
            self.directory, self.reproduced, self.trigger_iteration)


class Model:
    """A loaded model (aclmdlLoadFromFile, or aclmdlLoadFromMem for bytes); ``close()`` or
    leaving ``with`` unloads it. Needs an open ``session()``. A path ending in ``.onnx`` is
    converted in this process first (aclmdlConvertOnnx); ``input_shape`` ("name:d0,d1,...;...")
    then fixes inputs with symbolic dimensions."""

    def __init__(self, model, input_shape=None):
        is_bytes = isinstance(model, (bytes, bytearray, memoryview))
        is_onnx = not is_bytes and os.fspath(model).lower().endswith(".onnx")
        if input_shape is not None and not is_onnx:
            raise ValueError("input_shape applies to .onnx models only (an .om has its shapes)")
        if is_bytes:
            model_id, ret = acl.mdl.load_from_mem(model)
        elif is_onnx:
            model_id, ret = _load_onnx(os.fspath(model), input_shape)
        else:
            model_id, ret = acl.mdl.load_from_file(os.fspath(model))
        _check(ret)
        self.model_id = model_id
        self._loaded = True
        try:
            desc = _created(acl.mdl.create_desc())
            _check(acl.mdl.get_desc(desc, model_id))
            m = acl.mdl
            self.inputs = _describe(desc, m.get_num_inputs, m.get_input_name_by_index,
                                    m.get_input_data_type, m.get_input_format,
                                    m.get_input_dims, m.get_input_size_by_index)
            self.outputs = _describe(desc, m.get_num_outputs, m.get_output_name_by_index,
                                     m.get_output_data_type, m.get_output_format,
                                     m.get_output_dims, m.get_output_size_by_index)
            self._desc = desc
            # A dynamic model's gears: [(batch,), ...] or [(height, width), ...]; [] if static.
            batch, ret = m.get_dynamic_batch(desc)
            _check(ret)
            hw, ret = m.get_dynamic_hw(desc, -1)
            _check(ret)
            self.gears = [(b,) for b in batch["batch"]] or [tuple(p) for p in hw["hw"]]
            names = [info.name for info in self.inputs]
            self._gear_index = names.index(GEAR_INPUT) if self.gears else None
        except BaseException:
            self.close()
            raise

    def execute(self, inputs, outputs, *, tag=None):
        """aclmdlExecute over writable buffers (numpy arrays, bytearrays): one per input, one
        per output, in the model's order. The outputs are written in place. With ``tag``, the
        execution runs for that request (aclmdlExecuteWithTag), which arm_dump matches."""
        in_set = self._dataset(inputs)
        out_set = self._dataset(outputs)
        _check(self._execute(in_set, out_set, tag))

    def arm_dump(self, config_path, executions=0, *, tag=None):
        """aclmdlArmDump (an acldump extension): from the next execution on, ``executions``
        executions (0: every one until disarm_dump) dump as the config file says, with no
        reload and no dump session; with ``tag``, only executions run with that tag
        (``run(..., tag=...)``). Each dumped execution leaves request.json beside its files.
        Arming the same tag again replaces its arm."""
        _check(acl.mdl.arm_dump(self.model_id, os.fspath(config_path), tag, executions))

    def disarm_dump(self, tag=None):
        """aclmdlDisarmDump: removes the arm of ``tag`` ("" the untagged one; None: every arm
        of the model) and returns once all its files are written."""
        _check(acl.mdl.disarm_dump(self.model_id, tag))

    def armed_dump_count(self, tag=None):
        """aclmdlGetArmedDumpCount: (dumped, remaining) of the arm of ``tag`` (None: the
        untagged arm); remaining is None for an arm that lasts until disarmed."""
        dumped, remaining, ret = acl.mdl.get_armed_dump_count(self.model_id, tag)
        _check(ret)
        return dumped, (None if remaining == 2**64 - 1 else remaining)

    def dump_drop_count(self):
        """aclmdlGetDumpDropCount: {"records", "bytes", "iterations"} the open dump sessions
        dropped of this model ("dump_backpressure": "drop", dump_max_bytes)."""
        records, size, iterations, ret = acl.mdl.get_dump_drop_count(self.model_id)
        _check(ret)
        return {"records": records, "bytes": size, "iterations": iterations}

    def start_recorder(self, config_path, executions=8, *, operator_stats=False,
                       on_non_finite=True, on_error=True, on_signal=False):
        """aclmdlStartRecorder (an acldump extension): keeps the last ``executions`` executions
        of this model in memory (inputs, output checksums and, with ``operator_stats``, every
        operator output's statistics). A NaN/Inf in an output (``on_non_finite``; in any
        operator output too with ``operator_stats``), a failed execution (``on_error``),
        SIGUSR2 (``on_signal``) or trigger_recorder() writes them into the config's dump_path
        with a replay of the triggering execution, dumped as the config says and checked
        to reproduce the recorded outputs bit for bit."""
        flags = ((acl.ACL_RECORDER_OPERATOR_STATS if operator_stats else 0) |
                 (acl.ACL_RECORDER_TRIGGER_NON_FINITE if on_non_finite else 0) |
                 (acl.ACL_RECORDER_TRIGGER_ERROR if on_error else 0) |
                 (acl.ACL_RECORDER_TRIGGER_SIGNAL if on_signal else 0))
        _check(acl.mdl.start_recorder(self.model_id, os.fspath(config_path), executions, flags))

    def stop_recorder(self):
        """aclmdlStopRecorder: stops the recorder once the reports under way are written."""
        _check(acl.mdl.stop_recorder(self.model_id))

    def trigger_recorder(self, reason=None):
        """aclmdlTriggerRecorder: writes a report now (replaying the newest recorded
        execution) and returns it as a RecorderReport."""
        _reproduced, ret = acl.mdl.trigger_recorder(self.model_id, reason)
        _check(ret)
        return self.last_recorder_report()

    def wait_recorder(self, timeout=None):
        """aclmdlWaitRecorder: waits until the reports the triggers started are written
        (``timeout`` in seconds, None: no limit); raises AclError for a report that failed."""
        _check(acl.mdl.wait_recorder(self.model_id,
                                     -1 if timeout is None else int(timeout * 1000)))

    def recorder_counts(self):
        """aclmdlGetRecorderCount: {"recorded", "triggers", "reports", "reproduced",
        "skipped"}."""
        *counts, ret = acl.mdl.get_recorder_count(self.model_id)
        _check(ret)
        return dict(zip(("recorded", "triggers", "reports", "reproduced", "skipped"), counts))

    def last_recorder_report(self):
        """The latest report (aclmdlGetRecorderLastReport, aclmdlGetRecorderReportDir)."""
        reproduced, trigger_iteration, ret = acl.mdl.get_recorder_last_report(self.model_id)
        _check(ret)
        directory = acl.mdl.get_recorder_report_dir(self.model_id)
        if directory is None:
            _check(acl.ACL_ERROR_INVALID_PARAM)
        return RecorderReport(directory, bool(reproduced), trigger_iteration)

    def _execute(self, in_set, out_set, tag):
        if tag is None:
            return acl.mdl.execute(self.model_id, in_set, out_set)
        return acl.mdl.execute_with_tag(self.model_id, tag, in_set, out_set)

    def run(self, *inputs, tag=None):
        """Runs once and returns the outputs: numpy arrays shaped as the model says (with numpy),
        else bytearrays. Inputs are numpy arrays of the model's dtypes (or buffers of the right
        size). A dynamic model takes its inputs without the gear input: the gear comes from
        their shapes (the batch, or the height and width, of the dynamic input) and the outputs
        have that gear's shapes. With ``tag``, the execution runs for that request (see
        arm_dump)."""
        gear = None
        if self._gear_index is not None and len(inputs) == len(self.inputs) - 1:
            gear = self._gear_of(inputs)
            inputs = inputs + (_np.zeros(len(gear), _np.int64),)
        if len(inputs) != len(self.inputs):
            raise ValueError("the model has %d inputs, got %d" % (len(self.inputs), len(inputs)))
        buffers = [self._input_buffer(info, value) for info, value in zip(self.inputs, inputs)]
        in_set = self._dataset(buffers)
        infos = self.outputs
        if gear is not None:
            setter = (acl.mdl.set_dynamic_batch_size if len(gear) == 1
                      else acl.mdl.set_dynamic_hw_size)
            _check(setter(self.model_id, in_set, self._gear_index, *gear))
            infos = []
            for i, info in enumerate(self.outputs):
                dims, ret = acl.mdl.get_cur_output_dims(self._desc, i)
                _check(ret)
                infos.append(TensorInfo(info.name, info.data_type, info.format, dims["dims"],
                                        info.size))
        # An output whose size depends on the input (-1 dims) gets room for the largest
        # result, then the shape this execution computed.
        varying = [i for i, info in enumerate(infos) if any(d < 0 for d in info.dims)]
        outputs = [self._varying_buffer(info) if i in varying else self._output_buffer(info)
                   for i, info in enumerate(infos)]
        _check(self._execute(in_set, self._dataset(outputs), tag))
        for i in varying:
            dims, ret = acl.mdl.get_cur_output_dims(self._desc, i)
            _check(ret)
            shape = tuple(dims["dims"])
            count = 1
            for d in shape:
                count *= d
            if isinstance(outputs[i], bytearray):
                outputs[i] = outputs[i][:count * acl.data_type_size(infos[i].data_type)]
            else:
                outputs[i] = outputs[i][:count].reshape(shape).copy()
        return outputs

    def run_named(self, inputs, *, tag=None):
        """Runs once with the inputs by name ({name: numpy array}) and returns {output name:
        array}. Each input's dtype and shape are checked first, as the Go and Java bindings
        check them: AclError ACL_ERROR_MODEL_INPUT_NOT_MATCH for one missing or of another
        dtype or shape, ACL_ERROR_INVALID_PARAM for an unknown name or None, the message
        naming the input as the C library does ("input 0 ('input', float32[1,3,32,32]) was
        given int32[1,3,32,32]")."""
        if inputs is None:
            raise AclError(acl.ACL_ERROR_INVALID_PARAM,
                           "inputs is None; give a dict of input name -> array")
        infos = [info for i, info in enumerate(self.inputs) if i != self._gear_index]
        names = ", ".join("'%s'" % info.name for info in infos)
        for name in sorted(inputs):
            if all(info.name != name for info in infos):
                raise AclError(acl.ACL_ERROR_INVALID_PARAM,
                               "the model has no input named '%s' (it has %s)" % (name, names))
        ordered = []
        for i, info in enumerate(infos):
            expected = info.numpy_dtype
            described = "input %d ('%s', %s%s)" % (
                i, info.name, expected.name if expected is not None else info.data_type,
                _dims_text(info.dims))
            if info.name not in inputs:
                raise AclError(acl.ACL_ERROR_MODEL_INPUT_NOT_MATCH, described + " is missing")
            value = inputs[info.name]
            if value is None:
                raise AclError(acl.ACL_ERROR_INVALID_PARAM,
                               described + " was given no tensor (None)")
            value = _np.asarray(value)
            fits = (value.dtype == expected and value.ndim == len(info.dims) and
                    all(d < 0 or d == s for d, s in zip(info.dims, value.shape)))
            if not fits:
                raise AclError(acl.ACL_ERROR_MODEL_INPUT_NOT_MATCH, "%s was given %s%s" % (
                    described, value.dtype.name, _dims_text(value.shape)))
            ordered.append(value)
        outputs = self.run(*ordered, tag=tag)
        return {info.name: value for info, value in zip(self.outputs, outputs)}

    def _gear_of(self, inputs):
        """The gear the shapes of `inputs` (the graph's inputs) ask for."""
        for info, value in zip(self.inputs, inputs):
            dynamic = [i for i, d in enumerate(info.dims) if d == -1]
            if not dynamic:
                continue
            shape = getattr(value, "shape", None)
            if shape is None or len(shape) != len(info.dims):
                raise ValueError("input %r of a dynamic model must be an array of shape %r "
                                 "(-1: the gear), or pass the gear input %r too"
                                 % (info.name, info.dims, GEAR_INPUT))
            gear = tuple(int(shape[i]) for i in dynamic[:2])
            if gear not in self.gears:
                raise ValueError("input %r has the shape %r: %s %r is not one of the model's "
                                 "gears %r" % (info.name, tuple(shape),
                                              "batch" if len(gear) == 1 else "image size",
                                              gear, self.gears))
            return gear
        raise ValueError("no input of the model has a dynamic dimension")

    def close(self):
        if self._loaded:
            self._loaded = False
            _check(acl.mdl.unload(self.model_id))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @staticmethod
    def _dataset(buffers):
        dataset = _created(acl.mdl.create_dataset())
        for memory in buffers:
            _, ret = acl.mdl.add_dataset_buffer(dataset, _created(acl.create_data_buffer(memory)))
            _check(ret)
        return dataset

    @staticmethod
    def _input_buffer(info, value):
        if _np is None or not isinstance(value, _np.ndarray):
            return value if isinstance(value, bytearray) else bytearray(value)
        expected = info.numpy_dtype
        if expected is not None and value.dtype != expected:
            raise TypeError("input %r is %s, the model takes %s" % (info.name, value.dtype,
                                                                    expected))
        if not value.flags["C_CONTIGUOUS"] or not value.flags["WRITEABLE"]:
            value = _np.array(value, order="C")  # the C ABI takes writable memory
        return value

    @staticmethod
    def _varying_buffer(info):
        dtype = info.numpy_dtype
        if dtype is None:
            return bytearray(VARYING_OUTPUT_BYTES)
        return _np.empty(VARYING_OUTPUT_BYTES // _np.dtype(dtype).itemsize, dtype=dtype)

    @staticmethod
    def _output_buffer(info):
        dtype = info.numpy_dtype
        if dtype is None:
            return bytearray(info.size)
        return _np.empty(info.dims, dtype=dtype)
from acldump.reading import compare, open_tree, read_dump  # the reading API (reading.py)
from acldump.analysis import compare_device, read_device_dump  # device (NPU) dumps
