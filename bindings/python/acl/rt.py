"""acl.rt: devices (the id in the dump layout) and host memory."""

from . import aclswig as _c

ACL_MEM_MALLOC_HUGE_FIRST = _c.ACL_MEM_MALLOC_HUGE_FIRST
ACL_MEM_MALLOC_HUGE_ONLY = _c.ACL_MEM_MALLOC_HUGE_ONLY
ACL_MEM_MALLOC_NORMAL_ONLY = _c.ACL_MEM_MALLOC_NORMAL_ONLY


def set_device(device_id):
    return _c.aclrtSetDevice(device_id)


def get_device():
    """Returns (device_id, ret)."""
    ret, device_id = _c.aclrtGetDevice()
    return device_id, ret


def reset_device(device_id):
    return _c.aclrtResetDevice(device_id)


def malloc(size, policy=ACL_MEM_MALLOC_HUGE_FIRST):
    """Returns (address, ret); free with acl.rt.free(address)."""
    ret, address = _c.aclrtMalloc(size, policy)
    return address, ret


def free(address):
    return _c.aclrtFree(address)


def get_version():
    """Returns (major, minor, patch, ret)."""
    ret, major, minor, patch = _c.aclrtGetVersion()
    return major, minor, patch, ret
