package acldump_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	acldump "github.com/acldump/acldump-go"
	"github.com/acldump/acldump-go/acl"
)

// The samples' call sequence: device, context, stream, a model in its own memory (QuerySize +
// LoadFromFileWithMem), input copied to device memory, execute, then execute on the stream with
// a callback run by another thread, outputs copied back, dump files written.
func TestSampleCallSequence(t *testing.T) {
	runtime.LockOSThread() // the context is this thread's
	defer runtime.UnlockOSThread()
	dumpPath := t.TempDir()
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	must(t, acldump.SetDevice(0))
	context, err := acldump.NewContext(0)
	must(t, err)
	stream, err := acldump.NewStream()
	must(t, err)
	dump, err := acldump.StartDump(writeConfig(t, dumpPath))
	must(t, err)
	model, err := acldump.LoadModelWithMemory("testdata/resnet_tiny.om")
	must(t, err)
	if index, err := model.InputIndex("input"); err != nil || index != 0 {
		t.Errorf("InputIndex = %d, %v", index, err)
	}
	if _, err := model.OutputIndex("nope"); aclCode(err) != acl.ACL_ERROR_INVALID_PARAM {
		t.Errorf("OutputIndex(nope): %v", err)
	}
	image, err := acldump.NewBuffer(3 * 32 * 32 * 4)
	must(t, err)
	defer image.Close()
	must(t, image.CopyFrom(readNpy(t, "testdata/resnet_tiny.input.input.npy")))
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
	must(t, model.Execute(in, out))
	first := make([]byte, 40)
	must(t, prob.CopyTo(first))
	want := readNpy(t, "testdata/resnet_tiny.output.prob.npy")
	checkProb(t, first, want)

	// The async sample: a locked goroutine processes the stream's callbacks.
	threads := make(chan uint64)
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		threads <- acldump.ThreadID()
		for !stop.Load() {
			acldump.ProcessReport(20)
		}
		close(done)
	}()
	worker := <-threads
	must(t, stream.SubscribeReport(worker))
	var ranOn atomic.Uint64
	must(t, model.ExecuteAsync(in, out, stream))
	must(t, stream.LaunchCallback(func() { ranOn.Store(acldump.ThreadID()) }, true))
	must(t, stream.Synchronize())
	if ranOn.Load() != worker {
		t.Errorf("callback ran on thread %d, want %d", ranOn.Load(), worker)
	}
	must(t, stream.UnsubscribeReport(worker))
	stop.Store(true)
	<-done
	second := make([]byte, 40)
	must(t, prob.CopyTo(second))
	if !bytes.Equal(first, second) {
		t.Errorf("the async run differs from the sync run")
	}
	must(t, dump.Close())
	must(t, model.Close())
	must(t, stream.Close())
	must(t, context.Close())
	must(t, acldump.ResetDevice(0))
	must(t, acldump.Finalize())
	iterations := map[string]bool{}
	must(t, filepath.Walk(dumpPath, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			iterations[filepath.Base(filepath.Dir(path))] = true
		}
		return err
	}))
	if len(iterations) != 2 || !iterations["0"] || !iterations["1"] {
		t.Errorf("dumped iterations = %v, want 0 (sync) and 1 (async)", iterations)
	}
}

func float32frombytes(b []byte) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

func checkProb(t *testing.T, got, want []byte) {
	t.Helper()
	for i := 0; i < 40; i += 4 {
		g := float64(float32frombytes(got[i:]))
		w := float64(float32frombytes(want[i:]))
		if g-w > 1e-5 || w-g > 1e-5 {
			t.Errorf("prob[%d] = %v, want %v", i/4, g, w)
		}
	}
}

func TestRuntimeMisuse(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	if _, err := acldump.Device(); aclCode(err) != acl.ACL_ERROR_RT_CONTEXT_NULL {
		t.Errorf("Device without a context: %v", err)
	}
	if _, err := acldump.NewStream(); aclCode(err) != acl.ACL_ERROR_RT_CONTEXT_NULL ||
		!strings.Contains(err.Error(), "aclrtSetDevice") {
		t.Errorf("NewStream without a context: %v", err)
	}
	if err := acldump.ProcessReport(5); aclCode(err) != acl.ACL_ERROR_RT_THREAD_SUBSCRIBE {
		t.Errorf("ProcessReport without a subscription: %v", err)
	}
	must(t, acldump.SetDevice(0))
	stream, err := acldump.NewStream()
	must(t, err)
	other, err := acldump.NewContext(1)
	must(t, err)
	if err := stream.Synchronize(); aclCode(err) != acl.ACL_ERROR_RT_STREAM_CONTEXT {
		t.Errorf("a stream of another context: %v", err)
	}
	must(t, other.Close())
	must(t, acldump.SetDevice(0))
	if err := stream.LaunchCallback(func() {}, true); aclCode(err) != acl.ACL_ERROR_RT_STREAM_NO_CB_REG {
		t.Errorf("callback without a subscriber: %v", err)
	}
	buffer, err := acldump.NewBuffer(16)
	must(t, err)
	if err := buffer.CopyFrom(make([]byte, 17)); aclCode(err) != acl.ACL_ERROR_RT_PARAM_INVALID ||
		!strings.Contains(err.Error(), "exceeds destMax") {
		t.Errorf("copy of 17 bytes into 16: %v", err)
	}
	must(t, buffer.Close())
	must(t, stream.Close())
	if err := stream.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// The raw SWIG API: handles are uintptr, out-parameters one-element slices.
	handle := []uintptr{0}
	if code := acl.AclrtCreateStream(handle); code != acl.ACL_SUCCESS || handle[0] == 0 {
		t.Fatalf("AclrtCreateStream = %d", code)
	}
	if code := acl.AclrtDestroyStream(handle[0]); code != acl.ACL_SUCCESS {
		t.Errorf("AclrtDestroyStream = %d", code)
	}
	if code := acl.AclrtDestroyStream(handle[0]); code != acl.ACL_ERROR_RT_PARAM_INVALID {
		t.Errorf("second AclrtDestroyStream = %d", code)
	}
	mode := []int32{0}
	if code := acl.AclrtGetRunMode(mode); code != acl.ACL_SUCCESS || mode[0] != int32(acl.ACL_HOST) {
		t.Errorf("AclrtGetRunMode = %d, %v", code, mode)
	}
	work, weight := []int64{0}, []int64{0}
	if code := acl.AclmdlQuerySize("testdata/resnet_tiny.om", work, weight); code != acl.ACL_SUCCESS ||
		work[0] <= 0 || weight[0] <= 0 {
		t.Errorf("AclmdlQuerySize = %d, %v, %v", code, work, weight)
	}
	must(t, acldump.ResetDevice(0))
	must(t, acldump.ResetDevice(0))
}

// Dump armed on a loaded model, with no reload and no StartDump: the arm of tag req-7 for one
// execution dumps the first execution run with that tag, and only it.
func TestArmDumpForARequestTag(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	model, err := acldump.LoadModel("testdata/resnet_tiny.om")
	must(t, err)
	defer model.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	must(t, os.Mkdir(out, 0o755))
	config := filepath.Join(dir, "arm.json")
	text := fmt.Sprintf(`{"dump":{"dump_path":%q,"dump_mode":"output",`+
		`"dump_list":[{"model_name":"resnet_tiny"}]}}`, out)
	must(t, os.WriteFile(config, []byte(text), 0o644))

	err = model.ArmDump(filepath.Join(dir, "missing.json"), 1, "req-7")
	if !errors.Is(err, acldump.ErrInvalidFile) {
		t.Errorf("ArmDump of a missing config: %v, want ACL_ERROR_INVALID_FILE", err)
	}
	must(t, model.ArmDump(config, 1, "req-7"))
	dumped, remaining, unlimited, err := model.ArmedDumpCount("req-7")
	if err != nil || dumped != 0 || remaining != 1 || unlimited {
		t.Errorf("ArmedDumpCount(req-7) before = %d, %d, %v, %v; want 0, 1, false", dumped,
			remaining, unlimited, err)
	}
	input := readNpy(t, "testdata/resnet_tiny.input.input.npy")
	untagged, err := model.Run(input) // iteration 0
	must(t, err)
	_, err = model.RunTagged("req-6", input) // 1
	must(t, err)
	var tagged [][]byte
	for i := 0; i < 2; i++ { // 2 (dumped), 3 (the arm is used up)
		tagged, err = model.RunTagged("req-7", input)
		must(t, err)
	}
	if len(tagged) != len(untagged) {
		t.Fatalf("RunTagged gave %d outputs, Run %d", len(tagged), len(untagged))
	}
	for i := range untagged {
		if !bytes.Equal(tagged[i], untagged[i]) {
			t.Errorf("output %d of RunTagged differs from Run's", i)
		}
	}
	checkProb(t, tagged[1], readNpy(t, "testdata/resnet_tiny.output.prob.npy"))
	dumped, remaining, unlimited, err = model.ArmedDumpCount("req-7")
	if err != nil || dumped != 1 || remaining != 0 || unlimited {
		t.Errorf("ArmedDumpCount(req-7) = %d, %d, %v, %v; want 1, 0, false", dumped, remaining,
			unlimited, err)
	}
	must(t, model.DisarmDump("req-7"))

	var requests []string
	must(t, filepath.Walk(out, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == "request.json" {
			requests = append(requests, path)
		}
		return err
	}))
	if len(requests) != 1 {
		t.Fatalf("request.json files under out/: %v, want one", requests)
	}
	data, err := os.ReadFile(requests[0])
	must(t, err)
	var request struct {
		Iteration  *uint64 `json:"iteration"`
		RequestTag *string `json:"request_tag"`
	}
	must(t, json.Unmarshal(data, &request))
	if request.Iteration == nil || *request.Iteration != 2 || request.RequestTag == nil ||
		*request.RequestTag != "req-7" {
		t.Errorf("request.json = %s, want iteration 2 and request_tag req-7", data)
	}
	if got := filepath.Base(filepath.Dir(requests[0])); got != "2" {
		t.Errorf("request.json is in folder %s, want the iteration's (2)", got)
	}

	err = model.DisarmDump("req-7")
	if !errors.Is(err, acldump.ErrInvalidParam) ||
		!strings.Contains(err.Error(), "for tag 'req-7' does not exist") {
		t.Errorf("second DisarmDump(req-7): %v", err)
	}
	if _, _, _, err := model.ArmedDumpCount("req-7"); !errors.Is(err, acldump.ErrInvalidParam) ||
		!strings.Contains(err.Error(), "does not exist") {
		t.Errorf("ArmedDumpCount of a disarmed tag: %v", err)
	}
}

// DisarmDump("") removes the untagged arm only; DisarmAllDumps removes every arm.
func TestDisarmTheUntaggedArmOrAll(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	model, err := acldump.LoadModel("testdata/resnet_tiny.om")
	must(t, err)
	defer model.Close()
	config := writeConfig(t, t.TempDir())
	if err := model.DisarmDump(""); !errors.Is(err, acldump.ErrInvalidParam) ||
		!strings.Contains(err.Error(), "the untagged arm of model") {
		t.Errorf("DisarmDump(\"\") before any arm: %v", err)
	}
	must(t, model.ArmDump(config, 0, ""))
	must(t, model.ArmDump(config, 3, "req-9"))
	dumped, remaining, unlimited, err := model.ArmedDumpCount("")
	if err != nil || dumped != 0 || remaining != math.MaxUint64 || !unlimited {
		t.Errorf("ArmedDumpCount(\"\") = %d, %d, %v, %v; want 0, MaxUint64, true", dumped,
			remaining, unlimited, err)
	}
	must(t, model.DisarmDump(""))
	if _, _, _, err := model.ArmedDumpCount(""); !errors.Is(err, acldump.ErrInvalidParam) {
		t.Errorf("ArmedDumpCount(\"\") after DisarmDump(\"\"): %v", err)
	}
	if _, remaining, unlimited, err := model.ArmedDumpCount("req-9"); err != nil ||
		remaining != 3 || unlimited {
		t.Errorf("ArmedDumpCount(req-9) after DisarmDump(\"\") = %d, %v, %v", remaining,
			unlimited, err)
	}
	must(t, model.DisarmAllDumps())
	if err := model.DisarmAllDumps(); !errors.Is(err, acldump.ErrInvalidParam) ||
		!strings.Contains(err.Error(), "is not armed") {
		t.Errorf("DisarmAllDumps without arms: %v", err)
	}
}

// recorderSummary is what the tests read of a report's recorder.json.
type recorderSummary struct {
	Trigger struct {
		Kind      string  `json:"kind"`
		Iteration *uint64 `json:"iteration"`
		Detail    string  `json:"detail"`
	} `json:"trigger"`
	Replay struct {
		Reproduced *bool `json:"reproduced"`
	} `json:"replay"`
}

func readRecorderSummary(t *testing.T, dir string) recorderSummary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "recorder.json"))
	must(t, err)
	var summary recorderSummary
	must(t, json.Unmarshal(data, &summary))
	if summary.Replay.Reproduced == nil || summary.Trigger.Iteration == nil {
		t.Fatalf("%s/recorder.json lacks replay.reproduced or trigger.iteration: %s", dir, data)
	}
	return summary
}

// The flight recorder on resnet_tiny: a NaN in the input gives a NaN output, which writes a
// report whose replay reproduces the execution; TriggerRecorder writes another one.
func TestFlightRecorder(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	model, err := acldump.LoadModel("testdata/resnet_tiny.om")
	must(t, err)
	defer model.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	must(t, os.Mkdir(out, 0o755))
	config := filepath.Join(dir, "replay.json")
	text := fmt.Sprintf(`{"dump":{"dump_path":%q,"dump_mode":"output",`+
		`"dump_list":[{"model_name":"resnet_tiny"}]}}`, out)
	must(t, os.WriteFile(config, []byte(text), 0o644))

	must(t, model.StartRecorder(config, 4, acldump.RecorderDefault))
	err = model.StartRecorder(config, 4, acldump.RecorderDefault)
	if !errors.Is(err, acldump.ErrInvalidParam) ||
		!strings.Contains(err.Error(), "already has a recorder") {
		t.Errorf("second StartRecorder: %v", err)
	}
	if _, err := model.LastRecorderReport(); !errors.Is(err, acldump.ErrInvalidParam) ||
		!strings.Contains(err.Error(), "has written no report yet") {
		t.Errorf("LastRecorderReport before any report: %v", err)
	}
	input := readNpy(t, "testdata/resnet_tiny.input.input.npy")
	for i := 0; i < 2; i++ { // iterations 0 and 1
		_, err := model.Run(input)
		must(t, err)
	}
	nan := append([]byte(nil), input...)
	binary.LittleEndian.PutUint32(nan, math.Float32bits(float32(math.NaN())))
	outputs, err := model.Run(nan) // 2: a NaN output triggers a report (its replay is 3)
	must(t, err)
	if prob := float32frombytes(outputs[1]); !math.IsNaN(float64(prob)) {
		t.Fatalf("prob[0] with a NaN input = %v, want NaN", prob)
	}
	must(t, model.WaitRecorder(time.Minute))
	counts, err := model.RecorderCounts()
	must(t, err)
	want := acldump.RecorderCounts{Recorded: 3, Triggers: 1, Reports: 1, Reproduced: 1}
	if counts != want {
		t.Errorf("RecorderCounts = %+v, want %+v", counts, want)
	}
	first, err := model.LastRecorderReport()
	must(t, err)
	if !first.Reproduced || first.TriggerIteration != 2 {
		t.Errorf("LastRecorderReport = %+v, want reproduced at iteration 2", first)
	}
	if !strings.HasPrefix(first.Dir, out+string(filepath.Separator)) {
		t.Errorf("report folder %q is not under the config's dump_path %q", first.Dir, out)
	}
	summary := readRecorderSummary(t, first.Dir)
	if summary.Trigger.Kind != "non_finite_output" || *summary.Trigger.Iteration != 2 ||
		!*summary.Replay.Reproduced {
		t.Errorf("recorder.json: trigger %+v, replay.reproduced %v; want non_finite_output at "+
			"2, reproduced", summary.Trigger, *summary.Replay.Reproduced)
	}

	_, err = model.Run(input) // 4
	must(t, err)
	second, err := model.TriggerRecorder("because")
	must(t, err)
	if !second.Reproduced || second.TriggerIteration != 4 {
		t.Errorf("TriggerRecorder = %+v, want reproduced at iteration 4", second)
	}
	if second.Dir == "" || second.Dir == first.Dir {
		t.Errorf("TriggerRecorder's folder %q, the first report's %q: want another", second.Dir,
			first.Dir)
	}
	summary = readRecorderSummary(t, second.Dir)
	if summary.Trigger.Kind != "call" || summary.Trigger.Detail != "because" ||
		!*summary.Replay.Reproduced {
		t.Errorf("recorder.json of the call: trigger %+v, replay.reproduced %v", summary.Trigger,
			*summary.Replay.Reproduced)
	}
	if last, err := model.LastRecorderReport(); err != nil || last != second {
		t.Errorf("LastRecorderReport after TriggerRecorder = %+v, %v; want %+v", last, err, second)
	}
	must(t, model.WaitRecorder(-1))
	counts, err = model.RecorderCounts()
	must(t, err)
	want = acldump.RecorderCounts{Recorded: 4, Triggers: 2, Reports: 2, Reproduced: 2}
	if counts != want {
		t.Errorf("RecorderCounts after TriggerRecorder = %+v, want %+v", counts, want)
	}
	// The ring starts over after a report: nothing to replay.
	if _, err := model.TriggerRecorder(""); !errors.Is(err, acldump.ErrInvalidParam) {
		t.Errorf("TriggerRecorder with nothing recorded since the last report: %v", err)
	}

	must(t, model.StopRecorder())
	err = model.StopRecorder()
	if !errors.Is(err, acldump.ErrInvalidParam) || !strings.Contains(err.Error(), "has no recorder") {
		t.Errorf("second StopRecorder: %v", err)
	}
	if _, err := model.RecorderCounts(); !errors.Is(err, acldump.ErrInvalidParam) {
		t.Errorf("RecorderCounts without a recorder: %v", err)
	}
	if err := model.StartRecorder(config, 4, acldump.RecorderFlags(0x100)); !errors.Is(err,
		acldump.ErrInvalidParam) || !strings.Contains(err.Error(), "unknown bits") {
		t.Errorf("StartRecorder with unknown flags: %v", err)
	}
}
