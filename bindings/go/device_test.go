package acldump_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	acldump "github.com/acldump/acldump-go"
	"github.com/acldump/acldump-go/acl"
)

// dumpDevices maps each model id dumped under dumpPath to the device folders its files are in:
// {dump_path}/{time}/{device}/{model}/{model_id}/{iteration}/{file}.
func dumpDevices(t *testing.T, dumpPath string) map[uint32]map[string]bool {
	t.Helper()
	devices := map[uint32]map[string]bool{}
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
		id, err := strconv.ParseUint(parts[3], 10, 32)
		if err != nil {
			t.Errorf("dump file %s: model id folder %q", rel, parts[3])
			return nil
		}
		if devices[uint32(id)] == nil {
			devices[uint32(id)] = map[string]bool{}
		}
		devices[uint32(id)][parts[1]] = true
		return nil
	}))
	return devices
}

// SetDevice(1) on one goroutine, then 16 models loaded from 16 other goroutines: every one is on
// device 1 and dumps into the device folder 1, although no goroutine but the first ran on the
// OS thread that called SetDevice (that goroutine keeps its thread locked, and blocked, until
// the loads are done).
func TestModelsLoadOnTheDeviceSelectedOnAnyGoroutine(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	dumpPath := t.TempDir()
	dump, err := acldump.StartDump(writeConfig(t, dumpPath))
	must(t, err)
	input := readNpy(t, "testdata/resnet_tiny.input.input.npy")

	selected := make(chan error)
	release := make(chan struct{})
	reset := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		selected <- acldump.SetDevice(1)
		<-release
		reset <- acldump.ResetDevice(1)
	}()
	must(t, <-selected)

	const loaders = 16
	models := make([]*acldump.Model, loaders)
	errs := make([]error, loaders)
	var wg sync.WaitGroup
	for i := 0; i < loaders; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.Gosched()
			if models[i], errs[i] = acldump.LoadModel("testdata/resnet_tiny.om"); errs[i] != nil {
				return
			}
			if _, errs[i] = models[i].Run(input); errs[i] != nil {
				return
			}
			runtime.Gosched()
			if device, err := acldump.Device(); err != nil || device != 1 {
				errs[i] = fmt.Errorf("Device() = %d, %v; want 1", device, err)
			}
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("loader %d: %v", i, err)
		}
	}
	for _, model := range models {
		if model != nil {
			must(t, model.Close())
		}
	}
	must(t, dump.Close())
	close(release)
	must(t, <-reset)

	devices := dumpDevices(t, dumpPath)
	for i, model := range models {
		if model == nil {
			continue
		}
		folders := devices[model.ID()]
		if len(folders) != 1 || !folders["1"] {
			t.Errorf("model %d (id %d) dumped under device folders %v, want 1 only", i,
				model.ID(), folders)
		}
	}
	if len(devices) != loaders {
		t.Errorf("%d models dumped, want %d", len(devices), loaders)
	}
}

// A stream made on one goroutine serves another (its context is the one selected, not the
// calling thread's), and a copy into device memory needs no thread of its own.
func TestStreamsAndCopiesWorkOnAnyGoroutine(t *testing.T) {
	must(t, acldump.Init(""))
	defer acldump.Finalize()
	must(t, acldump.SetDevice(1))
	stream, err := acldump.NewStream()
	must(t, err)
	buffer, err := acldump.NewBuffer(16)
	must(t, err)
	defer buffer.Close()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.Gosched()
			if errs[i] = stream.Synchronize(); errs[i] == nil {
				errs[i] = buffer.CopyFrom(make([]byte, 16))
			}
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
	must(t, stream.Close())
	must(t, acldump.ResetDevice(1))
	// The device is closed: nothing is selected, and a new stream has no context.
	if _, err := acldump.NewStream(); aclCode(err) != acl.ACL_ERROR_RT_CONTEXT_NULL {
		t.Errorf("NewStream after the last ResetDevice: %v, want ACL_ERROR_RT_CONTEXT_NULL", err)
	}
}
