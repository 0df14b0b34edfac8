// Package stockd holds the domain of the stock ledger: positions and their
// counters, reservations and their state machine, ledger entries, commands,
// errors and limits. It imports no database or HTTP package; storage,
// transport and workers build on it.
package stockd

import "time"

// PositionKey names one position: a SKU at a location in a pool.
type PositionKey struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
}

// Less orders keys by (SKU, location, pool): the one lock order every
// transaction follows, so that concurrent orders never deadlock.
func (k PositionKey) Less(o PositionKey) bool {
	if k.SKU != o.SKU {
		return k.SKU < o.SKU
	}
	if k.Location != o.Location {
		return k.Location < o.Location
	}
	return k.Pool < o.Pool
}

// Counters are the four books of a position, in the SKU's base unit.
type Counters struct {
	OnHand      int64 `json:"on_hand"`
	Reserved    int64 `json:"reserved"`
	Committed   int64 `json:"committed"`
	Quarantined int64 `json:"quarantined"`
}

// Available is what can still be promised: never stored, always derived.
func (c Counters) Available() int64 {
	return c.OnHand - c.Reserved - c.Committed - c.Quarantined
}

// Add returns c + d.
func (c Counters) Add(d Counters) Counters {
	return Counters{
		OnHand:      c.OnHand + d.OnHand,
		Reserved:    c.Reserved + d.Reserved,
		Committed:   c.Committed + d.Committed,
		Quarantined: c.Quarantined + d.Quarantined,
	}
}

// Valid reports whether every counter and available are within bounds.
func (c Counters) Valid() bool {
	for _, v := range []int64{c.OnHand, c.Reserved, c.Committed, c.Quarantined} {
		if v < 0 || v > CounterMax {
			return false
		}
	}
	return c.Available() >= 0
}

// Position is one row of the snapshot.
type Position struct {
	PositionKey
	Counters
	// Priority is the location's priority, lower first; filled where storage
	// reads positions for placement.
	Priority int `json:"-"`
}

// SKU is a stock-keeping unit.
type SKU struct {
	ID        string    `json:"sku"`
	Name      string    `json:"name"`
	Unit      string    `json:"unit"`
	CreatedAt time.Time `json:"created_at"`
}

// Location is a place that holds stock. Lower priority numbers are tried
// first when a reservation line names no location.
type Location struct {
	ID        string    `json:"location"`
	Name      string    `json:"name"`
	Priority  int       `json:"priority"`
	CreatedAt time.Time `json:"created_at"`
}

// ReservationStatus is a state of the reservation state machine:
//
//	pending --confirm--> confirmed --fulfil--> fulfilled
//	pending --release--> released
//	pending --expire---> expired
type ReservationStatus string

const (
	StatusPending   ReservationStatus = "pending"
	StatusConfirmed ReservationStatus = "confirmed"
	StatusReleased  ReservationStatus = "released"
	StatusExpired   ReservationStatus = "expired"
	StatusFulfilled ReservationStatus = "fulfilled"
)

// Release reasons a caller may give.
const (
	ReleaseCancelled     = "cancelled"
	ReleasePaymentFailed = "payment_failed"
	ReleaseRiskRejected  = "risk_rejected"
	ReleaseOther         = "other"
)

// ReservationLine is one placed line: the position and the quantity held.
type ReservationLine struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
}

// Key returns the position the line holds stock in.
func (l ReservationLine) Key() PositionKey {
	return PositionKey{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
}

// Reservation holds stock for an order until it is confirmed, released or
// expires.
type Reservation struct {
	ID            string            `json:"id"`
	Key           string            `json:"key"`
	Status        ReservationStatus `json:"status"`
	Lines         []ReservationLine `json:"lines"`
	ExpiresAt     time.Time         `json:"expires_at"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
	ReleaseReason string            `json:"release_reason,omitempty"`
}

// Business types of ledger entries.
const (
	BusinessReceipt    = "receipt"
	BusinessAdjustment = "adjustment"
	BusinessReserve    = "reserve"
	BusinessConfirm    = "confirm"
	BusinessRelease    = "release"
	BusinessExpire     = "expire"
	BusinessFulfil     = "fulfil"
)

// LedgerEntry is one immutable change to one position. Entries are unique
// per (BusinessType, BusinessID, position); Seq increases in commit order, so
// the ledger is also the outbox of events.
type LedgerEntry struct {
	Seq           int64       `json:"seq"`
	BusinessType  string      `json:"type"`
	BusinessID    string      `json:"business_id"`
	Position      PositionKey `json:"position"`
	Delta         Counters    `json:"delta"`
	After         Counters    `json:"after"`
	ReservationID string      `json:"reservation_id,omitempty"`
	Actor         string      `json:"actor,omitempty"`
	Reason        string      `json:"reason,omitempty"`
	Reference     string      `json:"reference,omitempty"`
	CreatedAt     time.Time   `json:"created_at"`
}

// Adjustment reason codes.
const (
	ReasonCycleCount = "cycle_count"
	ReasonDamage     = "damage"
	ReasonLoss       = "loss"
	ReasonFound      = "found"
	ReasonCorrection = "correction"
)
