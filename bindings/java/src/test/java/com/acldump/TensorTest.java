package com.acldump;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.acldump.swig.AclDataType;
import com.acldump.swig.AclNative;
import com.acldump.swig.AclNativeConstants;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.After;
import org.junit.Test;
import org.junit.function.ThrowingRunnable;

/** Typed tensors, runs by name and Bindings; the working directory is the runfiles root. */
public class TensorTest {
  private static final String MODEL = "testdata/resnet_tiny.om";
  private static final String POSTPROCESS = "testdata/postprocess_tiny.om";

  @After
  public void finalizeIfLeftOpen() {
    try {
      AclNative.aclFinalize();
    } catch (AclException e) {
      assertEquals(AclNativeConstants.ACL_ERROR_REPEAT_FINALIZE, e.getCode());
    }
  }

  static float[] readNpyFloats(String path) throws IOException {
    ByteBuffer npy = ByteBuffer.wrap(Files.readAllBytes(Path.of(path)))
        .order(ByteOrder.LITTLE_ENDIAN);
    int headerLength = npy.getShort(8) & 0xffff; // format version 1.0
    String header = new String(npy.array(), 10, headerLength, StandardCharsets.US_ASCII);
    assertTrue(header, header.contains("'descr': '<f4'") && header.contains("False"));
    npy.position(10 + headerLength);
    float[] values = new float[npy.remaining() / 4];
    npy.asFloatBuffer().get(values);
    return values;
  }

  /** Asserts that {@code run} throws an AclException of {@code code} whose message has text. */
  static AclException assertAclError(int code, String text, ThrowingRunnable run) {
    AclException e = assertThrows(AclException.class, run);
    assertEquals(e.getMessage(), code, e.getCode());
    assertTrue(e.getMessage(), e.getAclMessage().contains(text));
    return e;
  }

  private static final int INVALID_PARAM = AclNativeConstants.ACL_ERROR_INVALID_PARAM;
  private static final int INPUT_NOT_MATCH = AclNativeConstants.ACL_ERROR_MODEL_INPUT_NOT_MATCH;

  @Test
  public void tensorsCheckTheirDataAgainstTheShape() {
    try (Tensor x = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3)) {
      assertEquals(AclDataType.ACL_FLOAT, x.dataType());
      assertArrayEquals(new long[] {2, 3}, x.shape());
      assertEquals(6, x.elementCount());
      assertEquals(24, x.byteSize());
      assertEquals("float32[2,3]", x.toString());
      assertTrue(x.buffer().isDirect());
      assertEquals(ByteOrder.nativeOrder(), x.buffer().order());
      assertEquals(6f, x.floatBuffer().get(5), 0f);
      x.shape()[0] = 9; // a copy
      assertArrayEquals(new long[] {2, 3}, x.shape());
      assertAclError(INVALID_PARAM, "holds float32[2,3], not int32", x::intBuffer);
    }
    assertAclError(INVALID_PARAM, "shape [2,3] has 6 elements, the data 5",
        () -> Tensor.of(new float[5], 2, 3));
    assertAclError(INVALID_PARAM, "shape [-1,3] has a negative dimension",
        () -> Tensor.of(new int[3], -1, 3));
    assertAclError(INVALID_PARAM, "data is null", () -> Tensor.of((float[]) null, 1));
    assertAclError(INVALID_PARAM, "shape is null", () -> Tensor.of(new long[1], (long[]) null));
    assertEquals(AclDataType.ACL_INT64, Tensor.of(new long[] {7}).dataType()); // a scalar
    assertEquals(AclDataType.ACL_INT8, Tensor.of(new byte[] {1, 2}, 2).dataType());
    assertEquals(AclDataType.ACL_INT16, Tensor.of(new short[] {1, 2}, 2).dataType());
    assertEquals(AclDataType.ACL_DOUBLE, Tensor.of(new double[] {1}, 1).dataType());
    assertArrayEquals(new int[] {4, 5},
        Tensor.of(java.nio.IntBuffer.wrap(new int[] {3, 4, 5}, 1, 2), 2).toIntArray());
    assertAclError(INVALID_PARAM, "one-byte elements, not float32",
        () -> Tensor.of(AclDataType.ACL_FLOAT, new byte[4], 1));

    // A FloatBuffer of any order holds values: they are copied as values.
    FloatBuffer bigEndian = ByteBuffer.allocate(8).asFloatBuffer().put(new float[] {1.5f, -2f});
    bigEndian.flip();
    try (Tensor values = Tensor.of(bigEndian, 2)) {
      assertArrayEquals(new float[] {1.5f, -2f}, values.toFloatArray(), 0f);
      assertEquals(0, bigEndian.position()); // the caller's buffer is untouched
    }
    // A ByteBuffer holds bytes: of another order they are refused for multi-byte elements.
    ByteBuffer wrongOrder = ByteBuffer.allocate(8);
    wrongOrder.asFloatBuffer().put(new float[] {1.5f, -2f});
    assertAclError(INVALID_PARAM, "data is a BIG_ENDIAN ByteBuffer",
        () -> Tensor.of(AclDataType.ACL_FLOAT, wrongOrder, 2));
    ByteBuffer native_ = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
    native_.asFloatBuffer().put(new float[] {1.5f, -2f});
    assertArrayEquals(new float[] {1.5f, -2f},
        Tensor.of(AclDataType.ACL_FLOAT, native_, 2).toFloatArray(), 0f);
    try (Tensor bytes = Tensor.of(AclDataType.ACL_UINT8, ByteBuffer.wrap(new byte[] {9, 8}), 2);
        Tensor half = Tensor.allocate(AclDataType.ACL_FLOAT16, 1, 3)) {
      assertArrayEquals(new byte[] {9, 8}, bytes.toByteArray());
      assertEquals("float16[1,3]", half.toString());
      assertEquals(3, half.shortBuffer().remaining());
    }
    Tensor closed = Tensor.of(new float[1], 1);
    closed.close();
    assertAclError(INVALID_PARAM, "the tensor is closed", closed::floatBuffer);
  }

  @Test
  public void runsTypedTensorsByName() throws Exception {
    float[] pixels = readNpyFloats("testdata/resnet_tiny.input.input.npy");
    try (Acl acl = Acl.init();
        Model model = Model.load(MODEL);
        Tensor image = Tensor.of(pixels, 1, 3, 32, 32)) {
      Map<String, Tensor> outputs = model.run(Map.of("input", image));
      assertEquals(List.of("fc", "prob"), List.copyOf(outputs.keySet()));
      Tensor prob = outputs.get("prob");
      assertEquals(AclDataType.ACL_FLOAT, prob.dataType());
      assertArrayEquals(new long[] {1, 10}, prob.shape());
      assertArrayEquals(readNpyFloats("testdata/resnet_tiny.output.prob.npy"),
          prob.toFloatArray(), 1e-5f);
      assertArrayEquals(readNpyFloats("testdata/resnet_tiny.output.fc.npy"),
          outputs.get("fc").toFloatArray(), 1e-5f);
      assertArrayEquals(prob.toFloatArray(),
          model.runTagged("req-1", Map.of("input", image)).get("prob").toFloatArray(), 0f);
      // The positional run agrees.
      ByteBuffer raw = model.run(image.buffer())[1];
      assertEquals(prob.buffer(), raw);

      assertAclError(INPUT_NOT_MATCH,
          "input 0 ('input', float32[1,3,32,32]) was given float32[1,3,1024]",
          () -> model.run(Map.of("input", Tensor.of(pixels, 1, 3, 1024))));
      assertAclError(INVALID_PARAM, "inputs is null", () -> model.run((Map<String, Tensor>) null));
      Map<String, Tensor> nullName = new HashMap<>();
      nullName.put(null, image);
      assertAclError(INVALID_PARAM, "an input name is null", () -> model.run(nullName));
      // Unknown names are reported before anything else, the first in order.
      Map<String, Tensor> unknown = new HashMap<>(Map.of("zz", image, "b", image));
      unknown.put("input", null);
      assertAclError(INVALID_PARAM, "the model has no input named 'b' (it has 'input')",
          () -> model.run(unknown));
      Tensor closed = Tensor.of(pixels, 1, 3, 32, 32);
      closed.close();
      assertAclError(INVALID_PARAM, "was given a closed tensor",
          () -> model.run(Map.of("input", closed)));
    }
  }

  /**
   * The positional run reads bytes in native order: a ByteBuffer of the default order filled
   * through asFloatBuffer() would compute garbage, and is refused.
   */
  @Test
  public void positionalRunRefusesBuffersOfTheWrongByteOrder() throws Exception {
    float[] pixels = readNpyFloats("testdata/resnet_tiny.input.input.npy");
    try (Acl acl = Acl.init();
        Model model = Model.load(MODEL)) {
      ByteBuffer bigEndian = ByteBuffer.allocate(pixels.length * 4);
      bigEndian.asFloatBuffer().put(pixels);
      AclException refused = assertAclError(INVALID_PARAM,
          "inputs[0] is a BIG_ENDIAN ByteBuffer, but acldump reads LITTLE_ENDIAN (native order) "
              + "data of float32",
          () -> model.run(bigEndian));
      assertTrue(refused.getAclMessage().contains(".order(ByteOrder.nativeOrder())"));
      ByteBuffer directBigEndian = ByteBuffer.allocateDirect(pixels.length * 4);
      assertAclError(INVALID_PARAM, "BIG_ENDIAN", () -> model.run(directBigEndian));

      // Heap and direct buffers in native order both run, to the same result.
      ByteBuffer heap = ByteBuffer.allocate(pixels.length * 4).order(ByteOrder.nativeOrder());
      heap.asFloatBuffer().put(pixels);
      ByteBuffer direct =
          ByteBuffer.allocateDirect(pixels.length * 4).order(ByteOrder.nativeOrder());
      direct.asFloatBuffer().put(pixels);
      ByteBuffer prob = model.run(heap)[1];
      assertEquals(prob, model.run(direct)[1]);
      float[] expected = readNpyFloats("testdata/resnet_tiny.output.prob.npy");
      for (int i = 0; i < expected.length; ++i) {
        assertEquals(expected[i], prob.getFloat(4 * i), 1e-5f);
      }
    }
  }

  @Test
  public void runByNameShapesOutputsWhoseSizeVaries() throws Exception {
    try (Acl acl = Acl.init();
        Model model = Model.load(POSTPROCESS)) {
      Map<String, Tensor> outputs = model.run(Map.of(
          model.inputs().get(0).name(),
          Tensor.of(readNpyFloats("testdata/postprocess_tiny.input.scores.npy"), 1, 1, 6),
          model.inputs().get(1).name(),
          Tensor.of(readNpyFloats("testdata/postprocess_tiny.input.boxes.npy"), 1, 6, 4)));
      Tensor boxes = outputs.get("boxes_out");
      assertArrayEquals(new long[] {4, 4}, boxes.shape());
      assertArrayEquals(readNpyFloats("testdata/postprocess_tiny.output.boxes_out.npy"),
          boxes.toFloatArray(), 1e-5f);
    }
  }

  private static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getCurrentThreadAllocatedBytes();
  }

  @Test
  public void bindingRunsInPlaceWithoutAllocating() throws Exception {
    float[] expected = readNpyFloats("testdata/resnet_tiny.output.prob.npy");
    try (Acl acl = Acl.init();
        Model model = Model.load(MODEL);
        Binding binding = model.bind()) {
      Tensor input = binding.input("input");
      Tensor prob = binding.output("prob");
      assertArrayEquals(new long[] {1, 3, 32, 32}, input.shape());
      assertArrayEquals(new long[] {1, 10}, prob.shape());
      assertEquals(List.of("fc", "prob"), List.copyOf(binding.outputs().keySet()));
      FloatBuffer image = input.floatBuffer();
      FloatBuffer result = prob.floatBuffer(); // a view: it sees every run's result
      image.put(readNpyFloats("testdata/resnet_tiny.input.input.npy"));
      long inputAddress = AclNative.bufferAddress(input.buffer());
      long probAddress = AclNative.bufferAddress(prob.buffer());
      binding.run();
      for (int i = 0; i < expected.length; ++i) {
        assertEquals(expected[i], result.get(i), 1e-5f);
      }
      // Bound tensors run by name too, to the same result.
      assertArrayEquals(expected, model.run(Map.of("input", input)).get("prob").toFloatArray(),
          1e-5f);

      for (int i = 0; i < 2000; ++i) { // warm-up: compiled code allocates less
        binding.run();
      }
      int runs = 2000;
      long before = allocatedBytes();
      for (int i = 0; i < runs; ++i) {
        binding.run();
      }
      long allocated = allocatedBytes() - before;
      assertTrue(allocated + " bytes allocated by " + runs + " runs", allocated < 16 * 1024);
      // The same tensors and memory, holding the last run's result.
      assertSame(input, binding.input("input"));
      assertSame(prob, binding.output("prob"));
      assertEquals(inputAddress, AclNative.bufferAddress(input.buffer()));
      assertEquals(probAddress, AclNative.bufferAddress(prob.buffer()));
      for (int i = 0; i < expected.length; ++i) {
        assertEquals(expected[i], result.get(i), 1e-5f);
      }
      // A run by name allocates its outputs: its tensors are new ones.
      long beforeNamed = allocatedBytes();
      Tensor named = model.run(Map.of("input", input)).get("prob");
      assertTrue(allocatedBytes() - beforeNamed > 0);
      assertNotSame(prob, named);

      assertAclError(INVALID_PARAM, "the model has no output named 'logits' (it has 'fc', 'prob')",
          () -> binding.output("logits"));
      prob.close(); // the Binding's: nothing happens
      prob.floatBuffer();
      binding.close();
      binding.close();
      assertAclError(INVALID_PARAM, "the Binding is closed", binding::run);
      assertAclError(INVALID_PARAM, "the tensor is closed", prob::floatBuffer);
      assertAclError(INVALID_PARAM, "the Binding is closed", () -> binding.input("input"));

      Binding other = model.bind();
      model.close();
      assertAclError(AclNativeConstants.ACL_ERROR_INVALID_MODEL_ID, "is not loaded", other::run);
      assertAclError(AclNativeConstants.ACL_ERROR_INVALID_MODEL_ID, "is not loaded", model::bind);
      other.close();
    }
  }

  @Test
  public void bindingReshapesOutputsWhoseSizeVaries() throws Exception {
    try (Acl acl = Acl.init();
        Model model = Model.load(POSTPROCESS);
        Binding binding = model.bind()) {
      binding.input(model.inputs().get(0).name()).floatBuffer()
          .put(readNpyFloats("testdata/postprocess_tiny.input.scores.npy"));
      binding.input(model.inputs().get(1).name()).floatBuffer()
          .put(readNpyFloats("testdata/postprocess_tiny.input.boxes.npy"));
      Tensor boxes = binding.output("boxes_out");
      assertEquals(0, boxes.elementCount());
      binding.run();
      assertArrayEquals(new long[] {4, 4}, boxes.shape());
      assertArrayEquals(readNpyFloats("testdata/postprocess_tiny.output.boxes_out.npy"),
          boxes.toFloatArray(), 1e-5f);
      binding.run();
      assertArrayEquals(new long[] {4, 4}, boxes.shape());
    }
  }

  @Test
  public void typedExampleRuns() throws Exception {
    java.io.PrintStream original = System.out;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setOut(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      example.TypedExample.main(new String[0]);
    } finally {
      System.setOut(original);
    }
    String output = captured.toString(StandardCharsets.UTF_8);
    assertTrue(output, output.startsWith("float32[1,10] prob[0] = "));
    assertTrue(output, output.contains("\nbound prob[0] = "));
  }
}
