package gate_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd/internal/testdb"
)

// ownRedis is a redis-server of the test's own, on a free port, with AOF
// fsynced on every write so that a restart keeps every key: a drill may
// kill and restart it without touching the shared Redis.
type ownRedis struct {
	t    *testing.T
	port int
	dir  string
	cmd  *exec.Cmd
}

func startOwnRedis(t *testing.T) *ownRedis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed: the drill restarts a Redis of its own")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &ownRedis{t: t, port: l.Addr().(*net.TCPAddr).Port, dir: t.TempDir()}
	l.Close()
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *ownRedis) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *ownRedis) start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", "--port", fmt.Sprint(r.port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "yes", "--appendfsync", "always", "--dir", r.dir)
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.port)})
	defer rdb.Close()
	for deadline := time.Now().Add(10 * time.Second); rdb.Ping(context.Background()).Err() != nil; {
		if time.Now().After(deadline) {
			r.t.Fatal("redis-server did not answer in 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop kills the server (no shutdown save: AOF holds what was written).
func (r *ownRedis) stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		r.cmd = nil
	}
}

// TestDrillReturnAcrossRedisRestart: Redis dies while units are released
// in the database. The database step succeeds; the returner's Redis step
// fails, is counted under step "redis" (StockdGateReturnFailing), and is
// retried from the same cursor; once Redis is back (AOF kept its keys)
// the units are in the gate once, and sold again.
func TestDrillReturnAcrossRedisRestart(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		own := startOwnRedis(t)
		opts, _ := redis.ParseURL(own.url())
		opts.MaxRetries = -1
		rdb := redis.NewClient(opts)
		t.Cleanup(func() { _ = rdb.Close() })
		h := newHarnessOn(t, b, rdb, map[string]int64{"tee": 5})
		reg := prometheus.NewRegistry()
		if err := h.gate.Register(reg); err != nil {
			t.Fatal(err)
		}
		h.preheat()
		var ids []string
		for i := range 3 {
			res := h.reserve(fmt.Sprintf("r%d", i), "", map[string]int64{"tee": 1})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			ids = append(ids, res.Reservation.ID)
		}
		h.drain(h.gate)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); h.gate.Returner(ctx) }()
		defer func() { cancel(); <-done }()
		waitFor(t, func() bool { return h.gate.ReturnerStatus().Leading })

		own.stop()
		h.release(ids[0])
		h.release(ids[1])
		failures := func(step string) float64 {
			return gateFailures(t, reg, step)
		}
		waitFor(t, func() bool { return failures("redis") >= 1 })
		if st := h.gate.ReturnerStatus(); !strings.Contains(st.LastError, "redis") {
			t.Fatalf("returner status %+v: want the redis step's error", st)
		}
		own.start()
		waitFor(t, func() bool {
			n, err := h.rdb.Get(context.Background(), h.prefix+"{flash}:stock:tee/east").Int64()
			return err == nil && n == 4
		})
		if d := h.poolPosition("tee").Available(); d != 4 {
			t.Fatalf("the database holds %d available, want 4", d)
		}
		if f := failures("database"); f != 0 {
			t.Fatalf("%v database failures counted for a Redis outage", f)
		}
		for i := range 4 {
			if res := h.reserve(fmt.Sprintf("after%d", i), "", map[string]int64{"tee": 1}); res.Err != nil {
				t.Fatalf("a returned unit not sold: %v", res.Err)
			}
		}
		if res := h.reserve("beyond", "", map[string]int64{"tee": 1}); res.Err == nil {
			t.Fatal("sold beyond the stock after the restart")
		}
		h.drain(h.gate)
		if p := h.poolPosition("tee"); p.Available() != 0 || p.Reserved != 5 {
			t.Fatalf("pool position %+v", p.Counters)
		}
	})
}

// gateFailures reads the failure counter of step from reg.
func gateFailures(t *testing.T, reg *prometheus.Registry, step string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "stockd_gate_return_failures_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "step" && l.GetValue() == step {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no stockd_gate_return_failures_total{step=%q}", step)
	return 0
}
