package com.acldump;

import com.acldump.swig.AclNative;
import com.acldump.swig.AclmdlDesc;
import com.acldump.swig.AclmdlIODims;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model with input and output tensors of its own, made once by {@link Model#bind()}: fill the
 * inputs in place, {@link #run()}, read the outputs; the same tensors and buffers serve every
 * run, which allocates none. An output whose size depends on the input gets room for the largest
 * result and is reshaped by each run to the dims the execution computed. For one thread at a
 * time; {@link #close()} frees the datasets and makes the tensors unusable.
 *
 * <pre>{@code
 * try (Binding binding = model.bind()) {
 *   FloatBuffer image = binding.input("input").floatBuffer();
 *   FloatBuffer prob = binding.output("prob").floatBuffer();
 *   image.put(0, pixels); // pixels: float[3 * 32 * 32]
 *   binding.run(); // prob holds the result
 * }
 * }</pre>
 */
public final class Binding implements AutoCloseable {
  private final Model model;
  private final Map<String, Tensor> inputs = new LinkedHashMap<>();
  private final Map<String, Tensor> outputs = new LinkedHashMap<>();
  private final Tensor[] outputTensors;
  private final boolean[] varying;
  private final List<DataBuffer> buffers = new ArrayList<>();
  private final Dataset in;
  private final Dataset out;
  private AclmdlDesc desc; // for outputs whose size varies
  private AclmdlIODims dims;
  private boolean closed;

  Binding(Model model) {
    this.model = model;
    List<TensorInfo> outputInfos = model.outputs();
    outputTensors = new Tensor[outputInfos.size()];
    varying = new boolean[outputInfos.size()];
    in = new Dataset();
    out = new Dataset();
    try {
      List<TensorInfo> inputInfos = model.inputs();
      for (int i = 0; i < inputInfos.size(); ++i) {
        TensorInfo info = inputInfos.get(i);
        if (Model.varies(info)) {
          throw Tensor.invalid(Model.describe("input", i, info)
              + " has dims that vary: a Binding needs fixed ones (use Model.run)");
        }
        inputs.put(info.name(), bindTensor(in, info, Math.toIntExact(info.size()), false));
      }
      for (int i = 0; i < outputTensors.length; ++i) {
        TensorInfo info = outputInfos.get(i);
        varying[i] = Model.varies(info);
        outputTensors[i] = bindTensor(out, info,
            varying[i] ? Model.VARYING_OUTPUT_BYTES : Math.toIntExact(info.size()), varying[i]);
        outputs.put(info.name(), outputTensors[i]);
        if (varying[i] && desc == null) {
          desc = AclNative.aclmdlCreateDesc();
          AclNative.aclmdlGetDesc(desc, model.id());
          dims = new AclmdlIODims();
        }
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  // The tensor of info over a new buffer of size bytes, added to dataset.
  private Tensor bindTensor(Dataset dataset, TensorInfo info, int size, boolean varies) {
    DataBuffer buffer = DataBuffer.allocate(size);
    buffers.add(buffer);
    dataset.add(buffer);
    long[] shape = info.dims();
    if (varies) {
      for (int d = 0; d < shape.length; ++d) {
        shape[d] = Math.max(shape[d], 0); // empty until a run
      }
    }
    ByteBuffer memory = buffer.data();
    return new Tensor(info.dataType(), shape, memory, this);
  }

  public Model model() {
    return model;
  }

  /** The bound tensor of the input {@code name}; ACL_ERROR_INVALID_PARAM when there is none. */
  public Tensor input(String name) {
    return byName(inputs, model.inputs(), name, "input");
  }

  /** The bound tensor of the output {@code name}; ACL_ERROR_INVALID_PARAM when there is none. */
  public Tensor output(String name) {
    return byName(outputs, model.outputs(), name, "output");
  }

  /** The input tensors by name, in the model's order. */
  public Map<String, Tensor> inputs() {
    checkOpen();
    return Collections.unmodifiableMap(inputs);
  }

  /** The output tensors by name, in the model's order. */
  public Map<String, Tensor> outputs() {
    checkOpen();
    return Collections.unmodifiableMap(outputs);
  }

  private Tensor byName(
      Map<String, Tensor> tensors, List<TensorInfo> infos, String name, String kind) {
    checkOpen();
    return tensors.get(infos.get(Model.indexOf(infos, name, kind)).name());
  }

  /**
   * Executes the model once on the bound tensors, allocating no buffers. ACL_ERROR_INVALID_PARAM
   * after {@link #close()}; ACL_ERROR_INVALID_MODEL_ID once the model is closed; the C library's
   * errors otherwise.
   */
  public void run() {
    checkOpen();
    model.checkLoaded();
    model.execute(in, out);
    for (int i = 0; i < varying.length; ++i) {
      if (varying[i]) {
        AclNative.aclmdlGetCurOutputDims(desc, i, dims);
        outputTensors[i].reshape(dims);
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw Tensor.invalid("the Binding is closed");
    }
  }

  /** Frees the datasets and buffers; the tensors are unusable after it. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Tensor tensor : inputs.values()) {
      tensor.release();
    }
    for (Tensor tensor : outputs.values()) {
      tensor.release();
    }
    in.close();
    out.close();
    for (DataBuffer buffer : buffers) {
      buffer.close();
    }
    if (dims != null) {
      dims.delete();
    }
    if (desc != null) {
      desc.delete();
    }
  }
}
