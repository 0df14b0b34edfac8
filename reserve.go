package stockd

import (
	"fmt"
	"sort"
)

// touches names the positions of every line's SKU, and the documents that
// may shape the decision: a bundle definition under each line's SKU, the
// pool documents of named pools, and the purchase limits and the
// customer's usage of them.
func (r *Reserve) touches(t *Touches) {
	for _, l := range r.Lines {
		t.SKUs = append(t.SKUs, l.SKU)
		t.Docs = append(t.Docs, DocKey{Kind: DocBundle, ID: l.SKU})
		if l.Pool != PoolDefault {
			t.Docs = append(t.Docs, DocKey{Kind: DocPool, ID: l.Pool})
		}
	}
	reserveLimitTouches(r, t)
}

// reserve places every line or none. Lines are decided against the locked
// counters as changed by earlier commands of the batch and earlier lines of
// the same order, so a later request never takes stock an earlier one could
// have had.
func (s *BatchState) reserve(c *Command) Result {
	req := c.Reserve
	placed := make([]ReservationLine, 0, len(req.Lines))
	taken := map[PositionKey]int64{}
	var short []Shortfall
	for _, l := range req.Lines {
		if _, ok := s.SKUs[l.SKU]; !ok {
			return Result{Err: Errorf(CodeUnknownSKU, "sku %q is unknown", l.SKU)}
		}
		if l.Location != "" {
			if _, ok := s.Locations[l.Location]; !ok {
				return Result{Err: Errorf(CodeUnknownLocation, "location %q is unknown", l.Location)}
			}
		}
		key, avail, ok := s.place(l, taken)
		if !ok {
			short = append(short, Shortfall{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Requested: l.Quantity, Available: avail})
			continue
		}
		if _, seen := taken[key]; seen {
			// A line without a location landed where another line of this
			// order is: one line per position keeps the ledger unique.
			for i := range placed {
				if placed[i].Key() == key {
					placed[i].Quantity += l.Quantity
				}
			}
		} else {
			placed = append(placed, ReservationLine{SKU: l.SKU, Quantity: l.Quantity, Location: key.Location, Pool: key.Pool})
		}
		taken[key] += l.Quantity
	}
	if len(short) > 0 {
		return Result{Err: &Error{Code: CodeInsufficientStock, Message: "not enough stock for every line", Lines: short}}
	}
	res := Reservation{
		ID:        s.NewID(),
		Key:       c.IdempotencyKey,
		Status:    StatusPending,
		Lines:     placed,
		ExpiresAt: s.Now.Add(req.TTL),
		CreatedAt: s.Now,
		UpdatedAt: s.Now,
	}
	for _, l := range placed {
		s.change(l.Key(), Counters{Reserved: l.Quantity}, LedgerEntry{
			BusinessType: BusinessReserve, BusinessID: res.ID, ReservationID: res.ID, Actor: c.Actor,
		})
	}
	if req.Commit {
		res.Status = StatusConfirmed
		for _, l := range placed {
			s.change(l.Key(), Counters{Reserved: -l.Quantity, Committed: l.Quantity}, LedgerEntry{
				BusinessType: BusinessConfirm, BusinessID: res.ID, ReservationID: res.ID, Actor: c.Actor,
			})
		}
	}
	s.writes.ReservationsNew = append(s.writes.ReservationsNew, res)
	s.Reservations[res.ID] = &res
	out := res
	return Result{Reservation: &out, Created: true}
}

// place picks the position for a line: the named one, or the first location
// by priority (then id) whose available, less what this order already took,
// holds the whole line. On failure it returns the best available seen.
func (s *BatchState) place(l LineRequest, taken map[PositionKey]int64) (PositionKey, int64, bool) {
	if l.Location != "" {
		k := PositionKey{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
		avail := s.peek(k).Available() - taken[k]
		return k, avail, avail >= l.Quantity
	}
	var best int64
	for _, k := range s.candidates(l.SKU, l.Pool) {
		avail := s.peek(k).Available() - taken[k]
		if avail >= l.Quantity {
			return k, avail, true
		}
		best = max(best, avail)
	}
	return PositionKey{}, best, false
}

// candidates lists the SKU's positions in a pool, by location priority.
func (s *BatchState) candidates(sku, pool string) []PositionKey {
	var keys []PositionKey
	for k := range s.Positions {
		if k.SKU == sku && k.Pool == pool {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		pi, pj := s.Locations[keys[i].Location].Priority, s.Locations[keys[j].Location].Priority
		if pi != pj {
			return pi < pj
		}
		return keys[i].Location < keys[j].Location
	})
	return keys
}

// transition moves a reservation along the state machine. Each move is
// conditional on the current status: a repeat of a move that already
// happened answers the reservation unchanged; an illegal move changes
// nothing and says why.
func (s *BatchState) transition(c *Command) Result {
	id := c.Transition.ReservationID
	res, ok := s.Reservations[id]
	if !ok {
		return Result{Err: Errorf(CodeNotFound, "reservation %q not found", id)}
	}
	// A pending reservation past its deadline is expired whoever asks first:
	// the confirm that loses to the clock learns it, so the caller can refund.
	if res.Status == StatusPending && !s.Now.Before(res.ExpiresAt) && c.Kind != KindRelease {
		s.move(res, StatusExpired, BusinessExpire, c.Actor, "")
	}
	if c.Kind == KindExpire && res.Status == StatusPending {
		// Not yet due (clocks of replicas differ): leave it pending.
		out := *res
		return Result{Reservation: &out}
	}
	target, move := Next(res.Status, c.Kind)
	switch move {
	case MoveApply:
		s.move(res, target, businessOf(c.Kind), c.Actor, c.Transition.Reason)
	case MoveRepeat:
	case MoveExpired:
		return Result{Err: &Error{Code: CodeReservationExpired, Message: fmt.Sprintf("reservation %q expired before it was confirmed", id), Status: res.Status}}
	case MoveIllegal:
		return Result{Err: &Error{Code: CodeInvalidTransition, Message: fmt.Sprintf("cannot %s a %s reservation", c.Kind, res.Status), Status: res.Status}}
	}
	out := *res
	return Result{Reservation: &out}
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

// move changes the counters of every line for a transition of res.
func (s *BatchState) move(res *Reservation, to ReservationStatus, business, actor, reason string) {
	for _, l := range res.Lines {
		// What a refund before shipment gave back is no longer held.
		held := l.Quantity - l.Refunded
		if held == 0 {
			continue
		}
		s.change(l.Key(), lineDelta(res.Status, to, held), LedgerEntry{
			BusinessType: business, BusinessID: res.ID, ReservationID: res.ID, Actor: actor, Reason: reason,
		})
	}
	from := res.Status
	res.Status = to
	res.UpdatedAt = s.Now
	if to == StatusReleased {
		res.ReleaseReason = reason
	}
	s.updated[res.ID] = true
	if from == StatusPending && (to == StatusReleased || to == StatusExpired) {
		// Stock held in a closed campaign's pool goes back to normal; the
		// customer's limits get the quantity back.
		for _, l := range res.Lines {
			s.campaignReturn(l.Key(), l.Quantity, res.ID, actor)
		}
		s.limitGiveBack(res)
	}
}
