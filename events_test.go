package stockd

import (
	"fmt"
	"slices"
	"testing"
)

func receiveAt(key string, k PositionKey, q int64) Command {
	c := Command{IdempotencyKey: key, RequestHash: key, Op: &Receive{Position: k, Quantity: q}}
	if err := c.Normalize(); err != nil {
		panic(err)
	}
	return c
}

// events lists the event-only entries of the batch as "type@location business_id".
func events(s *BatchState) []string {
	var out []string
	for _, e := range s.Writes().Ledger {
		if EventOnly(e.BusinessType) {
			if e.Delta != (Counters{}) {
				panic(fmt.Sprintf("event %s with a delta", e.BusinessType))
			}
			out = append(out, e.BusinessType+"@"+e.Position.Location+" "+e.BusinessID)
		}
	}
	return out
}

// TestDeriveStockEvents crosses the lines one command at a time: a at w1
// holds 5 and at w2 3 (pool 8), alert line 4.
func TestDeriveStockEvents(t *testing.T) {
	tests := []struct {
		name string
		cmds []Command
		want []string
	}{
		{"no crossing", []Command{reserve("k1", LineRequest{SKU: "a", Quantity: 1, Location: "w2"})}, nil},
		{"position low, pool not", []Command{reserve("k1", LineRequest{SKU: "a", Quantity: 1, Location: "w1"})},
			[]string{"stock_low@w1 stock_low:r1"}},
		{"position sold out, pool low", []Command{reserve("k1", LineRequest{SKU: "a", Quantity: 5, Location: "w1"})},
			[]string{"stock_low@w1 stock_low:r1", "stock_sold_out@w1 stock_sold_out:r1", "pool_low@w1 pool_low:r1"}},
		{"pool sold out over two positions at once", []Command{reserve("k1", LineRequest{SKU: "a", Quantity: 5, Location: "w1"}, LineRequest{SKU: "a", Quantity: 3, Location: "w2"})},
			[]string{"stock_low@w1 stock_low:r1", "stock_sold_out@w1 stock_sold_out:r1", "stock_sold_out@w2 stock_sold_out:r1", "pool_low@w2 pool_low:r1", "pool_sold_out@w2 pool_sold_out:r1"}},
		{"once per crossing, back in stock after", []Command{
			reserve("k1", LineRequest{SKU: "a", Quantity: 3, Location: "w2"}),
			reserve("k2", LineRequest{SKU: "a", Quantity: 1, Location: "w1"}),
			reserve("k3", LineRequest{SKU: "a", Quantity: 1, Location: "w1"}),
			receiveAt("k4", pk("a", "w2"), 2),
		}, []string{"stock_sold_out@w2 stock_sold_out:r1", "stock_low@w1 stock_low:r2", "pool_low@w1 pool_low:r2", "stock_back_in_stock@w2 stock_back_in_stock:k4"}},
		{"first receipt of a new position", []Command{receiveAt("k1", pk("b", "w1"), 2)},
			[]string{"stock_back_in_stock@w1 stock_back_in_stock:k1", "pool_back_in_stock@w1 pool_back_in_stock:k1"}},
		{"a refused command crosses nothing", []Command{reserve("k1", LineRequest{SKU: "a", Quantity: 9, Location: "w1"})}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newState(map[PositionKey]int64{pk("a", "w1"): 5, pk("a", "w2"): 3})
			s.SKUs["a"] = SKU{ID: "a", AlertLine: 4}
			s.Apply(tt.cmds)
			if got := events(s); !slices.Equal(got, tt.want) {
				t.Fatalf("events\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestReReserveCrossesUnderItsOwnName: a reservation's reserve crosses a
// line, its expiry crosses back, and a late confirm re-reserves it across
// the same line again: three crossings under one reservation id, each with a
// business id of its own (the ledger's UNIQUE would refuse a repeat, and
// with it the whole batch, on every retry).
func TestReReserveCrossesUnderItsOwnName(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 12})
	s.SKUs["a"] = SKU{ID: "a", AlertLine: 10}
	id := s.Apply([]Command{reserve("k1", LineRequest{SKU: "a", Quantity: 3})})[0].Reservation.ID
	s.Now = s.Now.Add(ReservationTTLDefault)
	expire := Command{IdempotencyKey: "x1", RequestHash: "x1", Op: &Transition{Action: KindExpire, ReservationID: id}}
	if err := expire.Normalize(); err != nil {
		t.Fatal(err)
	}
	if r := s.Apply([]Command{expire})[0]; r.Err != nil {
		t.Fatal(r.Err)
	}
	if r := s.Apply([]Command{lateConfirm("c1", id, OnLateReReserve, "", nil)})[0]; r.Err != nil || !r.ReReserved {
		t.Fatalf("late confirm = %+v, want re-reserved", r)
	}
	want := []string{"stock_low@w1 stock_low:" + id, "pool_low@w1 pool_low:" + id,
		"stock_low@w1 stock_low:re_reserve:" + id, "pool_low@w1 pool_low:re_reserve:" + id}
	if got := events(s); !slices.Equal(got, want) {
		t.Fatalf("events\n got %q\nwant %q", got, want)
	}
	seen := map[string]bool{}
	for _, e := range s.Writes().Ledger {
		k := e.BusinessType + "\x00" + e.BusinessID + "\x00" + e.Position.SKU + "\x00" + e.Position.Location
		if seen[k] {
			t.Fatalf("ledger entry %s %q at %v twice: the ledger's UNIQUE refuses the batch", e.BusinessType, e.BusinessID, e.Position)
		}
		seen[k] = true
	}
}

// TestDeriveStockEventsNoLine: a SKU without an alert line has no low.
func TestDeriveStockEventsNoLine(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 2})
	s.Apply([]Command{reserve("k1", LineRequest{SKU: "a", Quantity: 2})})
	want := []string{"stock_sold_out@w1 stock_sold_out:r1", "pool_sold_out@w1 pool_sold_out:r1"}
	if got := events(s); !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
}

func TestEventOnly(t *testing.T) {
	for _, typ := range EventOnlyTypes() {
		if !EventOnly(typ) {
			t.Errorf("EventOnly(%q) = false", typ)
		}
		if len(typ) > noticeTypeLengthMax {
			t.Errorf("%q is longer than %d", typ, noticeTypeLengthMax)
		}
	}
	for _, typ := range []string{BusinessReceipt, BusinessReserve, BusinessConfirm, BusinessReconciliation, ""} {
		if EventOnly(typ) {
			t.Errorf("EventOnly(%q) = true", typ)
		}
	}
}

// BenchmarkDeriveStockEvents measures what deciding the derived events
// adds to one change that crosses nothing (the common case): recording
// the position before the change and comparing after it, with the pool's
// sum kept up to date.
func BenchmarkDeriveStockEvents(b *testing.B) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 1 << 40, pk("a", "w2"): 5})
	s.SKUs["a"] = SKU{ID: "a", AlertLine: 10}
	k := pk("a", "w1")
	c := s.Positions[k]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.touch(k, c.Available(), "trigger", "actor")
		c.Reserved ^= 1 // a change of one unit, back and forth
		s.deriveStockEvents()
	}
	if len(s.writes.Ledger) != 0 {
		b.Fatalf("%d events, want none", len(s.writes.Ledger))
	}
}

// TestTouchManyPositions: a command changing more positions than a scan
// covers keeps each position's first available and its last trigger.
func TestTouchManyPositions(t *testing.T) {
	s := newState(nil)
	n := 3 * touchedScanMax
	for round := range 2 {
		for i := range n {
			s.touch(pk("a", fmt.Sprintf("w%d", i)), int64(i+round*1000), fmt.Sprintf("t%d", round), "")
		}
	}
	if len(s.touched) != n {
		t.Fatalf("%d touched, want %d", len(s.touched), n)
	}
	for i := range n {
		k := pk("a", fmt.Sprintf("w%d", i))
		j := s.touchedIndex(k)
		if j < 0 || s.touched[j].key != k || s.touched[j].before != int64(i) || s.touched[j].trigger != "t1" {
			t.Fatalf("position %v: %+v at %d; want its first available %d and the last trigger", k, s.touched[max(j, 0)], j, i)
		}
	}
	if s.touchedIndex(pk("b", "w1")) != -1 {
		t.Fatal("an untouched position was found")
	}
}
