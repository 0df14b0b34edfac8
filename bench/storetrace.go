package bench

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Steps of a batch's transaction, in the order the engine calls them.
var batchSteps = []string{"begin", "reservations_lock", "documents_lock", "positions_ensure", "positions_lock",
	"skus_get", "locations", "idempotency_get", "write", "commit"}

// stepTimes accumulates wall time per step over all batches.
type stepTimes struct {
	nanos [10]atomic.Int64
}

func (s *stepTimes) since(step int, start time.Time) { s.nanos[step].Add(int64(time.Since(start))) }

func (s *stepTimes) snapshot() [10]int64 {
	var out [10]int64
	for i := range out {
		out[i] = s.nanos[i].Load()
	}
	return out
}

// tracedStore times every step of the engine's transactions, so a row can
// say where a batch spends its time (lock waits show up in the step that
// takes the lock). It changes nothing else.
type tracedStore struct {
	store.Store
	times *stepTimes
}

func (s tracedStore) Begin(ctx context.Context) (store.Tx, error) {
	start := time.Now()
	tx, err := s.Store.Begin(ctx)
	s.times.since(0, start)
	if err != nil {
		return nil, err
	}
	return tracedTx{Tx: tx, times: s.times}, nil
}

type tracedTx struct {
	store.Tx
	times *stepTimes
}

func (t tracedTx) ReservationsLock(ctx context.Context, ids []string) ([]stockd.Reservation, error) {
	defer t.times.since(1, time.Now())
	return t.Tx.ReservationsLock(ctx, ids)
}

func (t tracedTx) DocumentsLock(ctx context.Context, keys []stockd.DocKey) ([]stockd.Document, error) {
	defer t.times.since(2, time.Now())
	return t.Tx.DocumentsLock(ctx, keys)
}

func (t tracedTx) PositionsEnsure(ctx context.Context, keys []stockd.PositionKey) error {
	defer t.times.since(3, time.Now())
	return t.Tx.PositionsEnsure(ctx, keys)
}

func (t tracedTx) PositionsLock(ctx context.Context, skus []string) ([]stockd.Position, error) {
	defer t.times.since(4, time.Now())
	return t.Tx.PositionsLock(ctx, skus)
}

func (t tracedTx) SKUsGet(ctx context.Context, ids []string) ([]stockd.SKU, error) {
	defer t.times.since(5, time.Now())
	return t.Tx.SKUsGet(ctx, ids)
}

func (t tracedTx) LocationList(ctx context.Context) ([]stockd.Location, error) {
	defer t.times.since(6, time.Now())
	return t.Tx.LocationList(ctx)
}

func (t tracedTx) IdempotencyGet(ctx context.Context, keys []string) ([]stockd.IdempotencyRecord, error) {
	defer t.times.since(7, time.Now())
	return t.Tx.IdempotencyGet(ctx, keys)
}

func (t tracedTx) Write(ctx context.Context, w *stockd.BatchWrites) error {
	defer t.times.since(8, time.Now())
	return t.Tx.Write(ctx, w)
}

func (t tracedTx) Commit(ctx context.Context) error {
	defer t.times.since(9, time.Now())
	return t.Tx.Commit(ctx)
}
