package storetest

// ReconcileCursor, ReconcileRecord, DiscrepancyGet, DiscrepancyList,
// DiscrepancyOpenCounts, and the AuditReader reads of the minute pass.

import (
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

// testReconcileRecord: a finding opens a discrepancy, the same finding in
// a later run refreshes it, and a run whose scope covers it without
// finding it closes it; what lies outside a scope stays open. The cursor
// only moves forward.
func testReconcileRecord(t *testing.T, h *flowtest.Harness) {
	if seq, err := h.Store.ReconcileCursor(ctx, stockd.PassMinute); err != nil || seq != 0 {
		t.Fatalf("cursor of a new store = %d, %v; want 0", seq, err)
	}
	a := stockd.PositionKey{SKU: "A", Location: "default", Pool: "normal"}
	b := stockd.PositionKey{SKU: "B", Location: "default", Pool: "normal"}
	drift := stockd.Finding{Kind: stockd.DiscrepancyLedgerLast, Position: a,
		Expected: stockd.Counters{OnHand: 10}, Actual: stockd.Counters{OnHand: 15}, Evidence: "entry 3"}
	other := stockd.Finding{Kind: stockd.DiscrepancyNegative, Position: b, Actual: stockd.Counters{OnHand: -1}}
	start := h.Clock.Now()
	record := func(run stockd.ReconcileRun, scopes []store.ReconcileScope, findings ...stockd.Finding) stockd.ReconcileRun {
		t.Helper()
		got, err := h.Store.ReconcileRecord(ctx, store.ReconcileRecordParams{Run: run, Findings: findings, Scopes: scopes})
		if err != nil {
			t.Fatalf("ReconcileRecord: %v", err)
		}
		return got
	}
	minute := func(at time.Time, to int64) stockd.ReconcileRun {
		return stockd.ReconcileRun{Pass: stockd.PassMinute, StartedAt: at, FinishedAt: at.Add(time.Millisecond), CursorTo: to, PositionsChecked: 2}
	}
	scope := []store.ReconcileScope{{Kinds: []string{stockd.DiscrepancyLedgerLast, stockd.DiscrepancyNegative}, Positions: []stockd.PositionKey{a, b}}}

	first := record(minute(start, 7), scope, drift, other)
	if first.ID == 0 || first.Opened != 2 || first.Closed != 0 || first.Findings != 2 {
		t.Fatalf("first run = %+v, want an id, 2 opened", first)
	}
	if seq, err := h.Store.ReconcileCursor(ctx, stockd.PassMinute); err != nil || seq != 7 {
		t.Fatalf("cursor = %d, %v; want 7", seq, err)
	}
	open, err := h.Store.DiscrepancyList(ctx, store.DiscrepancyListParams{Status: stockd.DiscrepancyOpen})
	if err != nil || len(open) != 2 {
		t.Fatalf("open discrepancies = %+v, %v; want 2", open, err)
	}
	d := open[0]
	if d.Kind != drift.Kind || d.Position != a || d.Expected != drift.Expected || d.Actual != drift.Actual ||
		d.Evidence != "entry 3" || d.FirstRun != first.ID || !d.FirstSeen.Equal(first.FinishedAt) || d.ClosedAt != nil {
		t.Fatalf("discrepancy = %+v, want the drift as found by run %d", d, first.ID)
	}

	// Seen again: refreshed, not doubled. B is no longer seen but lies in
	// the scope: closed. A cursor behind the stored one does not move it.
	drift.Actual.OnHand = 16
	second := record(minute(start.Add(time.Minute), 5), scope, drift)
	if second.Opened != 0 || second.Closed != 1 {
		t.Fatalf("second run = %+v, want 0 opened and 1 closed", second)
	}
	if seq, err := h.Store.ReconcileCursor(ctx, stockd.PassMinute); err != nil || seq != 7 {
		t.Fatalf("cursor = %d, %v; want 7 still", seq, err)
	}
	got, err := h.Store.DiscrepancyGet(ctx, d.ID)
	if err != nil || got.Status != stockd.DiscrepancyOpen || got.Actual.OnHand != 16 || got.LastRun != second.ID ||
		!got.FirstSeen.Equal(d.FirstSeen) || !got.LastSeen.Equal(second.FinishedAt) {
		t.Fatalf("refreshed discrepancy = %+v, %v; want actual 16, last seen by run %d", got, err, second.ID)
	}
	closed, err := h.Store.DiscrepancyGet(ctx, open[1].ID)
	if err != nil || closed.Status != stockd.DiscrepancyClosed || closed.ClosedAt == nil || closed.ClosedByRun != second.ID {
		t.Fatalf("unseen discrepancy = %+v, %v; want closed by run %d", closed, err, second.ID)
	}

	// A run that checked other kinds, or other positions, closes nothing.
	record(minute(start.Add(2*time.Minute), 0), []store.ReconcileScope{
		{Kinds: []string{stockd.DiscrepancyReservations}, All: true},
		{Kinds: []string{stockd.DiscrepancyLedgerLast}, Positions: []stockd.PositionKey{b}},
	})
	if got, err := h.Store.DiscrepancyGet(ctx, d.ID); err != nil || got.Status != stockd.DiscrepancyOpen {
		t.Fatalf("discrepancy outside the scope = %+v, %v; want open", got, err)
	}
	counts, err := h.Store.DiscrepancyOpenCounts(ctx)
	if err != nil || len(counts) != 1 || counts[stockd.DiscrepancyLedgerLast] != 1 {
		t.Fatalf("open counts = %v, %v; want ledger_last 1", counts, err)
	}
	// Closed everywhere by a full pass; seen again later, it is a new one.
	third := record(minute(start.Add(3*time.Minute), 0), []store.ReconcileScope{{Kinds: []string{stockd.DiscrepancyLedgerLast}, All: true}})
	if third.Closed != 1 {
		t.Fatalf("full run closed %d, want 1", third.Closed)
	}
	if again := record(minute(start.Add(4*time.Minute), 0), nil, drift); again.Opened != 1 {
		t.Fatalf("a finding seen after its discrepancy closed opened %d, want a new one", again.Opened)
	}

	// Filters and paging.
	for _, tc := range []struct {
		p    store.DiscrepancyListParams
		want int
	}{
		{store.DiscrepancyListParams{}, 3},
		{store.DiscrepancyListParams{Status: stockd.DiscrepancyClosed}, 2},
		{store.DiscrepancyListParams{Kind: stockd.DiscrepancyNegative}, 1},
		{store.DiscrepancyListParams{SKU: "A"}, 2},
		{store.DiscrepancyListParams{SKU: "A", Status: stockd.DiscrepancyOpen}, 1},
		{store.DiscrepancyListParams{After: d.ID, Limit: 1}, 1},
		{store.DiscrepancyListParams{SKU: "C"}, 0},
		// What a run opened or closed (the reconciler's notices).
		{store.DiscrepancyListParams{Run: first.ID}, 2},
		{store.DiscrepancyListParams{Run: second.ID}, 1},
		{store.DiscrepancyListParams{Run: third.ID}, 1},
		{store.DiscrepancyListParams{Run: third.ID, Status: stockd.DiscrepancyOpen}, 0},
	} {
		got, err := h.Store.DiscrepancyList(ctx, tc.p)
		if err != nil || len(got) != tc.want {
			t.Errorf("DiscrepancyList(%+v) = %d, %v; want %d", tc.p, len(got), err, tc.want)
		}
	}
	if _, err := h.Store.DiscrepancyGet(ctx, 999); !isNotFound(err) {
		t.Fatalf("DiscrepancyGet of an unknown id: %v, want not found", err)
	}
}

// testReconcileReads: the minute pass's snapshot reads.
func testReconcileReads(t *testing.T, h *flowtest.Harness) {
	h.SKU("A")
	h.Receive("A", "default", 5)
	h.Receive("A", "default", 3)
	k := stockd.PositionKey{SKU: "A", Location: "default", Pool: stockd.PoolDefault}
	err := h.Store.AuditRead(ctx, func(r store.AuditReader) error {
		// The first receipt, its two back-in-stock events (position and
		// pool), the second receipt.
		var seqs []int64
		if err := r.LedgerEachAfter(ctx, 0, 10, func(e stockd.LedgerEntry) error {
			seqs = append(seqs, e.Seq)
			return nil
		}); err != nil || len(seqs) != 4 {
			t.Fatalf("LedgerEachAfter(0) = %v, %v; want 4 entries", seqs, err)
		}
		var after []int64
		if err := r.LedgerEachAfter(ctx, seqs[2], 10, func(e stockd.LedgerEntry) error {
			after = append(after, e.Seq)
			return nil
		}); err != nil || len(after) != 1 || after[0] != seqs[3] {
			t.Fatalf("LedgerEachAfter(%d) = %v, %v; want [%d]", seqs[2], after, err, seqs[3])
		}
		last, ok, err := r.LedgerLast(ctx, k, 1<<62)
		if err != nil || !ok || last.Seq != seqs[3] || last.After.OnHand != 8 {
			t.Fatalf("LedgerLast = %+v, %v, %v; want entry %d with on_hand 8", last, ok, err, seqs[3])
		}
		// Events are passed over: the last entry at or before them is the
		// receipt they followed.
		if prev, ok, err := r.LedgerLast(ctx, k, seqs[2]); err != nil || !ok || prev.Seq != seqs[0] {
			t.Fatalf("LedgerLast at %d = %+v, %v, %v; want entry %d", seqs[2], prev, ok, err, seqs[0])
		}
		if _, ok, err := r.LedgerLast(ctx, k, 0); err != nil || ok {
			t.Fatalf("LedgerLast at 0 = %v, %v; want none", ok, err)
		}
		p, ok, err := r.PositionGet(ctx, k)
		if err != nil || !ok || p.OnHand != 8 {
			t.Fatalf("PositionGet = %+v, %v, %v; want on_hand 8", p, ok, err)
		}
		if _, ok, err := r.PositionGet(ctx, stockd.PositionKey{SKU: "B", Location: "default", Pool: stockd.PoolDefault}); err != nil || ok {
			t.Fatalf("PositionGet of a missing position = %v, %v; want none", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testLedgerLastAsOf: the position's counters as of a time are those of
// its last entry created at or before it.
func testLedgerLastAsOf(t *testing.T, h *flowtest.Harness) {
	h.SKU("A")
	k := stockd.PositionKey{SKU: "A", Location: "default", Pool: stockd.PoolDefault}
	first := h.Clock.Now()
	h.Receive("A", "default", 5)
	h.Clock.Advance(time.Hour)
	h.Receive("A", "default", 3)
	for _, tc := range []struct {
		at     time.Time
		ok     bool
		onHand int64
	}{
		{first.Add(-time.Second), false, 0},
		{first, true, 5},
		{first.Add(30 * time.Minute), true, 5},
		{first.Add(time.Hour), true, 8},
		{first.Add(48 * time.Hour), true, 8},
	} {
		e, ok, err := h.Store.LedgerLastAsOf(ctx, k, tc.at)
		if err != nil || ok != tc.ok || e.After.OnHand != tc.onHand {
			t.Errorf("LedgerLastAsOf(%s) = on_hand %d, %v, %v; want %d, %v", tc.at, e.After.OnHand, ok, err, tc.onHand, tc.ok)
		}
	}
}
