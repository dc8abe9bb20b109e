package com.acldump;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.acldump.swig.AclDataType;
import com.acldump.swig.AclNative;
import com.acldump.swig.AclmdlDataset;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * Each misuse of testdata/misuse_cases.json fails with the table's code and message, as in the
 * other languages (Go: TestMisuseTable). The table's "_schema" says what each field means.
 */
@RunWith(Parameterized.class)
public class MisuseTest {
  private static final String TABLE = "testdata/misuse_cases.json";

  @Parameters(name = "{0}")
  public static Collection<Object[]> cases() throws Exception {
    Map<String, Object> table = map(Json.parse(Files.readString(Path.of(TABLE))));
    assertFalse(list(table.get("_schema")).isEmpty());
    List<Object[]> cases = new ArrayList<>();
    for (Object c : list(table.get("cases"))) {
      Map<String, Object> fields = map(c);
      cases.add(new Object[] {fields.get("name"), table.get("model"), fields});
    }
    assertTrue(cases.size() >= 5);
    return cases;
  }

  private final String model;
  private final Map<String, Object> fields;

  public MisuseTest(String name, String model, Map<String, Object> fields) {
    this.model = model;
    this.fields = fields;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object value) {
    return (List<Object>) value;
  }

  private static final Map<String, AclDataType> TYPES = Map.of(
      "float32", AclDataType.ACL_FLOAT, "int32", AclDataType.ACL_INT32,
      "int64", AclDataType.ACL_INT64, "uint8", AclDataType.ACL_UINT8);

  /** The table's {"dtype", "shape"}: a tensor of zeros. */
  private static Tensor zeroTensor(Map<String, Object> spec) {
    AclDataType type = TYPES.get((String) spec.get("dtype"));
    assertTrue("the runner has no tensors of " + spec.get("dtype"), type != null);
    List<Object> dims = list(spec.get("shape"));
    long[] shape = new long[dims.size()];
    for (int i = 0; i < shape.length; ++i) {
      shape[i] = (Long) dims.get(i);
    }
    return Tensor.allocate(type, shape);
  }

  // Does the case's action on loaded.
  private void act(Model loaded) {
    Map<String, Object> args = map(fields.get("args"));
    String action = (String) fields.get("action");
    switch (action) {
      case "run_positional": {
        List<Object> specs = list(args.get("inputs"));
        ByteBuffer[] inputs = new ByteBuffer[specs.size()];
        for (int i = 0; i < inputs.length; ++i) {
          int bytes = Math.toIntExact((Long) map(specs.get(i)).get("bytes"));
          inputs[i] = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
        }
        loaded.run(inputs);
        return;
      }
      case "run_named": {
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        for (Map.Entry<String, Object> input : map(args.get("inputs")).entrySet()) {
          inputs.put(input.getKey(),
              input.getValue() == null ? null : zeroTensor(map(input.getValue())));
        }
        loaded.run(inputs);
        return;
      }
      case "execute_model_id": {
        AclmdlDataset dataset = AclNative.aclmdlCreateDataset();
        try {
          AclNative.aclmdlExecute((Long) args.get("model_id"), dataset, dataset);
        } finally {
          dataset.delete();
        }
        return;
      }
      default:
        throw new AssertionError("unknown action " + action);
    }
  }

  @Test
  public void failsWithTheTablesCodeAndMessage() throws Exception {
    Map<String, Object> expect = map(fields.get("expect"));
    try (Acl acl = Acl.init();
        Model loaded = Model.load(model)) {
      Object before = fields.get("before");
      if ("close_model".equals(before)) {
        loaded.close();
      } else {
        assertEquals("unknown before", null, before);
      }
      AclException e = assertThrows(AclException.class, () -> act(loaded));
      assertEquals(e.getMessage() + " (" + expect.get("code_name") + ")",
          ((Long) expect.get("code")).intValue(), e.getCode());
      assertTrue(e.getMessage() + " lacks " + expect.get("message"),
          e.getAclMessage().contains((String) expect.get("message")));
    }
  }
}
