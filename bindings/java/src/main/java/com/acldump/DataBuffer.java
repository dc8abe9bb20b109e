package com.acldump;

import com.acldump.swig.AclDataBuffer;
import com.acldump.swig.AclNative;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** An aclDataBuffer over a direct ByteBuffer, which it keeps reachable while open. */
public final class DataBuffer implements AutoCloseable {
  private final ByteBuffer data;
  private AclDataBuffer handle;

  private DataBuffer(ByteBuffer data) {
    this.data = data;
    this.handle = AclNative.aclCreateDataBuffer(data);
  }

  /** A new zeroed buffer of {@code size} bytes in native byte order. */
  public static DataBuffer allocate(int size) {
    return new DataBuffer(ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder()));
  }

  /** Describes all of {@code data}'s capacity: a direct, writable buffer (outputs go there). */
  public static DataBuffer wrap(ByteBuffer data) {
    if (!data.isDirect() || data.isReadOnly()) {
      throw new IllegalArgumentException("a DataBuffer needs a direct, writable ByteBuffer");
    }
    return new DataBuffer(data);
  }

  /** The memory (position 0, limit = capacity, native order for buffers from allocate). */
  public ByteBuffer data() {
    return data.duplicate().clear().order(data.order());
  }

  public long size() {
    return AclNative.aclGetDataBufferSizeV2(handle());
  }

  AclDataBuffer handle() {
    if (handle == null) {
      throw new IllegalStateException("the DataBuffer is closed");
    }
    return handle;
  }

  /** Frees the descriptor (not the ByteBuffer). */
  @Override
  public void close() {
    if (handle != null) {
      handle.delete();
      handle = null;
    }
  }
}
