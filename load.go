package stockd

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// RowReader is the batch's reads one statement each: locking reads in the
// one global order, then unlocked reads of what locks cover. Both storage
// backends' transactions are RowReaders.
type RowReader interface {
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

// BatchReader is what loading a batch needs of its transaction.
type BatchReader interface {
	RowReader
	// BatchRowsRead does, in this order, what the last round of a batch's
	// reads does once every touch is known: PositionsEnsure(t.Ensure),
	// PositionsLock(t.SKUs), SKUsGet(t.SKUs), LocationList,
	// IdempotencyGet(t.Keys), ReservationsByOrder(t.Orders),
	// ReferencesGet(t.References) and ExceptionsByKey(t.ExceptionKeys),
	// leaving out those whose input is empty (LocationList always runs).
	// None depends on another's answer, so a backend may send them all at
	// once (PostgreSQL pipelines them in one round trip); the positions are
	// still locked before anything after them runs. t is sorted.
	BatchRowsRead(ctx context.Context, t *Touches) (*BatchRows, error)
}

// BatchRows is what BatchRowsRead returns.
type BatchRows struct {
	Positions  []Position
	SKUs       []SKU
	Locations  []Location
	Records    []IdempotencyRecord
	Holders    []Reservation
	References []BusinessReference
	Exceptions []Exception
}

// ReadBatchRowsInTurn is BatchRowsRead one read after the other, for a
// backend with no round trips to save (SQLite, in process).
func ReadBatchRowsInTurn(ctx context.Context, r RowReader, t *Touches) (*BatchRows, error) {
	var rows BatchRows
	var err error
	if len(t.Ensure) > 0 {
		if err := r.PositionsEnsure(ctx, t.Ensure); err != nil {
			return nil, fmt.Errorf("ensure positions: %w", err)
		}
	}
	if len(t.SKUs) > 0 {
		if rows.Positions, err = r.PositionsLock(ctx, t.SKUs); err != nil {
			return nil, fmt.Errorf("lock positions: %w", err)
		}
		if rows.SKUs, err = r.SKUsGet(ctx, t.SKUs); err != nil {
			return nil, fmt.Errorf("read skus: %w", err)
		}
	}
	if rows.Locations, err = r.LocationList(ctx); err != nil {
		return nil, fmt.Errorf("read locations: %w", err)
	}
	if len(t.Keys) > 0 {
		if rows.Records, err = r.IdempotencyGet(ctx, t.Keys); err != nil {
			return nil, fmt.Errorf("read idempotency keys: %w", err)
		}
	}
	if len(t.Orders) > 0 {
		if rows.Holders, err = r.ReservationsByOrder(ctx, t.Orders); err != nil {
			return nil, fmt.Errorf("read reservations by order: %w", err)
		}
	}
	if len(t.References) > 0 {
		if rows.References, err = r.ReferencesGet(ctx, t.References); err != nil {
			return nil, fmt.Errorf("read references: %w", err)
		}
	}
	if len(t.ExceptionKeys) > 0 {
		if rows.Exceptions, err = r.ExceptionsByKey(ctx, t.ExceptionKeys); err != nil {
			return nil, fmt.Errorf("read exceptions: %w", err)
		}
	}
	return &rows, nil
}

// PlainSKUsMax bounds the SKUs a PlainSKUs remembers. Past it, batches
// naming other SKUs look their bundle definition up, as without it.
const PlainSKUsMax = 1 << 17

// PlainSKUs remembers SKUs read as plain (not bundles), so that a batch
// reserving only those needs no bundle lookup, the one locking read that
// would otherwise cost a round trip of its own before the positions.
//
// Why remembering is safe, across replicas and without invalidation: a
// SKU's bundle flag is set when the SKU is created and nothing changes it
// (SKUUpdate leaves it out, and neither backend has a statement writing
// it), SKUs are never deleted, and a bundle definition is created only for
// a SKU created as a bundle (BundleCreate refuses others). So a SKU once
// read plain from committed rows never has a bundle definition, and the
// lookup left out would have found nothing and locked nothing. A database
// restored under running processes must restart them, as for any state
// they hold. The zero value is ready to use; it is safe for concurrent use.
type PlainSKUs struct {
	mu  sync.RWMutex
	ids map[string]struct{}
}

// skipKnown drops from keys, sorted, the bundle definitions of SKUs known
// to be plain.
func (p *PlainSKUs) skipKnown(keys []DocKey) []DocKey {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if len(p.ids) == 0 {
		return keys
	}
	return slices.DeleteFunc(keys, func(k DocKey) bool {
		_, plain := p.ids[k.ID]
		return plain && k.Kind == DocBundle
	})
}

// learn remembers the plain SKUs among skus, read from committed rows.
func (p *PlainSKUs) learn(skus []SKU) {
	p.mu.RLock()
	unknown := 0
	for i := range skus {
		if _, ok := p.ids[skus[i].ID]; !ok && !skus[i].Bundle {
			unknown++
		}
	}
	p.mu.RUnlock()
	if unknown == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids = make(map[string]struct{})
	}
	for i := range skus {
		if len(p.ids) >= PlainSKUsMax {
			return
		}
		if !skus[i].Bundle {
			p.ids[skus[i].ID] = struct{}{}
		}
	}
}

// LoadBatch takes the batch's locks in the one global order (reservations,
// exceptions, documents, discrepancies, then positions, each sorted, so
// that concurrent batches never deadlock) and loads everything the decisions of cmds depend on. What to
// lock widens in rounds: the reservations a batch transitions name
// positions and documents, and the documents read (bundles, campaign
// stock lists, approvals, transfers, purchase orders) name more SKUs and
// positions. It returns what it named, for callers that check it.
//
// plain is the process's memory of plain SKUs (see PlainSKUs): their
// bundle definitions are not looked up, and the SKUs read here add to it.
func LoadBatch(ctx context.Context, r BatchReader, cmds []Command, now time.Time, newID func() string, plain *PlainSKUs) (*BatchState, Touches, error) {
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
	t.Docs = plain.skipKnown(t.Docs)
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
	rows, err := r.BatchRowsRead(ctx, &t)
	if err != nil {
		return nil, t, fmt.Errorf("read positions and what they cover: %w", err)
	}
	for i := range rows.Positions {
		c := rows.Positions[i].Counters
		state.Positions[rows.Positions[i].PositionKey] = &c
	}
	for _, s := range rows.SKUs {
		state.SKUs[s.ID] = s
	}
	plain.learn(rows.SKUs)
	for _, l := range rows.Locations {
		state.Locations[l.ID] = l
	}
	for _, rec := range rows.Records {
		state.Idempotency[rec.Key] = rec
	}
	for _, res := range rows.Holders {
		state.OrderHolders[res.OrderID] = res.ID
	}
	for _, ref := range rows.References {
		state.References[ref.ReferenceKey] = ref.BusinessID
	}
	for i := range rows.Exceptions {
		e := &rows.Exceptions[i]
		if _, locked := state.Exceptions[e.ID]; !locked {
			state.Exceptions[e.ID] = e
		}
		state.ExceptionKeys[ExceptionKey{Kind: e.Kind, ReservationID: e.ReservationID}] = e.ID
	}
	return state, t, nil
}
