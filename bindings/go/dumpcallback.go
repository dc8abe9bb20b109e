package acldump

// #include "calls.h"
import "C"

import (
	"sync"
	"unsafe"
)

// DumpChunk is a piece of a dump file delivered to a callback: Data belongs at Offset of the file
// FileName (the absolute path a file dump would write); Last is set on the file's last chunk.
type DumpChunk struct {
	FileName string
	Offset   int64
	Data     []byte // a copy: the callback may keep it
	Last     bool
}

// Dump types of DumpPath (acldumpType).
const (
	AicErrBriefDump  = 1
	AicErrNormDump   = 2
	AicErrDetailDump = 3
	DataDump         = 4
	OverflowDump     = 5
)

var dumpCallback struct {
	sync.Mutex
	fn func(DumpChunk) error
}

// RegisterDumpCallback is acldumpRegCallback: from now on every dump file reaches fn in chunks, in
// file order, instead of the disk. fn runs on a dump writer thread; an error it returns refuses the
// chunk (the rest of that file is not sent) and the dump's Close / FinalizeDump reports the file.
// While a callback is registered, registering another succeeds and has no effect, as in the SDK.
func RegisterDumpCallback(fn func(DumpChunk) error) error {
	dumpCallback.Lock()
	first := dumpCallback.fn == nil
	if first {
		dumpCallback.fn = fn
	}
	dumpCallback.Unlock()
	err := check(C.acldump_reg_dump_callback(0))
	if err != nil && first {
		dumpCallback.Lock()
		dumpCallback.fn = nil
		dumpCallback.Unlock()
	}
	return err
}

// UnregisterDumpCallback is acldumpUnregCallback: it returns once no chunk is being delivered.
func UnregisterDumpCallback() {
	C.acldump_unreg_dump_callback()
	dumpCallback.Lock()
	dumpCallback.fn = nil
	dumpCallback.Unlock()
}

//export acldumpDeliverChunk
func acldumpDeliverChunk(chunk *C.acldumpChunk) C.int32_t {
	dumpCallback.Lock()
	fn := dumpCallback.fn
	dumpCallback.Unlock()
	if fn == nil {
		return -1
	}
	err := fn(DumpChunk{
		FileName: C.GoString(&chunk.fileName[0]),
		Offset:   int64(chunk.offset),
		Data:     C.GoBytes(C.acldump_chunk_data(chunk), C.int(chunk.bufLen)),
		Last:     chunk.isLastChunk == 1,
	})
	if err != nil {
		return -1
	}
	return 0
}

// DumpPath is acldumpGetPath: the dump path in effect for dumpType (DataDump, AicErrNormDump...).
func DumpPath(dumpType int) (string, error) {
	var status C.acldump_status
	path := C.acldump_get_path(C.int(dumpType), &status)
	if err := check(status); err != nil {
		return "", err
	}
	return C.GoString(path), nil
}

// ExceptionInfoPath is acldumpGetExceptionInfoPath: the exception dump folder of the current
// device.
func ExceptionInfoPath() (string, error) {
	buffer := make([]byte, C.ACL_DUMP_MAX_FILE_PATH_LENGTH)
	p := (*C.char)(unsafe.Pointer(&buffer[0]))
	if err := check(C.acldump_exception_info_path(p, C.size_t(len(buffer)))); err != nil {
		return "", err
	}
	return C.GoString(p), nil
}
