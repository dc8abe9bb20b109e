package acldump

// #include "calls_gen.h"
import "C"

import "unsafe"

// Binding is a model with input and output tensors of its own in C memory, made once by Bind:
// fill the inputs' Data, Run, read the outputs' Data; the same tensors serve every Run, which
// allocates nothing. An output whose size depends on the input gets room for the largest result
// and is reshaped by each Run (its Shape and the length of its Data) to the dims the execution
// computed. A Binding is for one goroutine at a time.
//
//	b, err := model.Bind()
//	defer b.Close()
//	image, err := acldump.InputOf[float32](b, "input")
//	prob, err := acldump.OutputOf[float32](b, "prob")
//	copy(image.Data(), pixels)
//	err = b.Run() // prob.Data() holds the result
type Binding struct {
	model           *Model
	buffers         []*Buffer
	in, out         *Dataset
	inputs, outputs []AnyTensor
	varying         []bool
	desc            uintptr         // the model's desc, for outputs whose size varies
	dims            *C.aclmdlIODims // C memory for their current dims
	scratch         []int64         // the dims read, for reshape
	detach          []func()        // each tensor's: its data is gone with the buffers
	closed          bool
}

// maxDims is the room of a varying output's shape (ACL_MAX_DIM_CNT).
const maxDims = C.ACL_MAX_DIM_CNT

// Bind makes the model's input and output tensors, zeroed. An input whose dims vary (-1) has no
// size to bind: ErrInvalidParam (run such a model with RunNamed or Run).
func (m *Model) Bind() (*Binding, error) {
	if err := m.checkLoaded(); err != nil {
		return nil, err
	}
	b := &Binding{model: m, varying: make([]bool, len(m.Outputs))}
	bound := false
	defer func() {
		if !bound {
			b.Close()
		}
	}()
	var in, out []*Buffer
	for i, info := range m.Inputs {
		if info.varies() {
			return nil, misuse(C.ACL_ERROR_INVALID_PARAM, nil,
				"%s has dims that vary: Bind needs fixed ones (run the model with RunNamed)",
				describeIO("input", i, info))
		}
		t, buffer, err := b.bindTensor(info, info.Size, false)
		if err != nil {
			return nil, err
		}
		b.inputs = append(b.inputs, t)
		in = append(in, buffer)
	}
	for i, info := range m.Outputs {
		size := info.Size
		if b.varying[i] = info.varies(); b.varying[i] {
			size = varyingOutputBytes
		}
		t, buffer, err := b.bindTensor(info, size, b.varying[i])
		if err != nil {
			return nil, err
		}
		b.outputs = append(b.outputs, t)
		out = append(out, buffer)
	}
	var err error
	if b.in, err = NewDataset(in...); err != nil {
		return nil, err
	}
	if b.out, err = NewDataset(out...); err != nil {
		return nil, err
	}
	for _, varies := range b.varying {
		if varies && b.desc == 0 {
			if b.desc, err = aclmdlCreateDesc(); err != nil {
				return nil, err
			}
			if err := aclmdlGetDesc(b.desc, m.id); err != nil {
				return nil, err
			}
			b.dims = (*C.aclmdlIODims)(C.calloc(1, C.sizeof_aclmdlIODims))
			b.scratch = make([]int64, maxDims)
		}
	}
	bound = true
	return b, nil
}

// bindTensor makes the tensor of info over a new buffer of size bytes.
func (b *Binding) bindTensor(info TensorInfo, size int, varies bool) (AnyTensor, *Buffer, error) {
	buffer, err := NewBuffer(size)
	if err != nil {
		return nil, nil, err
	}
	b.buffers = append(b.buffers, buffer)
	memory := buffer.Bytes()
	switch info.DType() {
	case DTypeFloat32:
		return boundTensor[float32](b, info, memory, varies), buffer, nil
	case DTypeFloat16, DTypeBFloat16, DTypeUint16:
		return boundTensor[uint16](b, info, memory, varies), buffer, nil
	case DTypeFloat64:
		return boundTensor[float64](b, info, memory, varies), buffer, nil
	case DTypeInt8:
		return boundTensor[int8](b, info, memory, varies), buffer, nil
	case DTypeInt16:
		return boundTensor[int16](b, info, memory, varies), buffer, nil
	case DTypeInt32:
		return boundTensor[int32](b, info, memory, varies), buffer, nil
	case DTypeInt64:
		return boundTensor[int64](b, info, memory, varies), buffer, nil
	case DTypeUint8:
		return boundTensor[uint8](b, info, memory, varies), buffer, nil
	case DTypeUint32:
		return boundTensor[uint32](b, info, memory, varies), buffer, nil
	case DTypeUint64:
		return boundTensor[uint64](b, info, memory, varies), buffer, nil
	case DTypeBool:
		return boundTensor[bool](b, info, memory, varies), buffer, nil
	}
	return nil, nil, misuse(C.ACL_ERROR_UNSUPPORTED_DATA_TYPE, nil,
		"'%s' is of %s: acldump has no tensors of it", info.Name, info.DType())
}

// boundTensor is a tensor of info over memory. A varying output starts empty, with room for
// maxDims dims; the others have the described dims.
func boundTensor[T TensorData](b *Binding, info TensorInfo, memory []byte,
	varies bool) *Tensor[T] {
	t := &Tensor[T]{dtype: info.DType()}
	var zero T
	if n := len(memory) / int(unsafe.Sizeof(zero)); n > 0 {
		t.data = unsafe.Slice((*T)(unsafe.Pointer(&memory[0])), n)
	}
	if varies {
		t.shape = make([]int64, len(info.Dims), maxDims)
		for k, d := range info.Dims {
			if d > 0 {
				t.shape[k] = d
			}
		}
		t.data = t.data[:0]
	} else {
		t.shape = append([]int64(nil), info.Dims...)
		count, _ := elementCount(t.shape)
		if count < len(t.data) {
			t.data = t.data[:count]
		}
	}
	b.detach = append(b.detach, func() { t.data = nil })
	return t
}

// Model is the bound model.
func (b *Binding) Model() *Model { return b.model }

// Run executes the model once on the bound tensors, allocating nothing. ErrInvalidParam after
// Close; ErrInvalidModelID once the model is closed; the C library's errors otherwise.
func (b *Binding) Run() error {
	if b.closed {
		return errBindingClosed()
	}
	if err := b.model.checkLoaded(); err != nil {
		return err
	}
	if err := aclmdlExecute(b.model.id, b.in.handle, b.out.handle); err != nil {
		return err
	}
	for i, varies := range b.varying {
		if !varies {
			continue
		}
		status := C.acldump_gen_aclmdlGetCurOutputDims(C.uintptr_t(b.desc), C.size_t(i), b.dims)
		if err := check(status); err != nil {
			return err
		}
		n := int(b.dims.dimCount)
		for k := 0; k < n; k++ {
			b.scratch[k] = int64(b.dims.dims[k])
		}
		if err := b.outputs[i].reshape(b.scratch[:n]); err != nil {
			return err
		}
	}
	return nil
}

func errBindingClosed() error {
	return misuse(C.ACL_ERROR_INVALID_PARAM, nil, "the Binding is closed")
}

// Input is the bound tensor of the input called name (ErrInvalidParam when there is none).
func (b *Binding) Input(name string) (AnyTensor, error) {
	if b.closed {
		return nil, errBindingClosed()
	}
	i, err := b.model.inputByName(name)
	if err != nil {
		return nil, err
	}
	return b.inputs[i], nil
}

// Output is the bound tensor of the output called name (ErrInvalidParam when there is none).
func (b *Binding) Output(name string) (AnyTensor, error) {
	if b.closed {
		return nil, errBindingClosed()
	}
	i, err := b.model.outputByName(name)
	if err != nil {
		return nil, err
	}
	return b.outputs[i], nil
}

// InputOf is the bound tensor of the input called name as a *Tensor[T]: ErrInvalidParam when
// there is none, ErrModelInputNotMatch with ErrTypeMismatch when T is not its DType's Go type.
func InputOf[T TensorData](b *Binding, name string) (*Tensor[T], error) {
	t, err := b.Input(name)
	if err != nil {
		return nil, err
	}
	return typed[T](t, "input", b.model.Inputs, C.ACL_ERROR_MODEL_INPUT_NOT_MATCH, name)
}

// OutputOf is the bound tensor of the output called name as a *Tensor[T]: ErrInvalidParam when
// there is none, ErrModelOutputNotMatch with ErrTypeMismatch when T is not its DType's Go type.
func OutputOf[T TensorData](b *Binding, name string) (*Tensor[T], error) {
	t, err := b.Output(name)
	if err != nil {
		return nil, err
	}
	return typed[T](t, "output", b.model.Outputs, C.ACL_ERROR_MODEL_OUTPUT_NOT_MATCH, name)
}

func typed[T TensorData](t AnyTensor, kind string, infos []TensorInfo, code C.int,
	name string) (*Tensor[T], error) {
	if typed, ok := t.(*Tensor[T]); ok {
		return typed, nil
	}
	i, _ := byName(infos, name, kind)
	return nil, misuse(code, ErrTypeMismatch, "%s holds %s, not %s", describeIO(kind, i, infos[i]),
		t.DType(), dtypeOf[T]())
}

// Close frees the tensors' memory (their Data is nil after) and the datasets. Closing the model
// first is fine; Close again does nothing.
func (b *Binding) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	for _, detach := range b.detach {
		detach()
	}
	if b.in != nil {
		b.in.Close()
	}
	if b.out != nil {
		b.out.Close()
	}
	var err error
	for _, buffer := range b.buffers {
		if closeErr := buffer.Close(); err == nil {
			err = closeErr
		}
	}
	if b.desc != 0 {
		C.acldump_destroy_desc(C.uintptr_t(b.desc))
	}
	if b.dims != nil {
		C.free(unsafe.Pointer(b.dims))
	}
	return err
}
