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
ACL_JAVA_CHECKED(aclCreateDataBuffer)
ACL_JAVA_CHECKED(aclGetDataBufferSizeV2)
ACL_JAVA_CHECKED(aclmdlCreateDesc)
ACL_JAVA_CHECKED(aclmdlGetNumInputs)
ACL_JAVA_CHECKED(aclmdlGetNumOutputs)
ACL_JAVA_CHECKED(aclmdlGetInputSizeByIndex)
ACL_JAVA_CHECKED(aclmdlGetOutputSizeByIndex)
ACL_JAVA_CHECKED(aclmdlGetInputNameByIndex)
ACL_JAVA_CHECKED(aclmdlGetOutputNameByIndex)
ACL_JAVA_CHECKED(aclmdlGetInputDataType)
ACL_JAVA_CHECKED(aclmdlGetOutputDataType)
ACL_JAVA_CHECKED(aclmdlGetInputFormat)
ACL_JAVA_CHECKED(aclmdlGetOutputFormat)
ACL_JAVA_CHECKED(aclmdlCreateDataset)
ACL_JAVA_CHECKED(aclmdlGetDatasetNumBuffers)
ACL_JAVA_CHECKED(aclmdlGetDatasetBuffer)
ACL_JAVA_CHECKED(aclCreateTensorDesc)
ACL_JAVA_CHECKED(aclSetTensorDescName)
ACL_JAVA_CHECKED(aclGetTensorDescType)
ACL_JAVA_CHECKED(aclGetTensorDescNumDims)
ACL_JAVA_CHECKED(aclGetTensorDescSize)
ACL_JAVA_CHECKED(aclopCreateAttr)

// Errors arrive in exceptions; memory comes from direct ByteBuffers (no raw addresses in Java).
%ignore aclGetRecentErrMsg;
%ignore aclGetDataBufferAddr;
%ignore aclrtMalloc;
%ignore aclrtFree;

// ---- Names ------------------------------------------------------------------------------------
%rename(AclDataBuffer) aclDataBuffer;
%rename(AclmdlDataset) aclmdlDataset;
%rename(AclmdlDesc) aclmdlDesc;
%rename(AclmdlIODims) aclmdlIODims;
%rename(AclTensorDesc) aclTensorDesc;
%rename(AclopAttr) aclopAttr;
%rename(AclDataType) aclDataType;
%rename(AclFormat) aclFormat;
%rename(AclrtMemMallocPolicy) aclrtMemMallocPolicy;

// int64_t is C long under -DSWIGWORDSIZE64, and SWIG gives C long Java's 32-bit int.
%apply long long { int64_t };

// ---- Out-parameters: one-element arrays (written on success) ---------------------------------
%apply uint32_t *OUTPUT { uint32_t *modelId };
%apply int32_t *OUTPUT { int32_t *deviceId, int32_t *majorVersion, int32_t *minorVersion,
                         int32_t *patchVersion };

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
ACL_JAVA_ARRAY(jlongArray, jlong, long, Long, const int64_t, int numDims, const int64_t *dims)
ACL_JAVA_ARRAY(jlongArray, jlong, long, Long, const int64_t, int numValues,
               const int64_t *values)
ACL_JAVA_ARRAY(jfloatArray, jfloat, float, Float, const float, int numValues, const float *values)

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
      AclopAttr attr, SWIGTYPE_p_void stream) {
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

// The JNI wrapper library (bindings/java:libacldump_jni.so, found on java.library.path); it
// finds libacldump.so through its rpath.
%pragma(java) jniclasscode=%{
  static {
    System.loadLibrary("acldump_jni");
  }
%}
