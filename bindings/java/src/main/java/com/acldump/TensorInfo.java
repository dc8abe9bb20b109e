package com.acldump;

import com.acldump.swig.AclDataType;
import com.acldump.swig.AclFormat;
import java.util.Arrays;

/** A model input or output as aclmdlDesc describes it. */
public final class TensorInfo {
  private final String name;
  private final AclDataType dataType;
  private final AclFormat format;
  private final long[] dims;
  private final long size;

  TensorInfo(String name, AclDataType dataType, AclFormat format, long[] dims, long size) {
    this.name = name;
    this.dataType = dataType;
    this.format = format;
    this.dims = dims.clone();
    this.size = size;
  }

  public String name() {
    return name;
  }

  public AclDataType dataType() {
    return dataType;
  }

  public AclFormat format() {
    return format;
  }

  public long[] dims() {
    return dims.clone();
  }

  /** Bytes. */
  public long size() {
    return size;
  }

  @Override
  public String toString() {
    return name + " " + dataType + " " + Arrays.toString(dims);
  }
}
