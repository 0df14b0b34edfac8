package stockd

// Derived stock events. The ledger is also the outbox: besides the
// changes, it carries zero-delta entries that say what a change meant for
// a storefront, decided in the transaction of the change, so they are
// exactly as durable and as ordered as the change itself.
//
// Per position (a SKU at a location in a pool):
//   - stock_sold_out: available fell to 0;
//   - stock_back_in_stock: available rose from 0;
//   - stock_low: available fell to or below the SKU's alert line (only
//     when the SKU has one: SKU.AlertLine above 0).
//
// Per pool (a SKU's pool summed over every location: what a channel sells
// from), the same three as pool_sold_out, pool_back_in_stock, pool_low.
//
// Each entry's business id is "<type>:<trigger>", the trigger being the
// business id of the change that crossed, so the ledger's UNIQUE (type,
// business id, position) makes it once per crossing.
const (
	EventStockSoldOut     = "stock_sold_out"
	EventStockBackInStock = "stock_back_in_stock"
	EventStockLow         = "stock_low"
	EventPoolSoldOut      = "pool_sold_out"
	EventPoolBackInStock  = "pool_back_in_stock"
	EventPoolLow          = "pool_low"
)

// Notices: events of records that are not stock (discrepancies, alerts,
// exceptions), written as zero-delta entries by the Notice command so that
// /v1/events, the relay and webhooks carry them in order with the changes.
const (
	NoticeDiscrepancyOpened  = "discrepancy_opened"
	NoticeDiscrepancyClosed  = "discrepancy_closed"
	NoticeAlertRaised        = "alert_raised"
	NoticeAlertEscalated     = "alert_escalated"
	NoticeAlertAcknowledged  = "alert_acknowledged"
	NoticeAlertResolved      = "alert_resolved"
	NoticeException          = "exception"
	NoticeExceptionResolved  = "exception_resolved"
	noticeTypeLengthMax      = 32
	eventBusinessIDPrefixMax = len(EventPoolBackInStock) + 1
)

// DerivedEventTypes lists the derived stock events; NoticeTypes the
// notices. Together they are every event-only type.
var (
	DerivedEventTypes = []string{EventStockSoldOut, EventStockBackInStock, EventStockLow, EventPoolSoldOut, EventPoolBackInStock, EventPoolLow}
	NoticeTypes       = []string{
		NoticeDiscrepancyOpened, NoticeDiscrepancyClosed,
		NoticeAlertRaised, NoticeAlertEscalated, NoticeAlertAcknowledged, NoticeAlertResolved,
		NoticeException, NoticeExceptionResolved,
	}
)

// EventOnly reports whether ledger entries of businessType are events
// only: zero deltas whose counters are a copy, not a change. The audit
// chain, the reconciliation and the demand read skip them, so an event's
// counters never carry a drift forward (or hide one).
func EventOnly(businessType string) bool {
	switch businessType {
	case EventStockSoldOut, EventStockBackInStock, EventStockLow,
		EventPoolSoldOut, EventPoolBackInStock, EventPoolLow,
		NoticeDiscrepancyOpened, NoticeDiscrepancyClosed,
		NoticeAlertRaised, NoticeAlertEscalated, NoticeAlertAcknowledged, NoticeAlertResolved,
		NoticeException, NoticeExceptionResolved:
		return true
	}
	return false
}

// EventOnlyTypes returns every event-only type: derived events, then
// notices.
func EventOnlyTypes() []string {
	out := make([]string, 0, len(DerivedEventTypes)+len(NoticeTypes))
	return append(append(out, DerivedEventTypes...), NoticeTypes...)
}

// touchedPosition is a position one command changed: its available before
// the command, and the business id of the command's last entry there.
type touchedPosition struct {
	key     PositionKey
	before  int64
	trigger string
	actor   string
}

// poolKey names a SKU's pool over every location.
type poolKey struct{ sku, pool string }

// poolCrossing gathers what one command did to one pool.
type poolCrossing struct {
	key   poolKey
	delta int64
	// at is the pool's position the command changed last: the pool's
	// event sits there, after the trigger's entry.
	at      PositionKey
	trigger string
	actor   string
}

// touchedScanMax is how many positions of one command are found by a
// scan; a command that changes more (a campaign's close, a large receipt)
// indexes them in touchedAt.
const touchedScanMax = 16

// touch records, before a change to k, the position's available at the
// start of the command (the first change only) and the change's business
// id and actor. Zero allocations once the batch's slices have grown.
func (s *BatchState) touch(k PositionKey, before int64, trigger, actor string) {
	if i := s.touchedIndex(k); i >= 0 {
		s.touched[i].trigger, s.touched[i].actor = trigger, actor
		return
	}
	s.touched = append(s.touched, touchedPosition{key: k, before: before, trigger: trigger, actor: actor})
	if len(s.touched) <= touchedScanMax {
		return
	}
	if s.touchedAt == nil {
		s.touchedAt = make(map[PositionKey]int, 4*touchedScanMax)
	}
	if len(s.touchedAt) == 0 {
		for i := range s.touched {
			s.touchedAt[s.touched[i].key] = i
		}
		return
	}
	s.touchedAt[k] = len(s.touched) - 1
}

// touchedIndex returns k's index in touched, or -1.
func (s *BatchState) touchedIndex(k PositionKey) int {
	if len(s.touched) <= touchedScanMax {
		for i := range s.touched {
			if s.touched[i].key == k {
				return i
			}
		}
		return -1
	}
	if i, ok := s.touchedAt[k]; ok {
		return i
	}
	return -1
}

// deriveStockEvents runs at the end of each command: for every position it
// changed, and every pool of those, it compares available before and
// after and appends the events of the lines crossed. It then forgets the
// command's positions.
func (s *BatchState) deriveStockEvents() {
	if len(s.touched) == 0 {
		return
	}
	s.pools = s.pools[:0]
	for i := range s.touched {
		t := &s.touched[i]
		c := s.Positions[t.key]
		after := c.Available()
		line := s.SKUs[t.key.SKU].AlertLine
		s.crossed(t.key, t.before, after, line, t.trigger, t.actor, EventStockSoldOut, EventStockBackInStock, EventStockLow)
		s.poolDelta(t, after-t.before)
	}
	for i := range s.pools {
		p := &s.pools[i]
		if p.delta == 0 {
			continue // a confirm, a move within the pool: nothing to cross
		}
		s.poolSumsBuild()
		before := s.poolAvail[p.key]
		after := before + p.delta
		s.poolAvail[p.key] = after
		s.crossed(p.at, before, after, s.SKUs[p.key.sku].AlertLine, p.trigger, p.actor, EventPoolSoldOut, EventPoolBackInStock, EventPoolLow)
	}
	s.touched = s.touched[:0]
	if len(s.touchedAt) > 0 {
		clear(s.touchedAt)
	}
}

// poolDelta adds one position's change of available to its pool's.
func (s *BatchState) poolDelta(t *touchedPosition, delta int64) {
	k := poolKey{sku: t.key.SKU, pool: t.key.Pool}
	for i := range s.pools {
		if s.pools[i].key == k {
			s.pools[i].delta += delta
			s.pools[i].at, s.pools[i].trigger, s.pools[i].actor = t.key, t.trigger, t.actor
			return
		}
	}
	s.pools = append(s.pools, poolCrossing{key: k, delta: delta, at: t.key, trigger: t.trigger, actor: t.actor})
}

// poolSumsBuild sums available per pool once per batch, over the
// positions the batch holds, as they stand before the current command's
// changes (those are added by deriveStockEvents). The engine's batch holds
// every position of each SKU it changes (LoadBatch locks all of a SKU's
// positions, and positions created in the batch start at zero), so the
// sums are the pools' exact available; a state built by hand with fewer
// positions gets sums over those it holds.
func (s *BatchState) poolSumsBuild() {
	if s.poolAvail != nil {
		return
	}
	s.poolAvail = make(map[poolKey]int64, len(s.Positions))
	for k, c := range s.Positions {
		s.poolAvail[poolKey{sku: k.SKU, pool: k.Pool}] += c.Available()
	}
	// The current command's changes are already in the counters: take
	// them out, so the sums are as of the command's start.
	for i := range s.touched {
		t := &s.touched[i]
		c := s.Positions[t.key]
		s.poolAvail[poolKey{sku: t.key.SKU, pool: t.key.Pool}] -= c.Available() - t.before
	}
}

// crossed appends the events of a move of available from before to after
// at k: sold out, back in stock, low. A line of 0 means the SKU has none
// (yet): low would only repeat sold out.
func (s *BatchState) crossed(k PositionKey, before, after, line int64, trigger, actor, soldOut, backIn, low string) {
	if before == after {
		return
	}
	if line > 0 && before > line && after <= line {
		s.event(k, low, trigger, actor)
	}
	if before > 0 && after == 0 {
		s.event(k, soldOut, trigger, actor)
	}
	if before == 0 && after > 0 {
		s.event(k, backIn, trigger, actor)
	}
}

// retrigger names the current command's crossings after trigger rather
// than after the business id of its entries. A late confirm that re-reserves
// books under the reservation's id again, after that id's reserve and its
// expiry may have crossed the same lines: named after the id alone, the
// second crossing would repeat the first's business id, the ledger's UNIQUE
// would refuse it, and the whole batch with it, on every retry.
func (s *BatchState) retrigger(trigger string) {
	for i := range s.touched {
		s.touched[i].trigger = trigger
	}
	for i := range s.pools {
		s.pools[i].trigger = trigger
	}
}

// event appends one zero-delta entry of typ at k, with the position's
// counters as they stand and the actor of the change that crossed.
func (s *BatchState) event(k PositionKey, typ, trigger, actor string) {
	if trigger == "" {
		// Callers' changes always name their business document; a keyless
		// internal one gets a new id, or every crossing of k would be the
		// same event.
		trigger = s.NewID()
	}
	s.writes.Ledger = append(s.writes.Ledger, LedgerEntry{
		BusinessType: typ,
		BusinessID:   typ + ":" + trigger,
		Position:     k,
		After:        s.peek(k),
		Actor:        actor,
		CreatedAt:    s.Now,
	})
}
