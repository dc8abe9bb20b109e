// The one SWIG interface over the public C ABI (bindings/c/include/acl/*.h), for Python, Java
// and Go. It only adapts: every call goes straight to the C function it names. What differs per
// language (buffers, out-parameters, how errors surface) lives in acl_<language>.i, included first
// because typemaps and renames must be seen before the declarations they apply to.
#if defined(SWIGPYTHON)
%module(package="acl") aclswig
#elif defined(SWIGJAVA)
%module AclNative
#else
%module acl
#endif

%{
#include "acl/acl.h"
#include "acl/acl_dump.h"

/* acldumpGetExceptionInfoPath into a buffer of the largest length: the path, or NULL (the recent
 * error says why). */
static const char *aclbindingExceptionInfoPath(void) {
  static __thread char path[ACL_DUMP_MAX_FILE_PATH_LENGTH];
  return acldumpGetExceptionInfoPath(path, sizeof path) == ACL_SUCCESS ? path : NULL;
}
%}

%include <stdint.i>

// size_t is not in stdint.i; SWIG knows it natively (Python int, Java long, Go int64).

#if defined(SWIGPYTHON)
%include "acl_python.i"
#elif defined(SWIGJAVA)
%include "acl_java.i"
#elif defined(SWIGGO)
%include "acl_go.i"
#else
#error "acl.i: unsupported target language"
#endif
// The typemaps of the ordinary calls, by parameter name, and their %newobject lines: generated
// from bindings/calls.py (bindings/gen_bindings.py) with the macros of acl_<language>.i.
%include "acl_calls.i"

// ---- Ownership --------------------------------------------------------------------------------
// Each opaque handle becomes a class whose destructor is its C destroy function. Handles returned
// by a Create function are owned by the target language (%newobject: the table's new=True rows,
// and aclCreateDataBuffer here); a handle read out of another object (aclmdlGetDatasetBuffer)
// is borrowed and never freed by the binding. Python also keeps the explicit aclDestroy* calls
// of the pyACL shape (%delobject: the proxy forgets the handle); Java and Go free through the
// proxy only (delete() / DeleteX), so there is one way to free.
%define ACL_HANDLE(TYPE, DESTROY)
%nodefaultctor TYPE;
struct TYPE {};
%extend TYPE {
  ~TYPE() { DESTROY($self); }
}
%enddef

ACL_HANDLE(aclDataBuffer, aclDestroyDataBuffer)
ACL_HANDLE(aclmdlDataset, aclmdlDestroyDataset)
ACL_HANDLE(aclmdlDesc, aclmdlDestroyDesc)
ACL_HANDLE(aclTensorDesc, aclDestroyTensorDesc)
ACL_HANDLE(aclopAttr, aclopDestroyAttr)
ACL_HANDLE(aclmdlAIPP, aclmdlDestroyAIPP)

%newobject aclCreateDataBuffer;

#if defined(SWIGPYTHON)
%delobject aclDestroyDataBuffer;
%delobject aclmdlDestroyDataset;
%delobject aclmdlDestroyDesc;
%delobject aclDestroyTensorDesc;
%delobject aclopDestroyAttr;
%delobject aclmdlDestroyAIPP;
#else
%ignore aclDestroyDataBuffer;
%ignore aclmdlDestroyDataset;
%ignore aclmdlDestroyDesc;
%ignore aclDestroyTensorDesc;
%ignore aclopDestroyAttr;
%ignore aclmdlDestroyAIPP;
#endif

// ---- Value types ------------------------------------------------------------------------------
// aclmdlIODims is a fixed-size out-parameter: the caller makes one (owned by the target language)
// and aclmdlGet{Input,Output}Dims fill it. Python returns a dict instead (acl_python.i).
%immutable aclmdlIODims::name;
%immutable aclmdlIODims::dimCount;
%ignore aclmdlIODims::dims;
%extend aclmdlIODims {
  // dims[index], or 0 past dimCount.
  int64_t getDim(size_t index) const {
    return index < $self->dimCount && index < ACL_MAX_DIM_CNT ? $self->dims[index] : 0;
  }
  // For aclmdlSetInputDynamicDims: dims[index] = value, dimCount grown to cover it (an index
  // past ACL_MAX_DIM_CNT is ignored).
  void setDim(size_t index, int64_t value) {
    if (index >= ACL_MAX_DIM_CNT) return;
    $self->dims[index] = value;
    if ($self->dimCount <= index) $self->dimCount = index + 1;
  }
}
// aclAippInfo (aclmdlGetFirstAippInfo) is written by the library only.
%immutable aclAippInfo;
%immutable aclAippDims;
#if !defined(SWIGPYTHON)
// An array of structs the caller sizes: Python returns pyACL's list; Java and Go read the
// gears' count (aclmdlGetInputDynamicGearCount) and set a gear with aclmdlSetInputDynamicDims.
%ignore aclmdlGetInputDynamicDims;
#endif

// aclmdlBatch / aclmdlHW (Java, Go): indexed getters instead of C arrays; Python returns dicts.
#if !defined(SWIGPYTHON)
%immutable aclmdlBatch::batchCount;
%immutable aclmdlHW::hwCount;
%ignore aclmdlBatch::batch;
%ignore aclmdlHW::hw;
%extend aclmdlBatch {
  uint64_t getBatchAt(size_t i) const { return i < ACL_MAX_BATCH_NUM ? $self->batch[i] : 0; }
}
%extend aclmdlHW {
  uint64_t getHeightAt(size_t i) const { return i < ACL_MAX_HW_NUM ? $self->hw[i][0] : 0; }
  uint64_t getWidthAt(size_t i) const { return i < ACL_MAX_HW_NUM ? $self->hw[i][1] : 0; }
}
#endif

// ---- The C ABI --------------------------------------------------------------------------------
// aclAppLog is variadic (C callers use the ACL_APP_LOG macro): no binding.
%ignore aclAppLog;
#define ACL_FUNC_VISIBILITY
#define ACL_DEPRECATED_MESSAGE(message)
%include "acl/error_codes/rt_error_codes.h"
%include "acl/error_codes/ge_error_codes.h"
%include "acl/acl_base.h"
%include "acl/acl_rt.h"
%include "acl/acl_mdl.h"
%include "acl/acl_op.h"
%include "acl/acl.h"
// acl_dump.h: a callback takes a function of the target language (its helpers below); the
// application's own tensors (acldumpSaveExceptionInfo) by a helper of each language.
%ignore acldumpRegCallback;
%ignore acldumpChunk;
%ignore acldumpTensorInfo;
%ignore acldumpSaveExceptionInfo;
%ignore acldumpGetExceptionInfoPath;
%include "acl/acl_dump.h"
const char *aclbindingExceptionInfoPath(void);

// ---- Helpers of one language's layer (defined in acl_<language>.i) ----------------------------
#if defined(SWIGPYTHON)
aclError AclPy_DumpRegCallback(PyObject *fn, int32_t flag);
aclError AclPy_SaveExceptionInfo(const char *fileName, const char *userTag, PyObject *tensors);
void AclPy_DumpUnregCallback(void);
aclError AclPy_LaunchCallback(PyObject *fn, PyObject *user_data,
                              aclrtCallbackBlockType block_type, aclrtStream stream);
PyObject *AclPy_BufferAddress(PyObject *object);
#elif defined(SWIGJAVA)
// aclrtLaunchCallback: runnable.run() in the thread that processes the stream's reports.
aclError launchCallback(jobject runnable, aclrtCallbackBlockType blockType, aclrtStream stream);
// The calling thread's id for aclrtSubscribeReport.
uint64_t currentThreadId(void);
// acldumpRegCallback / acldumpUnregCallback with a com.acldump.DumpCallback.
aclError registerDumpCallback(jobject dumpCallback, int32_t flag);
void unregisterDumpCallback(void);
// The address of a direct ByteBuffer's memory.
uint64_t bufferAddress(void *data, size_t size);
#endif
