package stockd

import (
	"fmt"
	"time"
)

const KindExtend CommandKind = "extend"

// Extend moves a pending reservation's deadline later, for a checkout that
// needs more time than it first asked for (a 3-D Secure step, a bank
// transfer): the new deadline is TTL from now, never earlier than the one
// it has, and never past ReservationHoldMax from the reservation's
// creation. Counters do not change, so the ledger records nothing; the
// reservation's updated_at and the stored answer under the key do.
type Extend struct {
	ReservationID string
	TTL           time.Duration
}

func (x *Extend) Kind() CommandKind { return KindExtend }

func (x *Extend) Touches(t *Touches) {
	t.ReservationIDs = append(t.ReservationIDs, x.ReservationID)
}

func (x *Extend) normalize() *Error {
	if err := validText("id", x.ReservationID, IdentifierLengthMax, true); err != nil {
		return err
	}
	if x.TTL < ReservationTTLMin || x.TTL > ReservationTTLMax {
		return InvalidField("ttl_seconds", "must be from %d to %d", int(ReservationTTLMin/time.Second), int(ReservationTTLMax/time.Second))
	}
	return nil
}

func (x *Extend) decide(s *BatchState, c *Command) Result {
	res, ok := s.Reservations[x.ReservationID]
	if !ok {
		return Result{Err: Errorf(CodeNotFound, "reservation %q not found", x.ReservationID)}
	}
	if res.PastDeadline(s.Now) {
		// Too late, as for a confirm: the hold ends now, whoever asks.
		s.move(res, StatusExpired, BusinessExpire, c.Actor, "")
		return Result{Err: &Error{Code: CodeReservationExpired, Message: fmt.Sprintf("reservation %q expired before it was extended", res.ID), Status: res.Status}}
	}
	if res.Status != StatusPending {
		return Result{Err: &Error{Code: CodeInvalidTransition, Message: fmt.Sprintf("cannot extend a %s reservation: only a pending hold has a deadline", res.Status), Status: res.Status}}
	}
	limit := res.CreatedAt.Add(ReservationHoldMax)
	deadline := s.Now.Add(x.TTL)
	if deadline.After(limit) {
		return Result{Err: InvalidField("ttl_seconds", "a hold lasts at most %d seconds from its creation: at most %d more now",
			int(ReservationHoldMax/time.Second), int(limit.Sub(s.Now)/time.Second))}
	}
	if deadline.After(res.ExpiresAt) {
		res.ExpiresAt = deadline
		res.UpdatedAt = s.Now
		s.updated[res.ID] = true
	}
	return Result{Reservation: res.snapshot()}
}
