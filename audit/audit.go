// Package audit checks the books without changing them: every position is
// recomputed from the ledger and from the open reservations and compared
// with the snapshot, and in_transit and incoming are recomputed from the
// open transfers and purchase orders. It reports; it never fixes.
package audit

import (
	"context"
	"encoding/json"
	"fmt"
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
	ledger     stockd.Counters // sum of deltas
	last       stockd.Counters // counters after the last entry
	entries    int64
	open       stockd.Counters // reserved and committed from open reservations
	inbound    stockd.Counters // in_transit and incoming from open transfers and orders
}

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
		b := get(e.Position)
		if want := b.last.Add(e.Delta); want != e.After {
			rep.add(Difference{Position: e.Position, Check: "ledger_chain", Snapshot: e.After, Expected: want,
				Detail: fmt.Sprintf("entry %d: counters are not the previous entry's plus its delta", e.Seq)})
		}
		b.ledger = b.ledger.Add(e.Delta)
		b.last = e.After
		b.entries++
		rep.LedgerEntries++
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("read ledger: %w", err)
	}
	err = s.ReservationOpenEach(ctx, func(r stockd.Reservation) error {
		rep.OpenReservations++
		for _, l := range r.Lines {
			b := get(l.Key())
			// What a refund before shipment gave back is no longer held.
			held := l.Quantity - l.Refunded
			switch r.Status {
			case stockd.StatusPending:
				b.open.Reserved += held
			case stockd.StatusConfirmed:
				b.open.Committed += held
			default:
				return fmt.Errorf("reservation %s is %s, not open", r.ID, r.Status)
			}
		}
		return nil
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
		rep.add(Difference{Position: k, Check: "missing_position", Expected: b.ledger,
			Detail: "the ledger or a reservation names a position the snapshot lacks"})
		return
	}
	if !b.snapshot.Valid() {
		rep.add(Difference{Position: k, Check: "negative", Snapshot: b.snapshot, Detail: "a counter or available is below zero"})
	}
	if b.snapshot != b.ledger {
		rep.add(Difference{Position: k, Check: "ledger_sum", Snapshot: b.snapshot, Expected: b.ledger,
			Detail: "snapshot differs from the sum of the ledger's deltas"})
	}
	if b.entries > 0 && b.snapshot != b.last {
		rep.add(Difference{Position: k, Check: "ledger_last", Snapshot: b.snapshot, Expected: b.last,
			Detail: "snapshot differs from the counters of the last ledger entry"})
	}
	if b.snapshot.Reserved != b.open.Reserved || b.snapshot.Committed != b.open.Committed {
		want := b.snapshot
		want.Reserved, want.Committed = b.open.Reserved, b.open.Committed
		rep.add(Difference{Position: k, Check: "reservations", Snapshot: b.snapshot, Expected: want,
			Detail: "reserved or committed differs from the open reservations"})
	}
	if b.snapshot.InTransit != b.inbound.InTransit || b.snapshot.Incoming != b.inbound.Incoming {
		want := b.snapshot
		want.InTransit, want.Incoming = b.inbound.InTransit, b.inbound.Incoming
		rep.add(Difference{Position: k, Check: "inbound", Snapshot: b.snapshot, Expected: want,
			Detail: "in_transit or incoming differs from the open transfers and purchase orders"})
	}
}
