package flowtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

func lateConfirm(id, onLate, ref string, paidAt *time.Time) stockd.Command {
	return stockd.Command{Op: &stockd.Transition{Action: stockd.KindConfirm, ReservationID: id, OnLate: onLate, PaymentReference: ref, PaidAt: paidAt}}
}

// testLatePayment confirms after the deadline both ways: re_reserve with
// the stock there confirms again and books expire, re_reserve, confirm
// with clean books; with the stock gone, and by default, an exception is
// recorded once, whatever key a retry uses, and resolved with a note.
func testLatePayment(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 5)
	first := h.MustDo(stockd.Command{Op: &stockd.Reserve{OrderID: "SO-1", Lines: []stockd.LineRequest{line("a", 2)}}}).Reservation
	second := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 2)}}}).Reservation
	third := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 1)}}}).Reservation
	h.Clock.Advance(stockd.ReservationTTLDefault)
	paid := h.Clock.Now().Add(-time.Minute)

	// re_reserve, stock there: 200 re_reserved, the lines committed again.
	res := h.Do(lateConfirm(first.ID, stockd.OnLateReReserve, "pay-1", &paid))
	if res.Err != nil || !res.ReReserved || res.Reservation.Status != stockd.StatusConfirmed {
		t.Fatalf("re_reserve = %+v, %v; want confirmed re_reserved", res.Reservation, res.Err)
	}
	var types []string
	for _, e := range h.ledgerOfReservation("a", first.ID) {
		types = append(types, e.BusinessType)
	}
	if want := []string{stockd.BusinessReserve, stockd.BusinessExpire, stockd.BusinessReReserve, stockd.BusinessConfirm}; !equalStrings(types, want) {
		t.Fatalf("ledger of %s = %v, want %v", first.ID, types, want)
	}
	h.Verify()

	// The expiry worker moves the others; another reservation takes most
	// of what came back, then second pays late.
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindExpire, ReservationID: second.ID}})
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindExpire, ReservationID: third.ID}})
	h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 2)}}})
	res = h.Do(lateConfirm(second.ID, stockd.OnLateReReserve, "pay-2", &paid))
	WantCode(t, res, stockd.CodeReservationExpired)
	excID := res.Err.ExceptionID
	e, err := h.Store.ExceptionGet(ctx, excID)
	if err != nil || e.Kind != stockd.ExceptionLatePayment || e.Code != stockd.CodeInsufficientStock || e.PaymentReference != "pay-2" ||
		e.PaidAt == nil || !e.PaidAt.Equal(paid) || e.Status != stockd.ExceptionOpen || len(e.Lines) != 1 {
		t.Fatalf("exception %s = %+v, %v", excID, e, err)
	}
	// A retry under another key names the same exception.
	again := h.Do(lateConfirm(second.ID, stockd.OnLateReReserve, "pay-2b", nil))
	if again.Err == nil || again.Err.ExceptionID != excID {
		t.Fatalf("retry = %v, want exception %s", again.Err, excID)
	}
	// The default records one too.
	def := h.Do(lateConfirm(third.ID, "", "", nil))
	WantCode(t, def, stockd.CodeReservationExpired)
	if def.Err.ExceptionID == "" || def.Err.ExceptionID == excID {
		t.Fatalf("default = %+v, want an exception of its own", def.Err)
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 5, Reserved: 2, Committed: 2})
	h.Verify()

	// Resolve: a note, once.
	resolved := object[stockd.Exception](t, h.MustDo(stockd.Command{Actor: "ops", Op: &stockd.ExceptionResolve{ID: excID, Note: "refunded"}}))
	if resolved.Status != stockd.ExceptionResolved || resolved.Note != "refunded" || resolved.ResolvedAt == nil {
		t.Fatalf("resolved = %+v", resolved)
	}
	twice := object[stockd.Exception](t, h.MustDo(stockd.Command{Op: &stockd.ExceptionResolve{ID: excID, Note: "other"}}))
	if twice.Note != "refunded" {
		t.Fatalf("second resolve = %+v, want the first note", twice)
	}
	WantCode(t, h.Do(stockd.Command{Op: &stockd.ExceptionResolve{ID: "nope", Note: "x"}}), stockd.CodeNotFound)
}

// testLatePaymentRefusals: a re_reserve falls back to an exception when
// the location was switched off, or when another reservation holds the
// order now.
func testLatePaymentRefusals(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Location("w1", 1)
	h.Receive("a", "w1", 10)
	off := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Quantity: 1, Location: "w1"}}}}).Reservation
	order := h.MustDo(stockd.Command{Op: &stockd.Reserve{OrderID: "SO-9", Lines: []stockd.LineRequest{line("a", 1)}}}).Reservation
	h.Clock.Advance(stockd.ReservationTTLDefault)
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindExpire, ReservationID: order.ID}})
	h.MustDo(stockd.Command{Op: &stockd.Reserve{OrderID: "SO-9", Lines: []stockd.LineRequest{line("a", 1)}}})
	res := h.Do(lateConfirm(order.ID, stockd.OnLateReReserve, "", nil))
	WantCode(t, res, stockd.CodeReservationExpired)
	if e, err := h.Store.ExceptionGet(ctx, res.Err.ExceptionID); err != nil || e.Code != stockd.CodeDuplicateOrder || e.OrderID != "SO-9" {
		t.Fatalf("exception = %+v, %v; want duplicate_order", e, err)
	}
	h.MustDo(stockd.Command{Op: &stockd.LocationUpdate{ID: "w1", Active: new(bool)}})
	res = h.Do(lateConfirm(off.ID, stockd.OnLateReReserve, "", nil))
	WantCode(t, res, stockd.CodeReservationExpired)
	if e, err := h.Store.ExceptionGet(ctx, res.Err.ExceptionID); err != nil || e.Code != stockd.CodeLocationInactive {
		t.Fatalf("exception = %+v, %v; want location_inactive", e, err)
	}
	h.Verify()
}

// ledgerOfReservation returns the SKU's entries of one reservation.
func (h *Harness) ledgerOfReservation(sku, id string) []stockd.LedgerEntry {
	h.T.Helper()
	all, err := h.Store.LedgerList(ctx, storeLedger(sku, 0, stockd.PageSizeMax))
	if err != nil {
		h.T.Fatalf("ledger of %s: %v", sku, err)
	}
	var out []stockd.LedgerEntry
	for _, e := range all {
		if e.ReservationID == id {
			out = append(out, e)
		}
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// testLatePaymentFreesOrderInBatch: a release that frees an order id and a
// late payment's re-reserve that takes it again land in one batch. The
// reservation that takes the order sorts before the one that frees it, so
// unless the rows that free an order are written first, the unique index
// on order ids refuses the batch on every retry.
func testLatePaymentFreesOrderInBatch(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 5)
	late := h.MustDo(stockd.Command{Op: &stockd.Reserve{OrderID: "SO-9", Lines: []stockd.LineRequest{line("a", 1)}}}).Reservation
	h.Clock.Advance(stockd.ReservationTTLDefault)
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindExpire, ReservationID: late.ID}})
	holder := h.MustDo(stockd.Command{Op: &stockd.Reserve{OrderID: "SO-9", Lines: []stockd.LineRequest{line("a", 1)}}}).Reservation
	if holder.ID < late.ID {
		t.Fatalf("ids %s < %s: the test needs the taker to sort first", holder.ID, late.ID)
	}
	release := stockd.Command{IdempotencyKey: "free-so-9", RequestHash: "free-so-9",
		Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: holder.ID, Reason: stockd.ReleaseCancelled}}
	repay := lateConfirm(late.ID, stockd.OnLateReReserve, "pay-9", nil)
	repay.IdempotencyKey, repay.RequestHash = "repay-so-9", "repay-so-9"
	results, errs := h.Engine.SubmitAll(ctx, []stockd.Command{release, repay})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("command %d: %v", i, err)
		}
	}
	if results[0].Err != nil || results[1].Err != nil || !results[1].ReReserved {
		t.Fatalf("release = %v, re-reserve = %+v, %v; want both applied", results[0].Err, results[1].Reservation, results[1].Err)
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 5, Committed: 1})
	h.Verify()
}

// testLatePaymentRace: late confirms of one reservation under many keys at
// once, half re_reserve and half the default. The first to take the
// reservation's lock decides for all: either every answer is 409 naming
// the one exception, or one re-reserved and the others found it confirmed.
func testLatePaymentRace(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 5)
	h.warmPool(8)
	r := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 2)}}}).Reservation
	h.Clock.Advance(stockd.ReservationTTLDefault)
	results := h.raceCommands(businessNumberRacers, func(i int) stockd.Command {
		onLate := stockd.OnLateException
		if i%2 == 0 {
			onLate = stockd.OnLateReReserve
		}
		return lateConfirm(r.ID, onLate, fmt.Sprintf("pay-%d", i), nil)
	})
	exceptions, reReserved, confirmed := map[string]bool{}, 0, 0
	for _, res := range results {
		switch {
		case res.Err != nil && res.Err.Code == stockd.CodeReservationExpired && res.Err.ExceptionID != "":
			exceptions[res.Err.ExceptionID] = true
		case res.Err == nil && res.Reservation.Status == stockd.StatusConfirmed:
			confirmed++
			if res.ReReserved {
				reReserved++
			}
		default:
			t.Fatalf("late confirm answered %+v, %v", res.Reservation, res.Err)
		}
	}
	allExceptions := len(exceptions) == 1 && confirmed == 0
	oneReReserve := len(exceptions) == 0 && reReserved == 1 && confirmed == len(results)
	if !allExceptions && !oneReReserve {
		t.Fatalf("%d exceptions, %d confirmed (%d re-reserved) of %d: want one exception for all, or one re-reserve", len(exceptions), confirmed, reReserved, len(results))
	}
	list, err := h.Store.ExceptionList(ctx, store.ExceptionListParams{Kind: stockd.ExceptionLatePayment})
	if err != nil || len(list) != len(exceptions) {
		t.Fatalf("stored exceptions %+v, %v; want %d", list, err, len(exceptions))
	}
	h.Verify()
}
