// Package acldump is the idiomatic Go layer over acldump's C ABI: errors are values (*Error,
// with the aclError code and message), handles have Close methods. The SWIG package
// github.com/acldump/acldump-go/acl
// is the raw API underneath. The device selected by SetDevice (or a context by NewContext) holds
// for the whole process, on every goroutine, although the C runtime's current context is per OS
// thread: see "The device rule" (device.go); a model is loaded on the device selected when it
// is loaded, whichever goroutine loads it. The ordinary calls (Init, SetDevice, ...), and
// unexported wrappers named as their C functions that the rest uses, are generated from
// bindings/calls.py (calls_gen.go).
//
//	if err := acldump.Init(""); err != nil { ... }
//	defer acldump.Finalize()
//	dump, err := acldump.StartDump("acl.json")
//	model, err := acldump.LoadModel("resnet_tiny.om")
//	outputs, err := model.Run(input)
//	model.Close(); dump.Close()
//
// Typed tensors by name: NewTensor checks the data against the shape, RunNamed checks each input
// against the model's description and returns the outputs shaped as computed; Bind makes a
// session whose tensors are filled in place and whose Run allocates nothing.
//
//	image, err := acldump.NewTensor([]int64{1, 3, 32, 32}, pixels) // pixels []float32
//	outputs, err := model.RunNamed(map[string]acldump.AnyTensor{"input": image})
//	prob := outputs["prob"].(*acldump.Tensor[float32]) // prob.Shape() [1 10], prob.Data()
//
//	b, err := model.Bind()
//	in, err := acldump.InputOf[float32](b, "input")
//	out, err := acldump.OutputOf[float32](b, "prob")
//	copy(in.Data(), pixels); err = b.Run() // out.Data() holds the result
//	b.Close()
//
// Every error is an *Error with the aclError code (errors.Is against ErrInvalidParam,
// ErrModelInputNotMatch, ErrInvalidModelID, ...; ErrShapeMismatch and ErrTypeMismatch too for a
// tensor that does not fit). The same misuse gives the same code and message in Java
// (testdata/misuse_cases.json).
package acldump

// #cgo pkg-config: acldump
// #include "calls.h"
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/acldump/acldump-go/acl"
)

// Error is a failed acl call, or a misuse this package refuses before calling C (then Code is
// the aclError the C ABI gives for the same mistake, or the closest one). Every error the package
// returns is an *Error.
type Error struct {
	Code    int    // the aclError, e.g. acl.ACL_ERROR_DUMP_NOT_RUN (100045)
	Message string // the C library's message for the call (or this package's, in its style)
	cause   error  // a finer sentinel (ErrShapeMismatch, ErrTypeMismatch), or nil
}

func (e *Error) Error() string { return fmt.Sprintf("acl error %d: %s", e.Code, e.Message) }

// Is lets errors.Is match an *Error against the sentinels below (or any *Error) by its code:
// errors.Is(err, acldump.ErrModelInputNotMatch).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Unwrap is the finer sentinel of a misuse this package found itself: errors.Is(err,
// acldump.ErrShapeMismatch) holds for a tensor of the wrong shape, as errors.Is(err,
// acldump.ErrModelInputNotMatch) does.
func (e *Error) Unwrap() error { return e.cause }

// misuse is an *Error of this package's own checks.
func misuse(code C.int, cause error, format string, args ...any) *Error {
	return &Error{Code: int(code), Message: fmt.Sprintf(format, args...), cause: cause}
}

// Sentinel errors for the codes a program usually branches on (the message of a real error is
// the library's; these carry the code's name).
var (
	ErrInvalidParam        = sentinel(C.ACL_ERROR_INVALID_PARAM, "ACL_ERROR_INVALID_PARAM")
	ErrUninitialized       = sentinel(C.ACL_ERROR_UNINITIALIZE, "ACL_ERROR_UNINITIALIZE")
	ErrRepeatFinalize      = sentinel(C.ACL_ERROR_REPEAT_FINALIZE, "ACL_ERROR_REPEAT_FINALIZE")
	ErrInvalidFile         = sentinel(C.ACL_ERROR_INVALID_FILE, "ACL_ERROR_INVALID_FILE")
	ErrWriteFile           = sentinel(C.ACL_ERROR_WRITE_FILE, "ACL_ERROR_WRITE_FILE")
	ErrReadModelFailure    = sentinel(C.ACL_ERROR_READ_MODEL_FAILURE, "ACL_ERROR_READ_MODEL_FAILURE")
	ErrModelInputNotMatch  = sentinel(C.ACL_ERROR_MODEL_INPUT_NOT_MATCH, "ACL_ERROR_MODEL_INPUT_NOT_MATCH")
	ErrModelOutputNotMatch = sentinel(C.ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, "ACL_ERROR_MODEL_OUTPUT_NOT_MATCH")
	ErrUnsupportedDataType = sentinel(C.ACL_ERROR_UNSUPPORTED_DATA_TYPE, "ACL_ERROR_UNSUPPORTED_DATA_TYPE")
	ErrInvalidDumpConfig   = sentinel(C.ACL_ERROR_INVALID_DUMP_CONFIG, "ACL_ERROR_INVALID_DUMP_CONFIG")
	ErrDumpNotRun          = sentinel(C.ACL_ERROR_DUMP_NOT_RUN, "ACL_ERROR_DUMP_NOT_RUN")
	ErrFeatureUnsupported  = sentinel(C.ACL_ERROR_FEATURE_UNSUPPORTED, "ACL_ERROR_FEATURE_UNSUPPORTED")
	ErrGearInvalid         = sentinel(C.ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID, "ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID")
	// ErrInvalidModelID (100011): the model id is not loaded (an unknown id, or a closed Model).
	ErrInvalidModelID = sentinel(C.ACL_ERROR_INVALID_MODEL_ID, "ACL_ERROR_INVALID_MODEL_ID")
	// ErrModelIDInvalid is the GE code (145003) of a desc whose model was unloaded since it was
	// filled (CurrentOutputDims); an unknown model id is ErrInvalidModelID.
	ErrModelIDInvalid = sentinel(C.ACL_ERROR_GE_EXEC_MODEL_ID_INVALID, "ACL_ERROR_GE_EXEC_MODEL_ID_INVALID")
	// ErrWaitTimeout (ACL_ERROR_RT_WAIT_TIMEOUT): WaitRecorder's reports are still being written.
	ErrWaitTimeout = sentinel(C.ACL_ERROR_RT_WAIT_TIMEOUT, "ACL_ERROR_RT_WAIT_TIMEOUT")
	// ErrFailure (ACL_ERROR_FAILURE): a call without a code of its own failed.
	ErrFailure = sentinel(C.ACL_ERROR_FAILURE, "ACL_ERROR_FAILURE")
)

func sentinel(code C.int, name string) *Error { return &Error{Code: int(code), Message: name} }

// check turns the status of one helper call into an error, freeing its message.
func check(status C.acldump_status) error {
	if status.code == C.ACL_SUCCESS {
		return nil
	}
	defer C.free(unsafe.Pointer(status.message))
	return &Error{Code: int(status.code), Message: C.GoString(status.message)}
}

func cString(s string) (*C.char, func()) {
	p := C.CString(s)
	return p, func() { C.free(unsafe.Pointer(p)) }
}

// Version is the release of the C library, "major.minor.patch" (aclrtGetVersion).
func Version() (string, error) {
	major, minor, patch, err := aclrtGetVersion()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d.%d.%d", major, minor, patch), nil
}

// DumpSession is a model dump session (aclmdlInitDump + aclmdlSetDump); Close is
// aclmdlFinalizeDump, which writes every queued dump file.
type DumpSession struct{ open bool }

// StartDump starts a dump session with the config at configPath. It applies to models loaded
// afterwards.
func StartDump(configPath string) (*DumpSession, error) {
	if err := aclmdlInitDump(); err != nil {
		return nil, err
	}
	d := &DumpSession{open: true}
	if err := d.Set(configPath); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Set is aclmdlSetDump: the config for models loaded from now on.
func (d *DumpSession) Set(configPath string) error { return aclmdlSetDump(configPath) }

// Close ends the session; it reports data that could not be written.
func (d *DumpSession) Close() error {
	if !d.open {
		return nil
	}
	d.open = false
	return aclmdlFinalizeDump()
}

// Buffer is an aclDataBuffer over C memory from aclrtMalloc (C may not keep pointers into Go
// memory).
type Buffer struct {
	memory uintptr
	handle uintptr
	size   int
}

// NewBuffer allocates size zeroed bytes (aclrtMalloc: needs Init). Size 0 is an empty buffer
// without memory, which a model input refuses with ACL_ERROR_MODEL_INPUT_NOT_MATCH, as in Java
// and C.
func NewBuffer(size int) (*Buffer, error) {
	var memory uintptr
	if size > 0 {
		var err error
		if memory, err = aclrtMalloc(size, C.ACL_MEM_MALLOC_HUGE_FIRST); err != nil {
			return nil, err
		}
	} else if size < 0 {
		return nil, misuse(C.ACL_ERROR_INVALID_PARAM, nil, "buffer size %d is negative", size)
	}
	b := &Buffer{memory: memory, size: size}
	var handle C.uintptr_t
	status := C.acldump_create_data_buffer(C.uintptr_t(memory), C.size_t(size), &handle)
	if err := check(status); err != nil {
		if memory != 0 {
			aclrtFree(memory)
		}
		return nil, err
	}
	b.handle = uintptr(handle)
	bytes := b.Bytes()
	for i := range bytes {
		bytes[i] = 0
	}
	return b, nil
}

// Bytes is the buffer's memory; valid until Close.
func (b *Buffer) Bytes() []byte {
	if b.memory == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(b.memory)), b.size)
}

// Handle is the raw SWIG handle (borrowed: do not delete it).
func (b *Buffer) Handle() acl.AclDataBuffer { return acl.SwigcptrAclDataBuffer(b.handle) }

// Close frees the descriptor and the memory.
func (b *Buffer) Close() error {
	if b.handle == 0 {
		return nil
	}
	acl.DeleteAclDataBuffer(b.Handle())
	b.handle = 0
	if b.memory == 0 {
		return nil
	}
	return aclrtFree(b.memory)
}

// Dataset is an aclmdlDataset: the ordered buffers of a model's inputs or outputs. It refers to
// the buffers without owning them.
type Dataset struct {
	handle  uintptr
	buffers []*Buffer
}

// NewDataset makes a dataset of buffers, in order.
func NewDataset(buffers ...*Buffer) (*Dataset, error) {
	handle, err := aclmdlCreateDataset()
	if err != nil {
		return nil, err
	}
	d := &Dataset{handle: handle}
	for _, b := range buffers {
		status := C.acldump_add_dataset_buffer(C.uintptr_t(d.handle), C.uintptr_t(b.handle))
		if err := check(status); err != nil {
			d.Close()
			return nil, err
		}
		d.buffers = append(d.buffers, b)
	}
	return d, nil
}

// Close frees the dataset (not its buffers).
func (d *Dataset) Close() {
	if d.handle != 0 {
		acl.DeleteAclmdlDataset(acl.SwigcptrAclmdlDataset(d.handle))
		d.handle = 0
	}
}

// TensorInfo describes a model input or output.
type TensorInfo struct {
	Name     string
	DataType acl.AclDataType
	Format   acl.AclFormat
	Dims     []int64
	Size     int // bytes
}

// Model is a loaded model; Close unloads it.
type Model struct {
	id      uint32
	loaded  bool
	memory  []uintptr // caller memory it was loaded with (LoadModelWithMemory)
	Inputs  []TensorInfo
	Outputs []TensorInfo
}

// LoadModel loads an .om file on the selected device (SetDevice; device 0 when none is); its dump
// model name is the file name without extension.
func LoadModel(path string) (*Model, error) {
	var id uint32
	err := onSelected(func() (err error) {
		id, err = aclmdlLoadFromFile(path)
		return err
	})
	if err != nil {
		return nil, err
	}
	return describe(id)
}

// LoadModelFromMemory loads a model from memory (copied) on the selected device, as LoadModel;
// only its graph name matches dump_list.
func LoadModelFromMemory(model []byte) (*Model, error) {
	var data unsafe.Pointer // NULL for an empty model: the C library reports it
	if len(model) > 0 {
		data = unsafe.Pointer(&model[0])
	}
	var id C.uint32_t
	err := onSelected(func() error {
		return check(C.acldump_load_from_mem(data, C.size_t(len(model)), &id))
	})
	if err != nil {
		return nil, err
	}
	return describe(uint32(id))
}

func describe(id uint32) (*Model, error) {
	m := &Model{id: id, loaded: true}
	handle, err := aclmdlCreateDesc()
	if err != nil {
		m.Close()
		return nil, err
	}
	desc := acl.SwigcptrAclmdlDesc(handle)
	defer acl.DeleteAclmdlDesc(desc)
	if err := aclmdlGetDesc(handle, id); err != nil {
		m.Close()
		return nil, err
	}
	// The desc is filled and the indexes are in range: these getters cannot fail.
	dims := acl.NewAclmdlIODims()
	defer acl.DeleteAclmdlIODims(dims)
	for i := int64(0); i < acl.AclmdlGetNumInputs(desc); i++ {
		acl.AclmdlGetInputDims(desc, i, dims)
		m.Inputs = append(m.Inputs, TensorInfo{
			Name:     acl.AclmdlGetInputNameByIndex(desc, i),
			DataType: acl.AclmdlGetInputDataType(desc, i),
			Format:   acl.AclmdlGetInputFormat(desc, i),
			Dims:     dimsOf(dims),
			Size:     int(acl.AclmdlGetInputSizeByIndex(desc, i)),
		})
	}
	for i := int64(0); i < acl.AclmdlGetNumOutputs(desc); i++ {
		acl.AclmdlGetOutputDims(desc, i, dims)
		m.Outputs = append(m.Outputs, TensorInfo{
			Name:     acl.AclmdlGetOutputNameByIndex(desc, i),
			DataType: acl.AclmdlGetOutputDataType(desc, i),
			Format:   acl.AclmdlGetOutputFormat(desc, i),
			Dims:     dimsOf(dims),
			Size:     int(acl.AclmdlGetOutputSizeByIndex(desc, i)),
		})
	}
	return m, nil
}

func dimsOf(dims acl.AclmdlIODims) []int64 {
	out := make([]int64, dims.GetDimCount())
	for i := range out {
		out[i] = dims.GetDim(int64(i))
	}
	return out
}

// ID is the model id (the {model_id} folder of its dumps).
func (m *Model) ID() uint32 { return m.id }

// Execute runs the model once: one buffer per input and per output, in the model's order.
func (m *Model) Execute(input, output *Dataset) error {
	return aclmdlExecute(m.id, input.handle, output.handle)
}

// Run executes once on inputs (raw bytes, one slice per input) and returns a copy of each
// output.
func (m *Model) Run(inputs ...[]byte) (outputs [][]byte, err error) {
	return m.run(m.Execute, inputs)
}

// run is Run's body (and RunTagged's): the buffers and datasets around one execute call.
func (m *Model) run(execute func(in, out *Dataset) error, inputs [][]byte) (
	outputs [][]byte, err error) {
	err = m.runBuffers(execute, inputs, false, func(_ int, data []byte, _ []int64) error {
		outputs = append(outputs, append([]byte(nil), data...))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return outputs, nil
}

// runBuffers copies inputs into C buffers, executes once and hands each output's bytes (C
// memory, valid during the call) to each, in order, with its dims. An output whose size depends
// on the input gets room for the largest result and is handed at the size the execution
// computed, with its current dims; with allDims every output's dims are its current ones
// (aclmdlGetCurOutputDims), else the others get the description's.
func (m *Model) runBuffers(execute func(in, out *Dataset) error, inputs [][]byte, allDims bool,
	each func(index int, data []byte, dims []int64) error) error {
	var buffers []*Buffer
	defer func() {
		for _, b := range buffers {
			b.Close()
		}
	}()
	newBuffer := func(size int) (*Buffer, error) {
		b, err := NewBuffer(size)
		if err == nil {
			buffers = append(buffers, b)
		}
		return b, err
	}
	var in, out []*Buffer
	for _, input := range inputs {
		b, err := newBuffer(len(input))
		if err != nil {
			return err
		}
		copy(b.Bytes(), input)
		in = append(in, b)
	}
	varying := make([]bool, len(m.Outputs))
	for i, info := range m.Outputs {
		size := info.Size
		varying[i] = info.varies()
		if varying[i] {
			size = varyingOutputBytes
		}
		b, err := newBuffer(size)
		if err != nil {
			return err
		}
		out = append(out, b)
	}
	inSet, err := NewDataset(in...)
	if err != nil {
		return err
	}
	defer inSet.Close()
	outSet, err := NewDataset(out...)
	if err != nil {
		return err
	}
	defer outSet.Close()
	if err := execute(inSet, outSet); err != nil {
		return err
	}
	for i, b := range out {
		data, dims := b.Bytes(), m.Outputs[i].Dims
		if varying[i] || allDims {
			if dims, err = m.CurrentOutputDims(i); err != nil {
				return err
			}
			n := int(acl.AclDataTypeSize(m.Outputs[i].DataType))
			for _, d := range dims {
				n *= int(d)
			}
			if n > len(data) {
				return misuse(C.ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, nil,
					"output %d ('%s') has dims %s: %d bytes, more than its %d-byte buffer", i,
					m.Outputs[i].Name, dimsString(dims), n, len(data))
			}
			data = data[:n]
		}
		if err := each(i, data, dims); err != nil {
			return err
		}
	}
	return nil
}

// Room Run gives an output whose size depends on the input (device memory is
// zeroed when it is allocated, so it is kept moderate; a larger result fails
// with ErrModelOutputNotMatch naming the bytes it needs: run it through
// Execute with buffers of that size).
const varyingOutputBytes = 16 << 20

// Close unloads the model, then frees memory it was loaded with.
func (m *Model) Close() error {
	if !m.loaded {
		return nil
	}
	m.loaded = false
	err := aclmdlUnload(m.id)
	for _, memory := range m.memory {
		if freeErr := aclrtFree(memory); err == nil {
			err = freeErr
		}
	}
	m.memory = nil
	return err
}
