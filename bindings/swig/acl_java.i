// Java typemaps for acl.i. The generated classes go to com.acldump.swig (AclNative holds the
// functions, one class per handle); the idiomatic API is com.acldump. A failed call throws
// com.acldump.AclException from the JNI wrapper itself, with the code and the message read in
// that same native call: a non-zero aclError, or, for functions that return a handle, a size or
// an enum, a recent error message left by the call (they have no code: ACL_ERROR_FAILURE).

%include <typemaps.i>

%{
#include <stdlib.h>
#include <string.h>

// Throws com.acldump.AclException(code, message bytes): the message is decoded as UTF-8 in Java
// (JNI's NewStringUTF expects modified UTF-8 and C messages may hold any bytes).
static void AclJava_Throw(JNIEnv *jenv, aclError code) {
  const char *message = aclGetRecentErrMsg();
  jsize length = (jsize)strlen(message);
  jclass cls = (*jenv)->FindClass(jenv, "com/acldump/AclException");
  if (cls == NULL) return;  // NoClassDefFoundError is pending
  jmethodID init = (*jenv)->GetMethodID(jenv, cls, "<init>", "(I[B)V");
  jbyteArray bytes = (*jenv)->NewByteArray(jenv, length);
  if (init == NULL || bytes == NULL) return;
  (*jenv)->SetByteArrayRegion(jenv, bytes, 0, length, (const jbyte *)message);
  jthrowable error = (jthrowable)(*jenv)->NewObject(jenv, cls, init, (jint)code, bytes);
  if (error != NULL) (*jenv)->Throw(jenv, error);
}
%}

// ---- Errors -----------------------------------------------------------------------------------
%typemap(jstype) aclError "void"
%typemap(javaout) aclError {
    $jnicall;
  }
// Thrown by the "ret" typemap, after out-parameters are written and JNI resources (strings,
// array elements) released: most JNI functions must not run with an exception pending.
%typemap(out) aclError %{
  $result = (jint)$1;
%}
%typemap(ret) aclError %{
  if ($1 != ACL_SUCCESS) AclJava_Throw(jenv, $1);
%}

// Only the release of JNI resources and plain assignments follow, which may run with the
// exception pending; returning early would leak them.
%define ACL_JAVA_CHECKED(FUNCTION)
%exception FUNCTION {
  $action
  if (aclGetRecentErrMsg()[0] != '\0') AclJava_Throw(jenv, ACL_ERROR_FAILURE);
}
%enddef
// The table's calls without an aclError get theirs from acl_calls.i (errors="message").
ACL_JAVA_CHECKED(aclCreateDataBuffer)

// Errors arrive in exceptions. Data buffers describe direct ByteBuffers; device memory
// (aclrtMalloc) and host memory (aclrtMallocHost) are addresses (long), which deviceBuffer()
// turns into direct ByteBuffers and bufferAddress() gets back from one.
%ignore aclGetRecentErrMsg;
%ignore aclGetDataBufferAddr;

// ---- Names ------------------------------------------------------------------------------------
%rename(AclDataBuffer) aclDataBuffer;
%rename(AclmdlDataset) aclmdlDataset;
%rename(AclmdlDesc) aclmdlDesc;
%rename(AclmdlIODims) aclmdlIODims;
%rename(AclAippInfo) aclAippInfo;
%rename(AclAippDims) aclAippDims;
%rename(AclTensorDesc) aclTensorDesc;
%rename(AclopAttr) aclopAttr;
%rename(AclDataType) aclDataType;
%rename(AclFormat) aclFormat;
%rename(AcldumpType) acldumpType;
%rename(AclrtMemMallocPolicy) aclrtMemMallocPolicy;
%rename(AclrtMemcpyKind) aclrtMemcpyKind;
%rename(AclrtMemAttr) aclrtMemAttr;
%rename(AclrtRunMode) aclrtRunMode;
%rename(AclrtEventStatus) aclrtEventStatus;
%rename(AclrtEventRecordedStatus) aclrtEventRecordedStatus;
%rename(AclrtStreamStatus) aclrtStreamStatus;
%rename(AclrtCallbackBlockType) aclrtCallbackBlockType;
%rename(AclLogLevel) aclLogLevel;
%rename(AclmdlBatch) aclmdlBatch;
%rename(AclmdlHW) aclmdlHW;

// int64_t is C long under -DSWIGWORDSIZE64, and SWIG gives C long Java's 32-bit int.
%apply long long { int64_t };
// Thread ids (pthread_self) as Java long, bit for bit.
%apply long long { uint64_t };

// ---- Runtime handles and addresses: long ----------------------------------------------------
// Runtime handles by type; void * parameters by name (ADDRESS_IN, applied by acl_calls.i).
%typemap(jni) aclrtContext, aclrtStream, aclrtEvent, void *ADDRESS_IN, const void *ADDRESS_IN
    "jlong"
%typemap(jtype) aclrtContext, aclrtStream, aclrtEvent, void *ADDRESS_IN, const void *ADDRESS_IN
    "long"
%typemap(jstype) aclrtContext, aclrtStream, aclrtEvent, void *ADDRESS_IN, const void *ADDRESS_IN
    "long"
%typemap(javain) aclrtContext, aclrtStream, aclrtEvent, void *ADDRESS_IN,
                 const void *ADDRESS_IN "$javainput"
%typemap(in) aclrtContext, aclrtStream, aclrtEvent, void *ADDRESS_IN, const void *ADDRESS_IN %{
  $1 = ($1_ltype)(intptr_t)$input;
%}

// Out-parameters of those: one-element long[] (acl_calls.i applies it by name).
%typemap(jni) void **ADDRESS_OUT "jlongArray"
%typemap(jtype) void **ADDRESS_OUT "long[]"
%typemap(jstype) void **ADDRESS_OUT "long[]"
%typemap(javain) void **ADDRESS_OUT "$javainput"
%typemap(in) void **ADDRESS_OUT (void *temp = NULL) {
  if ($input == NULL || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIndexOutOfBoundsException,
                            "the out-parameter array must have at least 1 element");
    return $null;
  }
  $1 = ($1_ltype)&temp;
}
%typemap(argout) void **ADDRESS_OUT {
  jlong value = (jlong)(intptr_t)temp$argnum;
  (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &value);
}

// Enum out-parameters: one-element int[] (the enum's value).
%define ACL_JAVA_ENUM_OUT(CTYPE, NAMES...)
%typemap(jni) CTYPE *ENUM_OUT "jintArray"
%typemap(jtype) CTYPE *ENUM_OUT "int[]"
%typemap(jstype) CTYPE *ENUM_OUT "int[]"
%typemap(javain) CTYPE *ENUM_OUT "$javainput"
%typemap(in) CTYPE *ENUM_OUT (CTYPE temp) {
  if ($input == NULL || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIndexOutOfBoundsException,
                            "the out-parameter array must have at least 1 element");
    return $null;
  }
  memset(&temp, 0, sizeof(temp));
  $1 = &temp;
}
%typemap(argout) CTYPE *ENUM_OUT {
  jint value = (jint)temp$argnum;
  (*jenv)->SetIntArrayRegion(jenv, $input, 0, 1, &value);
}
%apply CTYPE *ENUM_OUT { NAMES };
%enddef

// Other out-parameters: typemaps.i's one-element arrays (OUTPUT, written on success), applied
// by acl_calls.i.

// ---- Buffers ----------------------------------------------------------------------------------
// aclCreateDataBuffer / aclUpdateDataBuffer: a direct ByteBuffer, all of its capacity (null: an
// empty buffer). The data buffer does not keep it reachable: the caller does
// (com.acldump.DataBuffer holds it).
%typemap(jni) (void *data, size_t size) "jobject"
%typemap(jtype) (void *data, size_t size) "java.nio.ByteBuffer"
%typemap(jstype) (void *data, size_t size) "java.nio.ByteBuffer"
%typemap(javain) (void *data, size_t size) "$javainput"
%typemap(in) (void *data, size_t size) {
  $1 = NULL;
  $2 = 0;
  if ($input != NULL) {
    $1 = (*jenv)->GetDirectBufferAddress(jenv, $input);
    jlong capacity = (*jenv)->GetDirectBufferCapacity(jenv, $input);
    if ($1 == NULL || capacity < 0) {
      SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException,
                              "expected a direct ByteBuffer (ByteBuffer.allocateDirect)");
      return $null;
    }
    $2 = (size_t)capacity;
  }
}

// aclmdlLoadFromMem: a byte[] (copied by the C library).
%typemap(jni) (const void *model, size_t modelSize) "jbyteArray"
%typemap(jtype) (const void *model, size_t modelSize) "byte[]"
%typemap(jstype) (const void *model, size_t modelSize) "byte[]"
%typemap(javain) (const void *model, size_t modelSize) "$javainput"
%typemap(in) (const void *model, size_t modelSize) {
  $1 = NULL;
  $2 = 0;
  if ($input != NULL) {
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
    $1 = (*jenv)->GetByteArrayElements(jenv, $input, NULL);
    if ($1 == NULL) return $null;  // OutOfMemoryError is pending
  }
}
%typemap(freearg) (const void *model, size_t modelSize) {
  if ($1 != NULL) (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, JNI_ABORT);
}

// ---- Arrays -----------------------------------------------------------------------------------
%define ACL_JAVA_ARRAY(JNIARRAY, JNITYPE, JAVATYPE, NAME, CTYPE, ARGS...)
%typemap(jni) (ARGS) "JNIARRAY"
%typemap(jtype) (ARGS) "JAVATYPE[]"
%typemap(jstype) (ARGS) "JAVATYPE[]"
%typemap(javain) (ARGS) "$javainput"
%typemap(in) (ARGS) {
  $1 = 0;
  $2 = NULL;
  if ($input != NULL) {
    $1 = (int)(*jenv)->GetArrayLength(jenv, $input);
    $2 = ($2_ltype)(*jenv)->Get##NAME##ArrayElements(jenv, $input, NULL);
    if ($2 == NULL) return $null;
  }
}
%typemap(freearg) (ARGS) {
  if ($2 != NULL) {
    (*jenv)->Release##NAME##ArrayElements(jenv, $input, (JNITYPE *)$2, JNI_ABORT);
  }
}
%enddef
// (Applied to the table's count+array parameters by acl_calls.i.)

// aclopExecuteV2: each (descs, buffers) group arrives as one long[] of pointer pairs
// {desc0, buffer0, desc1, ...}; the public method below builds it from the two arrays.
%typemap(jni) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
              (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[]) "jlongArray"
%typemap(jtype) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
                (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[]) "long[]"
%typemap(jstype) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
                 (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[]) "long[]"
%typemap(javain) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
                 (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[])
    "$javainput"
%typemap(in) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
             (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[]) {
  jsize length = (*jenv)->GetArrayLength(jenv, $input);
  jlong *pairs = (*jenv)->GetLongArrayElements(jenv, $input, NULL);
  if (pairs == NULL) return $null;
  $1 = (int)(length / 2);
  $2 = (aclTensorDesc **)calloc($1 > 0 ? (size_t)$1 : 1, sizeof(aclTensorDesc *));
  $3 = (aclDataBuffer **)calloc($1 > 0 ? (size_t)$1 : 1, sizeof(aclDataBuffer *));
  for (int i = 0; $2 != NULL && $3 != NULL && i < $1; ++i) {
    $2[i] = (aclTensorDesc *)(intptr_t)pairs[2 * i];
    $3[i] = (aclDataBuffer *)(intptr_t)pairs[2 * i + 1];
  }
  (*jenv)->ReleaseLongArrayElements(jenv, $input, pairs, JNI_ABORT);
  if ($2 == NULL || $3 == NULL) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "out of memory");
    return $null;
  }
}
%typemap(freearg) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
                  (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[]) {
  free($2);
  free($3);
}
%rename(aclopExecuteV2Pairs) aclopExecuteV2;
%javamethodmodifiers aclopExecuteV2 "private";
%pragma(java) modulecode=%{
  /** aclopExecuteV2: descs and buffers as equally long arrays (null for an absent input). */
  public static void aclopExecuteV2(String opType, AclTensorDesc[] inputDesc,
      AclDataBuffer[] inputs, AclTensorDesc[] outputDesc, AclDataBuffer[] outputs,
      AclopAttr attr, long stream) {
    aclopExecuteV2Pairs(opType, pairs(inputDesc, inputs), pairs(outputDesc, outputs), attr,
        stream);
  }

  private static long[] pairs(AclTensorDesc[] descs, AclDataBuffer[] buffers) {
    if (descs.length != buffers.length) {
      throw new IllegalArgumentException("descs and buffers differ in length");
    }
    long[] pairs = new long[2 * descs.length];
    for (int i = 0; i < descs.length; ++i) {
      pairs[2 * i] = AclTensorDesc.getCPtr(descs[i]);
      pairs[2 * i + 1] = AclDataBuffer.getCPtr(buffers[i]);
    }
    return pairs;
  }
%}

// ---- Callbacks and helpers of the JNI layer (not part of libacldump.so) ---------------------
// aclrtLaunchCallback with a Runnable: it runs in the thread that calls aclrtProcessReport (a
// Java thread; the runtime's own threads never call Java). The reference is released after
// the call (a callback the runtime drops unrun keeps it).
%{
#include <pthread.h>

static JavaVM *acl_java_vm = NULL;

static void AclJava_RunCallback(void *data) {
  JNIEnv *env = NULL;
  if (acl_java_vm == NULL ||
      (*acl_java_vm)->GetEnv(acl_java_vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) {
    return;  // not a Java thread: cannot run it
  }
  jobject runnable = (jobject)data;
  jclass cls = (*env)->GetObjectClass(env, runnable);
  jmethodID run = (*env)->GetMethodID(env, cls, "run", "()V");
  if (run != NULL) (*env)->CallVoidMethod(env, runnable, run);
  if ((*env)->ExceptionCheck(env)) {
    (*env)->ExceptionDescribe(env);  // it cannot reach the code that launched it
    (*env)->ExceptionClear(env);
  }
  (*env)->DeleteLocalRef(env, cls);
  (*env)->DeleteGlobalRef(env, runnable);
}

static aclError launchCallback(jobject runnable, aclrtCallbackBlockType blockType,
                               aclrtStream stream) {
  aclError ret = aclrtLaunchCallback(AclJava_RunCallback, runnable, blockType, stream);
  if (ret != ACL_SUCCESS) {
    JNIEnv *env = NULL;
    (*acl_java_vm)->GetEnv(acl_java_vm, (void **)&env, JNI_VERSION_1_6);
    (*env)->DeleteGlobalRef(env, runnable);
  }
  return ret;
}

// The calling thread's id for aclrtSubscribeReport (pthread_self).
static uint64_t currentThreadId(void) { return (uint64_t)pthread_self(); }

static uint64_t bufferAddress(void *data, size_t size) {
  (void)size;
  return (uint64_t)(uintptr_t)data;
}
%}
%typemap(jni) jobject runnable "jobject"
%typemap(jtype) jobject runnable "Runnable"
%typemap(jstype) jobject runnable "Runnable"
%typemap(javain) jobject runnable "$javainput"
%typemap(in) jobject runnable {
  if ($input == NULL) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "the callback is null");
    return $null;
  }
  if (acl_java_vm == NULL) (*jenv)->GetJavaVM(jenv, &acl_java_vm);
  $1 = (*jenv)->NewGlobalRef(jenv, $input);
}
%ignore aclrtLaunchCallback;
// (launchCallback, currentThreadId and bufferAddress are declared at the end of acl.i, after
// the C types they use.)

// acldumpRegCallback with a com.acldump.DumpCallback: onChunk(fileName, offset, data, last) runs
// on a dump writer thread, attached to the JVM as a daemon for the thread's life. 0 accepts the
// chunk; another value or an exception (printed) refuses it. The callback is kept (a global
// reference) until unregisterDumpCallback; a second registration keeps the first, as in C.
%{
static jobject acl_java_dump_callback = NULL;
static jmethodID acl_java_dump_on_chunk = NULL;
static pthread_mutex_t acl_java_dump_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t acl_java_attached_key;
static pthread_once_t acl_java_attached_once = PTHREAD_ONCE_INIT;

static void AclJava_Detach(void *unused) {
  (void)unused;
  if (acl_java_vm != NULL) (*acl_java_vm)->DetachCurrentThread(acl_java_vm);
}
static void AclJava_MakeAttachedKey(void) {
  pthread_key_create(&acl_java_attached_key, AclJava_Detach);
}

// The calling thread's JNIEnv, attaching a native thread (detached when it ends).
static JNIEnv *AclJava_Env(void) {
  JNIEnv *env = NULL;
  if (acl_java_vm == NULL) return NULL;
  if ((*acl_java_vm)->GetEnv(acl_java_vm, (void **)&env, JNI_VERSION_1_6) == JNI_OK) return env;
  if ((*acl_java_vm)->AttachCurrentThreadAsDaemon(acl_java_vm, (void **)&env, NULL) != JNI_OK) {
    return NULL;
  }
  pthread_once(&acl_java_attached_once, AclJava_MakeAttachedKey);
  pthread_setspecific(acl_java_attached_key, (void *)1);
  return env;
}

static int32_t AclJava_RunDumpCallback(const acldumpChunk *chunk, int32_t length) {
  (void)length;
  JNIEnv *env = AclJava_Env();
  if (env == NULL) return -1;
  pthread_mutex_lock(&acl_java_dump_mutex);
  jobject callback = acl_java_dump_callback ? (*env)->NewLocalRef(env, acl_java_dump_callback)
                                            : NULL;
  jmethodID on_chunk = acl_java_dump_on_chunk;
  pthread_mutex_unlock(&acl_java_dump_mutex);
  if (callback == NULL) return -1;
  int32_t status = -1;
  jstring name = (*env)->NewStringUTF(env, chunk->fileName);
  jbyteArray data = (*env)->NewByteArray(env, (jsize)chunk->bufLen);
  if (name != NULL && data != NULL) {
    (*env)->SetByteArrayRegion(env, data, 0, (jsize)chunk->bufLen, (const jbyte *)chunk->dataBuf);
    status = (int32_t)(*env)->CallIntMethod(env, callback, on_chunk, name, (jlong)chunk->offset,
                                            data, (jboolean)(chunk->isLastChunk != 0));
  }
  if ((*env)->ExceptionCheck(env)) {
    (*env)->ExceptionDescribe(env);  // the writer thread has no caller to throw it to
    (*env)->ExceptionClear(env);
    status = -1;
  }
  if (name != NULL) (*env)->DeleteLocalRef(env, name);
  if (data != NULL) (*env)->DeleteLocalRef(env, data);
  (*env)->DeleteLocalRef(env, callback);
  return status;
}

static aclError registerDumpCallback(jobject dumpCallback, int32_t flag) {
  JNIEnv *env = AclJava_Env();
  pthread_mutex_lock(&acl_java_dump_mutex);
  const int first = acl_java_dump_callback == NULL && flag == 0;
  if (first) {
    jclass cls = (*env)->GetObjectClass(env, dumpCallback);
    acl_java_dump_on_chunk =
        (*env)->GetMethodID(env, cls, "onChunk", "(Ljava/lang/String;J[BZ)I");
    (*env)->DeleteLocalRef(env, cls);
    acl_java_dump_callback = dumpCallback;
  }
  pthread_mutex_unlock(&acl_java_dump_mutex);
  aclError ret = acldumpRegCallback(AclJava_RunDumpCallback, flag);
  if (!first || ret != ACL_SUCCESS) {
    pthread_mutex_lock(&acl_java_dump_mutex);
    if (first) acl_java_dump_callback = NULL;
    pthread_mutex_unlock(&acl_java_dump_mutex);
    (*env)->DeleteGlobalRef(env, dumpCallback);
  }
  return ret;
}

static void unregisterDumpCallback(void) {
  acldumpUnregCallback();  // waits for chunks being delivered
  pthread_mutex_lock(&acl_java_dump_mutex);
  jobject callback = acl_java_dump_callback;
  acl_java_dump_callback = NULL;
  pthread_mutex_unlock(&acl_java_dump_mutex);
  JNIEnv *env = AclJava_Env();
  if (callback != NULL && env != NULL) (*env)->DeleteGlobalRef(env, callback);
}
%}
%typemap(jni) jobject dumpCallback "jobject"
%typemap(jtype) jobject dumpCallback "com.acldump.DumpCallback"
%typemap(jstype) jobject dumpCallback "com.acldump.DumpCallback"
%typemap(javain) jobject dumpCallback "$javainput"
%typemap(in) jobject dumpCallback {
  if ($input == NULL) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "the dump callback is null");
    return $null;
  }
  if (acl_java_vm == NULL) (*jenv)->GetJavaVM(jenv, &acl_java_vm);
  $1 = (*jenv)->NewGlobalRef(jenv, $input);
}
ACL_JAVA_CHECKED(aclbindingExceptionInfoPath)
%ignore acldumpUnregCallback;

// acldumpSaveExceptionInfo with one array entry per tensor (com.acldump.Acl.saveExceptionInfo
// builds them): its type, bytes (copied), aclFormat, aclDataType and shape / original shape.
%native(saveExceptionInfo) void saveExceptionInfo(jstring fileName, jstring userTag,
                                                  jintArray types, jobjectArray data,
                                                  jintArray formats, jintArray dataTypes,
                                                  jobjectArray shapes, jobjectArray originShapes);
%{
static uint32_t AclJava_Dims(JNIEnv *jenv, jobjectArray all, jsize i, uint64_t *dims) {
  jlongArray array = (jlongArray)(*jenv)->GetObjectArrayElement(jenv, all, i);
  if (array == NULL) return 0;
  jsize n = (*jenv)->GetArrayLength(jenv, array);
  jlong *values = (*jenv)->GetLongArrayElements(jenv, array, NULL);
  for (jsize d = 0; d < n && d < ACL_DUMP_MAX_SHAPE_NUM; ++d) dims[d] = (uint64_t)values[d];
  (*jenv)->ReleaseLongArrayElements(jenv, array, values, JNI_ABORT);
  (*jenv)->DeleteLocalRef(jenv, array);
  return (uint32_t)n;  // more than the maximum: refused by the C call
}

JNIEXPORT void JNICALL Java_com_acldump_swig_AclNativeJNI_saveExceptionInfo(
    JNIEnv *jenv, jclass cls, jstring fileName, jstring userTag, jintArray types,
    jobjectArray data, jintArray formats, jintArray dataTypes, jobjectArray shapes,
    jobjectArray originShapes) {
  (void)cls;
  const jsize n = types == NULL ? 0 : (*jenv)->GetArrayLength(jenv, types);
  acldumpTensorInfo *infos = (acldumpTensorInfo *)calloc((size_t)n + 1, sizeof(*infos));
  void **copies = (void **)calloc((size_t)n + 1, sizeof(void *));
  const char *name = fileName ? (*jenv)->GetStringUTFChars(jenv, fileName, NULL) : NULL;
  const char *tag = userTag ? (*jenv)->GetStringUTFChars(jenv, userTag, NULL) : NULL;
  aclError ret = ACL_ERROR_BAD_ALLOC;
  if (infos != NULL && copies != NULL) {
    jint *type = (*jenv)->GetIntArrayElements(jenv, types, NULL);
    jint *format = (*jenv)->GetIntArrayElements(jenv, formats, NULL);
    jint *dtype = (*jenv)->GetIntArrayElements(jenv, dataTypes, NULL);
    for (jsize i = 0; i < n; ++i) {
      jbyteArray bytes = (jbyteArray)(*jenv)->GetObjectArrayElement(jenv, data, i);
      jsize size = bytes == NULL ? 0 : (*jenv)->GetArrayLength(jenv, bytes);
      if (size > 0 && (copies[i] = malloc((size_t)size)) != NULL) {
        (*jenv)->GetByteArrayRegion(jenv, bytes, 0, size, (jbyte *)copies[i]);
      }
      if (bytes != NULL) (*jenv)->DeleteLocalRef(jenv, bytes);
      infos[i].type = (acldumpTensorType)type[i];
      infos[i].tensorAddr = (int64_t *)copies[i];
      infos[i].tensorSize = copies[i] != NULL ? (size_t)size : 0;
      infos[i].format = format[i];
      infos[i].dataType = dtype[i];
      infos[i].addrType = ACL_DUMP_ADDR_RAW;
      infos[i].placement = ACL_DUMP_PLACEMENT_DEVICE;
      infos[i].argsOffset = (uint32_t)i;
      infos[i].shapeNum = AclJava_Dims(jenv, shapes, i, infos[i].shape);
      infos[i].originShapeNum = AclJava_Dims(jenv, originShapes, i, infos[i].originShape);
    }
    (*jenv)->ReleaseIntArrayElements(jenv, types, type, JNI_ABORT);
    (*jenv)->ReleaseIntArrayElements(jenv, formats, format, JNI_ABORT);
    (*jenv)->ReleaseIntArrayElements(jenv, dataTypes, dtype, JNI_ABORT);
    ret = acldumpSaveExceptionInfo(name, tag, n > 0 ? infos : NULL, (size_t)n);
  }
  for (jsize i = 0; copies != NULL && i < n; ++i) free(copies[i]);
  free(copies);
  free(infos);
  if (name != NULL) (*jenv)->ReleaseStringUTFChars(jenv, fileName, name);
  if (tag != NULL) (*jenv)->ReleaseStringUTFChars(jenv, userTag, tag);
  if (ret != ACL_SUCCESS) AclJava_Throw(jenv, ret);
}
%}

// A direct ByteBuffer over `size` bytes at `address` (device or host memory from the runtime);
// valid while that memory is.
%typemap(jstype) jobject deviceBuffer "java.nio.ByteBuffer"
%typemap(jtype) jobject deviceBuffer "java.nio.ByteBuffer"
%native(deviceBuffer) jobject deviceBuffer(jlong address, jlong size);
%{
JNIEXPORT jobject JNICALL Java_com_acldump_swig_AclNativeJNI_deviceBuffer(JNIEnv *jenv,
                                                                        jclass cls,
                                                                        jlong address,
                                                                        jlong size) {
  (void)cls;
  return (*jenv)->NewDirectByteBuffer(jenv, (void *)(intptr_t)address, size);
}
%}

// The JNI wrapper library (bindings/java:libacldump_jni.so, found on java.library.path); it
// finds libacldump.so through its rpath.
%pragma(java) jniclasscode=%{
  static {
    NativeLibrary.load();
  }
%}
