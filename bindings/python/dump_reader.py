"""Reads one dump file for the tests: an 8-byte little-endian header length,
a toolkit.dumpdata.DumpData header and the raw tensor bytes, each length checked before use.
Just enough of the protobuf wire format is decoded by hand (//dump:dump_data.proto is not
visible outside //dump, so no _pb2 can be generated from it here)."""

import collections
import struct

Tensor = collections.namedtuple("Tensor", "data_type shape size")
Header = collections.namedtuple("Header", "version op_name inputs outputs other_sizes")


def _varint(data, pos):
    value, shift = 0, 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("truncated or overlong varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def _fields(data):
    """Yields (field number, value): an int for varints and fixed widths, bytes otherwise."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1 or wire == 5:
            width = 8 if wire == 1 else 4
            if pos + width > len(data):
                raise ValueError("truncated fixed-width field")
            value = int.from_bytes(data[pos:pos + width], "little")
            pos += width
        elif wire == 2:
            length, pos = _varint(data, pos)
            if pos + length > len(data):
                raise ValueError("length-delimited field overruns its message")
            value = bytes(data[pos:pos + length])
            pos += length
        else:
            raise ValueError("unsupported wire type %d" % wire)
        yield field, value


def _shape(data):
    dims = []
    for field, value in _fields(data):
        if field == 1 and isinstance(value, bytes):  # packed repeated uint64
            pos = 0
            while pos < len(value):
                dim, pos = _varint(value, pos)
                dims.append(dim)
        elif field == 1:
            dims.append(value)
    return dims


def _tensor(data, size_field):
    data_type, shape, size = 0, [], 0
    for field, value in _fields(data):
        if field == 1:
            data_type = value
        elif field == 3:
            shape = _shape(value)
        elif field == size_field:
            size = value
    return Tensor(data_type, shape, size)


def _size(data, size_field):
    return next((v for f, v in _fields(data) if f == size_field), 0)


def parse_header(data):
    """DumpData: version 1, output 3 (OpOutput: data_type 1, shape 3, size 6), input 4 (OpInput:
    size 5), buffer 5 (size 3), op_name 6, space 8 (size 3)."""
    version, op_name, inputs, outputs, others = "", "", [], [], []
    for field, value in _fields(data):
        if field == 1:
            version = value.decode()
        elif field == 3:
            outputs.append(_tensor(value, 6))
        elif field == 4:
            inputs.append(_tensor(value, 5))
        elif field in (5, 8):
            others.append(_size(value, 3))
        elif field == 6:
            op_name = value.decode()
    return Header(version, op_name, inputs, outputs, others)


def read_dump_file(path):
    """Returns (Header, [bytes of input 0.., output 0.., then buffers and workspaces])."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError("%s: shorter than the 8-byte header length" % path)
    (header_len,) = struct.unpack_from("<Q", data, 0)
    if header_len > len(data) - 8:
        raise ValueError("%s: header length %d exceeds the file" % (path, header_len))
    header = parse_header(data[8:8 + header_len])
    sizes = [t.size for t in header.inputs + header.outputs] + header.other_sizes
    if 8 + header_len + sum(sizes) != len(data):
        raise ValueError("%s: sizes do not add up to the file size" % path)
    payloads, offset = [], 8 + header_len
    for size in sizes:
        payloads.append(data[offset:offset + size])
        offset += size
    return header, payloads
