package com.acldump;

import java.util.Objects;

/**
 * One report of a model's flight recorder ({@link Model#triggerRecorder}, {@link
 * Model#lastRecorderReport}): its folder, whether its replay reproduced the execution, and the
 * iteration that triggered it.
 */
public final class RecorderReport {
  private final String dir;
  private final boolean reproduced;
  private final long triggerIteration;

  RecorderReport(String dir, boolean reproduced, long triggerIteration) {
    this.dir = dir;
    this.reproduced = reproduced;
    this.triggerIteration = triggerIteration;
  }

  /** The report's folder, which holds recorder.json. */
  public String getDir() {
    return dir;
  }

  /** Whether the replay reproduced the recorded outputs bit for bit. */
  public boolean isReproduced() {
    return reproduced;
  }

  /** The iteration that triggered the report (unsigned 64-bit, as C's uint64_t). */
  public long getTriggerIteration() {
    return triggerIteration;
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof RecorderReport)) {
      return false;
    }
    RecorderReport that = (RecorderReport) other;
    return Objects.equals(that.dir, dir)
        && that.reproduced == reproduced
        && that.triggerIteration == triggerIteration;
  }

  @Override
  public int hashCode() {
    return Objects.hash(dir, reproduced, triggerIteration);
  }

  @Override
  public String toString() {
    return dir + " (iteration " + Long.toUnsignedString(triggerIteration)
        + (reproduced ? ", reproduced)" : ", not reproduced)");
  }
}
