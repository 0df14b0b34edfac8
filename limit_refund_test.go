package stockd

import (
	"testing"
	"time"
)

// TestLimitHeld: what a partly refunded reservation still counts against
// each kind of limit, including the cases where the lines cannot tell and
// the usage must stay rather than drop.
func TestLimitHeld(t *testing.T) {
	lines := []ReservationLine{
		{SKU: "a", Quantity: 5, Location: "L", Pool: PoolDefault, Refunded: 2},
		{SKU: "a", Quantity: 4, Location: "M", Pool: PoolDefault, Refunded: 4},
		{SKU: "x", Quantity: 4, Location: "L", Pool: PoolDefault, Bundle: "kit", Refunded: 3},
		{SKU: "y", Quantity: 2, Location: "L", Pool: PoolDefault, Bundle: "kit", Refunded: 2},
		{SKU: "c", Quantity: 3, Location: "L", Pool: "drop", Refunded: 1},
		{SKU: "d", Quantity: 6, Location: "L", Pool: "other"},
	}
	r := &Reservation{ID: "r", CustomerID: "c1", Lines: lines}
	for _, tt := range []struct {
		name  string
		entry UsageEntry
		want  int64
	}{
		{"plain sku: units still held", UsageEntry{Limit: "sku:a", Quantity: 9, Ordered: 9}, 3},
		// 2 kits of 2 x and 1 y: one x is held, so one kit still counts.
		{"bundle: a kit counts while a component is held", UsageEntry{Limit: "sku:kit", Quantity: 2, Ordered: 2}, 1},
		{"unknown sku keeps its usage", UsageEntry{Limit: "sku:zz", Quantity: 4, Ordered: 4}, 4},
		// Normal lines may have fallen back from the pool: they count.
		{"campaign: pool and normal lines", UsageEntry{Limit: "campaign:drop", Quantity: 3, Ordered: 3}, 2 + 3 + 1},
		{"unknown scope keeps its usage", UsageEntry{Limit: "zone:drop", Quantity: 3, Ordered: 3}, 3},
	} {
		if got := limitHeld(r, &tt.entry); got != tt.want {
			t.Errorf("%s: held %d, want %d", tt.name, got, tt.want)
		}
	}

	// A component line merged with a plain line of its SKU lost its tag:
	// the bundle's share leaves it out, the plain limit counts all of it.
	merged := &Reservation{ID: "m", Lines: []ReservationLine{
		{SKU: "x", Quantity: 7, Pool: PoolDefault, Refunded: 1},
		{SKU: "y", Quantity: 3, Pool: PoolDefault, Bundle: "kit"},
	}}
	if got := limitHeld(merged, &UsageEntry{Limit: "sku:kit", Quantity: 3, Ordered: 3}); got != 3 {
		t.Errorf("merged bundle: held %d, want 3", got)
	}
	if got := limitHeld(merged, &UsageEntry{Limit: "sku:x", Quantity: 1, Ordered: 1}); got != 6 {
		t.Errorf("merged plain: held %d, want 6 (more than counted: the usage stays)", got)
	}
}

// TestLimitRefundLowersOnly: a refund never raises what counts, keeps what
// was ordered, and drops entries that count nothing.
func TestLimitRefundLowersOnly(t *testing.T) {
	s := NewBatchState(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC), func() string { return "id" })
	r := &Reservation{ID: "r", CustomerID: "c1", Status: StatusConfirmed, Lines: []ReservationLine{
		{SKU: "a", Quantity: 5, Pool: PoolDefault, Refunded: 5},
		{SKU: "b", Quantity: 4, Pool: PoolDefault, Refunded: 1},
	}}
	s.docPut(DocUsage, "c1", Usage{Customer: "c1", Entries: []UsageEntry{
		{Limit: "sku:a", ReservationID: "r", Quantity: 5},
		{Limit: "sku:b", ReservationID: "r", Quantity: 2},
		{Limit: "sku:b", ReservationID: "other", Quantity: 4},
	}})
	s.limitRefund(r)
	var u Usage
	s.docGet(DocUsage, "c1", &u)
	if len(u.Entries) != 2 || u.Entries[0].Limit != "sku:b" || u.Entries[0].Quantity != 2 || u.Entries[1].ReservationID != "other" {
		t.Fatalf("usage %+v, want a dropped, b of r kept at 2, other untouched", u.Entries)
	}
}

func TestCeilShare(t *testing.T) {
	for _, tt := range []struct{ part, whole, total, want int64 }{
		{0, 5, 10, 0},
		{1, 2, 4, 1},
		{3, 2, 4, 2},
		{4, 2, 4, 2},
		// The product passes int64; the share does not.
		{CounterMax, QuantityMax, CounterMax, QuantityMax},
		{CounterMax - 1, QuantityMax, CounterMax, QuantityMax},
	} {
		if got := ceilShare(tt.part, tt.whole, tt.total); got != tt.want {
			t.Errorf("ceilShare(%d, %d, %d) = %d, want %d", tt.part, tt.whole, tt.total, got, tt.want)
		}
	}
}
