package stockd

import (
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// newState returns a batch state with SKUs a and b, locations w1
// (priority 1) and w2 (priority 2), and the given stock in the normal pool.
func newState(stock map[PositionKey]int64) *BatchState {
	n := 0
	s := NewBatchState(t0, func() string { n++; return fmt.Sprintf("r%d", n) })
	s.SKUs["a"], s.SKUs["b"] = SKU{ID: "a"}, SKU{ID: "b"}
	s.Locations["w1"], s.Locations["w2"] = Location{ID: "w1", Priority: 1}, Location{ID: "w2", Priority: 2}
	for k, q := range stock {
		s.Positions[k] = &Counters{OnHand: q}
	}
	return s
}

func pk(sku, loc string) PositionKey { return PositionKey{SKU: sku, Location: loc, Pool: PoolDefault} }

func reserve(key string, lines ...LineRequest) Command {
	c := Command{IdempotencyKey: key, RequestHash: key, Op: &Reserve{Lines: lines}}
	if err := c.Normalize(); err != nil {
		panic(err)
	}
	return c
}

func TestApplyFirstComeFirstServed(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 3})
	res := s.Apply([]Command{
		reserve("k1", LineRequest{SKU: "a", Quantity: 2}),
		reserve("k2", LineRequest{SKU: "a", Quantity: 2}),
		reserve("k3", LineRequest{SKU: "a", Quantity: 1}),
	})
	if res[0].Err != nil || res[1].Err == nil || res[2].Err != nil {
		t.Fatalf("results = %v, %v, %v; want ok, insufficient, ok", res[0].Err, res[1].Err, res[2].Err)
	}
	if res[1].Err.Code != CodeInsufficientStock || res[1].Err.Lines[0].Available != 1 {
		t.Fatalf("err = %+v, want insufficient_stock with 1 available", res[1].Err)
	}
	if got := *s.Positions[pk("a", "w1")]; got.Reserved != 3 || got.Available() != 0 {
		t.Fatalf("counters = %+v, want 3 reserved, 0 available", got)
	}
}

func TestApplyAllOrNothing(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 5, pk("b", "w1"): 1})
	res := s.Apply([]Command{reserve("k", LineRequest{SKU: "a", Quantity: 5}, LineRequest{SKU: "b", Quantity: 2})})
	if res[0].Err == nil || res[0].Err.Code != CodeInsufficientStock || len(res[0].Err.Lines) != 1 || res[0].Err.Lines[0].SKU != "b" {
		t.Fatalf("err = %+v, want insufficient_stock naming only b", res[0].Err)
	}
	if got := s.Writes(); len(got.Ledger) != 0 || len(got.Positions) != 0 || len(got.ReservationsNew) != 0 {
		t.Fatalf("writes = %+v, want none but the idempotency record", got)
	}
}

func TestApplyPlacesByPriority(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 1, pk("a", "w2"): 5})
	res := s.Apply([]Command{
		reserve("k1", LineRequest{SKU: "a", Quantity: 2}),
		reserve("k2", LineRequest{SKU: "a", Quantity: 1}),
	})
	if got := res[0].Reservation.Lines[0].Location; got != "w2" {
		t.Fatalf("2 units placed at %s, want w2 (w1 cannot hold the whole line)", got)
	}
	if got := res[1].Reservation.Lines[0].Location; got != "w1" {
		t.Fatalf("1 unit placed at %s, want w1 (first by priority)", got)
	}
}

func TestApplyIdempotentWithinBatch(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 10})
	other := reserve("k", LineRequest{SKU: "a", Quantity: 3})
	other.RequestHash = "different"
	res := s.Apply([]Command{
		reserve("k", LineRequest{SKU: "a", Quantity: 1}),
		reserve("k", LineRequest{SKU: "a", Quantity: 1}),
		other,
	})
	if !res[1].Replayed || res[1].Reservation.ID != res[0].Reservation.ID {
		t.Fatalf("second = %+v, want a replay of the first", res[1])
	}
	if res[2].Err == nil || res[2].Err.Code != CodeIdempotencyKeyReused {
		t.Fatalf("third = %+v, want idempotency_key_reused", res[2].Err)
	}
	if got := s.Positions[pk("a", "w1")].Reserved; got != 1 {
		t.Fatalf("reserved = %d, want 1", got)
	}
}

func TestApplyConfirmAfterDeadlineExpires(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 1})
	res := s.Apply([]Command{reserve("k", LineRequest{SKU: "a", Quantity: 1})})
	id := res[0].Reservation.ID
	s.Now = s.Now.Add(ReservationTTLDefault)
	res = s.Apply([]Command{{Op: &Transition{Action: KindConfirm, ReservationID: id}}})
	if res[0].Err == nil || res[0].Err.Code != CodeReservationExpired || res[0].Err.Status != StatusExpired {
		t.Fatalf("confirm = %+v, want reservation_expired", res[0].Err)
	}
	if got := *s.Positions[pk("a", "w1")]; got.Reserved != 0 || got.Available() != 1 {
		t.Fatalf("counters = %+v, want the hold released", got)
	}
}

func TestApplyAdjustNeverBelowHeld(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 5})
	s.Apply([]Command{reserve("k", LineRequest{SKU: "a", Quantity: 4})})
	adj := Command{IdempotencyKey: "adj", Op: &Adjust{Position: pk("a", "w1"), Reason: ReasonLoss, Delta: -2}}
	cas := Command{IdempotencyKey: "cas", Op: &Adjust{Position: pk("a", "w1"), Reason: ReasonCycleCount, Set: true, SetOnHand: 9, ExpectedOnHand: 4}}
	res := s.Apply([]Command{adj, cas})
	if res[0].Err == nil || res[0].Err.Code != CodeInsufficientStock {
		t.Fatalf("adjust = %+v, want insufficient_stock", res[0].Err)
	}
	if res[1].Err == nil || res[1].Err.Code != CodeStaleQuantity {
		t.Fatalf("set = %+v, want stale_quantity", res[1].Err)
	}
}
