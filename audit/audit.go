// Package audit checks the books without changing them: every position is
// recomputed from the ledger and from the open reservations and compared
// with the snapshot, and in_transit and incoming are recomputed from the
// open transfers and purchase orders. It reports; it never fixes.
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// differencesMax bounds the differences a report lists; Report.Count still
// counts all of them.
const differencesMax = 1000

// Difference is one disagreement between the snapshot and what the ledger
// or the reservations say it should be.
type Difference struct {
	Position stockd.PositionKey `json:"position"`
	Check    string             `json:"check"`
	Snapshot stockd.Counters    `json:"snapshot"`
	Expected stockd.Counters    `json:"expected"`
	Detail   string             `json:"detail,omitempty"`
	// Seq is the ledger entry a ledger_chain difference is about.
	Seq int64 `json:"seq,omitempty"`
}

// Report is the outcome of Verify.
type Report struct {
	Positions        int          `json:"positions"`
	LedgerEntries    int64        `json:"ledger_entries"`
	OpenReservations int          `json:"open_reservations"`
	OpenTransfers    int          `json:"open_transfers"`
	OpenOrders       int          `json:"open_purchase_orders"`
	Count            int          `json:"differences_count"`
	Differences      []Difference `json:"differences"`
}

// Clean reports whether the books agree everywhere.
func (r *Report) Clean() bool { return r.Count == 0 }

func (r *Report) add(d Difference) {
	r.Count++
	if len(r.Differences) < differencesMax {
		r.Differences = append(r.Differences, d)
	}
}

type books struct {
	snapshot   stockd.Counters
	inSnapshot bool
	chain      Chain
	open       stockd.Counters // reserved and committed from open reservations
	inbound    stockd.Counters // in_transit and incoming from open transfers and orders
}

// Chain follows one position's ledger entry by entry: each entry's
// counters must be the previous entry's plus its delta, and their sum is
// what the snapshot must hold. An entry of an adjustment that names a
// discrepancy (stockd.BusinessReconciliation) restarts the chain: its
// counters are the opening balance from then on, and the breaks before it
// are acknowledged by it, so a drift resolved once is not reported for
// ever. The zero Chain starts before a position's first entry; the
// reconciliation's minute pass starts one at the last entry it checked.
type Chain struct {
	last    stockd.Counters // counters after the last entry
	sum     stockd.Counters // the last reconciliation's counters plus the deltas after it
	entries int64
	breaks  []Difference
}

// ChainFrom starts a chain after an entry whose counters were after.
func ChainFrom(after stockd.Counters) Chain { return Chain{last: after, sum: after} }

// Add follows the chain by one entry of its position. A checkpoint (the
// entry the ledger archive leaves in place of a position's archived
// entries) is an opening balance as a reconciliation entry is.
//
// Event-only entries (stockd.EventOnly: derived stock events, notices)
// are passed over: their zero delta changes nothing and their counters are
// a copy of the position's when they were written, so following them
// would carry a drift forward as if the ledger had booked it.
func (c *Chain) Add(e stockd.LedgerEntry) {
	if stockd.EventOnly(e.BusinessType) {
		return
	}
	if e.BusinessType == stockd.BusinessReconciliation || e.BusinessType == stockd.BusinessCheckpoint {
		c.sum, c.breaks = e.After, nil
	} else {
		if want := c.last.Add(e.Delta); want != e.After {
			c.breaks = append(c.breaks, Difference{Position: e.Position, Check: stockd.DiscrepancyLedgerChain, Snapshot: e.After, Expected: want,
				Detail: fmt.Sprintf("entry %d: counters are not the previous entry's plus its delta", e.Seq), Seq: e.Seq})
		}
		c.sum = c.sum.Add(e.Delta)
	}
	c.last = e.After
	c.entries++
}

// Breaks returns the breaks no later reconciliation entry acknowledged.
func (c *Chain) Breaks() []Difference { return c.breaks }

// Last returns the counters after the last entry added.
func (c *Chain) Last() stockd.Counters { return c.last }

// Verify recomputes every position and lists where the books disagree.
func Verify(ctx context.Context, s store.Store) (Report, error) {
	var rep Report
	err := s.AuditRead(ctx, func(r store.AuditReader) error {
		var err error
		rep, err = verify(ctx, r)
		return err
	})
	return rep, err
}

func verify(ctx context.Context, s store.AuditReader) (Report, error) {
	var rep Report
	all := map[stockd.PositionKey]*books{}
	get := func(k stockd.PositionKey) *books {
		b, ok := all[k]
		if !ok {
			b = &books{}
			all[k] = b
		}
		return b
	}
	err := s.PositionEach(ctx, func(p stockd.Position) error {
		b := get(p.PositionKey)
		b.snapshot, b.inSnapshot = p.Counters, true
		rep.Positions++
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("read positions: %w", err)
	}
	err = s.LedgerEachByPosition(ctx, func(e stockd.LedgerEntry) error {
		rep.LedgerEntries++
		if stockd.EventOnly(e.BusinessType) {
			return nil // an event's counters are a copy (Chain.Add says why)
		}
		get(e.Position).chain.Add(e)
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("read ledger: %w", err)
	}
	err = s.ReservationOpenEach(ctx, func(r stockd.Reservation) error {
		rep.OpenReservations++
		return OpenHeld(r, func(k stockd.PositionKey) *stockd.Counters { return &get(k).open })
	})
	if err != nil {
		return rep, fmt.Errorf("read reservations: %w", err)
	}
	if err := inbound(ctx, s, &rep, get); err != nil {
		return rep, err
	}
	keys := make([]stockd.PositionKey, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Less(keys[j]) })
	for _, k := range keys {
		check(&rep, k, all[k])
	}
	return rep, nil
}

// inbound adds what the open transfers and purchase orders say is in
// transit to, and incoming at, each position. A document that does not
// decode is an error, not a difference: the audit cannot tell what it
// should say.
func inbound(ctx context.Context, s store.AuditReader, rep *Report, get func(stockd.PositionKey) *books) error {
	err := s.DocumentEach(ctx, stockd.DocTransfer, func(d stockd.Document) error {
		var t stockd.TransferDoc
		if err := json.Unmarshal(d.Body, &t); err != nil {
			return fmt.Errorf("transfer %s: %w", d.ID, err)
		}
		if t.Status != stockd.TransferOpen {
			return nil
		}
		rep.OpenTransfers++
		b := get(stockd.PositionKey{SKU: t.SKU, Location: t.ToLocation, Pool: t.Pool})
		b.inbound.InTransit += t.Outstanding()
		return nil
	})
	if err != nil {
		return fmt.Errorf("read transfers: %w", err)
	}
	err = s.DocumentEach(ctx, stockd.DocPurchaseOrder, func(d stockd.Document) error {
		var po stockd.PurchaseOrderDoc
		if err := json.Unmarshal(d.Body, &po); err != nil {
			return fmt.Errorf("purchase order %s: %w", d.ID, err)
		}
		if po.Status != stockd.POOpen {
			return nil
		}
		rep.OpenOrders++
		for _, l := range po.Lines {
			b := get(stockd.PositionKey{SKU: l.SKU, Location: l.Location, Pool: stockd.PoolDefault})
			b.inbound.Incoming += l.Open()
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read purchase orders: %w", err)
	}
	return nil
}

func check(rep *Report, k stockd.PositionKey, b *books) {
	if !b.inSnapshot {
		for _, d := range b.chain.Breaks() {
			rep.add(d)
		}
		rep.add(Difference{Position: k, Check: stockd.DiscrepancyMissingPosition, Expected: b.chain.sum,
			Detail: "the ledger or a reservation names a position the snapshot lacks"})
		return
	}
	for _, d := range CheckPosition(k, b.snapshot, &b.chain, b.open) {
		rep.add(d)
	}
	if b.snapshot.InTransit != b.inbound.InTransit || b.snapshot.Incoming != b.inbound.Incoming {
		want := b.snapshot
		want.InTransit, want.Incoming = b.inbound.InTransit, b.inbound.Incoming
		rep.add(Difference{Position: k, Check: stockd.DiscrepancyInbound, Snapshot: b.snapshot, Expected: want,
			Detail: "in_transit or incoming differs from the open transfers and purchase orders"})
	}
}

// CheckPosition lists where one position's snapshot disagrees with its
// ledger, as c followed it, and with what its open reservations hold
// (open: reserved from the pending ones, committed from the confirmed).
// The day pass (Verify) checks every position so; the minute pass those
// the ledger changed since its cursor.
func CheckPosition(k stockd.PositionKey, snapshot stockd.Counters, c *Chain, open stockd.Counters) []Difference {
	out := slices.Clone(c.Breaks())
	if !snapshot.Valid() {
		out = append(out, Difference{Position: k, Check: stockd.DiscrepancyNegative, Snapshot: snapshot, Detail: "a counter or available is below zero"})
	}
	if snapshot != c.sum {
		out = append(out, Difference{Position: k, Check: stockd.DiscrepancyLedgerSum, Snapshot: snapshot, Expected: c.sum,
			Detail: "snapshot differs from the sum of the ledger's deltas"})
	}
	if c.entries > 0 && snapshot != c.last {
		out = append(out, Difference{Position: k, Check: stockd.DiscrepancyLedgerLast, Snapshot: snapshot, Expected: c.last,
			Detail: "snapshot differs from the counters of the last ledger entry"})
	}
	if snapshot.Reserved != open.Reserved || snapshot.Committed != open.Committed {
		want := snapshot
		want.Reserved, want.Committed = open.Reserved, open.Committed
		out = append(out, Difference{Position: k, Check: stockd.DiscrepancyReservations, Snapshot: snapshot, Expected: want,
			Detail: "reserved or committed differs from the open reservations"})
	}
	return out
}

// OpenHeld adds what one open reservation holds to open, per position:
// reserved for a pending one, committed for a confirmed one. What a
// refund before shipment gave back, or a partial fulfil shipped, is no
// longer held.
func OpenHeld(r stockd.Reservation, open func(stockd.PositionKey) *stockd.Counters) error {
	for _, l := range r.Lines {
		held := l.Unshipped()
		switch r.Status {
		case stockd.StatusPending:
			open(l.Key()).Reserved += held
		case stockd.StatusConfirmed:
			open(l.Key()).Committed += held
		default:
			return fmt.Errorf("reservation %s is %s, not open", r.ID, r.Status)
		}
	}
	return nil
}
