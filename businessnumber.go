package stockd

import (
	"fmt"
	"slices"
	"time"
)

// Business document numbers. The ledger is keyed on the business document
// (seed 003 §1.3: a unique index on (biz_type, biz_no, sku_id)), not on the
// HTTP retry key: one order sent under two idempotency keys must not
// reserve twice, and one delivery note booked under two keys must not add
// its stock twice. Both rules below are enforced by a unique index in each
// database (migration 0009); the decision here, made under the batch's
// reads, only turns what the index would refuse into an answer the caller
// can act on, and a race between two batches that the reads could not see
// ends in the index, which the engine retries.

// ReferenceKey names one taken business document number: the reference of
// a document of one business type (receipt, adjustment, shipment), for one
// SKU.
type ReferenceKey struct {
	BusinessType string
	Reference    string
	SKU          string
}

// Less orders reference keys: the order reads name them in.
func (k ReferenceKey) Less(o ReferenceKey) bool {
	if k.BusinessType != o.BusinessType {
		return k.BusinessType < o.BusinessType
	}
	if k.Reference != o.Reference {
		return k.Reference < o.Reference
	}
	return k.SKU < o.SKU
}

// BusinessReference records which business id took a reference.
type BusinessReference struct {
	ReferenceKey
	BusinessID string
	CreatedAt  time.Time
}

// holdsOrder reports whether a reservation in status st keeps its order
// from being reserved again: the predicate of the partial unique index
// reservations_order_id of both schemas, which the decision must match
// exactly (a decision that let through what the index refuses would be
// retried until the engine gave up). Released and expired reservations
// free their order, so a buyer whose hold lapsed can reserve again.
func (st ReservationStatus) holdsOrder() bool {
	return st == StatusPending || st == StatusConfirmed || st == StatusFulfilled
}

// orderHolder returns the reservation holding order: one created earlier
// in this batch (which holds the order for the rest of the batch even if
// released in it, since its row is inserted before it is updated), or one
// read as holding it that this batch has not released.
func (s *BatchState) orderHolder(order string) (string, bool) {
	if order == "" {
		return "", false
	}
	if id, ok := s.ordersNew[order]; ok {
		return id, true
	}
	id, ok := s.OrderHolders[order]
	if !ok {
		return "", false
	}
	if r, locked := s.Reservations[id]; locked && !r.Status.holdsOrder() {
		return "", false
	}
	return id, true
}

// referenceKeys lists the keys a document of businessType with reference
// takes, one per SKU of skus; none when reference is empty.
func referenceKeys(businessType, reference string, skus ...string) []ReferenceKey {
	if reference == "" {
		return nil
	}
	keys := make([]ReferenceKey, 0, len(skus))
	for _, sku := range skus {
		k := ReferenceKey{BusinessType: businessType, Reference: reference, SKU: sku}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// claimReferences refuses duplicate_reference when a document took one of
// keys already, and otherwise takes them all for businessID. Callers claim
// last, once nothing else can refuse, so that a refusal takes nothing.
func (s *BatchState) claimReferences(keys []ReferenceKey, businessID string) *Error {
	for _, k := range keys {
		if id, ok := s.References[k]; ok {
			return &Error{
				Code:       CodeDuplicateReference,
				Message:    fmt.Sprintf("reference %q of a %s for sku %q was booked already, as %q: a new document needs a new reference", k.Reference, k.BusinessType, k.SKU, id),
				Field:      "reference",
				ExistingID: id,
			}
		}
	}
	for _, k := range keys {
		s.References[k] = businessID
		s.writes.References = append(s.writes.References, BusinessReference{ReferenceKey: k, BusinessID: businessID, CreatedAt: s.Now})
	}
	return nil
}

// ReservationsUpdatedSplit parts the reservations w updates into those
// that existed before the batch and free their order id now (released,
// expired), the other rows that existed, and those the batch created. Both
// backends write them in that order, with the inserts of new reservations
// between the second and the third, so that a reservation released in a
// batch frees its order for one created later in it, or for one that takes
// it again (a late payment's re-reserve), and the unique index on order ids
// holds after every statement and every row.
func (w *BatchWrites) ReservationsUpdatedSplit() (freeing, existing, created []Reservation) {
	isNew := make(map[string]bool, len(w.ReservationsNew))
	for _, r := range w.ReservationsNew {
		isNew[r.ID] = true
	}
	for _, r := range w.ReservationsUpdated {
		switch {
		case isNew[r.ID]:
			created = append(created, r)
		case !r.Status.holdsOrder():
			freeing = append(freeing, r)
		default:
			existing = append(existing, r)
		}
	}
	return freeing, existing, created
}
