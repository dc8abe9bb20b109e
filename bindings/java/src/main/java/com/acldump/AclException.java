package com.acldump;

import java.nio.charset.StandardCharsets;

/** A failed acl call: the C ABI's aclError code and its recent error message. */
public class AclException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int code;
  private final String aclMessage;

  public AclException(int code, String message) {
    super("acl error " + code + ": " + message);
    this.code = code;
    this.aclMessage = message;
  }

  // Called by the JNI wrapper: C messages are bytes, decoded here as UTF-8.
  AclException(int code, byte[] message) {
    this(code, new String(message, StandardCharsets.UTF_8));
  }

  /** The aclError, e.g. 100045 (ACL_ERROR_DUMP_NOT_RUN). */
  public int getCode() {
    return code;
  }

  /** The C library's message, without the code. */
  public String getAclMessage() {
    return aclMessage;
  }
}
