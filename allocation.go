package stockd

const KindAllocate CommandKind = "allocate"

// Allocate moves available quantity of one SKU at one location from one
// pool to another: on_hand leaves the source position and arrives at the
// target's, with one allocation ledger entry at each.
type Allocate struct {
	SKU       string
	Location  string
	FromPool  string
	ToPool    string
	Quantity  int64
	Reference string
}

// Allocation is the answer to Allocate: what moved, and both positions
// after the move.
type Allocation struct {
	SKU       string   `json:"sku"`
	Location  string   `json:"location"`
	FromPool  string   `json:"from_pool"`
	ToPool    string   `json:"to_pool"`
	Quantity  int64    `json:"quantity"`
	Reference string   `json:"reference,omitempty"`
	From      Position `json:"from"`
	To        Position `json:"to"`
}

func (a *Allocate) Kind() CommandKind { return KindAllocate }

func (a *Allocate) from() PositionKey {
	return PositionKey{SKU: a.SKU, Location: a.Location, Pool: a.FromPool}
}

func (a *Allocate) to() PositionKey {
	return PositionKey{SKU: a.SKU, Location: a.Location, Pool: a.ToPool}
}

// Touches names the SKU's positions, the target pool's document that says
// whether it takes stock, and its stock list a close will read. Only normal
// positions are ensured: a position of another pool is created by the
// allocation that first moves stock there (under the pool document's
// lock), so a refused allocation leaves no empty row behind.
func (a *Allocate) Touches(t *Touches) {
	t.SKUs = append(t.SKUs, a.SKU)
	for _, k := range []PositionKey{a.from(), a.to()} {
		if k.Pool == PoolDefault {
			t.Ensure = append(t.Ensure, k)
		}
	}
	if a.ToPool != PoolDefault {
		t.Docs = append(t.Docs, DocKey{Kind: DocPool, ID: a.ToPool}, DocKey{Kind: DocPoolStock, ID: a.ToPool})
	}
}

func (a *Allocate) normalize() *Error {
	k := a.from()
	if err := NormalizeKey(&k); err != nil {
		return err
	}
	a.SKU, a.Location, a.FromPool = k.SKU, k.Location, k.Pool
	if !ValidIdentifier(a.ToPool) {
		return InvalidField("to_pool", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if a.ToPool == a.FromPool {
		return InvalidField("to_pool", "must differ from from_pool")
	}
	if err := validQuantity("quantity", a.Quantity); err != nil {
		return err
	}
	return validText("reference", a.Reference, ReferenceLengthMax, false)
}

func (a *Allocate) decide(s *BatchState, c *Command) Result {
	from, to := a.from(), a.to()
	if err := s.checkPosition(from); err != nil {
		return Result{Err: err}
	}
	var target Pool
	campaign := false
	if a.ToPool != PoolDefault {
		if !s.docGet(DocPool, a.ToPool, &target) {
			return Result{Err: Errorf(CodeNotFound, "pool %q not found", a.ToPool)}
		}
		if target.ClosedAt != nil {
			return Result{Err: Errorf(CodeCampaignNotActive, "campaign %q is closed", a.ToPool)}
		}
		campaign = target.Kind == PoolCampaign
	}
	cur := s.peek(from)
	if cur.Available() < a.Quantity {
		return Result{Err: &Error{
			Code:    CodeInsufficientStock,
			Message: "not enough available in the source pool",
			Lines:   []Shortfall{{SKU: a.SKU, Location: a.Location, Pool: a.FromPool, Requested: a.Quantity, Available: cur.Available()}},
		}}
	}
	if s.peek(to).OnHand+a.Quantity > CounterMax {
		return Result{Err: InvalidField("quantity", "on_hand would exceed %d", CounterMax)}
	}
	if campaign {
		if err := s.poolStockAdd(a.ToPool, a.SKU, a.Location); err != nil {
			return Result{Err: err}
		}
	}
	s.poolMove(from, a.ToPool, a.Quantity, LedgerEntry{
		BusinessType: BusinessAllocation, BusinessID: c.IdempotencyKey, Actor: c.Actor, Reference: a.Reference,
	})
	return Result{Object: objectOf(Allocation{
		SKU: a.SKU, Location: a.Location, FromPool: a.FromPool, ToPool: a.ToPool,
		Quantity: a.Quantity, Reference: a.Reference,
		From: *s.position(from), To: *s.position(to),
	})}
}
