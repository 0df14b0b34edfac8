package flowtest

import (
	"testing"

	"github.com/stockd/stockd"
)

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
