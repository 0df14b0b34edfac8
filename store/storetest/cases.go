package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/store"
)

var ctx = context.Background()

func line(sku string, q int64) stockd.LineRequest { return stockd.LineRequest{SKU: sku, Quantity: q} }

func testCatalogue(t *testing.T, h *Harness) {
	h.SKU("apple")
	got, err := h.Store.SKUGet(ctx, "apple")
	if err != nil || got.ID != "apple" || got.Unit != "piece" {
		t.Fatalf("SKUGet = %+v, %v; want apple in pieces", got, err)
	}
	if _, err := h.Store.SKUGet(ctx, "pear"); !isNotFound(err) {
		t.Fatalf("SKUGet(unknown) error = %v, want ErrNotFound", err)
	}
	WantCode(t, h.Do(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: "apple"}}}), stockd.CodeAlreadyExists)
	h.Location("w2", 5)
	h.Location("w1", 5)
	locs, err := h.Store.LocationList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) != 3 || locs[0].ID != "default" {
		t.Fatalf("locations = %+v, want default, w1, w2", locs)
	}
}

func testReceivePositions(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Location("far", 9)
	h.Location("near", 1)
	h.Receive("a", "far", 5)
	h.Receive("a", "near", 2)
	h.Receive("a", "near", 3)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.Receive{
		Position: stockd.PositionKey{SKU: "ghost"}, Quantity: 1}}), stockd.CodeUnknownSKU)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.Receive{
		Position: stockd.PositionKey{SKU: "a", Location: "nowhere"}, Quantity: 1}}), stockd.CodeUnknownLocation)
	ps, err := h.Store.PositionListBySKU(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Location != "near" || ps[0].OnHand != 5 || ps[1].Location != "far" || ps[1].OnHand != 5 {
		t.Fatalf("positions = %+v, want near(5) then far(5)", ps)
	}
	// A 6-unit line fits nowhere whole; a 4-unit line goes to near first.
	WantCode(t, h.Reserve(line("a", 6)), stockd.CodeInsufficientStock)
	res := h.Reserve(line("a", 4))
	if res.Err != nil || res.Reservation.Lines[0].Location != "near" {
		t.Fatalf("reserve = %+v, want placed at near", res)
	}
	h.Verify()
}

func testReservationLifecycle(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	r1 := h.Reserve(line("a", 3)).Reservation
	r2 := h.Reserve(line("a", 2)).Reservation
	r3 := h.Reserve(line("a", 1)).Reservation
	if c := h.Counters("a", "default"); c.Reserved != 6 || c.Available() != 4 {
		t.Fatalf("after reserving: %+v", c)
	}
	if got := h.Transition(stockd.KindConfirm, r1.ID).Reservation; got.Status != stockd.StatusConfirmed {
		t.Fatalf("confirm: %+v", got)
	}
	if got := h.Transition(stockd.KindConfirm, r1.ID); got.Err != nil || got.Reservation.Status != stockd.StatusConfirmed {
		t.Fatalf("confirm again: %+v, want unchanged", got)
	}
	WantCode(t, h.Transition(stockd.KindRelease, r1.ID), stockd.CodeInvalidTransition)
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: r2.ID, Reason: stockd.ReleasePaymentFailed}})
	if got := h.Transition(stockd.KindRelease, r2.ID); got.Err != nil || got.Reservation.Status != stockd.StatusReleased {
		t.Fatalf("release again: %+v, want unchanged", got)
	}
	WantCode(t, h.Transition(stockd.KindConfirm, r2.ID), stockd.CodeInvalidTransition)
	if got := h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindFulfil, ReservationID: r1.ID}}); got.Reservation.Status != stockd.StatusFulfilled {
		t.Fatalf("fulfil: %+v", got)
	}
	WantCode(t, h.Transition(stockd.KindFulfil, r3.ID), stockd.CodeInvalidTransition)
	WantCode(t, h.Transition(stockd.KindConfirm, "no-such-id"), stockd.CodeNotFound)
	h.Clock.Advance(stockd.ReservationTTLDefault)
	res := h.Transition(stockd.KindConfirm, r3.ID)
	WantCode(t, res, stockd.CodeReservationExpired)
	if res.Err.Status != stockd.StatusExpired {
		t.Fatalf("expired confirm status = %s", res.Err.Status)
	}
	if c := h.Counters("a", "default"); c != (stockd.Counters{OnHand: 7}) {
		t.Fatalf("final counters = %+v, want 7 on hand and nothing held", c)
	}
	stored, err := h.Store.ReservationGet(ctx, r2.ID)
	if err != nil || stored.Status != stockd.StatusReleased || stored.ReleaseReason != stockd.ReleasePaymentFailed {
		t.Fatalf("ReservationGet = %+v, %v", stored, err)
	}
	byKey, err := h.Store.ReservationGetByKey(ctx, r1.Key)
	if err != nil || byKey.ID != r1.ID || byKey.Status != stockd.StatusFulfilled {
		t.Fatalf("ReservationGetByKey = %+v, %v", byKey, err)
	}
	if _, err := h.Store.ReservationGetByKey(ctx, "unknown"); !isNotFound(err) {
		t.Fatalf("ReservationGetByKey(unknown) = %v, want ErrNotFound", err)
	}
	h.Verify()
}

func testReservationListDue(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	short := h.Do(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 1)}, TTL: time.Minute}}).Reservation
	long := h.Do(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 1)}, TTL: time.Hour}}).Reservation
	confirmed := h.Do(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 1)}, TTL: time.Second, Commit: true}}).Reservation
	if confirmed.Status != stockd.StatusConfirmed {
		t.Fatalf("commit reserve status = %s", confirmed.Status)
	}
	ids, err := h.Store.ReservationListDue(ctx, h.Clock.Now().Add(2*time.Minute), 10)
	if err != nil || len(ids) != 1 || ids[0] != short.ID {
		t.Fatalf("due = %v, %v; want only %s", ids, err, short.ID)
	}
	ids, err = h.Store.ReservationListDue(ctx, h.Clock.Now().Add(2*time.Hour), 1)
	if err != nil || len(ids) != 1 || ids[0] != short.ID {
		t.Fatalf("due (limit 1) = %v, %v; want the oldest deadline first", ids, err)
	}
	h.Clock.Advance(2 * time.Hour)
	for _, id := range []string{short.ID, long.ID} {
		if got := h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindExpire, ReservationID: id}}).Reservation; got.Status != stockd.StatusExpired {
			t.Fatalf("expire %s: %s", id, got.Status)
		}
	}
	if ids, _ := h.Store.ReservationListDue(ctx, h.Clock.Now(), 10); len(ids) != 0 {
		t.Fatalf("due after expiry = %v", ids)
	}
	if c := h.Counters("a", "default"); c != (stockd.Counters{OnHand: 10, Committed: 1}) {
		t.Fatalf("counters = %+v", c)
	}
	h.Verify()
}

func testLedgerList(t *testing.T, h *Harness) {
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

func testIdempotencySurvivesRestart(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 5)
	cmd := stockd.Command{IdempotencyKey: "order-1", RequestHash: "h1",
		Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 2)}}}
	first := h.MustDo(cmd)
	other := engine.New(engine.Config{Store: h.Store, Now: h.Clock.Now})
	defer other.Close()
	again, err := other.Submit(ctx, cmd)
	if err != nil || !again.Replayed || again.Reservation.ID != first.Reservation.ID {
		t.Fatalf("replay = %+v, %v; want the first answer", again, err)
	}
	cmd.RequestHash = "h2"
	reused, err := other.Submit(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	WantCode(t, reused, stockd.CodeIdempotencyKeyReused)
	if c := h.Counters("a", "default"); c.Reserved != 2 {
		t.Fatalf("reserved = %d, want 2", c.Reserved)
	}
}

// testConstraintsAreLastLine writes negative counters straight through the
// seam, as a buggy decision would: the database must refuse.
func testConstraintsAreLastLine(t *testing.T, h *Harness) {
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

func testLedgerUnique(t *testing.T, h *Harness) {
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

func testEnsureSkipsUnknown(t *testing.T, h *Harness) {
	h.SKU("a")
	h.MustDo(poolCommand("web", nil, nil))
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

func testTimesRoundTrip(t *testing.T, h *Harness) {
	h.Clock.now = time.Date(2026, 12, 2, 12, 0, 0, 123456789, time.UTC)
	h.SKU("a")
	h.Receive("a", "default", 1)
	r := h.Reserve(line("a", 1)).Reservation
	got, err := h.Store.ReservationGet(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.ExpiresAt.Equal(r.ExpiresAt) || !got.CreatedAt.Equal(r.CreatedAt) || got.ExpiresAt.Location() != time.UTC {
		t.Fatalf("stored times %v/%v, answered %v/%v", got.CreatedAt, got.ExpiresAt, r.CreatedAt, r.ExpiresAt)
	}
}

func testMigrateIdempotent(t *testing.T, h *Harness) {
	for range 2 {
		if err := h.Store.Migrate(ctx); err != nil {
			t.Fatalf("migrate again: %v", err)
		}
	}
	h.SKU("a")
}

// testVerifyReports writes a counter change with no ledger entry and no
// reservation, as a lost update would: verify must report it, twice the
// same, and change nothing.
func testVerifyReports(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 5)
	h.Reserve(line("a", 2))
	h.Verify()
	key := stockd.PositionKey{SKU: "a", Location: "default", Pool: stockd.PoolDefault}
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Write(ctx, &stockd.BatchWrites{Positions: []stockd.Position{{PositionKey: key, Counters: stockd.Counters{OnHand: 5, Reserved: 3}}}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var checks []string
	for range 2 {
		rep, err := audit.Verify(ctx, h.Store)
		if err != nil {
			t.Fatal(err)
		}
		checks = checks[:0]
		for _, d := range rep.Differences {
			checks = append(checks, d.Check)
		}
		if rep.Clean() || len(checks) != 3 || checks[0] != "ledger_sum" || checks[1] != "ledger_last" || checks[2] != "reservations" {
			t.Fatalf("verify found %v, want ledger_sum, ledger_last and reservations", checks)
		}
	}
	if c := h.Counters("a", "default"); c.Reserved != 3 {
		t.Fatalf("verify changed the books: %+v", c)
	}
}

// testHealthWrite: the health probe's write commits, again and again, and
// leaves the books alone.
func testHealthWrite(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 3)
	for i := range 3 {
		if err := h.Store.HealthWrite(ctx, time.Now().Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatalf("health write %d: %v", i, err)
		}
	}
	if c := h.Counters("a", "default"); c != (stockd.Counters{OnHand: 3}) {
		t.Fatalf("counters = %+v after health writes", c)
	}
}
