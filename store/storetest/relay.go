package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

// testRelayLease: one holder at a time; the cursor starts at 0, moves only
// forward, is written only through a lease that holds, survives the lease,
// and is kept per relay name. LedgerSeqMax follows the ledger.
func testRelayLease(t *testing.T, h *flowtest.Harness) {
	s := h.Store
	if seq, err := s.LedgerSeqMax(ctx); err != nil || seq != 0 {
		t.Fatalf("LedgerSeqMax of an empty ledger = %d, %v; want 0", seq, err)
	}
	h.SKU("a")
	h.Receive("a", "default", 3)
	h.Receive("a", "default", 4)
	// Two receipts, the first with its back-in-stock events.
	entries, err := s.LedgerList(ctx, storeLedger("", 0, 10))
	if err != nil || len(entries) != 4 {
		t.Fatalf("ledger = %d entries, %v; want 4", len(entries), err)
	}
	if seq, err := s.LedgerSeqMax(ctx); err != nil || seq != entries[3].Seq {
		t.Fatalf("LedgerSeqMax = %d, %v; want %d", seq, err, entries[3].Seq)
	}

	lease, err := s.RelayLeaseTry(ctx, "nats")
	if err != nil {
		t.Fatalf("first lease: %v", err)
	}
	if _, err := s.RelayLeaseTry(ctx, "nats"); !errors.Is(err, store.ErrLeaseHeld) {
		t.Fatalf("second lease of one name: %v; want ErrLeaseHeld", err)
	}
	other, err := s.RelayLeaseTry(ctx, "webhooks")
	if err != nil {
		t.Fatalf("lease of another name: %v", err)
	}
	if seq, err := lease.Cursor(ctx); err != nil || seq != 0 {
		t.Fatalf("new cursor = %d, %v; want 0", seq, err)
	}
	now := time.Now()
	for _, seq := range []int64{5, 9, 7} {
		if err := lease.CursorAdvance(ctx, seq, now); err != nil {
			t.Fatalf("advance to %d: %v", seq, err)
		}
	}
	if seq, err := lease.Cursor(ctx); err != nil || seq != 9 {
		t.Fatalf("cursor = %d, %v after 5, 9, 7; want 9 (never back)", seq, err)
	}
	if seq, err := s.RelayCursorGet(ctx, "webhooks"); err != nil || seq != 0 {
		t.Fatalf("other relay's cursor = %d, %v; want 0", seq, err)
	}
	if err := lease.Check(ctx); err != nil {
		t.Fatalf("check of a held lease: %v", err)
	}
	if err := other.Release(ctx); err != nil {
		t.Fatalf("release other: %v", err)
	}

	if err := lease.Release(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	if err := lease.Release(ctx); err != nil {
		t.Fatalf("second release: %v", err)
	}
	if err := lease.CursorAdvance(ctx, 20, now); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("advance through a released lease: %v; want ErrLeaseLost", err)
	}
	if err := lease.Check(ctx); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("check of a released lease: %v; want ErrLeaseLost", err)
	}
	if seq, err := s.RelayCursorGet(ctx, "nats"); err != nil || seq != 9 {
		t.Fatalf("cursor after release = %d, %v; want 9", seq, err)
	}
	next, err := s.RelayLeaseTry(ctx, "nats")
	if err != nil {
		t.Fatalf("lease after release: %v", err)
	}
	defer next.Release(ctx) //nolint:errcheck // the test's end
	if seq, err := next.Cursor(ctx); err != nil || seq != 9 {
		t.Fatalf("next holder's cursor = %d, %v; want 9", seq, err)
	}
}
