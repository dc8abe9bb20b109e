package com.acldump;

import com.acldump.swig.AclNative;
import com.acldump.swig.AclrtCallbackBlockType;

/**
 * An aclrtStream of the current context: an in-order queue of work (asynchronous copies, model
 * executions, callbacks) run by its own worker. {@link #synchronize()} waits for the work queued
 * so far and throws the first failure among it; {@link #close()} runs what is queued, then
 * destroys the stream. Use it from a thread whose current context is the stream's.
 */
public final class Stream implements AutoCloseable {
  private long handle;

  private Stream(long handle) {
    this.handle = handle;
  }

  /** aclrtCreateStream in the current context. */
  public static Stream create() {
    long[] stream = new long[1];
    AclNative.aclrtCreateStream(stream);
    return new Stream(stream[0]);
  }

  /** aclrtSynchronizeStream. */
  public void synchronize() {
    AclNative.aclrtSynchronizeStream(handle());
  }

  /** aclrtSubscribeReport: {@code threadId} ({@link #currentThreadId()} of that thread) runs
   * this stream's callbacks in {@link #processReport}. */
  public void subscribeReport(long threadId) {
    AclNative.aclrtSubscribeReport(threadId, handle());
  }

  public void unsubscribeReport(long threadId) {
    AclNative.aclrtUnSubscribeReport(threadId, handle());
  }

  /** aclrtLaunchCallback: {@code callback.run()} in the subscribed thread, once the work queued
   * before it has run; with {@code block}, later work waits for it to return. */
  public void launchCallback(Runnable callback, boolean block) {
    AclNative.launchCallback(
        callback,
        block ? AclrtCallbackBlockType.ACL_CALLBACK_BLOCK
            : AclrtCallbackBlockType.ACL_CALLBACK_NO_BLOCK,
        handle());
  }

  /** aclrtProcessReport: runs the callbacks waiting for this thread; false on the timeout. */
  public static boolean processReport(int timeoutMs) {
    try {
      AclNative.aclrtProcessReport(timeoutMs);
      return true;
    } catch (AclException e) {
      if (e.getCode() == com.acldump.swig.AclNativeConstants.ACL_ERROR_RT_REPORT_TIMEOUT) {
        return false;
      }
      throw e;
    }
  }

  /** The calling thread's id, as {@link #subscribeReport} wants it. */
  public static long currentThreadId() {
    return AclNative.currentThreadId();
  }

  /** The raw aclrtStream. */
  public long handle() {
    if (handle == 0) {
      throw new IllegalStateException("the Stream is closed");
    }
    return handle;
  }

  @Override
  public void close() {
    if (handle != 0) {
      long closing = handle;
      handle = 0;
      AclNative.aclrtDestroyStream(closing);
    }
  }
}
