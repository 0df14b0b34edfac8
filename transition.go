package stockd

import "fmt"

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
}

var releaseReasons = map[string]bool{
	ReleaseCancelled: true, ReleasePaymentFailed: true, ReleaseRiskRejected: true, ReleaseOther: true,
}

func (tr *Transition) Kind() CommandKind { return tr.Action }

func (tr *Transition) Touches(t *Touches) {
	t.ReservationIDs = append(t.ReservationIDs, tr.ReservationID)
}

func (tr *Transition) normalize() *Error {
	switch tr.Action {
	case KindConfirm, KindExpire, KindFulfil:
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

// transition moves a reservation along the state machine. Each move is
// conditional on the current status: a repeat of a move that already
// happened answers the reservation unchanged; an illegal move changes
// nothing and says why.
func (tr *Transition) decide(s *BatchState, c *Command) Result {
	id := tr.ReservationID
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
	target, move := Next(res.Status, tr.Action)
	switch move {
	case MoveApply:
		s.move(res, target, businessOf(tr.Action), c.Actor, tr.Reason)
	case MoveRepeat:
	case MoveExpired:
		return Result{Err: &Error{Code: CodeReservationExpired, Message: fmt.Sprintf("reservation %q expired before it was confirmed", id), Status: res.Status}}
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
