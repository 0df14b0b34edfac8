package stockd

const KindReceive CommandKind = "receive"

// Receive adds quantity to on_hand.
type Receive struct {
	Position  PositionKey
	Quantity  int64
	Reference string
}

func (r *Receive) Kind() CommandKind { return KindReceive }

func (r *Receive) Touches(t *Touches) {
	t.Ensure = append(t.Ensure, r.Position)
	t.SKUs = append(t.SKUs, r.Position.SKU)
	poolDocTouches(r.Position, t)
	t.References = append(t.References, referenceKeys(BusinessReceipt, r.Reference, r.Position.SKU)...)
}

func (r *Receive) normalize() *Error {
	if err := NormalizeKey(&r.Position); err != nil {
		return err
	}
	if err := validQuantity("quantity", r.Quantity); err != nil {
		return err
	}
	return validText("reference", r.Reference, ReferenceLengthMax, false)
}

func (r *Receive) decide(s *BatchState, c *Command) Result {
	if err := s.checkPosition(r.Position); err != nil {
		return Result{Err: err}
	}
	if err := s.stockIn(r.Position.SKU); err != nil {
		return Result{Err: err}
	}
	if err := s.campaignStockIn(r.Position); err != nil {
		return Result{Err: err}
	}
	if s.peek(r.Position).OnHand+r.Quantity > CounterMax {
		return Result{Err: InvalidField("quantity", "on_hand would exceed %d", CounterMax)}
	}
	if err := s.claimReferences(referenceKeys(BusinessReceipt, r.Reference, r.Position.SKU), c.IdempotencyKey); err != nil {
		return Result{Err: err}
	}
	s.change(r.Position, Counters{OnHand: r.Quantity}, LedgerEntry{
		BusinessType: BusinessReceipt, BusinessID: c.IdempotencyKey,
		Actor: c.Actor, Reference: r.Reference,
	})
	return Result{Position: s.position(r.Position)}
}
