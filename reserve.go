package stockd

import "fmt"

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
// have had. Refusals that depend on no counter (an unknown or inactive
// location, a closed campaign, the SKU's deduction timing, a purchase
// limit) come before placement.
func (s *BatchState) reserve(c *Command) Result {
	req := c.Reserve
	wants, err := s.expand(req)
	if err != nil {
		return Result{Err: err}
	}
	charges, err := s.limitCheck(req)
	if err != nil {
		return Result{Err: err}
	}
	p := newPlacement(s, len(wants))
	p.place(wants, req.Strategy)
	if len(p.short) > 0 {
		return Result{Err: &Error{Code: CodeInsufficientStock, Message: "not enough stock for every line", Lines: p.short}}
	}
	res := Reservation{
		ID:         s.NewID(),
		Key:        c.IdempotencyKey,
		Status:     StatusPending,
		Lines:      p.lines,
		CustomerID: req.CustomerID,
		ExpiresAt:  s.Now.Add(req.TTL),
		CreatedAt:  s.Now,
		UpdatedAt:  s.Now,
	}
	for _, l := range res.Lines {
		s.change(l.Key(), Counters{Reserved: l.Quantity}, LedgerEntry{
			BusinessType: BusinessReserve, BusinessID: res.ID, ReservationID: res.ID, Actor: c.Actor,
		})
	}
	if req.Commit {
		res.Status = StatusConfirmed
		for _, l := range res.Lines {
			s.change(l.Key(), Counters{Reserved: -l.Quantity, Committed: l.Quantity}, LedgerEntry{
				BusinessType: BusinessConfirm, BusinessID: res.ID, ReservationID: res.ID, Actor: c.Actor,
			})
		}
	}
	s.limitRecord(req.CustomerID, res.ID, charges)
	s.writes.ReservationsNew = append(s.writes.ReservationsNew, res)
	s.Reservations[res.ID] = &res
	return Result{Reservation: res.snapshot(), Created: true}
}

// expand checks each request line against the catalogue, the locations,
// the pools and the deduction timings, and turns it into what placement
// places: the line itself, or the components of the bundle it names.
func (s *BatchState) expand(req *Reserve) ([]want, *Error) {
	wants := make([]want, 0, len(req.Lines))
	for _, l := range req.Lines {
		sku, ok := s.SKUs[l.SKU]
		if !ok {
			return nil, Errorf(CodeUnknownSKU, "sku %q is unknown", l.SKU)
		}
		if l.Location != "" {
			loc, ok := s.Locations[l.Location]
			if !ok {
				return nil, Errorf(CodeUnknownLocation, "location %q is unknown", l.Location)
			}
			if loc.Inactive {
				return nil, Errorf(CodeLocationInactive, "location %q is inactive", l.Location)
			}
		}
		pools, err := s.linePools(l.Pool)
		if err != nil {
			return nil, err
		}
		if err := deductionRefusal(sku, req.Commit); err != nil {
			return nil, err
		}
		if !sku.Bundle {
			wants = append(wants, want{SKU: l.SKU, Quantity: l.Quantity, Location: l.Location, Pools: pools})
			continue
		}
		var b Bundle
		if !s.docGet(DocBundle, l.SKU, &b) {
			return nil, Errorf(CodeUnprocessable, "bundle %q has no definition yet: POST /v1/bundles names its components", l.SKU)
		}
		for _, comp := range b.Components {
			csku, ok := s.SKUs[comp.SKU]
			if !ok {
				panic("stockd: bundle " + b.ID + " component " + comp.SKU + " not locked")
			}
			if err := deductionRefusal(csku, req.Commit); err != nil {
				return nil, err
			}
			// Both factors are bounded (QuantityMax, BundleComponentQuantityMax):
			// the product cannot overflow.
			q := l.Quantity * comp.Quantity
			if q > QuantityMax {
				return nil, InvalidField("quantity", "%d of bundle %s needs %d of %s, above %d", l.Quantity, l.SKU, q, comp.SKU, QuantityMax)
			}
			wants = append(wants, want{SKU: comp.SKU, Quantity: q, Location: l.Location, Pools: pools, Bundle: l.SKU})
		}
	}
	return wants, nil
}

// linePools lists the pools a line naming pool may take stock from: the
// pool, then normal when its document says it falls back. A pool with no
// document is a channel without fallback; one not sellable now (a campaign
// outside its window, or closed) refuses the order.
func (s *BatchState) linePools(pool string) ([]string, *Error) {
	if pool == PoolDefault {
		return []string{PoolDefault}, nil
	}
	var doc Pool
	if !s.docGet(DocPool, pool, &doc) {
		return []string{pool}, nil
	}
	if !doc.Sellable(s.Now) {
		return nil, Errorf(CodeCampaignNotActive, "pool %q takes no reservations now", pool)
	}
	if doc.FallbackToNormal {
		return []string{pool, PoolDefault}, nil
	}
	return []string{pool}, nil
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
		return Result{Reservation: res.snapshot()}
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
			s.campaignReturn(l.Key(), l.Quantity, res.ID, res.ID, actor)
		}
		s.limitGiveBack(res)
	}
}
