package com.acldump;

/**
 * The state of one dump arm of a model ({@link Model#armedDumpCount}): how many executions it has
 * dumped and how many it will still dump.
 */
public final class ArmedDumpCount {
  private final long dumped;
  private final long remaining;

  ArmedDumpCount(long dumped, long remaining) {
    this.dumped = dumped;
    this.remaining = remaining;
  }

  /** Executions the arm has dumped (unsigned 64-bit, as C's uint64_t). */
  public long dumped() {
    return dumped;
  }

  /**
   * Executions the arm will still dump (unsigned 64-bit, as C's uint64_t): -1, which is
   * UINT64_MAX as unsigned, for an arm that dumps until disarmed (see {@link #unlimited()}).
   */
  public long remaining() {
    return remaining;
  }

  /** Whether the arm dumps until disarmed (armed with 0 executions): remaining() is -1. */
  public boolean unlimited() {
    return remaining == -1;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ArmedDumpCount
        && ((ArmedDumpCount) other).dumped == dumped
        && ((ArmedDumpCount) other).remaining == remaining;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(dumped) * 31 + Long.hashCode(remaining);
  }

  @Override
  public String toString() {
    return "dumped " + Long.toUnsignedString(dumped) + ", remaining "
        + (unlimited() ? "unlimited" : Long.toUnsignedString(remaining));
  }
}
