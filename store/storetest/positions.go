package storetest

// Tx.PositionsEnsure, Tx.PositionsLock, Tx.BatchRowsRead, the positions Tx.Write stores, and
// PositionListBySKUs.

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

func testEnsureSkipsUnknown(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.MustDo(stockd.Command{Op: &stockd.PoolCreate{Pool: stockd.Pool{ID: "web", Kind: stockd.PoolChannel}}})
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	keys := []stockd.PositionKey{
		{SKU: "a", Location: "default", Pool: "normal"},
		{SKU: "a", Location: "default", Pool: "web"},
		{SKU: "a", Location: "default", Pool: "never-created"},
		{SKU: "a", Location: "nowhere", Pool: "normal"},
		{SKU: "zz", Location: "default", Pool: "normal"},
	}
	if err := tx.PositionsEnsure(ctx, keys); err != nil {
		t.Fatalf("ensure: %v", err)
	}
	ps, err := tx.PositionsLock(ctx, []string{"a", "zz"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].PositionKey != keys[0] || ps[1].PositionKey != keys[1] ||
		ps[0].Counters != (stockd.Counters{}) || ps[1].Counters != (stockd.Counters{}) {
		t.Fatalf("positions = %+v, want only a/default/normal and a/default/web at zero", ps)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// testConstraintsAreLastLine writes negative counters straight through the
// seam, as a buggy decision would: the database must refuse.
func testConstraintsAreLastLine(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.Receive("a", "default", 1)
	key := stockd.PositionKey{SKU: "a", Location: "default", Pool: stockd.PoolDefault}
	for _, bad := range []stockd.Counters{
		{OnHand: 1, Reserved: 2},
		{OnHand: -1},
		{OnHand: 1, Committed: -1},
		{OnHand: 1, Quarantined: 1, Reserved: 1},
	} {
		tx, err := h.Store.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		werr := tx.Write(ctx, &stockd.BatchWrites{Positions: []stockd.Position{{PositionKey: key, Counters: bad}}})
		if werr == nil {
			werr = tx.Commit(ctx)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if werr == nil {
			t.Fatalf("writing %+v succeeded, want a constraint violation", bad)
		}
		if !errors.Is(werr, store.ErrRejected) {
			t.Fatalf("writing %+v: %v, want store.ErrRejected, which the engine isolates", bad, werr)
		}
	}
	if c := h.Counters("a", "default"); c != (stockd.Counters{OnHand: 1}) {
		t.Fatalf("counters = %+v after refused writes", c)
	}
}

func testPositionListBySKUs(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.SKU("b")
	h.SKU("c")
	h.Location("near", 1)
	h.Location("far", 9)
	h.Receive("b", "far", 1)
	h.Receive("b", "near", 2)
	h.Receive("a", "far", 3)
	h.Receive("c", "far", 4)
	got, err := h.Store.PositionListBySKUs(ctx, []string{"b", "a", "ghost"})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range got {
		order = append(order, p.SKU+"@"+p.Location)
	}
	if want := []string{"a@far", "b@near", "b@far"}; !slices.Equal(order, want) {
		t.Fatalf("positions = %v, want %v (by SKU, then location priority)", order, want)
	}
	if got[1].OnHand != 2 || got[1].Priority != 1 {
		t.Fatalf("b@near = %+v", got[1])
	}
	if none, err := h.Store.PositionListBySKUs(ctx, nil); err != nil || len(none) != 0 {
		t.Fatalf("no skus: %v, %v", none, err)
	}
}

// testBatchRowsRead: the last round of a batch's reads, however the backend
// sends it, answers what the reads one at a time answer, creates the
// positions to ensure, and leaves out the reads it has no input for.
func testBatchRowsRead(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.Location("east", 1)
	h.Receive("a", "default", 10)
	held := h.MustDo(stockd.Command{Op: &stockd.Reserve{OrderID: "SO-1", Lines: []stockd.LineRequest{line("a", 1)}}}).Reservation
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	touches := stockd.Touches{
		Ensure: []stockd.PositionKey{
			{SKU: "a", Location: "default", Pool: stockd.PoolDefault},
			{SKU: "a", Location: "east", Pool: stockd.PoolDefault},
			{SKU: "zz", Location: "default", Pool: stockd.PoolDefault},
		},
		SKUs:          []string{"a", "zz"},
		Keys:          []string{"key-1", "key-none"},
		Orders:        []string{"SO-1", "SO-none"},
		References:    []stockd.ReferenceKey{{BusinessType: stockd.BusinessReceipt, Reference: "none", SKU: "a"}},
		ExceptionKeys: []stockd.ExceptionKey{{Kind: stockd.ExceptionLatePayment, ReservationID: held.ID}},
	}
	got, err := tx.BatchRowsRead(ctx, &touches)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Positions) != 2 || got.Positions[1].Location != "east" || got.Positions[1].Counters != (stockd.Counters{}) {
		t.Errorf("positions = %+v, want a/default and a/east created at zero", got.Positions)
	}
	if len(got.SKUs) != 1 || len(got.Locations) != 2 || len(got.Records) != 1 || got.Records[0].Key != "key-1" ||
		len(got.Holders) != 1 || got.Holders[0].ID != held.ID || len(got.References) != 0 || len(got.Exceptions) != 0 {
		t.Errorf("rows = %+v, want SKU a, 2 locations, record key-1, holder %s, no reference, no exception", got, held.ID)
	}
	want, err := stockd.ReadBatchRowsInTurn(ctx, tx, &touches)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BatchRowsRead = %+v\none at a time = %+v", got, want)
	}
	empty, err := tx.BatchRowsRead(ctx, &stockd.Touches{})
	if err != nil {
		t.Fatal(err)
	}
	if len(empty.Locations) != 2 || empty.Positions != nil || empty.SKUs != nil || empty.Records != nil || empty.Holders != nil {
		t.Errorf("rows of no touches = %+v, want only the locations", empty)
	}
}
