package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	acldump "github.com/acldump/acldump-go"
)

// DumpHeader asks for a dump of the request: its value names a dump config in -dump-config-dir.
const DumpHeader = "X-Acldump-Dump"

// TagHeader is the response header with the request tag a dumped request ran with.
const TagHeader = "X-Acldump-Tag"

// service serves one loaded model. Each worker is a Binding (tensors made once, runs that
// allocate nothing); a request takes an idle worker for its run, so at most len(workers) run at
// once and the others wait.
type service struct {
	model     *acldump.Model
	modelName string
	workers   []*worker
	idle      chan *worker
	dumpDir   string // "": DumpHeader is refused
	recorder  bool   // the model's flight recorder is started
	dumped    atomic.Uint64
}

// worker is one Binding with its float32 tensors in the model's order.
type worker struct {
	binding *acldump.Binding
	inputs  []*acldump.Tensor[float32]
	outputs []*acldump.Tensor[float32]
}

// newService binds workers Bindings of model, whose inputs and outputs must be float32 of fixed
// dims (what the JSON API carries).
func newService(model *acldump.Model, modelPath string, workers int, dumpDir string,
	recorder bool) (*service, error) {
	for i, info := range append(append([]acldump.TensorInfo(nil), model.Inputs...),
		model.Outputs...) {
		kind := "input"
		if i >= len(model.Inputs) {
			kind = "output"
		}
		if info.DType() != acldump.DTypeFloat32 {
			return nil, fmt.Errorf("%s '%s' is %s: this service carries float32 tensors only", kind,
				info.Name, info.DType())
		}
		for _, d := range info.Dims {
			if d < 0 {
				return nil, fmt.Errorf("%s '%s' has dims %v that vary: this service binds fixed ones",
					kind, info.Name, info.Dims)
			}
		}
	}
	s := &service{
		model:     model,
		modelName: modelName(modelPath),
		idle:      make(chan *worker, workers),
		dumpDir:   dumpDir,
		recorder:  recorder,
	}
	for i := 0; i < workers; i++ {
		w, err := newWorker(model)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("binding worker %d: %w", i, err)
		}
		s.workers = append(s.workers, w)
		s.idle <- w
	}
	return s, nil
}

func newWorker(model *acldump.Model) (*worker, error) {
	b, err := model.Bind()
	if err != nil {
		return nil, err
	}
	w := &worker{binding: b}
	for _, info := range model.Inputs {
		t, err := acldump.InputOf[float32](b, info.Name)
		if err != nil {
			b.Close()
			return nil, err
		}
		w.inputs = append(w.inputs, t)
	}
	for _, info := range model.Outputs {
		t, err := acldump.OutputOf[float32](b, info.Name)
		if err != nil {
			b.Close()
			return nil, err
		}
		w.outputs = append(w.outputs, t)
	}
	return w, nil
}

// Close waits until no request runs (every worker is idle), then frees the Bindings. The server
// must be shut down: a request that comes later finds no worker.
func (s *service) Close() error {
	for range s.workers {
		<-s.idle
	}
	var first error
	for _, w := range s.workers {
		if err := w.binding.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.workers = nil
	return first
}

func modelName(path string) string {
	base := filepath.Base(path)
	return base[:len(base)-len(filepath.Ext(base))]
}

func (s *service) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/infer", s.handleInfer)
	mux.HandleFunc("/recorder", s.handleRecorder)
	mux.HandleFunc("/recorder/trigger", s.handleTrigger)
	mux.HandleFunc("/healthz", s.handleHealth)
	return mux
}

// statusError is an error with the HTTP status it answers (400 for the client's mistakes).
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

func badRequest(format string, args ...any) error {
	return &statusError{http.StatusBadRequest, fmt.Errorf(format, args...)}
}

// fail answers err with its status (500 unless it says otherwise); 500s are logged.
func fail(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	var se *statusError
	if errors.As(err, &se) {
		status = se.status
	}
	if status >= 500 {
		log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
	}
	http.Error(w, err.Error(), status)
}

func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	http.Error(w, r.Method+" is not allowed here: use "+method, http.StatusMethodNotAllowed)
	return false
}

func writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(body, '\n'))
}

// tensorJSON is a tensor in requests' answers: its dims and its elements in row-major order.
type tensorJSON struct {
	Shape []int64   `json:"shape"`
	Data  []float32 `json:"data"`
}

// inferResponse is POST /infer's answer.
type inferResponse struct {
	Model   string                `json:"model"`
	Outputs map[string]tensorJSON `json:"outputs"`
	Dump    *dumpJSON             `json:"dump,omitempty"`
}

// dumpJSON says where a dumped request's files are: request.json with request_tag = Tag, beside
// the dump files, in {dump_path}/{time}/{device}/{model}/{model_id}/{iteration}/.
type dumpJSON struct {
	Tag      string `json:"tag"`
	Config   string `json:"config"`
	DumpPath string `json:"dump_path"`
	ModelID  uint32 `json:"model_id"`
	Error    string `json:"error,omitempty"` // the dump's files could not all be written
}

// handleInfer is POST /infer: a JSON object with each model input by name as a flat array of
// its float32 elements ({"input": [3072 numbers]}); the answer has every output by name.
func (s *service) handleInfer(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodPost) {
		return
	}
	var dumpConfig string
	var err error
	if name := r.Header.Get(DumpHeader); name != "" {
		if dumpConfig, err = s.dumpConfig(name); err != nil {
			fail(w, r, err)
			return
		}
	}
	inputs, err := s.decodeInputs(w, r)
	if err != nil {
		fail(w, r, err)
		return
	}
	// A dumped run takes a worker too: at most len(s.workers) requests run at once.
	bound, err := s.acquire(r.Context())
	if err != nil {
		fail(w, r, &statusError{http.StatusServiceUnavailable, err})
		return
	}
	var response *inferResponse
	if dumpConfig == "" {
		response, err = s.run(bound, inputs)
	} else {
		response, err = s.runDumped(inputs, dumpConfig, r.Header.Get("X-Request-Id"))
	}
	s.idle <- bound
	if err != nil {
		fail(w, r, err)
		return
	}
	if response.Dump != nil {
		w.Header().Set(TagHeader, response.Dump.Tag)
	}
	writeJSON(w, r, response)
}

// decodeInputs reads the request's inputs, checked against the model's.
func (s *service) decodeInputs(w http.ResponseWriter, r *http.Request) ([][]float32, error) {
	limit := int64(4096)
	for _, info := range s.model.Inputs {
		limit += 64 * int64(info.Size/4) // room for any float's text
	}
	var body map[string][]float32
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit)).Decode(&body); err != nil {
		return nil, badRequest("the body is not a JSON object of float32 arrays by input name: %v",
			err)
	}
	known := make(map[string]bool, len(s.model.Inputs))
	names := make([]string, len(s.model.Inputs))
	for i, info := range s.model.Inputs {
		known[info.Name] = true
		names[i] = "'" + info.Name + "'"
	}
	for name := range body {
		if !known[name] {
			return nil, badRequest("the model has no input named '%s' (it has %s)", name,
				strings.Join(names, ", "))
		}
	}
	inputs := make([][]float32, len(s.model.Inputs))
	for i, info := range s.model.Inputs {
		data, ok := body[info.Name]
		if !ok {
			return nil, badRequest("input '%s' is missing", info.Name)
		}
		if want := info.Size / 4; len(data) != want {
			return nil, badRequest("input '%s' has %d values; the model takes %d (dims %v)",
				info.Name, len(data), want, info.Dims)
		}
		inputs[i] = data
	}
	return inputs, nil
}

func (s *service) acquire(ctx context.Context) (*worker, error) {
	select {
	case w := <-s.idle:
		return w, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// run is one request on a worker's Binding: the inputs copied in place, one Run, the outputs
// copied out (the Binding's tensors are the worker's).
func (s *service) run(w *worker, inputs [][]float32) (*inferResponse, error) {
	for i, data := range inputs {
		copy(w.inputs[i].Data(), data)
	}
	if err := w.binding.Run(); err != nil {
		return nil, err
	}
	response := &inferResponse{Model: s.modelName,
		Outputs: make(map[string]tensorJSON, len(w.outputs))}
	for i, t := range w.outputs {
		out := tensorJSON{Shape: t.Shape(), Data: append([]float32(nil), t.Data()...)}
		if err := finite(s.model.Outputs[i].Name, out.Data); err != nil {
			return nil, err
		}
		response.Outputs[s.model.Outputs[i].Name] = out
	}
	return response, nil
}

// finite refuses NaN and infinities, which JSON cannot carry (the flight recorder, when started,
// reports the execution).
func finite(name string, data []float32) error {
	for i, v := range data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("output '%s' holds %v at %d, which JSON cannot carry", name, v, i)
		}
	}
	return nil
}

var requestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// runDumped runs one request dumped as the config at configPath says: the model is armed for
// one execution of the request's own tag, which only this run carries, and disarmed after it
// (which returns once its files are written). A Binding has no tagged run, so this one request
// runs through RunNamedTagged, on tensors over the request's data.
func (s *service) runDumped(inputs [][]float32, configPath, clientID string) (*inferResponse,
	error) {
	prefix := "req"
	if clientID != "" {
		if !requestID.MatchString(clientID) {
			return nil, badRequest("X-Request-Id %q is not 1 to 64 of A-Z a-z 0-9 . _ : -",
				clientID)
		}
		prefix = clientID
	}
	tag := prefix + "-" + strconv.FormatUint(s.dumped.Add(1), 10) // unique: one arm per run
	dumpPath, err := readDumpPath(configPath)
	if err != nil {
		return nil, err
	}
	if err := s.model.ArmDump(configPath, 1, tag); err != nil {
		if errors.Is(err, acldump.ErrInvalidParam) || errors.Is(err, acldump.ErrInvalidFile) ||
			errors.Is(err, acldump.ErrInvalidDumpConfig) {
			return nil, badRequest("dump config %s: %v", filepath.Base(configPath), err)
		}
		return nil, err
	}
	named := make(map[string]acldump.AnyTensor, len(inputs))
	for i, info := range s.model.Inputs {
		t, err := acldump.NewTensor(info.Dims, inputs[i])
		if err != nil {
			s.model.DisarmDump(tag)
			return nil, err
		}
		named[info.Name] = t
	}
	outputs, err := s.model.RunNamedTagged(tag, named)
	dump := &dumpJSON{Tag: tag, Config: filepath.Base(configPath), DumpPath: dumpPath,
		ModelID: s.model.ID()}
	if disarmErr := s.model.DisarmDump(tag); disarmErr != nil {
		dump.Error = disarmErr.Error()
		log.Printf("dump of %s: %v", tag, disarmErr)
	}
	if err != nil {
		return nil, err
	}
	response := &inferResponse{Model: s.modelName, Dump: dump,
		Outputs: make(map[string]tensorJSON, len(outputs))}
	for name, t := range outputs {
		typed := t.(*acldump.Tensor[float32]) // newService checked the outputs' type
		if err := finite(name, typed.Data()); err != nil {
			return nil, err
		}
		response.Outputs[name] = tensorJSON{Shape: typed.Shape(), Data: typed.Data()}
	}
	return response, nil
}

// dumpConfig is the path of the dump config DumpHeader names: a file of -dump-config-dir.
func (s *service) dumpConfig(name string) (string, error) {
	if s.dumpDir == "" {
		return "", badRequest("%s: this service dumps no requests (start it with -dump-config-dir)",
			DumpHeader)
	}
	if name != filepath.Base(name) || name == "." || name == ".." {
		return "", badRequest("%s %q: name a file of the service's dump config folder", DumpHeader,
			name)
	}
	path := filepath.Join(s.dumpDir, name)
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return "", badRequest("%s %q: no such dump config", DumpHeader, name)
	}
	return path, nil
}

// readDumpPath is the config's dump_path, absolute.
func readDumpPath(configPath string) (string, error) {
	text, err := os.ReadFile(configPath)
	if err != nil {
		return "", err
	}
	var config struct {
		Dump struct {
			DumpPath string `json:"dump_path"`
		} `json:"dump"`
	}
	if err := json.Unmarshal(text, &config); err != nil {
		return "", badRequest("dump config %s: %v", filepath.Base(configPath), err)
	}
	return filepath.Abs(config.Dump.DumpPath)
}

// recorderJSON is GET /recorder's answer.
type recorderJSON struct {
	Counts     countsJSON  `json:"counts"`
	LastReport *reportJSON `json:"last_report"` // null before the first report
}

// countsJSON are the recorder's counts (acldump.RecorderCounts).
type countsJSON struct {
	Recorded   uint64 `json:"recorded"`
	Triggers   uint64 `json:"triggers"`
	Reports    uint64 `json:"reports"`
	Reproduced uint64 `json:"reproduced"`
	Skipped    uint64 `json:"skipped"`
}

type reportJSON struct {
	Dir              string `json:"dir"`
	Reproduced       bool   `json:"reproduced"`
	TriggerIteration uint64 `json:"trigger_iteration"`
}

func reportOf(r acldump.RecorderReport) *reportJSON {
	return &reportJSON{Dir: r.Dir, Reproduced: r.Reproduced, TriggerIteration: r.TriggerIteration}
}

func (s *service) recorderStarted() error {
	if !s.recorder {
		return &statusError{http.StatusNotFound,
			errors.New("the flight recorder is not started (start the service with -recorder-config)")}
	}
	return nil
}

// handleRecorder is GET /recorder: the flight recorder's counts and its latest report.
func (s *service) handleRecorder(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet) {
		return
	}
	if err := s.recorderStarted(); err != nil {
		fail(w, r, err)
		return
	}
	counts, err := s.model.RecorderCounts()
	if err != nil {
		fail(w, r, err)
		return
	}
	answer := recorderJSON{Counts: countsJSON(counts)}
	if counts.Reports > 0 {
		report, err := s.model.LastRecorderReport()
		if err != nil {
			fail(w, r, err)
			return
		}
		answer.LastReport = reportOf(report)
	}
	writeJSON(w, r, answer)
}

// handleTrigger is POST /recorder/trigger[?reason=...]: a report of the newest execution now,
// with its replay dumped as the recorder's config says.
func (s *service) handleTrigger(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodPost) {
		return
	}
	if err := s.recorderStarted(); err != nil {
		fail(w, r, err)
		return
	}
	reason := r.URL.Query().Get("reason")
	if len(reason) > 1024 {
		fail(w, r, badRequest("reason has %d bytes: at most 1024", len(reason)))
		return
	}
	report, err := s.model.TriggerRecorder(reason)
	if errors.Is(err, acldump.ErrInvalidParam) {
		err = &statusError{http.StatusConflict, err} // nothing recorded since the last report
	}
	if err != nil {
		fail(w, r, err)
		return
	}
	writeJSON(w, r, reportOf(report))
}

// handleHealth is GET /healthz.
func (s *service) handleHealth(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet) {
		return
	}
	writeJSON(w, r, map[string]any{"status": "ok", "model": s.modelName,
		"model_id": s.model.ID(), "workers": len(s.workers)})
}
