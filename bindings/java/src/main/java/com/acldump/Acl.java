package com.acldump;

import com.acldump.swig.AclNative;

/**
 * The initialised library: {@code Acl.init()} is aclInit, {@link #close()} is aclFinalize. Use
 * it in try-with-resources around everything else.
 *
 * <p>The build compiles this file with the static methods of bindings/calls.py's rows that have
 * a java name (setDevice, getDevice, ...) written in at the {@code // @calls} line.
 */
public final class Acl implements AutoCloseable {
  private boolean open = true;

  private Acl() {}

  /** aclInit without a config. */
  public static Acl init() {
    return init(null);
  }

  /**
   * aclInit with an acl.json whose "dump" section configures dump for the whole process, or null
   * for none.
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

  // @calls (generated methods go here)

  /**
   * acldumpRegCallback: from now on every dump file reaches {@code callback} in chunks, in file
   * order, and no file is written. While one is registered, registering another has no effect,
   * as in the SDK. Works before {@link #init}.
   */
  public static void registerDumpCallback(DumpCallback callback) {
    AclNative.registerDumpCallback(callback, 0);
  }

  /** acldumpUnregCallback: returns once no chunk is being delivered. */
  public static void unregisterDumpCallback() {
    AclNative.unregisterDumpCallback();
  }

  /** acldumpGetExceptionInfoPath: the exception dump folder of the current device. */
  public static String exceptionInfoPath() {
    return AclNative.aclbindingExceptionInfoPath();
  }

  /** One tensor for {@link #saveExceptionInfo}. */
  public static final class ExceptionTensor {
    public static final int INPUT = 0;
    public static final int OUTPUT = 1;
    public static final int WORKSPACE = 2;
    final int type;
    final byte[] data;
    final int format;
    final int dataType;
    final long[] shape;
    final long[] originShape;

    /** {@code format} and {@code dataType} are aclFormat and aclDataType values. */
    public ExceptionTensor(int type, byte[] data, int format, int dataType, long[] shape,
        long[] originShape) {
      this.type = type;
      this.data = data;
      this.format = format;
      this.dataType = dataType;
      this.shape = shape;
      this.originShape = originShape;
    }
  }

  /**
   * acldumpSaveExceptionInfo: saves {@code tensors} (their bytes are copied) as the dump file
   * {@code {exceptionInfoPath}/{fileName}.custom.{time}} while an exception dump is on.
   */
  public static void saveExceptionInfo(
      String fileName, String userTag, java.util.List<ExceptionTensor> tensors) {
    int n = tensors.size();
    int[] types = new int[n];
    int[] formats = new int[n];
    int[] dataTypes = new int[n];
    byte[][] data = new byte[n][];
    long[][] shapes = new long[n][];
    long[][] originShapes = new long[n][];
    for (int i = 0; i < n; ++i) {
      ExceptionTensor t = tensors.get(i);
      types[i] = t.type;
      data[i] = t.data;
      formats[i] = t.format;
      dataTypes[i] = t.dataType;
      shapes[i] = t.shape;
      originShapes[i] = t.originShape == null ? t.shape : t.originShape;
    }
    AclNative.saveExceptionInfo(
        fileName, userTag, types, data, formats, dataTypes, shapes, originShapes);
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
