package com.acldump;

import com.acldump.swig.AclNative;
import com.acldump.swig.AclmdlDataset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An aclmdlDataset: the ordered buffers of a model's inputs or outputs. It refers to its buffers
 * without owning them; closing it frees only the dataset.
 */
public final class Dataset implements AutoCloseable {
  private final List<DataBuffer> buffers = new ArrayList<>();
  private AclmdlDataset handle = AclNative.aclmdlCreateDataset();

  public Dataset() {}

  /** A dataset of {@code buffers}, in order. */
  public static Dataset of(DataBuffer... buffers) {
    Dataset dataset = new Dataset();
    for (DataBuffer buffer : buffers) {
      dataset.add(buffer);
    }
    return dataset;
  }

  public Dataset add(DataBuffer buffer) {
    AclNative.aclmdlAddDatasetBuffer(handle(), buffer.handle());
    buffers.add(buffer);
    return this;
  }

  public List<DataBuffer> buffers() {
    return Collections.unmodifiableList(buffers);
  }

  public long size() {
    return AclNative.aclmdlGetDatasetNumBuffers(handle());
  }

  AclmdlDataset handle() {
    if (handle == null) {
      throw new IllegalStateException("the Dataset is closed");
    }
    return handle;
  }

  @Override
  public void close() {
    if (handle != null) {
      handle.delete();
      handle = null;
    }
  }
}
