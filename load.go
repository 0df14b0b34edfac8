package stockd

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// BatchReader is what loading a batch needs of its transaction: locking
// reads in the one global order, then unlocked reads of what locks cover.
// Both storage backends' transactions are BatchReaders.
type BatchReader interface {
	ExceptionReader
	// ReservationsLock reads and locks the reservations with these ids,
	// sorted; unknown ids are left out.
	ReservationsLock(ctx context.Context, ids []string) ([]Reservation, error)
	// DocumentsLock reads and locks the documents with these keys, sorted;
	// missing ones are left out. A batch that creates a document another
	// batch created meanwhile fails its write with a conflict, and is
	// retried.
	DocumentsLock(ctx context.Context, keys []DocKey) ([]Document, error)
	// DiscrepanciesLock reads and locks the discrepancies with these ids,
	// sorted; unknown ids are left out.
	DiscrepanciesLock(ctx context.Context, ids []int64) ([]Discrepancy, error)
	// PositionsEnsure creates, at zero, the positions that do not exist yet
	// and whose SKU, location and pool do (normal, or a pool document);
	// keys are sorted.
	PositionsEnsure(ctx context.Context, keys []PositionKey) error
	// PositionsLock reads and locks every position of these SKUs, sorted.
	PositionsLock(ctx context.Context, skus []string) ([]Position, error)
	// SKUsGet returns those of ids that exist. SKUs are locked by their
	// positions: a change to a SKU's settings locks the SKU's positions.
	SKUsGet(ctx context.Context, ids []string) ([]SKU, error)
	LocationList(ctx context.Context) ([]Location, error)
	IdempotencyGet(ctx context.Context, keys []string) ([]IdempotencyRecord, error)
	// ReservationsByOrder returns the reservations holding these orders
	// (pending, confirmed or fulfilled, with the order id), unlocked: a
	// batch inserting a reservation for an order another batch took
	// meanwhile fails on the unique index, and is retried.
	ReservationsByOrder(ctx context.Context, orders []string) ([]Reservation, error)
	// ReferencesGet returns those of keys some document took, unlocked
	// like ReservationsByOrder.
	ReferencesGet(ctx context.Context, keys []ReferenceKey) ([]BusinessReference, error)
}

// LoadBatch takes the batch's locks in the one global order (reservations,
// exceptions, documents, discrepancies, then positions, each sorted, so that concurrent batches never
// deadlock) and loads everything the decisions of cmds depend on. What to
// lock widens in rounds: the reservations a batch transitions name
// positions and documents, and the documents read (bundles, campaign
// stock lists, approvals, transfers, purchase orders) name more SKUs and
// positions. It returns what it named, for callers that check it.
func LoadBatch(ctx context.Context, r BatchReader, cmds []Command, now time.Time, newID func() string) (*BatchState, Touches, error) {
	var t Touches
	for i := range cmds {
		cmds[i].Touches(&t)
	}
	t.Sort()
	state := NewBatchState(now, newID)
	reservations, err := r.ReservationsLock(ctx, t.ReservationIDs)
	if err != nil {
		return nil, t, fmt.Errorf("lock reservations: %w", err)
	}
	for i := range reservations {
		res := &reservations[i]
		state.Reservations[res.ID] = res
		ReservationTouches(res, &t)
		if _, late := slices.BinarySearch(t.Late, res.ID); late && (res.Status == StatusExpired || res.PastDeadline(now)) {
			lateTouches(res, &t)
		}
	}
	t.Sort()
	exceptions, err := r.ExceptionsLock(ctx, t.Exceptions)
	if err != nil {
		return nil, t, fmt.Errorf("lock exceptions: %w", err)
	}
	for i := range exceptions {
		state.Exceptions[exceptions[i].ID] = &exceptions[i]
	}
	docs, err := r.DocumentsLock(ctx, t.Docs)
	if err != nil {
		return nil, t, fmt.Errorf("lock documents: %w", err)
	}
	for i := range docs {
		d := docs[i]
		state.Docs[d.DocKey] = &d
	}
	DocumentTouches(docs, &t)
	t.Sort()
	discrepancies, err := r.DiscrepanciesLock(ctx, t.Discrepancies)
	if err != nil {
		return nil, t, fmt.Errorf("lock discrepancies: %w", err)
	}
	for _, d := range discrepancies {
		holdDiscrepancy(state, d)
	}
	if err := r.PositionsEnsure(ctx, t.Ensure); err != nil {
		return nil, t, fmt.Errorf("ensure positions: %w", err)
	}
	positions, err := r.PositionsLock(ctx, t.SKUs)
	if err != nil {
		return nil, t, fmt.Errorf("lock positions: %w", err)
	}
	for i := range positions {
		c := positions[i].Counters
		state.Positions[positions[i].PositionKey] = &c
	}
	skus, err := r.SKUsGet(ctx, t.SKUs)
	if err != nil {
		return nil, t, fmt.Errorf("read skus: %w", err)
	}
	for _, s := range skus {
		state.SKUs[s.ID] = s
	}
	locations, err := r.LocationList(ctx)
	if err != nil {
		return nil, t, fmt.Errorf("read locations: %w", err)
	}
	for _, l := range locations {
		state.Locations[l.ID] = l
	}
	records, err := r.IdempotencyGet(ctx, t.Keys)
	if err != nil {
		return nil, t, fmt.Errorf("read idempotency keys: %w", err)
	}
	for _, rec := range records {
		state.Idempotency[rec.Key] = rec
	}
	holders, err := r.ReservationsByOrder(ctx, t.Orders)
	if err != nil {
		return nil, t, fmt.Errorf("read reservations by order: %w", err)
	}
	for _, res := range holders {
		state.OrderHolders[res.OrderID] = res.ID
	}
	refs, err := r.ReferencesGet(ctx, t.References)
	if err != nil {
		return nil, t, fmt.Errorf("read references: %w", err)
	}
	for _, ref := range refs {
		state.References[ref.ReferenceKey] = ref.BusinessID
	}
	found, err := r.ExceptionsByKey(ctx, t.ExceptionKeys)
	if err != nil {
		return nil, t, fmt.Errorf("read exceptions: %w", err)
	}
	for i := range found {
		e := &found[i]
		if _, locked := state.Exceptions[e.ID]; !locked {
			state.Exceptions[e.ID] = e
		}
		state.ExceptionKeys[ExceptionKey{Kind: e.Kind, ReservationID: e.ReservationID}] = e.ID
	}
	return state, t, nil
}
