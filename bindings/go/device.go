package acldump

// #include "calls.h"
import "C"

import "runtime"

// The device rule. The C runtime's current context (and so its current device) is per OS
// thread, and a goroutine may run on another OS thread at each call. Package acldump therefore
// keeps one selected context for the whole process: the one selected last, on any goroutine, by
//
//   - SetDevice(id): the device's default context;
//   - NewContext(id): the new context;
//   - Context.SetCurrent: that context.
//
// ResetDevice that closes the selected device, Context.Close of the selected context and Finalize
// leave none selected; then the calls below run in the calling thread's own current context, as
// in C (none: device 0, and the calls that need a context fail with ACL_ERROR_RT_CONTEXT_NULL).
//
// Every call of the package that depends on the current context runs on a locked OS thread with
// the selected context made current on it for the call: LoadModel, LoadModelFromMemory and
// LoadModelWithMemory (the device the model runs on and dumps under: the {device} folder of
// {dump_path}/{time}/{device}/{model}/{model_id}/...), Device, NewStream and every Stream
// method, Model.ExecuteAsync, Buffer.CopyFrom and Buffer.CopyTo, ExceptionInfoPath and
// SaveExceptionInfo. Executions (Execute, Run, RunNamed, Binding.Run, ...) use the model's own
// device and need no context. So a program that calls SetDevice(1) once, on any goroutine, loads
// every model on device 1, from any goroutine.
//
// One device at a time: a program that works with two contexts at once, one per goroutine, uses
// the raw package acl on goroutines locked to their threads (runtime.LockOSThread), whose calls
// neither see nor change the selection. A call of this package leaves the selected context
// current on its thread.

// onSelected runs call with the selected context current on its OS thread.
func onSelected(call func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := check(C.acldump_status_of(C.acldump_go_use_selection())); err != nil {
		return err
	}
	return call()
}
