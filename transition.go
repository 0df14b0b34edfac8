package stockd

import (
	"fmt"
	"time"
)

const (
	KindConfirm CommandKind = "confirm"
	KindRelease CommandKind = "release"
	KindExpire  CommandKind = "expire"
	KindFulfil  CommandKind = "fulfil"
)

// Transition moves a reservation: confirm, release, expire or fulfil.
type Transition struct {
	// Action is the move: KindConfirm, KindRelease, KindExpire or KindFulfil.
	Action        CommandKind
	ReservationID string
	Reason        string
	// Lines, on a fulfil only, ship part of a confirmed reservation: each
	// names a line as a return does (its SKU, and location and pool where
	// the SKU sits on several lines) and the quantity shipped. Without
	// them a fulfil ships everything left.
	Lines []ReturnLine
	// Reference, on a fulfil with lines only, is the shipment's business
	// number (a delivery note): unique per SKU among fulfils, so the same
	// shipment sent again under a new idempotency key is refused
	// (duplicate_reference) rather than shipped twice.
	Reference string
	// OnLate says what a confirm that arrives after the deadline does:
	// OnLateException (the default) or OnLateReReserve. PaymentReference
	// and PaidAt are the payment's, kept by the exception a late confirm
	// records. Only a confirm takes them.
	OnLate           string
	PaymentReference string
	PaidAt           *time.Time
}

var releaseReasons = map[string]bool{
	ReleaseCancelled: true, ReleasePaymentFailed: true, ReleaseRiskRejected: true, ReleaseOther: true,
}

func (tr *Transition) Kind() CommandKind { return tr.Action }

func (tr *Transition) Touches(t *Touches) {
	t.ReservationIDs = append(t.ReservationIDs, tr.ReservationID)
	if tr.Action == KindConfirm {
		t.Late = append(t.Late, tr.ReservationID)
	}
	t.References = append(t.References, tr.referenceKeys()...)
}

// referenceKeys are the business numbers a partial fulfil takes: its
// reference for each SKU it ships.
func (tr *Transition) referenceKeys() []ReferenceKey {
	skus := make([]string, 0, len(tr.Lines))
	for _, l := range tr.Lines {
		skus = append(skus, l.SKU)
	}
	return referenceKeys(BusinessFulfil, tr.Reference, skus...)
}

func (tr *Transition) normalize() *Error {
	if len(tr.Lines) > 0 && tr.Action != KindFulfil {
		return InvalidField("lines", "only a fulfil ships lines")
	}
	switch tr.Action {
	case KindFulfil:
		if err := validText("id", tr.ReservationID, IdentifierLengthMax, true); err != nil {
			return err
		}
		if err := validText("reference", tr.Reference, ReferenceLengthMax, false); err != nil {
			return err
		}
		if tr.Reference != "" && len(tr.Lines) == 0 {
			return InvalidField("reference", "only a fulfil with lines takes a reference: a fulfil of everything left happens once")
		}
		return normalizeShipLines(tr.Lines)
	case KindConfirm:
		return tr.normalizeConfirm()
	case KindExpire:
		return validText("id", tr.ReservationID, IdentifierLengthMax, true)
	case KindRelease:
		if err := validText("id", tr.ReservationID, IdentifierLengthMax, true); err != nil {
			return err
		}
		if tr.Reason == "" {
			tr.Reason = ReleaseCancelled
		}
		if !releaseReasons[tr.Reason] {
			return InvalidField("reason", "must be one of cancelled, payment_failed, risk_rejected, other")
		}
		return nil
	}
	panic("stockd: not a transition: " + string(tr.Action))
}

// normalizeConfirm checks the late-payment fields of a confirm.
func (tr *Transition) normalizeConfirm() *Error {
	if err := validText("id", tr.ReservationID, IdentifierLengthMax, true); err != nil {
		return err
	}
	if tr.OnLate == "" {
		tr.OnLate = OnLateException
	}
	if tr.OnLate != OnLateException && tr.OnLate != OnLateReReserve {
		return InvalidField("on_late", "must be exception or re_reserve")
	}
	if err := validText("payment_reference", tr.PaymentReference, PaymentReferenceLengthMax, false); err != nil {
		return err
	}
	if tr.PaidAt != nil {
		at, err := NormalizeTime("paid_at", *tr.PaidAt)
		if err != nil {
			return err
		}
		tr.PaidAt = &at
	}
	return nil
}

// transition moves a reservation along the state machine. Each move is
// conditional on the current status: a repeat of a move that already
// happened answers the reservation unchanged; an illegal move changes
// nothing and says why.
func (tr *Transition) decide(s *BatchState, c *Command) Result {
	id := tr.ReservationID
	if tr.PaidAt != nil && tr.PaidAt.After(s.Now.Add(PaidAtSkewMax)) {
		return Result{Err: InvalidField("paid_at", "lies more than %s after the server's clock", PaidAtSkewMax)}
	}
	res, ok := s.Reservations[id]
	if !ok {
		return Result{Err: Errorf(CodeNotFound, "reservation %q not found", id)}
	}
	// A pending reservation past its deadline is expired whoever asks first:
	// the confirm that loses to the clock learns it, so the caller can refund.
	if res.PastDeadline(s.Now) && tr.Action != KindRelease {
		s.move(res, StatusExpired, BusinessExpire, c.Actor, "")
	}
	if tr.Action == KindExpire && res.Status == StatusPending {
		// Not yet due (clocks of replicas differ): leave it pending.
		return Result{Reservation: res.snapshot()}
	}
	if tr.Action == KindFulfil && len(tr.Lines) > 0 {
		return tr.ship(s, c, res)
	}
	target, move := Next(res.Status, tr.Action)
	switch move {
	case MoveApply:
		s.move(res, target, businessOf(tr.Action), c.Actor, tr.Reason)
	case MoveRepeat:
	case MoveExpired:
		return tr.lateConfirm(s, c, res)
	case MoveIllegal:
		return Result{Err: &Error{Code: CodeInvalidTransition, Message: fmt.Sprintf("cannot %s a %s reservation", tr.Action, res.Status), Status: res.Status}}
	}
	return Result{Reservation: res.snapshot()}
}

func businessOf(k CommandKind) string {
	switch k {
	case KindConfirm:
		return BusinessConfirm
	case KindRelease:
		return BusinessRelease
	case KindExpire:
		return BusinessExpire
	case KindFulfil:
		return BusinessFulfil
	}
	panic("stockd: not a transition: " + string(k))
}

// normalizeShipLines checks the lines of a partial fulfil, each as a
// return line; none means "everything left".
func normalizeShipLines(lines []ReturnLine) *Error {
	if len(lines) > LinesPerReservationMax {
		return InvalidField("lines", "must hold at most %d lines", LinesPerReservationMax)
	}
	for _, l := range lines {
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
	return nil
}

// ship fulfils part of a confirmed reservation: one shipment, under its
// own business id (the ledger books one fulfil per business id and
// position, and a reservation may ship many times), takes each line's
// quantity out of committed and on_hand. The reservation stays confirmed
// until nothing is left to ship, then is fulfilled.
func (tr *Transition) ship(s *BatchState, c *Command, res *Reservation) Result {
	if res.Status != StatusConfirmed {
		return Result{Err: &Error{Code: CodeInvalidTransition, Status: res.Status,
			Message: fmt.Sprintf("cannot ship lines of a %s reservation: only a confirmed one ships", res.Status)}}
	}
	ship, order, err := sumLines(res, tr.Lines)
	if err != nil {
		return Result{Err: err}
	}
	for _, i := range order {
		if rl := res.Lines[i]; ship[i] > rl.Unshipped() {
			return Result{Err: Errorf(CodeQuantityExceeded, "line %s at %s/%s has %d left to ship, not %d", rl.SKU, rl.Location, rl.Pool, rl.Unshipped(), ship[i])}
		}
	}
	entry := LedgerEntry{BusinessType: BusinessFulfil, BusinessID: s.NewID(), ReservationID: res.ID, Actor: c.Actor, Reference: tr.Reference}
	// Claimed last, once nothing else can refuse, so a refusal takes nothing.
	if err := s.claimReferences(tr.referenceKeys(), entry.BusinessID); err != nil {
		return Result{Err: err}
	}
	for _, i := range order {
		rl := &res.Lines[i]
		s.change(rl.Key(), lineDelta(StatusConfirmed, StatusFulfilled, ship[i]), entry)
		rl.Shipped += ship[i]
	}
	if nothingToShip(res) {
		res.Status = StatusFulfilled
	}
	res.UpdatedAt = s.Now
	s.updated[res.ID] = true
	return Result{Reservation: res.snapshot()}
}
