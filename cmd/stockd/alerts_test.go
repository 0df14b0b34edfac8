package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd/alert"
	"github.com/stockd/stockd/webhook"
)

// TestServeRefusesSinksWithoutEnvironment: a sinks file and no
// --environment, and serve does not start (seed 003 §6).
func TestServeRefusesSinksWithoutEnvironment(t *testing.T) {
	sinks := filepath.Join(t.TempDir(), "sinks.json")
	if err := os.WriteFile(sinks, []byte(`{"sinks":[{"name":"log","kind":"log","environment":"production"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m := &Main{
		Config: Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "stockd.db"), Addr: "127.0.0.1:0", ExpiryInterval: time.Second, AlertSinks: sinks},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	err := m.Run(context.Background())
	if err == nil {
		m.Close()
	}
	if !errors.Is(err, alert.ErrNoEnvironment) || !strings.Contains(err.Error(), "--environment") {
		t.Fatalf("serve with sinks and no environment: %v, want refused naming --environment", err)
	}
	for _, bad := range []Config{{AlertDailyAt: "8am"}, {AlertDebounce: 2 * time.Hour}} {
		if err := bad.validateAlerts(); err == nil {
			t.Errorf("validateAlerts(%+v) = nil, want refused", bad)
		}
	}
}

// TestServeAlertsEndToEnd: the real serve wiring with a signed webhook on
// loopback: a SKU sold out is evaluated through the replenishment
// evaluation, alerted, delivered with the environment tag, listed and
// acknowledged through HTTP.
func TestServeAlertsEndToEnd(t *testing.T) {
	const secret = "an-end-to-end-secret-of-32-bytes"
	got := make(chan alert.Message, 10)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/prod" {
			t.Errorf("the production sink was sent to from environment e2e")
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := webhook.Verify([]byte(secret), r.Header.Get(alert.HeaderTimestamp), body, r.Header.Get(alert.HeaderSignature), time.Now(), time.Minute); err != nil {
			t.Errorf("receiver: %v", err)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var m alert.Message
		if err := json.Unmarshal(body, &m); err != nil {
			t.Errorf("receiver: %v", err)
		}
		got <- m
	}))
	defer receiver.Close()
	sinks := filepath.Join(t.TempDir(), "sinks.json")
	file := `{"sinks":[{"name":"ops","kind":"webhook","environment":"e2e","url":"` + receiver.URL + `","secret_env":"STOCKD_TEST_E2E_SECRET"},
		{"name":"prod","kind":"webhook","environment":"production","url":"` + receiver.URL + `/prod","secret_env":"STOCKD_TEST_E2E_SECRET"}]}`
	if err := os.WriteFile(sinks, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STOCKD_TEST_E2E_SECRET", secret)
	m := &Main{
		Config: Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "stockd.db"), Addr: "127.0.0.1:0", ExpiryInterval: time.Second,
			Environment: "e2e", AlertSinks: sinks, AlertDebounce: 20 * time.Millisecond, AlertInterval: 20 * time.Millisecond,
			BusinessTimeZone: "Asia/Shanghai"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	defer m.Close()
	base := "http://" + m.Addr()
	call := func(method, path, key, body string, want int) map[string]any {
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
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != want {
			t.Fatalf("%s %s: %d (%v), want %d: %v", method, path, resp.StatusCode, err, want, out)
		}
		return out
	}
	call("POST", "/v1/skus", "sku", `{"sku":"tea"}`, 201)
	call("POST", "/v1/receipts", "rcpt", `{"sku":"tea","quantity":2}`, 200)
	call("POST", "/v1/reservations", "sold", `{"lines":[{"sku":"tea","quantity":2}],"commit":true}`, 201)
	// The worker may see the receipt (2 available: critical) before the
	// sale; the stockout is what must arrive.
	var msg alert.Message
	for msg.Level != "stockout" {
		select {
		case msg = <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("no stockout alert reached the webhook within 10 s (last: %+v)", msg)
		}
	}
	if msg.Environment != "e2e" || msg.SKU != "tea" || msg.Level != "stockout" || !strings.HasPrefix(msg.Text, "[e2e] ") {
		t.Fatalf("webhook got %+v; want tea's stockout tagged e2e", msg)
	}
	page := call("GET", "/v1/alerts?sku=tea&status=open", "", "", 200)
	list, _ := page["alerts"].([]any)
	if len(list) != 1 {
		t.Fatalf("open alerts of tea = %v, want 1", page)
	}
	id := int64(list[0].(map[string]any)["id"].(float64))
	if id != msg.AlertID {
		t.Fatalf("alert %d listed, %d delivered", id, msg.AlertID)
	}
	acked := call("POST", "/v1/alerts/"+strconv.FormatInt(id, 10)+"/ack", "", "", 200)
	if acked["acked_at"] == nil {
		t.Fatalf("ack = %v", acked)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	metrics, err := io.ReadAll(resp.Body)
	if err != nil || !strings.Contains(string(metrics), `stockd_alert_delivery_attempts_total{outcome="delivered",sink="ops"}`) {
		t.Errorf("metrics lack the delivered attempt (%v)", err)
	}
}
