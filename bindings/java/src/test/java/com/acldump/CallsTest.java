package com.acldump;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;

import com.acldump.swig.AclNative;
import com.acldump.swig.AclNativeConstants;
import org.junit.Test;

/** The Acl methods generated from bindings/calls.py's rows, beyond what AclTest exercises. */
public class CallsTest {
  @Test
  public void socNameNeedsNoInitAndIsTheHostCpus() {
    assertEquals("acldump_cpu", Acl.socName());
    assertEquals(Acl.socName(), AclNative.aclrtGetSocName());
  }

  @Test
  public void socNameIsUnaffectedByAnEarlierFailure() {
    // aclrtGetSocName cannot fail (errors="none"): a recent error of another call must not
    // turn into an exception.
    AclException failed =
        assertThrows(AclException.class, () -> Acl.init("/nonexistent/acl.json"));
    assertEquals(AclNativeConstants.ACL_ERROR_INVALID_FILE, failed.getCode());
    assertFalse(failed.getAclMessage().isEmpty());
    assertEquals("acldump_cpu", Acl.socName());
  }
}
