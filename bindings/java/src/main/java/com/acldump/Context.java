package com.acldump;

import com.acldump.swig.AclNative;

/**
 * An aclrtContext on a device, current for the thread that creates it; {@link #close()}
 * destroys it (and its streams). A context is per thread: another thread uses it after {@link
 * #makeCurrent()}.
 */
public final class Context implements AutoCloseable {
  private long handle;

  private Context(long handle) {
    this.handle = handle;
  }

  /** aclrtCreateContext: a new context on {@code deviceId}, made current for this thread. */
  public static Context create(int deviceId) {
    long[] context = new long[1];
    AclNative.aclrtCreateContext(context, deviceId);
    return new Context(context[0]);
  }

  /** aclrtSetCurrentContext. */
  public void makeCurrent() {
    AclNative.aclrtSetCurrentContext(handle());
  }

  /** The raw aclrtContext. */
  public long handle() {
    if (handle == 0) {
      throw new IllegalStateException("the Context is closed");
    }
    return handle;
  }

  @Override
  public void close() {
    if (handle != 0) {
      long closing = handle;
      handle = 0;
      AclNative.aclrtDestroyContext(closing);
    }
  }
}
