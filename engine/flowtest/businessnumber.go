package flowtest

// Business document numbers: an order holds at most one reservation, and a
// receipt's, adjustment's or shipment's reference is booked once per SKU,
// whatever idempotency keys carry them (seed 003 §1.3, seed 004 §九.1).

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stockd/stockd"
)

// businessNumberRacers is how many requests for one business number race:
// each under its own idempotency key, each on its own engine replica.
const businessNumberRacers = 200

func orderReserve(order string, q int64) stockd.Command {
	return stockd.Command{Op: &stockd.Reserve{OrderID: order, Lines: []stockd.LineRequest{line("a", q)}}}
}

func testOrderUnique(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	first := h.MustDo(orderReserve("SO-1", 2)).Reservation
	if first.OrderID != "SO-1" {
		t.Fatalf("order id = %q", first.OrderID)
	}
	// The same body and a different one, both under new keys: neither
	// reserves, and both name the reservation holding the order.
	for _, q := range []int64{2, 3} {
		res := h.Do(orderReserve("SO-1", q))
		WantCode(t, res, stockd.CodeDuplicateOrder)
		if res.Err.ExistingID != first.ID || res.Err.Field != "order_id" {
			t.Fatalf("duplicate_order names %q (field %q), want %s", res.Err.ExistingID, res.Err.Field, first.ID)
		}
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 10, Reserved: 2})
	// A confirmed or fulfilled reservation still holds its order.
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindConfirm, ReservationID: first.ID}})
	WantCode(t, h.Do(orderReserve("SO-1", 1)), stockd.CodeDuplicateOrder)
	// Another order, and no order at all, are unaffected.
	other := h.MustDo(orderReserve("SO-2", 1)).Reservation
	h.MustDo(orderReserve("", 1))
	h.MustDo(orderReserve("", 1))
	// A released hold frees its order.
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: other.ID, Reason: stockd.ReleaseCancelled}})
	again := h.MustDo(orderReserve("SO-2", 1)).Reservation
	if again.ID == other.ID {
		t.Fatal("the released reservation came back instead of a new one")
	}
	got, err := h.Store.ReservationGet(ctx, again.ID)
	if err != nil || got.OrderID != "SO-2" {
		t.Fatalf("stored reservation = %+v, %v; want order SO-2", got, err)
	}
	h.Verify()
}

// testOrderUniqueRace: many requests for one order under as many keys, at
// once: one reservation, its stock reserved once. The racers ask for
// different SKUs, so that their batches share no position lock and only
// the unique index can stop the second insert (on PostgreSQL a loser sees
// it as a conflict and is retried into duplicate_order; a warm pool makes
// that overlap happen, where a cold one serialises the first batches).
func testOrderUniqueRace(t *testing.T, h *Harness) {
	const skus = 20
	for k := range skus {
		h.SKU(fmt.Sprintf("a%d", k))
		h.Receive(fmt.Sprintf("a%d", k), "default", 10)
	}
	h.warmPool(8)
	results := h.raceCommands(businessNumberRacers, func(i int) stockd.Command {
		return stockd.Command{Op: &stockd.Reserve{OrderID: "SO-race", Lines: []stockd.LineRequest{line(fmt.Sprintf("a%d", i%skus), 3)}}}
	})
	if passed := countPassed(t, results, stockd.CodeDuplicateOrder); passed != 1 {
		t.Fatalf("%d reservations for one order, want 1", passed)
	}
	var winner *stockd.Reservation
	for _, res := range results {
		if res.Err == nil {
			winner = res.Reservation
		}
	}
	for i, res := range results {
		if res.Err != nil && res.Err.ExistingID != winner.ID {
			t.Fatalf("refusal %d names %q, want the winner %s", i, res.Err.ExistingID, winner.ID)
		}
	}
	reserved := int64(0)
	for k := range skus {
		reserved += h.Counters(fmt.Sprintf("a%d", k), "default").Reserved
	}
	if reserved != 3 || h.Counters(winner.Lines[0].SKU, "default").Reserved != 3 {
		t.Fatalf("%d units reserved over the SKUs, want the winner's 3 of %s", reserved, winner.Lines[0].SKU)
	}
	h.Verify()
}

// warmPool opens n of the store's connections at once, so that a race
// that follows runs its transactions side by side rather than waiting on
// connections being opened one by one.
func (h *Harness) warmPool(n int) {
	h.T.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if _, err := h.Store.PositionListBySKU(ctx, "a0"); err != nil {
					h.T.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}

func testReferenceUnique(t *testing.T, h *Harness) {
	h.SKU("a")
	h.SKU("b")
	h.MustDo(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: "s", Deduction: stockd.DeductionAtShipment}}})
	receive := func(sku, ref string) stockd.Command {
		return stockd.Command{Op: &stockd.Receive{Position: stockd.PositionKey{SKU: sku}, Quantity: 5, Reference: ref}}
	}
	h.doKey("dn-1", receive("a", "PO-777"))
	res := h.Do(receive("a", "PO-777"))
	WantCode(t, res, stockd.CodeDuplicateReference)
	if res.Err.ExistingID != "dn-1" || res.Err.Field != "reference" {
		t.Fatalf("duplicate_reference names %q (field %q), want the first receipt dn-1", res.Err.ExistingID, res.Err.Field)
	}
	// One delivery note may carry several SKUs; receipts without a
	// reference are not business numbers.
	h.MustDo(receive("b", "PO-777"))
	h.MustDo(receive("a", ""))
	h.MustDo(receive("a", ""))
	h.MustDo(receive("s", ""))
	h.wantCounters("a", "default", stockd.Counters{OnHand: 15})
	// References are per business type: a count sheet may share its
	// number with a delivery note.
	adjust := func(ref string) stockd.Command {
		return stockd.Command{Op: &stockd.Adjust{Position: stockd.PositionKey{SKU: "a"}, Reason: stockd.ReasonDamage, Delta: -1, Reference: ref}}
	}
	h.MustDo(adjust("PO-777"))
	WantCode(t, h.Do(adjust("PO-777")), stockd.CodeDuplicateReference)
	h.wantCounters("a", "default", stockd.Counters{OnHand: 14})
	ship := func(ref string) stockd.Command {
		return stockd.Command{Op: &stockd.Shipment{Reference: ref, Lines: []stockd.ShipmentLine{{SKU: "s", Quantity: 1}}}}
	}
	shipped := object[stockd.ShipmentReceipt](t, h.MustDo(ship("WB-1")))
	res = h.Do(ship("WB-1"))
	WantCode(t, res, stockd.CodeDuplicateReference)
	if res.Err.ExistingID != shipped.ID {
		t.Fatalf("duplicate_reference names %q, want shipment %s", res.Err.ExistingID, shipped.ID)
	}
	h.wantCounters("s", "default", stockd.Counters{OnHand: 4})
	h.Verify()
}

// testReferenceUniqueRace: one delivery note booked by many requests
// under as many keys, at once: its stock comes in once.
func testReferenceUniqueRace(t *testing.T, h *Harness) {
	h.SKU("a")
	results := h.raceCommands(businessNumberRacers, func(int) stockd.Command {
		return stockd.Command{Op: &stockd.Receive{Position: stockd.PositionKey{SKU: "a"}, Quantity: 5, Reference: "PO-777"}}
	})
	if passed := countPassed(t, results, stockd.CodeDuplicateReference); passed != 1 {
		t.Fatalf("%d receipts of one delivery note, want 1", passed)
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 5})
	h.Verify()
}
