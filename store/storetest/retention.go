package storetest

// IdempotencyPrune: answers past the retention are cut down to their
// outcome; the keys stay spent.

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

func testIdempotencyPrune(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")                   // key-1
	h.Receive("a", "default", 5) // key-2
	reserve := func(key string, q int64) stockd.Command {
		return stockd.Command{IdempotencyKey: key, RequestHash: key, Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", q)}}}
	}
	h.Clock.Advance(time.Second)
	old := h.MustDo(reserve("old-applied", 2))
	h.Clock.Advance(time.Second)
	flowtest.WantCode(t, h.Do(reserve("old-refused", 50)), stockd.CodeInsufficientStock)
	oldAt := h.Clock.Now()
	h.Clock.Advance(10 * 24 * time.Hour)
	h.MustDo(reserve("new-applied", 1))
	cutoff := oldAt.Add(time.Microsecond)
	now := h.Clock.Now()

	for _, bad := range []store.IdempotencyPruneParams{
		{CreatedBefore: cutoff, Limit: 0, Now: now},
		{CreatedBefore: cutoff, Limit: stockd.IdempotencyPruneBatchMax + 1, Now: now},
		{Limit: 1, Now: now},
	} {
		if n, err := h.Store.IdempotencyPrune(ctx, &bad); err == nil {
			t.Fatalf("prune with %+v = %d, nil; want refused", bad, n)
		}
	}
	// Oldest first, bounded: the two keys of the set-up, then the rest.
	if n, err := h.Store.IdempotencyPrune(ctx, &store.IdempotencyPruneParams{CreatedBefore: cutoff, Limit: 2, Now: now}); err != nil || n != 2 {
		t.Fatalf("first prune = %d, %v; want 2 (the limit)", n, err)
	}
	recs := records(t, h.Store, "key-1", "key-2", "old-applied", "old-refused", "new-applied")
	for key, want := range map[string]bool{"key-1": true, "key-2": true, "old-applied": false, "old-refused": false, "new-applied": false} {
		if got := recs[key].Pruned(); got != want {
			t.Fatalf("after the first prune, %s pruned = %v, want %v", key, got, want)
		}
	}
	if n, err := h.Store.IdempotencyPrune(ctx, &store.IdempotencyPruneParams{CreatedBefore: cutoff, Limit: stockd.IdempotencyPruneBatchMax, Now: now}); err != nil || n != 2 {
		t.Fatalf("second prune = %d, %v; want the 2 left before the cut", n, err)
	}
	if n, err := h.Store.IdempotencyPrune(ctx, &store.IdempotencyPruneParams{CreatedBefore: cutoff, Limit: stockd.IdempotencyPruneBatchMax, Now: now}); err != nil || n != 0 {
		t.Fatalf("third prune = %d, %v; want nothing left", n, err)
	}

	recs = records(t, h.Store, "old-applied", "old-refused", "new-applied")
	for key, want := range map[string]string{
		"old-applied": `{"created":true}`,
		"old-refused": `{"error":{"code":"insufficient_stock","message":""}}`,
	} {
		rec := recs[key]
		if !rec.PrunedAt.Equal(now) || rec.RequestHash != key || !flowtest.JSONEqual(rec.Result, want) {
			t.Fatalf("%s: pruned at %v, hash %q, result %s; want pruned at %v, hash kept, result %s", key, rec.PrunedAt, rec.RequestHash, rec.Result, now, want)
		}
	}
	if rec := recs["new-applied"]; rec.Pruned() {
		t.Fatalf("an answer inside the retention was pruned: %+v", rec)
	}
	var whole stockd.Result
	if err := json.Unmarshal(recs["new-applied"].Result, &whole); err != nil || whole.Reservation == nil {
		t.Fatalf("answer inside the retention: %s, %v; want the whole reservation", recs["new-applied"].Result, err)
	}

	// The key stays spent: the same request is not applied again, another
	// one under the key is still key_reused, and the reservation the
	// books hold still names the key.
	again := h.Do(reserve("old-applied", 2))
	flowtest.WantCode(t, again, stockd.CodeAnswerPruned)
	other := reserve("old-applied", 3)
	other.RequestHash = "another request"
	flowtest.WantCode(t, h.Do(other), stockd.CodeIdempotencyKeyReused)
	flowtest.WantCode(t, h.Do(reserve("old-refused", 50)), stockd.CodeAnswerPruned)
	if c := h.Counters("a", "default"); c.Reserved != 3 {
		t.Fatalf("reserved = %d, want 3: a pruned key applied again", c.Reserved)
	}
	if r, err := h.Store.ReservationGetByKey(ctx, "old-applied"); err != nil || r.ID != old.Reservation.ID {
		t.Fatalf("reservation by key = %+v, %v; want %s", r, err, old.Reservation.ID)
	}
	h.Verify()
}

// records reads the stored answers of keys, by key.
func records(t *testing.T, s store.Store, keys ...string) map[string]stockd.IdempotencyRecord {
	t.Helper()
	list, err := s.IdempotencyGet(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]stockd.IdempotencyRecord{}
	for _, rec := range list {
		byKey[rec.Key] = rec
	}
	if len(byKey) != len(keys) {
		t.Fatalf("read %d of the answers of %v", len(byKey), keys)
	}
	return byKey
}
