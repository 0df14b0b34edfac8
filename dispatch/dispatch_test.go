package dispatch_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/dispatch"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/httpapi"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/webhook"
)

// receiver is a real HTTP endpoint on loopback that checks every
// delivery's signature and answers what status says for the n-th request.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	secret []byte
	status func(n int) int

	mu       sync.Mutex
	requests []dispatch.Event // every request, in arrival order
	accepted []dispatch.Event // those answered 2xx
}

func newReceiver(t *testing.T, status func(n int) int) *receiver {
	r := &receiver{t: t, status: status}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := webhook.Verify(r.secret, req.Header.Get(webhook.HeaderTimestamp), body, req.Header.Get(webhook.HeaderSignature), time.Now(), time.Minute); err != nil {
		r.t.Errorf("delivery not signed with the endpoint's secret: %v", err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != dispatch.ContentType {
		r.t.Errorf("Content-Type %q; want %q", ct, dispatch.ContentType)
	}
	var e dispatch.Event
	if err := json.Unmarshal(body, &e); err != nil {
		r.t.Errorf("body not a CloudEvent: %v", err)
		return
	}
	r.requests = append(r.requests, e)
	status := r.status(len(r.requests))
	if status/100 == 2 {
		r.accepted = append(r.accepted, e)
	}
	w.WriteHeader(status)
}

func (r *receiver) seen() (requests, accepted []dispatch.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests), slices.Clone(r.accepted)
}

// register stores an endpoint for r of the types given.
func (r *receiver) register(t *testing.T, s store.Store, types ...string) stockd.Webhook {
	t.Helper()
	w, secret, err := stockd.NewWebhook(r.srv.URL+"/hook", types, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WebhookCreate(context.Background(), store.WebhookCreateParams{Webhook: w, Secret: secret}); err != nil {
		t.Fatal(err)
	}
	r.secret = []byte(secret)
	return w
}

// start runs a dispatcher with short intervals until the returned stop.
func start(t *testing.T, s store.Store, failuresMax int) (stop func()) {
	t.Helper()
	d, err := dispatch.New(dispatch.Config{
		Store: s, Encode: httpapi.MarshalEvent, Environment: "test", FailuresMax: failuresMax,
		BackoffBase: time.Millisecond, BackoffMax: 20 * time.Millisecond,
		PollInterval: 10 * time.Millisecond, StandbyInterval: 20 * time.Millisecond, Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := d.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return stop
}

// eventually polls cond for up to 20 seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ids of the events of the ledger of the types given, in seq order.
func ledgerIDs(t *testing.T, s store.Store, after int64, types ...string) []string {
	t.Helper()
	entries, err := s.LedgerList(context.Background(), store.LedgerListParams{After: after, Limit: stockd.PageSizeMax})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		if slices.Contains(types, e.BusinessType) {
			ids = append(ids, "test:"+itoa(e.Seq))
		}
	}
	return ids
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func idsOf(events []dispatch.Event) []string {
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	return ids
}

// withoutRepeats drops each id equal to the one before: retries.
func withoutRepeats(ids []string) []string { return slices.Compact(slices.Clone(ids)) }

// stockEvents books receipts and reservations of sku.
func stockEvents(h *flowtest.Harness, sku string, n int) {
	for range n {
		h.Receive(sku, "default", 2)
		h.Reserve(stockd.LineRequest{SKU: sku, Quantity: 1})
	}
}

// TestRetriesThenInOrder: a receiver that fails 5 times then succeeds gets
// every event it asked for exactly in order, repeats only as retries of
// the same id; the log holds each attempt; an endpoint of other types
// gets only its own.
func TestRetriesThenInOrder(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		h := flowtest.NewHarness(t, s)
		h.SKU("a")
		stockEvents(h, "a", 4)
		flaky := newReceiver(t, func(n int) int {
			if n <= 5 {
				return http.StatusInternalServerError
			}
			return http.StatusNoContent
		})
		all := []string{stockd.BusinessReceipt, stockd.BusinessReserve}
		w := flaky.register(t, s, all...)
		reserves := newReceiver(t, func(int) int { return http.StatusOK })
		only := reserves.register(t, s, stockd.BusinessReserve)
		start(t, s, 10)
		want := ledgerIDs(t, s, 0, all...)
		wantReserves := ledgerIDs(t, s, 0, stockd.BusinessReserve)
		eventually(t, "every event accepted", func() bool {
			_, acc := flaky.seen()
			_, accR := reserves.seen()
			return len(acc) >= len(want) && len(accR) >= len(wantReserves)
		})
		requests, accepted := flaky.seen()
		if got := idsOf(accepted); !slices.Equal(got, want) {
			t.Fatalf("accepted %v; want %v", got, want)
		}
		if got := withoutRepeats(idsOf(requests)); !slices.Equal(got, want) {
			t.Fatalf("requests %v; want %v with repeats only as retries", idsOf(requests), want)
		}
		if len(requests) != len(want)+5 {
			t.Fatalf("%d requests; want %d (5 retries)", len(requests), len(want)+5)
		}
		first := requests[0]
		if first.SpecVersion != "1.0" || first.Type != "stockd.receipt" || first.Subject != "a" || first.Source != "/stockd/test" ||
			first.DataContentType != "application/json" || first.Time.IsZero() {
			t.Fatalf("first event %+v; want a CloudEvent of the receipt of a", first)
		}
		var data httpapi.LedgerEntry
		if err := json.Unmarshal(first.Data, &data); err != nil || data.Type != stockd.BusinessReceipt || "test:"+itoa(data.Seq) != first.ID {
			t.Fatalf("data %s: %v; want the event as GET /v1/events has it", first.Data, err)
		}
		if _, got := reserves.seen(); !slices.Equal(idsOf(got), wantReserves) {
			t.Fatalf("reserve-only endpoint got %v; want %v", idsOf(got), wantReserves)
		}
		// The receiver sees the last delivery before the dispatcher logs
		// it: wait for the log to catch up, then check it whole.
		var log []stockd.WebhookDelivery
		var err error
		eventually(t, "every attempt logged", func() bool {
			log, err = s.WebhookDeliveryList(context.Background(), store.WebhookDeliveryListParams{ID: w.ID, Limit: 100})
			return err != nil || len(log) >= len(want)+5
		})
		if err != nil || len(log) != len(want)+5 {
			t.Fatalf("delivery log = %d, %v; want %d", len(log), err, len(want)+5)
		}
		for i := range 6 {
			if log[i].Attempt != i+1 || log[i].OK != (i == 5) || log[i].Seq != log[0].Seq {
				t.Fatalf("attempt %d logged as %+v", i+1, log[i])
			}
		}
		if log[0].Status != 500 || log[0].Error == "" || log[5].Status != 204 {
			t.Fatalf("log of attempts 1 and 6: %+v, %+v", log[0], log[5])
		}
		eventually(t, "cursor at the last event", func() bool {
			got, err := s.WebhookGet(context.Background(), only.ID)
			last, _ := s.LedgerSeqMax(context.Background())
			return err == nil && got.Cursor == last
		})
	})
}

// TestDisabledThenRedelivered: an endpoint that keeps failing is disabled
// after FailuresMax attempts with its reason; redelivered from a seq, it
// gets everything from there, in order.
func TestDisabledThenRedelivered(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		h := flowtest.NewHarness(t, s)
		h.SKU("a")
		stockEvents(h, "a", 3)
		var mu sync.Mutex
		down := true
		r := newReceiver(t, func(int) int {
			mu.Lock()
			defer mu.Unlock()
			if down {
				return http.StatusServiceUnavailable
			}
			return http.StatusAccepted
		})
		all := []string{stockd.BusinessReceipt, stockd.BusinessReserve}
		w := r.register(t, s, all...)
		start(t, s, 3)
		var got stockd.Webhook
		eventually(t, "endpoint disabled", func() bool {
			var err error
			got, err = s.WebhookGet(context.Background(), w.ID)
			return err == nil && got.Disabled()
		})
		if got.Failures != 3 || got.Cursor != 0 || got.DisabledReason == "" {
			t.Fatalf("disabled endpoint %+v; want 3 failures, cursor 0 and a reason", got)
		}
		time.Sleep(100 * time.Millisecond)
		if requests, _ := r.seen(); len(requests) != 3 {
			t.Fatalf("%d requests to a disabled endpoint; want the 3 that disabled it", len(requests))
		}
		mu.Lock()
		down = false
		mu.Unlock()
		entries, err := s.LedgerList(context.Background(), store.LedgerListParams{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		from := entries[2].Seq
		if _, err := s.WebhookRedeliver(context.Background(), store.WebhookRedeliverParams{ID: w.ID, FromSeq: from}); err != nil {
			t.Fatal(err)
		}
		want := ledgerIDs(t, s, from-1, all...)
		eventually(t, "redelivered events", func() bool { _, acc := r.seen(); return len(acc) >= len(want) })
		if _, acc := r.seen(); !slices.Equal(idsOf(acc), want) {
			t.Fatalf("after redelivery from %d got %v; want %v", from, idsOf(acc), want)
		}
	})
}

// TestRestartResumes: a dispatcher stopped and started again resumes from
// the stored cursor: nothing before it again, nothing after it missed.
func TestRestartResumes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		h := flowtest.NewHarness(t, s)
		h.SKU("a")
		stockEvents(h, "a", 2)
		r := newReceiver(t, func(int) int { return http.StatusOK })
		all := []string{stockd.BusinessReceipt, stockd.BusinessReserve}
		w := r.register(t, s, all...)
		stop := start(t, s, 10)
		last, err := s.LedgerSeqMax(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "cursor at the first events", func() bool {
			got, err := s.WebhookGet(context.Background(), w.ID)
			return err == nil && got.Cursor == last
		})
		stop()
		stockEvents(h, "a", 3)
		start(t, s, 10)
		want := ledgerIDs(t, s, 0, all...)
		eventually(t, "every event", func() bool { _, acc := r.seen(); return len(acc) >= len(want) })
		time.Sleep(50 * time.Millisecond)
		if requests, _ := r.seen(); !slices.Equal(idsOf(requests), want) {
			t.Fatalf("across a restart got %v; want each of %v once", idsOf(requests), want)
		}
	})
}
