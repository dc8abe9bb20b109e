// Python typemaps for acl.i (the pyACL call shape). Every C function keeps its aclError return as
// an int; out-parameters are appended to the result and the `acl` package reorders them to
// pyACL's (value, ret). Buffers are ints (addresses) or objects with the buffer protocol.

// ---- Recent error message ---------------------------------------------------------------------
// A garbage-collected handle calls its aclDestroy* function, which clears the C library's
// thread-local message; that can happen between a failed call and aclGetRecentErrMsg(). So the
// wrapper copies the message right after each C call (in the same wrapper call) into the Python
// thread's state, and aclGetRecentErrMsg() reads that copy. Destructors do not replace it, nor
// do destroy functions unless they fail.
%{
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char kAclPyRecentKey[] = "acldump.recent_err_msg";

static void AclPy_RememberError(void) {
  PyObject *state = PyThreadState_GetDict();
  if (state == NULL) return;
  const char *message = aclGetRecentErrMsg();
  PyObject *text = PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace");
  if (text == NULL || PyDict_SetItemString(state, kAclPyRecentKey, text) != 0) PyErr_Clear();
  Py_XDECREF(text);
}

static PyObject *AclPy_RecentErrMsg(void) {
  PyObject *state = PyThreadState_GetDict();
  PyObject *text = state ? PyDict_GetItemString(state, kAclPyRecentKey) : NULL;
  if (text == NULL) return PyUnicode_FromString("");
  Py_INCREF(text);
  return text;
}
%}

%exception {
  $action
  AclPy_RememberError();
}
%define ACL_PY_REMEMBER_FAILURE(FUNCTION)
%exception FUNCTION {
  $action
  if (result != ACL_SUCCESS) AclPy_RememberError();
}
%enddef
ACL_PY_REMEMBER_FAILURE(aclDestroyDataBuffer)
ACL_PY_REMEMBER_FAILURE(aclmdlDestroyDataset)
ACL_PY_REMEMBER_FAILURE(aclmdlDestroyDesc)
%noexception aclDestroyTensorDesc;
%noexception aclopDestroyAttr;
%noexception aclDataBuffer::~aclDataBuffer;
%noexception aclmdlDataset::~aclmdlDataset;
%noexception aclmdlDesc::~aclmdlDesc;
%noexception aclTensorDesc::~aclTensorDesc;
%noexception aclopAttr::~aclopAttr;
%noexception AclPy_RecentErrMsg;
%nothread AclPy_RecentErrMsg;  // it uses the Python API

// acl.app_log: the variadic aclAppLog with the message as its one "%s" argument. It leaves the
// recent error message as it is.
%noexception AclPy_AppLog;
%inline %{
static void AclPy_AppLog(int level, const char *func, const char *file, unsigned int line,
                         const char *message) {
  aclAppLog((aclLogLevel)level, func, file, (uint32_t)line, "%s", message);
}
%}

%ignore aclGetRecentErrMsg;
%rename(aclGetRecentErrMsg) AclPy_RecentErrMsg;
PyObject *AclPy_RecentErrMsg(void);

// ---- Out-parameters (written by C only on success; 0 otherwise) ------------------------------
// The typemaps by C type; acl_calls.i (generated from bindings/calls.py) applies them to the
// out-parameters of the table's rows, by name.

// Scalar out-parameters, as ints / floats.
%define ACL_PY_OUT(CTYPE, CONVERT, NAMES...)
%typemap(in, numinputs=0) CTYPE *OUT_ (CTYPE temp) "memset(&temp, 0, sizeof(temp)); $1 = &temp;"
%typemap(argout) CTYPE *OUT_ {
  $result = SWIG_Python_AppendOutput($result, CONVERT(*$1));
}
%apply CTYPE *OUT_ { NAMES };
%enddef

// Addresses and runtime handles (contexts, streams, events) come back as ints (pyACL style).
%typemap(in, numinputs=0) void **ADDRESS_OUT (void *temp = NULL) "$1 = &temp;"
%typemap(argout) void **ADDRESS_OUT {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(*$1));
}

// Out structs (STRUCT_OUT) of aclmdlGetDynamicBatch / aclmdlGetDynamicHW: pyACL's dicts, None on
// failure.
%ignore aclmdlBatch;
%ignore aclmdlHW;
%typemap(in, numinputs=0) aclmdlBatch *STRUCT_OUT (aclmdlBatch temp) {
  memset(&temp, 0, sizeof(temp));
  $1 = &temp;
}
%typemap(argout) aclmdlBatch *STRUCT_OUT {
  PyObject *value = Py_None;
  if (result == ACL_SUCCESS) {
    size_t count = $1->batchCount < ACL_MAX_BATCH_NUM ? $1->batchCount : ACL_MAX_BATCH_NUM;
    PyObject *batch = PyList_New((Py_ssize_t)count);
    if (batch == NULL) SWIG_fail;
    for (size_t i = 0; i < count; ++i) {
      PyList_SET_ITEM(batch, (Py_ssize_t)i, PyLong_FromUnsignedLongLong($1->batch[i]));
    }
    value = Py_BuildValue("{s:n,s:N}", "batchCount", (Py_ssize_t)count, "batch", batch);
    if (value == NULL) SWIG_fail;
  } else {
    Py_INCREF(value);
  }
  $result = SWIG_Python_AppendOutput($result, value);
}
%typemap(in, numinputs=0) aclmdlHW *STRUCT_OUT (aclmdlHW temp) {
  memset(&temp, 0, sizeof(temp));
  $1 = &temp;
}
%typemap(argout) aclmdlHW *STRUCT_OUT {
  PyObject *value = Py_None;
  if (result == ACL_SUCCESS) {
    size_t count = $1->hwCount < ACL_MAX_HW_NUM ? $1->hwCount : ACL_MAX_HW_NUM;
    PyObject *hw = PyList_New((Py_ssize_t)count);
    if (hw == NULL) SWIG_fail;
    for (size_t i = 0; i < count; ++i) {
      PyList_SET_ITEM(hw, (Py_ssize_t)i, Py_BuildValue("[KK]", $1->hw[i][0], $1->hw[i][1]));
    }
    value = Py_BuildValue("{s:n,s:N}", "hwCount", (Py_ssize_t)count, "hw", hw);
    if (value == NULL) SWIG_fail;
  } else {
    Py_INCREF(value);
  }
  $result = SWIG_Python_AppendOutput($result, value);
}

// aclmdlIODims (aclmdlGet{Input,Output}Dims...): pyACL's dict {"name", "dimCount", "dims"}, None
// on failure.
%ignore aclmdlIODims;
%typemap(in, numinputs=0) aclmdlIODims *STRUCT_OUT (aclmdlIODims temp) {
  memset(&temp, 0, sizeof(temp));
  $1 = &temp;
}
%typemap(argout) aclmdlIODims *STRUCT_OUT {
  PyObject *value = Py_None;
  if (result == ACL_SUCCESS) {
    size_t count = $1->dimCount < ACL_MAX_DIM_CNT ? $1->dimCount : ACL_MAX_DIM_CNT;
    PyObject *dims = PyList_New((Py_ssize_t)count);
    if (dims == NULL) SWIG_fail;
    for (size_t i = 0; i < count; ++i) {
      PyList_SET_ITEM(dims, (Py_ssize_t)i, PyLong_FromLongLong($1->dims[i]));
    }
    value = Py_BuildValue("{s:s,s:n,s:N}", "name", $1->name, "dimCount", (Py_ssize_t)count,
                          "dims", dims);
    if (value == NULL) SWIG_fail;
  } else {
    Py_INCREF(value);
  }
  $result = SWIG_Python_AppendOutput($result, value);
}

// aclmdlSetInputDynamicDims: pyACL's dims dict ({"dimCount", "dims"}; "name" is unused), or a
// sequence of ints.
%typemap(in) const aclmdlIODims *dims (aclmdlIODims temp) {
  memset(&temp, 0, sizeof(temp));
  PyObject *values = $input;
  if (PyDict_Check($input)) {
    values = PyDict_GetItemString($input, "dims");
    if (values == NULL) {
      PyErr_SetString(PyExc_ValueError, "dims: the dict has no \"dims\" list");
      SWIG_fail;
    }
  }
  PyObject *seq = PySequence_Fast(values, "dims: a dict {\"dimCount\", \"dims\"} or a sequence "
                                          "of ints");
  if (seq == NULL) SWIG_fail;
  Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
  if (count > ACL_MAX_DIM_CNT) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "dims: %zd values, at most ACL_MAX_DIM_CNT (%d)", count,
                 (int)ACL_MAX_DIM_CNT);
    SWIG_fail;
  }
  for (Py_ssize_t i = 0; i < count; ++i) {
    temp.dims[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (PyErr_Occurred()) {
      Py_DECREF(seq);
      SWIG_fail;
    }
  }
  Py_DECREF(seq);
  temp.dimCount = (size_t)count;
  if (PyDict_Check($input)) {
    PyObject *declared = PyDict_GetItemString($input, "dimCount");
    if (declared != NULL && PyLong_AsSsize_t(declared) != count) {
      if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError, "dims: dimCount is %zd, the dims list has %zd values",
                     PyLong_AsSsize_t(declared), count);
      }
      SWIG_fail;
    }
  }
  $1 = &temp;
}

// (An in-parameter: without this, the out-dims typemap of the non-const type would apply.)
%typemap(argout) const aclmdlIODims *dims ""

// aclmdlGetInputDynamicDims: gear_count in; out a list of pyACL dims dicts, one per gear (None
// on failure).
%typemap(in) (aclmdlIODims *gearDims, size_t gearCount) (aclmdlIODims *gears = NULL) {
  size_t count = PyLong_AsSize_t($input);
  if (PyErr_Occurred()) SWIG_fail;
  if (count > 100000) {
    PyErr_Format(PyExc_ValueError, "gear_count %zu is not a model's gear count", count);
    SWIG_fail;
  }
  gears = (aclmdlIODims *)calloc(count ? count : 1, sizeof(aclmdlIODims));
  if (gears == NULL) {
    PyErr_NoMemory();
    SWIG_fail;
  }
  $1 = gears;
  $2 = count;
}
%typemap(argout) (aclmdlIODims *gearDims, size_t gearCount) {
  PyObject *value = Py_None;
  if (result == ACL_SUCCESS) {
    /* The model's gears only: room asked for beyond them stays unfilled (dimCount 0). */
    size_t gears = 0;
    while (gears < $2 && $1[gears].dimCount > 0) ++gears;
    value = PyList_New((Py_ssize_t)gears);
    if (value == NULL) SWIG_fail;
    for (size_t g = 0; g < gears; ++g) {
      const aclmdlIODims *gear = &$1[g];
      size_t count = gear->dimCount < ACL_MAX_DIM_CNT ? gear->dimCount : ACL_MAX_DIM_CNT;
      PyObject *dims = PyList_New((Py_ssize_t)count);
      if (dims == NULL) {
        Py_DECREF(value);
        SWIG_fail;
      }
      for (size_t i = 0; i < count; ++i) {
        PyList_SET_ITEM(dims, (Py_ssize_t)i, PyLong_FromLongLong(gear->dims[i]));
      }
      PyObject *entry = Py_BuildValue("{s:s,s:n,s:N}", "name", gear->name, "dimCount",
                                      (Py_ssize_t)count, "dims", dims);
      if (entry == NULL) {
        Py_DECREF(value);
        SWIG_fail;
      }
      PyList_SET_ITEM(value, (Py_ssize_t)g, entry);
    }
  } else {
    Py_INCREF(value);
  }
  $result = SWIG_Python_AppendOutput($result, value);
}
%typemap(freearg) (aclmdlIODims *gearDims, size_t gearCount) { free(gears$argnum); }

// aclmdlGetFirstAippInfo: a dict of aclAippInfo's fields (outDims as a list of dicts), None on
// failure.
%ignore aclAippInfo;
%ignore aclAippDims;
%{
static PyObject *AclPy_IODims(const aclmdlIODims *d) {
  size_t count = d->dimCount < ACL_MAX_DIM_CNT ? d->dimCount : ACL_MAX_DIM_CNT;
  PyObject *dims = PyList_New((Py_ssize_t)count);
  if (dims == NULL) return NULL;
  for (size_t i = 0; i < count; ++i) {
    PyList_SET_ITEM(dims, (Py_ssize_t)i, PyLong_FromLongLong(d->dims[i]));
  }
  return Py_BuildValue("{s:s,s:n,s:N}", "name", d->name, "dimCount", (Py_ssize_t)count, "dims",
                       dims);
}
%}
%typemap(in, numinputs=0) aclAippInfo *aippInfo (aclAippInfo *info = NULL) {
  /* About 300 KB: on the heap. */
  info = (aclAippInfo *)calloc(1, sizeof(aclAippInfo));
  if (info == NULL) {
    PyErr_NoMemory();
    SWIG_fail;
  }
  $1 = info;
}
%typemap(freearg) aclAippInfo *aippInfo { free(info$argnum); }
%typemap(argout) aclAippInfo *aippInfo {
  PyObject *value = Py_None;
  if (result == ACL_SUCCESS) {
    const aclAippInfo *a = $1;
    size_t count = a->shapeCount < ACL_MAX_SHAPE_COUNT ? a->shapeCount : ACL_MAX_SHAPE_COUNT;
    PyObject *out_dims = PyList_New((Py_ssize_t)count);
    if (out_dims == NULL) SWIG_fail;
    for (size_t i = 0; i < count; ++i) {
      PyObject *entry = Py_BuildValue("{s:N,s:n,s:N,s:n}", "srcDims",
                                      AclPy_IODims(&a->outDims[i].srcDims), "srcSize",
                                      (Py_ssize_t)a->outDims[i].srcSize, "aippOutdims",
                                      AclPy_IODims(&a->outDims[i].aippOutdims), "aippOutSize",
                                      (Py_ssize_t)a->outDims[i].aippOutSize);
      if (entry == NULL) {
        Py_DECREF(out_dims);
        SWIG_fail;
      }
      PyList_SET_ITEM(out_dims, (Py_ssize_t)i, entry);
    }
    value = Py_BuildValue(
        "{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,"
        "s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,"
        "s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:i,s:i,s:n,s:n,s:N}",
        "inputFormat", (int)a->inputFormat, "srcImageSizeW", a->srcImageSizeW,
        "srcImageSizeH", a->srcImageSizeH, "cropSwitch", (int)a->cropSwitch, "loadStartPosW",
        a->loadStartPosW, "loadStartPosH", a->loadStartPosH, "cropSizeW", a->cropSizeW,
        "cropSizeH", a->cropSizeH, "resizeSwitch", (int)a->resizeSwitch, "resizeOutputW",
        a->resizeOutputW, "resizeOutputH", a->resizeOutputH, "paddingSwitch",
        (int)a->paddingSwitch, "leftPaddingSize", a->leftPaddingSize, "rightPaddingSize",
        a->rightPaddingSize, "topPaddingSize", a->topPaddingSize, "bottomPaddingSize",
        a->bottomPaddingSize, "cscSwitch", (int)a->cscSwitch, "rbuvSwapSwitch",
        (int)a->rbuvSwapSwitch, "axSwapSwitch", (int)a->axSwapSwitch, "singleLineMode",
        (int)a->singleLineMode, "matrixR0C0", a->matrixR0C0, "matrixR0C1", a->matrixR0C1,
        "matrixR0C2", a->matrixR0C2, "matrixR1C0", a->matrixR1C0, "matrixR1C1", a->matrixR1C1,
        "matrixR1C2", a->matrixR1C2, "matrixR2C0", a->matrixR2C0, "matrixR2C1", a->matrixR2C1,
        "matrixR2C2", a->matrixR2C2, "outputBias0", a->outputBias0, "outputBias1",
        a->outputBias1, "outputBias2", a->outputBias2, "inputBias0", a->inputBias0,
        "inputBias1", a->inputBias1, "inputBias2", a->inputBias2, "meanChn0", a->meanChn0,
        "meanChn1", a->meanChn1, "meanChn2", a->meanChn2, "meanChn3", a->meanChn3, "minChn0",
        (double)a->minChn0, "minChn1", (double)a->minChn1, "minChn2", (double)a->minChn2,
        "minChn3", (double)a->minChn3, "varReciChn0", (double)a->varReciChn0, "varReciChn1",
        (double)a->varReciChn1, "varReciChn2", (double)a->varReciChn2, "varReciChn3",
        (double)a->varReciChn3, "srcFormat", (int)a->srcFormat, "srcDatatype",
        (int)a->srcDatatype, "srcDimNum", (Py_ssize_t)a->srcDimNum, "shapeCount",
        (Py_ssize_t)count, "outDims", out_dims);
    if (value == NULL) SWIG_fail;
  } else {
    Py_INCREF(value);
  }
  $result = SWIG_Python_AppendOutput($result, value);
}

// ---- Memory -----------------------------------------------------------------------------------
// Addresses: an int (from acl.rt.malloc or numpy's arr.ctypes.data) or None (NULL). For
// aclCreateDataBuffer / aclUpdateDataBuffer also a writable, C-contiguous object with the buffer
// protocol (bytearray, numpy array, memoryview); the runtime writes outputs into it, so bytes are
// refused. The buffer does not own the memory: the caller keeps the object alive
// (acl.create_data_buffer pins it on the returned handle).
%{
enum { kAclPyAddressOnly = 0, kAclPyWritableBuffer = 1, kAclPyAnyBuffer = 2 };

static int AclPy_Address(PyObject *input, int buffers, void **out) {
  if (input == Py_None) {
    *out = NULL;
    return 0;
  }
  if (PyLong_Check(input)) {
    *out = PyLong_AsVoidPtr(input);
    return PyErr_Occurred() ? -1 : 0;
  }
  if (buffers != kAclPyAddressOnly && PyObject_CheckBuffer(input)) {
    Py_buffer view;
    int flags = buffers == kAclPyWritableBuffer ? PyBUF_WRITABLE : PyBUF_SIMPLE;
    if (PyObject_GetBuffer(input, &view, flags) != 0) return -1;
    *out = view.buf;
    PyBuffer_Release(&view);
    return 0;
  }
  PyErr_SetString(PyExc_TypeError,
                  buffers == kAclPyWritableBuffer
                      ? "expected an address (int), None or a writable buffer"
                      : buffers == kAclPyAnyBuffer ? "expected an address (int), None or a buffer"
                                                   : "expected an address (int) or None");
  return -1;
}
%}
// By name (acl_calls.i applies them to the table's void * parameters): WRITABLE_IN, BUFFER_IN,
// ADDRESS_IN. Runtime handles by type.
%typemap(in) void *WRITABLE_IN {
  if (AclPy_Address($input, kAclPyWritableBuffer, &$1) != 0) SWIG_fail;
}
%typemap(in) const void *BUFFER_IN (void *address) {
  if (AclPy_Address($input, kAclPyAnyBuffer, &address) != 0) SWIG_fail;
  $1 = address;
}
%typemap(in) void *ADDRESS_IN, aclrtContext, aclrtStream, aclrtEvent {
  if (AclPy_Address($input, kAclPyAddressOnly, &$1) != 0) SWIG_fail;
}
%apply void *WRITABLE_IN { void *data };  // aclCreateDataBuffer, aclUpdateDataBuffer (special)
%typemap(out) void * {
  $result = PyLong_FromVoidPtr($1);
}

// aclmdlLoadFromMem: any bytes-like object; it is copied by the C library.
%typemap(in) (const void *model, size_t modelSize) (Py_buffer view, int have_view = 0) {
  if (PyObject_GetBuffer($input, &view, PyBUF_SIMPLE) != 0) SWIG_fail;
  have_view = 1;
  $1 = view.buf;
  $2 = (size_t)view.len;
}
%typemap(freearg) (const void *model, size_t modelSize) {
  if (have_view$argnum) PyBuffer_Release(&view$argnum);
}

// ---- Sequences --------------------------------------------------------------------------------
%define ACL_PY_SEQUENCE(CTYPE, CONVERT, ARGS...)
%typemap(in) (ARGS) (CTYPE *values = NULL) {
  PyObject *items = PySequence_Fast($input, "expected a sequence of numbers");
  if (items == NULL) SWIG_fail;
  Py_ssize_t count = PySequence_Fast_GET_SIZE(items);
  if (count > INT_MAX) {
    Py_DECREF(items);
    SWIG_exception_fail(SWIG_ValueError, "sequence too long");
  }
  values = (CTYPE *)calloc(count > 0 ? (size_t)count : 1, sizeof(CTYPE));
  if (values == NULL) {
    Py_DECREF(items);
    SWIG_exception_fail(SWIG_MemoryError, "out of memory");
  }
  for (Py_ssize_t i = 0; i < count; ++i) {
    values[i] = (CTYPE)CONVERT(PySequence_Fast_GET_ITEM(items, i));
  }
  Py_DECREF(items);
  if (PyErr_Occurred()) SWIG_fail;
  $1 = (int)count;
  $2 = values;
}
%typemap(freearg) (ARGS) {
  free(values$argnum);
}
%enddef

// (Applied to the table's count+array parameters by acl_calls.i.)

// aclopExecuteV2: inputs and outputs each as a sequence of (tensor desc, data buffer) pairs; an
// absent optional input is (None, None).
%{
static int AclPy_DescBufferPairs(PyObject *input, int *count, aclTensorDesc ***descs,
                                 aclDataBuffer ***buffers) {
  PyObject *items = PySequence_Fast(input, "expected a sequence of (desc, buffer) pairs");
  if (items == NULL) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
  *descs = (aclTensorDesc **)calloc(n > 0 ? (size_t)n : 1, sizeof(aclTensorDesc *));
  *buffers = (aclDataBuffer **)calloc(n > 0 ? (size_t)n : 1, sizeof(aclDataBuffer *));
  int ok = *descs != NULL && *buffers != NULL && n <= INT_MAX;
  if (!ok) PyErr_SetString(PyExc_MemoryError, "out of memory");
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    PyObject *pair = PySequence_Fast_GET_ITEM(items, i);
    PyObject *desc = NULL;
    PyObject *buffer = NULL;
    if (!PyTuple_Check(pair) || !PyArg_ParseTuple(pair, "OO", &desc, &buffer)) {
      PyErr_SetString(PyExc_TypeError, "expected (desc, buffer) pairs");
      ok = 0;
      break;
    }
    if (!SWIG_IsOK(SWIG_ConvertPtr(desc, (void **)&(*descs)[i], SWIGTYPE_p_aclTensorDesc, 0)) ||
        !SWIG_IsOK(SWIG_ConvertPtr(buffer, (void **)&(*buffers)[i], SWIGTYPE_p_aclDataBuffer,
                                   0))) {
      PyErr_SetString(PyExc_TypeError, "expected (aclTensorDesc or None, aclDataBuffer or None)");
      ok = 0;
    }
  }
  Py_DECREF(items);
  *count = (int)n;
  return ok ? 0 : -1;
}
%}
%typemap(in) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
             (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[]) {
  if (AclPy_DescBufferPairs($input, &$1, &$2, &$3) != 0) SWIG_fail;
}
%typemap(freearg) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
                  (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[]) {
  free($2);
  free($3);
}

// ---- Callbacks --------------------------------------------------------------------------------
// aclrtLaunchCallback with a Python callable: fn(user_data) runs in the thread that calls
// acl.rt.process_report, holding the GIL. The pair is released after the call (a callback the
// runtime drops unrun, when its stream is unsubscribed or destroyed first, keeps it).
%{
static void AclPy_RunCallback(void *data) {
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *pair = (PyObject *)data;
  PyObject *result = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(pair, 0),
                                                  PyTuple_GET_ITEM(pair, 1), NULL);
  if (result == NULL) {
    PyErr_Print();  /* an exception in a callback cannot reach the launching code */
  }
  Py_XDECREF(result);
  Py_DECREF(pair);
  PyGILState_Release(gil);
}

static aclError AclPy_LaunchCallback(PyObject *fn, PyObject *user_data,
                                     aclrtCallbackBlockType block_type, aclrtStream stream) {
  if (!PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "the callback must be callable");
    return -1;
  }
  PyObject *pair = PyTuple_Pack(2, fn, user_data);
  if (pair == NULL) return -1;
  aclError ret = aclrtLaunchCallback(AclPy_RunCallback, pair, block_type, stream);
  if (ret != ACL_SUCCESS) Py_DECREF(pair);
  return ret;
}
%}
%ignore aclrtLaunchCallback;
%nothread AclPy_LaunchCallback;  // it uses the Python API; queuing the callback never blocks
%exception AclPy_LaunchCallback {
  $action
  if (result == -1 && PyErr_Occurred()) SWIG_fail;
  AclPy_RememberError();
}
// (Declared at the end of acl.i, after the C types it uses.)

// acldumpRegCallback with a Python callable: fn(file_name, offset, data, is_last) for each chunk,
// on a dump writer thread, holding the GIL. None or 0 accepts the chunk; another value or an
// exception (printed) refuses it, and aclmdlFinalizeDump reports the file. The callable is kept
// until acl.dump.unreg_callback (a second registration keeps the first, as the C call does).
%{
static PyObject *aclpy_dump_callback = NULL;  /* guarded by the GIL */

static int32_t AclPy_RunDumpCallback(const acldumpChunk *chunk, int32_t length) {
  (void)length;
  PyGILState_STATE gil = PyGILState_Ensure();
  int32_t status = -1;
  PyObject *fn = aclpy_dump_callback;
  Py_XINCREF(fn);
  if (fn != NULL) {
    PyObject *result = PyObject_CallFunction(
        fn, "NLNO", PyUnicode_DecodeFSDefault(chunk->fileName), (long long)chunk->offset,
        PyBytes_FromStringAndSize((const char *)chunk->dataBuf, (Py_ssize_t)chunk->bufLen),
        chunk->isLastChunk ? Py_True : Py_False);
    if (result == NULL) {
      PyErr_Print();  /* the writer thread has no caller to raise it in */
    } else if (result == Py_None) {
      status = 0;
    } else if (PyLong_Check(result)) {
      long value = PyLong_AsLong(result);
      if (value == -1 && PyErr_Occurred()) PyErr_Clear();
      status = value == 0 ? 0 : (value > INT32_MAX || value < INT32_MIN ? -1 : (int32_t)value);
    }
    Py_XDECREF(result);
    Py_DECREF(fn);
  }
  PyGILState_Release(gil);
  return status;
}

static aclError AclPy_DumpRegCallback(PyObject *fn, int32_t flag) {
  if (!PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "the dump callback must be callable");
    return -1;
  }
  const int first = aclpy_dump_callback == NULL && flag == 0;
  if (first) {
    Py_INCREF(fn);
    aclpy_dump_callback = fn;
  }
  aclError ret;
  Py_BEGIN_ALLOW_THREADS
  ret = acldumpRegCallback(AclPy_RunDumpCallback, flag);
  Py_END_ALLOW_THREADS
  if (ret != ACL_SUCCESS && first) {
    Py_CLEAR(aclpy_dump_callback);
  }
  return ret;
}

static void AclPy_DumpUnregCallback(void) {
  /* Waits for chunks being delivered, whose callbacks need the GIL. */
  Py_BEGIN_ALLOW_THREADS
  acldumpUnregCallback();
  Py_END_ALLOW_THREADS
  Py_CLEAR(aclpy_dump_callback);
}
%}
%nothread AclPy_DumpRegCallback;  // they use the Python API and release the GIL themselves
%nothread AclPy_DumpUnregCallback;
%exception AclPy_DumpRegCallback {
  $action
  if (result == -1 && PyErr_Occurred()) SWIG_fail;
  AclPy_RememberError();
}

// acldumpSaveExceptionInfo with tensors as a sequence of tuples (type, address, size, format,
// data_type, shape, origin_shape), built by acl.dump.save_exception_info.
%{
static int AclPy_Dims(PyObject *sequence, uint32_t *count, uint64_t *dims) {
  PyObject *fast = PySequence_Fast(sequence, "a shape must be a sequence of ints");
  if (fast == NULL) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  /* More than ACL_DUMP_MAX_SHAPE_NUM dims: the count goes to C, which refuses it. */
  *count = (uint32_t)n;
  for (Py_ssize_t i = 0; i < n && i < ACL_DUMP_MAX_SHAPE_NUM; ++i) {
    dims[i] = (uint64_t)PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
    if (PyErr_Occurred()) {
      Py_DECREF(fast);
      return -1;
    }
  }
  Py_DECREF(fast);
  return 0;
}

static aclError AclPy_SaveExceptionInfo(const char *fileName, const char *userTag,
                                        PyObject *tensors) {
  PyObject *fast = PySequence_Fast(tensors, "tensors must be a sequence");
  if (fast == NULL) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  acldumpTensorInfo *infos = (acldumpTensorInfo *)calloc(n > 0 ? (size_t)n : 1, sizeof(*infos));
  if (infos == NULL) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    int type, format, data_type;
    unsigned long long address, size;
    PyObject *shape, *origin;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "iKKiiOO", &type, &address,
                          &size, &format, &data_type, &shape, &origin) ||
        AclPy_Dims(shape, &infos[i].shapeNum, infos[i].shape) != 0 ||
        AclPy_Dims(origin, &infos[i].originShapeNum, infos[i].originShape) != 0) {
      free(infos);
      Py_DECREF(fast);
      return -1;
    }
    infos[i].type = (acldumpTensorType)type;
    infos[i].tensorAddr = (int64_t *)(uintptr_t)address;
    infos[i].tensorSize = (size_t)size;
    infos[i].format = format;
    infos[i].dataType = data_type;
    infos[i].addrType = ACL_DUMP_ADDR_RAW;
    infos[i].placement = ACL_DUMP_PLACEMENT_DEVICE;
    infos[i].argsOffset = (uint32_t)i;
  }
  aclError ret;
  Py_BEGIN_ALLOW_THREADS
  ret = acldumpSaveExceptionInfo(fileName, userTag, infos, (size_t)n);
  Py_END_ALLOW_THREADS
  free(infos);
  Py_DECREF(fast);
  return ret;
}
%}
%nothread AclPy_SaveExceptionInfo;  // it uses the Python API and releases the GIL itself
%exception AclPy_SaveExceptionInfo {
  $action
  if (result == -1 && PyErr_Occurred()) SWIG_fail;
  AclPy_RememberError();
}

// The address of a buffer's memory (bytes, bytearray, memoryview, numpy array), for
// acl.util.bytes_to_ptr and numpy_to_ptr. Valid while the object lives, unresized.
%{
static PyObject *AclPy_BufferAddress(PyObject *object) {
  Py_buffer view;
  if (PyObject_GetBuffer(object, &view, PyBUF_SIMPLE) != 0) return NULL;
  void *address = view.buf;
  PyBuffer_Release(&view);
  return PyLong_FromVoidPtr(address);
}
%}
%nothread AclPy_BufferAddress;
%noexception AclPy_BufferAddress;
