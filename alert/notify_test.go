package alert

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// receiver is a real HTTP receiver on loopback: it verifies what it gets
// on its own (HMAC-SHA256 by hand, not through the package's helper),
// answers the statuses it is told in turn, then 200, and keeps every body.
type receiver struct {
	t        *testing.T
	secret   []byte
	mu       sync.Mutex
	statuses []int
	got      []Message
	bodies   [][]byte
	server   *httptest.Server
}

func newReceiver(t *testing.T, secret string, statuses ...int) *receiver {
	r := &receiver{t: t, statuses: statuses}
	if secret != "" {
		r.secret = []byte(secret)
	}
	r.server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.server.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.secret != nil {
		mac := hmac.New(sha256.New, r.secret)
		mac.Write([]byte(req.Header.Get(HeaderTimestamp) + "." + string(body)))
		want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
		if !hmac.Equal([]byte(want), []byte(req.Header.Get(HeaderSignature))) {
			r.t.Errorf("receiver: signature %q does not verify", req.Header.Get(HeaderSignature))
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		if unix, err := strconv.ParseInt(req.Header.Get(HeaderTimestamp), 10, 64); err != nil || time.Since(time.Unix(unix, 0)).Abs() > time.Minute {
			r.t.Errorf("receiver: timestamp %q is not now", req.Header.Get(HeaderTimestamp))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bodies = append(r.bodies, body)
	var m Message
	if err := json.Unmarshal(body, &m); err == nil {
		r.got = append(r.got, m)
	}
	if len(r.statuses) > 0 {
		status := r.statuses[0]
		r.statuses = r.statuses[1:]
		w.WriteHeader(status)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (r *receiver) requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.bodies)
}

const testSecret = "a-secret-of-more-than-16-bytes"

func webhookSink(name, env string, tier int, r *receiver) *Webhook {
	return &Webhook{SinkConfig: SinkConfig{Name: name, Environment: env, Tier: tier}, URL: r.server.URL, Secret: []byte(testSecret)}
}

func testMessage(id int64, tier int) Message {
	return Message{Kind: MessageAlert, Event: stockd.AlertRaised, AlertID: id, SKU: "A", Level: "critical", Tier: tier,
		BusinessDate: "2026-12-04", Figures: &stockd.AlertFigures{Reason: "3.0 days of cover < lead time 7 days", SuggestedQuantity: 400},
		DeliveryID: "alert-" + strconv.FormatInt(id, 10)}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestWebhookSignedAndLogged(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		r := newReceiver(t, testSecret)
		n, err := NewNotifier(NotifierConfig{Environment: "staging", Sinks: []Sink{webhookSink("ops", "staging", 0, r)}, Log: s, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		if !n.Deliver(context.Background(), testMessage(7, 0)) {
			t.Fatal("Deliver = false, want delivered")
		}
		if len(r.got) != 1 {
			t.Fatalf("receiver got %d messages, want 1", len(r.got))
		}
		m := r.got[0]
		if m.Environment != "staging" || !strings.HasPrefix(m.Text, "[staging] ") || m.AlertID != 7 || m.Figures.SuggestedQuantity != 400 || m.DeliveryID != "alert-7" {
			t.Errorf("receiver got %+v; want the alert tagged staging", m)
		}
		log, err := s.AlertDeliveryList(context.Background(), 7)
		if err != nil || len(log) != 1 || !log[0].Delivered || log[0].StatusCode != 200 || log[0].Sink != "ops" || log[0].Attempt != 1 {
			t.Fatalf("delivery log = %+v, %v; want one delivered attempt", log, err)
		}
	})
}

func TestWebhookRetriesUntilReceived(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		r := newReceiver(t, testSecret, http.StatusServiceUnavailable, http.StatusTooManyRequests)
		metrics := NewMetrics(prometheus.NewRegistry())
		n, err := NewNotifier(NotifierConfig{Environment: "staging", Sinks: []Sink{webhookSink("ops", "staging", 0, r)}, Log: s,
			BackoffBase: time.Millisecond, BackoffMax: 4 * time.Millisecond, Logger: quietLogger(), Metrics: metrics})
		if err != nil {
			t.Fatal(err)
		}
		if !n.Deliver(context.Background(), testMessage(8, 0)) {
			t.Fatal("Deliver = false, want delivered on the third attempt")
		}
		if r.requests() != 3 {
			t.Fatalf("receiver got %d requests, want 3", r.requests())
		}
		failed, delivered := testutil.ToFloat64(metrics.attempts.WithLabelValues("ops", "failed")), testutil.ToFloat64(metrics.attempts.WithLabelValues("ops", "delivered"))
		if failed != 2 || delivered != 1 {
			t.Errorf("attempts metric: %v failed, %v delivered; want 2 and 1", failed, delivered)
		}
		// Every retry carries the same delivery id, for the receiver's dedup.
		for _, m := range r.got {
			if m.DeliveryID != "alert-8" {
				t.Errorf("delivery id %q, want alert-8", m.DeliveryID)
			}
		}
		log, err := s.AlertDeliveryList(context.Background(), 8)
		if err != nil || len(log) != 3 {
			t.Fatalf("delivery log = %+v, %v; want 3 attempts", log, err)
		}
		for i, want := range []struct {
			status    int
			delivered bool
		}{{503, false}, {429, false}, {200, true}} {
			if log[i].Attempt != i+1 || log[i].StatusCode != want.status || log[i].Delivered != want.delivered || (log[i].Error == "") == !want.delivered {
				t.Errorf("attempt %d = %+v, want status %d delivered %v", i+1, log[i], want.status, want.delivered)
			}
		}
	})
}

func TestWebhookGivesUp(t *testing.T) {
	for _, tt := range []struct {
		name     string
		statuses []int
		attempts int
	}{
		{"a refusal is not retried", []int{http.StatusBadRequest}, 1},
		{"failures stop at AttemptsMax", []int{500, 500, 500, 500}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t, testSecret, tt.statuses...)
			n, err := NewNotifier(NotifierConfig{Environment: "staging", Sinks: []Sink{webhookSink("ops", "staging", 0, r)},
				AttemptsMax: 3, BackoffBase: time.Millisecond, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			if n.Deliver(context.Background(), testMessage(9, 0)) {
				t.Fatal("Deliver = true, want given up")
			}
			if r.requests() != tt.attempts {
				t.Fatalf("receiver got %d requests, want %d", r.requests(), tt.attempts)
			}
		})
	}
}

// TestEnvironmentMismatchNeverSent: a sink of production, a notifier of a
// load test: the production receiver hears nothing (seed 003 §6).
func TestEnvironmentMismatchNeverSent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		production := newReceiver(t, testSecret)
		slack := newReceiver(t, "")
		loadtest := newReceiver(t, testSecret)
		n, err := NewNotifier(NotifierConfig{Environment: "loadtest", Log: s, Logger: quietLogger(), Sinks: []Sink{
			webhookSink("prod-ops", "production", 0, production),
			&Slack{SinkConfig: SinkConfig{Name: "prod-chat", Environment: "production"}, URL: slack.server.URL},
			webhookSink("loadtest-ops", "loadtest", 0, loadtest),
		}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			n.Deliver(context.Background(), testMessage(int64(100+i), 0))
		}
		if production.requests() != 0 || slack.requests() != 0 {
			t.Fatalf("production receivers got %d and %d requests, want none", production.requests(), slack.requests())
		}
		if loadtest.requests() != 50 {
			t.Fatalf("the load test's receiver got %d, want 50", loadtest.requests())
		}
		if m := loadtest.got[0]; m.Environment != "loadtest" {
			t.Errorf("environment %q, want loadtest", m.Environment)
		}
		log, err := s.AlertDeliveryList(context.Background(), 100)
		if err != nil || len(log) != 1 || log[0].Sink != "loadtest-ops" {
			t.Fatalf("delivery log = %+v, %v; want only the load test's sink", log, err)
		}
	})
}

func TestNoEnvironmentRefused(t *testing.T) {
	r := newReceiver(t, testSecret)
	if _, err := NewNotifier(NotifierConfig{Sinks: []Sink{webhookSink("ops", "production", 0, r)}}); !errors.Is(err, ErrNoEnvironment) {
		t.Fatalf("NewNotifier with a sink and no environment: %v, want ErrNoEnvironment", err)
	}
	if _, err := NewNotifier(NotifierConfig{}); err != nil {
		t.Fatalf("NewNotifier without sinks: %v, want none needed", err)
	}
}

func TestSlackAndTiers(t *testing.T) {
	first := newReceiver(t, "")
	lead := newReceiver(t, testSecret)
	n, err := NewNotifier(NotifierConfig{Environment: "production", Logger: quietLogger(), Sinks: []Sink{
		&Slack{SinkConfig: SinkConfig{Name: "buyers", Environment: "production"}, URL: first.server.URL},
		webhookSink("lead", "production", 1, lead),
		&Log{SinkConfig: SinkConfig{Name: "log", Environment: "production"}, Logger: quietLogger()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n.TierMax() != 1 {
		t.Errorf("TierMax = %d, want 1", n.TierMax())
	}
	n.Deliver(context.Background(), testMessage(1, 0))
	if first.requests() != 1 || lead.requests() != 0 {
		t.Fatalf("tier 0: buyers %d, lead %d requests; want 1 and 0", first.requests(), lead.requests())
	}
	var slack struct{ Text string }
	if err := json.Unmarshal(first.bodies[0], &slack); err != nil || !strings.HasPrefix(slack.Text, "[production] stockd raised 2026-12-04: SKU A is critical") || !strings.Contains(slack.Text, "order 400") {
		t.Errorf("slack body %s (%v); want the environment-tagged text", first.bodies[0], err)
	}
	n.Deliver(context.Background(), testMessage(2, 1))
	if first.requests() != 2 || lead.requests() != 1 {
		t.Fatalf("tier 1: buyers %d, lead %d requests; want 2 and 1", first.requests(), lead.requests())
	}
}

func TestParseSinks(t *testing.T) {
	env := map[string]string{"OPS_SECRET": testSecret, "SHORT": "short"}
	getenv := func(k string) string { return env[k] }
	good := `{"sinks": [
		{"name": "ops", "kind": "webhook", "environment": "production", "tier": 1, "url": "https://ops.example/hook", "secret_env": "OPS_SECRET"},
		{"name": "chat", "kind": "slack", "environment": "production", "url": "https://hooks.example/x"},
		{"name": "log", "kind": "log", "environment": "production"}]}`
	sinks, err := ParseSinks(strings.NewReader(good), getenv, quietLogger())
	if err != nil || len(sinks) != 3 || sinks[0].Tier() != 1 || string(sinks[0].(*Webhook).Secret) != testSecret {
		t.Fatalf("ParseSinks = %+v, %v", sinks, err)
	}
	for _, bad := range []string{
		`{"sinks": [{"name": "x", "kind": "log"}]}`,
		`{"sinks": [{"kind": "log", "environment": "p"}]}`,
		`{"sinks": [{"name": "x", "kind": "pager", "environment": "p", "url": "https://a.example"}]}`,
		`{"sinks": [{"name": "x", "kind": "slack", "environment": "p", "url": "ftp://a.example"}]}`,
		`{"sinks": [{"name": "x", "kind": "webhook", "environment": "p", "url": "https://a.example"}]}`,
		`{"sinks": [{"name": "x", "kind": "webhook", "environment": "p", "url": "https://a.example", "secret_env": "SHORT"}]}`,
		`{"sinks": [{"name": "x", "kind": "log", "environment": "p", "tier": 10}]}`,
		`{"sinks": [{"name": "x", "kind": "log", "environment": "p"}, {"name": "x", "kind": "log", "environment": "p"}]}`,
		`{"sinks": [{"name": "x", "kind": "log", "environment": "p", "secret": "inline"}]}`,
	} {
		if _, err := ParseSinks(strings.NewReader(bad), getenv, quietLogger()); err == nil {
			t.Errorf("ParseSinks(%s) = nil error, want refused", bad)
		}
	}
}
