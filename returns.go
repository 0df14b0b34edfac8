package stockd

import (
	"fmt"
	"time"
)

// Command kinds of returns, quarantine and moves.
const (
	KindReturn            CommandKind = "return"
	KindQuarantineRelease CommandKind = "quarantine_release"
	KindQuarantineScrap   CommandKind = "quarantine_scrap"
	KindMove              CommandKind = "move"
)

// ReleaseRefunded is the release reason of a confirmed reservation whose
// every line was refunded before shipment. Callers cannot give it: only a
// return leads there, so the state machine's release stays pending-only.
const ReleaseRefunded = "refunded"

// ReturnLine names one line of a reservation by its SKU, and by location
// and pool when the SKU sits on several lines; empty location or pool match
// any.
type ReturnLine struct {
	SKU      string `json:"sku"`
	Location string `json:"location,omitempty"`
	Pool     string `json:"pool,omitempty"`
	Quantity int64  `json:"quantity"`
}

// Return gives stock of a reservation back. Before shipment (confirmed) it
// is a refund: committed quantity becomes available again. After shipment
// (fulfilled) it is a return: units come back into on_hand and, unless
// Restock, into quarantine pending inspection.
type Return struct {
	ReservationID string
	Lines         []ReturnLine
	// Restock puts returned units straight back into available; it means
	// nothing for a refund, whose units never left.
	Restock   bool
	Reference string
}

// Return types, as the answer and the ledger name them.
const (
	ReturnTypeRefund = BusinessRefund
	ReturnTypeReturn = BusinessReturn
)

// ReturnReceipt is the answer to a return: its id (the business id of its
// ledger entries), the lines as placed on the reservation, and the
// reservation after it.
type ReturnReceipt struct {
	ID            string            `json:"id"`
	ReservationID string            `json:"reservation_id"`
	Type          string            `json:"type"`
	Restock       bool              `json:"restock"`
	Lines         []ReservationLine `json:"lines"` // Quantity is what this return gave back
	Reference     string            `json:"reference,omitempty"`
	Reservation   Reservation       `json:"reservation"`
	CreatedAt     time.Time         `json:"created_at"`
}

func (r *Return) Kind() CommandKind { return KindReturn }

// Touches locks the reservation; the engine widens that to the positions
// of its lines and the documents a release reads (ReservationTouches).
func (r *Return) Touches(t *Touches) {
	t.ReservationIDs = append(t.ReservationIDs, r.ReservationID)
}

func (r *Return) normalize() *Error {
	if !ValidIdentifier(r.ReservationID) {
		return InvalidField("reservation_id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if len(r.Lines) == 0 || len(r.Lines) > LinesPerReservationMax {
		return InvalidField("lines", "must hold 1 to %d lines", LinesPerReservationMax)
	}
	for _, l := range r.Lines {
		if !ValidIdentifier(l.SKU) {
			return InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
		}
		if l.Location != "" && !ValidIdentifier(l.Location) {
			return InvalidField("location", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
		}
		if l.Pool != "" && !ValidIdentifier(l.Pool) {
			return InvalidField("pool", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
		}
		if err := validQuantity("quantity", l.Quantity); err != nil {
			return err
		}
	}
	return validText("reference", r.Reference, ReferenceLengthMax, false)
}

// matchLine returns the index of the one reservation line l names.
func matchLine(res *Reservation, l ReturnLine) (int, *Error) {
	found := -1
	for i, rl := range res.Lines {
		if rl.SKU != l.SKU || (l.Location != "" && rl.Location != l.Location) || (l.Pool != "" && rl.Pool != l.Pool) {
			continue
		}
		if found >= 0 {
			return 0, Errorf(CodeUnprocessable, "sku %q is on several lines of reservation %q: name the location and pool", l.SKU, res.ID)
		}
		found = i
	}
	if found < 0 {
		return 0, Errorf(CodeUnprocessable, "reservation %q has no line of sku %q at that location and pool", res.ID, l.SKU)
	}
	return found, nil
}

// returnable is what a line can still give back: before shipment (a
// refund) what is still committed and not shipped, after it what shipped
// and has not come back.
func returnable(status ReservationStatus, l ReservationLine) int64 {
	if status == StatusConfirmed {
		return l.Unshipped()
	}
	return l.Quantity - l.Refunded - l.Returned
}

func (r *Return) decide(s *BatchState, c *Command) Result {
	res, ok := s.Reservations[r.ReservationID]
	if !ok {
		return Result{Err: Errorf(CodeNotFound, "reservation %q not found", r.ReservationID)}
	}
	if res.Status != StatusConfirmed && res.Status != StatusFulfilled {
		return Result{Err: &Error{Code: CodeInvalidTransition, Status: res.Status,
			Message: fmt.Sprintf("cannot return stock of a %s reservation: only confirmed (refund) or fulfilled (return) ones", res.Status)}}
	}
	give, order, err := sumLines(res, r.Lines)
	if err != nil {
		return Result{Err: err}
	}
	for _, i := range order {
		rl := res.Lines[i]
		if open := returnable(res.Status, rl); give[i] > open {
			return Result{Err: Errorf(CodeQuantityExceeded, "line %s at %s/%s can give back %d, not %d", rl.SKU, rl.Location, rl.Pool, open, give[i])}
		}
		if res.Status == StatusFulfilled && s.peek(rl.Key()).OnHand+give[i] > CounterMax {
			return Result{Err: InvalidField("quantity", "on_hand would exceed %d", CounterMax)}
		}
	}
	receipt := ReturnReceipt{ID: s.NewID(), ReservationID: res.ID, Restock: r.Restock, Reference: r.Reference, CreatedAt: s.Now}
	entry := LedgerEntry{BusinessID: receipt.ID, ReservationID: res.ID, Actor: c.Actor, Reference: r.Reference}
	if res.Status == StatusConfirmed {
		receipt.Type, entry.BusinessType = ReturnTypeRefund, BusinessRefund
		receipt.Restock = false
	} else {
		receipt.Type, entry.BusinessType = ReturnTypeReturn, BusinessReturn
	}
	for _, i := range order {
		rl := &res.Lines[i]
		q := give[i]
		if res.Status == StatusConfirmed {
			s.change(rl.Key(), Counters{Committed: -q}, entry)
			rl.Refunded += q
			// Stock refunded into a closed campaign's pool goes back to
			// normal, as a release's would.
			s.campaignReturn(rl.Key(), q, receipt.ID, res.ID, c.Actor)
		} else {
			delta := Counters{OnHand: q, Quarantined: q}
			if r.Restock {
				delta.Quarantined = 0
			}
			s.change(rl.Key(), delta, entry)
			rl.Returned += q
			if r.Restock {
				// Restocked into a closed campaign's pool: on to normal.
				s.campaignReturn(rl.Key(), q, receipt.ID, res.ID, c.Actor)
			}
		}
		back := *rl
		back.Quantity, back.Refunded, back.Returned = q, 0, 0
		receipt.Lines = append(receipt.Lines, back)
	}
	if res.Status == StatusConfirmed {
		if fullyRefunded(res) {
			// Nothing is left to ship: the order is over, and its quantity
			// no longer counts against the customer's purchase limits.
			res.Status = StatusReleased
			res.ReleaseReason = ReleaseRefunded
			s.limitGiveBack(res)
		} else if nothingToShip(res) {
			// Part shipped, the rest refunded: the order is fulfilled, and
			// only what shipped still counts against the limits.
			res.Status = StatusFulfilled
			s.limitRefund(res)
		} else {
			// What was refunded no longer counts either.
			s.limitRefund(res)
		}
	}
	res.UpdatedAt = s.Now
	s.updated[res.ID] = true
	receipt.Reservation = *res.snapshot()
	return Result{Object: objectOf(receipt), Created: true}
}

// nothingToShip reports whether every unit of res was shipped or
// refunded.
func nothingToShip(res *Reservation) bool {
	for _, l := range res.Lines {
		if l.Unshipped() > 0 {
			return false
		}
	}
	return true
}

func fullyRefunded(res *Reservation) bool {
	for _, l := range res.Lines {
		if l.Refunded < l.Quantity {
			return false
		}
	}
	return true
}

// QuarantineRelease moves inspected units from quarantined back to
// available.
type QuarantineRelease struct {
	Position  PositionKey
	Quantity  int64
	Reference string
}

// QuarantineScrap writes quarantined units off: they leave on_hand and
// quarantined together, with an adjustment reason (damage by default). The
// issue's "/scrap (leave on_hand, reason damage)" is read as "the units
// leave on_hand": keeping them in on_hand while they leave quarantine would
// make scrapped goods available again, and keeping them in both would make
// scrap change nothing.
type QuarantineScrap struct {
	Position PositionKey
	Quantity int64
	// Reason is an adjustment reason code; damage by default.
	Reason    string
	Reference string
}

func (q *QuarantineRelease) Kind() CommandKind { return KindQuarantineRelease }
func (q *QuarantineScrap) Kind() CommandKind   { return KindQuarantineScrap }

func (q *QuarantineRelease) Touches(t *Touches) {
	t.SKUs = append(t.SKUs, q.Position.SKU)
	poolDocTouches(q.Position, t)
}
func (q *QuarantineScrap) Touches(t *Touches) { t.SKUs = append(t.SKUs, q.Position.SKU) }

func (q *QuarantineRelease) normalize() *Error {
	return normalizeStockStep(&q.Position, q.Quantity, q.Reference)
}

func (q *QuarantineScrap) normalize() *Error {
	if q.Reason == "" {
		q.Reason = ReasonDamage
	}
	if !adjustReasons[q.Reason] {
		return InvalidField("reason", "must be one of cycle_count, damage, loss, found, correction")
	}
	return normalizeStockStep(&q.Position, q.Quantity, q.Reference)
}

// normalizeStockStep checks what every single-position step shares.
func normalizeStockStep(k *PositionKey, quantity int64, reference string) *Error {
	if err := NormalizeKey(k); err != nil {
		return err
	}
	if err := validQuantity("quantity", quantity); err != nil {
		return err
	}
	return validText("reference", reference, ReferenceLengthMax, false)
}

// businessID is the ledger's business id of a one-step command: its
// idempotency key, which no other command carries, so that a retry replays
// and never writes twice. Commands without a key (none come from callers)
// get a new id.
func businessID(s *BatchState, c *Command) string {
	if c.IdempotencyKey != "" {
		return c.IdempotencyKey
	}
	return s.NewID()
}

// takeQuarantined checks that k holds quantity in quarantine.
func (s *BatchState) takeQuarantined(k PositionKey, quantity int64) *Error {
	if err := s.checkPosition(k); err != nil {
		return err
	}
	if held := s.peek(k).Quarantined; held < quantity {
		return Errorf(CodeQuantityExceeded, "%s at %s/%s has %d quarantined, not %d", k.SKU, k.Location, k.Pool, held, quantity)
	}
	return nil
}

func (q *QuarantineRelease) decide(s *BatchState, c *Command) Result {
	if err := s.takeQuarantined(q.Position, q.Quantity); err != nil {
		return Result{Err: err}
	}
	id := businessID(s, c)
	s.change(q.Position, Counters{Quarantined: -q.Quantity}, LedgerEntry{
		BusinessType: BusinessQuarantineRelease, BusinessID: id, Actor: c.Actor, Reference: q.Reference,
	})
	// Released into a closed campaign: on to normal, as a hold's would.
	s.campaignReturn(q.Position, q.Quantity, id, "", c.Actor)
	return Result{Position: s.position(q.Position)}
}

func (q *QuarantineScrap) decide(s *BatchState, c *Command) Result {
	if err := s.takeQuarantined(q.Position, q.Quantity); err != nil {
		return Result{Err: err}
	}
	s.change(q.Position, Counters{OnHand: -q.Quantity, Quarantined: -q.Quantity}, LedgerEntry{
		BusinessType: BusinessScrap, BusinessID: businessID(s, c), Actor: c.Actor, Reason: q.Reason, Reference: q.Reference,
	})
	return Result{Position: s.position(q.Position)}
}

// Stock states a move shifts units between.
const (
	StateAvailable   = "available"
	StateQuarantined = "quarantined"
)

// StockMove shifts units of one position between available and
// quarantined, with no inspection workflow behind it (a damaged shelf found
// in a count, a hold lifted). Named apart from statemachine.go's Move, which
// classifies reservation transitions.
type StockMove struct {
	Position  PositionKey
	Quantity  int64
	From      string
	To        string
	Reference string
}

func (m *StockMove) Kind() CommandKind { return KindMove }
func (m *StockMove) Touches(t *Touches) {
	t.SKUs = append(t.SKUs, m.Position.SKU)
	poolDocTouches(m.Position, t)
}

func (m *StockMove) normalize() *Error {
	for field, state := range map[string]string{"from": m.From, "to": m.To} {
		if state != StateAvailable && state != StateQuarantined {
			return InvalidField(field, "must be available or quarantined")
		}
	}
	if m.From == m.To {
		return InvalidField("to", "must differ from from")
	}
	return normalizeStockStep(&m.Position, m.Quantity, m.Reference)
}

func (m *StockMove) decide(s *BatchState, c *Command) Result {
	k := m.Position
	if err := s.checkPosition(k); err != nil {
		return Result{Err: err}
	}
	cur := s.peek(k)
	delta := Counters{Quarantined: -m.Quantity}
	if m.From == StateAvailable {
		if cur.Available() < m.Quantity {
			return Result{Err: &Error{Code: CodeInsufficientStock, Message: "not enough available to quarantine",
				Lines: []Shortfall{{SKU: k.SKU, Location: k.Location, Pool: k.Pool, Requested: m.Quantity, Available: cur.Available()}}}}
		}
		delta.Quarantined = m.Quantity
	} else if cur.Quarantined < m.Quantity {
		return Result{Err: Errorf(CodeQuantityExceeded, "%s at %s/%s has %d quarantined, not %d", k.SKU, k.Location, k.Pool, cur.Quarantined, m.Quantity)}
	}
	id := businessID(s, c)
	s.change(k, delta, LedgerEntry{BusinessType: BusinessMove, BusinessID: id, Actor: c.Actor, Reference: m.Reference})
	if m.To == StateAvailable {
		s.campaignReturn(k, m.Quantity, id, "", c.Actor)
	}
	return Result{Position: s.position(k)}
}

// sumLines matches lines to the reservation's lines and adds up those
// naming one line, so that a return or a shipment books one ledger entry
// per position: the quantity by line index, and the indexes in the order
// the request first names them.
func sumLines(res *Reservation, lines []ReturnLine) (map[int]int64, []int, *Error) {
	sum := map[int]int64{}
	var order []int
	for _, l := range lines {
		i, err := matchLine(res, l)
		if err != nil {
			return nil, nil, err
		}
		if _, seen := sum[i]; !seen {
			order = append(order, i)
		}
		sum[i] += l.Quantity
	}
	return sum, order, nil
}
