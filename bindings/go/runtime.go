package acldump

// #include "calls_gen.h"
// acldump_status acldump_launch_callback(uintptr_t stream, uintptr_t id, int block);
import "C"

import (
	"math"
	"sync"
	"time"
	"unsafe"
)

// The context the package works in is the one the program selected last, on any goroutine
// (device.go). SetDevice, ResetDevice, Device and ProcessReport are generated (calls_gen.go);
// calls.h routes the C calls of the first three, of the Context methods and of Finalize through
// device.c, which keeps the selection.

// Context is an aclrtContext; Close destroys it (and its streams).
type Context struct{ handle uintptr }

// NewContext is aclrtCreateContext: a context on the device, which becomes the selected one (the
// context of the package's calls on every goroutine, device.go).
func NewContext(device int) (*Context, error) {
	handle, err := aclrtCreateContext(device)
	if err != nil {
		return nil, err
	}
	return &Context{handle: handle}, nil
}

// SetCurrent is aclrtSetCurrentContext: the context becomes the selected one, for every
// goroutine (device.go).
func (c *Context) SetCurrent() error { return aclrtSetCurrentContext(c.handle) }

// Close is aclrtDestroyContext; when it is the selected context, none is selected after.
func (c *Context) Close() error {
	if c.handle == 0 {
		return nil
	}
	handle := c.handle
	c.handle = 0
	return aclrtDestroyContext(handle)
}

// Stream is an aclrtStream of the context selected when it was made: an in-order queue of work
// run by its own worker. Its methods need that context still selected (else
// ACL_ERROR_RT_STREAM_CONTEXT), on any goroutine.
type Stream struct{ handle uintptr }

// NewStream is aclrtCreateStream, in the selected context.
func NewStream() (*Stream, error) {
	var handle uintptr
	err := onSelected(func() (err error) {
		handle, err = aclrtCreateStream()
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Stream{handle: handle}, nil
}

// Synchronize waits for the work queued so far; it returns the first failure among it.
func (s *Stream) Synchronize() error {
	return onSelected(func() error { return aclrtSynchronizeStream(s.handle) })
}

// SubscribeReport makes the thread with id thread (ThreadID in that thread) run the stream's
// callbacks in its ProcessReport.
func (s *Stream) SubscribeReport(thread uint64) error {
	return onSelected(func() error { return aclrtSubscribeReport(thread, s.handle) })
}

// UnsubscribeReport ends the subscription; callbacks not yet run are dropped.
func (s *Stream) UnsubscribeReport(thread uint64) error {
	return onSelected(func() error { return aclrtUnSubscribeReport(thread, s.handle) })
}

var callbacks = struct {
	sync.Mutex
	next uintptr
	fns  map[uintptr]func()
}{fns: map[uintptr]func(){}}

// LaunchCallback queues fn on the stream: the subscribed thread runs it in ProcessReport once
// the work queued before it has run; with block, later work waits for it to return.
func (s *Stream) LaunchCallback(fn func(), block bool) error {
	callbacks.Lock()
	callbacks.next++
	id := callbacks.next
	callbacks.fns[id] = fn
	callbacks.Unlock()
	blocking := C.int(0)
	if block {
		blocking = 1
	}
	err := onSelected(func() error {
		return check(C.acldump_launch_callback(C.uintptr_t(s.handle), C.uintptr_t(id), blocking))
	})
	if err != nil {
		callbacks.Lock()
		delete(callbacks.fns, id)
		callbacks.Unlock()
	}
	return err
}

//export acldumpRunCallback
func acldumpRunCallback(id C.uintptr_t) {
	callbacks.Lock()
	fn := callbacks.fns[uintptr(id)]
	delete(callbacks.fns, uintptr(id))
	callbacks.Unlock()
	if fn != nil {
		fn()
	}
}

// ThreadID is the calling OS thread's id for SubscribeReport (lock the goroutine to it).
func ThreadID() uint64 { return uint64(C.acldump_thread_id()) }

// Close runs the stream's queued work, then destroys it (aclrtDestroyStream).
func (s *Stream) Close() error {
	if s.handle == 0 {
		return nil
	}
	handle := s.handle
	s.handle = 0
	return onSelected(func() error { return aclrtDestroyStream(handle) })
}

// CopyFrom copies data into the buffer's device memory (aclrtMemcpy, host to device; it needs a
// selected context, device.go).
func (b *Buffer) CopyFrom(data []byte) error {
	var src unsafe.Pointer
	if len(data) > 0 {
		src = unsafe.Pointer(&data[0])
	}
	return onSelected(func() error {
		return check(C.acldump_memcpy(C.uintptr_t(b.memory), C.size_t(b.size), src,
			C.size_t(len(data)), C.ACL_MEMCPY_HOST_TO_DEVICE))
	})
}

// CopyTo copies len(data) bytes of the buffer's device memory into data (device to host).
func (b *Buffer) CopyTo(data []byte) error {
	var dst unsafe.Pointer
	if len(data) > 0 {
		dst = unsafe.Pointer(&data[0])
	}
	return onSelected(func() error {
		return check(C.acldump_memcpy_to(dst, C.size_t(len(data)), C.uintptr_t(b.memory),
			C.size_t(len(data)), C.ACL_MEMCPY_DEVICE_TO_HOST))
	})
}

// LoadModelWithMemory loads an .om file into work and weight memory of its own from aclrtMalloc,
// sized by aclmdlQuerySize (aclmdlLoadFromFileWithMem), on the selected device as LoadModel;
// Close unloads it, then frees them.
func LoadModelWithMemory(path string) (*Model, error) {
	workSize, weightSize, err := aclmdlQuerySize(path)
	if err != nil {
		return nil, err
	}
	work, err := aclrtMalloc(workSize, C.ACL_MEM_MALLOC_HUGE_FIRST)
	if err != nil {
		return nil, err
	}
	weight, err := aclrtMalloc(weightSize, C.ACL_MEM_MALLOC_HUGE_FIRST)
	if err != nil {
		aclrtFree(work)
		return nil, err
	}
	var id uint32
	err = onSelected(func() (err error) {
		id, err = aclmdlLoadFromFileWithMem(path, work, workSize, weight, weightSize)
		return err
	})
	if err != nil {
		aclrtFree(work)
		aclrtFree(weight)
		return nil, err
	}
	m, err := describe(id)
	if err != nil {
		aclrtFree(work)
		aclrtFree(weight)
		return nil, err
	}
	m.memory = []uintptr{work, weight}
	return m, nil
}

// ExecuteAsync queues one execution on the stream (nil: the selected context's default stream);
// the stream's Synchronize waits for it. The buffers must stay open until then.
func (m *Model) ExecuteAsync(input, output *Dataset, s *Stream) error {
	var stream uintptr
	if s != nil {
		stream = s.handle
	}
	return onSelected(func() error {
		return aclmdlExecuteAsync(m.id, input.handle, output.handle, stream)
	})
}

// CurrentOutputDims is aclmdlGetCurOutputDims: the dims of output index as the
// last execution computed them (an output whose size depends on the input,
// -1 in Outputs[index].Dims), or at the gear last set on the model.
func (m *Model) CurrentOutputDims(index int) ([]int64, error) {
	handle, err := aclmdlCreateDesc()
	if err != nil {
		return nil, err
	}
	defer C.acldump_destroy_desc(C.uintptr_t(handle))
	if err := aclmdlGetDesc(handle, m.id); err != nil {
		return nil, err
	}
	cDims, err := aclmdlGetCurOutputDims(handle, index)
	if err != nil {
		return nil, err
	}
	dims := make([]int64, int(cDims.dimCount))
	for i := range dims {
		dims[i] = int64(cDims.dims[i])
	}
	return dims, nil
}

// ExecuteWithTag is aclmdlExecuteWithTag: Execute for the request tag ("": none), which the
// model's armed dumps (ArmDump) match.
func (m *Model) ExecuteWithTag(tag string, input, output *Dataset) error {
	return aclmdlExecuteWithTag(m.id, tag, input.handle, output.handle)
}

// RunTagged is Run for the request tag ("": none, as Run), executed by aclmdlExecuteWithTag so
// that the model's armed dumps (ArmDump) match it.
func (m *Model) RunTagged(tag string, inputs ...[]byte) (outputs [][]byte, err error) {
	return m.run(func(in, out *Dataset) error { return m.ExecuteWithTag(tag, in, out) }, inputs)
}

// ArmDump is aclmdlArmDump: with no reload, the model's next executions dump as the config at
// configPath says (a JSON file with a "dump" section), executions of them (0: every one until
// disarmed). With a non-empty tag only executions run by RunTagged / ExecuteWithTag with that
// tag count and dump; with "" any execution does. Each dumped execution writes request.json
// beside its files. Arming the same tag again replaces its arm. Needs Init, not StartDump.
func (m *Model) ArmDump(configPath string, executions uint64, tag string) error {
	return aclmdlArmDump(m.id, configPath, tag, executions)
}

// DisarmDump is aclmdlDisarmDump for the arm of tag ("": the untagged arm only): it writes all
// the arm's files before it returns, and fails with ErrInvalidParam when there is no such arm.
func (m *Model) DisarmDump(tag string) error {
	cTag, free := cString(tag) // never NULL: NULL would be every arm (DisarmAllDumps)
	defer free()
	return check(C.acldump_gen_aclmdlDisarmDump(C.uint32_t(m.id), cTag))
}

// DisarmAllDumps is aclmdlDisarmDump for every arm of the model (a NULL tag); ErrInvalidParam
// when it has none.
func (m *Model) DisarmAllDumps() error {
	return check(C.acldump_gen_aclmdlDisarmDump(C.uint32_t(m.id), nil))
}

// ArmedDumpCount is aclmdlGetArmedDumpCount for the arm of tag ("": the untagged arm): how many
// executions it has dumped and how many it will still dump. unlimited is true for an arm that
// dumps until disarmed (ArmDump with 0 executions); remaining is then math.MaxUint64, as in C.
// ErrInvalidParam when there is no such arm.
func (m *Model) ArmedDumpCount(tag string) (dumped, remaining uint64, unlimited bool, err error) {
	dumped, remaining, err = aclmdlGetArmedDumpCount(m.id, tag)
	if err != nil {
		return 0, 0, false, err
	}
	return dumped, remaining, remaining == math.MaxUint64, nil
}

// RecorderFlags are the flags of StartRecorder (ACL_RECORDER_*), combined with |.
type RecorderFlags uint32

// Flags of StartRecorder: what the recorder keeps and what writes a report.
const (
	// RecorderOperatorStats keeps the statistics of every operator output too; with
	// RecorderTriggerNonFinite a NaN/Inf in any operator output triggers a report.
	RecorderOperatorStats RecorderFlags = C.ACL_RECORDER_OPERATOR_STATS
	// RecorderTriggerNonFinite: a NaN or infinity in an output writes a report.
	RecorderTriggerNonFinite RecorderFlags = C.ACL_RECORDER_TRIGGER_NON_FINITE
	// RecorderTriggerError: a failed execution writes a report.
	RecorderTriggerError RecorderFlags = C.ACL_RECORDER_TRIGGER_ERROR
	// RecorderTriggerSignal: SIGUSR2 sent to the process writes a report (the previous handler
	// is restored when the last such recorder stops).
	RecorderTriggerSignal RecorderFlags = C.ACL_RECORDER_TRIGGER_SIGNAL
	// RecorderDefault is RecorderTriggerNonFinite | RecorderTriggerError.
	RecorderDefault RecorderFlags = C.ACL_RECORDER_DEFAULT
)

// RecorderReport is one report of a model's flight recorder.
type RecorderReport struct {
	Dir              string // the report's folder, which holds recorder.json
	Reproduced       bool   // the replay reproduced the recorded outputs bit for bit
	TriggerIteration uint64 // the iteration that triggered the report
}

// RecorderCounts are the counts of a model's flight recorder (aclmdlGetRecorderCount).
type RecorderCounts struct {
	Recorded   uint64 // executions recorded
	Triggers   uint64 // triggers seen
	Reports    uint64 // reports written
	Reproduced uint64 // reports whose replay reproduced the execution
	Skipped    uint64 // triggers not written (a report under way, the limit, nothing recorded)
}

// StartRecorder is aclmdlStartRecorder: the model keeps its last executions executions (1 to
// 1024) in memory (their inputs, output checksums and NaN/Inf counts; with
// RecorderOperatorStats every operator output's statistics). A trigger of flags (or
// TriggerRecorder) writes them as a report, with a replay of the triggering execution dumped as
// the config at configPath says (a dump config as ArmDump's, without dump_step; reports go into
// its dump_path). ErrInvalidParam when the model already has a recorder, for executions out of
// range or unknown flags; config errors as StartDump's. Close (aclmdlUnload) and Finalize stop
// it.
func (m *Model) StartRecorder(configPath string, executions uint32, flags RecorderFlags) error {
	return aclmdlStartRecorder(m.id, configPath, executions, uint32(flags))
}

// StopRecorder is aclmdlStopRecorder: it stops the recorder after the reports under way.
// ErrInvalidParam when the model has no recorder; ACL_ERROR_WRITE_FILE when a report since the
// last WaitRecorder could not be written.
func (m *Model) StopRecorder() error { return aclmdlStopRecorder(m.id) }

// TriggerRecorder is aclmdlTriggerRecorder: it writes a report now, on the calling goroutine,
// replaying the newest recorded execution; reason ("": none, at most 1024 bytes) is kept in
// recorder.json. Dir and TriggerIteration are read right after (aclmdlGetRecorderReportDir,
// aclmdlGetRecorderLastReport): the latest report's, which is this one unless an automatic
// trigger's report finished in between. ErrInvalidParam when the model has no recorder or
// nothing was recorded since it started or since the last report.
func (m *Model) TriggerRecorder(reason string) (RecorderReport, error) {
	reproduced, err := aclmdlTriggerRecorder(m.id, reason)
	if err != nil {
		return RecorderReport{}, err
	}
	report, err := m.LastRecorderReport()
	if err != nil {
		return RecorderReport{}, err
	}
	report.Reproduced = reproduced != 0
	return report, nil
}

// WaitRecorder is aclmdlWaitRecorder: it waits up to timeout (negative: without limit; rounded
// up to whole milliseconds) until the reports the recorder's triggers started are written, and
// returns the first of their failures since the last call (ACL_ERROR_WRITE_FILE). An *Error with
// code ACL_ERROR_RT_WAIT_TIMEOUT when one is still being written.
func (m *Model) WaitRecorder(timeout time.Duration) error {
	timeoutMs := -1
	if timeout >= 0 {
		ms := (timeout + time.Millisecond - 1) / time.Millisecond
		if ms > math.MaxInt32 {
			ms = math.MaxInt32
		}
		timeoutMs = int(ms)
	}
	return aclmdlWaitRecorder(m.id, timeoutMs)
}

// RecorderCounts is aclmdlGetRecorderCount; ErrInvalidParam when the model has no recorder.
func (m *Model) RecorderCounts() (RecorderCounts, error) {
	var c RecorderCounts
	var err error
	c.Recorded, c.Triggers, c.Reports, c.Reproduced, c.Skipped, err = aclmdlGetRecorderCount(m.id)
	if err != nil {
		return RecorderCounts{}, err
	}
	return c, nil
}

// LastRecorderReport is the latest report of the model's recorder (aclmdlGetRecorderLastReport
// and aclmdlGetRecorderReportDir). ErrInvalidParam when there is no recorder or it has written
// no report yet.
func (m *Model) LastRecorderReport() (RecorderReport, error) {
	reproduced, iteration, err := aclmdlGetRecorderLastReport(m.id)
	if err != nil {
		return RecorderReport{}, err
	}
	dir, err := aclmdlGetRecorderReportDir(m.id)
	if err != nil {
		return RecorderReport{}, err
	}
	return RecorderReport{Dir: dir, Reproduced: reproduced != 0, TriggerIteration: iteration}, nil
}

// InputIndex is aclmdlGetInputIndexByName; OutputIndex aclmdlGetOutputIndexByName.
func (m *Model) InputIndex(name string) (int, error)  { return m.indexByName(name, true) }
func (m *Model) OutputIndex(name string) (int, error) { return m.indexByName(name, false) }

func (m *Model) indexByName(name string, input bool) (int, error) {
	handle, err := aclmdlCreateDesc()
	if err != nil {
		return 0, err
	}
	defer C.acldump_destroy_desc(C.uintptr_t(handle))
	if err := aclmdlGetDesc(handle, m.id); err != nil {
		return 0, err
	}
	if input {
		return aclmdlGetInputIndexByName(handle, name)
	}
	return aclmdlGetOutputIndexByName(handle, name)
}
