package acldump

// #include "calls.h"
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unsafe"
)

// DType is an element type of model inputs and outputs: its value is the aclDataType
// (TensorInfo.DataType) and its String is acldump's name of it ("float32").
type DType int

// The data types acldump has tensors of, and the Go type of their elements (TensorData).
const (
	DTypeFloat32  DType = C.ACL_FLOAT   // float32
	DTypeFloat16  DType = C.ACL_FLOAT16 // uint16 holding the IEEE half's bits (NewTensorAs)
	DTypeBFloat16 DType = C.ACL_BF16    // uint16 holding the bfloat16's bits (NewTensorAs)
	DTypeFloat64  DType = C.ACL_DOUBLE  // float64
	DTypeInt8     DType = C.ACL_INT8    // int8
	DTypeInt16    DType = C.ACL_INT16   // int16
	DTypeInt32    DType = C.ACL_INT32   // int32
	DTypeInt64    DType = C.ACL_INT64   // int64
	DTypeUint8    DType = C.ACL_UINT8   // uint8
	DTypeUint16   DType = C.ACL_UINT16  // uint16
	DTypeUint32   DType = C.ACL_UINT32  // uint32
	DTypeUint64   DType = C.ACL_UINT64  // uint64
	DTypeBool     DType = C.ACL_BOOL    // bool (one byte, 0 or 1)
)

var dtypeInfos = map[DType]struct {
	name string
	size int
}{
	DTypeFloat32: {"float32", 4}, DTypeFloat16: {"float16", 2}, DTypeBFloat16: {"bfloat16", 2},
	DTypeFloat64: {"float64", 8}, DTypeInt8: {"int8", 1}, DTypeInt16: {"int16", 2},
	DTypeInt32: {"int32", 4}, DTypeInt64: {"int64", 8}, DTypeUint8: {"uint8", 1},
	DTypeUint16: {"uint16", 2}, DTypeUint32: {"uint32", 4}, DTypeUint64: {"uint64", 8},
	DTypeBool: {"bool", 1},
}

// String is acldump's name of the type, as the C library's messages write it ("float32").
func (d DType) String() string {
	if info, ok := dtypeInfos[d]; ok {
		return info.name
	}
	return fmt.Sprintf("aclDataType(%d)", int(d))
}

// Size is the bytes of one element; 0 for a type acldump has no tensors of.
func (d DType) Size() int { return dtypeInfos[d].size }

// DType is the input's or output's element type.
func (info TensorInfo) DType() DType { return DType(info.DataType) }

// varies says whether the size depends on the input (a -1 dimension).
func (info TensorInfo) varies() bool {
	for _, d := range info.Dims {
		if d < 0 {
			return true
		}
	}
	return false
}

// describeIO is "input 0 ('input', float32[1,3,32,32])", as the C library names a tensor.
func describeIO(kind string, index int, info TensorInfo) string {
	return fmt.Sprintf("%s %d ('%s', %s%s)", kind, index, info.Name, info.DType(),
		dimsString(info.Dims))
}

// dimsString is "[1,3,32,32]", as the C library writes shapes.
func dimsString(dims []int64) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Finer reasons of the *Error this package returns for a tensor that does not fit: errors.Is
// matches them as well as the code's sentinel (ErrModelInputNotMatch, ErrInvalidParam, ...).
var (
	ErrShapeMismatch = errors.New("acldump: shape mismatch")
	ErrTypeMismatch  = errors.New("acldump: data type mismatch")
)

// TensorData are the Go element types of tensors; see DType for the aclDataType of each.
type TensorData interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 |
		~uint64 | ~bool
}

// dtypeOf is T's own data type.
func dtypeOf[T TensorData]() DType {
	switch reflect.TypeOf((*T)(nil)).Elem().Kind() {
	case reflect.Float32:
		return DTypeFloat32
	case reflect.Float64:
		return DTypeFloat64
	case reflect.Int8:
		return DTypeInt8
	case reflect.Int16:
		return DTypeInt16
	case reflect.Int32:
		return DTypeInt32
	case reflect.Int64:
		return DTypeInt64
	case reflect.Uint8:
		return DTypeUint8
	case reflect.Uint16:
		return DTypeUint16
	case reflect.Uint32:
		return DTypeUint32
	case reflect.Uint64:
		return DTypeUint64
	default:
		return DTypeBool
	}
}

// AnyTensor is a *Tensor[T] of any element type: what RunNamed takes and returns. Type-assert
// it to the *Tensor[T] of its DType's Go type, e.g. outputs["prob"].(*acldump.Tensor[float32]).
type AnyTensor interface {
	DType() DType
	Shape() []int64
	// Bytes is the data as bytes in the machine's order, shared with the tensor.
	Bytes() []byte
	// The rest is this package's (only *Tensor[T] is an AnyTensor).
	view() (dims []int64, data []byte, ok bool)
	reshape(dims []int64) error
}

// Tensor is a typed tensor: a shape and its elements in row-major order.
type Tensor[T TensorData] struct {
	dtype DType
	shape []int64
	data  []T
}

// NewTensor is a tensor of shape over data (shared, not copied): len(data) must be the
// product of shape (ErrInvalidParam with ErrShapeMismatch otherwise). Its DType is T's.
func NewTensor[T TensorData](shape []int64, data []T) (*Tensor[T], error) {
	return NewTensorAs(dtypeOf[T](), shape, data)
}

// NewTensorAs is NewTensor with the data type given: T's own, or DTypeFloat16 / DTypeBFloat16
// for uint16 data holding their bits.
func NewTensorAs[T TensorData](dtype DType, shape []int64, data []T) (*Tensor[T], error) {
	if own := dtypeOf[T](); dtype != own &&
		!(own == DTypeUint16 && (dtype == DTypeFloat16 || dtype == DTypeBFloat16)) {
		return nil, misuse(C.ACL_ERROR_INVALID_PARAM, ErrTypeMismatch,
			"a tensor of %s cannot hold %s elements", dtype, own)
	}
	count, err := elementCount(shape)
	if err != nil {
		return nil, err
	}
	if count != len(data) {
		return nil, misuse(C.ACL_ERROR_INVALID_PARAM, ErrShapeMismatch,
			"shape %s has %d elements, the data %d", dimsString(shape), count, len(data))
	}
	return &Tensor[T]{dtype: dtype, shape: append([]int64(nil), shape...), data: data}, nil
}

// NewEmptyTensor is a tensor of shape with zeroed data of its own.
func NewEmptyTensor[T TensorData](shape []int64) (*Tensor[T], error) {
	count, err := elementCount(shape)
	if err != nil {
		return nil, err
	}
	return NewTensor(shape, make([]T, count))
}

func elementCount(shape []int64) (int, error) {
	count := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, misuse(C.ACL_ERROR_INVALID_PARAM, ErrShapeMismatch,
				"shape %s has a negative dimension", dimsString(shape))
		}
		if d != 0 && count > (1<<47)/d {
			return 0, misuse(C.ACL_ERROR_INVALID_PARAM, ErrShapeMismatch,
				"shape %s has too many elements", dimsString(shape))
		}
		count *= d
	}
	return int(count), nil
}

// DType is the element type.
func (t *Tensor[T]) DType() DType { return t.dtype }

// Shape is a copy of the dims.
func (t *Tensor[T]) Shape() []int64 { return append([]int64(nil), t.shape...) }

// Data is the elements, shared with the tensor: fill an input's, read an output's. A Binding's
// tensors are over C memory that its Close frees (Data is nil after).
func (t *Tensor[T]) Data() []T { return t.data }

// Bytes is the elements as bytes in the machine's order, shared with the tensor.
func (t *Tensor[T]) Bytes() []byte {
	if len(t.data) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&t.data[0])), len(t.data)*int(unsafe.Sizeof(zero)))
}

func (t *Tensor[T]) view() ([]int64, []byte, bool) {
	if t == nil {
		return nil, nil, false
	}
	return t.shape, t.Bytes(), true
}

// reshape sets the dims of a Binding's output whose size varies (its shape and data have the
// room), without allocating.
func (t *Tensor[T]) reshape(dims []int64) error {
	count := 1
	for _, d := range dims {
		count *= int(d)
	}
	if len(dims) > cap(t.shape) || count > cap(t.data) {
		return misuse(C.ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, ErrShapeMismatch,
			"dims %s do not fit the output's room of %d elements", dimsString(dims), cap(t.data))
	}
	t.shape = t.shape[:len(dims)]
	copy(t.shape, dims)
	t.data = t.data[:count]
	return nil
}

// tensorFromBytes is a tensor of dtype and dims with a copy of data (C memory).
func tensorFromBytes(dtype DType, dims []int64, data []byte) (AnyTensor, error) {
	switch dtype {
	case DTypeFloat32:
		return copyTensor[float32](dtype, dims, data), nil
	case DTypeFloat16, DTypeBFloat16, DTypeUint16:
		return copyTensor[uint16](dtype, dims, data), nil
	case DTypeFloat64:
		return copyTensor[float64](dtype, dims, data), nil
	case DTypeInt8:
		return copyTensor[int8](dtype, dims, data), nil
	case DTypeInt16:
		return copyTensor[int16](dtype, dims, data), nil
	case DTypeInt32:
		return copyTensor[int32](dtype, dims, data), nil
	case DTypeInt64:
		return copyTensor[int64](dtype, dims, data), nil
	case DTypeUint8:
		return copyTensor[uint8](dtype, dims, data), nil
	case DTypeUint32:
		return copyTensor[uint32](dtype, dims, data), nil
	case DTypeUint64:
		return copyTensor[uint64](dtype, dims, data), nil
	case DTypeBool:
		return copyTensor[bool](dtype, dims, data), nil
	}
	return nil, misuse(C.ACL_ERROR_UNSUPPORTED_DATA_TYPE, nil,
		"acldump has no tensors of %s", dtype)
}

func copyTensor[T TensorData](dtype DType, dims []int64, data []byte) *Tensor[T] {
	t := &Tensor[T]{dtype: dtype, shape: append([]int64(nil), dims...)}
	var zero T
	t.data = make([]T, len(data)/int(unsafe.Sizeof(zero)))
	copy(t.Bytes(), data)
	return t
}

// inputByName is the index of the input called name: ErrInvalidParam with the C library's
// message (aclmdlGetInputIndexByName) when there is none.
func (m *Model) inputByName(name string) (int, error) { return byName(m.Inputs, name, "input") }

func (m *Model) outputByName(name string) (int, error) { return byName(m.Outputs, name, "output") }

func byName(infos []TensorInfo, name, kind string) (int, error) {
	names := make([]string, len(infos))
	for i, info := range infos {
		if info.Name == name {
			return i, nil
		}
		names[i] = "'" + info.Name + "'"
	}
	return 0, misuse(C.ACL_ERROR_INVALID_PARAM, nil, "the model has no %s named '%s' (it has %s)",
		kind, name, strings.Join(names, ", "))
}

// checkLoaded is the C library's error for the id of a closed Model (ids are not reused).
func (m *Model) checkLoaded() error {
	if m.loaded {
		return nil
	}
	return misuse(C.ACL_ERROR_INVALID_MODEL_ID, nil, "model id %d is not loaded (the Model is closed)",
		m.id)
}

// RunNamed executes once on inputs by name and returns every output by name, each a new
// *Tensor[T] of the output's type (float32 outputs: *Tensor[float32]) shaped by its current dims
// (aclmdlGetCurOutputDims). Each model input must be given once, with the model's type and
// dims (a -1 dimension takes any size); misuses, checked in this order, are *Error values:
//   - a closed model: ErrInvalidModelID, as the C library says for its id;
//   - a name the model has no input of: ErrInvalidParam (the C library's message);
//   - an input not given: ErrModelInputNotMatch;
//   - a nil tensor: ErrInvalidParam ("was given no tensor");
//   - another type: ErrModelInputNotMatch and ErrTypeMismatch;
//   - other dims: ErrModelInputNotMatch and ErrShapeMismatch;
//
// each naming the input as the C library does: "input 0 ('input', float32[1,3,32,32]) was given
// int32[1,3,32,32]".
func (m *Model) RunNamed(inputs map[string]AnyTensor) (map[string]AnyTensor, error) {
	return m.runNamed(m.Execute, inputs)
}

// RunNamedTagged is RunNamed for the request tag, executed as RunTagged.
func (m *Model) RunNamedTagged(tag string, inputs map[string]AnyTensor) (map[string]AnyTensor,
	error) {
	return m.runNamed(func(in, out *Dataset) error { return m.ExecuteWithTag(tag, in, out) }, inputs)
}

func (m *Model) runNamed(execute func(in, out *Dataset) error, inputs map[string]AnyTensor) (
	map[string]AnyTensor, error) {
	ordered, err := m.orderInputs(inputs)
	if err != nil {
		return nil, err
	}
	outputs := make(map[string]AnyTensor, len(m.Outputs))
	err = m.runBuffers(execute, ordered, true, func(i int, data []byte, dims []int64) error {
		t, err := tensorFromBytes(m.Outputs[i].DType(), dims, data)
		outputs[m.Outputs[i].Name] = t
		return err
	})
	if err != nil {
		return nil, err
	}
	return outputs, nil
}

// orderInputs checks inputs against the model's and returns their bytes in the model's order.
func (m *Model) orderInputs(inputs map[string]AnyTensor) ([][]byte, error) {
	if err := m.checkLoaded(); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names) // the same error every time
	for _, name := range names {
		if _, err := m.inputByName(name); err != nil {
			return nil, err
		}
	}
	ordered := make([][]byte, len(m.Inputs))
	for i, info := range m.Inputs {
		t, given := inputs[info.Name]
		if !given {
			return nil, misuse(C.ACL_ERROR_MODEL_INPUT_NOT_MATCH, nil, "%s is missing",
				describeIO("input", i, info))
		}
		var dims []int64
		var data []byte
		ok := t != nil
		if ok {
			dims, data, ok = t.view()
		}
		if !ok {
			return nil, misuse(C.ACL_ERROR_INVALID_PARAM, nil, "%s was given no tensor (nil)",
				describeIO("input", i, info))
		}
		if err := checkTensor(i, info, t.DType(), dims); err != nil {
			return nil, err
		}
		count, _ := elementCount(dims)
		if len(data) != count*t.DType().Size() {
			return nil, misuse(C.ACL_ERROR_INVALID_PARAM, nil,
				"%s was given a tensor without its data (its Binding is closed)",
				describeIO("input", i, info))
		}
		ordered[i] = data
	}
	return ordered, nil
}

// checkTensor checks a tensor of dtype and dims given for input index.
func checkTensor(index int, info TensorInfo, dtype DType, dims []int64) error {
	var cause error
	if dtype != info.DType() {
		cause = ErrTypeMismatch
	} else if len(dims) != len(info.Dims) {
		cause = ErrShapeMismatch
	} else {
		for k, d := range dims {
			if info.Dims[k] >= 0 && d != info.Dims[k] {
				cause = ErrShapeMismatch
			}
		}
	}
	if cause == nil {
		return nil
	}
	return misuse(C.ACL_ERROR_MODEL_INPUT_NOT_MATCH, cause, "%s was given %s%s",
		describeIO("input", index, info), dtype, dimsString(dims))
}
