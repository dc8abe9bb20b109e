/* The context package acldump works in (device.go): the one the program selected last, with
 * SetDevice (the device's default context), NewContext or Context.SetCurrent, on whichever OS
 * thread the goroutine happened to run. The C runtime's current context is per OS thread;
 * goroutines are not, so the package keeps the selection here, for the whole process, and its
 * calls that depend on the current context make the selection current on their thread first
 * (acldump_go_use_selection).
 *
 * calls.h routes the package's C calls that change the current context here (its macros), the
 * generated helpers of calls_gen.h included: this file, and only it, calls the runtime's own. The
 * selection is stored after the runtime call, never held across one that may wait for a stream's
 * work (aclrtResetDevice, aclrtDestroyContext), whose callbacks may be Go code calling back into
 * the package. */
#define ACLDUMP_GO_DEVICE_C
#include "calls.h"

static pthread_mutex_t selection_lock = PTHREAD_MUTEX_INITIALIZER;
static aclrtContext selection; /* NULL: none selected */

static void select_context(aclrtContext context) {
  pthread_mutex_lock(&selection_lock);
  selection = context;
  pthread_mutex_unlock(&selection_lock);
}

/* After a call that may have destroyed the selected context: the selection ends with it. */
static void forget_if_gone(void) {
  pthread_mutex_lock(&selection_lock);
  if (selection != NULL && aclrtSetCurrentContext(selection) != ACL_SUCCESS) {
    selection = NULL;
  }
  pthread_mutex_unlock(&selection_lock);
}

aclError acldump_go_use_selection(void) {
  pthread_mutex_lock(&selection_lock);
  aclError code =
      selection == NULL ? ACL_SUCCESS : aclrtSetCurrentContext(selection);
  pthread_mutex_unlock(&selection_lock);
  return code;
}

aclError acldump_go_set_device(int32_t deviceId) {
  aclError code = aclrtSetDevice(deviceId);
  if (code != ACL_SUCCESS) return code;
  aclrtContext context = NULL;
  code = aclrtGetCurrentContext(&context); /* the device's default context */
  if (code == ACL_SUCCESS) select_context(context);
  return code;
}

aclError acldump_go_reset_device(int32_t deviceId) {
  aclError code = aclrtResetDevice(deviceId);
  if (code == ACL_SUCCESS) forget_if_gone();
  return code;
}

aclError acldump_go_get_device(int32_t *deviceId) {
  aclError code = acldump_go_use_selection();
  if (code != ACL_SUCCESS) return code;
  return aclrtGetDevice(deviceId);
}

aclError acldump_go_create_context(aclrtContext *context, int32_t deviceId) {
  aclError code = aclrtCreateContext(context, deviceId);
  if (code == ACL_SUCCESS) select_context(*context);
  return code;
}

aclError acldump_go_set_current_context(aclrtContext context) {
  aclError code = aclrtSetCurrentContext(context);
  if (code == ACL_SUCCESS) select_context(context);
  return code;
}

aclError acldump_go_destroy_context(aclrtContext context) {
  /* Unselected first: no call starts in a context on its way out. */
  pthread_mutex_lock(&selection_lock);
  int selected = selection == context;
  if (selected) selection = NULL;
  pthread_mutex_unlock(&selection_lock);
  aclError code = aclrtDestroyContext(context);
  if (code != ACL_SUCCESS && selected) { /* still there (a default context) */
    pthread_mutex_lock(&selection_lock);
    if (selection == NULL) selection = context;
    pthread_mutex_unlock(&selection_lock);
  }
  return code;
}

aclError acldump_go_finalize(void) {
  select_context(NULL); /* every context goes with the runtime */
  return aclFinalize();
}
