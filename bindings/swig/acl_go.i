// Go typemaps for acl.i (package acl, built with -cgo). Functions keep the C names, capitalised
// (AclmdlSetDump), and return the aclError as an int. Go code may move between OS threads between
// two cgo calls, so reading AclGetRecentErrMsg() after a failed call needs
// runtime.LockOSThread around both; the idiomatic package acldump instead reads the message in
// the same cgo call that failed. Handles are freed with DeleteX (e.g. DeleteAclDataBuffer).

// ---- Out-parameters: one-element slices, written with 0 on failure ----------------------------
// Applied to the table's out-parameters by name (acl_calls.i); addresses and runtime handles
// (contexts, streams, events) as uintptr.
%define ACL_GO_OUT(CTYPE, GOTYPE, NAMES...)
%typemap(gotype) CTYPE *OUT_ %{[]GOTYPE%}
%typemap(in) CTYPE *OUT_ (CTYPE temp = 0) {
  if ($input.len == 0) {
    _swig_gopanic("the out-parameter slice must have at least 1 element");
  }
  $1 = &temp;
}
%typemap(argout) CTYPE *OUT_ {
  ((CTYPE *)$input.array)[0] = temp$argnum;
}
%apply CTYPE *OUT_ { NAMES };
%enddef

// Callbacks need a Go function: package acldump has Stream.LaunchCallback.
%ignore aclrtLaunchCallback;

// ---- Buffers ----------------------------------------------------------------------------------
// Data buffers point at C memory (AclrtMalloc) given as uintptr: cgo forbids C keeping pointers
// into Go memory after a call returns. aclmdlLoadFromMem copies its input, so it takes a []byte.
%typemap(gotype) (const void *model, size_t modelSize) "[]byte"
%typemap(in) (const void *model, size_t modelSize) {
  $1 = $input.array;
  $2 = (size_t)$input.len;
}

%define ACL_GO_SLICE(CTYPE, GOTYPE, ARGS...)
%typemap(gotype) (ARGS) %{[]GOTYPE%}
%typemap(in) (ARGS) {
  $1 = (int)$input.len;
  $2 = (CTYPE *)$input.array;
}
%enddef
// (Applied to the table's count+array parameters by acl_calls.i.)

// aclopExecuteV2: each (descs, buffers) group arrives as one []uintptr of pointer pairs
// {desc0, buffer0, desc1, ...}; AclopExecuteV2 below builds it from two slices.
%typemap(gotype) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
                 (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[])
    "[]uintptr"
%typemap(in) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
             (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[]) {
  const uintptr_t *pairs = (const uintptr_t *)$input.array;
  $1 = (int)($input.len / 2);
  $2 = (aclTensorDesc **)calloc($1 > 0 ? (size_t)$1 : 1, sizeof(aclTensorDesc *));
  $3 = (aclDataBuffer **)calloc($1 > 0 ? (size_t)$1 : 1, sizeof(aclDataBuffer *));
  if ($2 == NULL || $3 == NULL) {
    free($2);
    free($3);
    _swig_gopanic("out of memory");
  }
  for (int i = 0; i < $1; ++i) {
    $2[i] = (aclTensorDesc *)pairs[2 * i];
    $3[i] = (aclDataBuffer *)pairs[2 * i + 1];
  }
}
%typemap(freearg) (int numInputs, aclTensorDesc *inputDesc[], aclDataBuffer *inputs[]),
                  (int numOutputs, aclTensorDesc *outputDesc[], aclDataBuffer *outputs[]) {
  free($2);
  free($3);
}
%rename(AclopExecuteV2Pairs) aclopExecuteV2;
%insert(go_wrapper) %{
// AclopExecuteV2 runs one operator: descs and buffers as equally long slices (nil for an absent
// input). It returns the aclError.
func AclopExecuteV2(opType string, inputDesc []AclTensorDesc, inputs []AclDataBuffer,
	outputDesc []AclTensorDesc, outputs []AclDataBuffer, attr AclopAttr, stream uintptr) int {
	return AclopExecuteV2Pairs(opType, aclPairs(inputDesc, inputs), aclPairs(outputDesc, outputs),
		attr, stream)
}

func aclPairs(descs []AclTensorDesc, buffers []AclDataBuffer) []uintptr {
	if len(descs) != len(buffers) {
		panic("acl: descs and buffers differ in length")
	}
	pairs := make([]uintptr, 0, 2*len(descs))
	for i := range descs {
		var desc, buffer uintptr
		if descs[i] != nil {
			desc = descs[i].Swigcptr()
		}
		if buffers[i] != nil {
			buffer = buffers[i].Swigcptr()
		}
		pairs = append(pairs, desc, buffer)
	}
	return pairs
}
%}
