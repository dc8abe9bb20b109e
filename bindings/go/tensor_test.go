package acldump_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	acldump "github.com/acldump/acldump-go"
	"github.com/acldump/acldump-go/acl"
)

// readNpyFloat32 is a float32 .npy file's data.
func readNpyFloat32(t *testing.T, path string) []float32 {
	t.Helper()
	raw := readNpy(t, path)
	values := make([]float32, len(raw)/4)
	for i := range values {
		values[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return values
}

func closeTo(got, want []float32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-5 {
			return false
		}
	}
	return true
}

// wantMisuse checks that err is an *Error of code whose message holds text, matched by each of
// sentinels.
func wantMisuse(t *testing.T, what string, err error, code int, text string, sentinels ...error) {
	t.Helper()
	var e *acldump.Error
	if !errors.As(err, &e) || e.Code != code || !strings.Contains(e.Message, text) {
		t.Errorf("%s: got %v, want code %d with %q", what, err, code, text)
		return
	}
	for _, sentinel := range sentinels {
		if !errors.Is(err, sentinel) {
			t.Errorf("%s: %v is not %v", what, err, sentinel)
		}
	}
}

func TestNewTensorChecksTheShape(t *testing.T) {
	x, err := acldump.NewTensor([]int64{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	must(t, err)
	if x.DType() != acldump.DTypeFloat32 || x.DType().String() != "float32" ||
		fmt.Sprint(x.Shape()) != "[2 3]" || x.Data()[5] != 6 || len(x.Bytes()) != 24 {
		t.Errorf("tensor: %v %v %v", x.DType(), x.Shape(), x.Data())
	}
	x.Shape()[0] = 7 // a copy
	if x.Shape()[0] != 2 {
		t.Error("Shape() is not a copy")
	}
	_, err = acldump.NewTensor([]int64{2, 3}, []float32{1, 2, 3, 4, 5})
	wantMisuse(t, "5 elements for [2,3]", err, acl.ACL_ERROR_INVALID_PARAM,
		"shape [2,3] has 6 elements, the data 5", acldump.ErrInvalidParam, acldump.ErrShapeMismatch)
	_, err = acldump.NewTensor([]int64{-1, 3}, []int32{1, 2, 3})
	wantMisuse(t, "a negative dim", err, acl.ACL_ERROR_INVALID_PARAM, "negative",
		acldump.ErrShapeMismatch)
	scalar, err := acldump.NewTensor(nil, []int64{42})
	must(t, err)
	if scalar.DType() != acldump.DTypeInt64 || len(scalar.Shape()) != 0 {
		t.Errorf("scalar: %v %v", scalar.DType(), scalar.Shape())
	}
	empty, err := acldump.NewEmptyTensor[uint8]([]int64{0, 4})
	must(t, err)
	if len(empty.Data()) != 0 || empty.Bytes() != nil {
		t.Errorf("empty: %v", empty.Data())
	}

	// Go types map to acl data types; float16 is uint16 bits with the type given.
	type myFloat float32
	for _, c := range []struct {
		tensor acldump.AnyTensor
		dtype  acldump.DType
		code   int
	}{
		{must1(acldump.NewEmptyTensor[float64]([]int64{1})), acldump.DTypeFloat64, acl.ACL_DOUBLE},
		{must1(acldump.NewEmptyTensor[int8]([]int64{1})), acldump.DTypeInt8, acl.ACL_INT8},
		{must1(acldump.NewEmptyTensor[uint16]([]int64{1})), acldump.DTypeUint16, acl.ACL_UINT16},
		{must1(acldump.NewEmptyTensor[bool]([]int64{1})), acldump.DTypeBool, acl.ACL_BOOL},
		{must1(acldump.NewEmptyTensor[myFloat]([]int64{1})), acldump.DTypeFloat32, acl.ACL_FLOAT},
		{must1(acldump.NewTensorAs(acldump.DTypeFloat16, []int64{1}, []uint16{0x3c00})),
			acldump.DTypeFloat16, acl.ACL_FLOAT16},
	} {
		if c.tensor.DType() != c.dtype || int(c.dtype) != c.code {
			t.Errorf("%T: %v (%d), want %v (%d)", c.tensor, c.tensor.DType(), int(c.dtype), c.dtype,
				c.code)
		}
	}
	_, err = acldump.NewTensorAs(acldump.DTypeFloat16, []int64{1}, []float32{1})
	wantMisuse(t, "float16 of float32", err, acl.ACL_ERROR_INVALID_PARAM, "cannot hold",
		acldump.ErrTypeMismatch)
}

func must1[T any](value T, err error) T {
	if err != nil {
		panic(err)
	}
	return value
}

func TestRunNamedTakesAndGivesTypedTensorsByName(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	model, err := acldump.LoadModel("testdata/resnet_tiny.om")
	must(t, err)
	defer model.Close()
	image, err := acldump.NewTensor([]int64{1, 3, 32, 32},
		readNpyFloat32(t, "testdata/resnet_tiny.input.input.npy"))
	must(t, err)
	outputs, err := model.RunNamed(map[string]acldump.AnyTensor{"input": image})
	must(t, err)
	if len(outputs) != 2 {
		t.Fatalf("outputs: %v", outputs)
	}
	prob, ok := outputs["prob"].(*acldump.Tensor[float32])
	if !ok || fmt.Sprint(prob.Shape()) != "[1 10]" {
		t.Fatalf("prob: %T %v", outputs["prob"], outputs["prob"])
	}
	if want := readNpyFloat32(t, "testdata/resnet_tiny.output.prob.npy"); !closeTo(prob.Data(), want) {
		t.Errorf("prob = %v, want %v", prob.Data(), want)
	}
	fc := outputs["fc"].(*acldump.Tensor[float32])
	if want := readNpyFloat32(t, "testdata/resnet_tiny.output.fc.npy"); !closeTo(fc.Data(), want) {
		t.Errorf("fc = %v, want %v", fc.Data(), want)
	}
	tagged, err := model.RunNamedTagged("req-1", map[string]acldump.AnyTensor{"input": image})
	must(t, err)
	if !reflect.DeepEqual(tagged["prob"].Bytes(), prob.Bytes()) {
		t.Error("RunNamedTagged's prob differs from RunNamed's")
	}
	if model.Inputs[0].DType() != acldump.DTypeFloat32 {
		t.Errorf("input dtype %v", model.Inputs[0].DType())
	}

	// A typed nil pointer is no tensor either; a wrong shape of the right size is refused too.
	_, err = model.RunNamed(map[string]acldump.AnyTensor{"input": (*acldump.Tensor[float32])(nil)})
	wantMisuse(t, "typed nil", err, acl.ACL_ERROR_INVALID_PARAM, "was given no tensor (nil)",
		acldump.ErrInvalidParam)
	flat, err := acldump.NewTensor([]int64{1, 3, 1024}, image.Data())
	must(t, err)
	_, err = model.RunNamed(map[string]acldump.AnyTensor{"input": flat})
	wantMisuse(t, "[1,3,1024]", err, acl.ACL_ERROR_MODEL_INPUT_NOT_MATCH,
		"input 0 ('input', float32[1,3,32,32]) was given float32[1,3,1024]",
		acldump.ErrModelInputNotMatch, acldump.ErrShapeMismatch)
	ints, err := acldump.NewEmptyTensor[int32]([]int64{1, 3, 32, 32})
	must(t, err)
	_, err = model.RunNamed(map[string]acldump.AnyTensor{"input": ints})
	if !errors.Is(err, acldump.ErrTypeMismatch) || errors.Is(err, acldump.ErrShapeMismatch) {
		t.Errorf("int32 input: %v", err)
	}
	// Unknown names are reported before anything else, the first in order.
	_, err = model.RunNamed(map[string]acldump.AnyTensor{"zz": nil, "b": nil, "input": image})
	wantMisuse(t, "unknown names", err, acl.ACL_ERROR_INVALID_PARAM,
		"the model has no input named 'b' (it has 'input')", acldump.ErrInvalidParam)
}

// Outputs whose size depends on the input come back shaped as the execution computed them.
func TestRunNamedShapesVaryingOutputs(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	model, err := acldump.LoadModel("testdata/postprocess_tiny.om")
	must(t, err)
	defer model.Close()
	scores, err := acldump.NewTensor([]int64{1, 1, 6},
		readNpyFloat32(t, "testdata/postprocess_tiny.input.scores.npy"))
	must(t, err)
	boxes, err := acldump.NewTensor([]int64{1, 6, 4},
		readNpyFloat32(t, "testdata/postprocess_tiny.input.boxes.npy"))
	must(t, err)
	outputs, err := model.RunNamed(map[string]acldump.AnyTensor{
		model.Inputs[0].Name: scores, model.Inputs[1].Name: boxes})
	must(t, err)
	out := outputs["boxes_out"].(*acldump.Tensor[float32])
	want := readNpyFloat32(t, "testdata/postprocess_tiny.output.boxes_out.npy")
	if fmt.Sprint(out.Shape()) != "[4 4]" || !closeTo(out.Data(), want) {
		t.Errorf("boxes_out %v = %v, want [4 4] %v", out.Shape(), out.Data(), want)
	}
}

func TestBindingRunsWithoutAllocating(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	model, err := acldump.LoadModel("testdata/resnet_tiny.om")
	must(t, err)
	defer model.Close()
	b, err := model.Bind()
	must(t, err)
	defer b.Close()
	image, err := acldump.InputOf[float32](b, "input")
	must(t, err)
	prob, err := acldump.OutputOf[float32](b, "prob")
	must(t, err)
	if fmt.Sprint(image.Shape()) != "[1 3 32 32]" || len(image.Data()) != 3*32*32 ||
		fmt.Sprint(prob.Shape()) != "[1 10]" || len(prob.Data()) != 10 {
		t.Fatalf("bound: %v %d, %v %d", image.Shape(), len(image.Data()), prob.Shape(),
			len(prob.Data()))
	}
	copy(image.Data(), readNpyFloat32(t, "testdata/resnet_tiny.input.input.npy"))
	must(t, b.Run())
	want := readNpyFloat32(t, "testdata/resnet_tiny.output.prob.npy")
	if !closeTo(prob.Data(), want) {
		t.Errorf("prob = %v, want %v", prob.Data(), want)
	}
	if again, _ := b.Output("prob"); again != acldump.AnyTensor(prob) {
		t.Error("Output(\"prob\") is not OutputOf's tensor")
	}
	// The bound tensors run by name too.
	outputs, err := model.RunNamed(map[string]acldump.AnyTensor{"input": image})
	must(t, err)
	if !reflect.DeepEqual(outputs["prob"].Bytes(), prob.Bytes()) {
		t.Error("RunNamed on the bound input differs from Run")
	}

	allocs := testing.AllocsPerRun(100, func() {
		if err := b.Run(); err != nil {
			panic(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Binding.Run allocates %v times per run", allocs)
	}
	if !closeTo(prob.Data(), want) {
		t.Errorf("prob after the runs = %v", prob.Data())
	}

	_, err = acldump.InputOf[int32](b, "input")
	wantMisuse(t, "InputOf[int32]", err, acl.ACL_ERROR_MODEL_INPUT_NOT_MATCH,
		"input 0 ('input', float32[1,3,32,32]) holds float32, not int32", acldump.ErrTypeMismatch)
	_, err = acldump.OutputOf[float64](b, "fc")
	wantMisuse(t, "OutputOf[float64]", err, acl.ACL_ERROR_MODEL_OUTPUT_NOT_MATCH,
		"holds float32, not float64", acldump.ErrModelOutputNotMatch, acldump.ErrTypeMismatch)
	_, err = acldump.OutputOf[float32](b, "logits")
	wantMisuse(t, "unknown output", err, acl.ACL_ERROR_INVALID_PARAM,
		"the model has no output named 'logits' (it has 'fc', 'prob')", acldump.ErrInvalidParam)

	must(t, b.Close())
	must(t, b.Close())
	if image.Data() != nil || prob.Data() != nil {
		t.Error("the tensors keep their freed memory")
	}
	wantMisuse(t, "Run after Close", b.Run(), acl.ACL_ERROR_INVALID_PARAM, "the Binding is closed",
		acldump.ErrInvalidParam)
	_, err = model.RunNamed(map[string]acldump.AnyTensor{"input": image})
	wantMisuse(t, "a closed Binding's tensor", err, acl.ACL_ERROR_INVALID_PARAM,
		"without its data")

	b2, err := model.Bind()
	must(t, err)
	defer b2.Close()
	must(t, model.Close())
	wantMisuse(t, "Run of a closed model", b2.Run(), acl.ACL_ERROR_INVALID_MODEL_ID,
		"is not loaded", acldump.ErrInvalidModelID)
	_, err = model.Bind()
	wantMisuse(t, "Bind of a closed model", err, acl.ACL_ERROR_INVALID_MODEL_ID, "is not loaded",
		acldump.ErrInvalidModelID)
}

// A bound output whose size depends on the input is reshaped by each Run, without allocating.
func TestBindingReshapesVaryingOutputs(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	model, err := acldump.LoadModel("testdata/postprocess_tiny.om")
	must(t, err)
	defer model.Close()
	b, err := model.Bind()
	must(t, err)
	defer b.Close()
	scores, err := acldump.InputOf[float32](b, model.Inputs[0].Name)
	must(t, err)
	boxes, err := acldump.InputOf[float32](b, model.Inputs[1].Name)
	must(t, err)
	out, err := acldump.OutputOf[float32](b, "boxes_out")
	must(t, err)
	copy(scores.Data(), readNpyFloat32(t, "testdata/postprocess_tiny.input.scores.npy"))
	copy(boxes.Data(), readNpyFloat32(t, "testdata/postprocess_tiny.input.boxes.npy"))
	if len(out.Data()) != 0 {
		t.Errorf("boxes_out before a run: %v", out.Shape())
	}
	must(t, b.Run())
	want := readNpyFloat32(t, "testdata/postprocess_tiny.output.boxes_out.npy")
	if fmt.Sprint(out.Shape()) != "[4 4]" || !closeTo(out.Data(), want) {
		t.Errorf("boxes_out %v = %v, want [4 4] %v", out.Shape(), out.Data(), want)
	}
	if allocs := testing.AllocsPerRun(20, func() { must(t, b.Run()) }); allocs != 0 {
		t.Errorf("Binding.Run allocates %v times per run", allocs)
	}
}

// Every sentinel is an *Error of its code, and the new ones are the C library's codes.
func TestSentinelsMatchByCode(t *testing.T) {
	for _, c := range []struct {
		sentinel error
		code     int
	}{
		{acldump.ErrInvalidParam, acl.ACL_ERROR_INVALID_PARAM},
		{acldump.ErrInvalidModelID, acl.ACL_ERROR_INVALID_MODEL_ID},
		{acldump.ErrModelInputNotMatch, acl.ACL_ERROR_MODEL_INPUT_NOT_MATCH},
		{acldump.ErrWaitTimeout, acl.ACL_ERROR_RT_WAIT_TIMEOUT},
		{acldump.ErrWriteFile, acl.ACL_ERROR_WRITE_FILE},
		{acldump.ErrUnsupportedDataType, acl.ACL_ERROR_UNSUPPORTED_DATA_TYPE},
		{acldump.ErrFailure, acl.ACL_ERROR_FAILURE},
	} {
		err := fmt.Errorf("wrapped: %w", &acldump.Error{Code: c.code, Message: "x"})
		if !errors.Is(err, c.sentinel) || aclCode(c.sentinel) != c.code {
			t.Errorf("%v (code %d) does not match code %d", c.sentinel, aclCode(c.sentinel), c.code)
		}
	}
	if errors.Is(acldump.ErrInvalidParam, acldump.ErrShapeMismatch) {
		t.Error("a code's sentinel matches ErrShapeMismatch")
	}
	if _, err := acldump.NewBuffer(-1); !errors.Is(err, acldump.ErrInvalidParam) {
		t.Errorf("NewBuffer(-1): %v", err)
	}
}
