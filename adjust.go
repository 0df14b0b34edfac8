package stockd

func (a *Adjust) touches(t *Touches) {
	t.Ensure = append(t.Ensure, a.Position)
	t.SKUs = append(t.SKUs, a.Position.SKU)
	poolDocTouches(a.Position, t)
}

// adjust applies an adjustment within its SKU's approval threshold, and
// turns one beyond it into a pending approval that changes nothing yet.
// An adjustment that could not apply now is refused at once rather than
// left waiting for an approver.
func (s *BatchState) adjust(c *Command) Result {
	a := c.Adjust
	delta, err := s.adjustDelta(a, true)
	if err != nil {
		return Result{Err: err}
	}
	if absQuantity(delta) > s.SKUs[a.Position.SKU].Threshold() {
		return s.requestApproval(c, delta)
	}
	return s.applyAdjust(a, delta, LedgerEntry{
		BusinessType: BusinessAdjustment, BusinessID: c.IdempotencyKey,
		Actor: c.Actor, Reason: a.Reason, Reference: a.Reference,
	})
}

// adjustDelta checks a against the locked position and returns the change
// of on_hand it makes. checkPool checks the pool stock may come into; an
// approval's was checked when it was requested, and its batch has not
// locked the pool's document (campaignStockIn says why that still holds).
func (s *BatchState) adjustDelta(a *Adjust, checkPool bool) (int64, *Error) {
	if err := s.checkPosition(a.Position); err != nil {
		return 0, err
	}
	cur := s.peek(a.Position)
	delta := a.Delta
	if a.Set {
		if cur.OnHand != a.ExpectedOnHand {
			return 0, Errorf(CodeStaleQuantity, "on_hand is %d, not the expected %d", cur.OnHand, a.ExpectedOnHand)
		}
		delta = a.SetOnHand - cur.OnHand
	}
	if delta > 0 {
		if err := s.stockIn(a.Position.SKU); err != nil {
			return 0, err
		}
		if checkPool {
			if err := s.campaignStockIn(a.Position); err != nil {
				return 0, err
			}
		}
	}
	after := cur.Add(Counters{OnHand: delta})
	if after.OnHand > CounterMax {
		return 0, InvalidField("delta", "on_hand would exceed %d", CounterMax)
	}
	if after.Available() < 0 || after.OnHand < 0 {
		return 0, &Error{
			Code:    CodeInsufficientStock,
			Message: "on_hand cannot go below what is reserved, committed and quarantined",
			Lines:   []Shortfall{{SKU: a.Position.SKU, Location: a.Position.Location, Pool: a.Position.Pool, Requested: -delta, Available: cur.Available()}},
		}
	}
	return delta, nil
}

// applyAdjust changes on_hand by delta, already checked by adjustDelta.
func (s *BatchState) applyAdjust(a *Adjust, delta int64, entry LedgerEntry) Result {
	if delta != 0 {
		s.change(a.Position, Counters{OnHand: delta}, entry)
	}
	return Result{Position: s.position(a.Position)}
}

func absQuantity(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
