package engine

import (
	"context"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// read takes the batch's locks in the one global order (reservations,
// documents, then positions, each sorted) and loads everything the
// decisions depend on. What to lock widens in rounds: the reservations a
// batch transitions name positions and documents, and the documents read
// (bundles) name more SKUs.
func (e *Engine) read(ctx context.Context, tx store.Tx, cmds []stockd.Command) (*stockd.BatchState, error) {
	var t stockd.Touches
	for i := range cmds {
		cmds[i].Touches(&t)
	}
	t.Sort()
	state := stockd.NewBatchState(e.cfg.Now(), e.cfg.NewID)
	reservations, err := tx.ReservationsLock(ctx, t.ReservationIDs)
	if err != nil {
		return nil, fmt.Errorf("lock reservations: %w", err)
	}
	for i := range reservations {
		r := &reservations[i]
		state.Reservations[r.ID] = r
		stockd.ReservationTouches(r, &t)
	}
	t.Sort()
	docs, err := tx.DocumentsLock(ctx, t.Docs)
	if err != nil {
		return nil, fmt.Errorf("lock documents: %w", err)
	}
	for i := range docs {
		d := docs[i]
		state.Docs[d.DocKey] = &d
	}
	stockd.DocumentTouches(docs, &t)
	t.Sort()
	if err := tx.PositionsEnsure(ctx, t.Ensure); err != nil {
		return nil, fmt.Errorf("ensure positions: %w", err)
	}
	positions, err := tx.PositionsLock(ctx, t.SKUs)
	if err != nil {
		return nil, fmt.Errorf("lock positions: %w", err)
	}
	for i := range positions {
		c := positions[i].Counters
		state.Positions[positions[i].PositionKey] = &c
	}
	skus, err := tx.SKUsGet(ctx, t.SKUs)
	if err != nil {
		return nil, fmt.Errorf("read skus: %w", err)
	}
	for _, s := range skus {
		state.SKUs[s.ID] = s
	}
	locations, err := tx.LocationList(ctx)
	if err != nil {
		return nil, fmt.Errorf("read locations: %w", err)
	}
	for _, l := range locations {
		state.Locations[l.ID] = l
	}
	records, err := tx.IdempotencyGet(ctx, t.Keys)
	if err != nil {
		return nil, fmt.Errorf("read idempotency keys: %w", err)
	}
	for _, r := range records {
		state.Idempotency[r.Key] = r
	}
	return state, nil
}
