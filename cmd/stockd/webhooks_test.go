package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd/dispatch"
	"github.com/stockd/stockd/httpapi"
	"github.com/stockd/stockd/webhook"
)

// TestServeDeliversWebhooks: serve runs the dispatcher: an endpoint
// registered over HTTP gets the events booked after it, signed with the
// secret the registration answered, as CloudEvents of the environment.
func TestServeDeliversWebhooks(t *testing.T) {
	var mu sync.Mutex
	var secret []byte
	var got []dispatch.Event
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			err = webhook.Verify(secret, r.Header.Get(webhook.HeaderTimestamp), body, r.Header.Get(webhook.HeaderSignature), time.Now(), time.Minute)
		}
		var e dispatch.Event
		if err == nil {
			err = json.Unmarshal(body, &e)
		}
		if err != nil {
			t.Errorf("delivery: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		got = append(got, e)
	}))
	defer receiver.Close()

	m := &Main{
		Config: Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "stockd.db"), Addr: "127.0.0.1:0",
			ExpiryInterval: time.Second, LogFormat: "text", LogLevel: "info", Environment: "e2e"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	defer m.Close()
	base := "http://" + m.Addr()
	post := func(path, key, body string, out any) {
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
		defer resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("POST %s: %d", path, resp.StatusCode)
		}
		if out != nil {
			if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
				t.Fatal(err)
			}
		}
	}
	post("/v1/skus", "sku-1", `{"sku":"tea.green","name":"Green tea"}`, nil)
	post("/v1/receipts", "rcpt-1", `{"sku":"tea.green","quantity":3}`, nil)
	var created httpapi.CreatedWebhook
	mu.Lock()
	post("/v1/webhooks", "hook-1", `{"url":"`+receiver.URL+`","event_types":["reserve"]}`, &created)
	secret = []byte(created.Secret)
	mu.Unlock()
	post("/v1/reservations", "order-1", `{"lines":[{"sku":"tea.green","quantity":2}]}`, nil)

	deadline := time.Now().Add(15 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no delivery within 15s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Type != "stockd.reserve" || got[0].Subject != "tea.green" || got[0].Source != "/stockd/e2e" || !strings.HasPrefix(got[0].ID, "e2e:") {
		t.Fatalf("delivered %+v; want the one reservation after the registration, not the receipt before it", got)
	}
}
