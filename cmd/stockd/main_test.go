package main

import (
	"bytes"
	"context"
	"encoding/json"

	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeEndToEnd starts the real serve wiring on port 0 against a
// temporary SQLite file, drives a reservation through HTTP, shuts down
// gracefully and verifies the books with the verify command's code.
func TestServeEndToEnd(t *testing.T) {
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "stockd.db")
	m := &Main{
		Config: Config{DatabaseURL: dbURL, Addr: "127.0.0.1:0", ExpiryInterval: 50 * time.Millisecond, LogFormat: "text", LogLevel: "info"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	base := "http://" + m.Addr()
	call := func(method, path, key, body string, wantStatus int) map[string]any {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != wantStatus {
			t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, wantStatus, raw)
		}
		var out map[string]any
		if len(raw) > 0 && raw[0] == '{' {
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
		}
		return out
	}
	call("GET", "/healthz", "", "", 200)
	call("POST", "/v1/skus", "sku-1", `{"sku":"tee-M","name":"T-shirt M","unit":"piece"}`, 201)
	call("POST", "/v1/receipts", "rcpt-1", `{"sku":"tee-M","quantity":3}`, 200)
	res := call("POST", "/v1/reservations", "order-1", `{"lines":[{"sku":"tee-M","quantity":2}],"ttl_seconds":60}`, 201)
	id, _ := res["id"].(string)
	if id == "" || res["status"] != "pending" {
		t.Fatalf("reservation = %v", res)
	}
	call("POST", "/v1/reservations/"+id+"/confirm", "pay-1", `{}`, 200)
	call("POST", "/v1/reservations", "order-2", `{"lines":[{"sku":"tee-M","quantity":2}]}`, 409)
	short := call("POST", "/v1/reservations", "order-3", `{"lines":[{"sku":"tee-M","quantity":1}],"ttl_seconds":1}`, 201)
	stock := call("GET", "/v1/stock/tee-M", "", "", 200)
	totals, _ := stock["totals"].(map[string]any)
	if totals["committed"] != float64(2) || totals["available"] != float64(0) {
		t.Fatalf("stock = %v", stock)
	}
	// The expiry worker releases the 1-second hold.
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := call("GET", "/v1/reservations/"+short["id"].(string), "", "", 200)
		if got["status"] == "expired" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reservation still %v after its deadline", got["status"])
		}
		time.Sleep(100 * time.Millisecond)
	}
	call("GET", "/metrics", "", "", 200)
	if err := m.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	var out bytes.Buffer
	if err := runVerify(context.Background(), dbURL, false, &out); err != nil {
		t.Fatalf("verify: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "differences 0") {
		t.Fatalf("verify printed %q", out.String())
	}
}

func TestEnvironmentConfiguresFlags(t *testing.T) {
	t.Setenv("STOCKD_ADDR", "127.0.0.1:9999")
	t.Setenv("STOCKD_EXPIRY_INTERVAL", "3s")
	cmd := newServeCommand()
	if err := cmd.Flags().Parse([]string{"--expiry-interval=2s"}); err != nil {
		t.Fatal(err)
	}
	if err := applyEnv(cmd.Flags()); err != nil {
		t.Fatal(err)
	}
	addr, _ := cmd.Flags().GetString("addr")
	interval, _ := cmd.Flags().GetDuration("expiry-interval")
	if addr != "127.0.0.1:9999" || interval != 2*time.Second {
		t.Fatalf("addr %q interval %v: want the variable for addr and the flag for the interval", addr, interval)
	}
	t.Setenv("STOCKD_APPLIERS", "many")
	if err := applyEnv(newServeCommand().Flags()); err == nil {
		t.Fatal("a malformed STOCKD_APPLIERS was accepted")
	}

}
