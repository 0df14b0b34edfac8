package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// debugServer serves Go's profiler (net/http/pprof) on --debug-addr: off
// by default, and only on a loopback address, since a profile shows
// request data in memory and a CPU profile costs the server while it runs.
// It has a mux of its own, so nothing of it is reachable on --addr.
type debugServer struct {
	// addr is where it listens (the port chosen, for :0).
	addr   string
	server *http.Server
	done   chan struct{}
}

// debugReadHeaderTimeout bounds a debug client's headers; a profile's
// seconds parameter sets its own length, so there is no write timeout.
const debugReadHeaderTimeout = 5 * time.Second

// validateDebugAddr refuses a debug address reachable from other machines.
func validateDebugAddr(addr string) error {
	if addr == "" {
		return nil
	}
	onLoopback, err := loopback(addr)
	if err != nil {
		return fmt.Errorf("debug address: %w", err)
	}
	if !onLoopback {
		return fmt.Errorf("debug address %q: want a loopback address such as 127.0.0.1:6060", addr)
	}
	return nil
}

// startDebug listens on addr and serves /debug/pprof/ there.
func startDebug(addr string) (*debugServer, error) {
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("debug listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	d := &debugServer{
		addr:   listener.Addr().String(),
		server: &http.Server{Handler: mux, ReadHeaderTimeout: debugReadHeaderTimeout},
		done:   make(chan struct{}),
	}
	go func() {
		defer close(d.done)
		_ = d.server.Serve(listener) // ends with Close
	}()
	return d, nil
}

// close stops the debug server; a profile being taken is cut.
func (d *debugServer) close() error {
	if d == nil {
		return nil
	}
	err := d.server.Close()
	<-d.done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
