package stockd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// fuzzStore is storage in memory: what every batch wrote, applied the
// way both backends apply a BatchWrites, refusing what their constraints
// refuse.
type fuzzStore struct {
	now          time.Time
	ids          int // ids NewID gave so far
	skus         map[string]SKU
	locations    map[string]Location
	positions    map[PositionKey]Counters
	reservations map[string]Reservation
	docs         map[DocKey]Document
	idempotency  map[string]IdempotencyRecord
	ledger       map[string]bool // (type, business id, position) of every entry: unique in both schemas
	references   map[ReferenceKey]BusinessReference
	exceptions   map[string]Exception
	// plain is the SKUs read plain, as the engine remembers them.
	plain PlainSKUs
	// reservationIDs and docIDs list ids in order of creation, for the
	// program to name.
	reservationIDs []string
	docIDs         map[string][]string
	// sent are the commands sent so far, for a retry to repeat; answers
	// are the first answer given under each key.
	sent    []Command
	answers map[string]fuzzAnswer
	keys    int
}

type fuzzAnswer struct {
	hash   string
	result []byte
}

// newFuzzStore holds the catalogue most programs need, and some stock,
// so that short programs reach deep decisions.
func newFuzzStore() *fuzzStore {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	st := &fuzzStore{
		now:          now,
		skus:         map[string]SKU{},
		locations:    map[string]Location{},
		positions:    map[PositionKey]Counters{},
		reservations: map[string]Reservation{},
		docs:         map[DocKey]Document{},
		idempotency:  map[string]IdempotencyRecord{},
		ledger:       map[string]bool{},
		references:   map[ReferenceKey]BusinessReference{},
		exceptions:   map[string]Exception{},
		docIDs:       map[string][]string{},
		answers:      map[string]fuzzAnswer{},
	}
	for _, s := range []SKU{
		{ID: "a", Deduction: DeductionAtOrder}, {ID: "b", Deduction: DeductionAtOrder, ApprovalThreshold: 5},
		{ID: "c", Deduction: DeductionAtPayment}, {ID: "s", Deduction: DeductionAtShipment},
		{ID: "kit", Deduction: DeductionAtOrder, Bundle: true},
	} {
		s.Unit, s.CreatedAt = "piece", now
		st.skus[s.ID] = s
	}
	for i, id := range []string{LocationDefault, "w1", "w2"} {
		st.locations[id] = Location{ID: id, Priority: i, CreatedAt: now}
	}
	for _, k := range []PositionKey{
		{SKU: "a", Location: LocationDefault, Pool: PoolDefault}, {SKU: "a", Location: "w1", Pool: PoolDefault},
		{SKU: "b", Location: LocationDefault, Pool: PoolDefault}, {SKU: "c", Location: LocationDefault, Pool: PoolDefault},
		{SKU: "s", Location: LocationDefault, Pool: PoolDefault},
	} {
		st.positions[k] = Counters{OnHand: 20}
	}
	return st
}

// read loads the state of a batch as the engine does, through LoadBatch
// from the store's rows. It returns the touches, for the lock checks.
func (st *fuzzStore) read(cmds []Command, newID func() string) (*BatchState, Touches) {
	s, t, err := LoadBatch(context.Background(), fuzzReader{st}, cmds, st.now, newID, &st.plain)
	if err != nil {
		panic(fmt.Sprintf("fuzz store refused a read: %v", err))
	}
	return s, t
}

// fuzzReader reads the store as a transaction of either backend would,
// copying what a decision may change in place.
type fuzzReader struct{ st *fuzzStore }

func (r fuzzReader) BatchRowsRead(ctx context.Context, t *Touches) (*BatchRows, error) {
	return ReadBatchRowsInTurn(ctx, r, t)
}

func (r fuzzReader) ReservationsLock(_ context.Context, ids []string) ([]Reservation, error) {
	var out []Reservation
	for _, id := range ids {
		if res, ok := r.st.reservations[id]; ok {
			out = append(out, *cloneReservation(res))
		}
	}
	return out, nil
}

func (r fuzzReader) DocumentsLock(_ context.Context, keys []DocKey) ([]Document, error) {
	var out []Document
	for _, k := range keys {
		if d, ok := r.st.docs[k]; ok {
			d.Body = bytes.Clone(d.Body)
			out = append(out, d)
		}
	}
	return out, nil
}

// PositionsEnsure creates positions as both schemas do: only where the
// SKU, the location and the pool exist.
func (r fuzzReader) PositionsEnsure(_ context.Context, keys []PositionKey) error {
	for _, k := range keys {
		_, sku := r.st.skus[k.SKU]
		_, loc := r.st.locations[k.Location]
		_, pool := r.st.docs[DocKey{Kind: DocPool, ID: k.Pool}]
		pool = pool || k.Pool == PoolDefault
		if _, ok := r.st.positions[k]; !ok && sku && loc && pool {
			r.st.positions[k] = Counters{}
		}
	}
	return nil
}

func (r fuzzReader) PositionsLock(_ context.Context, skus []string) ([]Position, error) {
	var out []Position
	for k, c := range r.st.positions {
		if slices.Contains(skus, k.SKU) {
			out = append(out, Position{PositionKey: k, Counters: c})
		}
	}
	return out, nil
}

func (r fuzzReader) SKUsGet(_ context.Context, ids []string) ([]SKU, error) {
	var out []SKU
	for _, id := range ids {
		if sku, ok := r.st.skus[id]; ok {
			out = append(out, sku)
		}
	}
	return out, nil
}

func (r fuzzReader) LocationList(context.Context) ([]Location, error) {
	var out []Location
	for _, l := range r.st.locations {
		out = append(out, l)
	}
	return out, nil
}

func (r fuzzReader) IdempotencyGet(_ context.Context, keys []string) ([]IdempotencyRecord, error) {
	var out []IdempotencyRecord
	for _, key := range keys {
		if rec, ok := r.st.idempotency[key]; ok {
			out = append(out, rec)
		}
	}
	return out, nil
}

func (r fuzzReader) ReservationsByOrder(_ context.Context, orders []string) ([]Reservation, error) {
	var out []Reservation
	for _, res := range r.st.reservations {
		if res.OrderID != "" && res.Status.holdsOrder() && slices.Contains(orders, res.OrderID) {
			out = append(out, *cloneReservation(res))
		}
	}
	return out, nil
}

func (r fuzzReader) ReferencesGet(_ context.Context, keys []ReferenceKey) ([]BusinessReference, error) {
	var out []BusinessReference
	for _, k := range keys {
		if ref, ok := r.st.references[k]; ok {
			out = append(out, ref)
		}
	}
	return out, nil
}

// DiscrepanciesLock finds none: the fuzzed programs correct no counter
// other than on_hand, which names no discrepancy the batch reads.
func (r fuzzReader) DiscrepanciesLock(context.Context, []int64) ([]Discrepancy, error) {
	return nil, nil
}

func (r fuzzReader) ExceptionsLock(_ context.Context, ids []string) ([]Exception, error) {
	var out []Exception
	for _, id := range ids {
		if e, ok := r.st.exceptions[id]; ok {
			e.Lines = slices.Clone(e.Lines)
			out = append(out, e)
		}
	}
	return out, nil
}

func (r fuzzReader) ExceptionsByKey(_ context.Context, keys []ExceptionKey) ([]Exception, error) {
	var out []Exception
	for _, e := range r.st.exceptions {
		if slices.Contains(keys, ExceptionKey{Kind: e.Kind, ReservationID: e.ReservationID}) {
			e.Lines = slices.Clone(e.Lines)
			out = append(out, e)
		}
	}
	return out, nil
}

// orderTaken says which order two reservations hold at once, as the
// partial unique index reservations_order_id refuses.
func (st *fuzzStore) orderTaken() error {
	holders := map[string]string{}
	for _, r := range st.reservations {
		if r.OrderID == "" || !r.Status.holdsOrder() {
			continue
		}
		if other, ok := holders[r.OrderID]; ok {
			return fmt.Errorf("reservations %q and %q both hold order %q", other, r.ID, r.OrderID)
		}
		holders[r.OrderID] = r.ID
	}
	return nil
}

// readAll loads every row the store holds.
func (st *fuzzStore) readAll(newID func() string) *BatchState {
	s := NewBatchState(st.now, newID)
	for k, c := range st.positions {
		s.Positions[k] = &c
	}
	for id, r := range st.reservations {
		s.Reservations[id] = cloneReservation(r)
	}
	for k, d := range st.docs {
		d.Body = bytes.Clone(d.Body)
		s.Docs[k] = &d
	}
	for id, sku := range st.skus {
		s.SKUs[id] = sku
	}
	for id, l := range st.locations {
		s.Locations[id] = l
	}
	for key, r := range st.idempotency {
		s.Idempotency[key] = r
	}
	for id, r := range st.reservations {
		if r.OrderID != "" && r.Status.holdsOrder() {
			s.OrderHolders[r.OrderID] = id
		}
	}
	for k, ref := range st.references {
		s.References[k] = ref.BusinessID
	}
	for id, e := range st.exceptions {
		e.Lines = slices.Clone(e.Lines)
		s.Exceptions[id] = &e
		s.ExceptionKeys[ExceptionKey{Kind: e.Kind, ReservationID: e.ReservationID}] = id
	}
	return s
}

func cloneReservation(r Reservation) *Reservation {
	r.Lines = slices.Clone(r.Lines)
	return &r
}

// fuzzNewID gives the ids of one decision of a batch, from the store's
// count on.
func (st *fuzzStore) fuzzNewID(used *int) func() string {
	return func() string {
		*used++
		return fmt.Sprintf("id%d", st.ids+*used)
	}
}

// write applies w as the schemas would, or says which statement fails:
// an insert of a row that exists, an update of one that does not, a
// document version that does not follow the stored one, a repeated
// ledger entry; and which write would not have held its lock.
func (st *fuzzStore) write(w *BatchWrites, t Touches) error {
	locked := func(list []string, v string) bool { _, ok := slices.BinarySearch(list, v); return ok }
	for _, s := range w.SKUs {
		if _, ok := st.skus[s.ID]; ok {
			return fmt.Errorf("insert sku %q: exists", s.ID)
		}
		if err := fuzzCheckValue(s); err != nil {
			return fmt.Errorf("sku %q: %w", s.ID, err)
		}
		st.skus[s.ID] = s
	}
	for _, s := range w.SKUsUpdated {
		if _, ok := st.skus[s.ID]; !ok {
			return fmt.Errorf("update sku %q: missing", s.ID)
		}
		if err := fuzzCheckValue(s); err != nil {
			return fmt.Errorf("sku %q: %w", s.ID, err)
		}
		st.skus[s.ID] = s
	}
	for _, l := range w.Locations {
		if _, ok := st.locations[l.ID]; ok {
			return fmt.Errorf("insert location %q: exists", l.ID)
		}
		if err := fuzzCheckValue(l); err != nil {
			return fmt.Errorf("location %q: %w", l.ID, err)
		}
		st.locations[l.ID] = l
	}
	for _, l := range w.LocationsUpdated {
		if _, ok := st.locations[l.ID]; !ok {
			return fmt.Errorf("update location %q: missing", l.ID)
		}
		if err := fuzzCheckValue(l); err != nil {
			return fmt.Errorf("location %q: %w", l.ID, err)
		}
		st.locations[l.ID] = l
	}
	for _, p := range w.NewPositions {
		if _, ok := st.positions[p.PositionKey]; ok {
			return fmt.Errorf("insert position %+v: exists (read without its lock?)", p.PositionKey)
		}
		if _, ok := st.skus[p.SKU]; !ok {
			return fmt.Errorf("insert position %+v: no such sku", p.PositionKey)
		}
		if _, ok := st.locations[p.Location]; !ok {
			return fmt.Errorf("insert position %+v: no such location", p.PositionKey)
		}
		st.positions[p.PositionKey] = Counters{}
	}
	before := map[PositionKey]Counters{}
	for _, p := range w.Positions {
		c, ok := st.positions[p.PositionKey]
		if !ok {
			return fmt.Errorf("update position %+v: missing", p.PositionKey)
		}
		if !locked(t.SKUs, p.SKU) {
			return fmt.Errorf("position %+v written without the lock of its sku", p.PositionKey)
		}
		if !p.Counters.Valid() {
			return fmt.Errorf("position %+v: counters %+v break a CHECK", p.PositionKey, p.Counters)
		}
		before[p.PositionKey] = c
		st.positions[p.PositionKey] = p.Counters
	}
	// The ledger adds up: entry by entry from the counters read to those
	// written, and only at positions the batch wrote.
	running := cloneCounters(before)
	for _, e := range w.Ledger {
		id := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s", e.BusinessType, e.BusinessID, e.Position.SKU, e.Position.Location, e.Position.Pool)
		if st.ledger[id] {
			return fmt.Errorf("ledger entry %s %q at %+v written twice", e.BusinessType, e.BusinessID, e.Position)
		}
		st.ledger[id] = true
		c, ok := running[e.Position]
		if !ok && !(EventOnly(e.BusinessType) && e.Position.Location == "" && e.Position.Pool == "") {
			// Only a notice without a position (an exception's, at its
			// SKU) sits where no counters are; its after must be zero.
			return fmt.Errorf("ledger entry %s at %+v, a position the batch did not write", e.BusinessType, e.Position)
		}
		c = c.Add(e.Delta)
		if c != e.After {
			return fmt.Errorf("ledger entry %s at %+v: after %+v, but the deltas so far make %+v", e.BusinessType, e.Position, e.After, c)
		}
		if zero := e.Delta == (Counters{}); zero != EventOnly(e.BusinessType) {
			// Changes change something; events (derived, notices) nothing.
			return fmt.Errorf("ledger entry %s at %+v: zero delta %v, event only %v", e.BusinessType, e.Position, zero, !zero)
		}
		running[e.Position] = c
		if err := fuzzCheckValue(e); err != nil {
			return fmt.Errorf("ledger entry %s at %+v: %w", e.BusinessType, e.Position, err)
		}
	}
	for k, c := range running {
		if c != st.positions[k] {
			return fmt.Errorf("position %+v: the ledger makes %+v, the batch wrote %+v", k, c, st.positions[k])
		}
	}
	keys := map[string]bool{}
	for _, r := range st.reservations {
		if r.Key != "" {
			keys[r.Key] = true
		}
	}
	// Both backends write reservations as they are in that order: updates
	// of rows that existed, inserts, then updates of rows the batch
	// created; the unique index on order ids holds after each statement.
	created := map[string]bool{}
	for _, r := range w.ReservationsNew {
		created[r.ID] = true
	}
	update := func(r Reservation) error {
		if _, ok := st.reservations[r.ID]; !ok {
			return fmt.Errorf("update reservation %q: missing", r.ID)
		}
		if !created[r.ID] && !locked(t.ReservationIDs, r.ID) {
			return fmt.Errorf("reservation %q written without its lock", r.ID)
		}
		st.reservations[r.ID] = r
		return st.orderTaken()
	}
	for _, r := range w.ReservationsUpdated {
		if !created[r.ID] {
			if err := update(r); err != nil {
				return err
			}
		}
	}
	for _, r := range w.ReservationsNew {
		if _, ok := st.reservations[r.ID]; ok {
			return fmt.Errorf("insert reservation %q: exists", r.ID)
		}
		if r.Key != "" && keys[r.Key] {
			return fmt.Errorf("insert reservation %q: key %q taken", r.ID, r.Key)
		}
		keys[r.Key] = true
		st.reservations[r.ID] = r
		st.reservationIDs = append(st.reservationIDs, r.ID)
		if err := st.orderTaken(); err != nil {
			return fmt.Errorf("insert reservation %q: %w", r.ID, err)
		}
	}
	for _, r := range w.ReservationsUpdated {
		if created[r.ID] {
			if err := update(r); err != nil {
				return err
			}
		}
	}
	for _, ref := range w.References {
		if _, ok := st.references[ref.ReferenceKey]; ok {
			return fmt.Errorf("insert reference %+v: taken", ref.ReferenceKey)
		}
		if !slices.Contains(t.References, ref.ReferenceKey) {
			return fmt.Errorf("reference %+v taken without being read", ref.ReferenceKey)
		}
		if err := fuzzCheckValue(ref); err != nil {
			return fmt.Errorf("reference %+v: %w", ref.ReferenceKey, err)
		}
		st.references[ref.ReferenceKey] = ref
	}
	// A reservation created and changed in one batch is inserted as
	// created and then updated: only the row after both must hold.
	for _, written := range [][]Reservation{w.ReservationsNew, w.ReservationsUpdated} {
		for _, r := range written {
			if err := fuzzCheckReservation(st.reservations[r.ID]); err != nil {
				return err
			}
		}
	}
	for _, d := range w.Documents {
		stored, exists := st.docs[d.DocKey]
		switch {
		case d.Version == 1 && exists:
			return fmt.Errorf("insert document %s/%s: exists (read without its lock?)", d.Kind, d.ID)
		case d.Version > 1 && (!exists || stored.Version != d.Version-1):
			return fmt.Errorf("update document %s/%s to version %d: stored version %d", d.Kind, d.ID, d.Version, stored.Version)
		case d.Version > 1 && !slices.Contains(t.Docs, d.DocKey):
			return fmt.Errorf("document %s/%s written without its lock", d.Kind, d.ID)
		}
		if err := fuzzCheckDocument(d); err != nil {
			return err
		}
		if !exists {
			st.docIDs[d.Kind] = append(st.docIDs[d.Kind], d.ID)
		}
		st.docs[d.DocKey] = d
	}
	// Exceptions: the primary key and the unique (kind, reservation_id)
	// of both schemas; a resolution only of a locked row.
	for _, e := range w.Exceptions {
		if _, ok := st.exceptions[e.ID]; ok {
			return fmt.Errorf("insert exception %q: exists", e.ID)
		}
		for _, o := range st.exceptions {
			if o.Kind == e.Kind && o.ReservationID == e.ReservationID {
				return fmt.Errorf("insert exception %q: %s of %q recorded as %q", e.ID, e.Kind, e.ReservationID, o.ID)
			}
		}
		if err := fuzzCheckValue(e); err != nil {
			return fmt.Errorf("exception %q: %w", e.ID, err)
		}
		st.exceptions[e.ID] = e
	}
	for _, e := range w.ExceptionsUpdated {
		if _, ok := st.exceptions[e.ID]; !ok {
			return fmt.Errorf("update exception %q: missing", e.ID)
		}
		if !locked(t.Exceptions, e.ID) && !slices.ContainsFunc(w.Exceptions, func(n Exception) bool { return n.ID == e.ID }) {
			return fmt.Errorf("exception %q written without its lock", e.ID)
		}
		st.exceptions[e.ID] = e
	}
	for _, r := range w.Idempotency {
		if _, ok := st.idempotency[r.Key]; ok {
			return fmt.Errorf("insert idempotency key %q: exists", r.Key)
		}
		var res Result
		if err := json.Unmarshal(r.Result, &res); err != nil {
			return fmt.Errorf("stored answer of key %q does not decode: %w", r.Key, err)
		}
		if err := fuzzCheckValue(res); err != nil {
			return fmt.Errorf("stored answer of key %q: %w", r.Key, err)
		}
		if err := fuzzCheckValue(r); err != nil {
			return fmt.Errorf("idempotency record %q: %w", r.Key, err)
		}
		st.idempotency[r.Key] = r
	}
	return nil
}

func cloneCounters(m map[PositionKey]Counters) map[PositionKey]Counters {
	out := make(map[PositionKey]Counters, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
