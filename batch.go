package stockd

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// BatchState is what one transaction read, under lock, before deciding a
// batch: the positions of every SKU the batch touches, the reservations it
// transitions, the stored answers for its idempotency keys, and the
// catalogue. Apply decides every command against it in arrival order and
// accumulates the writes; storage then writes them in the same transaction.
type BatchState struct {
	Now   time.Time
	NewID func() string

	Positions    map[PositionKey]*Counters
	SKUs         map[string]SKU
	Locations    map[string]Location
	Reservations map[string]*Reservation
	Idempotency  map[string]IdempotencyRecord
	Docs         map[DocKey]*Document
	// OrderHolders maps an order id to the reservation read as holding
	// it; References a taken business document number to its business id.
	OrderHolders map[string]string
	References   map[ReferenceKey]string
	// Exceptions holds the exceptions locked (to resolve) or read by key
	// (to find the one a retry recorded); ExceptionKeys maps a key to the
	// id recorded under it.
	Exceptions    map[string]*Exception
	ExceptionKeys map[ExceptionKey]string

	ordersNew       map[string]string // orders taken by reservations created in this batch
	writes          BatchWrites
	dirty           map[PositionKey]bool
	updated         map[string]bool
	docsDirty       map[DocKey]bool
	locsDirty       map[string]bool
	skusDirty       map[string]bool
	exceptionsDirty map[string]bool
	results         map[string]Result // answers given in this batch, by key

	// What the current command changed, for its derived events
	// (events.go); poolAvail is built once per batch on the first pool
	// that moves.
	touched   []touchedPosition
	touchedAt map[PositionKey]int
	pools     []poolCrossing
	poolAvail map[poolKey]int64

	// locationsByPriority are the active locations placement chooses
	// from, by priority, built on first use (placement.go).
	locationsByPriority []string
	// wants is the buffer expand reuses for each reservation's wants.
	wants []want
}

// BatchWrites is everything a batch changes.
type BatchWrites struct {
	SKUs                []SKU
	Locations           []Location
	SKUsUpdated         []SKU
	LocationsUpdated    []Location
	Positions           []Position // final counters of every touched position
	NewPositions        []Position // rows the batch created
	ReservationsNew     []Reservation
	ReservationsUpdated []Reservation
	Ledger              []LedgerEntry
	Idempotency         []IdempotencyRecord
	// Documents are the documents the batch created (Version 1) or
	// changed (Version one above the stored one), sorted by key.
	Documents []Document
	// References are the business document numbers the batch took.
	References []BusinessReference
	// Exceptions are the exceptions the batch recorded; ExceptionsUpdated
	// those it resolved, by id.
	Exceptions        []Exception
	ExceptionsUpdated []Exception
}

// NewBatchState returns an empty state for a batch decided at now.
func NewBatchState(now time.Time, newID func() string) *BatchState {
	return &BatchState{
		Now:             now.UTC().Truncate(time.Microsecond), // what both databases keep
		NewID:           newID,
		Positions:       map[PositionKey]*Counters{},
		SKUs:            map[string]SKU{},
		Locations:       map[string]Location{},
		Reservations:    map[string]*Reservation{},
		Idempotency:     map[string]IdempotencyRecord{},
		Docs:            map[DocKey]*Document{},
		OrderHolders:    map[string]string{},
		References:      map[ReferenceKey]string{},
		Exceptions:      map[string]*Exception{},
		ExceptionKeys:   map[ExceptionKey]string{},
		exceptionsDirty: map[string]bool{},
		ordersNew:       map[string]string{},
		dirty:           map[PositionKey]bool{},
		updated:         map[string]bool{},
		docsDirty:       map[DocKey]bool{},
		locsDirty:       map[string]bool{},
		skusDirty:       map[string]bool{},
		results:         map[string]Result{},
	}
}

// Apply decides cmds in order and returns one result per command. Business
// failures are results, not errors: one failing command never fails the
// others. It panics if a decision would break an invariant, since that is a
// bug, not an input.
func (s *BatchState) Apply(cmds []Command) []Result {
	results := make([]Result, len(cmds))
	for i := range cmds {
		results[i] = s.applyOne(&cmds[i])
	}
	return results
}

// Writes returns the accumulated writes, positions sorted in lock order.
func (s *BatchState) Writes() *BatchWrites {
	w := s.writes
	w.Positions = make([]Position, 0, len(s.dirty))
	for k := range s.dirty {
		c := s.Positions[k]
		if !c.Valid() {
			brokenInvariant("counters at %v: %+v", k, *c)
		}
		w.Positions = append(w.Positions, Position{PositionKey: k, Counters: *c})
	}
	slices.SortFunc(w.Positions, func(a, b Position) int { return comparePositionKeys(a.PositionKey, b.PositionKey) })
	for id := range s.updated {
		w.ReservationsUpdated = append(w.ReservationsUpdated, *s.Reservations[id])
	}
	// Those that free their order id first (ReservationsUpdatedSplit), then
	// by id.
	sort.Slice(w.ReservationsUpdated, func(i, j int) bool {
		a, b := w.ReservationsUpdated[i], w.ReservationsUpdated[j]
		if a.Status.holdsOrder() != b.Status.holdsOrder() {
			return !a.Status.holdsOrder()
		}
		return a.ID < b.ID
	})
	for k := range s.docsDirty {
		w.Documents = append(w.Documents, *s.Docs[k])
	}
	sort.Slice(w.Documents, func(i, j int) bool { return w.Documents[i].DocKey.Less(w.Documents[j].DocKey) })
	for id := range s.locsDirty {
		w.LocationsUpdated = append(w.LocationsUpdated, s.Locations[id])
	}
	sort.Slice(w.LocationsUpdated, func(i, j int) bool { return w.LocationsUpdated[i].ID < w.LocationsUpdated[j].ID })
	for id := range s.skusDirty {
		w.SKUsUpdated = append(w.SKUsUpdated, s.SKUs[id])
	}
	sort.Slice(w.SKUsUpdated, func(i, j int) bool { return w.SKUsUpdated[i].ID < w.SKUsUpdated[j].ID })
	for id := range s.exceptionsDirty {
		w.ExceptionsUpdated = append(w.ExceptionsUpdated, *s.Exceptions[id])
	}
	sort.Slice(w.ExceptionsUpdated, func(i, j int) bool { return w.ExceptionsUpdated[i].ID < w.ExceptionsUpdated[j].ID })
	return &w
}

// comparePositionKeys orders keys as PositionKey.Less does, for
// slices.SortFunc.
func comparePositionKeys(a, b PositionKey) int {
	if c := strings.Compare(a.SKU, b.SKU); c != 0 {
		return c
	}
	if c := strings.Compare(a.Location, b.Location); c != 0 {
		return c
	}
	return strings.Compare(a.Pool, b.Pool)
}

func (s *BatchState) applyOne(c *Command) Result {
	if c.IdempotencyKey != "" {
		if r, ok := s.replay(c); ok {
			return r
		}
	}
	r := s.decide(c)
	s.deriveStockEvents()
	if c.IdempotencyKey != "" {
		rec := IdempotencyRecord{Key: c.IdempotencyKey, RequestHash: c.RequestHash, Result: answerJSON(&r), CreatedAt: s.Now}
		s.Idempotency[c.IdempotencyKey] = rec
		s.writes.Idempotency = append(s.writes.Idempotency, rec)
	}
	return r
}

// replay answers a key seen before, in storage or earlier in this batch.
func (s *BatchState) replay(c *Command) (Result, bool) {
	// The keys of LookupKeys, without its slice: the key as sent, then
	// the key alone when sent within an API key's scope.
	rec, ok := s.Idempotency[c.IdempotencyKey]
	if !ok {
		if key := UnscopedKey(c.IdempotencyKey); key != c.IdempotencyKey {
			rec, ok = s.Idempotency[key]
		}
	}
	if !ok {
		return Result{}, false
	}
	if rec.RequestHash != c.RequestHash {
		// An answer to this request, not a replay of the first one.
		return Result{Err: Errorf(CodeIdempotencyKeyReused, "idempotency key %q was used for a different request", UnscopedKey(c.IdempotencyKey))}, true
	}
	if rec.Pruned() {
		// The same request, but its answer is past the retention: the
		// key stays spent (the books name it), so nothing is applied
		// again, and the body once answered is gone.
		return Result{Err: PrunedRefusal(UnscopedKey(c.IdempotencyKey), rec.CreatedAt)}, true
	}
	var r Result
	if err := json.Unmarshal(rec.Result, &r); err != nil {
		panic(fmt.Sprintf("stockd: stored result for key %q not decodable: %v", rec.Key, err))
	}
	r.Replayed = true
	return r, true
}

func (s *BatchState) decide(c *Command) Result { return c.Op.decide(s, c) }

// checkPosition reports an unknown SKU or location named by a stock change.
func (s *BatchState) checkPosition(k PositionKey) *Error {
	if _, ok := s.SKUs[k.SKU]; !ok {
		return Errorf(CodeUnknownSKU, "sku %q is unknown", k.SKU)
	}
	if _, ok := s.Locations[k.Location]; !ok {
		return Errorf(CodeUnknownLocation, "location %q is unknown", k.Location)
	}
	return nil
}

// counters returns the position's counters, creating the row if a stock
// change is the first to name it.
func (s *BatchState) counters(k PositionKey) *Counters {
	if c, ok := s.Positions[k]; ok {
		return c
	}
	c := &Counters{}
	s.Positions[k] = c
	s.writes.NewPositions = append(s.writes.NewPositions, Position{PositionKey: k})
	return c
}

// peek returns the position's counters, zero for a position never stocked.
func (s *BatchState) peek(k PositionKey) Counters {
	if c, ok := s.Positions[k]; ok {
		return *c
	}
	return Counters{}
}

// change applies delta to a position and records the ledger entry.
func (s *BatchState) change(k PositionKey, delta Counters, entry LedgerEntry) {
	if s.writes.Ledger == nil {
		s.sizeForChanges()
	}
	c := s.counters(k)
	s.touch(k, c.Available(), entry.BusinessID, entry.Actor)
	after := c.Add(delta)
	if !after.Valid() {
		brokenInvariant("change %+v at %v leaves %+v", delta, k, after)
	}
	*c = after
	s.dirty[k] = true
	entry.Position = k
	entry.Delta = delta
	entry.After = after
	entry.CreatedAt = s.Now
	s.writes.Ledger = append(s.writes.Ledger, entry)
}

// sizeForChanges sizes the ledger and the dirty set on the batch's first
// change to about one entry per position the batch holds (a batch holds
// the positions of the SKUs its commands name), rather than growing them
// entry by entry: each ledger entry is a few hundred bytes, copied at
// every growth.
func (s *BatchState) sizeForChanges() {
	n := min(max(len(s.Positions), changesSizeMin), changesSizeMax)
	s.writes.Ledger = make([]LedgerEntry, 0, n)
	if len(s.dirty) == 0 {
		s.dirty = make(map[PositionKey]bool, n)
	}
}

// changesSizeMin and changesSizeMax bound the first size of a batch's
// ledger; past it, the ledger grows as a slice does.
const (
	changesSizeMin = 8
	changesSizeMax = 4 * BatchSizeMax
)

func (s *BatchState) position(k PositionKey) *Position {
	return &Position{PositionKey: k, Counters: s.peek(k)}
}
