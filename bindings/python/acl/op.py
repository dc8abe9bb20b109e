"""acl.op: single-operator execution (dumped when the dump config sets dump_op_switch "on").

Tensor descriptions are at the package top level (acl.create_tensor_desc, ...), as in pyACL;
the names here stay for older code."""

from . import aclswig as _c
from ._calls_op import *  # noqa: F401,F403  (the ordinary calls, from bindings/calls.py)


def destroy_attr(attr):
    return _c.aclopDestroyAttr(attr)


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
