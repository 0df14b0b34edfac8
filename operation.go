package stockd

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Operation is what a command does: create a SKU or a location, receive,
// adjust, reserve, move a reservation, and everything beyond (pools,
// campaigns, bundles, limits, returns, transfers, purchase orders,
// approvals). Each lives in the file of its resource and plugs into the
// batch the same way: it names what it touches, is normalized before it
// reaches storage, and decides against the locked state. A new command is
// a new Operation; nothing dispatches on kinds.
type Operation interface {
	// Kind is the command kind.
	Kind() CommandKind
	// Touches adds the rows the operation reads to t.
	Touches(t *Touches)
	// normalize fills defaults and validates the operation on its own.
	normalize() *Error
	// decide applies the operation to the batch state.
	decide(s *BatchState, c *Command) Result
}

// Touches is what a batch names: the rows it must lock and read. The
// engine gathers it in three rounds, each widening the next: from the
// commands, from the reservations they transition (ReservationTouches),
// and from the documents read (DocumentTouches).
type Touches struct {
	ReservationIDs []string
	Docs           []DocKey
	// Ensure lists positions to create at zero before locking.
	Ensure []PositionKey
	// SKUs lists the SKUs whose every position is locked.
	SKUs []string
	Keys []string
	// Orders lists the order ids reservations name; References the
	// business document numbers receipts, adjustments and shipments take.
	// Both are read without locks: the unique indexes decide races.
	Orders     []string
	References []ReferenceKey
	// Late lists the reservations a confirm names: when one is found
	// expired, lateTouches adds what a late confirm reads. Exceptions
	// lists the exceptions to lock; ExceptionKeys those to read unlocked
	// (the unique index decides races).
	Late          []string
	Exceptions    []string
	ExceptionKeys []ExceptionKey
	// Discrepancies lists the discrepancies to lock: those a correction
	// of a counter other than on_hand answers (correctionTouches), locked
	// after the documents that name them and before the positions.
	Discrepancies []int64
}

// Touches adds what c reads to t.
func (c *Command) Touches(t *Touches) {
	t.Keys = append(t.Keys, c.LookupKeys()...)
	c.Op.Touches(t)
}

// Sort sorts and de-duplicates every list: the lock order.
func (t *Touches) Sort() {
	t.ReservationIDs = sortedUnique(t.ReservationIDs)
	t.SKUs = sortedUnique(t.SKUs)
	t.Keys = sortedUnique(t.Keys)
	t.Orders = sortedUnique(t.Orders)
	t.Late = sortedUnique(t.Late)
	t.Exceptions = sortedUnique(t.Exceptions)
	slices.Sort(t.Discrepancies)
	t.Discrepancies = slices.Compact(t.Discrepancies)
	slices.SortFunc(t.ExceptionKeys, func(a, b ExceptionKey) int { return compareBy(a, b, ExceptionKey.Less) })
	t.ExceptionKeys = slices.Compact(t.ExceptionKeys)
	slices.SortFunc(t.References, func(a, b ReferenceKey) int { return compareBy(a, b, ReferenceKey.Less) })
	t.References = slices.Compact(t.References)
	slices.SortFunc(t.Docs, func(a, b DocKey) int { return compareBy(a, b, DocKey.Less) })
	t.Docs = slices.Compact(t.Docs)
	slices.SortFunc(t.Ensure, func(a, b PositionKey) int { return compareBy(a, b, PositionKey.Less) })
	t.Ensure = slices.Compact(t.Ensure)
}

func compareBy[T any](a, b T, less func(T, T) bool) int {
	switch {
	case less(a, b):
		return -1
	case less(b, a):
		return 1
	}
	return 0
}

func sortedUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// ReservationTouches adds what transitioning r reads beyond its own row:
// the positions of its lines, and the documents a release or expiry may
// change (its customer's limit usage, its campaign pools).
func ReservationTouches(r *Reservation, t *Touches) {
	for _, l := range r.Lines {
		t.SKUs = append(t.SKUs, l.SKU)
		if l.Pool != PoolDefault {
			t.Docs = append(t.Docs, DocKey{Kind: DocPool, ID: l.Pool})
		}
	}
	reservationLimitTouches(r, t)
}

// DocumentTouches adds what the documents read imply: the component SKUs
// of a bundle reserved by the batch, the positions a campaign pool or a
// pending approval changes, and those of a transfer or purchase order
// received or cancelled (their commands name only the document).
func DocumentTouches(docs []Document, t *Touches) {
	for i := range docs {
		switch docs[i].Kind {
		case DocBundle:
			bundleTouches(&docs[i], t)
		case DocPoolStock:
			poolTouches(&docs[i], t)
		case DocApproval:
			approvalTouches(&docs[i], t)
		case DocTransfer:
			transferTouches(&docs[i], t)
		case DocPurchaseOrder:
			purchaseOrderTouches(&docs[i], t)
		}
	}
}

// objectOf encodes an operation's answer (Result.Object); the types
// encoded are this package's own, so a failure is a bug.
func objectOf(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("stockd: answer not encodable: %v", err))
	}
	return b
}
