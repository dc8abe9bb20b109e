package com.acldump;

/**
 * Receives dump files in chunks instead of the disk ({@link Acl#registerDumpCallback}): {@code
 * data} belongs at {@code offset} of the file {@code fileName} (the absolute path a file dump
 * would write); {@code last} is set on the file's last chunk. Runs on a dump writer thread.
 * Return 0 to accept the chunk; any other value (or an exception) refuses it, and the dump's
 * close reports the file as not written.
 */
@FunctionalInterface
public interface DumpCallback {
  int onChunk(String fileName, long offset, byte[] data, boolean last);
}
