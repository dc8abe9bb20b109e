package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	acldump "github.com/acldump/acldump-go"
)

// The load test's shape.
const (
	requests  = 3000 // in all, numbered 0..2999: input[0] is the request's number
	clients   = 8    // at once
	warmUp    = requests / 3
	dumpEvery = 100 // requests n%dumpEvery == 0 carry the dump header: 30 of them
	triggerAt = 2000
	// RSS may grow by at most this from the end of the warm-up third to the end: the Go heap
	// and the allocator settle during the warm-up, after which 2000 more requests (JSON bodies,
	// dumped ones included) must not keep growing it.
	rssGrowthLimit = 20 << 20
	deadline       = 2 * time.Minute // any wait of the test (Bazel's timeout is longer)
)

// sourceDir is the package's folder, where go test starts.
var sourceDir string

// The test runs from the runfiles root (ACLDUMP_RUNFILES), where testdata/ is.
func TestMain(m *testing.M) {
	sourceDir, _ = os.Getwd()
	if root := os.Getenv("ACLDUMP_RUNFILES"); root != "" {
		if err := os.Chdir(root); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

const modelPath = "testdata/resnet_tiny.om"

// readInput is testdata's input of resnet_tiny (a float32 .npy).
func readInput(t *testing.T) []float32 {
	t.Helper()
	data, err := os.ReadFile("testdata/resnet_tiny.input.input.npy")
	if err != nil {
		t.Fatal(err)
	}
	headerLen := int(binary.LittleEndian.Uint16(data[8:10]))
	if !strings.Contains(string(data[10:10+headerLen]), "'<f4'") {
		t.Fatal("the input .npy is not float32")
	}
	raw := data[10+headerLen:]
	values := make([]float32, len(raw)/4)
	for i := range values {
		values[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return values
}

// reference runs every request's input in this process, one at a time: the outputs the service
// must answer, bit for bit.
func reference(t *testing.T, base []float32) []map[string][]float32 {
	t.Helper()
	if err := acldump.Init(""); err != nil {
		t.Fatal(err)
	}
	defer acldump.Finalize()
	model, err := acldump.LoadModel(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	b, err := model.Bind()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	in, err := acldump.InputOf[float32](b, "input")
	if err != nil {
		t.Fatal(err)
	}
	copy(in.Data(), base)
	want := make([]map[string][]float32, requests)
	for n := range want {
		in.Data()[0] = float32(n)
		if err := b.Run(); err != nil {
			t.Fatal(err)
		}
		want[n] = map[string][]float32{}
		for _, info := range model.Outputs {
			out, err := acldump.OutputOf[float32](b, info.Name)
			if err != nil {
				t.Fatal(err)
			}
			want[n][info.Name] = append([]float32(nil), out.Data()...)
		}
	}
	return want
}

// serviceProcess is the service running as its own process.
type serviceProcess struct {
	cmd    *exec.Cmd
	url    string
	stdout chan string // its lines after the first
	exited chan error
	stderr *lockedBuffer
}

type lockedBuffer struct {
	sync.Mutex
	buffer bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.Lock()
	defer b.Unlock()
	return b.buffer.Write(p)
}

func (b *lockedBuffer) String() string {
	b.Lock()
	defer b.Unlock()
	return b.buffer.String()
}

// serviceBinary is the service's executable: GO_SERVICE_BIN (Bazel's build of it) or one built
// here with go build.
func serviceBinary(t *testing.T) string {
	if bin := os.Getenv("GO_SERVICE_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "go-service")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = sourceDir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startService starts the service on a free port of 127.0.0.1 and waits until it listens.
func startService(t *testing.T, args ...string) *serviceProcess {
	t.Helper()
	cmd := exec.Command(serviceBinary(t), append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	p := &serviceProcess{cmd: cmd, stdout: make(chan string, 16), exited: make(chan error, 1),
		stderr: &lockedBuffer{}}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	listening := make(chan string, 1)
	go func() {
		first := true
		for lines.Scan() {
			if first {
				listening <- lines.Text()
				first = false
			} else {
				p.stdout <- lines.Text()
			}
		}
		close(p.stdout)
		p.exited <- cmd.Wait()
	}()
	select {
	case line := <-listening:
		if !strings.HasPrefix(line, "listening on http://") {
			t.Fatalf("the service's first line: %q", line)
		}
		p.url = strings.TrimPrefix(line, "listening on ")
	case err := <-p.exited:
		t.Fatalf("the service exited before listening: %v\n%s", err, p.stderr)
	case <-time.After(deadline):
		cmd.Process.Kill()
		t.Fatalf("the service did not listen within %v\n%s", deadline, p.stderr)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	})
	return p
}

// rss is the process's resident set (VmRSS of /proc/<pid>/status), in bytes.
func rss(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if fields := strings.Fields(line); len(fields) == 3 && fields[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// answer is what the test reads of POST /infer's answer.
type answer struct {
	Outputs map[string]struct {
		Shape []int64   `json:"shape"`
		Data  []float32 `json:"data"`
	} `json:"outputs"`
	Dump *struct {
		Tag      string `json:"tag"`
		DumpPath string `json:"dump_path"`
	} `json:"dump"`
}

func writeConfig(t *testing.T, path, dumpPath string) {
	t.Helper()
	text := fmt.Sprintf(`{"dump": {"dump_path": %q, "dump_mode": "output", `+
		`"dump_list": [{"model_name": "resnet_tiny"}]}}`, dumpPath)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// 3000 requests from 8 concurrent clients, every 100th dumped by header, the flight recorder
// triggered once on the way: every answer is the single-threaded reference bit for bit, each
// dumped request has its own dump (request.json naming its tag), the recorder's report
// reproduces its execution, RSS stays put after the warm-up, and SIGTERM stops the service
// cleanly.
func TestLoad(t *testing.T) {
	start := time.Now()
	base := readInput(t)
	want := reference(t, base)
	t.Logf("reference: %d requests in %v", requests, time.Since(start))

	dir := t.TempDir()
	configs := filepath.Join(dir, "configs")
	dumps := filepath.Join(dir, "dumps")
	replays := filepath.Join(dir, "replays")
	for _, d := range []string{configs, dumps, replays} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig(t, filepath.Join(configs, "arm.json"), dumps)
	writeConfig(t, filepath.Join(dir, "recorder.json"), replays)
	service := startService(t, "-model", modelPath, "-workers", "4",
		"-dump-config-dir", configs, "-recorder-config", filepath.Join(dir, "recorder.json"))
	pid := service.cmd.Process.Pid

	client := &http.Client{Timeout: deadline,
		Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	// The bodies differ in input[0] only: the other 3071 numbers are written once.
	var rest bytes.Buffer
	for _, v := range base[1:] {
		rest.WriteByte(',')
		rest.WriteString(strconv.FormatFloat(float64(v), 'g', -1, 32))
	}
	restText := rest.String() + "]}"
	post := func(n int, dump bool) (*answer, error) {
		body := `{"input":[` + strconv.Itoa(n) + restText
		request, err := http.NewRequest(http.MethodPost, service.url+"/infer",
			strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		request.Header.Set("Content-Type", "application/json")
		if dump {
			request.Header.Set(DumpHeader, "arm.json")
		}
		response, err := client.Do(request)
		if err != nil {
			return nil, err
		}
		defer response.Body.Close()
		text, err := io.ReadAll(response.Body)
		if err != nil {
			return nil, err
		}
		if response.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("request %d: %s: %s", n, response.Status, text)
		}
		var a answer
		if err := json.Unmarshal(text, &a); err != nil {
			return nil, fmt.Errorf("request %d: %v: %s", n, err, text)
		}
		if dump && (a.Dump == nil || response.Header.Get(TagHeader) != a.Dump.Tag) {
			return nil, fmt.Errorf("request %d was dumped, but says %s (%s: %q)", n, text,
				TagHeader, response.Header.Get(TagHeader))
		}
		return &a, nil
	}

	var (
		mu       sync.Mutex
		failures []string
		tags     = map[string]int{} // dumped request's tag -> its number
		done     atomic.Int64
		trigger  = make(chan struct{})
	)
	failf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	// load sends requests [from, to) from the clients; each checks its answers.
	load := func(from, to int) {
		var next atomic.Int64
		next.Store(int64(from))
		var wg sync.WaitGroup
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := int(next.Add(1) - 1); n < to; n = int(next.Add(1) - 1) {
					dump := n%dumpEvery == 0
					a, err := post(n, dump)
					if done.Add(1) == triggerAt {
						close(trigger)
					}
					if err != nil {
						failf("%v", err)
						continue
					}
					if dump {
						mu.Lock()
						tags[a.Dump.Tag] = n
						mu.Unlock()
						if a.Dump.DumpPath != dumps {
							failf("request %d: dump_path %q, want %q", n, a.Dump.DumpPath, dumps)
						}
					}
					for name, data := range want[n] {
						got := a.Outputs[name]
						if fmt.Sprint(got.Shape) != "[1 10]" || len(got.Data) != len(data) {
							failf("request %d: output %s is %v %v", n, name, got.Shape, got.Data)
							continue
						}
						for i := range data {
							if math.Float32bits(got.Data[i]) != math.Float32bits(data[i]) {
								failf("request %d: %s[%d] = %v, the reference %v", n, name, i,
									got.Data[i], data[i])
								break
							}
						}
					}
				}
			}()
		}
		wg.Wait()
	}

	// The flight recorder, triggered once while the clients run.
	type report struct {
		Dir        string `json:"dir"`
		Reproduced bool   `json:"reproduced"`
	}
	triggered := make(chan report, 1)
	go func() {
		<-trigger
		var r report
		response, err := client.Post(service.url+"/recorder/trigger?reason=load-test", "", nil)
		if err != nil {
			failf("trigger: %v", err)
		} else {
			text, _ := io.ReadAll(response.Body)
			response.Body.Close()
			if response.StatusCode != http.StatusOK || json.Unmarshal(text, &r) != nil {
				failf("trigger: %s: %s", response.Status, text)
			}
		}
		triggered <- r
	}()

	loadStart := time.Now()
	load(0, warmUp)
	rssWarm := rss(t, pid)
	load(warmUp, requests)
	rssEnd := rss(t, pid)
	elapsed := time.Since(loadStart)
	t.Logf("%d requests from %d clients in %v (%.0f/s); RSS after %d: %.1f MB, after %d: "+
		"%.1f MB (%+.1f MB)", requests, clients, elapsed, requests/elapsed.Seconds(), warmUp,
		float64(rssWarm)/(1<<20), requests, float64(rssEnd)/(1<<20),
		float64(rssEnd-rssWarm)/(1<<20))
	for _, f := range failures {
		t.Error(f)
	}
	if got := done.Load(); got != requests {
		t.Errorf("%d requests answered, want %d", got, requests)
	}
	if rssEnd-rssWarm > rssGrowthLimit {
		t.Errorf("RSS grew by %.1f MB after the warm-up, more than %d MB",
			float64(rssEnd-rssWarm)/(1<<20), rssGrowthLimit>>20)
	}

	// Each dumped request: its own iteration folder, with request.json naming its tag beside
	// the dump files, {dumps}/{time}/{device}/resnet_tiny/{model_id}/{iteration}/.
	if len(tags) != requests/dumpEvery {
		t.Errorf("%d dumped requests answered with a tag, want %d", len(tags), requests/dumpEvery)
	}
	dumped := map[string]bool{}
	err := filepath.Walk(dumps, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.Name() != "request.json" {
			return err
		}
		rel, _ := filepath.Rel(dumps, path)
		if parts := strings.Split(rel, string(filepath.Separator)); len(parts) != 6 ||
			parts[2] != "resnet_tiny" {
			t.Errorf("request.json at %s, not in an iteration folder", rel)
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var request struct {
			RequestTag string `json:"request_tag"`
		}
		if err := json.Unmarshal(text, &request); err != nil {
			return fmt.Errorf("%s: %v", rel, err)
		}
		if _, ok := tags[request.RequestTag]; !ok || dumped[request.RequestTag] {
			t.Errorf("%s names tag %q: not a dumped request's, or twice", rel, request.RequestTag)
		}
		dumped[request.RequestTag] = true
		files, err := os.ReadDir(filepath.Dir(path))
		if err != nil {
			return err
		}
		if len(files) < 2 {
			t.Errorf("%s has no dump files beside it", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dumped) != requests/dumpEvery {
		t.Errorf("%d request.json files under %s, want %d (one per dumped request)", len(dumped),
			dumps, requests/dumpEvery)
	}

	// The recorder's report: written under its config's dump_path, and reproduced.
	var r report
	select {
	case r = <-triggered:
	case <-time.After(deadline):
		t.Fatalf("no trigger within %v", deadline)
	}
	if !r.Reproduced || !strings.HasPrefix(r.Dir, replays+string(filepath.Separator)) {
		t.Errorf("the trigger's report: %+v, want reproduced, under %s", r, replays)
	}
	var written struct {
		Trigger struct {
			Kind string `json:"kind"`
		} `json:"trigger"`
		Replay struct {
			Reproduced bool `json:"reproduced"`
		} `json:"replay"`
	}
	if text, err := os.ReadFile(filepath.Join(r.Dir, "recorder.json")); err != nil ||
		json.Unmarshal(text, &written) != nil || written.Trigger.Kind != "call" ||
		!written.Replay.Reproduced {
		t.Errorf("%s/recorder.json: %v %.300s", r.Dir, err, text)
	}
	response, err := client.Get(service.url + "/recorder")
	if err != nil {
		t.Fatal(err)
	}
	var state recorderJSON
	text, _ := io.ReadAll(response.Body)
	response.Body.Close()
	if err := json.Unmarshal(text, &state); err != nil || state.LastReport == nil ||
		!state.LastReport.Reproduced || state.LastReport.Dir != r.Dir || state.Counts.Reports != 1 ||
		state.Counts.Reproduced != 1 || state.Counts.Recorded < requests {
		t.Errorf("GET /recorder: %s (%v)", text, err)
	}

	checkRefusals(t, client, service.url)

	// SIGTERM: the service shuts down cleanly (exit status 0, "stopped").
	if err := service.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-service.exited:
		if err != nil {
			t.Errorf("the service exited with %v\n%s", err, service.stderr)
		}
	case <-time.After(deadline):
		service.cmd.Process.Kill()
		t.Fatalf("the service did not stop within %v after SIGTERM\n%s", deadline,
			service.stderr)
	}
	var last []string
	for line := range service.stdout {
		last = append(last, line)
	}
	if len(last) != 1 || last[0] != "stopped" {
		t.Errorf("the service's output after listening: %q, want [stopped]", last)
	}
	if logged := service.stderr.String(); logged != "" {
		t.Errorf("the service logged:\n%s", logged)
	}
}

// checkRefusals: the client's mistakes are 400 with the reason, a wrong method 405.
func checkRefusals(t *testing.T, client *http.Client, url string) {
	t.Helper()
	for _, c := range []struct {
		method, path, body, dump string
		status                   int
		says                     string
	}{
		{"POST", "/infer", `{"input": [1, 2]}`, "", 400, "has 2 values; the model takes 3072"},
		{"POST", "/infer", `{"image": []}`, "", 400, "no input named 'image'"},
		{"POST", "/infer", `[1, 2]`, "", 400, "not a JSON object"},
		{"POST", "/infer", `{}`, "", 400, "input 'input' is missing"},
		{"POST", "/infer", `{"input": [1]}`, "../recorder.json", 400, "name a file"},
		{"GET", "/infer", ``, "", 405, "use POST"},
		{"POST", "/healthz", ``, "", 405, "use GET"},
		{"GET", "/healthz", ``, "", 200, `"status":"ok"`},
	} {
		request, err := http.NewRequest(c.method, url+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.dump != "" {
			request.Header.Set(DumpHeader, c.dump)
		}
		response, err := client.Do(request)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := io.ReadAll(response.Body)
		response.Body.Close()
		if response.StatusCode != c.status || !strings.Contains(string(text), c.says) {
			t.Errorf("%s %s %s: %s %s, want %d saying %q", c.method, c.path, c.body,
				response.Status, text, c.status, c.says)
		}
	}
}
