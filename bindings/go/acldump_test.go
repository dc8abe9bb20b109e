package acldump_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	acldump "github.com/acldump/acldump-go"
	"github.com/acldump/acldump-go/acl"
)

const dtFloat = 1 // toolkit.dumpdata.OutputDataType DT_FLOAT

// The test runs from the runfiles root (ACLDUMP_RUNFILES), where testdata/ is.
func TestMain(m *testing.M) {
	if root := os.Getenv("ACLDUMP_RUNFILES"); root != "" {
		if err := os.Chdir(root); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

func writeConfig(t *testing.T, dumpPath string) string {
	t.Helper()
	config := filepath.Join(t.TempDir(), "acl.json")
	text := fmt.Sprintf(`{"dump": {"dump_path": %q, "dump_list": [{"model_name": "resnet_tiny"}]}}`,
		dumpPath)
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func aclCode(err error) int {
	var e *acldump.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return -1
}

// readNpy returns the raw little-endian data of a version 1.0 .npy file.
func readNpy(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	headerLen := int(binary.LittleEndian.Uint16(data[8:10]))
	if !strings.Contains(string(data[10:10+headerLen]), "'<f4'") {
		t.Fatalf("%s is not float32", path)
	}
	return data[10+headerLen:]
}

// Outputs whose size depends on the input (NMS picks the boxes) come back at
// the size this execution computed, as Python's run gives them.
func TestOutputsWhoseSizeVaries(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	model, err := acldump.LoadModel("testdata/postprocess_tiny.om")
	must(t, err)
	defer model.Close()
	if got := fmt.Sprint(model.Outputs[0].Dims); got != "[-1 4]" || model.Outputs[0].Size != 0 {
		t.Errorf("boxes_out: dims %s, size %d", got, model.Outputs[0].Size)
	}
	outputs, err := model.Run(readNpy(t, "testdata/postprocess_tiny.input.scores.npy"),
		readNpy(t, "testdata/postprocess_tiny.input.boxes.npy"))
	must(t, err)
	want := readNpy(t, "testdata/postprocess_tiny.output.boxes_out.npy")
	if !bytes.Equal(outputs[0], want) {
		t.Errorf("boxes_out: %d bytes, want the %d of the reference", len(outputs[0]), len(want))
	}
	dims, err := model.CurrentOutputDims(0)
	must(t, err)
	if fmt.Sprint(dims) != "[4 4]" {
		t.Errorf("current dims of boxes_out: %v", dims)
	}
}

func TestDumpTwoIterations(t *testing.T) {
	dumpPath := t.TempDir()
	config := writeConfig(t, dumpPath)
	must(t, acldump.Init(""))
	defer acldump.Finalize() // only matters when the test fails half-way
	dump, err := acldump.StartDump(config)
	must(t, err)
	model, err := acldump.LoadModel("testdata/resnet_tiny.om")
	must(t, err)
	if got := model.Inputs[0]; got.Name != "input" || fmt.Sprint(got.Dims) != "[1 3 32 32]" ||
		got.DataType != acl.AclDataType(acl.ACL_FLOAT) || got.Size != 3*32*32*4 {
		t.Errorf("input = %+v", got)
	}

	image, err := acldump.NewBuffer(3 * 32 * 32 * 4)
	must(t, err)
	defer image.Close()
	copy(image.Bytes(), readNpy(t, "testdata/resnet_tiny.input.input.npy"))
	fc, err := acldump.NewBuffer(40)
	must(t, err)
	defer fc.Close()
	prob, err := acldump.NewBuffer(40)
	must(t, err)
	defer prob.Close()
	in, err := acldump.NewDataset(image)
	must(t, err)
	defer in.Close()
	out, err := acldump.NewDataset(fc, prob)
	must(t, err)
	defer out.Close()
	for i := 0; i < 2; i++ {
		must(t, model.Execute(in, out))
	}
	want := readNpy(t, "testdata/resnet_tiny.output.prob.npy")
	for i := 0; i < 10; i++ {
		got := math.Float32frombits(binary.LittleEndian.Uint32(prob.Bytes()[4*i:]))
		exp := math.Float32frombits(binary.LittleEndian.Uint32(want[4*i:]))
		if math.Abs(float64(got-exp)) > 1e-5 {
			t.Errorf("prob[%d] = %v, want %v", i, got, exp)
		}
	}
	must(t, dump.Close())
	must(t, model.Close())
	must(t, acldump.Finalize())

	// {dump_path}/{time}/{device}/resnet_tiny/{model_id}/{iteration}/{file}
	iterations := map[string][]string{}
	softmax := ""
	must(t, filepath.Walk(dumpPath, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dumpPath, path)
		parts := strings.Split(rel, string(filepath.Separator))
		if len(parts) != 6 || parts[2] != "resnet_tiny" {
			t.Errorf("unexpected dump file %s", rel)
			return nil
		}
		iterations[parts[4]] = append(iterations[parts[4]], parts[5])
		if strings.HasPrefix(parts[5], "Softmax.prob.") {
			softmax = path
		}
		return nil
	}))
	if len(iterations) != 2 || len(iterations["0"]) != len(iterations["1"]) ||
		len(iterations["0"]) < 14 {
		t.Fatalf("iterations = %v", iterations)
	}
	for iteration, files := range iterations {
		sort.Strings(files)
		n := 0
		for _, f := range files {
			if strings.HasPrefix(f, "Softmax.prob.") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("iteration %s has %d Softmax.prob files: %v", iteration, n, files)
		}
	}
	header, err := readDumpFile(softmax)
	must(t, err)
	if header.opName != "prob" || len(header.outputs) != 1 {
		t.Fatalf("header = %+v", header)
	}
	if o := header.outputs[0]; fmt.Sprint(o.shape) != "[1 10]" || o.dataType != dtFloat ||
		o.size != 40 {
		t.Errorf("output = %+v", o)
	}
}

func TestVersionIsTheLibrarys(t *testing.T) {
	version, err := acldump.Version()
	if err != nil {
		t.Fatal(err)
	}
	major, minor, patch := []int32{0}, []int32{0}, []int32{0}
	if code := acl.AclrtGetVersion(major, minor, patch); code != 0 {
		t.Fatalf("aclrtGetVersion: %d", code)
	}
	if want := fmt.Sprintf("%d.%d.%d", major[0], minor[0], patch[0]); version != want || want == "0.0.0" {
		t.Fatalf("Version() = %q, aclrtGetVersion says %q", version, want)
	}
}

func TestErrorsCarryCodeAndMessage(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()

	// The raw SWIG API: the message is thread-local, so keep the goroutine on its thread.
	runtime.LockOSThread()
	code := acl.AclmdlSetDump("any.json")
	message := acl.AclGetRecentErrMsg()
	runtime.UnlockOSThread()
	if code != acl.ACL_ERROR_DUMP_NOT_RUN || message == "" {
		t.Errorf("set_dump before init_dump: %d %q", code, message)
	}

	_, err := acldump.StartDump(filepath.Join(t.TempDir(), "no_such.json"))
	var e *acldump.Error
	if !errors.As(err, &e) || e.Code != acl.ACL_ERROR_INVALID_FILE ||
		!strings.Contains(e.Message, "no_such.json") {
		t.Errorf("missing config: %v", err)
	}

	// Concurrent failures each get their own message (read in the cgo call that failed).
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			path := fmt.Sprintf("no/such/model%d.om", i)
			for j := 0; j < 20; j++ {
				_, err := acldump.LoadModel(path)
				if aclCode(err) != acl.ACL_ERROR_READ_MODEL_FAILURE ||
					!strings.Contains(err.Error(), path) {
					t.Errorf("goroutine %d: %v", i, err)
					return
				}
				runtime.Gosched()
			}
		}(i)
	}
	wg.Wait()

	must(t, acldump.Finalize())
	if _, err := acldump.LoadModel("testdata/resnet_tiny.om"); aclCode(err) != acl.ACL_ERROR_UNINITIALIZE {
		t.Errorf("load before init: %v", err)
	}
	if err := acldump.Finalize(); aclCode(err) != acl.ACL_ERROR_REPEAT_FINALIZE {
		t.Errorf("second finalize: %v", err)
	}
}

func TestLoadFromMemoryAndRun(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	data, err := os.ReadFile("testdata/resnet_tiny.om")
	must(t, err)
	model, err := acldump.LoadModelFromMemory(data)
	must(t, err)
	defer model.Close()
	outputs, err := model.Run(readNpy(t, "testdata/resnet_tiny.input.input.npy"))
	must(t, err)
	want := readNpy(t, "testdata/resnet_tiny.output.prob.npy")
	got := math.Float32frombits(binary.LittleEndian.Uint32(outputs[1][8:]))
	exp := math.Float32frombits(binary.LittleEndian.Uint32(want[8:]))
	if math.Abs(float64(got-exp)) > 1e-5 {
		t.Errorf("prob[2] = %v, want %v", got, exp)
	}
	if _, err := model.Run(make([]byte, 12)); aclCode(err) != acl.ACL_ERROR_MODEL_INPUT_NOT_MATCH {
		t.Errorf("wrong input size: %v", err)
	}
	// No inputs, a nil one and an empty one (a nil slice is an empty buffer): the C library's
	// ACL_ERROR_MODEL_INPUT_NOT_MATCH naming the input, as Java's run() and an empty ByteBuffer
	// give (a Java null, which Go has no counterpart of, is ACL_ERROR_INVALID_PARAM), matched by
	// its sentinel.
	for _, inputs := range [][][]byte{nil, {nil}, {{}}} {
		_, err := model.Run(inputs...)
		if !errors.Is(err, acldump.ErrModelInputNotMatch) || errors.Is(err, acldump.ErrInvalidParam) {
			t.Errorf("inputs %v: %v", inputs, err)
		}
		want := "input 0" // the empty input, named
		if len(inputs) == 0 {
			want = "has 1 inputs, got 0"
		}
		if err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("inputs %v: the message lacks %q: %v", inputs, want, err)
		}
	}
	if _, err := acldump.LoadModel("no/such.om"); !errors.Is(err, acldump.ErrReadModelFailure) &&
		!errors.Is(err, acldump.ErrInvalidFile) {
		t.Errorf("missing model: %v", err)
	}
	if _, err := acldump.LoadModelFromMemory([]byte("not a model")); aclCode(err) <= 0 {
		t.Errorf("garbage model: %v", err)
	}
	if _, err := acldump.LoadModelFromMemory(nil); aclCode(err) != acl.ACL_ERROR_INVALID_PARAM {
		t.Errorf("empty model: %v", err)
	}
}

func TestRawSingleOperator(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	var descs []acl.AclTensorDesc
	var handles []acl.AclDataBuffer
	for i := 0; i < 3; i++ {
		descs = append(descs, acl.AclCreateTensorDesc(acl.AclDataType(acl.ACL_FLOAT), []int64{4},
			acl.AclFormat(acl.ACL_FORMAT_ND)))
		defer acl.DeleteAclTensorDesc(descs[i])
		b, err := acldump.NewBuffer(16)
		must(t, err)
		defer b.Close()
		for j := 0; j < 4; j++ {
			binary.LittleEndian.PutUint32(b.Bytes()[4*j:], math.Float32bits(float32(i+j)))
		}
		handles = append(handles, b.Handle())
	}
	if got := acl.AclGetTensorDescSize(descs[0]); got != 16 {
		t.Errorf("desc size = %d", got)
	}
	attr := acl.AclopCreateAttr()
	defer acl.DeleteAclopAttr(attr)
	if code := acl.AclopExecuteV2("Add", descs[:2], handles[:2], descs[2:], handles[2:], attr,
		0); code != 0 {
		t.Fatalf("Add: %d", code)
	}
	data := acl.AclGetDataBufferAddr(handles[2])
	sum := math.Float32frombits(binary.LittleEndian.Uint32(
		unsafeBytes(data, 16)[4:]))
	if sum != 1+2 {
		t.Errorf("sum[1] = %v", sum)
	}
	if code := acl.AclopExecuteV2("NoSuchOp", nil, nil, nil, nil, nil, 0); code !=
		acl.ACL_ERROR_OP_NOT_FOUND {
		t.Errorf("unknown op: %d", code)
	}
}

func TestReadmeShowsTheExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	must(t, err)
	example, err := os.ReadFile("bindings/go/example_test.go")
	must(t, err)
	body := string(example[strings.Index(string(example), "func Example()"):])
	if !strings.Contains(string(readme), body) {
		t.Error("README's Go example must be Example from example_test.go")
	}
	typed, err := os.ReadFile("bindings/go/example_typed_test.go")
	must(t, err)
	typedBody := string(typed[strings.Index(string(typed), "// One inference with typed tensors by name."):])
	if !strings.Contains(string(readme), strings.TrimRight(typedBody, "\n")) {
		t.Error("README's typed Go examples must be those of example_typed_test.go")
	}
}

// runResnetTwice runs the model twice under a dump config and closes the dump.
func runResnetTwice(t *testing.T, config string) error {
	t.Helper()
	dump, err := acldump.StartDump(config)
	must(t, err)
	model, err := acldump.LoadModel("testdata/resnet_tiny.om")
	must(t, err)
	defer model.Close()
	image, err := acldump.NewBuffer(3 * 32 * 32 * 4)
	must(t, err)
	defer image.Close()
	copy(image.Bytes(), readNpy(t, "testdata/resnet_tiny.input.input.npy"))
	fc, err := acldump.NewBuffer(40)
	must(t, err)
	defer fc.Close()
	prob, err := acldump.NewBuffer(40)
	must(t, err)
	defer prob.Close()
	in, err := acldump.NewDataset(image)
	must(t, err)
	defer in.Close()
	out, err := acldump.NewDataset(fc, prob)
	must(t, err)
	defer out.Close()
	for i := 0; i < 2; i++ {
		must(t, model.Execute(in, out))
	}
	return dump.Close()
}

func TestDumpToACallback(t *testing.T) {
	dumpPath := t.TempDir()
	var mu sync.Mutex
	files := map[string][]byte{}
	ended := map[string]bool{}
	must(t, acldump.RegisterDumpCallback(func(c acldump.DumpChunk) error {
		mu.Lock()
		defer mu.Unlock()
		if c.Offset != int64(len(files[c.FileName])) {
			t.Errorf("%s: chunk at %d after %d bytes", c.FileName, c.Offset, len(files[c.FileName]))
		}
		files[c.FileName] = append(files[c.FileName], c.Data...)
		ended[c.FileName] = c.Last
		return nil
	}))
	defer acldump.UnregisterDumpCallback()
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	if _, err := acldump.ExceptionInfoPath(); err == nil {
		t.Error("ExceptionInfoPath without exception dump succeeded")
	}
	must(t, runResnetTwice(t, writeConfig(t, dumpPath)))
	must(t, filepath.Walk(dumpPath, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			t.Errorf("file written while a callback is registered: %s", path)
		}
		return err
	}))
	softmax := 0
	for name, data := range files {
		if !strings.HasPrefix(name, dumpPath+"/") || !ended[name] {
			t.Errorf("%s: outside the dump path or never ended", name)
			continue
		}
		if !strings.HasPrefix(filepath.Base(name), "Softmax.prob.") {
			continue
		}
		softmax++
		must(t, os.WriteFile(name, data, 0o600))
		header, err := readDumpFile(name)
		must(t, err)
		if header.opName != "prob" || len(header.outputs) != 1 ||
			fmt.Sprint(header.outputs[0].shape) != "[1 10]" {
			t.Errorf("delivered %s: header %+v", name, header)
		}
	}
	if softmax != 2 || len(files) < 28 {
		t.Errorf("%d files, %d of Softmax.prob (want 2)", len(files), softmax)
	}

	// A callback's error refuses the chunk: closing the dump reports the file.
	acldump.UnregisterDumpCallback()
	must(t, acldump.RegisterDumpCallback(func(acldump.DumpChunk) error {
		return errors.New("no room")
	}))
	err := runResnetTwice(t, writeConfig(t, t.TempDir()))
	if aclCode(err) != acl.ACL_ERROR_WRITE_FILE || !strings.Contains(err.Error(), "returned -1") {
		t.Errorf("refused chunks: %v", err)
	}
	must(t, acldump.Finalize())
}

func TestSaveExceptionInfo(t *testing.T) {
	root := t.TempDir()
	config := filepath.Join(t.TempDir(), "acl.json")
	text := fmt.Sprintf(`{"dump": {"dump_path": %q, "dump_scene": "aic_err_brief_dump"}}`, root)
	must(t, os.WriteFile(config, []byte(text), 0o644))
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	dump, err := acldump.StartDump(config)
	must(t, err)
	path, err := acldump.ExceptionInfoPath()
	must(t, err)
	if path != filepath.Join(root, "extra-info", "data-dump", "0") {
		t.Errorf("ExceptionInfoPath = %s", path)
	}
	data := make([]byte, 24)
	for i := range data {
		data[i] = byte(i)
	}
	must(t, acldump.SaveExceptionInfo("mine", "tag", []acldump.ExceptionTensor{
		{Type: acldump.DumpTensorInput, Data: data, Format: 2, DataType: 0, Shape: []uint64{2, 3}},
	}))
	if err := acldump.SaveExceptionInfo("a/../b", "", []acldump.ExceptionTensor{
		{Type: acldump.DumpTensorInput, Data: data, Shape: []uint64{6}},
	}); aclCode(err) != acl.ACL_ERROR_INVALID_PARAM {
		t.Errorf("a name with '..': %v", err)
	}
	if err := acldump.SaveExceptionInfo("x", "", nil); aclCode(err) != acl.ACL_ERROR_INVALID_PARAM {
		t.Errorf("no tensors: %v", err)
	}
	saved, _ := filepath.Glob(filepath.Join(path, "mine.custom.*"))
	if len(saved) != 1 {
		t.Fatalf("saved files: %v", saved)
	}
	header, err := readDumpFile(saved[0])
	must(t, err)
	if header.opName != "mine" || len(header.inputs) != 1 ||
		fmt.Sprint(header.inputs[0].shape) != "[2 3]" || header.inputs[0].size != 24 {
		t.Errorf("header = %+v", header)
	}
	must(t, dump.Close())
	must(t, acldump.Finalize())
}
