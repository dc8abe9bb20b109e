package com.acldump;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.acldump.swig.AclDataType;
import com.acldump.swig.AclNative;
import com.acldump.swig.AclNativeConstants;
import com.acldump.swig.AclTensorDesc;
import com.acldump.swig.AclmdlDesc;
import com.acldump.swig.AclmdlIODims;
import com.acldump.swig.AclopAttr;
import com.acldump.swig.AclFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** End-to-end tests of the Java bindings; the working directory is the runfiles root. */
public class AclTest {
  private static final String MODEL = "testdata/resnet_tiny.om";
  private static final int DT_FLOAT = 1; // toolkit.dumpdata.OutputDataType

  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @After
  public void finalizeIfLeftOpen() {
    try {
      AclNative.aclFinalize(); // lets the next test init again if this one failed
    } catch (AclException e) {
      assertEquals(AclNativeConstants.ACL_ERROR_REPEAT_FINALIZE, e.getCode());
    }
  }

  private Path writeConfig(Path dumpPath) throws IOException {
    Path config = tmp.getRoot().toPath().resolve("acl.json");
    Files.writeString(config, "{\"dump\": {\"dump_path\": \"" + dumpPath
        + "\", \"dump_list\": [{\"model_name\": \"resnet_tiny\"}]}}");
    return config;
  }

  /** {iteration: sorted file names} of the one resnet_tiny dump under dumpPath. */
  private static Map<String, List<String>> iterations(Path dumpPath) throws IOException {
    Map<String, List<String>> found = new TreeMap<>();
    try (java.util.stream.Stream<Path> files = Files.walk(dumpPath)) {
      for (Path file : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
        Path relative = dumpPath.relativize(file); // time/device/model/id/iteration/file
        assertEquals(file.toString(), 6, relative.getNameCount());
        assertEquals("resnet_tiny", relative.getName(2).toString());
        found.computeIfAbsent(relative.getName(4).toString(), k -> new java.util.ArrayList<>())
            .add(relative.getName(5).toString());
      }
    }
    found.values().forEach(java.util.Collections::sort);
    return found;
  }

  private static float[] readNpyFloats(String path) throws IOException {
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

  private static ByteBuffer floats(float[] values) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(values.length * 4).order(ByteOrder.nativeOrder());
    buffer.asFloatBuffer().put(values);
    return buffer;
  }

  private static void runResnetTwice(Path config) throws Exception {
    try (DumpSession dump = DumpSession.start(config.toString());
        Model model = Model.load(MODEL);
        DataBuffer image = DataBuffer.wrap(floats(readNpyFloats(
            "testdata/resnet_tiny.input.input.npy")));
        DataBuffer fc = DataBuffer.allocate(40);
        DataBuffer prob = DataBuffer.allocate(40);
        Dataset in = Dataset.of(image);
        Dataset out = Dataset.of(fc, prob)) {
      for (int i = 0; i < 2; ++i) {
        model.execute(in, out);
      }
    }
  }

  @Test
  public void dumpsToACallback() throws Exception {
    Path dumpPath = tmp.newFolder("callback").toPath();
    Map<String, ByteArrayOutputStream> files = new TreeMap<>();
    Map<String, Boolean> ended = new TreeMap<>();
    List<String> problems = new java.util.ArrayList<>();
    Acl.registerDumpCallback((fileName, offset, data, last) -> {
      synchronized (files) {
        ByteArrayOutputStream file =
            files.computeIfAbsent(fileName, k -> new ByteArrayOutputStream());
        if (offset != file.size()) problems.add(fileName + " at " + offset);
        file.write(data, 0, data.length);
        ended.put(fileName, last);
      }
      return 0;
    });
    try (Acl acl = Acl.init()) {
      assertEquals(null, Acl.dumpPath(com.acldump.swig.AcldumpType.DATA_DUMP));
      assertThrows(AclException.class, Acl::exceptionInfoPath);
      runResnetTwice(writeConfig(dumpPath));
      try (java.util.stream.Stream<Path> written = Files.walk(dumpPath)) {
        assertEquals(0, written.filter(Files::isRegularFile).count());
      }
      assertEquals(List.of(), problems);
      assertTrue(files.size() >= 28);
      int softmax = 0;
      for (Map.Entry<String, ByteArrayOutputStream> file : files.entrySet()) {
        assertTrue(file.getKey(), file.getKey().startsWith(dumpPath + "/"));
        assertTrue(file.getKey(), ended.get(file.getKey()));
        Path path = Path.of(file.getKey());
        if (!path.getFileName().toString().startsWith("Softmax.prob.")) continue;
        ++softmax;
        Files.write(path, file.getValue().toByteArray());
        DumpFile dumped = DumpFile.read(path);
        assertEquals("prob", dumped.opName);
        assertEquals(List.of(1L, 10L), dumped.outputs.get(0).shape);
      }
      assertEquals(2, softmax);

      // A refusing callback: closing the dump reports the files.
      Acl.unregisterDumpCallback();
      Acl.registerDumpCallback((fileName, offset, data, last) -> 7);
      AclException refused = assertThrows(AclException.class,
          () -> runResnetTwice(writeConfig(tmp.newFolder("refused").toPath())));
      assertEquals(AclNativeConstants.ACL_ERROR_WRITE_FILE, refused.getCode());
      assertTrue(refused.getMessage(), refused.getMessage().contains("the callback returned 7"));
    } finally {
      Acl.unregisterDumpCallback();
    }
  }

  @Test
  public void savesExceptionInfo() throws Exception {
    Path root = tmp.newFolder("exception").toPath();
    Path config = tmp.getRoot().toPath().resolve("exception.json");
    Files.writeString(config, "{\"dump\": {\"dump_path\": \"" + root
        + "\", \"dump_scene\": \"aic_err_brief_dump\"}}");
    try (Acl acl = Acl.init(); DumpSession dump = DumpSession.start(config.toString())) {
      String path = Acl.exceptionInfoPath();
      assertEquals(root.resolve("extra-info/data-dump/0").toString(), path);
      byte[] bytes = new byte[24];
      Acl.saveExceptionInfo("mine", "tag", List.of(new Acl.ExceptionTensor(
          Acl.ExceptionTensor.INPUT, bytes, 2, 0, new long[] {2, 3}, null)));
      AclException bad = assertThrows(AclException.class,
          () -> Acl.saveExceptionInfo("a/../b", "", List.of(new Acl.ExceptionTensor(
              Acl.ExceptionTensor.INPUT, bytes, 2, 0, new long[] {6}, null))));
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_PARAM, bad.getCode());
      Path saved;
      try (java.util.stream.Stream<Path> files = Files.list(Path.of(path))) {
        saved = files.filter(f -> f.getFileName().toString().startsWith("mine.custom."))
            .findFirst().orElseThrow();
      }
      DumpFile file = DumpFile.read(saved);
      assertEquals("mine", file.opName);
      assertEquals(1, file.inputs.size());
      assertEquals(List.of(2L, 3L), file.inputs.get(0).shape);
    }
  }

  @Test
  public void dimsGearsAreSelectedWithAnIODimsBuiltBySetDim() throws Exception {
    // ocr_tiny with dims gears (batch, height, width): [1,16,16] and [2,32,24].
    try (Acl acl = Acl.init();
        Model model = Model.load("testdata/ocr_tiny_dims.om")) {
      AclmdlDesc desc = AclNative.aclmdlCreateDesc();
      try {
        AclNative.aclmdlGetDesc(desc, model.id());
        long[] count = new long[1];
        AclNative.aclmdlGetInputDynamicGearCount(desc, -1, count);
        assertEquals(2, count[0]);
        int gearInput = model.inputIndex(AclNativeConstants.ACL_DYNAMIC_TENSOR_NAME);
        assertEquals(1, gearInput);
        try (DataBuffer image = DataBuffer.allocate(
                Math.toIntExact(model.inputs().get(0).size()));
            DataBuffer gear = DataBuffer.allocate(24);
            DataBuffer prob = DataBuffer.allocate(Math.toIntExact(model.outputs().get(0).size()));
            Dataset in = Dataset.of(image, gear);
            Dataset out = Dataset.of(prob)) {
          AclmdlIODims dims = new AclmdlIODims();
          long[] values = {2, 3, 32, 24};
          for (int i = 0; i < values.length; ++i) {
            dims.setDim(i, values[i]);
          }
          assertEquals(4, dims.getDimCount());
          AclNative.aclmdlSetInputDynamicDims(model.id(), in.handle(), gearInput, dims);
          ByteBuffer written = gear.data();
          assertEquals(2, written.getLong(0));
          assertEquals(32, written.getLong(8));
          assertEquals(24, written.getLong(16));
          model.execute(in, out);
          AclmdlIODims current = new AclmdlIODims();
          AclNative.aclmdlGetCurOutputDims(desc, 0, current);
          assertEquals(48, current.getDim(2));
          // A fixed dimension given another value: the SDK's code, and the reason.
          dims.setDim(1, 4);
          AclException wrong = assertThrows(AclException.class,
              () -> AclNative.aclmdlSetInputDynamicDims(model.id(), in.handle(), gearInput, dims));
          assertEquals(AclNativeConstants.ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, wrong.getCode());
          assertTrue(wrong.getMessage(), wrong.getMessage().contains("is fixed at 3"));
        }
      } finally {
        desc.delete();
      }
    }
  }

  @Test
  public void dumpsTwoIterations() throws Exception {
    Path dumpPath = tmp.newFolder("out").toPath();
    Path config = writeConfig(dumpPath);
    float[] expected = readNpyFloats("testdata/resnet_tiny.output.prob.npy");

    Acl acl = Acl.init();
    DumpSession dump = DumpSession.start(config.toString());
    Model model = Model.load(MODEL);
    assertEquals("input", model.inputs().get(0).name());
    assertArrayEquals(new long[] {1, 3, 32, 32}, model.inputs().get(0).dims());
    assertEquals(AclDataType.ACL_FLOAT, model.inputs().get(0).dataType());
    assertEquals("prob", model.outputs().get(1).name());
    assertEquals(40, model.outputs().get(1).size());
    ByteBuffer prob = null;
    try (DataBuffer image = DataBuffer.wrap(floats(readNpyFloats(
            "testdata/resnet_tiny.input.input.npy")));
        DataBuffer fc = DataBuffer.allocate(40);
        DataBuffer probBuffer = DataBuffer.allocate(40);
        Dataset in = Dataset.of(image);
        Dataset out = Dataset.of(fc, probBuffer)) {
      assertEquals(2, out.size());
      for (int i = 0; i < 2; ++i) {
        model.execute(in, out);
      }
      prob = probBuffer.data();
    }
    for (int i = 0; i < expected.length; ++i) {
      assertEquals(expected[i], prob.getFloat(4 * i), 1e-5f);
    }
    dump.close(); // finalize dump, then unload, then finalize
    model.close();
    acl.close();

    Map<String, List<String>> iterations = iterations(dumpPath);
    assertEquals(List.of("0", "1"), List.copyOf(iterations.keySet()));
    assertEquals(iterations.get("0").size(), iterations.get("1").size());
    assertTrue(iterations.get("0").size() >= 14);
    for (List<String> files : iterations.values()) {
      assertEquals(1, files.stream().filter(f -> f.startsWith("Softmax.prob.")).count());
    }
    Path softmax;
    try (java.util.stream.Stream<Path> files = Files.walk(dumpPath)) {
      softmax = files.filter(f -> f.getFileName().toString().startsWith("Softmax.prob."))
          .findFirst().orElseThrow();
    }
    DumpFile file = DumpFile.read(softmax);
    assertEquals("prob", file.opName);
    assertEquals(1, file.outputs.size());
    assertEquals(List.of(1L, 10L), file.outputs.get(0).shape);
    assertEquals(DT_FLOAT, file.outputs.get(0).dataType);
    assertEquals(40, file.outputs.get(0).size);
  }

  @Test
  public void setDumpErrorsCarryCodeAndMessage() throws Exception {
    try (Acl acl = Acl.init()) {
      AclException notRun =
          assertThrows(AclException.class, () -> AclNative.aclmdlSetDump("any.json"));
      assertEquals(AclNativeConstants.ACL_ERROR_DUMP_NOT_RUN, notRun.getCode());
      assertFalse(notRun.getAclMessage().isEmpty());

      String missing = tmp.getRoot().toPath().resolve("no_such.json").toString();
      AclException invalid =
          assertThrows(AclException.class, () -> DumpSession.start(missing));
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_FILE, invalid.getCode());
      assertTrue(invalid.getAclMessage(), invalid.getAclMessage().contains("no_such.json"));

      AclException noModel =
          assertThrows(AclException.class, () -> Model.load("no/such/model.om"));
      assertEquals(AclNativeConstants.ACL_ERROR_READ_MODEL_FAILURE, noModel.getCode());
    }
    AclException uninitialised = assertThrows(AclException.class, () -> Model.load(MODEL));
    assertEquals(AclNativeConstants.ACL_ERROR_UNINITIALIZE, uninitialised.getCode());
  }

  @Test
  public void loadsFromMemoryAndRuns() throws Exception {
    try (Acl acl = Acl.init();
        Model model = Model.load(Files.readAllBytes(Path.of(MODEL)))) {
      assertEquals("1.0.0", Acl.version());
      ByteBuffer image = floats(readNpyFloats("testdata/resnet_tiny.input.input.npy"));
      ByteBuffer[] outputs = model.run(image);
      assertEquals(2, outputs.length);
      float[] expected = readNpyFloats("testdata/resnet_tiny.output.prob.npy");
      assertEquals(expected[3], outputs[1].getFloat(12), 1e-5f);
      AclException wrongSize = assertThrows(AclException.class,
          () -> model.run(ByteBuffer.allocate(12).order(ByteOrder.nativeOrder())));
      assertEquals(AclNativeConstants.ACL_ERROR_MODEL_INPUT_NOT_MATCH, wrongSize.getCode());
      // No inputs and an empty one: the C library's code, as Go gives for no slices and an empty
      // (or nil) one, naming the input.
      for (ByteBuffer[] inputs : new ByteBuffer[][] {{}, {ByteBuffer.allocate(0)}}) {
        AclException missing = assertThrows(AclException.class, () -> model.run(inputs));
        assertEquals(AclNativeConstants.ACL_ERROR_MODEL_INPUT_NOT_MATCH, missing.getCode());
      }
      // A null array or element is no buffer: a bad argument, named, not a NullPointerException.
      AclException nullArray =
          assertThrows(AclException.class, () -> model.run((ByteBuffer[]) null));
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_PARAM, nullArray.getCode());
      assertTrue(nullArray.getMessage(), nullArray.getAclMessage().startsWith("inputs is null"));
      AclException nullInput =
          assertThrows(AclException.class, () -> model.run(image, null));
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_PARAM, nullInput.getCode());
      assertTrue(nullInput.getMessage(), nullInput.getAclMessage().startsWith("inputs[1] is null"));
      // Handle getters report failures too (no code in C: ACL_ERROR_FAILURE).
      AclException badIndex = assertThrows(AclException.class, () -> {
        com.acldump.swig.AclmdlDesc desc = AclNative.aclmdlCreateDesc();
        AclNative.aclmdlGetDesc(desc, model.id());
        AclNative.aclmdlGetInputNameByIndex(desc, 7);
      });
      assertEquals(AclNativeConstants.ACL_ERROR_FAILURE, badIndex.getCode());
      assertTrue(badIndex.getAclMessage().contains("out of range"));
    }
  }

  @Test
  public void outputsWhoseSizeVariesComeBackAtTheirComputedSize() throws Exception {
    try (Acl acl = Acl.init();
        Model model = Model.load("testdata/postprocess_tiny.om")) {
      assertArrayEquals(new long[] {-1, 4}, model.outputs().get(0).dims());
      assertEquals(0, model.outputs().get(0).size());
      ByteBuffer[] outputs = model.run(
          floats(readNpyFloats("testdata/postprocess_tiny.input.scores.npy")),
          floats(readNpyFloats("testdata/postprocess_tiny.input.boxes.npy")));
      float[] expected = readNpyFloats("testdata/postprocess_tiny.output.boxes_out.npy");
      assertEquals(expected.length * 4, outputs[0].remaining());
      for (int k = 0; k < expected.length; ++k) {
        assertEquals(expected[k], outputs[0].getFloat(4 * k), 0f);
      }
      assertArrayEquals(new long[] {4, 4}, model.currentOutputDims(0));
    }
  }

  @Test
  public void armsDumpOnALoadedModelForARequestTag() throws Exception {
    Path dir = tmp.newFolder("armed").toPath();
    Path out = Files.createDirectory(dir.resolve("out"));
    Path config = dir.resolve("arm.json");
    Files.writeString(config, "{\"dump\":{\"dump_path\":\"" + out
        + "\",\"dump_mode\":\"output\",\"dump_list\":[{\"model_name\":\"resnet_tiny\"}]}}");
    try (Acl acl = Acl.init();
        Model model = Model.load(MODEL)) {
      AclException missing = assertThrows(AclException.class,
          () -> model.armDump(dir.resolve("missing.json").toString(), 1, "req-7"));
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_FILE, missing.getCode());
      model.armDump(config.toString(), 1, "req-7");
      assertEquals(new ArmedDumpCount(0, 1), model.armedDumpCount("req-7"));
      ByteBuffer image = floats(readNpyFloats("testdata/resnet_tiny.input.input.npy"));
      ByteBuffer[] untagged = model.run(image); // iteration 0
      model.runTagged("req-6", image); // 1
      ByteBuffer[] tagged = null;
      for (int i = 0; i < 2; ++i) { // 2 (dumped), 3 (the arm is used up)
        tagged = model.runTagged("req-7", image);
      }
      assertEquals(untagged.length, tagged.length);
      for (int i = 0; i < untagged.length; ++i) {
        assertEquals("output " + i, untagged[i], tagged[i]); // same bytes
      }
      float[] expected = readNpyFloats("testdata/resnet_tiny.output.prob.npy");
      assertEquals(expected[3], tagged[1].getFloat(12), 1e-5f);
      ArmedDumpCount count = model.armedDumpCount("req-7");
      assertEquals(1, count.dumped());
      assertEquals(0, count.remaining());
      assertFalse(count.unlimited());
      model.disarmDump("req-7");

      List<Path> requests;
      try (java.util.stream.Stream<Path> files = Files.walk(out)) {
        requests = files.filter(f -> f.getFileName().toString().equals("request.json"))
            .collect(Collectors.toList());
      }
      assertEquals(requests.toString(), 1, requests.size());
      assertEquals("2", requests.get(0).getParent().getFileName().toString());
      String request = Files.readString(requests.get(0));
      assertTrue(request, request.matches("(?s).*\"request_tag\"\\s*:\\s*\"req-7\".*"));
      assertTrue(request, request.matches("(?s).*\"iteration\"\\s*:\\s*2\\s*[,}].*"));

      AclException again = assertThrows(AclException.class, () -> model.disarmDump("req-7"));
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_PARAM, again.getCode());
      assertTrue(again.getAclMessage(),
          again.getAclMessage().contains("for tag 'req-7' does not exist"));
      AclException gone = assertThrows(AclException.class, () -> model.armedDumpCount("req-7"));
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_PARAM, gone.getCode());
    }
  }

  @Test
  public void disarmsTheUntaggedArmOrEveryArm() throws Exception {
    Path config = writeConfig(tmp.newFolder("untagged").toPath());
    try (Acl acl = Acl.init();
        Model model = Model.load(MODEL)) {
      model.armDump(config.toString(), 0, null);
      model.armDump(config.toString(), 3, "req-9");
      ArmedDumpCount untagged = model.armedDumpCount("");
      assertEquals(0, untagged.dumped());
      assertEquals(-1, untagged.remaining()); // UINT64_MAX
      assertTrue(untagged.unlimited());
      assertEquals(untagged, model.armedDumpCount(null));
      model.disarmDump(""); // the untagged arm only
      assertThrows(AclException.class, () -> model.armedDumpCount(""));
      assertEquals(new ArmedDumpCount(0, 3), model.armedDumpCount("req-9"));
      model.disarmDump(null); // every arm
      AclException none = assertThrows(AclException.class, () -> model.disarmDump(null));
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_PARAM, none.getCode());
      assertTrue(none.getAclMessage(), none.getAclMessage().contains("is not armed"));
    }
  }

  @Test
  public void recorderFlagsAreTheCOnes() {
    assertEquals(AclNativeConstants.ACL_RECORDER_OPERATOR_STATS, Model.RECORDER_OPERATOR_STATS);
    assertEquals(
        AclNativeConstants.ACL_RECORDER_TRIGGER_NON_FINITE, Model.RECORDER_TRIGGER_NON_FINITE);
    assertEquals(AclNativeConstants.ACL_RECORDER_TRIGGER_ERROR, Model.RECORDER_TRIGGER_ERROR);
    assertEquals(AclNativeConstants.ACL_RECORDER_TRIGGER_SIGNAL, Model.RECORDER_TRIGGER_SIGNAL);
    assertEquals(AclNativeConstants.ACL_RECORDER_DEFAULT, Model.RECORDER_DEFAULT);
  }

  // recorder.json's "trigger" or "replay" object (flat) holds key: value.
  private static boolean summaryHas(String summary, String object, String key, String value) {
    return summary.matches("(?s).*\"" + object + "\"\\s*:\\s*\\{[^{}]*\"" + key
        + "\"\\s*:\\s*" + value + "\\s*[,}].*");
  }

  @Test
  public void flightRecorderWritesAReportForANanAndOnACall() throws Exception {
    Path dir = tmp.newFolder("recorder").toPath();
    Path out = Files.createDirectory(dir.resolve("out"));
    Path config = dir.resolve("replay.json");
    Files.writeString(config, "{\"dump\":{\"dump_path\":\"" + out
        + "\",\"dump_mode\":\"output\",\"dump_list\":[{\"model_name\":\"resnet_tiny\"}]}}");
    try (Acl acl = Acl.init();
        Model model = Model.load(MODEL)) {
      model.startRecorder(config.toString(), 4, Model.RECORDER_DEFAULT);
      AclException twice = assertThrows(AclException.class,
          () -> model.startRecorder(config.toString(), 4, Model.RECORDER_DEFAULT));
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_PARAM, twice.getCode());
      assertTrue(twice.getAclMessage(), twice.getAclMessage().contains("already has a recorder"));
      AclException none = assertThrows(AclException.class, model::lastRecorderReport);
      assertTrue(none.getAclMessage(), none.getAclMessage().contains("has written no report yet"));

      float[] values = readNpyFloats("testdata/resnet_tiny.input.input.npy");
      ByteBuffer image = floats(values);
      model.run(image); // iteration 0
      model.run(image); // 1
      values[0] = Float.NaN;
      ByteBuffer[] outputs = model.run(floats(values)); // 2: a NaN output (the replay is 3)
      assertTrue(Float.isNaN(outputs[1].getFloat(0)));
      model.waitRecorder(60000);
      assertEquals(new RecorderCounts(3, 1, 1, 1, 0), model.recorderCounts());
      RecorderReport first = model.lastRecorderReport();
      assertTrue(first.toString(), first.isReproduced());
      assertEquals(2, first.getTriggerIteration());
      assertTrue(first.getDir(), Path.of(first.getDir()).startsWith(out));
      String summary = Files.readString(Path.of(first.getDir(), "recorder.json"));
      assertTrue(summary, summaryHas(summary, "trigger", "kind", "\"non_finite_output\""));
      assertTrue(summary, summaryHas(summary, "trigger", "iteration", "2"));
      assertTrue(summary, summaryHas(summary, "replay", "reproduced", "true"));

      model.run(image); // 4
      RecorderReport second = model.triggerRecorder("because");
      assertTrue(second.toString(), second.isReproduced());
      assertEquals(4, second.getTriggerIteration());
      assertFalse(second.getDir().equals(first.getDir()));
      summary = Files.readString(Path.of(second.getDir(), "recorder.json"));
      assertTrue(summary, summaryHas(summary, "trigger", "kind", "\"call\""));
      assertTrue(summary, summaryHas(summary, "trigger", "detail", "\"because\""));
      assertTrue(summary, summaryHas(summary, "replay", "reproduced", "true"));
      assertEquals(second, model.lastRecorderReport());
      model.waitRecorder(-1);
      RecorderCounts counts = model.recorderCounts();
      assertEquals(4, counts.getRecorded());
      assertEquals(2, counts.getTriggers());
      assertEquals(2, counts.getReports());
      assertEquals(2, counts.getReproduced());
      assertEquals(0, counts.getSkipped());
      // The ring starts over after a report: nothing to replay.
      AclException empty = assertThrows(AclException.class, () -> model.triggerRecorder(null));
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_PARAM, empty.getCode());

      model.stopRecorder();
      AclException stopped = assertThrows(AclException.class, model::stopRecorder);
      assertEquals(AclNativeConstants.ACL_ERROR_INVALID_PARAM, stopped.getCode());
      assertTrue(stopped.getAclMessage(), stopped.getAclMessage().contains("has no recorder"));
      assertThrows(AclException.class, model::recorderCounts);
      AclException flags = assertThrows(AclException.class,
          () -> model.startRecorder(config.toString(), 4, 0x100));
      assertTrue(flags.getAclMessage(), flags.getAclMessage().contains("unknown bits"));
    }
  }

  @Test
  public void runsASingleOperator() {
    try (Acl acl = Acl.init()) {
      AclTensorDesc[] descs = new AclTensorDesc[3];
      DataBuffer[] buffers = new DataBuffer[3];
      for (int i = 0; i < 3; ++i) {
        descs[i] = AclNative.aclCreateTensorDesc(
            AclDataType.ACL_FLOAT, new long[] {2, 2}, AclFormat.ACL_FORMAT_ND);
        buffers[i] = DataBuffer.wrap(floats(new float[] {i, i + 1, i + 2, i + 3}));
      }
      assertEquals(16, AclNative.aclGetTensorDescSize(descs[0]));
      AclopAttr attr = AclNative.aclopCreateAttr();
      AclNative.aclopExecuteV2("Add",
          new AclTensorDesc[] {descs[0], descs[1]},
          new com.acldump.swig.AclDataBuffer[] {buffers[0].handle(), buffers[1].handle()},
          new AclTensorDesc[] {descs[2]},
          new com.acldump.swig.AclDataBuffer[] {buffers[2].handle()}, attr, 0);
      assertEquals(1f + 2f, buffers[2].data().getFloat(4), 0f);
      AclException notFound = assertThrows(AclException.class,
          () -> AclNative.aclopExecuteV2("NoSuchOp", new AclTensorDesc[0],
              new com.acldump.swig.AclDataBuffer[0], new AclTensorDesc[0],
              new com.acldump.swig.AclDataBuffer[0], null, 0));
      assertEquals(AclNativeConstants.ACL_ERROR_OP_NOT_FOUND, notFound.getCode());
      attr.delete();
      for (int i = 0; i < 3; ++i) {
        descs[i].delete();
        buffers[i].close();
      }
    }
  }

  /**
   * The samples' call sequence: device, context, stream, a model in its own memory
   * (QuerySize + LoadFromFileWithMem), input copied to device memory, execute, then execute on
   * the stream with a callback processed by another thread; outputs copied back; dumped.
   */
  @Test
  public void samplesCallSequence() throws Exception {
    Path dumpPath = tmp.newFolder("sample").toPath();
    float[] expected = readNpyFloats("testdata/resnet_tiny.output.prob.npy");
    ByteBuffer image = floats(readNpyFloats("testdata/resnet_tiny.input.input.npy"));
    try (Acl acl = Acl.init()) {
      Acl.setDevice(0);
      assertEquals(1, Acl.runMode()); // ACL_HOST
      try (Context context = Context.create(0);
          Stream stream = Stream.create();
          DumpSession dump = DumpSession.start(writeConfig(dumpPath).toString());
          Model model = Model.loadWithMemory(MODEL);
          DeviceMemory input = DeviceMemory.allocate(image.capacity());
          DeviceMemory fc = DeviceMemory.allocate(40);
          DeviceMemory prob = DeviceMemory.allocate(40);
          DataBuffer inBuffer = DataBuffer.wrap(input.buffer());
          DataBuffer fcBuffer = DataBuffer.wrap(fc.buffer());
          DataBuffer probBuffer = DataBuffer.wrap(prob.buffer());
          Dataset in = Dataset.of(inBuffer);
          Dataset out = Dataset.of(fcBuffer, probBuffer)) {
        assertEquals(0, model.inputIndex("input"));
        assertEquals(1, model.outputIndex("prob"));
        input.copyFrom(image);
        model.execute(in, out);
        ByteBuffer host = ByteBuffer.allocateDirect(40).order(ByteOrder.nativeOrder());
        prob.copyTo(host);
        for (int i = 0; i < expected.length; ++i) {
          assertEquals(expected[i], host.getFloat(4 * i), 1e-5f);
        }
        // The async sample: a thread processes the stream's callbacks.
        java.util.concurrent.atomic.AtomicBoolean stop =
            new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong worker = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong ranOn = new java.util.concurrent.atomic.AtomicLong();
        Thread processor = new Thread(() -> {
          worker.set(Stream.currentThreadId());
          while (!stop.get()) {
            try {
              Stream.processReport(20);
            } catch (AclException e) { // not subscribed yet
              Thread.yield();
            }
          }
        });
        processor.start();
        while (worker.get() == 0) {
          Thread.yield();
        }
        stream.subscribeReport(worker.get());
        model.executeAsync(in, out, stream);
        stream.launchCallback(() -> ranOn.set(Stream.currentThreadId()), true);
        stream.synchronize();
        assertEquals(worker.get(), ranOn.get());
        stream.unsubscribeReport(worker.get());
        stop.set(true);
        processor.join();
        ByteBuffer again = ByteBuffer.allocateDirect(40).order(ByteOrder.nativeOrder());
        prob.copyTo(again);
        assertEquals(host, again);
      }
      Acl.resetDevice(0);
    }
    Map<String, List<String>> iterations = iterations(dumpPath);
    assertEquals(List.of("0", "1"), List.copyOf(iterations.keySet()));
  }

  @Test
  public void runtimeMisuseThrowsTheSdkCodes() {
    try (Acl acl = Acl.init()) {
      AclException noContext = assertThrows(AclException.class, Acl::getDevice);
      assertEquals(AclNativeConstants.ACL_ERROR_RT_CONTEXT_NULL, noContext.getCode());
      AclException notServing = assertThrows(AclException.class, () -> Stream.processReport(5));
      assertEquals(AclNativeConstants.ACL_ERROR_RT_THREAD_SUBSCRIBE, notServing.getCode());
      Acl.setDevice(0);
      try (Stream stream = Stream.create();
          DeviceMemory memory = DeviceMemory.allocate(64)) {
        try (Context other = Context.create(1)) {
          AclException wrongContext = assertThrows(AclException.class, stream::synchronize);
          assertEquals(AclNativeConstants.ACL_ERROR_RT_STREAM_CONTEXT, wrongContext.getCode());
          assertEquals(1, Acl.getDevice());
        }
        // The destroyed context was this thread's current one: it has none now.
        assertThrows(AclException.class, Acl::getDevice);
        Acl.setDevice(0); // the stream's context again
        stream.synchronize();
        AclException tooMuch = assertThrows(AclException.class,
            () -> memory.copyFrom(ByteBuffer.allocateDirect(65)));
        assertEquals(AclNativeConstants.ACL_ERROR_RT_PARAM_INVALID, tooMuch.getCode());
        assertTrue(tooMuch.getAclMessage().contains("exceeds destMax"));
        AclException notSubscribed =
            assertThrows(AclException.class, () -> stream.launchCallback(() -> {}, true));
        assertEquals(AclNativeConstants.ACL_ERROR_RT_STREAM_NO_CB_REG, notSubscribed.getCode());
      }
      long[] stream = new long[1];
      AclNative.aclrtCreateStream(stream);
      AclNative.aclrtDestroyStream(stream[0]);
      AclException destroyed =
          assertThrows(AclException.class, () -> AclNative.aclrtDestroyStream(stream[0]));
      assertEquals(AclNativeConstants.ACL_ERROR_RT_PARAM_INVALID, destroyed.getCode());
      Acl.resetDevice(0);
      Acl.resetDevice(0);
    }
  }

  @Test
  public void exampleRuns() throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      example.Example.main(new String[0]);
    } finally {
      System.setOut(original);
    }
    String output = captured.toString(StandardCharsets.UTF_8);
    assertTrue(output, output.startsWith("prob[0] = "));
  }

  @Test
  public void readmeShowsTheExample() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    String example = Files.readString(
        Path.of("bindings/java/src/test/java/example/Example.java"));
    String body = example.substring(example.indexOf("import "));
    assertTrue("README's Java example must be Example.java", readme.contains(body));
    String typed = Files.readString(
        Path.of("bindings/java/src/test/java/example/TypedExample.java"));
    assertTrue("README's typed Java example must be TypedExample.java",
        readme.contains(typed.substring(typed.indexOf("import "))));
  }
}
