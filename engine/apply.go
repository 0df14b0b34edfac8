package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// applyOnce runs one attempt of a batch: lock, read, decide, write, commit.
func (e *Engine) applyOnce(cmds []stockd.Command) (results []stockd.Result, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.BatchTimeout)
	defer cancel()
	tx, err := e.cfg.Store.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if rerr := tx.Rollback(ctx); rerr != nil && err == nil {
			err = fmt.Errorf("rollback: %w", rerr)
		}
	}()
	state, err := e.read(ctx, tx, cmds)
	if err != nil {
		return nil, err
	}
	results = state.Apply(cmds)
	if err := tx.Write(ctx, state.Writes()); err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	e.commitMu.Lock()
	defer e.commitMu.Unlock()
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	e.soldOut.learn(cmds, state.Positions, time.Now())
	return results, nil
}

// touched is what a batch names: the rows it must lock and read.
type touched struct {
	reservationIDs []string
	ensure         []stockd.PositionKey
	skus           []string
	keys           []string
}

func scan(cmds []stockd.Command) touched {
	var t touched
	for i := range cmds {
		c := &cmds[i]
		if c.IdempotencyKey != "" {
			t.keys = append(t.keys, c.IdempotencyKey)
		}
		switch c.Kind {
		case stockd.KindSKUCreate:
			t.skus = append(t.skus, c.SKU.ID)
		case stockd.KindReceive:
			t.ensure = append(t.ensure, c.Receive.Position)
			t.skus = append(t.skus, c.Receive.Position.SKU)
		case stockd.KindAdjust:
			t.ensure = append(t.ensure, c.Adjust.Position)
			t.skus = append(t.skus, c.Adjust.Position.SKU)
		case stockd.KindReserve:
			for _, l := range c.Reserve.Lines {
				t.skus = append(t.skus, l.SKU)
			}
		case stockd.KindConfirm, stockd.KindRelease, stockd.KindExpire, stockd.KindFulfil:
			t.reservationIDs = append(t.reservationIDs, c.Transition.ReservationID)
		}
	}
	t.reservationIDs = sortedUnique(t.reservationIDs)
	t.keys = sortedUnique(t.keys)
	slices.SortFunc(t.ensure, func(a, b stockd.PositionKey) int {
		switch {
		case a.Less(b):
			return -1
		case b.Less(a):
			return 1
		}
		return 0
	})
	t.ensure = slices.Compact(t.ensure)
	return t
}

func sortedUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// read takes the batch's locks in the one global order (reservations, then
// positions, each sorted) and loads everything the decisions depend on.
func (e *Engine) read(ctx context.Context, tx store.Tx, cmds []stockd.Command) (*stockd.BatchState, error) {
	t := scan(cmds)
	state := stockd.NewBatchState(e.cfg.Now(), e.cfg.NewID)
	reservations, err := tx.ReservationsLock(ctx, t.reservationIDs)
	if err != nil {
		return nil, fmt.Errorf("lock reservations: %w", err)
	}
	for i := range reservations {
		r := &reservations[i]
		state.Reservations[r.ID] = r
		for _, l := range r.Lines {
			t.skus = append(t.skus, l.SKU)
		}
	}
	t.skus = sortedUnique(t.skus)
	if len(t.ensure) > 0 {
		if err := tx.PositionsEnsure(ctx, t.ensure); err != nil {
			return nil, fmt.Errorf("ensure positions: %w", err)
		}
	}
	positions, err := tx.PositionsLock(ctx, t.skus)
	if err != nil {
		return nil, fmt.Errorf("lock positions: %w", err)
	}
	for i := range positions {
		c := positions[i].Counters
		state.Positions[positions[i].PositionKey] = &c
	}
	skus, err := tx.SKUsExisting(ctx, t.skus)
	if err != nil {
		return nil, fmt.Errorf("read skus: %w", err)
	}
	for _, id := range skus {
		state.SKUs[id] = true
	}
	locations, err := tx.LocationList(ctx)
	if err != nil {
		return nil, fmt.Errorf("read locations: %w", err)
	}
	for _, l := range locations {
		state.Locations[l.ID] = l.Priority
	}
	records, err := tx.IdempotencyGet(ctx, t.keys)
	if err != nil {
		return nil, fmt.Errorf("read idempotency keys: %w", err)
	}
	for _, r := range records {
		state.Idempotency[r.Key] = r
	}
	return state, nil
}
