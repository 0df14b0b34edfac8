package bench

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Steps of a batch's transaction, in the order the engine calls them.
// batch_read is BatchRowsRead: positions created and locked, and the reads
// beside them (one pipelined round trip on PostgreSQL).
var batchSteps = []string{"begin", "reservations_lock", "documents_lock", "batch_read", "write", "commit"}

// stepTimes accumulates wall time per step over all batches.
type stepTimes struct {
	nanos [6]atomic.Int64
}

func (s *stepTimes) since(step int, start time.Time) { s.nanos[step].Add(int64(time.Since(start))) }

func (s *stepTimes) snapshot() [6]int64 {
	var out [6]int64
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

func (t tracedTx) BatchRowsRead(ctx context.Context, touches *stockd.Touches) (*stockd.BatchRows, error) {
	defer t.times.since(3, time.Now())
	return t.Tx.BatchRowsRead(ctx, touches)
}

func (t tracedTx) Write(ctx context.Context, w *stockd.BatchWrites) error {
	defer t.times.since(4, time.Now())
	return t.Tx.Write(ctx, w)
}

func (t tracedTx) Commit(ctx context.Context) error {
	defer t.times.since(5, time.Now())
	return t.Tx.Commit(ctx)
}
