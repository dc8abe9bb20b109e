package com.acldump;

import com.acldump.swig.AclNative;

/**
 * A model dump session: aclmdlInitDump + aclmdlSetDump; {@link #close()} is aclmdlFinalizeDump,
 * which writes every queued dump file. A config applies to models loaded after it is set.
 */
public final class DumpSession implements AutoCloseable {
  private boolean open = true;

  private DumpSession() {}

  /** Starts a session with the dump config at {@code configPath}. */
  public static DumpSession start(String configPath) {
    AclNative.aclmdlInitDump();
    DumpSession session = new DumpSession();
    try {
      session.set(configPath);
    } catch (RuntimeException e) {
      try {
        session.close();
      } catch (AclException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return session;
  }

  /** aclmdlSetDump: replaces the config for models loaded from now on. */
  public void set(String configPath) {
    AclNative.aclmdlSetDump(configPath);
  }

  @Override
  public void close() {
    if (open) {
      open = false;
      AclNative.aclmdlFinalizeDump();
    }
  }
}
