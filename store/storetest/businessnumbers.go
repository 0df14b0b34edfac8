package storetest

// ReservationsByOrder, ReferencesGet, and the unique indexes behind them:
// a write that skipped the engine's decision (as a naive check-then-act
// would make it, two batches each seeing no holder) is refused by the
// database, as a conflict the engine retries.

import (
	"errors"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

// writeRaw writes w in a transaction of its own, as a batch whose reads
// saw none of what w collides with.
func writeRaw(t *testing.T, s store.Store, w *stockd.BatchWrites) error {
	t.Helper()
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if err := tx.Write(ctx, w); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func testOrderIDUnique(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	held := h.MustDo(stockd.Command{Op: &stockd.Reserve{OrderID: "SO-1", Lines: []stockd.LineRequest{line("a", 1)}}}).Reservation
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tx.ReservationsByOrder(ctx, []string{"SO-1", "SO-none"})
	tx.Rollback(ctx)
	if err != nil || len(got) != 1 || got[0].ID != held.ID || got[0].OrderID != "SO-1" {
		t.Fatalf("ReservationsByOrder = %+v, %v; want %s", got, err, held.ID)
	}
	dup := *held
	dup.ID, dup.Key = "dup", ""
	err = writeRaw(t, h.Store, &stockd.BatchWrites{ReservationsNew: []stockd.Reservation{dup}})
	if !errors.Is(err, store.ErrRetry) || !errors.Is(err, store.ErrUniqueKey) {
		t.Fatalf("second reservation holding order SO-1: %v, want a conflict (store.ErrRetry, store.ErrUniqueKey)", err)
	}
	// Released in the same write, before the insert: the order is free.
	released := *held
	released.Status = stockd.StatusReleased
	if err := writeRaw(t, h.Store, &stockd.BatchWrites{
		ReservationsUpdated: []stockd.Reservation{released}, ReservationsNew: []stockd.Reservation{dup},
	}); err != nil {
		t.Fatalf("reservation for an order freed in the same write: %v", err)
	}
	tx, err = h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if got, err := tx.ReservationsByOrder(ctx, []string{"SO-1"}); err != nil || len(got) != 1 || got[0].ID != "dup" {
		t.Fatalf("ReservationsByOrder after release = %+v, %v; want only dup", got, err)
	}
}

func testReferenceKeyUnique(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.MustDo(stockd.Command{Op: &stockd.Receive{Position: stockd.PositionKey{SKU: "a"}, Quantity: 1, Reference: "PO-777"}})
	key := stockd.ReferenceKey{BusinessType: stockd.BusinessReceipt, Reference: "PO-777", SKU: "a"}
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := stockd.ReferenceKey{BusinessType: stockd.BusinessAdjustment, Reference: "PO-777", SKU: "a"}
	got, err := tx.ReferencesGet(ctx, []stockd.ReferenceKey{key, other})
	tx.Rollback(ctx)
	if err != nil || len(got) != 1 || got[0].ReferenceKey != key || got[0].BusinessID == "" || got[0].CreatedAt.IsZero() {
		t.Fatalf("ReferencesGet = %+v, %v; want the receipt's", got, err)
	}
	err = writeRaw(t, h.Store, &stockd.BatchWrites{References: []stockd.BusinessReference{{ReferenceKey: key, BusinessID: "again", CreatedAt: h.Clock.Now()}}})
	if !errors.Is(err, store.ErrRetry) || !errors.Is(err, store.ErrUniqueKey) {
		t.Fatalf("second receipt of PO-777 for a: %v, want a conflict (store.ErrRetry, store.ErrUniqueKey)", err)
	}
	if err := writeRaw(t, h.Store, &stockd.BatchWrites{References: []stockd.BusinessReference{{ReferenceKey: other, BusinessID: "count", CreatedAt: h.Clock.Now()}}}); err != nil {
		t.Fatalf("the same number for another business type: %v", err)
	}
}
