package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stockd/stockd/httpapi"
)

// TestServeRelays: serve with --nats-url publishes what it books to
// JetStream, and /healthz and /metrics tell the relay's lag.
func TestServeRelays(t *testing.T) {
	natsURL := os.Getenv("STOCKD_TEST_NATS_URL")
	if natsURL == "" {
		t.Skip("STOCKD_TEST_NATS_URL is unset: set it to a NATS server with JetStream (nats://127.0.0.1:4222) to run the relay tests")
	}
	suffix := fmt.Sprintf("%d", time.Now().UnixNano())
	stream, env := "TEST_SERVE_"+suffix, "serve"+suffix
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = js.DeleteStream(context.Background(), stream) })

	m := &Main{
		Config: Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "stockd.db"), Addr: "127.0.0.1:0",
			ExpiryInterval: time.Second, LogFormat: "text", LogLevel: "info",
			NATSURL: natsURL, NATSStream: stream, Environment: env},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	defer m.Close()
	base := "http://" + m.Addr()
	post := func(path, key, body string) {
		t.Helper()
		req, err := http.NewRequest("POST", base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("POST %s: %d", path, resp.StatusCode)
		}
	}
	post("/v1/skus", "sku-1", `{"sku":"tea.green","name":"Green tea"}`)
	post("/v1/receipts", "rcpt-1", `{"sku":"tea.green","quantity":3}`)
	post("/v1/reservations", "order-1", `{"lines":[{"sku":"tea.green","quantity":2}]}`)

	var health httpapi.Health
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&health)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		// The receipt, its back-in-stock events (position and pool), the
		// reservation.
		if r := health.Relay; r != nil && r.State == "leading" && r.Cursor >= 4 && r.LagEvents == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthz relay = %+v; want leading at cursor 4, no lag", health.Relay)
		}
		time.Sleep(50 * time.Millisecond)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"stockd." + env + ".receipt.tea%2Egreen", "stockd." + env + ".stock_back_in_stock.tea%2Egreen",
		"stockd." + env + ".pool_back_in_stock.tea%2Egreen", "stockd." + env + ".reserve.tea%2Egreen"}
	for i, subject := range want {
		msg, err := s.GetMsg(ctx, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		var e httpapi.LedgerEntry
		if err := json.Unmarshal(msg.Data, &e); err != nil {
			t.Fatal(err)
		}
		if msg.Subject != subject || e.SKU != "tea.green" || msg.Header.Get("Nats-Msg-Id") != fmt.Sprintf("%s:%d", env, e.Seq) {
			t.Fatalf("message %d: %s %v %+v; want subject %s", i+1, msg.Subject, msg.Header, e, subject)
		}
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	metrics, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"stockd_relay_lag_events 0", "stockd_relay_lag_seconds 0", "stockd_relay_leader 1", "stockd_relay_published_total 4"} {
		if !strings.Contains(string(metrics), name+"\n") {
			t.Errorf("/metrics lacks %q", name)
		}
	}
}

// TestServeRelayNeedsEnvironment: --nats-url without --environment is
// refused before anything starts.
func TestServeRelayNeedsEnvironment(t *testing.T) {
	cfg := Config{RequestTimeout: requestTimeoutDefault, ExpiryInterval: time.Second, NATSURL: "nats://127.0.0.1:4222"}
	for _, env := range []string{"", "prod.eu", "a b"} {
		cfg.Environment = env
		if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), "--environment") {
			t.Errorf("environment %q: %v; want refused", env, err)
		}
	}
	cfg.Environment = "prod-eu"
	if err := cfg.validate(); err != nil {
		t.Errorf("environment prod-eu: %v", err)
	}
	cfg.NATSURL = "http://127.0.0.1:4222"
	if err := cfg.validate(); err == nil {
		t.Error("an http:// NATS url was accepted")
	}
}
