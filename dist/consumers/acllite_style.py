"""A program written the way the Ascend samples' acllite library is: a logger over acl.app_log,
a resource manager (init, device, context, stream, run mode), a model wrapper (load, description,
device buffers, execute, outputs to numpy) and a main that never mentions dumping. It calls
acl.init() without a config, so it dumps only when ACLDUMP_CONFIG names one.

Usage: acllite_style.py <model.om> <input.npy> <expected_output.npy>
"""

import sys

import numpy as np

import acl

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_SUCCESS = 0
DEBUG, INFO, WARNING, ERROR = 0, 1, 2, 3


# ---- acllite_logger: every line goes through acl.app_log ----
def log_error(*args):
    acl.app_log(ERROR, " ".join(str(a) for a in args))


def log_info(*args):
    acl.app_log(INFO, " ".join(str(a) for a in args))


def check_ret(message, ret):
    if ret != ACL_SUCCESS:
        log_error(message, "failed, ret", ret, acl.get_recent_err_msg())
        raise RuntimeError("%s failed, ret %d" % (message, ret))


# ---- acllite_resource ----
class AclLiteResource:
    def __init__(self, device_id=0):
        self.device_id = device_id
        self.context = None
        self.stream = None
        self.run_mode = None

    def init(self):
        check_ret("acl.init", acl.init())
        check_ret("acl.rt.set_device", acl.rt.set_device(self.device_id))
        self.context, ret = acl.rt.create_context(self.device_id)
        check_ret("acl.rt.create_context", ret)
        self.stream, ret = acl.rt.create_stream()
        check_ret("acl.rt.create_stream", ret)
        self.run_mode, ret = acl.rt.get_run_mode()
        check_ret("acl.rt.get_run_mode", ret)
        log_info("init resource success, soc", acl.get_soc_name())

    def release(self):
        if self.stream:
            acl.rt.destroy_stream(self.stream)
        if self.context:
            acl.rt.destroy_context(self.context)
        acl.rt.reset_device(self.device_id)
        acl.finalize()
        log_info("release resource success")


# ---- acllite_model ----
class AclLiteModel:
    def __init__(self, model_path):
        self.model_id, ret = acl.mdl.load_from_file(model_path)
        check_ret("acl.mdl.load_from_file", ret)
        self.desc = acl.mdl.create_desc()
        check_ret("acl.mdl.get_desc", acl.mdl.get_desc(self.desc, self.model_id))
        self.input_dataset, self.input_buffers = self._dataset(
            [acl.mdl.get_input_size_by_index(self.desc, i)
             for i in range(acl.mdl.get_num_inputs(self.desc))])
        self.output_dataset, self.output_buffers = self._dataset(
            [acl.mdl.get_output_size_by_index(self.desc, i)
             for i in range(acl.mdl.get_num_outputs(self.desc))])

    def _dataset(self, sizes):
        dataset = acl.mdl.create_dataset()
        buffers = []
        for size in sizes:
            ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
            check_ret("acl.rt.malloc", ret)
            data = acl.create_data_buffer(ptr, size)
            _, ret = acl.mdl.add_dataset_buffer(dataset, data)
            check_ret("acl.mdl.add_dataset_buffer", ret)
            buffers.append({"ptr": ptr, "size": size, "data": data})
        return dataset, buffers

    def execute(self, inputs):
        for array, buffer in zip(inputs, self.input_buffers):
            array = np.ascontiguousarray(array)
            check_ret("acl.rt.memcpy", acl.rt.memcpy(
                buffer["ptr"], buffer["size"], acl.util.numpy_to_ptr(array), array.nbytes,
                ACL_MEMCPY_HOST_TO_DEVICE))
        check_ret("acl.mdl.execute",
                  acl.mdl.execute(self.model_id, self.input_dataset, self.output_dataset))
        outputs = []
        for i, buffer in enumerate(self.output_buffers):
            dims, ret = acl.mdl.get_cur_output_dims(self.desc, i)
            check_ret("acl.mdl.get_cur_output_dims", ret)
            host = np.zeros(tuple(dims["dims"]), np.float32)
            check_ret("acl.rt.memcpy", acl.rt.memcpy(
                acl.util.numpy_to_ptr(host), host.nbytes, buffer["ptr"], buffer["size"],
                ACL_MEMCPY_DEVICE_TO_HOST))
            outputs.append(host)
        return outputs

    def destroy(self):
        for dataset, buffers in ((self.input_dataset, self.input_buffers),
                                 (self.output_dataset, self.output_buffers)):
            for buffer in buffers:
                acl.destroy_data_buffer(buffer["data"])
                acl.rt.free(buffer["ptr"])
            acl.mdl.destroy_dataset(dataset)
        acl.mdl.destroy_desc(self.desc)
        check_ret("acl.mdl.unload", acl.mdl.unload(self.model_id))


def main(model_path, input_path, expected_path):
    resource = AclLiteResource()
    resource.init()
    model = AclLiteModel(model_path)
    outputs = model.execute([np.load(input_path)])
    prob = outputs[-1]
    np.testing.assert_allclose(prob, np.load(expected_path), rtol=1e-4, atol=1e-5)
    log_info("inference done, top class", int(prob.argmax()))
    model.destroy()
    resource.release()
    print("acllite-style: ok")


if __name__ == "__main__":
    main(*sys.argv[1:4])
