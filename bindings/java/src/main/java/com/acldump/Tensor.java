package com.acldump;

import com.acldump.swig.AclDataType;
import com.acldump.swig.AclNativeConstants;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * A typed tensor: an element type, a shape and its elements in row-major order, held in a direct
 * ByteBuffer in the machine's byte order (what the C library reads). The factories copy the data
 * and check it against the shape: ACL_ERROR_INVALID_PARAM when the element count is not the
 * shape's. {@link Model#run(Map)} takes and gives tensors by name; a {@link Binding}'s tensors
 * are filled and read in place.
 *
 * <pre>{@code
 * try (Tensor image = Tensor.of(pixels, 1, 3, 32, 32)) { // pixels: float[3 * 32 * 32]
 *   Map<String, Tensor> outputs = model.run(Map.of("input", image));
 *   float[] prob = outputs.get("prob").toFloatArray(); // shape [1, 10]
 * }
 * }</pre>
 *
 * <p>Element types and their Java types: ACL_FLOAT float, ACL_DOUBLE double, ACL_INT8 byte,
 * ACL_INT16 short, ACL_INT32 int, ACL_INT64 long; the unsigned ones (ACL_UINT8 ... ACL_UINT64)
 * and ACL_BOOL (one byte, 0 or 1) share the Java type of their size, as do ACL_FLOAT16 and
 * ACL_BF16 (short: the bits), made by {@link #of(AclDataType, ByteBuffer, long...)} or {@link
 * #allocate}. {@link #close()} lets the memory go; the tensor is unusable after it.
 */
public final class Tensor implements AutoCloseable {
  private static final Map<AclDataType, String> NAMES = new HashMap<>();
  private static final Map<AclDataType, Integer> SIZES = new HashMap<>();

  static {
    Object[][] types = {
      {AclDataType.ACL_FLOAT, "float32", 4}, {AclDataType.ACL_FLOAT16, "float16", 2},
      {AclDataType.ACL_BF16, "bfloat16", 2}, {AclDataType.ACL_DOUBLE, "float64", 8},
      {AclDataType.ACL_INT8, "int8", 1}, {AclDataType.ACL_INT16, "int16", 2},
      {AclDataType.ACL_INT32, "int32", 4}, {AclDataType.ACL_INT64, "int64", 8},
      {AclDataType.ACL_UINT8, "uint8", 1}, {AclDataType.ACL_UINT16, "uint16", 2},
      {AclDataType.ACL_UINT32, "uint32", 4}, {AclDataType.ACL_UINT64, "uint64", 8},
      {AclDataType.ACL_BOOL, "bool", 1},
    };
    for (Object[] type : types) {
      NAMES.put((AclDataType) type[0], (String) type[1]);
      SIZES.put((AclDataType) type[0], (Integer) type[2]);
    }
  }

  private final AclDataType dataType;
  private long[] shape;
  private ByteBuffer data; // direct, native order; its capacity is the room, null once closed
  private int byteSize; // the bytes of shape
  private final Binding owner; // a Binding's tensor (closed with it), or null

  Tensor(AclDataType dataType, long[] shape, ByteBuffer data, Binding owner) {
    this.dataType = dataType;
    this.shape = shape;
    this.data = data.order(ByteOrder.nativeOrder());
    this.byteSize = Math.toIntExact(count(shape) * elementSize(dataType));
    this.owner = owner;
  }

  /** A tensor of {@code shape} with a copy of {@code data} (ACL_FLOAT). */
  public static Tensor of(float[] data, long... shape) {
    Tensor tensor = create(AclDataType.ACL_FLOAT, shape, notNull(data).length);
    tensor.data.asFloatBuffer().put(data);
    return tensor;
  }

  /** A tensor of {@code shape} with a copy of {@code data} (ACL_DOUBLE). */
  public static Tensor of(double[] data, long... shape) {
    Tensor tensor = create(AclDataType.ACL_DOUBLE, shape, notNull(data).length);
    tensor.data.asDoubleBuffer().put(data);
    return tensor;
  }

  /** A tensor of {@code shape} with a copy of {@code data} (ACL_INT32). */
  public static Tensor of(int[] data, long... shape) {
    Tensor tensor = create(AclDataType.ACL_INT32, shape, notNull(data).length);
    tensor.data.asIntBuffer().put(data);
    return tensor;
  }

  /** A tensor of {@code shape} with a copy of {@code data} (ACL_INT64). */
  public static Tensor of(long[] data, long... shape) {
    Tensor tensor = create(AclDataType.ACL_INT64, shape, notNull(data).length);
    tensor.data.asLongBuffer().put(data);
    return tensor;
  }

  /** A tensor of {@code shape} with a copy of {@code data} (ACL_INT16). */
  public static Tensor of(short[] data, long... shape) {
    Tensor tensor = create(AclDataType.ACL_INT16, shape, notNull(data).length);
    tensor.data.asShortBuffer().put(data);
    return tensor;
  }

  /** A tensor of {@code shape} with a copy of {@code data} (ACL_INT8). */
  public static Tensor of(byte[] data, long... shape) {
    return of(AclDataType.ACL_INT8, data, shape);
  }

  /**
   * A tensor of {@code shape} with a copy of {@code data}, of a one-byte type: ACL_INT8,
   * ACL_UINT8 or ACL_BOOL.
   */
  public static Tensor of(AclDataType type, byte[] data, long... shape) {
    if (elementSize(type) != 1) {
      throw invalid("a byte[] holds one-byte elements, not " + name(type));
    }
    Tensor tensor = create(type, shape, notNull(data).length);
    tensor.data.put(data).clear();
    return tensor;
  }

  /** A tensor of {@code shape} with a copy of {@code data}'s remaining floats (ACL_FLOAT). */
  public static Tensor of(FloatBuffer data, long... shape) {
    Tensor tensor = create(AclDataType.ACL_FLOAT, shape, notNull(data).remaining());
    tensor.data.asFloatBuffer().put(data.duplicate());
    return tensor;
  }

  /** A tensor of {@code shape} with a copy of {@code data}'s remaining doubles (ACL_DOUBLE). */
  public static Tensor of(DoubleBuffer data, long... shape) {
    Tensor tensor = create(AclDataType.ACL_DOUBLE, shape, notNull(data).remaining());
    tensor.data.asDoubleBuffer().put(data.duplicate());
    return tensor;
  }

  /** A tensor of {@code shape} with a copy of {@code data}'s remaining ints (ACL_INT32). */
  public static Tensor of(IntBuffer data, long... shape) {
    Tensor tensor = create(AclDataType.ACL_INT32, shape, notNull(data).remaining());
    tensor.data.asIntBuffer().put(data.duplicate());
    return tensor;
  }

  /** A tensor of {@code shape} with a copy of {@code data}'s remaining longs (ACL_INT64). */
  public static Tensor of(LongBuffer data, long... shape) {
    Tensor tensor = create(AclDataType.ACL_INT64, shape, notNull(data).remaining());
    tensor.data.asLongBuffer().put(data.duplicate());
    return tensor;
  }

  /** A tensor of {@code shape} with a copy of {@code data}'s remaining shorts (ACL_INT16). */
  public static Tensor of(ShortBuffer data, long... shape) {
    Tensor tensor = create(AclDataType.ACL_INT16, shape, notNull(data).remaining());
    tensor.data.asShortBuffer().put(data.duplicate());
    return tensor;
  }

  /**
   * A tensor of {@code type} and {@code shape} with a copy of {@code data}'s remaining bytes,
   * which must be its elements in native byte order: a buffer of another order is refused
   * (ACL_ERROR_INVALID_PARAM) for elements of more than one byte, whose values it would change.
   */
  public static Tensor of(AclDataType type, ByteBuffer data, long... shape) {
    checkByteOrder(notNull(data), type, "data");
    int size = elementSize(type);
    if (data.remaining() % size != 0) {
      throw invalid("the data's " + data.remaining() + " bytes are not whole " + name(type)
          + " elements");
    }
    Tensor tensor = create(type, shape, data.remaining() / size);
    tensor.data.put(data.duplicate()).clear();
    return tensor;
  }

  /** A zeroed tensor of {@code type} and {@code shape}. */
  public static Tensor allocate(AclDataType type, long... shape) {
    long[] dims = checkShape(shape);
    return new Tensor(type, dims, ByteBuffer.allocateDirect(
        Math.toIntExact(count(dims) * elementSize(type))), null);
  }

  // A zeroed tensor for `elements` elements given, which must be the shape's count.
  private static Tensor create(AclDataType type, long[] shape, long elements) {
    long[] dims = checkShape(shape);
    if (count(dims) != elements) {
      throw invalid("shape " + dims(dims) + " has " + count(dims) + " elements, the data "
          + elements);
    }
    return allocate(type, dims);
  }

  private static long[] checkShape(long[] shape) {
    if (shape == null) {
      throw invalid("shape is null");
    }
    long[] dims = shape.clone();
    long count = 1;
    for (long dim : dims) {
      if (dim < 0) {
        throw invalid("shape " + dims(dims) + " has a negative dimension");
      }
      if (dim != 0 && count > (Integer.MAX_VALUE / 8) / dim) {
        throw invalid("shape " + dims(dims) + " has too many elements");
      }
      count *= dim;
    }
    return dims;
  }

  private static <T> T notNull(T data) {
    if (data == null) {
      throw invalid("data is null");
    }
    return data;
  }

  /**
   * Refuses a ByteBuffer with bytes whose order is not the machine's when {@code type} has
   * elements of more than one byte (they would be read with their bytes swapped).
   */
  static void checkByteOrder(ByteBuffer data, AclDataType type, String what) {
    if (data.order() != ByteOrder.nativeOrder() && data.hasRemaining()
        && (type == null || elementSize(type) > 1)) {
      throw invalid(what + " is a " + data.order() + " ByteBuffer, but acldump reads "
          + ByteOrder.nativeOrder() + " (native order) data"
          + (type == null ? "" : " of " + name(type))
          + ": set .order(ByteOrder.nativeOrder()) before filling it");
    }
  }

  static AclException invalid(String message) {
    return new AclException(AclNativeConstants.ACL_ERROR_INVALID_PARAM, message);
  }

  /** acldump's name of {@code type}, as the C library's messages write it ("float32"). */
  public static String name(AclDataType type) {
    String name = NAMES.get(type);
    return name != null ? name : String.valueOf(type);
  }

  /**
   * The bytes of one element of {@code type}: ACL_ERROR_UNSUPPORTED_DATA_TYPE for a type acldump
   * has no tensors of.
   */
  public static int elementSize(AclDataType type) {
    Integer size = SIZES.get(type);
    if (size == null) {
      throw new AclException(AclNativeConstants.ACL_ERROR_UNSUPPORTED_DATA_TYPE,
          "acldump has no tensors of " + type);
    }
    return size;
  }

  static long count(long[] dims) {
    long count = 1;
    for (long dim : dims) {
      count *= dim;
    }
    return count;
  }

  /** "[1,3,32,32]", as the C library writes dims. */
  static String dims(long[] dims) {
    StringBuilder text = new StringBuilder("[");
    for (int i = 0; i < dims.length; ++i) {
      text.append(i == 0 ? "" : ",").append(dims[i]);
    }
    return text.append(']').toString();
  }

  public AclDataType dataType() {
    return dataType;
  }

  public long[] shape() {
    return shape.clone();
  }

  public long elementCount() {
    return count(shape);
  }

  /** The bytes of the elements. */
  public int byteSize() {
    return byteSize;
  }

  /** The elements' bytes (position 0, limit {@link #byteSize()}, native order), shared. */
  public ByteBuffer buffer() {
    return memory();
  }

  /** The elements of an ACL_FLOAT tensor, shared: fill an input, read an output. */
  public FloatBuffer floatBuffer() {
    return typed(AclDataType.ACL_FLOAT).asFloatBuffer();
  }

  /** The elements of an ACL_DOUBLE tensor, shared. */
  public DoubleBuffer doubleBuffer() {
    return typed(AclDataType.ACL_DOUBLE).asDoubleBuffer();
  }

  /** The elements of an ACL_INT32 or ACL_UINT32 tensor, shared. */
  public IntBuffer intBuffer() {
    return typed(AclDataType.ACL_INT32, AclDataType.ACL_UINT32).asIntBuffer();
  }

  /** The elements of an ACL_INT64 or ACL_UINT64 tensor, shared. */
  public LongBuffer longBuffer() {
    return typed(AclDataType.ACL_INT64, AclDataType.ACL_UINT64).asLongBuffer();
  }

  /** The elements of an ACL_INT16, ACL_UINT16, ACL_FLOAT16 or ACL_BF16 tensor, shared. */
  public ShortBuffer shortBuffer() {
    return typed(AclDataType.ACL_INT16, AclDataType.ACL_UINT16, AclDataType.ACL_FLOAT16,
        AclDataType.ACL_BF16).asShortBuffer();
  }

  public float[] toFloatArray() {
    FloatBuffer elements = floatBuffer();
    float[] values = new float[elements.remaining()];
    elements.get(values);
    return values;
  }

  public double[] toDoubleArray() {
    DoubleBuffer elements = doubleBuffer();
    double[] values = new double[elements.remaining()];
    elements.get(values);
    return values;
  }

  public int[] toIntArray() {
    IntBuffer elements = intBuffer();
    int[] values = new int[elements.remaining()];
    elements.get(values);
    return values;
  }

  public long[] toLongArray() {
    LongBuffer elements = longBuffer();
    long[] values = new long[elements.remaining()];
    elements.get(values);
    return values;
  }

  public short[] toShortArray() {
    ShortBuffer elements = shortBuffer();
    short[] values = new short[elements.remaining()];
    elements.get(values);
    return values;
  }

  /** The elements' bytes (any type), in native order. */
  public byte[] toByteArray() {
    ByteBuffer bytes = buffer();
    byte[] values = new byte[bytes.remaining()];
    bytes.get(values);
    return values;
  }

  private ByteBuffer typed(AclDataType... types) {
    for (AclDataType type : types) {
      if (type == dataType) {
        return buffer();
      }
    }
    throw invalid("the tensor holds " + this + ", not " + name(types[0]) + " elements");
  }

  // The elements' bytes: a direct buffer of capacity byteSize (what a DataBuffer describes).
  ByteBuffer memory() {
    if (data == null) {
      throw invalid("the tensor is closed");
    }
    ByteBuffer all = data.duplicate();
    ((Buffer) all).clear().limit(byteSize);
    return all.slice().order(ByteOrder.nativeOrder());
  }

  boolean isClosed() {
    return data == null;
  }

  long[] dimsView() {
    return shape;
  }

  // Sets the dims of a Binding's output whose size varies; in place when the rank is the same.
  void reshape(com.acldump.swig.AclmdlIODims dims) {
    int rank = Math.toIntExact(dims.getDimCount());
    if (rank != shape.length) {
      shape = new long[rank];
    }
    for (int d = 0; d < rank; ++d) {
      shape[d] = dims.getDim(d);
    }
    long bytes = count(shape) * elementSize(dataType);
    if (bytes > data.capacity()) {
      throw new AclException(AclNativeConstants.ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, "dims "
          + dims(shape) + " need " + bytes + " bytes, more than the output's room of "
          + data.capacity());
    }
    byteSize = (int) bytes;
  }

  /** "float32[1,10]". */
  @Override
  public String toString() {
    return name(dataType) + dims(shape);
  }

  /**
   * Lets the memory go; the tensor is unusable after it. A {@link Binding}'s tensors are its own
   * and close with it: on them this does nothing.
   */
  @Override
  public void close() {
    if (owner == null) {
      data = null;
    }
  }

  // A Binding closing: its tensors' memory is gone.
  void release() {
    data = null;
  }
}
