package storetest

// ExceptionsLock, ExceptionsByKey, ExceptionGet, ExceptionList,
// ExceptionOpenCounts, and the unique (kind, reservation_id) behind them.

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

func testExceptions(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	var ids []string
	for range 3 {
		ids = append(ids, h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 1)}}}).Reservation.ID)
	}
	h.Clock.Advance(stockd.ReservationTTLDefault)
	// Paid in the order 2, 0, then 1 without a payment time (its creation).
	paid := []*time.Time{ptrTime(h.Clock.Now().Add(-time.Minute)), nil, ptrTime(h.Clock.Now().Add(-2 * time.Minute))}
	var exc []string
	for i, id := range ids {
		res := h.Do(stockd.Command{Op: &stockd.Transition{Action: stockd.KindConfirm, ReservationID: id, PaymentReference: "pay", PaidAt: paid[i]}})
		if res.Err == nil || res.Err.ExceptionID == "" {
			t.Fatalf("late confirm of %s = %+v, want an exception", id, res.Err)
		}
		exc = append(exc, res.Err.ExceptionID)
	}
	got, err := h.Store.ExceptionGet(ctx, exc[0])
	if err != nil || got.ReservationID != ids[0] || got.Kind != stockd.ExceptionLatePayment || got.PaidAt == nil || !got.PaidAt.Equal(*paid[0]) {
		t.Fatalf("ExceptionGet = %+v, %v", got, err)
	}
	if _, err := h.Store.ExceptionGet(ctx, "nope"); !isNotFound(err) {
		t.Fatalf("ExceptionGet of nope: %v, want not found", err)
	}
	list, err := h.Store.ExceptionList(ctx, store.ExceptionListParams{})
	if err != nil || len(list) != 3 || list[0].ID != exc[2] || list[1].ID != exc[0] || list[2].ID != exc[1] {
		t.Fatalf("ExceptionList = %+v, %v; want %s, %s, %s (handling order)", list, err, exc[2], exc[0], exc[1])
	}
	page, err := h.Store.ExceptionList(ctx, store.ExceptionListParams{After: exc[2], Limit: 1})
	if err != nil || len(page) != 1 || page[0].ID != exc[0] {
		t.Fatalf("ExceptionList after %s = %+v, %v", exc[2], page, err)
	}
	h.MustDo(stockd.Command{Op: &stockd.ExceptionResolve{ID: exc[0], Note: "refunded"}})
	for _, tc := range []struct {
		p    store.ExceptionListParams
		want int
	}{
		{store.ExceptionListParams{Status: stockd.ExceptionOpen}, 2},
		{store.ExceptionListParams{Status: stockd.ExceptionResolved}, 1},
		{store.ExceptionListParams{Kind: stockd.ExceptionGateOversell}, 0},
		{store.ExceptionListParams{Kind: stockd.ExceptionLatePayment, Status: stockd.ExceptionOpen}, 2},
	} {
		if got, err := h.Store.ExceptionList(ctx, tc.p); err != nil || len(got) != tc.want {
			t.Fatalf("ExceptionList(%+v) = %d, %v; want %d", tc.p, len(got), err, tc.want)
		}
	}
	counts, err := h.Store.ExceptionOpenCounts(ctx)
	if err != nil || counts[stockd.ExceptionLatePayment] != 2 || len(counts) != 1 {
		t.Fatalf("ExceptionOpenCounts = %v, %v", counts, err)
	}
	resolved, err := h.Store.ExceptionGet(ctx, exc[0])
	if err != nil || resolved.Status != stockd.ExceptionResolved || resolved.Note != "refunded" || resolved.ResolvedAt == nil {
		t.Fatalf("resolved = %+v, %v", resolved, err)
	}

	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	locked, err := tx.ExceptionsLock(ctx, []string{exc[1], "nope", exc[0]})
	if err != nil || len(locked) != 2 || locked[0].ID > locked[1].ID {
		t.Fatalf("ExceptionsLock = %+v, %v; want two in id order", locked, err)
	}
	byKey, err := tx.ExceptionsByKey(ctx, []stockd.ExceptionKey{
		{Kind: stockd.ExceptionLatePayment, ReservationID: ids[1]}, {Kind: stockd.ExceptionGateOversell, ReservationID: ids[1]},
	})
	tx.Rollback(ctx)
	if err != nil || len(byKey) != 1 || byKey[0].ID != exc[1] {
		t.Fatalf("ExceptionsByKey = %+v, %v; want %s", byKey, err, exc[1])
	}
	// A second exception of the kind for the reservation, as a batch that
	// did not see the first would write it: the database refuses it.
	dup := got
	dup.ID = stockd.ExceptionID(h.Clock.Now(), "dup")
	err = writeRaw(t, h.Store, &stockd.BatchWrites{Exceptions: []stockd.Exception{dup}})
	if !errors.Is(err, store.ErrRetry) {
		t.Fatalf("second late_payment of %s: %v, want a conflict (store.ErrRetry)", ids[0], err)
	}
}

func ptrTime(t time.Time) *time.Time { return &t }

// ExceptionsBackfill checks migration 0013 on a migrated store s: reset
// undoes it (drops the exceptions table and forgets the migration) so
// that a gate oversell document written the way the gate wrote them
// before becomes an exception when Migrate runs again, its document naming
// it back.
func ExceptionsBackfill(t *testing.T, s store.Store, reset func() error) {
	if err := reset(); err != nil {
		t.Fatalf("undo migration 0013: %v", err)
	}
	won := time.Date(2026, 12, 1, 10, 0, 0, 123456000, time.UTC)
	old := stockd.GateException{ReservationID: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", Kind: stockd.GateExceptionOversell, Pool: "flash",
		Key: "k1", CustomerID: "c1", Lines: []stockd.GatePosition{{SKU: "a", Location: "default", Quantity: 2}},
		WonAt: won, Code: stockd.CodeInsufficientStock, Message: "not enough stock", RecordedAt: won.Add(time.Second)}
	body, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	doc := stockd.Document{DocKey: stockd.DocKey{Kind: stockd.DocGateException, ID: old.ReservationID}, Version: 1, Body: body,
		CreatedAt: old.RecordedAt, UpdatedAt: old.RecordedAt}
	if err := writeRaw(t, s, &stockd.BatchWrites{Documents: []stockd.Document{doc}}); err != nil {
		t.Fatalf("write old gate exception: %v", err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate again: %v", err)
	}
	list, err := s.ExceptionList(ctx, store.ExceptionListParams{Kind: stockd.ExceptionGateOversell})
	if err != nil || len(list) != 1 {
		t.Fatalf("gate oversells after the backfill = %+v, %v; want one", list, err)
	}
	e := list[0]
	if e.ReservationID != old.ReservationID || e.Status != stockd.ExceptionOpen || e.Pool != "flash" || e.CustomerID != "c1" ||
		e.WonAt == nil || !e.WonAt.Equal(won) || e.Code != old.Code || e.Message != old.Message || !e.CreatedAt.Equal(old.RecordedAt) ||
		len(e.Lines) != 1 || e.Lines[0] != (stockd.ExceptionLine{SKU: "a", Location: "default", Pool: "flash", Quantity: 2}) {
		t.Fatalf("backfilled exception = %+v", e)
	}
	// The id sorts as the win's time, to the millisecond at least.
	if prefix := stockd.ExceptionID(won.Truncate(time.Millisecond), "")[:15]; e.ID[:15] != prefix {
		t.Fatalf("backfilled id %s, want it to start with %s", e.ID, prefix)
	}
	d, err := s.DocumentGet(ctx, doc.DocKey)
	if err != nil {
		t.Fatal(err)
	}
	var now stockd.GateException
	if err := json.Unmarshal(d.Body, &now); err != nil || now.ExceptionID != e.ID {
		t.Fatalf("gate exception document = %s, %v; want exception_id %s", d.Body, err, e.ID)
	}
	if counts, err := s.ExceptionOpenCounts(ctx); err != nil || counts[stockd.ExceptionGateOversell] != 1 {
		t.Fatalf("ExceptionOpenCounts = %v, %v", counts, err)
	}
}
