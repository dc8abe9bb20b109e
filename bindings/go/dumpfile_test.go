package acldump_test

import (
	"encoding/binary"
	"errors"
	"os"
	"unsafe"
)

// A dump file: uint64 LE header length, a toolkit.dumpdata.DumpData header,
// then the raw tensors. Only what the tests need is decoded from the protobuf wire format, each
// length checked before use.
type dumpTensor struct {
	dataType uint64
	shape    []uint64
	size     uint64
}

type dumpHeader struct {
	opName          string
	inputs, outputs []dumpTensor
	otherSizes      uint64 // buffers and workspaces
}

var errCorrupt = errors.New("corrupt dump file")

type wire struct {
	data     []byte
	wireType uint64
}

func (w *wire) more() bool { return len(w.data) > 0 }

func (w *wire) varint() (uint64, error) {
	var value uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if len(w.data) == 0 {
			return 0, errCorrupt
		}
		b := w.data[0]
		w.data = w.data[1:]
		value |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return value, nil
		}
	}
	return 0, errCorrupt
}

func (w *wire) key() (uint64, error) {
	key, err := w.varint()
	w.wireType = key & 7
	return key >> 3, err
}

func (w *wire) bytes() ([]byte, error) {
	n, err := w.varint()
	if err != nil || n > uint64(len(w.data)) {
		return nil, errCorrupt
	}
	b := w.data[:n]
	w.data = w.data[n:]
	return b, nil
}

func (w *wire) skip() error {
	switch w.wireType {
	case 0:
		_, err := w.varint()
		return err
	case 2:
		_, err := w.bytes()
		return err
	case 1, 5:
		n := 8
		if w.wireType == 5 {
			n = 4
		}
		if len(w.data) < n {
			return errCorrupt
		}
		w.data = w.data[n:]
		return nil
	}
	return errCorrupt
}

func parseTensor(data []byte, sizeField uint64) (dumpTensor, error) {
	var t dumpTensor
	w := &wire{data: data}
	for w.more() {
		field, err := w.key()
		if err != nil {
			return t, err
		}
		switch {
		case field == sizeField:
			t.size, err = w.varint()
		case field == 1:
			t.dataType, err = w.varint()
		case field == 3:
			var shape []byte
			if shape, err = w.bytes(); err == nil {
				s := &wire{data: shape}
				for err == nil && s.more() {
					var f uint64
					if f, err = s.key(); err != nil || f != 1 {
						if err == nil {
							err = s.skip()
						}
						continue
					}
					if s.wireType == 2 { // packed
						var packed []byte
						if packed, err = s.bytes(); err == nil {
							p := &wire{data: packed}
							for err == nil && p.more() {
								var d uint64
								d, err = p.varint()
								t.shape = append(t.shape, d)
							}
						}
					} else {
						var d uint64
						d, err = s.varint()
						t.shape = append(t.shape, d)
					}
				}
			}
		default:
			err = w.skip()
		}
		if err != nil {
			return t, err
		}
	}
	return t, nil
}

func readDumpFile(path string) (*dumpHeader, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < 8 {
		return nil, errCorrupt
	}
	headerLen := binary.LittleEndian.Uint64(data)
	if headerLen > uint64(len(data)-8) {
		return nil, errCorrupt
	}
	h := &dumpHeader{}
	w := &wire{data: data[8 : 8+headerLen]}
	for w.more() {
		field, err := w.key()
		if err != nil {
			return nil, err
		}
		if field < 3 || field > 8 || field == 7 {
			if err := w.skip(); err != nil {
				return nil, err
			}
			continue
		}
		value, err := w.bytes()
		if err != nil {
			return nil, err
		}
		switch field {
		case 3, 4:
			sizeField := uint64(6)
			if field == 4 {
				sizeField = 5
			}
			t, err := parseTensor(value, sizeField)
			if err != nil {
				return nil, err
			}
			if field == 3 {
				h.outputs = append(h.outputs, t)
			} else {
				h.inputs = append(h.inputs, t)
			}
		case 5, 8:
			t, err := parseTensor(value, 3)
			if err != nil {
				return nil, err
			}
			h.otherSizes += t.size
		case 6:
			h.opName = string(value)
		}
	}
	total := 8 + headerLen + h.otherSizes
	for _, t := range append(h.inputs, h.outputs...) {
		total += t.size
	}
	if total != uint64(len(data)) {
		return nil, errCorrupt
	}
	return h, nil
}

// unsafeBytes views size bytes of C memory at address.
func unsafeBytes(address uintptr, size int) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(address)), size)
}
