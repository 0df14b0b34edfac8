package stockd

import "fmt"

// Move classifies what a command does to a reservation in a given status.
type Move int

const (
	MoveApply   Move = iota // legal: change status and counters
	MoveRepeat              // already happened: answer unchanged
	MoveIllegal             // invalid_transition: change nothing
	MoveExpired             // confirm after expiry: reservation_expired
)

// Next is the reservation state machine: the status a command leads to from
// from, and whether the move applies, repeats or is refused.
func Next(from ReservationStatus, kind CommandKind) (ReservationStatus, Move) {
	switch kind {
	case KindConfirm:
		switch from {
		case StatusPending:
			return StatusConfirmed, MoveApply
		case StatusConfirmed, StatusFulfilled:
			return from, MoveRepeat
		case StatusExpired:
			return from, MoveExpired
		}
	case KindRelease:
		switch from {
		case StatusPending:
			return StatusReleased, MoveApply
		case StatusReleased, StatusExpired:
			return from, MoveRepeat
		}
	case KindExpire:
		switch from {
		case StatusPending:
			return StatusExpired, MoveApply
		default:
			// The expiry worker lost to a confirm or release: nothing to do.
			return from, MoveRepeat
		}
	case KindFulfil:
		switch from {
		case StatusConfirmed:
			return StatusFulfilled, MoveApply
		case StatusFulfilled:
			return from, MoveRepeat
		}
	default:
		panic("stockd: not a transition: " + string(kind))
	}
	return from, MoveIllegal
}

// lineDelta is the change to a line's position when its reservation moves
// from one status to another.
func lineDelta(from, to ReservationStatus, q int64) Counters {
	switch {
	case from == StatusPending && to == StatusConfirmed:
		return Counters{Reserved: -q, Committed: q}
	case from == StatusPending && (to == StatusReleased || to == StatusExpired):
		return Counters{Reserved: -q}
	case from == StatusConfirmed && to == StatusFulfilled:
		return Counters{Committed: -q, OnHand: -q}
	}
	panic(fmt.Sprintf("stockd: no counter change from %s to %s", from, to))
}
