package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// ownRedis starts a redis-server of the test's own on a free port with
// args, stopped when the test ends.
func ownRedis(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed: the gate's start checks need one of their own")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, append([]string{"--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--dir", t.TempDir()}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	opts, _ := redis.ParseURL(url)
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	for deadline := time.Now().Add(10 * time.Second); rdb.Ping(context.Background()).Err() != nil; {
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not answer in 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return url
}

func gateMain(t *testing.T, redisURL string, allowEviction bool) (*Main, *strings.Builder) {
	logs := &strings.Builder{}
	return &Main{
		Config: Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "stockd.db"), Addr: "127.0.0.1:0",
			ExpiryInterval: time.Second, LogFormat: "text", LogLevel: "info", RedisURL: redisURL,
			GateAllowEviction: allowEviction, GateReconcileInterval: time.Minute},
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
	}, logs
}

// TestServeRefusesEvictingRedis: an evicting Redis could drop stock keys
// and the stream of wins, so serve refuses it unless told it is a test;
// AOF off is a warning.
func TestServeRefusesEvictingRedis(t *testing.T) {
	url := ownRedis(t, "--maxmemory-policy", "allkeys-lru", "--appendonly", "no")
	m, _ := gateMain(t, url, false)
	err := m.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "noeviction") {
		m.Close()
		t.Fatalf("run on an evicting Redis: %v, want a refusal naming noeviction", err)
	}
	m, logs := gateMain(t, url, true)
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run with --gate-allow-eviction: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"allkeys-lru", "appendonly is off"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}

// TestServeGateEndToEnd runs a gated campaign through serve's own wiring:
// preheat, a win answered at once, the persister writing it, a confirm.
func TestServeGateEndToEnd(t *testing.T) {
	url := os.Getenv("STOCKD_TEST_REDIS_URL")
	if url == "" {
		t.Skip("STOCKD_TEST_REDIS_URL not set: the gate needs a real Redis")
	}
	pool := "e2e-" + uuid.NewString()[:8]
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, "stockd:gate:{"+pool+"}*", 1000).Iterator()
		for iter.Next(ctx) {
			_ = rdb.Del(ctx, iter.Val()).Err()
		}
		_ = rdb.Close()
	})
	m, _ := gateMain(t, url, false)
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	defer m.Close()
	base := "http://" + m.Addr()
	call := func(path, key, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	must := func(path, key, body string, want int) string {
		t.Helper()
		status, raw := call(path, key, body)
		if status != want {
			t.Fatalf("POST %s: %d, want %d: %s", path, status, want, raw)
		}
		return raw
	}
	from, until := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	must("/v1/skus", "sku", `{"sku":"tee"}`, 201)
	must("/v1/receipts", "rcv", `{"sku":"tee","quantity":5}`, 200)
	must("/v1/pools", "pool", `{"pool":"`+pool+`","kind":"campaign","gate":"redis","starts_at":"`+from+`","ends_at":"`+until+`"}`, 201)
	must("/v1/allocations", "alloc", `{"sku":"tee","location":"default","to_pool":"`+pool+`","quantity":2}`, 200)
	must("/v1/campaigns/"+pool+"/preheat", "preheat", "", 200)
	line := `{"lines":[{"sku":"tee","quantity":1,"location":"default","pool":"` + pool + `"}]}`
	idOf := func(raw string) string {
		id := raw[strings.Index(raw, `"id":"`)+6:]
		return id[:strings.Index(id, `"`)]
	}
	id := idOf(must("/v1/reservations", "r1", line, 201))
	second := idOf(must("/v1/reservations", "r2", line, 201))
	must("/v1/reservations", "r3", line, 409)
	// retry retries one move with the same key while the win is not yet
	// persisted: a reservation_not_persisted answer is not stored, so the
	// retry after the persister is decided afresh.
	retry := func(path, key string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; {
			status, body := call(path, key, "")
			if status == 200 {
				return
			}
			if status != 503 || !strings.Contains(body, "reservation_not_persisted") || time.Now().After(deadline) {
				t.Fatalf("%s: %d %s", path, status, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	retry("/v1/reservations/"+id+"/confirm", "pay-1")
	// Released: the returner (serve's own, under its lease) gives the unit
	// back to the gate, which sells it again.
	retry("/v1/reservations/"+second+"/release", "cancel-2")
	for deadline := time.Now().Add(10 * time.Second); ; {
		status, body := call("/v1/reservations", "r4", line)
		if status == 201 {
			break
		}
		if status != 409 || time.Now().After(deadline) {
			t.Fatalf("the released unit not sold again: %d %s", status, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Closed: shut, final.
	must("/v1/campaigns/"+pool+"/close", "close", "", 200)
	if status, body := call("/v1/reservations", "r5", line); status != 409 || !strings.Contains(body, "campaign_not_active") {
		t.Fatalf("after the close: %d %s", status, body)
	}
	// The gate's series the alert rules name are exposed by a server that
	// runs the gate (TestMetricsExposed runs none).
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	exposed, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	found := 0
	for _, name := range shippedSeries(t) {
		if !strings.HasPrefix(name, "stockd_gate_") {
			continue
		}
		found++
		if !regexp.MustCompile(`(?m)^` + name + `[{ ]`).Match(exposed) {
			t.Errorf("%s is named by deploy/ but not exposed", name)
		}
	}
	if found < 3 {
		t.Errorf("only %d stockd_gate_ series in deploy/", found)
	}
}
