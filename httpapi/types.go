package httpapi

import (
	"time"

	"github.com/stockd/stockd"
)

// The API's own types. They are the wire contract of /v1 (described by
// openapi.json) and are shared by Server and Client; the domain types' JSON
// tags are for stored answers, not for callers, so the two can evolve apart.

// SKU is a stock-keeping unit.
type SKU struct {
	SKU  string `json:"sku"`
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Deduction is when orders take stock: at_order, at_payment or
	// at_shipment.
	Deduction string `json:"deduction"`
	// ApprovalThreshold is the largest on_hand change an adjustment makes
	// without approval.
	ApprovalThreshold int64 `json:"approval_threshold"`
	// Bundle is true for a bundle SKU: it holds no stock of its own.
	Bundle    bool      `json:"bundle"`
	CreatedAt time.Time `json:"created_at"`
	// Replayed is set by Client when the answer is the stored answer of an
	// earlier request with the same idempotency key; never on the wire.
	Replayed bool `json:"-"`
}

// Location is a place that holds stock; lower priority numbers are tried
// first when a reservation line names no location.
type Location struct {
	Location  string    `json:"location"`
	Name      string    `json:"name"`
	Priority  int       `json:"priority"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

// LocationList is the answer of GET /v1/locations.
type LocationList struct {
	Locations []Location `json:"locations"`
}

// Counters are the books of a position: the four that make up available,
// and in-transit and incoming, kept apart and never sellable.
type Counters struct {
	OnHand      int64 `json:"on_hand"`
	Reserved    int64 `json:"reserved"`
	Committed   int64 `json:"committed"`
	Quarantined int64 `json:"quarantined"`
	InTransit   int64 `json:"in_transit"`
	Incoming    int64 `json:"incoming"`
}

// Balance is Counters with the derived available.
type Balance struct {
	OnHand      int64 `json:"on_hand"`
	Reserved    int64 `json:"reserved"`
	Committed   int64 `json:"committed"`
	Quarantined int64 `json:"quarantined"`
	InTransit   int64 `json:"in_transit"`
	Incoming    int64 `json:"incoming"`
	Available   int64 `json:"available"`
}

// Position is one (SKU, location, pool) and its balance: the answer to a
// receipt or an adjustment.
type Position struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
	Balance
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

// StockPosition is one position inside Stock.
type StockPosition struct {
	Location string `json:"location"`
	Pool     string `json:"pool"`
	Balance
}

// Stock is every position of one SKU and their totals.
type Stock struct {
	SKU       string          `json:"sku"`
	Positions []StockPosition `json:"positions"`
	Totals    Balance         `json:"totals"`
}

// ReservationLine is one placed line of a reservation.
type ReservationLine struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
	// Bundle names the bundle SKU a component line was reserved for.
	Bundle   string `json:"bundle,omitempty"`
	Refunded int64  `json:"refunded,omitempty"`
	Returned int64  `json:"returned,omitempty"`
}

// Reservation holds stock for an order.
type Reservation struct {
	ID            string            `json:"id"`
	Key           string            `json:"key"`
	Status        string            `json:"status"`
	ExpiresAt     time.Time         `json:"expires_at"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
	ReleaseReason string            `json:"release_reason,omitempty"`
	CustomerID    string            `json:"customer_id,omitempty"`
	Lines         []ReservationLine `json:"lines"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

// LedgerEntry is one immutable change to one position; events are the same
// entries read as an outbox.
type LedgerEntry struct {
	Seq           int64     `json:"seq"`
	Type          string    `json:"type"`
	BusinessID    string    `json:"business_id"`
	SKU           string    `json:"sku"`
	Location      string    `json:"location"`
	Pool          string    `json:"pool"`
	Delta         Counters  `json:"delta"`
	After         Balance   `json:"after"`
	ReservationID string    `json:"reservation_id,omitempty"`
	Actor         string    `json:"actor,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	Approver      string    `json:"approver,omitempty"`
	Reference     string    `json:"reference,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
}

// LedgerPage is one page of GET /v1/ledger. NextAfter is the cursor for the
// next page: the last entry's seq, or the request's after when empty.
type LedgerPage struct {
	Entries   []LedgerEntry `json:"entries"`
	NextAfter int64         `json:"next_after"`
}

// EventPage is one page of GET /v1/events.
type EventPage struct {
	Events    []LedgerEntry `json:"events"`
	NextAfter int64         `json:"next_after"`
}

// APIKey is a key as listings show it: never its secret.
type APIKey struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Prefix is "sk_" and the first 8 characters of the secret after it.
	Prefix    string    `json:"prefix"`
	Scopes    []string  `json:"scopes"`
	CreatedAt time.Time `json:"created_at"`
	// RevokedAt is absent while the key is live.
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// CreatedAPIKey is the answer of POST /v1/keys: the key and, this once,
// its secret.
type CreatedAPIKey struct {
	APIKey
	Secret string `json:"secret"`
}

// APIKeyList is the answer of GET /v1/keys.
type APIKeyList struct {
	Keys []APIKey `json:"keys"`
}

// Health is the answer of GET /healthz.
type Health struct {
	// Status is ok or unavailable.
	Status string `json:"status"`
	// Reason says what fails: halted, database_unavailable,
	// writes_failing or batches_failing.
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
}

func skuOut(s stockd.SKU) SKU {
	return SKU{SKU: s.ID, Name: s.Name, Unit: s.Unit, Deduction: s.Deduction, ApprovalThreshold: s.Threshold(), Bundle: s.Bundle, CreatedAt: s.CreatedAt.UTC()}
}

func locationOut(l stockd.Location) Location {
	return Location{Location: l.ID, Name: l.Name, Priority: l.Priority, Active: !l.Inactive, CreatedAt: l.CreatedAt.UTC()}
}

func balanceOut(c stockd.Counters) Balance {
	return Balance{
		OnHand: c.OnHand, Reserved: c.Reserved, Committed: c.Committed, Quarantined: c.Quarantined,
		InTransit: c.InTransit, Incoming: c.Incoming, Available: c.Available(),
	}
}

func positionOut(p stockd.Position) Position {
	return Position{SKU: p.SKU, Location: p.Location, Pool: p.Pool, Balance: balanceOut(p.Counters)}
}

func stockOut(sku string, positions []stockd.Position) Stock {
	out := Stock{SKU: sku, Positions: make([]StockPosition, 0, len(positions))}
	var total stockd.Counters
	for _, p := range positions {
		out.Positions = append(out.Positions, StockPosition{Location: p.Location, Pool: p.Pool, Balance: balanceOut(p.Counters)})
		total = total.Add(p.Counters)
	}
	out.Totals = balanceOut(total)
	return out
}

func reservationOut(r stockd.Reservation) Reservation {
	out := Reservation{
		ID:            r.ID,
		Key:           r.Key,
		Status:        string(r.Status),
		ExpiresAt:     r.ExpiresAt.UTC(),
		CreatedAt:     r.CreatedAt.UTC(),
		UpdatedAt:     r.UpdatedAt.UTC(),
		ReleaseReason: r.ReleaseReason,
		CustomerID:    r.CustomerID,
		Lines:         make([]ReservationLine, 0, len(r.Lines)),
	}
	for _, l := range r.Lines {
		out.Lines = append(out.Lines, ReservationLine{
			SKU: l.SKU, Quantity: l.Quantity, Location: l.Location, Pool: l.Pool,
			Bundle: l.Bundle, Refunded: l.Refunded, Returned: l.Returned,
		})
	}
	return out
}

func ledgerEntryOut(e stockd.LedgerEntry) LedgerEntry {
	return LedgerEntry{
		Seq:           e.Seq,
		Type:          e.BusinessType,
		BusinessID:    e.BusinessID,
		SKU:           e.Position.SKU,
		Location:      e.Position.Location,
		Pool:          e.Position.Pool,
		Delta:         Counters(e.Delta),
		After:         balanceOut(e.After),
		ReservationID: e.ReservationID,
		Actor:         e.Actor,
		Reason:        e.Reason,
		Approver:      e.Approver,
		Reference:     e.Reference,
		CreatedAt:     e.CreatedAt.UTC(),
	}
}

func ledgerEntriesOut(entries []stockd.LedgerEntry) []LedgerEntry {
	out := make([]LedgerEntry, 0, len(entries))
	for _, e := range entries {
		out = append(out, ledgerEntryOut(e))
	}
	return out
}

func keyOut(k stockd.APIKey) APIKey {
	out := APIKey{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Scopes: make([]string, 0, len(k.Scopes)), CreatedAt: k.CreatedAt.UTC()}
	for _, scope := range k.Scopes {
		out.Scopes = append(out.Scopes, string(scope))
	}
	if k.Revoked() {
		revokedAt := k.RevokedAt.UTC()
		out.RevokedAt = &revokedAt
	}
	return out
}
