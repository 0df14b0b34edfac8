package expiry_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/expiry"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// TestPruneAnswersAfterTheRetention: past the retention the pruner cuts
// every answer down to its outcome, in bounded batches, oldest first,
// leaving younger answers whole; a pass stops at its batch bound; the
// running loop prunes what the clock makes due; and a late retry of a
// pruned request is answer_pruned, never applied twice.
func TestPruneAnswersAfterTheRetention(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		h := flowtest.NewHarness(t, b.New(t))
		const retention = 30 * 24 * time.Hour
		reserve := func(key string, q int64) stockd.Command {
			return stockd.Command{IdempotencyKey: key, RequestHash: key, Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Quantity: q}}}}
		}
		h.SKU("a")                    // key-1
		h.Receive("a", "default", 10) // key-2
		for i := range 5 {
			h.MustDo(reserve(fmt.Sprintf("old-%d", i), 1))
		}
		flowtest.WantCode(t, h.Do(reserve("old-refused", 100)), stockd.CodeInsufficientStock)
		const old = 8 // key-1, key-2, old-0..old-4, old-refused
		h.Clock.Advance(20 * 24 * time.Hour)
		h.MustDo(reserve("recent", 1))
		h.Clock.Advance(11 * 24 * time.Hour) // the old answers are 31 days old, recent 11

		// A pass ends at its batch bound and leaves the rest to the next.
		bounded := expiry.NewPruner(expiry.PrunerConfig{Store: h.Store, Retention: retention, BatchSize: 1,
			BatchesPerPassMax: 2, BatchPause: time.Millisecond, Now: h.Clock.Now})
		if n, err := bounded.RunOnce(ctx); err != nil || n != 2 {
			t.Fatalf("bounded pass = %d, %v; want 2 (2 batches of 1)", n, err)
		}
		reg := prometheus.NewRegistry()
		p := expiry.NewPruner(expiry.PrunerConfig{Store: h.Store, Retention: retention, BatchSize: 3,
			BatchPause: time.Millisecond, Now: h.Clock.Now, Registerer: reg})
		if n, err := p.RunOnce(ctx); err != nil || n != old-2 {
			t.Fatalf("pass = %d, %v; want the %d old answers left (batches of 3, 3, 0)", n, err, old-2)
		}
		if n, err := p.RunOnce(ctx); err != nil || n != 0 {
			t.Fatalf("second pass = %d, %v; want nothing left", n, err)
		}
		if got := counterValue(t, reg, "stockd_idempotency_answers_pruned_total"); got != old-2 {
			t.Fatalf("pruned counter = %v, want %d", got, old-2)
		}
		recs, err := h.Store.IdempotencyGet(ctx, []string{"key-1", "old-0", "old-4", "old-refused", "recent"})
		if err != nil || len(recs) != 5 {
			t.Fatalf("read answers: %d, %v", len(recs), err)
		}
		for _, rec := range recs {
			if want := rec.Key != "recent"; rec.Pruned() != want {
				t.Fatalf("%s pruned = %v, want %v", rec.Key, rec.Pruned(), want)
			}
		}

		// The key stays spent: nothing is applied twice.
		before := h.Counters("a", "default")
		flowtest.WantCode(t, h.Do(reserve("old-0", 1)), stockd.CodeAnswerPruned)
		flowtest.WantCode(t, h.Do(reserve("old-refused", 100)), stockd.CodeAnswerPruned)
		other := reserve("old-1", 2)
		other.RequestHash = "another request"
		flowtest.WantCode(t, h.Do(other), stockd.CodeIdempotencyKeyReused)
		if again := h.Do(reserve("recent", 1)); again.Err != nil || !again.Replayed || again.Reservation == nil {
			t.Fatalf("recent retry = %+v; want the whole first answer replayed", again)
		}
		if after := h.Counters("a", "default"); after != before {
			t.Fatalf("counters moved from %+v to %+v on retries", before, after)
		}
		h.Verify()

		// The running loop: a pass at start, then one every Interval.
		h.Clock.Advance(20 * 24 * time.Hour) // recent is 31 days old now
		passes := make(chan int, 8)
		loop := expiry.NewPruner(expiry.PrunerConfig{Store: h.Store, Retention: retention, Interval: time.Hour,
			Now: h.Clock.Now, OnPass: func(n int, err error) {
				if err != nil {
					t.Errorf("pass: %v", err)
				}
				passes <- n
			}})
		loop.Start()
		select {
		case n := <-passes:
			if n != 1 {
				t.Errorf("first pass of the loop pruned %d, want 1 (recent)", n)
			}
		case <-time.After(10 * time.Second):
			t.Error("no pass within 10 s of Start")
		}
		loop.Stop()
	})
}

// TestPrunerRefusesRetentionOutOfBounds: the bounds are the caller's to
// check (serve refuses the flag); a pruner built past them is a bug.
func TestPrunerRefusesRetentionOutOfBounds(t *testing.T) {
	expiry.NewPruner(expiry.PrunerConfig{Store: pruneNothing{}, Retention: stockd.IdempotencyRetentionMin}) // in bounds: no panic
	for _, retention := range []time.Duration{0, time.Hour, stockd.IdempotencyRetentionMax + time.Hour} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("retention %v: no panic", retention)
				}
			}()
			expiry.NewPruner(expiry.PrunerConfig{Store: pruneNothing{}, Retention: retention})
		}()
	}
}

// pruneNothing is a store with nothing to prune.
type pruneNothing struct{}

func (pruneNothing) IdempotencyPrune(context.Context, *store.IdempotencyPruneParams) (int, error) {
	return 0, nil
}

func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}
