package storetest

// ReservationGet and ReservationListDue: reservations as the store keeps them.

import (
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
)

func testReservationListDue(t *testing.T, h *flowtest.Harness) {
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

func testTimesRoundTrip(t *testing.T, h *flowtest.Harness) {
	h.Clock.Set(time.Date(2026, 12, 2, 12, 0, 0, 123456789, time.UTC))
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
