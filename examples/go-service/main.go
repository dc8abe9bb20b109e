// Command go-service serves one acldump model over HTTP:
//
//	POST /infer             {"input": [3072 numbers]} -> {"model", "outputs": {"fc": {"shape",
//	                        "data"}, ...}}; with "X-Acldump-Dump: arm.json" the request is dumped
//	                        (config arm.json of -dump-config-dir), and the answer's "dump" says
//	                        where
//	GET  /recorder          the flight recorder's counts and latest report
//	POST /recorder/trigger  a flight recorder report now (?reason=...)
//	GET  /healthz           {"status": "ok", ...}
//
// The model is loaded once; requests run concurrently on -workers Bindings made at start. SIGINT
// or SIGTERM shuts it down gracefully (the requests under way finish). See README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	acldump "github.com/acldump/acldump-go"
)

type options struct {
	model              string
	addr               string
	workers            int
	aclConfig          string
	dumpConfigDir      string
	recorderConfig     string
	recorderExecutions uint
	shutdownTimeout    time.Duration
}

func parseOptions(args []string) (options, error) {
	var o options
	flags := flag.NewFlagSet("go-service", flag.ContinueOnError)
	flags.StringVar(&o.model, "model", "", "the .om model to serve (required)")
	flags.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0: any free one)")
	flags.IntVar(&o.workers, "workers", runtime.NumCPU(), "Bindings, so requests run at once")
	flags.StringVar(&o.aclConfig, "acl-config", "", "acl.json for aclInit (optional)")
	flags.StringVar(&o.dumpConfigDir, "dump-config-dir", "",
		"folder of the dump configs the "+DumpHeader+" header may name (none: no request dumps)")
	flags.StringVar(&o.recorderConfig, "recorder-config", "",
		"dump config of the flight recorder's replays; starts the recorder (optional)")
	flags.UintVar(&o.recorderExecutions, "recorder-executions", 8,
		"executions the flight recorder keeps (1 to 1024)")
	flags.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 10*time.Second,
		"how long a shutdown waits for the requests under way")
	if err := flags.Parse(args); err != nil {
		return o, err
	}
	if o.model == "" {
		return o, errors.New("-model is required")
	}
	if flags.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", flags.Args())
	}
	if o.workers < 1 {
		return o, fmt.Errorf("-workers %d: at least 1", o.workers)
	}
	return o, nil
}

func main() {
	o, err := parseOptions(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-service:", err)
		os.Exit(2)
	}
	// SIGINT and SIGTERM only: a flight recorder may take SIGUSR2 (RecorderTriggerSignal).
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		log.Print(err)
		stop()
		os.Exit(1)
	}
	fmt.Println("stopped")
}

// run serves until ctx is done, then shuts down: the server first (requests under way finish),
// then the Bindings, the model and acldump. It writes "listening on http://{address}" to stdout
// once it accepts connections.
func run(ctx context.Context, o options, stdout io.Writer) (err error) {
	if err := acldump.Init(o.aclConfig); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	defer keepFirst(&err, acldump.Finalize)
	model, err := acldump.LoadModel(o.model)
	if err != nil {
		return fmt.Errorf("loading %s: %w", o.model, err)
	}
	defer keepFirst(&err, model.Close)
	if o.recorderConfig != "" {
		err := model.StartRecorder(o.recorderConfig, uint32(o.recorderExecutions),
			acldump.RecorderDefault)
		if err != nil {
			return fmt.Errorf("starting the flight recorder: %w", err)
		}
	}
	svc, err := newService(model, o.model, o.workers, o.dumpConfigDir, o.recorderConfig != "")
	if err != nil {
		return err
	}
	defer keepFirst(&err, svc.Close)

	listener, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	server := &http.Server{Handler: svc.routes(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- server.Serve(listener) }()
	fmt.Fprintf(stdout, "listening on http://%s\n", listener.Addr())

	select {
	case err := <-served:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
	defer cancel()
	if err := server.Shutdown(shutdown); err != nil {
		server.Close() // svc.Close still waits for the runs under way
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	return nil
}

// keepFirst runs close (deferred) and keeps its error unless *err already holds one.
func keepFirst(err *error, close func() error) {
	if closeErr := close(); *err == nil {
		*err = closeErr
	}
}
