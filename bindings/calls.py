"""The one description of the C calls the language bindings wrap.

Every function of bindings/c/exported_symbols.txt is either a row of CALLS or an entry of
SPECIAL, or is declared in a header of UNBOUND_HEADERS (at the end). From each row,
bindings/gen_bindings.py writes at build time:

  - the SWIG directives of its parameters (out-parameter typemaps, arrays, addresses, Java's
    exception check of calls without an aclError, %newobject) for Python, Java and Go;
  - its pyACL function in the `acl` package (a row's `py` names, e.g. "rt.get_device" is
    acl.rt.get_device): ``ret`` alone, or the out-parameters then ``ret``;
  - its Go wrapper in package acldump, named as the C call, which copies the recent error
    message in the same cgo call; `go` also exports it under that name;
  - with `java`, a static method of com.acldump.Acl.

Parameters are the C declaration's, in its order, one item each (the generator checks them
against the header):

    [out ]name[+array][:class][ as py_name][ = py_default]

"out": written by the call and returned; "count+array" is a C count and its array, one
sequence in the languages. The class is derived from the C type unless given:

    int, float, enum, string  as the C type says
    handle    an opaque handle object (aclmdlDesc *, aclDataBuffer *, ...)
    address   a runtime handle or address (aclrtStream, void *): an int, 0 or None for NULL
    buffer    (void *) also a writable Python buffer; rbuffer (const void *) any buffer
    path      a string that Python also takes as os.PathLike; None stays NULL
    fspath    the same, None refused
    bool      an integer flag: Python and Go take a bool
    unsigned  an unsigned integer that Python wraps modulo 2**64 (pyACL passes -1)
    struct    an out struct (aclmdlIODims, aclmdlBatch, aclmdlHW): a dict in Python

`errors` says how a call without an aclError result reports failure: "message" (it leaves a
recent error message: Java throws AclException, Go returns an error), "null" (its NULL result
is the failure: Go returns an error, Java null, Python None), or "none" (it cannot fail: Java
and Go just return the value).
`new`: the call creates a handle the language then owns. `doc` is the Python docstring; `go`
and `java` are a name or (name, doc).
"""


class Call:
    def __init__(self, c, params="", *, py, doc=None, errors=None, new=False, go=None,
                 java=None):
        self.c = c
        self.params = params
        self.py = [py] if isinstance(py, str) else list(py)
        self.doc = doc
        self.errors = errors
        self.new = new
        self.go = go
        self.java = java


class Special:
    """A call whose bindings are written by hand, and why. `shares` names parameters that use
    the typemaps the rows generate (the generator refuses any other overlap)."""

    def __init__(self, c, reason, *, py=(), shares=""):
        self.c = c
        self.reason = reason
        self.py = [py] if isinstance(py, str) else list(py)
        self.shares = shares.split()


CALLS = [
    # ---- acl.h, acl_base.h: the library, data buffers, tensor descriptions ----
    Call("aclInit", "configPath:path = None", py="init",
         doc='aclInit: config_path is None / "" (no config) or an acl.json with a "dump" section.',
         go=("Init", 'Init is aclInit: configPath is "" (no config) or an acl.json whose "dump" '
                     'section configures dump for the whole process.')),
    Call("aclFinalize", py="finalize",
         go=("Finalize", "Finalize is aclFinalize: unloads every model and ends dump sessions.")),
    Call("aclrtGetVersion", "out majorVersion, out minorVersion, out patchVersion",
         py=["get_version", "rt.get_version"], doc="Returns (major, minor, patch, ret)."),
    Call("aclGetDataBufferSizeV2", "dataBuffer as buffer", py="get_data_buffer_size_v2",
         errors="message"),
    Call("aclGetDataBufferSize", "dataBuffer as buffer", py="get_data_buffer_size",
         errors="message",
         doc="The size truncated to 32 bits (pyACL's first version; use get_data_buffer_size_v2)."),
    Call("aclDataTypeSize", "dataType", py="data_type_size", errors="none"),
    Call("aclFloat16ToFloat", "value", py="float16_to_float", errors="none"),
    Call("aclFloatToFloat16", "value", py="float_to_float16", errors="none"),
    Call("aclCreateTensorDesc", "dataType, numDims+dims, format", py="create_tensor_desc",
         errors="message", new=True,
         doc="None (and a recent error) for bad dims or a number that is not an aclDataType."),
    Call("aclSetTensorDescName", "desc, name", py="set_tensor_desc_name", errors="message"),
    Call("aclGetTensorDescType", "desc", py="get_tensor_desc_type", errors="message"),
    Call("aclGetTensorDescFormat", "desc", py="get_tensor_desc_format", errors="message"),
    Call("aclGetTensorDescNumDims", "desc", py="get_tensor_desc_num_dims", errors="message"),
    Call("aclGetTensorDescDimV2", "desc, index, out dimSize", py="get_tensor_desc_dim_v2",
         doc="Returns (dim, ret)."),
    Call("aclGetTensorDescSize", "desc", py="get_tensor_desc_size", errors="message"),
    Call("aclSetTensorConst", "desc, dataBuffer, length", py="set_tensor_const",
         doc="aclSetTensorConst: the desc keeps a copy of length bytes at data_buffer (an address "
             "or a writable buffer), which a single operator's input with this desc and no "
             "buffer reads."),
    Call("aclGetTensorDescElementCount", "desc", py="get_tensor_desc_element_count",
         errors="message"),

    # ---- acl_mdl.h: model dump ----
    Call("aclmdlInitDump", py="mdl.init_dump"),
    Call("aclmdlSetDump", "dumpCfgPath:path", py="mdl.set_dump",
         doc="aclmdlSetDump: 0 on success. Applies to models loaded afterwards."),
    Call("aclmdlFinalizeDump", py="mdl.finalize_dump",
         doc="aclmdlFinalizeDump: every queued dump file is written when it returns."),
    Call("aclmdlFinalizeDumpInBackground", py="mdl.finalize_dump_in_background",
         doc="aclmdlFinalizeDumpInBackground (an acldump extension): ends the dump at once and "
             "writes the queued files on a background thread; wait_dump_finalized reports."),
    Call("aclmdlWaitDumpFinalized", "timeoutMs", py="mdl.wait_dump_finalized",
         doc="aclmdlWaitDumpFinalized (an acldump extension): waits up to timeout_ms (-1: no "
             "limit) for the background finalizes; returns ret."),

    # ---- acl_mdl.h: load, execute ----
    Call("aclmdlLoadFromFile", "modelPath:path, out modelId", py="mdl.load_from_file",
         doc="Returns (model_id, ret)."),
    Call("aclmdlConvertOnnx", "onnxPath:fspath, omPath:fspath, inputShape = None",
         py="mdl.convert_onnx",
         doc="aclmdlConvertOnnx (an acldump extension): ONNX to .om in this process. "
             'input_shape is None or "name:d0,d1,...;name2:..." for inputs with symbolic '
             "dimensions. Returns ret."),
    Call("aclmdlLoadFromFileWithMem",
         "modelPath:path, out modelId, workPtr, workSize, weightPtr, weightSize",
         py="mdl.load_from_file_with_mem",
         doc="The model runs in caller memory from acl.rt.malloc (sizes from query_size; 0 for a "
             "part the model allocates itself). Returns (model_id, ret)."),
    Call("aclmdlQuerySize", "fileName:path as model_path, out workSize, out weightSize",
         py="mdl.query_size",
         doc="Returns (work_size, weight_size, ret): the memory load_from_file_with_mem needs."),
    Call("aclmdlUnload", "modelId", py="mdl.unload"),
    Call("aclmdlExecute", "modelId, input, output", py="mdl.execute"),
    Call("aclmdlExecuteWithTag", "modelId, requestTag, input, output",
         py="mdl.execute_with_tag",
         doc="aclmdlExecuteWithTag (an acldump extension): execute for the request request_tag, "
             "which the model's arms (arm_dump) match. Returns ret."),
    Call("aclmdlArmDump", "modelId, dumpCfgPath:fspath, requestTag = None, executions:unsigned = 0",
         py="mdl.arm_dump",
         doc="aclmdlArmDump (an acldump extension): from the next execution on, `executions` "
             "executions (0: until disarm_dump) of the loaded model dump as the config says, "
             "with no reload; with request_tag, only executions run by execute_with_tag with "
             "that tag. Returns ret."),
    Call("aclmdlDisarmDump", "modelId, requestTag = None", py="mdl.disarm_dump",
         doc="aclmdlDisarmDump (an acldump extension): removes the arm of request_tag (None: "
             "every arm of the model) and writes all its files before it returns. Returns ret."),
    Call("aclmdlGetArmedDumpCount", "modelId, requestTag, out dumped, out remaining",
         py="mdl.get_armed_dump_count",
         doc="aclmdlGetArmedDumpCount (an acldump extension): returns (dumped, remaining, ret) "
             "of the arm of request_tag (None: the untagged arm); remaining is 2**64-1 for an "
             "arm that lasts until disarmed."),
    Call("aclmdlGetDumpDropCount", "modelId, out records, out bytes, out iterations",
         py="mdl.get_dump_drop_count",
         doc="aclmdlGetDumpDropCount (an acldump extension): returns (records, bytes, "
             "iterations, ret) the open dump sessions dropped of the model (the drop policy, "
             "dump_max_bytes)."),
    Call("aclmdlStartRecorder",
         "modelId, dumpCfgPath:fspath, executions, flags = _c.ACL_RECORDER_DEFAULT",
         py="mdl.start_recorder",
         doc="aclmdlStartRecorder (an acldump extension): keeps the model's last `executions` "
             "executions in memory; a trigger (the ACL_RECORDER_* flags) writes them and a "
             "replay of the triggering execution, dumped as the config says. Returns ret."),
    Call("aclmdlStopRecorder", "modelId", py="mdl.stop_recorder",
         doc="aclmdlStopRecorder (an acldump extension): stops the recorder after the reports "
             "under way. Returns ret."),
    Call("aclmdlTriggerRecorder", "modelId, reason = None, out reproduced",
         py="mdl.trigger_recorder",
         doc="aclmdlTriggerRecorder (an acldump extension): writes a report now, replaying the "
             "newest recorded execution. Returns (reproduced, ret)."),
    Call("aclmdlWaitRecorder", "modelId, timeoutMs = -1", py="mdl.wait_recorder",
         doc="aclmdlWaitRecorder (an acldump extension): waits for the reports the triggers "
             "started (timeout_ms -1: no limit). Returns ret."),
    Call("aclmdlGetRecorderCount",
         "modelId, out recorded, out triggers, out reports, out reproduced, out skipped",
         py="mdl.get_recorder_count",
         doc="aclmdlGetRecorderCount (an acldump extension): returns (recorded, triggers, "
             "reports, reproduced, skipped, ret)."),
    Call("aclmdlGetRecorderLastReport", "modelId, out reproduced, out triggerIteration",
         py="mdl.get_recorder_last_report",
         doc="aclmdlGetRecorderLastReport (an acldump extension): returns (reproduced, "
             "trigger_iteration, ret) of the latest report."),
    Call("aclmdlGetRecorderReportDir", "modelId", py="mdl.get_recorder_report_dir",
         errors="message",
         doc="aclmdlGetRecorderReportDir (an acldump extension): the latest report's folder "
             "(it holds recorder.json), or None (and a recent error)."),
    Call("aclmdlExecuteAsync", "modelId, input, output, stream", py="mdl.execute_async",
         doc="Queues one execution on the stream (None: the default stream); synchronize_stream "
             "waits for it. The datasets' memory must stay alive until then."),

    # ---- acl_mdl.h: model descriptions ----
    Call("aclmdlCreateDesc", py="mdl.create_desc", errors="message", new=True),
    Call("aclmdlGetDesc", "modelDesc, modelId", py="mdl.get_desc"),
    Call("aclmdlGetNumInputs", "modelDesc", py="mdl.get_num_inputs", errors="message"),
    Call("aclmdlGetNumOutputs", "modelDesc", py="mdl.get_num_outputs", errors="message"),
    Call("aclmdlGetInputSizeByIndex", "modelDesc, index", py="mdl.get_input_size_by_index",
         errors="message"),
    Call("aclmdlGetOutputSizeByIndex", "modelDesc, index", py="mdl.get_output_size_by_index",
         errors="message"),
    Call("aclmdlGetInputNameByIndex", "modelDesc, index", py="mdl.get_input_name_by_index",
         errors="message"),
    Call("aclmdlGetOutputNameByIndex", "modelDesc, index", py="mdl.get_output_name_by_index",
         errors="message"),
    Call("aclmdlGetInputDataType", "modelDesc, index", py="mdl.get_input_data_type",
         errors="message"),
    Call("aclmdlGetOutputDataType", "modelDesc, index", py="mdl.get_output_data_type",
         errors="message"),
    Call("aclmdlGetInputFormat", "modelDesc, index", py="mdl.get_input_format",
         errors="message"),
    Call("aclmdlGetOutputFormat", "modelDesc, index", py="mdl.get_output_format",
         errors="message"),
    Call("aclmdlGetInputDims", "modelDesc, index, out dims", py="mdl.get_input_dims",
         doc='Returns ({"name", "dimCount", "dims"}, ret); None instead of the dict on failure.'),
    Call("aclmdlGetOutputDims", "modelDesc, index, out dims", py="mdl.get_output_dims"),
    Call("aclmdlGetInputDimsV2", "modelDesc, index, out dims", py="mdl.get_input_dims_v2"),
    Call("aclmdlGetCurOutputDims", "modelDesc, index, out dims", py="mdl.get_cur_output_dims",
         doc='Returns ({"name", "dimCount", "dims"}, ret) of the output at the gear last set '
             "on the model (set_dynamic_batch_size / set_dynamic_hw_size); before any, "
             "get_output_dims's."),
    Call("aclmdlGetInputIndexByName", "modelDesc, name, out index",
         py="mdl.get_input_index_by_name", doc="Returns (index, ret)."),
    Call("aclmdlGetOutputIndexByName", "modelDesc, name, out index",
         py="mdl.get_output_index_by_name", doc="Returns (index, ret)."),
    Call("aclmdlGetDynamicBatch", "modelDesc, out batch", py="mdl.get_dynamic_batch",
         doc='Returns ({"batchCount", "batch"}, ret); batchCount 0 for a model without batch '
             "gears."),
    Call("aclmdlGetDynamicHW", "modelDesc, index:unsigned, out hw", py="mdl.get_dynamic_hw",
         doc='Returns ({"hwCount", "hw"}, ret), hw as [[height, width], ...]; hwCount 0 for a '
             "model without image size gears. index is reserved (-1, as pyACL takes it)."),
    Call("aclmdlSetDynamicBatchSize", "modelId, dataset, index, batchSize",
         py="mdl.set_dynamic_batch_size",
         doc="Writes the batch size into the dataset's gear input (buffer `index`, the input named "
             "ACL_DYNAMIC_TENSOR_NAME); returns ret."),
    Call("aclmdlSetDynamicHWSize", "modelId, dataset, index, height, width",
         py="mdl.set_dynamic_hw_size",
         doc="Writes height and width into the dataset's gear input; returns ret."),
    Call("aclmdlGetInputDynamicGearCount", "modelDesc, index:unsigned, out gearCount",
         py="mdl.get_input_dynamic_gear_count",
         doc="Returns (gear_count, ret): the dims gears of a model converted with --dynamic-dims "
             "(0 for any other model). index is reserved (-1)."),

    # ---- acl_mdl.h: AIPP ----
    Call("aclmdlCreateAIPP", "batchSize", py="mdl.create_aipp", errors="null", new=True,
         doc="Dynamic AIPP parameters for batch_size images (1..127); None on failure."),
    Call("aclmdlGetAippDataSize", "batchSize, out size", py="mdl.get_aipp_data_size",
         doc="Returns (size, ret): bytes of the dynamic AIPP input for batch_size images."),
    Call("aclmdlSetAIPPInputFormat", "aippParmsSet, inputFormat",
         py="mdl.set_aipp_input_format"),
    Call("aclmdlSetAIPPCscParams",
         "aippParmsSet, cscSwitch, cscMatrixR0C0, cscMatrixR0C1, cscMatrixR0C2, "
         "cscMatrixR1C0, cscMatrixR1C1, cscMatrixR1C2, cscMatrixR2C0, cscMatrixR2C1, "
         "cscMatrixR2C2, cscOutputBiasR0, cscOutputBiasR1, cscOutputBiasR2, cscInputBiasR0, "
         "cscInputBiasR1, cscInputBiasR2", py="mdl.set_aipp_csc_params"),
    Call("aclmdlSetAIPPRbuvSwapSwitch", "aippParmsSet, rbuvSwapSwitch",
         py="mdl.set_aipp_rbuv_swap_switch"),
    Call("aclmdlSetAIPPAxSwapSwitch", "aippParmsSet, axSwapSwitch",
         py="mdl.set_aipp_ax_swap_switch"),
    Call("aclmdlSetAIPPSrcImageSize", "aippParmsSet, srcImageSizeW, srcImageSizeH",
         py="mdl.set_aipp_src_image_size"),
    Call("aclmdlSetAIPPScfParams",
         "aippParmsSet, scfSwitch, scfInputSizeW, scfInputSizeH, scfOutputSizeW, "
         "scfOutputSizeH, batchIndex", py="mdl.set_aipp_scf_params",
         doc="Resizing is not supported: the switch must be 0."),
    Call("aclmdlSetAIPPCropParams",
         "aippParmsSet, cropSwitch, cropStartPosW, cropStartPosH, cropSizeW, cropSizeH, "
         "batchIndex", py="mdl.set_aipp_crop_params"),
    Call("aclmdlSetAIPPPaddingParams",
         "aippParmsSet, paddingSwitch, paddingSizeTop, paddingSizeBottom, paddingSizeLeft, "
         "paddingSizeRight, batchIndex", py="mdl.set_aipp_padding_params"),
    Call("aclmdlSetAIPPDtcPixelMean",
         "aippParmsSet, dtcPixelMeanChn0, dtcPixelMeanChn1, dtcPixelMeanChn2, "
         "dtcPixelMeanChn3, batchIndex", py="mdl.set_aipp_dtc_pixel_mean"),
    Call("aclmdlSetAIPPDtcPixelMin",
         "aippParmsSet, dtcPixelMinChn0, dtcPixelMinChn1, dtcPixelMinChn2, dtcPixelMinChn3, "
         "batchIndex", py="mdl.set_aipp_dtc_pixel_min"),
    Call("aclmdlSetAIPPPixelVarReci",
         "aippParmsSet, dtcPixelVarReciChn0, dtcPixelVarReciChn1, dtcPixelVarReciChn2, "
         "dtcPixelVarReciChn3, batchIndex", py="mdl.set_aipp_pixel_var_reci"),
    Call("aclmdlSetInputAIPP", "modelId, dataset, index, aippParmsSet",
         py="mdl.set_input_aipp",
         doc="Writes the parameters into dataset buffer `index` (the input named "
             "ACL_DYNAMIC_AIPP_NAME); returns ret."),
    Call("aclmdlSetAIPPByInputIndex", "modelId, dataset, index, aippParmsSet",
         py="mdl.set_aipp_by_input_index",
         doc="As set_input_aipp, given the index of the image input; returns ret."),
    Call("aclmdlGetAippType", "modelId, index, out type, out dynamicAttachedDataIndex",
         py="mdl.get_aipp_type",
         doc="Returns (type, attached_index, ret): ACL_DATA_WITHOUT_AIPP (0), "
             "ACL_DATA_WITH_STATIC_AIPP, ACL_DATA_WITH_DYNAMIC_AIPP (attached_index is the "
             "parameter input) or ACL_DYNAMIC_AIPP_NODE."),

    # ---- acl_mdl.h: datasets ----
    Call("aclmdlCreateDataset", py="mdl.create_dataset", errors="message", new=True),
    Call("aclmdlGetDatasetNumBuffers", "dataset", py="mdl.get_dataset_num_buffers",
         errors="message"),
    Call("aclmdlGetDatasetBuffer", "dataset, index", py="mdl.get_dataset_buffer",
         errors="message", doc="A borrowed handle: the dataset's owner frees it."),

    # ---- acl_op.h: single operators ----
    Call("aclopCreateAttr", py="op.create_attr", errors="message", new=True),
    Call("aclopSetAttrBool", "attr, attrName as name, attrValue:bool as value",
         py="op.set_attr_bool"),
    Call("aclopSetAttrInt", "attr, attrName as name, attrValue as value", py="op.set_attr_int"),
    Call("aclopSetAttrFloat", "attr, attrName as name, attrValue as value",
         py="op.set_attr_float"),
    Call("aclopSetAttrString", "attr, attrName as name, attrValue as value",
         py="op.set_attr_string"),
    Call("aclopSetAttrListInt", "attr, attrName as name, numValues+values",
         py="op.set_attr_list_int"),
    Call("aclopSetAttrListFloat", "attr, attrName as name, numValues+values",
         py="op.set_attr_list_float"),
    Call("aclopCast", "srcDesc, srcBuffer, dstDesc, dstBuffer, truncate, stream", py="op.cast",
         doc="aclopCast: src_buffer converted to dst_desc's data type into dst_buffer (a float "
             "to integer conversion rounds toward zero whatever truncate says)."),
    Call("aclopSetModelDir", "modelDir:fspath as model_dir", py="op.set_model_dir",
         doc="aclopSetModelDir: acldump compiles no single-operator models and loads none; "
             "it checks the folder is readable. Once per process."),

    # ---- acl_dump.h ----
    Call("acldumpGetPath", "dumpType", py="dump.get_path", errors="null",
         doc="acldumpGetPath: the dump path in effect for dump_type (DATA_DUMP, "
             "AIC_ERR_NORM_DUMP...), or None when that kind of dump is not on.",
         go=("DumpPath", "DumpPath is acldumpGetPath: the dump path in effect for dumpType "
                         "(DataDump, AicErrNormDump...)."),
         java=("dumpPath", "acldumpGetPath: the dump path in effect for {@code dumpType} "
                           "(AcldumpType.DATA_DUMP, AcldumpType.AIC_ERR_NORM_DUMP...), or null "
                           "when that kind of dump is not on.")),
    Call("aclopStartDumpArgs", "dumpType, path:path", py="dump.start_dump_args",
         doc="aclopStartDumpArgs: while on, each single-operator execution appends a JSON line "
             "of its arguments to {path}/op_args.{pid}.jsonl. dump_type must include "
             "acl.ACL_OP_DUMP_OP_AICORE_ARGS."),
    Call("aclopStopDumpArgs", "dumpType", py="dump.stop_dump_args",
         doc="aclopStopDumpArgs: 0, or ACL_ERROR_FAILURE when lines could not be written."),

    # ---- acl_rt.h: devices ----
    Call("aclrtSetDevice", "deviceId", py="rt.set_device",
         go=("SetDevice", "SetDevice is aclrtSetDevice: opens the device and makes its default "
                          "context the calling thread's current one. Each call needs a "
                          "ResetDevice."),
         java=("setDevice", "aclrtSetDevice: opens {@code deviceId} and makes its default context "
                            "this thread's current one; the device names the dump folder of "
                            "models the thread loads. Each call needs a {@link #resetDevice}.")),
    Call("aclrtResetDevice", "deviceId", py="rt.reset_device",
         go=("ResetDevice", "ResetDevice is aclrtResetDevice: releases one SetDevice."),
         java=("resetDevice", "aclrtResetDevice: releases one {@link #setDevice}.")),
    Call("aclrtGetDevice", "out deviceId", py="rt.get_device", doc="Returns (device_id, ret).",
         go=("Device", "Device is aclrtGetDevice: the device of the thread's current context."),
         java=("getDevice", "aclrtGetDevice: the device of this thread's current context (error "
                            "107002 without one).")),
    Call("aclrtGetDeviceCount", "out count", py="rt.get_device_count",
         doc="Returns (count, ret)."),
    Call("aclrtGetRunMode", "out runMode", py="rt.get_run_mode",
         doc="Returns (run_mode, ret): ACL_HOST (1) on this runtime.",
         java=("runMode", "aclrtGetRunMode: ACL_HOST (1) on this runtime.")),
    Call("aclrtGetSocName", py=["get_soc_name", "rt.get_soc_name"], errors="none",
         doc='The name of the SoC the runtime runs on: "acldump_cpu" (the host CPU).',
         go=("SocName", "SocName is aclrtGetSocName: the name of the SoC the runtime runs on, "
                        '"acldump_cpu" (the host CPU). It needs no Init.'),
         java=("socName", "aclrtGetSocName: the name of the SoC the runtime runs on, {@code "
                          '"acldump_cpu"} (the host CPU). It needs no {@link #init}.')),
    Call("aclrtSynchronizeDevice", py="rt.synchronize_device"),

    # ---- acl_rt.h: contexts ----
    Call("aclrtCreateContext", "out context, deviceId", py="rt.create_context",
         doc="Returns (context, ret); the new context is current for the calling thread."),
    Call("aclrtDestroyContext", "context", py="rt.destroy_context"),
    Call("aclrtSetCurrentContext", "context", py="rt.set_context"),
    Call("aclrtGetCurrentContext", "out context", py="rt.get_context",
         doc="Returns (context, ret)."),

    # ---- acl_rt.h: streams ----
    Call("aclrtCreateStream", "out stream", py="rt.create_stream", doc="Returns (stream, ret)."),
    Call("aclrtCreateStreamWithConfig", "out stream, priority, flag",
         py="rt.create_stream_with_config"),
    Call("aclrtDestroyStream", "stream", py="rt.destroy_stream"),
    Call("aclrtSynchronizeStream", "stream", py="rt.synchronize_stream",
         doc="Waits for the stream's queued work; returns the first failure among it."),
    Call("aclrtSynchronizeStreamWithTimeout", "stream, timeout",
         py="rt.synchronize_stream_with_timeout"),
    Call("aclrtStreamQuery", "stream, out status", py="rt.stream_query",
         doc="Returns (status, ret): ACL_STREAM_STATUS_COMPLETE (0) or ..._NOT_READY (1)."),
    Call("aclrtStreamWaitEvent", "stream, event", py="rt.stream_wait_event"),

    # ---- acl_rt.h: events ----
    Call("aclrtCreateEvent", "out event", py="rt.create_event", doc="Returns (event, ret)."),
    Call("aclrtCreateEventWithFlag", "out event, flag", py="rt.create_event_with_flag"),
    Call("aclrtDestroyEvent", "event", py="rt.destroy_event"),
    Call("aclrtRecordEvent", "event, stream", py="rt.record_event"),
    Call("aclrtResetEvent", "event, stream", py="rt.reset_event"),
    Call("aclrtSynchronizeEvent", "event", py="rt.synchronize_event"),
    Call("aclrtQueryEventStatus", "event, out status", py="rt.query_event_status",
         doc="Returns (status, ret): ACL_EVENT_RECORDED_STATUS_COMPLETE (1) or ..._NOT_READY (0)."),
    Call("aclrtQueryEvent", "event, out status", py="rt.query_event",
         doc="Returns (status, ret): ACL_EVENT_STATUS_COMPLETE (0) or ..._NOT_READY (1); the SDK's "
             "older form of query_event_status."),
    Call("aclrtEventElapsedTime", "out ms, startEvent as start, endEvent as end",
         py="rt.event_elapsed_time", doc="Returns (milliseconds, ret)."),

    # ---- acl_rt.h: memory ----
    Call("aclrtMalloc", "out devPtr, size, policy = _c.ACL_MEM_MALLOC_HUGE_FIRST",
         py="rt.malloc", doc="Returns (address, ret); free with acl.rt.free(address)."),
    Call("aclrtFree", "devPtr as address", py="rt.free"),
    Call("aclrtMallocHost", "out hostPtr, size", py="rt.malloc_host",
         doc="Returns (address, ret); free with acl.rt.free_host(address)."),
    Call("aclrtFreeHost", "hostPtr as address", py="rt.free_host"),
    Call("aclrtMemcpy", "dst:buffer, destMax as dst_max, src:rbuffer, count, kind",
         py="rt.memcpy",
         doc="aclrtMemcpy between addresses (ints; a buffer object is taken as its memory)."),
    Call("aclrtMemcpyAsync", "dst:buffer, destMax as dst_max, src:rbuffer, count, kind, stream",
         py="rt.memcpy_async"),
    Call("aclrtMemset", "devPtr as address, maxCount, value, count", py="rt.memset"),
    Call("aclrtMemsetAsync", "devPtr as address, maxCount, value, count, stream",
         py="rt.memset_async"),
    Call("aclrtGetMemInfo", "attr, out free, out total", py="rt.get_mem_info",
         doc="Returns (free, total, ret) in bytes."),

    # ---- acl_rt.h: callbacks (the callback itself is special) ----
    Call("aclrtSubscribeReport", "threadId, stream", py="rt.subscribe_report",
         doc="thread_id: from acl.util.start_thread (or threading.get_ident() of the thread that "
             "calls process_report)."),
    Call("aclrtProcessReport", "timeout", py="rt.process_report",
         doc="Runs the callbacks waiting for this thread, waiting up to timeout ms (-1: no limit).",
         go=("ProcessReport", "ProcessReport is aclrtProcessReport: runs the callbacks waiting "
                              "for the calling thread, waiting up to timeout ms (-1: no limit) "
                              "for the first.")),
    Call("aclrtUnSubscribeReport", "threadId, stream", py="rt.unsubscribe_report"),
]

SPECIAL = [
    Special("aclAppLog", "variadic (C callers use the ACL_APP_LOG macro): Python's app_log "
            "passes the message as one %s argument, with the caller's function, file and line; "
            "Java and Go log with their own libraries", py="app_log"),
    Special("aclGetRecentErrMsg",
            "each language carries the message with the failure: Python copies it after every "
            "call into the thread's state, Java puts it in AclException, Go in its Error",
            py="get_recent_err_msg"),
    Special("aclCreateDataBuffer",
            "buffer protocol: Python pins the buffer object on the handle, Java takes a direct "
            "ByteBuffer, Go C memory", py="create_data_buffer"),
    Special("aclUpdateDataBuffer", "buffer protocol, as aclCreateDataBuffer",
            py="update_data_buffer"),
    Special("aclGetDataBufferAddr",
            "Python only: Java and Go reach the memory through their buffer objects",
            py="get_data_buffer_addr"),
    Special("aclDestroyDataBuffer", "handle destructor: the proxy's destructor (acl.i's "
            "ACL_HANDLE), %delobject in Python, ignored in Java and Go (delete() / DeleteX)",
            py="destroy_data_buffer"),
    Special("aclDestroyTensorDesc", "handle destructor, as aclDestroyDataBuffer",
            py="destroy_tensor_desc"),
    Special("aclmdlDestroyDesc", "handle destructor, as aclDestroyDataBuffer",
            py="mdl.destroy_desc"),
    Special("aclmdlDestroyDataset", "handle destructor, as aclDestroyDataBuffer",
            py="mdl.destroy_dataset"),
    Special("aclopDestroyAttr", "handle destructor, as aclDestroyDataBuffer", py="op.destroy_attr"),
    Special("aclmdlAddDatasetBuffer",
            "Python keeps the buffer's handle alive in the dataset and returns (dataset, ret)",
            py="mdl.add_dataset_buffer"),
    Special("aclmdlLoadFromMem",
            "a model as a bytes-like object or an address and size (Python), byte[] (Java), "
            "[]byte (Go)", py="mdl.load_from_mem", shares="modelId"),
    Special("aclmdlLoadFromMemWithMem", "a model in memory, as aclmdlLoadFromMem",
            py="mdl.load_from_mem_with_mem", shares="modelId workPtr weightPtr"),
    Special("aclmdlQuerySizeFromMem", "a model in memory, as aclmdlLoadFromMem",
            py="mdl.query_size_from_mem", shares="workSize weightSize"),
    Special("aclmdlGetInputDynamicDims",
            "an array of gearCount structs: Python returns pyACL's list of dicts; Java and Go "
            "do not wrap it (they count the gears and set one with aclmdlSetInputDynamicDims)",
            py="mdl.get_input_dynamic_dims"),
    Special("aclmdlSetInputDynamicDims",
            "an in struct: Python takes pyACL's dict (or a list of ints), Java and Go an "
            "AclmdlIODims filled with setDim", py="mdl.set_input_dynamic_dims"),
    Special("aclmdlDestroyAIPP", "handle destructor, as aclDestroyDataBuffer",
            py="mdl.destroy_aipp"),
    Special("aclmdlGetFirstAippInfo",
            "a large out struct: Python returns pyACL's dict of its fields; Java and Go fill an "
            "AclAippInfo (aclAippInfo) object", py="mdl.get_first_aipp_info"),
    Special("aclopExecuteV2", "arrays of (tensor desc, data buffer) pairs", py="op.execute_v2"),
    Special("aclrtLaunchCallback", "callback: a function of the language runs in the "
            "reporting thread", py="rt.launch_callback"),
    Special("acldumpRegCallback", "callback: a function of the language receives dump chunks",
            py="dump.reg_callback"),
    Special("acldumpUnregCallback", "callback: releases the registered function",
            py="dump.unreg_callback"),
    Special("acldumpSaveExceptionInfo",
            "an array of tensor structs built from the language's arrays",
            py="dump.save_exception_info"),
    Special("acldumpGetExceptionInfoPath",
            "fills a caller buffer: each language returns a string",
            py="dump.get_exception_info_path"),
]

# Headers whose calls the language bindings leave out, and why. Their calls are exported by the C
# library and documented in docs/c-api-reference.md, but are neither rows nor special.
UNBOUND_HEADERS = {
    "acl/ops/acl_dvpp.h":
        "the media-processing calls (pyACL's acl.media): acldump has no media processor, so "
        "their processing is refused; programs in the languages decode images with the "
        "language's own libraries",
}
