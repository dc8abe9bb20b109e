package acldump

// #include "calls.h"
// acldump_status acldump_launch_callback(uintptr_t stream, uintptr_t id, int block);
import "C"

import (
	"sync"
	"unsafe"
)

// Contexts are per OS thread, as in C: a goroutine that uses SetDevice, NewContext or a Stream
// must stay on its thread (runtime.LockOSThread) for as long as it relies on its current context.

// SetDevice is aclrtSetDevice: opens the device and makes its default context the calling
// thread's current one. Each call needs a ResetDevice.
func SetDevice(device int) error { return check(C.acldump_set_device(C.int32_t(device))) }

// ResetDevice is aclrtResetDevice: releases one SetDevice.
func ResetDevice(device int) error { return check(C.acldump_reset_device(C.int32_t(device))) }

// Device is aclrtGetDevice: the device of the thread's current context.
func Device() (int, error) {
	var device C.int32_t
	if err := check(C.acldump_get_device(&device)); err != nil {
		return 0, err
	}
	return int(device), nil
}

// Context is an aclrtContext; Close destroys it (and its streams).
type Context struct{ handle C.uintptr_t }

// NewContext is aclrtCreateContext: a context on the device, current for the calling thread.
func NewContext(device int) (*Context, error) {
	c := &Context{}
	if err := check(C.acldump_create_context(C.int32_t(device), &c.handle)); err != nil {
		return nil, err
	}
	return c, nil
}

// SetCurrent is aclrtSetCurrentContext for the calling thread.
func (c *Context) SetCurrent() error { return check(C.acldump_set_current_context(c.handle)) }

// Close is aclrtDestroyContext.
func (c *Context) Close() error {
	if c.handle == 0 {
		return nil
	}
	handle := c.handle
	c.handle = 0
	return check(C.acldump_destroy_context(handle))
}

// Stream is an aclrtStream of the context current when it was made: an in-order queue of work
// run by its own worker.
type Stream struct{ handle C.uintptr_t }

// NewStream is aclrtCreateStream.
func NewStream() (*Stream, error) {
	s := &Stream{}
	if err := check(C.acldump_create_stream(&s.handle)); err != nil {
		return nil, err
	}
	return s, nil
}

// Synchronize waits for the work queued so far; it returns the first failure among it.
func (s *Stream) Synchronize() error { return check(C.acldump_synchronize_stream(s.handle)) }

// SubscribeReport makes the thread with id thread (ThreadID in that thread) run the stream's
// callbacks in its ProcessReport.
func (s *Stream) SubscribeReport(thread uint64) error {
	return check(C.acldump_subscribe_report(C.uint64_t(thread), s.handle))
}

// UnsubscribeReport ends the subscription; callbacks not yet run are dropped.
func (s *Stream) UnsubscribeReport(thread uint64) error {
	return check(C.acldump_unsubscribe_report(C.uint64_t(thread), s.handle))
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
	err := check(C.acldump_launch_callback(s.handle, C.uintptr_t(id), blocking))
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

// ProcessReport is aclrtProcessReport: runs the callbacks waiting for the calling thread,
// waiting up to timeoutMs (-1: no limit) for the first.
func ProcessReport(timeoutMs int) error { return check(C.acldump_process_report(C.int32_t(timeoutMs))) }

// ThreadID is the calling OS thread's id for SubscribeReport (lock the goroutine to it).
func ThreadID() uint64 { return uint64(C.acldump_thread_id()) }

// Close runs the stream's queued work, then destroys it (aclrtDestroyStream).
func (s *Stream) Close() error {
	if s.handle == 0 {
		return nil
	}
	handle := s.handle
	s.handle = 0
	return check(C.acldump_destroy_stream(handle))
}

// CopyFrom copies data into the buffer's device memory (aclrtMemcpy, host to device).
func (b *Buffer) CopyFrom(data []byte) error {
	var src unsafe.Pointer
	if len(data) > 0 {
		src = unsafe.Pointer(&data[0])
	}
	return check(C.acldump_memcpy(b.memory, C.size_t(b.size), src, C.size_t(len(data)),
		C.ACL_MEMCPY_HOST_TO_DEVICE))
}

// CopyTo copies len(data) bytes of the buffer's device memory into data (device to host).
func (b *Buffer) CopyTo(data []byte) error {
	var dst unsafe.Pointer
	if len(data) > 0 {
		dst = unsafe.Pointer(&data[0])
	}
	return check(C.acldump_memcpy_to(dst, C.size_t(len(data)), b.memory, C.size_t(len(data)),
		C.ACL_MEMCPY_DEVICE_TO_HOST))
}

// LoadModelWithMemory loads an .om file into work and weight memory of its own from aclrtMalloc,
// sized by aclmdlQuerySize (aclmdlLoadFromFileWithMem); Close unloads it, then frees them.
func LoadModelWithMemory(path string) (*Model, error) {
	p, free := cString(path)
	defer free()
	var workSize, weightSize C.size_t
	if err := check(C.acldump_query_size(p, &workSize, &weightSize)); err != nil {
		return nil, err
	}
	var work, weight C.uintptr_t
	if err := check(C.acldump_malloc(workSize, &work)); err != nil {
		return nil, err
	}
	if err := check(C.acldump_malloc(weightSize, &weight)); err != nil {
		C.acldump_free(work)
		return nil, err
	}
	var id C.uint32_t
	if err := check(C.acldump_load_with_mem(p, &id, work, workSize, weight, weightSize)); err != nil {
		C.acldump_free(work)
		C.acldump_free(weight)
		return nil, err
	}
	m, err := describe(uint32(id))
	if err != nil {
		C.acldump_free(work)
		C.acldump_free(weight)
		return nil, err
	}
	m.memory = []C.uintptr_t{work, weight}
	return m, nil
}

// ExecuteAsync queues one execution on the stream (nil: the current context's default stream);
// the stream's Synchronize waits for it. The buffers must stay open until then.
func (m *Model) ExecuteAsync(input, output *Dataset, s *Stream) error {
	var stream C.uintptr_t
	if s != nil {
		stream = s.handle
	}
	return check(C.acldump_execute_async(C.uint32_t(m.id), input.handle, output.handle, stream))
}

// InputIndex is aclmdlGetInputIndexByName; OutputIndex aclmdlGetOutputIndexByName.
func (m *Model) InputIndex(name string) (int, error)  { return m.indexByName(name, true) }
func (m *Model) OutputIndex(name string) (int, error) { return m.indexByName(name, false) }

func (m *Model) indexByName(name string, input bool) (int, error) {
	var handle C.uintptr_t
	if err := check(C.acldump_create_desc(&handle)); err != nil {
		return 0, err
	}
	defer C.aclmdlDestroyDesc((*C.aclmdlDesc)(unsafe.Pointer(uintptr(handle))))
	if err := check(C.acldump_get_desc(handle, C.uint32_t(m.id))); err != nil {
		return 0, err
	}
	p, free := cString(name)
	defer free()
	which := C.int(0)
	if input {
		which = 1
	}
	var index C.size_t
	if err := check(C.acldump_index_by_name(handle, p, which, &index)); err != nil {
		return 0, err
	}
	return int(index), nil
}
