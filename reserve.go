package stockd

import (
	"fmt"
	"time"
)

const KindReserve CommandKind = "reserve"

// LineRequest asks for Quantity of SKU; an empty Location lets placement
// choose by the reservation's strategy. SKU may name a bundle, which
// reserves its components.
type LineRequest struct {
	SKU      string
	Quantity int64
	Location string
	Pool     string
}

// Reserve holds stock for an order, all lines or none.
type Reserve struct {
	Lines []LineRequest
	TTL   time.Duration
	// Commit reserves and confirms in one step (deduct at payment).
	Commit bool
	// Strategy places lines that name no location; empty means
	// StrategyPriority.
	Strategy string
	// CustomerID, when set, subjects the order to the purchase limits of
	// its SKUs and campaign pools.
	CustomerID string
	// OrderID, when set, is the order's business number: a second
	// reservation for an order that holds one is refused duplicate_order.
	OrderID string
	// ID, when set, is the reservation's id instead of a new one: the gate
	// answered the order with it before the engine persisted it.
	ID string
}

// Placement strategies for lines that name no location.
const (
	// StrategyPriority puts each line whole in the first active location,
	// by priority, that can hold it.
	StrategyPriority = "priority"
	// StrategySingleLocation puts every line without a location in one
	// location that can hold them all, to ship in one parcel, the first by
	// priority; when none can, the order is refused (insufficient_stock),
	// never split over parcels the caller did not ask for.
	StrategySingleLocation = "single_location"
	// StrategySplit may split a line across locations, by priority.
	StrategySplit = "split"
)

func (r *Reserve) Kind() CommandKind { return KindReserve }

// Touches names the positions of every line's SKU, and the documents that
// may shape the decision: a bundle definition under each line's SKU, the
// pool documents of named pools, and the purchase limits and the
// customer's usage of them.
func (r *Reserve) Touches(t *Touches) {
	for _, l := range r.Lines {
		t.SKUs = append(t.SKUs, l.SKU)
		t.Docs = append(t.Docs, DocKey{Kind: DocBundle, ID: l.SKU})
		if l.Pool != PoolDefault {
			t.Docs = append(t.Docs, DocKey{Kind: DocPool, ID: l.Pool})
		}
	}
	reserveLimitTouches(r, t)
	if r.OrderID != "" {
		t.Orders = append(t.Orders, r.OrderID)
	}
}

// reserve places every line or none. Lines are decided against the locked
// counters as changed by earlier commands of the batch and earlier lines of
// the same order, so a later request never takes stock an earlier one could
// have had. Refusals that depend on no counter (an unknown or inactive
// location, a closed campaign, the SKU's deduction timing, a purchase
// limit) come before placement.
func (req *Reserve) decide(s *BatchState, c *Command) Result {
	if id, held := s.orderHolder(req.OrderID); held {
		return Result{Err: &Error{
			Code:       CodeDuplicateOrder,
			Message:    fmt.Sprintf("order %q is held by reservation %s: read it, or release it before reserving the order again", req.OrderID, id),
			Field:      "order_id",
			ExistingID: id,
		}}
	}
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
		msg := "not enough stock for every line"
		if p.apart {
			msg = "no single active location holds every line (strategy single_location); priority or split may place them apart"
		}
		return Result{Err: &Error{Code: CodeInsufficientStock, Message: msg, Lines: p.short}}
	}
	id := req.ID
	if id == "" {
		id = s.NewID()
	}
	res := Reservation{
		ID:         id,
		Key:        c.IdempotencyKey,
		Status:     StatusPending,
		Lines:      p.lines,
		CustomerID: req.CustomerID,
		OrderID:    req.OrderID,
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
	if req.OrderID != "" {
		s.ordersNew[req.OrderID] = res.ID
	}
	s.writes.ReservationsNew = append(s.writes.ReservationsNew, res)
	s.Reservations[res.ID] = &res
	return Result{Reservation: res.snapshot(), Created: true}
}

// expand checks each request line against the catalogue, the locations,
// the pools and the deduction timings, and turns it into what placement
// places: the line itself, or the components of the bundle it names.
// The wants are valid until the next call: they live in a buffer the
// batch reuses, as no reservation outlives its placement's wants.
func (s *BatchState) expand(req *Reserve) ([]want, *Error) {
	wants := s.wants[:0]
	defer func() { s.wants = wants[:0] }()
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

// normalPoolOnly is what most lines may take stock from. Shared by every
// such want, so read only.
var normalPoolOnly = []string{PoolDefault}

// linePools lists the pools a line naming pool may take stock from: the
// pool, then normal when its document says it falls back. A pool with no
// document is a channel without fallback; one not sellable now (a campaign
// outside its window, or closed) refuses the order.
func (s *BatchState) linePools(pool string) ([]string, *Error) {
	if pool == PoolDefault {
		return normalPoolOnly, nil
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

// move changes the counters of every line for a transition of res.
func (s *BatchState) move(res *Reservation, to ReservationStatus, business, actor, reason string) {
	for i := range res.Lines {
		l := &res.Lines[i]
		// What a refund before shipment gave back, or a partial fulfil
		// shipped, is no longer held.
		held := l.Unshipped()
		if held == 0 {
			continue
		}
		s.change(l.Key(), lineDelta(res.Status, to, held), LedgerEntry{
			BusinessType: business, BusinessID: res.ID, ReservationID: res.ID, Actor: actor, Reason: reason,
		})
		if to == StatusFulfilled {
			l.Shipped += held
		}
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

// normalizeReserve validates lines and merges repeated (SKU, location, pool)
// lines into one, so that one order holds one line per position asked for.
func (r *Reserve) normalize() *Error {
	if len(r.Lines) == 0 || len(r.Lines) > LinesPerReservationMax {
		return InvalidField("lines", "must hold 1 to %d lines", LinesPerReservationMax)
	}
	if r.TTL == 0 {
		r.TTL = ReservationTTLDefault
	}
	if r.Strategy == "" {
		r.Strategy = StrategyPriority
	}
	switch r.Strategy {
	case StrategyPriority, StrategySingleLocation, StrategySplit:
	default:
		return InvalidField("strategy", "must be one of priority, single_location, split")
	}
	if r.ID != "" && !ValidIdentifier(r.ID) {
		return InvalidField("id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if r.CustomerID != "" && !ValidIdentifier(r.CustomerID) {
		return InvalidField("customer_id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if err := validText("order_id", r.OrderID, OrderIDLengthMax, false); err != nil {
		return err
	}
	if r.TTL < ReservationTTLMin || r.TTL > ReservationTTLMax {
		return InvalidField("ttl_seconds", "must be from %d to %d", int(ReservationTTLMin/time.Second), int(ReservationTTLMax/time.Second))
	}
	merged := make([]LineRequest, 0, len(r.Lines))
	index := make(map[LineRequest]int, len(r.Lines))
	for _, l := range r.Lines {
		if err := validQuantity("quantity", l.Quantity); err != nil {
			return err
		}
		key := PositionKey{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
		any := key.Location == ""
		if err := NormalizeKey(&key); err != nil {
			return err
		}
		if any {
			key.Location = ""
		}
		l.SKU, l.Location, l.Pool = key.SKU, key.Location, key.Pool
		slot := LineRequest{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
		if i, ok := index[slot]; ok {
			merged[i].Quantity += l.Quantity
			if merged[i].Quantity > QuantityMax {
				return InvalidField("quantity", "merged quantity of %s above %d", l.SKU, QuantityMax)
			}
			continue
		}
		index[slot] = len(merged)
		merged = append(merged, l)
	}
	r.Lines = merged
	return nil
}
