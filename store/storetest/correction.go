package storetest

// DiscrepanciesLock: what a batch deciding a correction reads of the
// discrepancy it answers.

import (
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

// testDiscrepanciesLock: a batch reads the discrepancies it names, in id
// order, as recorded; unknown ids are left out and none named reads none.
func testDiscrepanciesLock(t *testing.T, h *flowtest.Harness) {
	a := stockd.PositionKey{SKU: "A", Location: "default", Pool: "normal"}
	at := h.Clock.Now()
	_, err := h.Store.ReconcileRecord(ctx, store.ReconcileRecordParams{
		Run: stockd.ReconcileRun{Pass: stockd.PassMinute, StartedAt: at, FinishedAt: at.Add(time.Millisecond)},
		Findings: []stockd.Finding{
			{Kind: stockd.DiscrepancyReservations, Position: a, Expected: stockd.Counters{OnHand: 10, Reserved: 4},
				Actual: stockd.Counters{OnHand: 10, Reserved: 7}, Evidence: "reserved differs"},
			{Kind: stockd.DiscrepancyLedgerLast, Position: a, Expected: stockd.Counters{OnHand: 10, Reserved: 4},
				Actual: stockd.Counters{OnHand: 10, Reserved: 7}},
		},
	})
	if err != nil {
		t.Fatalf("ReconcileRecord: %v", err)
	}
	open, err := h.Store.DiscrepancyList(ctx, store.DiscrepancyListParams{Status: stockd.DiscrepancyOpen})
	if err != nil || len(open) != 2 {
		t.Fatalf("open discrepancies = %+v, %v; want 2", open, err)
	}

	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a read-only transaction
	none, err := tx.DiscrepanciesLock(ctx, nil)
	if err != nil || len(none) != 0 {
		t.Fatalf("DiscrepanciesLock of none = %+v, %v; want none", none, err)
	}
	locked, err := tx.DiscrepanciesLock(ctx, []int64{open[0].ID, open[1].ID, open[1].ID + 1000})
	if err != nil || len(locked) != 2 || locked[0].ID != open[0].ID || locked[1].ID != open[1].ID {
		t.Fatalf("DiscrepanciesLock = %+v, %v; want %d and %d in id order", locked, err, open[0].ID, open[1].ID)
	}
	if d := locked[0]; d.Kind != open[0].Kind || d.Position != a || d.Expected != open[0].Expected || d.Actual != open[0].Actual ||
		d.Status != stockd.DiscrepancyOpen || d.Evidence != open[0].Evidence || !d.LastSeen.Equal(open[0].LastSeen) {
		t.Fatalf("locked discrepancy = %+v, want %+v", d, open[0])
	}
}
