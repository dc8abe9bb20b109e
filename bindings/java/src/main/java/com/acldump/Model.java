package com.acldump;

import com.acldump.swig.AclNative;
import com.acldump.swig.AclNativeConstants;
import com.acldump.swig.AclmdlDesc;
import com.acldump.swig.AclmdlIODims;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/** A loaded model (aclmdlLoadFromFile / aclmdlLoadFromMem); {@link #close()} unloads it. */
public final class Model implements AutoCloseable {
  private final long id;
  private final List<TensorInfo> inputs;
  private final List<TensorInfo> outputs;
  private final List<DeviceMemory> memory;
  private boolean loaded = true;

  private Model(long id) {
    this(id, List.of());
  }

  private Model(long id, List<DeviceMemory> memory) {
    this.id = id;
    this.memory = memory;
    AclmdlDesc desc = AclNative.aclmdlCreateDesc();
    try {
      AclNative.aclmdlGetDesc(desc, id);
      inputs = describe(desc, true);
      outputs = describe(desc, false);
    } catch (RuntimeException e) {
      close();
      throw e;
    } finally {
      desc.delete();
    }
  }

  /** Loads an .om file; its dump model name is the file name without extension. */
  public static Model load(String path) {
    long[] id = new long[1];
    AclNative.aclmdlLoadFromFile(path, id);
    return new Model(id[0]);
  }

  /** Loads a model from memory (copied); only its graph name matches dump_list. */
  public static Model load(byte[] model) {
    long[] id = new long[1];
    AclNative.aclmdlLoadFromMem(model, id);
    return new Model(id[0]);
  }

  /**
   * Loads an .om file into work and weight memory of its own from aclrtMalloc, sized by
   * aclmdlQuerySize (aclmdlLoadFromFileWithMem); {@link #close()} unloads it, then frees them.
   */
  public static Model loadWithMemory(String path) {
    long[] work = new long[1];
    long[] weight = new long[1];
    AclNative.aclmdlQuerySize(path, work, weight);
    List<DeviceMemory> memory = new ArrayList<>();
    try {
      memory.add(DeviceMemory.allocate(work[0]));
      memory.add(DeviceMemory.allocate(weight[0]));
      long[] id = new long[1];
      AclNative.aclmdlLoadFromFileWithMem(path, id, memory.get(0).address(), work[0],
          memory.get(1).address(), weight[0]);
      return new Model(id[0], memory);
    } catch (RuntimeException e) {
      for (DeviceMemory part : memory) {
        part.close();
      }
      throw e;
    }
  }

  public long id() {
    return id;
  }

  public List<TensorInfo> inputs() {
    return inputs;
  }

  public List<TensorInfo> outputs() {
    return outputs;
  }

  /** aclmdlExecute: one buffer per input and per output, in the model's order. */
  public void execute(Dataset input, Dataset output) {
    AclNative.aclmdlExecute(id, input.handle(), output.handle());
  }

  /**
   * aclmdlExecuteWithTag: {@link #execute} for the request {@code tag} (null or "": none), which
   * the model's armed dumps ({@link #armDump}) match.
   */
  public void executeWithTag(String tag, Dataset input, Dataset output) {
    AclNative.aclmdlExecuteWithTag(id, tag, input.handle(), output.handle());
  }

  /**
   * aclmdlArmDump: with no reload, the model's next executions dump as the config at {@code
   * configPath} says (a JSON file with a "dump" section), {@code executions} of them (0: every
   * one until disarmed; unsigned). With a non-empty {@code tag} only executions run by {@link
   * #runTagged} / {@link #executeWithTag} with that tag count and dump; with null or "" any
   * execution does. Each dumped execution writes request.json beside its files. Arming the same
   * tag again replaces its arm. Needs {@link Acl#init}, not a {@link DumpSession}.
   */
  public void armDump(String configPath, long executions, String tag) {
    AclNative.aclmdlArmDump(id, configPath, tag, executions);
  }

  /**
   * aclmdlDisarmDump: removes the arm of {@code tag} ("": the untagged arm; null: every arm of
   * the model) and writes all its files before it returns. ACL_ERROR_INVALID_PARAM when there is
   * no such arm, ACL_ERROR_WRITE_FILE when files could not be written.
   */
  public void disarmDump(String tag) {
    AclNative.aclmdlDisarmDump(id, tag);
  }

  /**
   * aclmdlGetArmedDumpCount: the arm of {@code tag} (null or "": the untagged arm), its dumped
   * and remaining executions (remaining -1, UINT64_MAX as unsigned, for an arm that dumps until
   * disarmed: {@link ArmedDumpCount#unlimited()}). ACL_ERROR_INVALID_PARAM when there is no such
   * arm.
   */
  public ArmedDumpCount armedDumpCount(String tag) {
    long[] dumped = new long[1];
    long[] remaining = new long[1];
    AclNative.aclmdlGetArmedDumpCount(id, tag, dumped, remaining);
    return new ArmedDumpCount(dumped[0], remaining[0]);
  }

  /**
   * {@link #startRecorder} flag (ACL_RECORDER_OPERATOR_STATS): keep every operator output's
   * statistics too; with {@link #RECORDER_TRIGGER_NON_FINITE} a NaN/Inf in any operator output
   * triggers a report.
   */
  public static final int RECORDER_OPERATOR_STATS = 0x1;

  /**
   * {@link #startRecorder} flag (ACL_RECORDER_TRIGGER_NON_FINITE): a NaN or infinity in an output
   * writes a report.
   */
  public static final int RECORDER_TRIGGER_NON_FINITE = 0x2;

  /**
   * {@link #startRecorder} flag (ACL_RECORDER_TRIGGER_ERROR): a failed execution writes a report.
   */
  public static final int RECORDER_TRIGGER_ERROR = 0x4;

  /**
   * {@link #startRecorder} flag (ACL_RECORDER_TRIGGER_SIGNAL): SIGUSR2 sent to the process writes
   * a report (the previous handler is restored when the last such recorder stops).
   */
  public static final int RECORDER_TRIGGER_SIGNAL = 0x8;

  /**
   * {@link #startRecorder}'s usual flags (ACL_RECORDER_DEFAULT): {@link
   * #RECORDER_TRIGGER_NON_FINITE} | {@link #RECORDER_TRIGGER_ERROR}.
   */
  public static final int RECORDER_DEFAULT = RECORDER_TRIGGER_NON_FINITE | RECORDER_TRIGGER_ERROR;

  /**
   * aclmdlStartRecorder: the model keeps its last {@code executions} executions (1 to 1024) in
   * memory (their inputs, output checksums and NaN/Inf counts; with {@link
   * #RECORDER_OPERATOR_STATS} every operator output's statistics). A trigger of {@code flags}
   * (the RECORDER_* constants, combined with |) or {@link #triggerRecorder} writes them as a
   * report, with a replay of the triggering execution dumped as the config at {@code configPath}
   * says (a dump config as {@link #armDump}'s, without dump_step; reports go into its dump_path).
   * ACL_ERROR_INVALID_PARAM when the model already has a recorder, for {@code executions} out of
   * range or unknown flags; config errors as {@link DumpSession}'s. {@link #close()} and {@link
   * Acl#close()} stop it.
   */
  public void startRecorder(String configPath, int executions, int flags) {
    AclNative.aclmdlStartRecorder(
        id, configPath, Integer.toUnsignedLong(executions), Integer.toUnsignedLong(flags));
  }

  /**
   * aclmdlStopRecorder: stops the recorder after the reports under way. ACL_ERROR_INVALID_PARAM
   * when the model has no recorder; ACL_ERROR_WRITE_FILE when a report since the last {@link
   * #waitRecorder} could not be written.
   */
  public void stopRecorder() {
    AclNative.aclmdlStopRecorder(id);
  }

  /**
   * aclmdlTriggerRecorder: writes a report now, on the calling thread, replaying the newest
   * recorded execution; {@code reason} (null: none; at most 1024 bytes) is kept in
   * recorder.json. The report's folder and trigger iteration are read right after
   * (aclmdlGetRecorderReportDir, aclmdlGetRecorderLastReport): the latest report's, which is this
   * one unless an automatic trigger's report finished in between. ACL_ERROR_INVALID_PARAM when
   * the model has no recorder or nothing was recorded since it started or since the last report.
   */
  public RecorderReport triggerRecorder(String reason) {
    int[] reproduced = new int[1];
    AclNative.aclmdlTriggerRecorder(id, reason, reproduced);
    RecorderReport last = lastRecorderReport();
    return new RecorderReport(last.getDir(), reproduced[0] != 0, last.getTriggerIteration());
  }

  /**
   * aclmdlWaitRecorder: waits up to {@code timeoutMs} milliseconds (negative: without limit;
   * more than Integer.MAX_VALUE: that) until the reports the recorder's triggers started are
   * written, and throws the first of their failures since the last call (ACL_ERROR_WRITE_FILE).
   * ACL_ERROR_RT_WAIT_TIMEOUT when one is still being written.
   */
  public void waitRecorder(long timeoutMs) {
    AclNative.aclmdlWaitRecorder(
        id, timeoutMs < 0 ? -1 : (int) Math.min(timeoutMs, Integer.MAX_VALUE));
  }

  /** aclmdlGetRecorderCount; ACL_ERROR_INVALID_PARAM when the model has no recorder. */
  public RecorderCounts recorderCounts() {
    long[] recorded = new long[1];
    long[] triggers = new long[1];
    long[] reports = new long[1];
    long[] reproduced = new long[1];
    long[] skipped = new long[1];
    AclNative.aclmdlGetRecorderCount(id, recorded, triggers, reports, reproduced, skipped);
    return new RecorderCounts(recorded[0], triggers[0], reports[0], reproduced[0], skipped[0]);
  }

  /**
   * The latest report of the model's recorder (aclmdlGetRecorderLastReport and
   * aclmdlGetRecorderReportDir). ACL_ERROR_INVALID_PARAM when there is no recorder or it has
   * written no report yet.
   */
  public RecorderReport lastRecorderReport() {
    int[] reproduced = new int[1];
    long[] triggerIteration = new long[1];
    AclNative.aclmdlGetRecorderLastReport(id, reproduced, triggerIteration);
    String dir = AclNative.aclmdlGetRecorderReportDir(id);
    return new RecorderReport(dir, reproduced[0] != 0, triggerIteration[0]);
  }

  /**
   * aclmdlExecuteAsync: queues one execution on {@code stream} (null: the default stream of the
   * current context); {@link Stream#synchronize()} waits for it. The buffers must stay open
   * until then.
   */
  public void executeAsync(Dataset input, Dataset output, Stream stream) {
    AclNative.aclmdlExecuteAsync(id, input.handle(), output.handle(),
        stream == null ? 0 : stream.handle());
  }

  /**
   * aclmdlGetCurOutputDims: the dims of output {@code index} as the last execution computed them
   * (an output whose size depends on the input: -1 in its {@code dims()}), or at the gear last
   * set on the model.
   */
  public long[] currentOutputDims(int index) {
    AclmdlDesc desc = AclNative.aclmdlCreateDesc();
    AclmdlIODims dims = new AclmdlIODims();
    try {
      AclNative.aclmdlGetDesc(desc, id);
      AclNative.aclmdlGetCurOutputDims(desc, index, dims);
      long[] shape = new long[Math.toIntExact(dims.getDimCount())];
      for (int d = 0; d < shape.length; ++d) {
        shape[d] = dims.getDim(d);
      }
      return shape;
    } finally {
      dims.delete();
      desc.delete();
    }
  }

  /** aclmdlGetInputIndexByName. */
  public int inputIndex(String name) {
    return indexByName(name, true);
  }

  /** aclmdlGetOutputIndexByName. */
  public int outputIndex(String name) {
    return indexByName(name, false);
  }

  private int indexByName(String name, boolean input) {
    AclmdlDesc desc = AclNative.aclmdlCreateDesc();
    try {
      AclNative.aclmdlGetDesc(desc, id);
      long[] index = new long[1];
      if (input) {
        AclNative.aclmdlGetInputIndexByName(desc, name, index);
      } else {
        AclNative.aclmdlGetOutputIndexByName(desc, name, index);
      }
      return Math.toIntExact(index[0]);
    } finally {
      desc.delete();
    }
  }

  /**
   * Runs once on {@code inputs}, one per model input in order (each one's remaining bytes are
   * copied, so heap buffers are fine), and returns the outputs as direct buffers in native byte
   * order. The bytes are the elements in native byte order: a buffer with bytes of another order
   * (a ByteBuffer's default, BIG_ENDIAN, filled through asFloatBuffer()) is refused for an input
   * of elements larger than a byte, as is a null array or a null input (ACL_ERROR_INVALID_PARAM
   * naming the argument). No inputs and an empty one are refused by the C library
   * (ACL_ERROR_MODEL_INPUT_NOT_MATCH), as in Go. {@link #run(Map)} takes typed tensors by name.
   */
  public ByteBuffer[] run(ByteBuffer... inputs) {
    return runWith(this::execute, inputs);
  }

  /**
   * {@link #run} for the request {@code tag} (null or "": none), executed by aclmdlExecuteWithTag
   * so that the model's armed dumps ({@link #armDump}) match it.
   */
  public ByteBuffer[] runTagged(String tag, ByteBuffer... inputs) {
    return runWith((in, out) -> executeWithTag(tag, in, out), inputs);
  }

  // The body of run and runTagged: the buffers and datasets around one execution.
  private ByteBuffer[] runWith(BiConsumer<Dataset, Dataset> execution, ByteBuffer[] inputs) {
    if (inputs == null) {
      throw Tensor.invalid("inputs is null (no inputs: run() without arguments)");
    }
    for (int i = 0; i < inputs.length; ++i) {
      if (inputs[i] == null) {
        throw Tensor.invalid("inputs[" + i + "] is null (an empty input: an empty ByteBuffer)");
      }
      Tensor.checkByteOrder(
          inputs[i], i < this.inputs.size() ? this.inputs.get(i).dataType() : null,
          "inputs[" + i + "]");
    }
    List<DataBuffer> buffers = new ArrayList<>();
    try (Dataset in = new Dataset();
        Dataset out = new Dataset()) {
      for (ByteBuffer input : inputs) {
        DataBuffer buffer = DataBuffer.allocate(input.remaining());
        buffers.add(buffer);
        buffer.data().put(input.duplicate());
        in.add(buffer);
      }
      ByteBuffer[] results = new ByteBuffer[outputs.size()];
      boolean[] varying = new boolean[results.length];
      for (int i = 0; i < results.length; ++i) {
        // An output whose size depends on the input (-1 dims) gets room for the largest
        // result; it is returned at the size the execution computed.
        for (long dim : outputs.get(i).dims()) {
          varying[i] |= dim < 0;
        }
        DataBuffer buffer = DataBuffer.allocate(
            varying[i] ? VARYING_OUTPUT_BYTES : Math.toIntExact(outputs.get(i).size()));
        buffers.add(buffer);
        out.add(buffer);
        results[i] = buffer.data();
      }
      execution.accept(in, out);
      for (int i = 0; i < results.length; ++i) {
        if (!varying[i]) {
          continue;
        }
        long bytes = AclNative.aclDataTypeSize(outputs.get(i).dataType());
        for (long dim : currentOutputDims(i)) {
          bytes *= dim;
        }
        ByteBuffer result = results[i];
        result.limit(Math.toIntExact(bytes));
        results[i] = result.slice().order(result.order());
      }
      return results;
    } finally {
      for (DataBuffer buffer : buffers) {
        buffer.close();
      }
    }
  }

  /**
   * Runs once on typed tensors by name and returns every output by name (in the model's order),
   * each a new {@link Tensor} of the output's type shaped by its current dims
   * (aclmdlGetCurOutputDims). The inputs' memory is given to the C library as it is (no copy).
   * Each model input must be given once, with the model's type and dims (a -1 dimension takes any
   * size). Misuses, checked in this order, throw {@link AclException}, naming the input as the C
   * library does ("input 0 ('input', float32[1,3,32,32]) was given int32[1,3,32,32]"), with the
   * codes Go's RunNamed gives:
   *
   * <ul>
   *   <li>a closed model: ACL_ERROR_INVALID_MODEL_ID, as the C library says for its id;
   *   <li>a null map or name, or a name the model has no input of: ACL_ERROR_INVALID_PARAM (the C
   *       library's message);
   *   <li>an input not given: ACL_ERROR_MODEL_INPUT_NOT_MATCH;
   *   <li>a null or closed tensor: ACL_ERROR_INVALID_PARAM;
   *   <li>another type or other dims: ACL_ERROR_MODEL_INPUT_NOT_MATCH.
   * </ul>
   */
  public Map<String, Tensor> run(Map<String, Tensor> inputs) {
    return runNamed(this::execute, inputs);
  }

  /** {@link #run(Map)} for the request {@code tag}, executed as {@link #runTagged}. */
  public Map<String, Tensor> runTagged(String tag, Map<String, Tensor> inputs) {
    return runNamed((in, out) -> executeWithTag(tag, in, out), inputs);
  }

  /**
   * A {@link Binding}: input and output tensors of the model's, made once, which {@link
   * Binding#run()} runs on in place without allocating buffers.
   */
  public Binding bind() {
    checkLoaded();
    return new Binding(this);
  }

  private Map<String, Tensor> runNamed(
      BiConsumer<Dataset, Dataset> execution, Map<String, Tensor> inputs) {
    Tensor[] ordered = orderInputs(inputs);
    List<DataBuffer> buffers = new ArrayList<>();
    AclmdlDesc desc = null;
    AclmdlIODims dims = new AclmdlIODims();
    try (Dataset in = new Dataset();
        Dataset out = new Dataset()) {
      for (Tensor input : ordered) {
        DataBuffer buffer = DataBuffer.wrap(input.memory());
        buffers.add(buffer);
        in.add(buffer);
      }
      for (TensorInfo info : outputs) {
        DataBuffer buffer = DataBuffer.allocate(
            varies(info) ? VARYING_OUTPUT_BYTES : Math.toIntExact(info.size()));
        buffers.add(buffer);
        out.add(buffer);
      }
      execution.accept(in, out);
      desc = AclNative.aclmdlCreateDesc();
      AclNative.aclmdlGetDesc(desc, id);
      Map<String, Tensor> results = new LinkedHashMap<>();
      for (int i = 0; i < outputs.size(); ++i) {
        AclNative.aclmdlGetCurOutputDims(desc, i, dims);
        long[] shape = new long[Math.toIntExact(dims.getDimCount())];
        for (int d = 0; d < shape.length; ++d) {
          shape[d] = dims.getDim(d);
        }
        TensorInfo info = outputs.get(i);
        ByteBuffer room = buffers.get(ordered.length + i).data();
        long bytes = Tensor.count(shape) * Tensor.elementSize(info.dataType());
        if (bytes > room.capacity()) {
          throw new AclException(AclNativeConstants.ACL_ERROR_MODEL_OUTPUT_NOT_MATCH,
              describe("output", i, info) + " has dims " + Tensor.dims(shape) + ": " + bytes
                  + " bytes, more than its buffer's " + room.capacity());
        }
        room.limit((int) bytes);
        results.put(info.name(), new Tensor(info.dataType(), shape, room.slice(), null));
      }
      return Collections.unmodifiableMap(results);
    } finally {
      for (DataBuffer buffer : buffers) {
        buffer.close();
      }
      dims.delete();
      if (desc != null) {
        desc.delete();
      }
    }
  }

  // The inputs' tensors in the model's order, checked against the model.
  private Tensor[] orderInputs(Map<String, Tensor> given) {
    checkLoaded();
    if (given == null) {
      throw Tensor.invalid("inputs is null");
    }
    for (String name : given.keySet()) { // (Map.of's containsKey(null) throws)
      if (name == null) {
        throw Tensor.invalid("an input name is null");
      }
    }
    for (String name : new TreeSet<>(given.keySet())) { // the same error every time
      indexOf(inputs, name, "input");
    }
    Tensor[] ordered = new Tensor[inputs.size()];
    for (int i = 0; i < ordered.length; ++i) {
      TensorInfo info = inputs.get(i);
      if (!given.containsKey(info.name())) {
        throw new AclException(AclNativeConstants.ACL_ERROR_MODEL_INPUT_NOT_MATCH,
            describe("input", i, info) + " is missing");
      }
      Tensor tensor = given.get(info.name());
      if (tensor == null) {
        throw Tensor.invalid(describe("input", i, info) + " was given no tensor (null)");
      }
      if (tensor.isClosed()) {
        throw Tensor.invalid(describe("input", i, info) + " was given a closed tensor");
      }
      long[] dims = tensor.dimsView();
      long[] want = info.dims();
      boolean fits = tensor.dataType() == info.dataType() && dims.length == want.length;
      for (int d = 0; fits && d < dims.length; ++d) {
        fits = want[d] < 0 || dims[d] == want[d];
      }
      if (!fits) {
        throw new AclException(AclNativeConstants.ACL_ERROR_MODEL_INPUT_NOT_MATCH,
            describe("input", i, info) + " was given " + tensor);
      }
      ordered[i] = tensor;
    }
    return ordered;
  }

  /**
   * The index of the tensor called {@code name} among {@code infos}: ACL_ERROR_INVALID_PARAM with
   * the C library's message (aclmdlGetInputIndexByName) when there is none.
   */
  static int indexOf(List<TensorInfo> infos, String name, String kind) {
    StringBuilder names = new StringBuilder();
    for (int i = 0; i < infos.size(); ++i) {
      if (infos.get(i).name().equals(name)) {
        return i;
      }
      names.append(i == 0 ? "'" : ", '").append(infos.get(i).name()).append('\'');
    }
    throw Tensor.invalid(
        "the model has no " + kind + " named '" + name + "' (it has " + names + ")");
  }

  /** "input 0 ('input', float32[1,3,32,32])", as the C library names a tensor. */
  static String describe(String kind, int index, TensorInfo info) {
    return kind + " " + index + " ('" + info.name() + "', " + Tensor.name(info.dataType())
        + Tensor.dims(info.dims()) + ")";
  }

  static boolean varies(TensorInfo info) {
    for (long dim : info.dims()) {
      if (dim < 0) {
        return true;
      }
    }
    return false;
  }

  /** The C library's error for the id of a closed model (ids are not reused). */
  void checkLoaded() {
    if (!loaded) {
      throw new AclException(AclNativeConstants.ACL_ERROR_INVALID_MODEL_ID,
          "model id " + id + " is not loaded (the Model is closed)");
    }
  }

  /**
   * Room {@link #run} gives an output whose size depends on the input (direct buffers are
   * zeroed, so it is kept moderate; a larger result fails with ACL_ERROR_MODEL_OUTPUT_NOT_MATCH
   * naming the bytes it needs: run it through execute with buffers of that size).
   */
  public static final int VARYING_OUTPUT_BYTES = 16 << 20;

  /** Unloads the model, then frees memory it was loaded with. */
  @Override
  public void close() {
    if (loaded) {
      loaded = false;
      try {
        AclNative.aclmdlUnload(id);
      } finally {
        for (DeviceMemory part : memory) {
          part.close();
        }
      }
    }
  }

  private static List<TensorInfo> describe(AclmdlDesc desc, boolean input) {
    long count = input ? AclNative.aclmdlGetNumInputs(desc) : AclNative.aclmdlGetNumOutputs(desc);
    List<TensorInfo> infos = new ArrayList<>();
    for (long i = 0; i < count; ++i) {
      AclmdlIODims dims = new AclmdlIODims();
      try {
        if (input) {
          AclNative.aclmdlGetInputDims(desc, i, dims);
        } else {
          AclNative.aclmdlGetOutputDims(desc, i, dims);
        }
        long[] shape = new long[Math.toIntExact(dims.getDimCount())];
        for (int d = 0; d < shape.length; ++d) {
          shape[d] = dims.getDim(d);
        }
        infos.add(
            input
                ? new TensorInfo(
                    AclNative.aclmdlGetInputNameByIndex(desc, i),
                    AclNative.aclmdlGetInputDataType(desc, i),
                    AclNative.aclmdlGetInputFormat(desc, i),
                    shape,
                    AclNative.aclmdlGetInputSizeByIndex(desc, i))
                : new TensorInfo(
                    AclNative.aclmdlGetOutputNameByIndex(desc, i),
                    AclNative.aclmdlGetOutputDataType(desc, i),
                    AclNative.aclmdlGetOutputFormat(desc, i),
                    shape,
                    AclNative.aclmdlGetOutputSizeByIndex(desc, i)));
      } finally {
        dims.delete();
      }
    }
    return Collections.unmodifiableList(infos);
  }
}
