"""acl.op: single-operator execution (dumped when dump_op_switch is "on", S13)."""

from . import aclswig as _c


def create_attr():
    return _c.aclopCreateAttr()


def destroy_attr(attr):
    return _c.aclopDestroyAttr(attr)


def set_attr_bool(attr, name, value):
    return _c.aclopSetAttrBool(attr, name, 1 if value else 0)


def set_attr_int(attr, name, value):
    return _c.aclopSetAttrInt(attr, name, value)


def set_attr_float(attr, name, value):
    return _c.aclopSetAttrFloat(attr, name, value)


def set_attr_string(attr, name, value):
    return _c.aclopSetAttrString(attr, name, value)


def set_attr_list_int(attr, name, values):
    return _c.aclopSetAttrListInt(attr, name, list(values))


def set_attr_list_float(attr, name, values):
    return _c.aclopSetAttrListFloat(attr, name, list(values))


def create_tensor_desc(data_type, dims, format):  # noqa: A002  (pyACL's parameter name)
    return _c.aclCreateTensorDesc(data_type, list(dims), format)


def destroy_tensor_desc(desc):
    return _c.aclDestroyTensorDesc(desc)


def set_tensor_desc_name(desc, name):
    return _c.aclSetTensorDescName(desc, name)


def get_tensor_desc_type(desc):
    return _c.aclGetTensorDescType(desc)


def get_tensor_desc_num_dims(desc):
    return _c.aclGetTensorDescNumDims(desc)


def get_tensor_desc_size(desc):
    return _c.aclGetTensorDescSize(desc)


def execute_v2(op_type, input_desc, inputs, output_desc, outputs, attr=None, stream=None):
    """aclopExecuteV2: descs and buffers as equally long lists (None for an absent input)."""
    if len(input_desc) != len(inputs) or len(output_desc) != len(outputs):
        raise ValueError("each desc list must be as long as its buffer list")
    return _c.aclopExecuteV2(op_type, list(zip(input_desc, inputs)),
                             list(zip(output_desc, outputs)), attr, stream)

