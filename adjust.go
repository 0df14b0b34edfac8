package stockd

func (a *Adjust) touches(t *Touches) {
	t.Ensure = append(t.Ensure, a.Position)
	t.SKUs = append(t.SKUs, a.Position.SKU)
}

func (s *BatchState) adjust(c *Command) Result {
	a := c.Adjust
	if err := s.checkPosition(a.Position); err != nil {
		return Result{Err: err}
	}
	cur := s.peek(a.Position)
	delta := a.Delta
	if a.Set {
		if cur.OnHand != a.ExpectedOnHand {
			return Result{Err: Errorf(CodeStaleQuantity, "on_hand is %d, not the expected %d", cur.OnHand, a.ExpectedOnHand)}
		}
		delta = a.SetOnHand - cur.OnHand
	}
	after := cur.Add(Counters{OnHand: delta})
	if after.OnHand > CounterMax {
		return Result{Err: InvalidField("delta", "on_hand would exceed %d", CounterMax)}
	}
	if after.Available() < 0 || after.OnHand < 0 {
		return Result{Err: &Error{
			Code:    CodeInsufficientStock,
			Message: "on_hand cannot go below what is reserved, committed and quarantined",
			Lines:   []Shortfall{{SKU: a.Position.SKU, Location: a.Position.Location, Pool: a.Position.Pool, Requested: -delta, Available: cur.Available()}},
		}}
	}
	if delta != 0 {
		s.change(a.Position, Counters{OnHand: delta}, LedgerEntry{
			BusinessType: BusinessAdjustment, BusinessID: c.IdempotencyKey,
			Actor: c.Actor, Reason: a.Reason, Reference: a.Reference,
		})
	}
	return Result{Position: s.position(a.Position)}
}
