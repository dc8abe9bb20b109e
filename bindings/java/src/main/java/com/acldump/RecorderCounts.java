package com.acldump;

import java.util.Objects;

/**
 * The counts of a model's flight recorder ({@link Model#recorderCounts}), each unsigned 64-bit
 * as C's uint64_t.
 */
public final class RecorderCounts {
  private final long recorded;
  private final long triggers;
  private final long reports;
  private final long reproduced;
  private final long skipped;

  RecorderCounts(long recorded, long triggers, long reports, long reproduced, long skipped) {
    this.recorded = recorded;
    this.triggers = triggers;
    this.reports = reports;
    this.reproduced = reproduced;
    this.skipped = skipped;
  }

  /** Executions recorded. */
  public long getRecorded() {
    return recorded;
  }

  /** Triggers seen. */
  public long getTriggers() {
    return triggers;
  }

  /** Reports written. */
  public long getReports() {
    return reports;
  }

  /** Reports whose replay reproduced the execution. */
  public long getReproduced() {
    return reproduced;
  }

  /** Triggers not written (a report was under way, the limit was reached, nothing recorded). */
  public long getSkipped() {
    return skipped;
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof RecorderCounts)) {
      return false;
    }
    RecorderCounts that = (RecorderCounts) other;
    return that.recorded == recorded
        && that.triggers == triggers
        && that.reports == reports
        && that.reproduced == reproduced
        && that.skipped == skipped;
  }

  @Override
  public int hashCode() {
    return Objects.hash(recorded, triggers, reports, reproduced, skipped);
  }

  @Override
  public String toString() {
    return "recorded " + Long.toUnsignedString(recorded)
        + ", triggers " + Long.toUnsignedString(triggers)
        + ", reports " + Long.toUnsignedString(reports)
        + ", reproduced " + Long.toUnsignedString(reproduced)
        + ", skipped " + Long.toUnsignedString(skipped);
  }
}
