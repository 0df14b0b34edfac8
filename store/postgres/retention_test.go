package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/stockd/stockd/store"
)

// TestIdempotencyPruneSkipsLockedRows: a row another transaction holds
// (a second replica's pruner, mid-batch) is skipped, not waited for; the
// prune takes the others at once and the held row at the next pass.
// Without SKIP LOCKED the prune would block behind the lock until its
// deadline.
func TestIdempotencyPruneSkipsLockedRows(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keys := []string{"held", "free-1", "free-2"}
	results := [][]byte{[]byte(`{"created":true}`), []byte(`{"created":true}`), []byte(`{"error":{"code":"insufficient_stock","message":"x"}}`)}
	times := []time.Time{base, base.Add(time.Second), base.Add(2 * time.Second)}
	if _, err := s.pool.Exec(ctx, queryIdempotencyInsert, keys, keys, results, times); err != nil {
		t.Fatal(err)
	}
	holder, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(context.Background())
	if _, err := holder.Exec(ctx, `SELECT 1 FROM idempotency_keys WHERE key = 'held' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	params := &store.IdempotencyPruneParams{CreatedBefore: base.Add(time.Hour), Limit: 10, Now: base.Add(2 * time.Hour)}
	quick, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if n, err := s.IdempotencyPrune(quick, params); err != nil || n != 2 {
		t.Fatalf("prune beside a held row = %d, %v; want the 2 free rows at once", n, err)
	}
	if err := holder.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.IdempotencyPrune(ctx, params); err != nil || n != 1 {
		t.Fatalf("prune after the lock went = %d, %v; want the held row", n, err)
	}
	recs, err := s.IdempotencyGet(ctx, keys)
	if err != nil || len(recs) != 3 {
		t.Fatalf("read back %d, %v", len(recs), err)
	}
	for _, rec := range recs {
		if !rec.PrunedAt.Equal(params.Now) {
			t.Errorf("%s: pruned at %v, want %v", rec.Key, rec.PrunedAt, params.Now)
		}
	}
}
