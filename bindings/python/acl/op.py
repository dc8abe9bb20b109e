"""acl.op: single-operator execution (dumped when the dump config sets dump_op_switch "on").

Tensor descriptions are at the package top level (acl.create_tensor_desc, ...), as in pyACL;
the names here stay for older code."""

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


from . import (  # noqa: E402,F401  (kept here for older code)
    create_tensor_desc,
    destroy_tensor_desc,
    get_tensor_desc_num_dims,
    get_tensor_desc_size,
    get_tensor_desc_type,
    set_tensor_desc_name,
)


def execute_v2(op_type, input_desc, inputs, output_desc, outputs, attr=None, stream=None):
    """aclopExecuteV2: descs and buffers as equally long lists (None for an absent input)."""
    if len(input_desc) != len(inputs) or len(output_desc) != len(outputs):
        raise ValueError("each desc list must be as long as its buffer list")
    return _c.aclopExecuteV2(op_type, list(zip(input_desc, inputs)),
                             list(zip(output_desc, outputs)), attr, stream)

