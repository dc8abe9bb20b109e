package com.acldump;

import com.acldump.swig.AclNative;

/**
 * The initialised library: {@code Acl.init()} is aclInit, {@link #close()} is aclFinalize. Use
 * it in try-with-resources around everything else.
 */
public final class Acl implements AutoCloseable {
  private boolean open = true;

  private Acl() {}

  /** aclInit without a config. */
  public static Acl init() {
    return init(null);
  }

  /**
   * aclInit with an acl.json whose "dump" section configures dump for the whole process (S6), or
   * null for none.
   */
  public static Acl init(String configPath) {
    AclNative.aclInit(configPath);
    return new Acl();
  }

  /** "major.minor.patch" of the C ABI. */
  public static String version() {
    int[] major = new int[1];
    int[] minor = new int[1];
    int[] patch = new int[1];
    AclNative.aclrtGetVersion(major, minor, patch);
    return major[0] + "." + minor[0] + "." + patch[0];
  }

  /** Makes {@code deviceId} this thread's device: it names the dump folder of models it loads. */
  public static void setDevice(int deviceId) {
    AclNative.aclrtSetDevice(deviceId);
  }

  /** aclFinalize: unloads every model and ends dump sessions. */
  @Override
  public void close() {
    if (open) {
      open = false;
      AclNative.aclFinalize();
    }
  }
}
