package storetest

// LedgerList and the ledger entries Tx.Write appends.

import (
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
)

func testLedgerList(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.SKU("b")
	for range 3 {
		h.Receive("a", "default", 1)
		h.Receive("b", "default", 1)
	}
	all, err := h.Store.LedgerList(ctx, storeLedger("", 0, 100))
	if err != nil || len(all) != 6 {
		t.Fatalf("ledger = %d entries, %v; want 6", len(all), err)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Fatalf("seq not increasing: %d then %d", all[i-1].Seq, all[i].Seq)
		}
	}
	page, err := h.Store.LedgerList(ctx, storeLedger("b", all[1].Seq, 1))
	if err != nil || len(page) != 1 || page[0].Position.SKU != "b" || page[0].Seq <= all[1].Seq {
		t.Fatalf("page = %+v, %v", page, err)
	}
	e := all[0]
	if e.BusinessType != stockd.BusinessReceipt || e.Delta.OnHand != 1 || e.After.OnHand != 1 || e.BusinessID == "" || e.CreatedAt.IsZero() {
		t.Fatalf("entry = %+v", e)
	}
}

func testLedgerUnique(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.Receive("a", "default", 1)
	entries, err := h.Store.LedgerList(ctx, storeLedger("a", 0, 10))
	if err != nil || len(entries) != 1 {
		t.Fatalf("ledger = %v, %v", entries, err)
	}
	dup := entries[0]
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if err := tx.Write(ctx, &stockd.BatchWrites{Ledger: []stockd.LedgerEntry{dup}}); err == nil {
		if err := tx.Commit(ctx); err == nil {
			t.Fatal("a second ledger entry for the same business event was accepted")
		}
	}
}
