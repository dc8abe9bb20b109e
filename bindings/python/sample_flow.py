"""The pyACL resnet50 samples' call sequence (synchronous and async with callbacks), unmodified
in shape: init, device, context, stream, query_size + load_from_file_with_mem, device buffers
filled with acl.rt.memcpy from acl.util.bytes_to_ptr, execute and execute_async with a callback
thread, outputs copied back through malloc_host and read with acl.util.ptr_to_bytes, teardown.

Usage: sample_flow.py MODEL INPUT.npy OUT.npy INIT_CONFIG [SET_DUMP_CONFIG]
Writes the prob output of every execution to OUT.npy (a [runs, 10] array); prints "done".
"""

import sys

import numpy as np

import acl

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEM_MALLOC_NORMAL_ONLY = 2
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_CALLBACK_BLOCK = 1
NPY_FLOAT32 = 11


def check_ret(message, ret):
    if ret != ACL_SUCCESS:
        raise RuntimeError("{} failed ret={}: {}".format(message, ret, acl.get_recent_err_msg()))


class AclNet:
    def __init__(self, model_path, device_id=0):
        self.device_id = device_id
        self.model_path = model_path
        self.callback_run_flag = True
        self.callbacks_seen = []

    def init_resource(self, config_path, set_dump_path):
        check_ret("acl.init", acl.init(config_path))
        check_ret("acl.rt.set_device", acl.rt.set_device(self.device_id))
        self.context, ret = acl.rt.create_context(self.device_id)
        check_ret("acl.rt.create_context", ret)
        self.stream, ret = acl.rt.create_stream()
        check_ret("acl.rt.create_stream", ret)
        run_mode, ret = acl.rt.get_run_mode()
        check_ret("acl.rt.get_run_mode", ret)
        assert run_mode == 1, run_mode  # ACL_HOST
        if set_dump_path:
            check_ret("acl.mdl.init_dump", acl.mdl.init_dump())
            check_ret("acl.mdl.set_dump", acl.mdl.set_dump(set_dump_path))
        self.work_size, self.weight_size, ret = acl.mdl.query_size(self.model_path)
        check_ret("acl.mdl.query_size", ret)
        self.work_ptr, ret = acl.rt.malloc(self.work_size, ACL_MEM_MALLOC_HUGE_FIRST)
        check_ret("acl.rt.malloc", ret)
        self.weight_ptr, ret = acl.rt.malloc(self.weight_size, ACL_MEM_MALLOC_HUGE_FIRST)
        check_ret("acl.rt.malloc", ret)
        self.model_id, ret = acl.mdl.load_from_file_with_mem(
            self.model_path, self.work_ptr, self.work_size, self.weight_ptr, self.weight_size)
        check_ret("acl.mdl.load_from_file_with_mem", ret)
        self.model_desc = acl.mdl.create_desc()
        check_ret("acl.mdl.get_desc", acl.mdl.get_desc(self.model_desc, self.model_id))
        self.input_data = self._gen_data_buffer(acl.mdl.get_num_inputs(self.model_desc), "in")
        self.output_data = self._gen_data_buffer(acl.mdl.get_num_outputs(self.model_desc), "out")
        self.load_input_dataset = self._gen_dataset(self.input_data)
        self.load_output_dataset = self._gen_dataset(self.output_data)

    def _gen_data_buffer(self, size, des):
        func = {"in": acl.mdl.get_input_size_by_index,
                "out": acl.mdl.get_output_size_by_index}[des]
        buffers = []
        for i in range(size):
            temp_buffer_size = func(self.model_desc, i)
            temp_buffer, ret = acl.rt.malloc(temp_buffer_size, ACL_MEM_MALLOC_NORMAL_ONLY)
            check_ret("acl.rt.malloc", ret)
            buffers.append({"buffer": temp_buffer, "size": temp_buffer_size})
        return buffers

    def _gen_dataset(self, buffers):
        dataset = acl.mdl.create_dataset()
        for item in buffers:
            data = acl.create_data_buffer(item["buffer"], item["size"])
            _, ret = acl.mdl.add_dataset_buffer(dataset, data)
            if ret != ACL_SUCCESS:
                acl.destroy_data_buffer(data)
            check_ret("acl.mdl.add_dataset_buffer", ret)
        return dataset

    def _data_to_device(self, images):
        for i, item in enumerate(self.input_data):
            if "bytes_to_ptr" in dir(acl.util):
                bytes_data = images[i].tobytes()
                ptr = acl.util.bytes_to_ptr(bytes_data)
            else:
                ptr = acl.util.numpy_to_ptr(images[i])
            ret = acl.rt.memcpy(item["buffer"], item["size"], ptr, item["size"],
                                ACL_MEMCPY_HOST_TO_DEVICE)
            check_ret("acl.rt.memcpy", ret)

    def _output_dataset_to_numpy(self):
        arrays = []
        for i, item in enumerate(self.output_data):
            buffer_host, ret = acl.rt.malloc_host(item["size"])
            check_ret("acl.rt.malloc_host", ret)
            ret = acl.rt.memcpy(buffer_host, item["size"], item["buffer"], item["size"],
                                ACL_MEMCPY_DEVICE_TO_HOST)
            check_ret("acl.rt.memcpy", ret)
            dims, ret = acl.mdl.get_cur_output_dims(self.model_desc, i)
            check_ret("acl.mdl.get_cur_output_dims", ret)
            out_dim = dims["dims"]
            if "ptr_to_bytes" in dir(acl.util):
                bytes_data = acl.util.ptr_to_bytes(buffer_host, item["size"])
                data = np.frombuffer(bytes_data, dtype=np.float32).reshape(tuple(out_dim))
            else:
                data = acl.util.ptr_to_numpy(buffer_host, tuple(out_dim), NPY_FLOAT32).copy()
            check_ret("acl.rt.free_host", acl.rt.free_host(buffer_host))
            arrays.append(data)
        return arrays

    def forward(self, images):
        self._data_to_device(images)
        check_ret("acl.mdl.execute",
                  acl.mdl.execute(self.model_id, self.load_input_dataset,
                                  self.load_output_dataset))
        return self._output_dataset_to_numpy()

    def _process_callback(self, args_list):
        context, timeout = args_list
        check_ret("acl.rt.set_context", acl.rt.set_context(context))
        while self.callback_run_flag:
            acl.rt.process_report(timeout)

    def _callback_func(self, user_data):
        self.callbacks_seen.append(user_data)

    def forward_async(self, images, runs):
        """The async sample: executions on the stream, a callback after each."""
        self._data_to_device(images)
        tid, ret = acl.util.start_thread(self._process_callback, [self.context, 50])
        check_ret("acl.util.start_thread", ret)
        check_ret("acl.rt.subscribe_report", acl.rt.subscribe_report(tid, self.stream))
        for run in range(runs):
            check_ret("acl.mdl.execute_async",
                      acl.mdl.execute_async(self.model_id, self.load_input_dataset,
                                            self.load_output_dataset, self.stream))
            check_ret("acl.rt.launch_callback",
                      acl.rt.launch_callback(self._callback_func, [run], ACL_CALLBACK_BLOCK,
                                             self.stream))
        check_ret("acl.rt.synchronize_stream", acl.rt.synchronize_stream(self.stream))
        check_ret("acl.rt.unsubscribe_report", acl.rt.unsubscribe_report(tid, self.stream))
        self.callback_run_flag = False
        check_ret("acl.util.stop_thread", acl.util.stop_thread(tid))
        assert self.callbacks_seen == [[run] for run in range(runs)], self.callbacks_seen
        return self._output_dataset_to_numpy()

    def release_resource(self, set_dump_path):
        for dataset in [self.load_input_dataset, self.load_output_dataset]:
            num = acl.mdl.get_dataset_num_buffers(dataset)
            for i in range(num):
                data_buf = acl.mdl.get_dataset_buffer(dataset, i)
                if data_buf:
                    check_ret("acl.destroy_data_buffer", acl.destroy_data_buffer(data_buf))
            check_ret("acl.mdl.destroy_dataset", acl.mdl.destroy_dataset(dataset))
        if set_dump_path:
            check_ret("acl.mdl.finalize_dump", acl.mdl.finalize_dump())
        check_ret("acl.mdl.unload", acl.mdl.unload(self.model_id))
        check_ret("acl.mdl.destroy_desc", acl.mdl.destroy_desc(self.model_desc))
        for item in self.input_data + self.output_data:
            check_ret("acl.rt.free", acl.rt.free(item["buffer"]))
        check_ret("acl.rt.free", acl.rt.free(self.work_ptr))
        check_ret("acl.rt.free", acl.rt.free(self.weight_ptr))
        check_ret("acl.rt.destroy_stream", acl.rt.destroy_stream(self.stream))
        check_ret("acl.rt.destroy_context", acl.rt.destroy_context(self.context))
        check_ret("acl.rt.reset_device", acl.rt.reset_device(self.device_id))
        check_ret("acl.finalize", acl.finalize())


def main(argv):
    model, image_path, out_path, init_config = argv[1:5]
    set_dump = argv[5] if len(argv) > 5 else None
    net = AclNet(model)
    net.init_resource(init_config, set_dump)
    image = np.load(image_path)
    probs = [net.forward([image])[1]]
    probs.append(net.forward_async([image], runs=2)[1])
    net.release_resource(set_dump)
    np.save(out_path, np.concatenate(probs))
    print("done")


if __name__ == "__main__":
    main(sys.argv)
