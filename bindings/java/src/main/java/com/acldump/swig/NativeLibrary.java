package com.acldump.swig;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Loads the JNI library. A release jar carries it with libacldump and its private dependencies:
 * they are extracted into a new private temporary folder (only this user can write it, so nobody
 * can swap the files before they load) and loaded from there. A build-tree jar has none and uses
 * {@code java.library.path}.
 */
final class NativeLibrary {
  private static final String RESOURCES = "/com/acldump/native/linux-x86_64/";
  private static final String JNI_LIBRARY = "libacldump_jni.so";

  private NativeLibrary() {}

  static void load() {
    List<String> files = listing();
    if (files == null) {
      System.loadLibrary("acldump_jni");
      return;
    }
    String os = System.getProperty("os.name");
    String arch = System.getProperty("os.arch");
    if (!"Linux".equals(os) || !("amd64".equals(arch) || "x86_64".equals(arch))) {
      throw new UnsatisfiedLinkError(
          "acldump's jar carries native libraries for Linux x86_64, not " + os + " " + arch);
    }
    Path folder;
    try {
      folder = Files.createTempDirectory("acldump-native-");
      folder.toFile().deleteOnExit();
      for (String name : files) {
        Path target = folder.resolve(name);
        try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCES + name)) {
          if (in == null) {
            throw new UnsatisfiedLinkError("acldump's jar lists " + name + " but lacks it");
          }
          Files.copy(in, target);
        }
        // Registered after the folder, so deleted before it at exit.
        target.toFile().deleteOnExit();
      }
    } catch (IOException e) {
      UnsatisfiedLinkError error =
          new UnsatisfiedLinkError(
              "cannot extract acldump's native libraries into a temporary folder ("
                  + e.getMessage()
                  + "); point java.io.tmpdir at a writable folder");
      error.initCause(e);
      throw error;
    }
    System.load(folder.resolve(JNI_LIBRARY).toString());
  }

  /** The native files the jar carries, or null for a jar without them. */
  private static List<String> listing() {
    InputStream stream = NativeLibrary.class.getResourceAsStream(RESOURCES + "files.txt");
    if (stream == null) return null;
    List<String> files = new ArrayList<>();
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
      for (String line; (line = reader.readLine()) != null; ) {
        String name = line.trim();
        if (name.isEmpty()) continue;
        if (name.contains("/") || name.startsWith(".")) {
          throw new UnsatisfiedLinkError("acldump's jar lists a bad native file name: " + name);
        }
        files.add(name);
      }
    } catch (IOException e) {
      UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot read acldump's jar: " + e);
      error.initCause(e);
      throw error;
    }
    if (!files.contains(JNI_LIBRARY)) {
      throw new UnsatisfiedLinkError("acldump's jar does not carry " + JNI_LIBRARY);
    }
    return files;
  }
}
