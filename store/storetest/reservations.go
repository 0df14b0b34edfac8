package storetest

// ReservationGet, ReservationListDue and ReservationList: reservations as
// the store keeps them.

import (
	"slices"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
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

func testReservationList(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.SKU("b")
	h.Receive("a", "default", 20)
	h.Receive("b", "default", 20)
	reserve := func(customer, order string, lines ...stockd.LineRequest) stockd.Reservation {
		t.Helper()
		return *h.MustDo(stockd.Command{Op: &stockd.Reserve{CustomerID: customer, OrderID: order, Lines: lines}}).Reservation
	}
	r1 := reserve("c1", "SO-1", line("a", 1))
	r2 := reserve("c1", "", line("b", 1))
	h.Clock.Advance(time.Minute)
	cut := h.Clock.Now()
	r3 := reserve("c2", "SO-3", line("a", 1), line("b", 2))
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: r1.ID, Reason: stockd.ReleaseCancelled}})
	r4 := reserve("", "SO-1", line("a", 1))
	ids := func(rs ...stockd.Reservation) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		name string
		p    store.ReservationListParams
		want []string
	}{
		{"all", store.ReservationListParams{}, ids(r1, r2, r3, r4)},
		{"status", store.ReservationListParams{Status: stockd.StatusReleased}, ids(r1)},
		{"sku", store.ReservationListParams{SKU: "b"}, ids(r2, r3)},
		{"customer", store.ReservationListParams{CustomerID: "c1"}, ids(r1, r2)},
		{"customer and sku", store.ReservationListParams{CustomerID: "c1", SKU: "a"}, ids(r1)},
		{"order, every status", store.ReservationListParams{OrderID: "SO-1"}, ids(r1, r4)},
		{"order and status", store.ReservationListParams{OrderID: "SO-1", Status: stockd.StatusPending}, ids(r4)},
		{"created before", store.ReservationListParams{CreatedBefore: cut}, ids(r1, r2)},
		{"status and created before", store.ReservationListParams{Status: stockd.StatusPending, CreatedBefore: cut}, ids(r2)},
		{"nothing", store.ReservationListParams{CustomerID: "c2", Status: stockd.StatusReleased}, []string{}},
	}
	for _, tt := range tests {
		got, err := h.Store.ReservationList(ctx, tt.p)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if g := ids(got...); !slices.Equal(g, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, g, tt.want)
		}
	}
	// Pages follow the id order from the cursor.
	all := ids(r1, r2, r3, r4)
	first, err := h.Store.ReservationList(ctx, store.ReservationListParams{Limit: 3})
	if err != nil || !slices.Equal(ids(first...), all[:3]) {
		t.Fatalf("first page = %v, %v; want %v", ids(first...), err, all[:3])
	}
	rest, err := h.Store.ReservationList(ctx, store.ReservationListParams{After: first[2].ID, Limit: 3})
	if err != nil || !slices.Equal(ids(rest...), all[3:]) {
		t.Fatalf("second page = %v, %v; want %v", ids(rest...), err, all[3:])
	}
	for _, r := range append(first, rest...) {
		if r.ID == r4.ID && (r.OrderID != "SO-1" || r.Status != stockd.StatusPending || len(r.Lines) != 1) {
			t.Fatalf("listed %+v, want it as made", r)
		}
	}
}
