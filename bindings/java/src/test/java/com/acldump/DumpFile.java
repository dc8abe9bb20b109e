package com.acldump;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one dump file for the tests: uint64 LE header length, a
 * toolkit.dumpdata.DumpData header and the raw tensors. Only the fields the tests need are decoded
 * from the protobuf wire format, every length checked first.
 */
final class DumpFile {
  /** An OpInput / OpOutput: data_type, shape, size. */
  static final class Tensor {
    int dataType;
    final List<Long> shape = new ArrayList<>();
    long size;
  }

  String opName = "";
  final List<Tensor> inputs = new ArrayList<>();
  final List<Tensor> outputs = new ArrayList<>();
  final List<byte[]> payloads = new ArrayList<>();

  static DumpFile read(Path path) throws IOException {
    byte[] data = Files.readAllBytes(path);
    if (data.length < 8) {
      throw new IOException(path + ": shorter than the header length");
    }
    long headerLength = ByteBuffer.wrap(data, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    if (headerLength < 0 || headerLength > data.length - 8) {
      throw new IOException(path + ": header length exceeds the file");
    }
    DumpFile file = new DumpFile();
    Wire header = new Wire(data, 8, 8 + (int) headerLength);
    long others = 0;
    while (header.more()) {
      int field = header.key();
      if (field == 3 || field == 4) {
        Wire message = header.message();
        Tensor tensor = tensor(message, field == 3 ? 6 : 5);
        (field == 3 ? file.outputs : file.inputs).add(tensor);
      } else if (field == 5 || field == 8) {
        Wire message = header.message();
        while (message.more()) {
          long value = message.key() == 3 ? message.varint() : message.skip();
          others += value;
        }
      } else if (field == 6) {
        file.opName = header.string();
      } else {
        header.skip();
      }
    }
    int offset = 8 + (int) headerLength;
    long total = offset + others;
    for (Tensor tensor : file.inputs) {
      total += tensor.size;
    }
    for (Tensor tensor : file.outputs) {
      total += tensor.size;
    }
    if (total != data.length) {
      throw new IOException(path + ": sizes do not add up to the file size");
    }
    List<Tensor> all = new ArrayList<>(file.inputs);
    all.addAll(file.outputs);
    for (Tensor tensor : all) {
      byte[] payload = new byte[(int) tensor.size];
      System.arraycopy(data, offset, payload, 0, payload.length);
      file.payloads.add(payload);
      offset += payload.length;
    }
    return file;
  }

  private static Tensor tensor(Wire message, int sizeField) throws IOException {
    Tensor tensor = new Tensor();
    while (message.more()) {
      int field = message.key();
      if (field == 1) {
        tensor.dataType = (int) message.varint();
      } else if (field == 3) {
        Wire shape = message.message();
        while (shape.more()) {
          if (shape.key() != 1) {
            shape.skip();
          } else if (shape.wireType == 2) {
            Wire packed = shape.message();
            while (packed.more()) {
              tensor.shape.add(packed.varint());
            }
          } else {
            tensor.shape.add(shape.varint());
          }
        }
      } else if (field == sizeField) {
        tensor.size = message.varint();
      } else {
        message.skip();
      }
    }
    return tensor;
  }

  /** A cursor over [pos, end) of a protobuf message. */
  private static final class Wire {
    private final byte[] data;
    private int pos;
    private final int end;
    int wireType;

    Wire(byte[] data, int pos, int end) {
      this.data = data;
      this.pos = pos;
      this.end = end;
    }

    boolean more() {
      return pos < end;
    }

    int key() throws IOException {
      long key = varint();
      wireType = (int) (key & 7);
      return (int) (key >>> 3);
    }

    long varint() throws IOException {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= end) {
          throw new IOException("truncated varint");
        }
        byte b = data[pos++];
        value |= (long) (b & 0x7f) << shift;
        if (b >= 0) {
          return value;
        }
      }
      throw new IOException("overlong varint");
    }

    Wire message() throws IOException {
      long length = varint();
      if (length < 0 || length > end - pos) {
        throw new IOException("field overruns its message");
      }
      Wire inner = new Wire(data, pos, pos + (int) length);
      pos += (int) length;
      return inner;
    }

    String string() throws IOException {
      Wire inner = message();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bytes.write(data, inner.pos, inner.end - inner.pos);
      return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Skips the current field's value; returns 0. */
    long skip() throws IOException {
      switch (wireType) {
        case 0:
          varint();
          break;
        case 1:
          pos += 8;
          break;
        case 2:
          message();
          break;
        case 5:
          pos += 4;
          break;
        default:
          throw new IOException("unsupported wire type " + wireType);
      }
      if (pos > end) {
        throw new IOException("truncated field");
      }
      return 0;
    }
  }
}
