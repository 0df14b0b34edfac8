package expiry_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/expiry"
	"github.com/stockd/stockd/internal/testdb"
)

// TestRunOnceExpiresInBoundedBatches: due reservations are expired at most
// BatchSizeMax per pass, oldest deadline first; confirmed and not-yet-due
// ones are left alone; the books stay clean.
func TestRunOnceExpiresInBoundedBatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := b.New(t)
		var now atomic.Int64
		now.Store(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).UnixNano())
		clock := func() time.Time { return time.Unix(0, now.Load()).UTC() }
		e := engine.New(engine.Config{Store: s, Now: clock})
		defer e.Close()
		h := flowtest.Harness{T: t, Store: s, Engine: e}
		h.SKU("a")
		h.Receive("a", "default", 100)
		reserve := func(key string, ttl time.Duration, commit bool) string {
			res := h.MustDo(stockd.Command{IdempotencyKey: key, RequestHash: key,
				Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Quantity: 1}}, TTL: ttl, Commit: commit}})
			return res.Reservation.ID
		}
		var due []string
		for i := range 5 {
			due = append(due, reserve(fmt.Sprintf("due-%d", i), time.Minute, false))
		}
		later := reserve("later", time.Hour, false)
		paid := reserve("paid", time.Minute, true)
		now.Add(int64(2 * time.Minute))

		reg := prometheus.NewRegistry()
		w := expiry.New(expiry.Config{Store: s, Engine: e, BatchSizeMax: 3, Now: clock, Registerer: reg})
		if n, err := w.RunOnce(ctx); err != nil || n != 3 {
			t.Fatalf("first pass = %d, %v; want 3 (the batch bound)", n, err)
		}
		if n, err := w.RunOnce(ctx); err != nil || n != 2 {
			t.Fatalf("second pass = %d, %v; want the remaining 2", n, err)
		}
		if n, err := w.RunOnce(ctx); err != nil || n != 0 {
			t.Fatalf("third pass = %d, %v; want nothing due", n, err)
		}
		for _, id := range due {
			if r, err := s.ReservationGet(ctx, id); err != nil || r.Status != stockd.StatusExpired {
				t.Fatalf("%s: %s, %v; want expired", id, r.Status, err)
			}
		}
		for id, want := range map[string]stockd.ReservationStatus{later: stockd.StatusPending, paid: stockd.StatusConfirmed} {
			if r, err := s.ReservationGet(ctx, id); err != nil || r.Status != want {
				t.Fatalf("%s: %s, %v; want %s", id, r.Status, err, want)
			}
		}
		if c := h.Counters("a", "default"); c.Reserved != 1 || c.Committed != 1 {
			t.Fatalf("counters %+v, want 1 reserved (later) and 1 committed (paid)", c)
		}
		h.Verify()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() == "stockd_expiry_lag_seconds" && f.GetMetric()[0].GetHistogram().GetSampleCount() != 5 {
				t.Fatalf("lag observed %d times, want 5", f.GetMetric()[0].GetHistogram().GetSampleCount())
			}
		}
	})
}

// TestStartStop runs the loop on a short interval until a due reservation
// is expired, then stops it.
func TestStartStop(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := b.New(t)
		e := engine.New(engine.Config{Store: s})
		defer e.Close()
		h := flowtest.Harness{T: t, Store: s, Engine: e}
		h.SKU("a")
		h.Receive("a", "default", 1)
		res := h.MustDo(stockd.Command{IdempotencyKey: "k", RequestHash: "k",
			Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Quantity: 1}}, TTL: time.Second}})
		w := expiry.New(expiry.Config{Store: s, Engine: e, Interval: 20 * time.Millisecond})
		w.Start()
		defer w.Stop()
		deadline := time.Now().Add(5 * time.Second)
		for {
			r, err := s.ReservationGet(ctx, res.Reservation.ID)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status == stockd.StatusExpired {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %s 4 s after its deadline", r.Status)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
