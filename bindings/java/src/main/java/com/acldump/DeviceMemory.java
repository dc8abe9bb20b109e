package com.acldump;

import com.acldump.swig.AclNative;
import com.acldump.swig.AclrtMemMallocPolicy;
import com.acldump.swig.AclrtMemcpyKind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Device memory from aclrtMalloc (host memory on this runtime); {@link #close()} frees it. Copy
 * in and out with {@link #copyFrom} / {@link #copyTo} (aclrtMemcpy), or describe it to a model
 * with {@code DataBuffer.wrap(memory.buffer())}.
 */
public final class DeviceMemory implements AutoCloseable {
  private final long size;
  private long address;

  private DeviceMemory(long address, long size) {
    this.address = address;
    this.size = size;
  }

  /** aclrtMalloc of {@code size} (> 0) bytes. */
  public static DeviceMemory allocate(long size) {
    long[] address = new long[1];
    AclNative.aclrtMalloc(address, size, AclrtMemMallocPolicy.ACL_MEM_MALLOC_HUGE_FIRST);
    return new DeviceMemory(address[0], size);
  }

  public long address() {
    if (address == 0) {
      throw new IllegalStateException("the DeviceMemory is closed");
    }
    return address;
  }

  public long size() {
    return size;
  }

  /** A direct ByteBuffer over the memory (native byte order), valid until {@link #close()}. */
  public ByteBuffer buffer() {
    return AclNative.deviceBuffer(address(), size).order(ByteOrder.nativeOrder());
  }

  /** aclrtMemcpy host to device of all of {@code source} (a direct buffer). */
  public void copyFrom(ByteBuffer source) {
    AclNative.aclrtMemcpy(address(), size, AclNative.bufferAddress(direct(source)),
        source.capacity(), AclrtMemcpyKind.ACL_MEMCPY_HOST_TO_DEVICE);
  }

  /** aclrtMemcpy device to host of {@code target.capacity()} bytes (a direct buffer). */
  public void copyTo(ByteBuffer target) {
    AclNative.aclrtMemcpy(AclNative.bufferAddress(direct(target)), target.capacity(),
        address(), target.capacity(), AclrtMemcpyKind.ACL_MEMCPY_DEVICE_TO_HOST);
  }

  private static ByteBuffer direct(ByteBuffer buffer) {
    if (!buffer.isDirect()) {
      throw new IllegalArgumentException("expected a direct ByteBuffer");
    }
    return buffer;
  }

  /** aclrtFree (an error while a loaded model or queued stream work still uses it). */
  @Override
  public void close() {
    if (address != 0) {
      AclNative.aclrtFree(address);
      address = 0;
    }
  }
}
