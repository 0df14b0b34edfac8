// Package stockd holds the domain of the stock ledger: positions and their
// counters, reservations and their state machine, ledger entries, commands,
// errors and limits. It imports no database or HTTP package; storage,
// transport and workers build on it.
package stockd

import (
	"slices"
	"time"
)

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

// Counters are the books of a position, in the SKU's base unit: the four
// that make up available, and two kept apart that are never sellable:
// InTransit (sent here by a transfer, not yet received) and Incoming (open
// quantity of purchase orders).
type Counters struct {
	OnHand      int64 `json:"on_hand"`
	Reserved    int64 `json:"reserved"`
	Committed   int64 `json:"committed"`
	Quarantined int64 `json:"quarantined"`
	InTransit   int64 `json:"in_transit"`
	Incoming    int64 `json:"incoming"`
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
		InTransit:   c.InTransit + d.InTransit,
		Incoming:    c.Incoming + d.Incoming,
	}
}

// Valid reports whether every counter and available are within bounds.
func (c Counters) Valid() bool {
	for _, v := range []int64{c.OnHand, c.Reserved, c.Committed, c.Quarantined, c.InTransit, c.Incoming} {
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
	ID   string `json:"sku"`
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Deduction says when an order takes stock (DeductionAtOrder by
	// default); see docs/design.md for the trade-offs.
	Deduction string `json:"deduction"`
	// ApprovalThreshold is the largest on_hand change an adjustment may make
	// without a second key's approval; 0 means ApprovalThresholdDefault.
	ApprovalThreshold int64 `json:"approval_threshold"`
	// Bundle marks a SKU created as a bundle (kit): it never holds stock of
	// its own, and its definition (BundleCreate) names the components that
	// reserving it takes. Fixed at creation, so every batch can trust it
	// without a lock: no SKU turns into a bundle while stock comes in.
	Bundle    bool      `json:"bundle,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// AlertLine is the SKU's alert line, max(ROP, SS, red_line) of its
	// last replenishment evaluation, cached on the SKU row by the alert
	// worker (store.SKUAlertLineSet) so that a batch, which reads the row
	// anyway, decides stock_low without another read. 0 means none yet.
	// Not part of the SKU's answers: GET /v1/replenishment/{sku} shows it.
	AlertLine int64 `json:"-"`
}

// Deduction timings.
const (
	// DeductionAtOrder holds stock at order time with a TTL.
	DeductionAtOrder = "at_order"
	// DeductionAtPayment takes stock only when paid: reservations must
	// commit at once.
	DeductionAtPayment = "at_payment"
	// DeductionAtShipment holds nothing; stock leaves on shipment, so
	// available is only an estimate of what orders can still get.
	DeductionAtShipment = "at_shipment"
)

// Threshold returns the SKU's effective approval threshold.
func (s SKU) Threshold() int64 {
	if s.ApprovalThreshold == 0 {
		return ApprovalThresholdDefault
	}
	return s.ApprovalThreshold
}

// Location is a place that holds stock. Lower priority numbers are tried
// first when a reservation line names no location; an inactive location is
// never chosen by placement, and refuses lines that name it.
type Location struct {
	ID       string `json:"location"`
	Name     string `json:"name"`
	Priority int    `json:"priority"`
	// Inactive is false for a new location: the zero value is the usual one.
	Inactive  bool      `json:"inactive,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// ReservationStatus is a state of the reservation state machine:
//
//	pending --confirm--> confirmed --fulfil--> fulfilled
//	confirmed --fulfil (lines: part of it)--> confirmed, until nothing is left to ship
//	pending --release--> released
//	pending --expire---> expired
//	confirmed --return (every line refunded before shipment)--> released
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
// Refunded is what a partial refund released before shipment; Shipped what
// left in shipments (a partial fulfil ships part of a confirmed
// reservation); Returned is what came back after shipment. Each only
// grows; Refunded + Shipped never passes Quantity, nor Returned Shipped
// (on reservations fulfilled before shipments were counted, Shipped is 0
// and Quantity - Refunded shipped).
type ReservationLine struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
	// Bundle names the bundle SKU this component line was reserved for.
	Bundle   string `json:"bundle,omitempty"`
	Refunded int64  `json:"refunded,omitempty"`
	Shipped  int64  `json:"shipped,omitempty"`
	Returned int64  `json:"returned,omitempty"`
}

// Unshipped is what the line still holds for a confirmed reservation (or
// reserves for a pending one): neither refunded nor shipped.
func (l ReservationLine) Unshipped() int64 { return l.Quantity - l.Refunded - l.Shipped }

// Key returns the position the line holds stock in.
func (l ReservationLine) Key() PositionKey {
	return PositionKey{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
}

// Reservation holds stock for an order until it is confirmed, released or
// expires.
type Reservation struct {
	ID     string            `json:"id"`
	Key    string            `json:"key"`
	Status ReservationStatus `json:"status"`
	Lines  []ReservationLine `json:"lines"`
	// CustomerID, when set, counts the reservation against the customer's
	// purchase limits until it is released or expires.
	CustomerID string `json:"customer_id,omitempty"`
	// OrderID, when set, is the order the reservation holds stock for: at
	// most one reservation holds an order at a time (see holdsOrder).
	OrderID       string    `json:"order_id,omitempty"`
	ExpiresAt     time.Time `json:"expires_at"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	ReleaseReason string    `json:"release_reason,omitempty"`
}

// PastDeadline reports whether r is pending at now with its deadline
// passed: it still holds its stock until the expiry worker (or the next
// confirm, which loses) moves it, but no confirm can succeed.
func (r *Reservation) PastDeadline(now time.Time) bool {
	return r.Status == StatusPending && !now.Before(r.ExpiresAt)
}

// snapshot copies r, lines included, for an answer: a later command of the
// same batch changes r's lines in place, and must not change what an
// earlier one answered.
func (r *Reservation) snapshot() *Reservation {
	out := *r
	out.Lines = slices.Clone(r.Lines)
	return &out
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
	// Stock between pools: an allocation moves available from one pool to
	// another; closing a campaign returns its leftovers to normal, and a
	// hold on a closed campaign's pool that is released goes there too.
	BusinessAllocation     = "allocation"
	BusinessCampaignClose  = "campaign_close"
	BusinessCampaignReturn = "campaign_return"
	// After the order: a refund before shipment gives committed stock back,
	// a return after it brings units into quarantine, from where they are
	// released back to available or scrapped; a move shifts stock between
	// available and quarantined directly; a shipment deducts on_hand for a
	// SKU that deducts at shipment.
	BusinessRefund            = "refund"
	BusinessReturn            = "return"
	BusinessQuarantineRelease = "quarantine_release"
	BusinessScrap             = "scrap"
	BusinessMove              = "move"
	BusinessShipment          = "shipment"
	// Between locations and from suppliers.
	BusinessTransfer        = "transfer"
	BusinessTransferReceipt = "transfer_receipt"
	BusinessPurchaseOrder   = "purchase_order"
	BusinessPOReceipt       = "po_receipt"
	BusinessPOCancel        = "po_cancel"
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
	// Approver is the key that approved an adjustment above its SKU's
	// threshold; Actor is then the requester.
	Approver  string    `json:"approver,omitempty"`
	Reference string    `json:"reference,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Adjustment reason codes.
const (
	ReasonCycleCount = "cycle_count"
	ReasonDamage     = "damage"
	ReasonLoss       = "loss"
	ReasonFound      = "found"
	ReasonCorrection = "correction"
)
