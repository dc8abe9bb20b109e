#!/usr/bin/env python3
"""Writes the small JPEG and PNG files of testdata/images/ (flat mid-gray images: tiny, and
decodable by any JPEG or PNG decoder), for the image header tests and as fuzzer seeds.

    python3 testdata/generate_images.py testdata/images

The JPEGs use the standard Huffman tables of the JPEG specification (Annex K); every 8x8 block
codes a zero DC difference and an end of block, so the image is Y = Cb = Cr = 128. Needs only
Python's standard library. Not run by CI: run it by hand and commit what it writes.
"""

import os
import struct
import sys
import zlib

DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
DC_VALUES = list(range(12))
AC_BITS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D]
AC_VALUES = bytes.fromhex(
    "01020300041105122131410613516107227114328191a1082342b1c11552d1f0"
    "2433627282090a161718191a25262728292a3435363738393a43444546474849"
    "4a535455565758595a636465666768696a737475767778797a83848586878889"
    "8a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5"
    "c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8"
    "f9fa")


def huffman_codes(bits, values):
    """{symbol: bit string} of a canonical Huffman table."""
    codes, code, k = {}, 0, 0
    for length in range(1, 17):
        for _ in range(bits[length - 1]):
            codes[values[k]] = format(code, "0%db" % length)
            code += 1
            k += 1
        code <<= 1
    return codes


DC = huffman_codes(DC_BITS, DC_VALUES)
AC = huffman_codes(AC_BITS, list(AC_VALUES))


def segment(marker, payload):
    return struct.pack(">BBH", 0xFF, marker, len(payload) + 2) + payload


def entropy(bits):
    """Bits padded with ones to a byte, with FF bytes stuffed (FF 00)."""
    bits += "1" * (-len(bits) % 8)
    out = bytearray()
    for i in range(0, len(bits), 8):
        byte = int(bits[i:i + 8], 2)
        out.append(byte)
        if byte == 0xFF:
            out.append(0)
    return bytes(out)


def ceil_div(a, b):
    return -(-a // b)


def jpeg(width, height, sampling, progressive=False, orientation=None, jfif=True):
    """sampling: [(h, v)] per component (ids 1, 2, 3...)."""
    hmax = max(h for h, _ in sampling)
    vmax = max(v for _, v in sampling)
    out = b"\xff\xd8"
    if jfif:
        out += segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    if orientation is not None:
        tiff = b"MM\x00\x2a" + struct.pack(">I", 8)
        tiff += struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
        tiff += struct.pack(">I", 0)
        out += segment(0xE1, b"Exif\x00\x00" + tiff)
    out += segment(0xDB, b"\x00" + bytes([16] * 64))
    frame = struct.pack(">BHHB", 8, height, width, len(sampling))
    for i, (h, v) in enumerate(sampling):
        frame += bytes([i + 1, h << 4 | v, 0])
    out += segment(0xC2 if progressive else 0xC0, frame)
    out += segment(0xC4, b"\x00" + bytes(DC_BITS) + bytes(DC_VALUES))
    out += segment(0xC4, b"\x10" + bytes(AC_BITS) + AC_VALUES)

    def scan(components, ss, se):
        header = bytes([len(components)])
        for c in components:
            header += bytes([c + 1, 0x00])
        return segment(0xDA, header + bytes([ss, se, 0]))

    everything = list(range(len(sampling)))
    if len(sampling) == 1:
        mcus = ceil_div(width, 8) * ceil_div(height, 8)
        blocks_per_mcu = 1
    else:
        mcus = ceil_div(width, 8 * hmax) * ceil_div(height, 8 * vmax)
        blocks_per_mcu = sum(h * v for h, v in sampling)
    if not progressive:
        out += scan(everything, 0, 63) + entropy((DC[0] + AC[0]) * blocks_per_mcu * mcus)
    else:
        out += scan(everything, 0, 0) + entropy(DC[0] * blocks_per_mcu * mcus)
        for c, (h, v) in enumerate(sampling):
            blocks = (ceil_div(ceil_div(width * h, hmax), 8) *
                      ceil_div(ceil_div(height * v, vmax), 8))
            out += scan([c], 1, 63) + entropy(AC[0] * blocks)
    return out + b"\xff\xd9"


def png(width, height, color_type, bit_depth=8, palette=None):
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    row = bytes([0]) + bytes([0x80] * ceil_div(width * channels * bit_depth, 8))
    if color_type == 3:
        row = bytes([0]) + bytes(ceil_div(width * bit_depth, 8))  # palette index 0

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0))
    if palette is not None:
        out += chunk(b"PLTE", palette)
    out += chunk(b"IDAT", zlib.compress(row * height, 9))
    return out + chunk(b"IEND", b"")


IMAGES = {
    # name: bytes                                           width x height as displayed
    "baseline_420.jpg": jpeg(33, 17, [(2, 2), (1, 1), (1, 1)]),
    "baseline_444.jpg": jpeg(16, 8, [(1, 1), (1, 1), (1, 1)]),
    "baseline_422.jpg": jpeg(24, 10, [(2, 1), (1, 1), (1, 1)]),
    "baseline_440.jpg": jpeg(16, 16, [(1, 2), (1, 1), (1, 1)]),
    "baseline_411.jpg": jpeg(32, 8, [(4, 1), (1, 1), (1, 1)]),
    "gray.jpg": jpeg(20, 12, [(1, 1)]),
    "progressive_420.jpg": jpeg(40, 24, [(2, 2), (1, 1), (1, 1)], progressive=True),
    "exif_orientation_6.jpg": jpeg(48, 16, [(2, 2), (1, 1), (1, 1)], orientation=6,
                                   jfif=False),
    "rgb.png": png(7, 5, 2),
    "rgba.png": png(6, 4, 6),
    "gray.png": png(5, 3, 0),
    "gray_alpha.png": png(3, 3, 4),
    "gray16.png": png(4, 2, 0, bit_depth=16),
    "palette.png": png(4, 4, 3, palette=bytes([0x80, 0x80, 0x80])),
}


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "images")
    for name, data in IMAGES.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
        print("%-26s %4d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()
