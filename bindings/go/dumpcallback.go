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

// Dump types of DumpPath (acldumpType; DumpPath is generated: calls_gen.go).
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

// ExceptionInfoPath is acldumpGetExceptionInfoPath: the exception dump folder of the selected
// device (device.go).
func ExceptionInfoPath() (string, error) {
	buffer := make([]byte, C.ACL_DUMP_MAX_FILE_PATH_LENGTH)
	p := (*C.char)(unsafe.Pointer(&buffer[0]))
	err := onSelected(func() error {
		return check(C.acldump_exception_info_path(p, C.size_t(len(buffer))))
	})
	if err != nil {
		return "", err
	}
	return C.GoString(p), nil
}

// Tensor types of ExceptionTensor (acldumpTensorType).
const (
	DumpTensorInput     = 0
	DumpTensorOutput    = 1
	DumpTensorWorkspace = 2
)

// ExceptionTensor is one tensor for SaveExceptionInfo: its bytes, aclFormat and aclDataType,
// shape and original shape (at most 25 dims each).
type ExceptionTensor struct {
	Type        int
	Data        []byte
	Format      int
	DataType    int
	Shape       []uint64
	OriginShape []uint64
}

// SaveExceptionInfo is acldumpSaveExceptionInfo: saves the tensors as a dump file
// {ExceptionInfoPath}/{fileName}.custom.{time} (of the selected device) while an exception dump
// is on.
func SaveExceptionInfo(fileName, userTag string, tensors []ExceptionTensor) error {
	count := len(tensors)
	infos := (*C.acldumpTensorInfo)(C.calloc(C.size_t(count+1), C.sizeof_acldumpTensorInfo))
	defer C.free(unsafe.Pointer(infos))
	list := unsafe.Slice(infos, count+1)
	// The data is copied into C memory: C must not keep Go pointers.
	for i, t := range tensors {
		info := &list[i]
		info._type = C.acldumpTensorType(t.Type)
		if len(t.Data) > 0 {
			data := C.CBytes(t.Data)
			defer C.free(data)
			info.tensorAddr = (*C.int64_t)(data)
		}
		info.tensorSize = C.size_t(len(t.Data))
		info.format = C.int32_t(t.Format)
		info.dataType = C.int32_t(t.DataType)
		info.addrType = C.ACL_DUMP_ADDR_RAW
		info.placement = C.ACL_DUMP_PLACEMENT_DEVICE
		info.argsOffset = C.uint32_t(i)
		info.shapeNum = C.uint32_t(len(t.Shape))
		for d := 0; d < len(t.Shape) && d < C.ACL_DUMP_MAX_SHAPE_NUM; d++ {
			info.shape[d] = C.uint64_t(t.Shape[d])
		}
		info.originShapeNum = C.uint32_t(len(t.OriginShape))
		for d := 0; d < len(t.OriginShape) && d < C.ACL_DUMP_MAX_SHAPE_NUM; d++ {
			info.originShape[d] = C.uint64_t(t.OriginShape[d])
		}
	}
	name, freeName := cString(fileName)
	defer freeName()
	tag, freeTag := cString(userTag)
	defer freeTag()
	var array *C.acldumpTensorInfo
	if count > 0 {
		array = infos
	}
	return onSelected(func() error {
		return check(C.acldump_save_exception_info(name, tag, array, C.size_t(count)))
	})
}
