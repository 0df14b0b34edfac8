package flowtest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stockd/stockd"
)

func setLimit(scope, target string, max, windowSeconds int64) stockd.Command {
	return stockd.Command{Op: &stockd.LimitSet{Scope: scope, Target: target, MaxQuantityPerCustomer: max, WindowSeconds: windowSeconds}}
}

// committedBy reserves and confirms lines in one step for a customer.
func (h *Harness) committedBy(customer string, lines ...stockd.LineRequest) stockd.Reservation {
	h.T.Helper()
	res := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: lines, CustomerID: customer, Commit: true}})
	return *res.Reservation
}

// usageOf returns what the customer's usage document counts for the
// reservation, by limit.
func (h *Harness) usageOf(customer, reservation string) map[string]stockd.UsageEntry {
	h.T.Helper()
	out := map[string]stockd.UsageEntry{}
	doc, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocUsage, ID: customer})
	if isNotFound(err) {
		return out
	}
	if err != nil {
		h.T.Fatalf("usage of %s: %v", customer, err)
	}
	var u stockd.Usage
	if err := json.Unmarshal(doc.Body, &u); err != nil {
		h.T.Fatalf("usage of %s: %v", customer, err)
	}
	for _, e := range u.Entries {
		if e.ReservationID == reservation {
			out[e.Limit] = e
		}
	}
	return out
}

// testOrderLimits: a customer's pending and confirmed quantity within the
// window may not pass a SKU or campaign limit; release and expiry give it
// back; the window moves on; other customers and anonymous orders are not
// counted.
func testOrderLimits(t *testing.T, h *Harness) {
	h.SKU("lim")
	h.Receive("lim", "default", 100)
	h.MustDo(poolCommand("drop", nil, nil))
	h.receiveInto(stockd.PositionKey{SKU: "lim", Location: "default", Pool: "drop"}, 10)
	WantCode(t, h.Do(setLimit(stockd.LimitScopeSKU, "ghost", 1, 60)), stockd.CodeUnknownSKU)
	res := h.MustDo(setLimit(stockd.LimitScopeSKU, "lim", 9, 3600))
	if !res.Created {
		t.Fatal("first limit not created")
	}
	// Setting it again replaces it.
	if res := h.MustDo(setLimit(stockd.LimitScopeSKU, "lim", 3, 3600)); res.Created {
		t.Fatal("replacing a limit answered created")
	}
	c1 := customer("c1")
	first := h.reserveWith(c1, line("lim", 2))
	if first.Err != nil || first.Reservation.CustomerID != "c1" {
		t.Fatalf("first = %+v", first)
	}
	WantCode(t, h.reserveWith(c1, line("lim", 2)), stockd.CodePurchaseLimitExceeded)
	second := h.reserveWith(c1, line("lim", 1))
	if second.Err != nil {
		t.Fatal(second.Err)
	}
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindConfirm, ReservationID: second.Reservation.ID}})
	WantCode(t, h.reserveWith(c1, line("lim", 1)), stockd.CodePurchaseLimitExceeded)
	h.reserveWith(customer("c2"), line("lim", 3))
	h.Reserve(line("lim", 5))
	// A release gives the quantity back; a confirmed one stays counted.
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: first.Reservation.ID}})
	if res := h.reserveWith(c1, line("lim", 2)); res.Err != nil {
		t.Fatalf("after release: %v", res.Err)
	}
	WantCode(t, h.reserveWith(c1, line("lim", 1)), stockd.CodePurchaseLimitExceeded)
	h.Clock.Advance(time.Hour)
	if res := h.reserveWith(c1, line("lim", 3)); res.Err != nil {
		t.Fatalf("a window later: %v", res.Err)
	}

	// A campaign limit counts lines naming the pool; expiry gives back.
	h.MustDo(setLimit(stockd.LimitScopeCampaign, "drop", 1, 86400))
	c3 := func(r *stockd.Reserve) { r.CustomerID, r.TTL = "c3", time.Minute }
	short := h.reserveWith(c3, inPool("lim", "drop", 1))
	if short.Err != nil {
		t.Fatal(short.Err)
	}
	WantCode(t, h.reserveWith(c3, inPool("lim", "drop", 1)), stockd.CodePurchaseLimitExceeded)
	h.Clock.Advance(time.Minute)
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindExpire, ReservationID: short.Reservation.ID}})
	if res := h.reserveWith(c3, inPool("lim", "drop", 1)); res.Err != nil {
		t.Fatalf("after expiry: %v", res.Err)
	}
	h.Verify()
}

// testOrderLimitRace: parallel reservations by one customer at the limit,
// in separate transactions, pass exactly the allowed quantity. First each
// names another SKU in one campaign pool, so that only the limit's
// documents are shared; then all name one SKU.
func testOrderLimitRace(t *testing.T, h *Harness) {
	const workers, allowed = 10, 3
	h.MustDo(poolCommand("drop", nil, nil))
	for i := range workers {
		sku := fmt.Sprintf("s%d", i)
		h.SKU(sku)
		h.receiveInto(stockd.PositionKey{SKU: sku, Location: "default", Pool: "drop"}, 5)
	}
	h.MustDo(setLimit(stockd.LimitScopeCampaign, "drop", allowed, 3600))
	results := h.race(workers, func(i int) *stockd.Reserve {
		return &stockd.Reserve{CustomerID: "greedy", Lines: []stockd.LineRequest{inPool(fmt.Sprintf("s%d", i), "drop", 1)}}
	})
	if passed := countPassed(t, results, stockd.CodePurchaseLimitExceeded); passed != allowed {
		t.Fatalf("campaign: %d reservations passed, want exactly %d", passed, allowed)
	}

	h.SKU("lim")
	h.Receive("lim", "default", 100)
	h.MustDo(setLimit(stockd.LimitScopeSKU, "lim", allowed, 3600))
	results = h.race(workers, func(i int) *stockd.Reserve {
		return &stockd.Reserve{CustomerID: "greedy", Lines: []stockd.LineRequest{line("lim", 1)}}
	})
	if passed := countPassed(t, results, stockd.CodePurchaseLimitExceeded); passed != allowed || h.Counters("lim", "default").Reserved != allowed {
		t.Fatalf("sku: %d reservations passed, %d reserved; want exactly %d", passed, h.Counters("lim", "default").Reserved, allowed)
	}
	h.Verify()
}

// testLimitPartialRefund: a partial refund before shipment gives the
// refunded units back to the customer's SKU and campaign limits (a retry
// gives nothing more); a bundle limit gets a bundle back once none of its
// components is held; the last refund drops the reservation from the usage.
func testLimitPartialRefund(t *testing.T, h *Harness) {
	h.SKU("lim")
	h.Receive("lim", "default", 100)
	h.MustDo(setLimit(stockd.LimitScopeSKU, "lim", 5, 3600))
	c1 := customer("c1")
	r := h.committedBy("c1", line("lim", 5))
	WantCode(t, h.reserveWith(c1, line("lim", 1)), stockd.CodePurchaseLimitExceeded)

	h.doKey("refund-lim", returnCmd(r.ID, false, returnLine("lim", 2)))
	h.doKey("refund-lim", returnCmd(r.ID, false, returnLine("lim", 2)))
	if e := h.usageOf("c1", r.ID)["sku:lim"]; e.Quantity != 3 || e.Ordered != 5 {
		t.Fatalf("usage after refunding 2 of 5: %+v, want 3 counted of 5 ordered", e)
	}
	more := h.reserveWith(c1, line("lim", 2))
	if more.Err != nil {
		t.Fatalf("after a partial refund of 2: %v", more.Err)
	}
	WantCode(t, h.reserveWith(c1, line("lim", 1)), stockd.CodePurchaseLimitExceeded)
	// Refunding the rest releases the reservation: nothing of it counts.
	h.MustDo(returnCmd(r.ID, false, returnLine("lim", 3)))
	if u := h.usageOf("c1", r.ID); len(u) != 0 {
		t.Fatalf("usage after the full refund: %+v, want none", u)
	}
	if res := h.reserveWith(c1, line("lim", 3)); res.Err != nil {
		t.Fatalf("after the full refund: %v", res.Err)
	}
	WantCode(t, h.reserveWith(c1, line("lim", 1)), stockd.CodePurchaseLimitExceeded)

	// A campaign limit counts the lines in its pool, whatever their SKU.
	h.SKU("x")
	h.MustDo(poolCommand("drop", nil, nil))
	for _, sku := range []string{"x", "lim"} {
		h.receiveInto(stockd.PositionKey{SKU: sku, Location: "default", Pool: "drop"}, 10)
	}
	h.MustDo(setLimit(stockd.LimitScopeCampaign, "drop", 4, 3600))
	c2 := customer("c2")
	camp := h.committedBy("c2", inPool("x", "drop", 2), inPool("lim", "drop", 2))
	WantCode(t, h.reserveWith(c2, inPool("x", "drop", 1)), stockd.CodePurchaseLimitExceeded)
	h.MustDo(returnCmd(camp.ID, false, stockd.ReturnLine{SKU: "x", Pool: "drop", Quantity: 1}))
	usage := h.usageOf("c2", camp.ID)
	if usage["campaign:drop"].Quantity != 3 || usage["sku:lim"].Quantity != 2 {
		t.Fatalf("usage after refunding 1 x: %+v, want drop 3 and lim 2", usage)
	}
	if res := h.reserveWith(c2, inPool("x", "drop", 1)); res.Err != nil {
		t.Fatalf("after refunding 1 from the pool: %v", res.Err)
	}
	WantCode(t, h.reserveWith(c2, inPool("x", "drop", 1)), stockd.CodePurchaseLimitExceeded)

	// A bundle limit counts bundles: 2 kits of 1 p and 2 q. One p back
	// leaves both kits counted (each still holds components); once a
	// kit's worth of every component is back, one kit is.
	h.BundleSKU("kit")
	h.SKU("p")
	h.SKU("q")
	h.MustDo(defineBundle("kit", stockd.BundleComponent{SKU: "p", Quantity: 1}, stockd.BundleComponent{SKU: "q", Quantity: 2}))
	h.Receive("p", "default", 10)
	h.Receive("q", "default", 10)
	h.MustDo(setLimit(stockd.LimitScopeSKU, "kit", 2, 3600))
	c3 := customer("c3")
	kits := h.committedBy("c3", line("kit", 2))
	h.MustDo(returnCmd(kits.ID, false, returnLine("p", 1)))
	if e := h.usageOf("c3", kits.ID)["sku:kit"]; e.Quantity != 2 {
		t.Fatalf("kit usage after one p back: %+v, want 2", e)
	}
	WantCode(t, h.reserveWith(c3, line("kit", 1)), stockd.CodePurchaseLimitExceeded)
	h.MustDo(returnCmd(kits.ID, false, returnLine("q", 2)))
	if e := h.usageOf("c3", kits.ID)["sku:kit"]; e.Quantity != 1 || e.Ordered != 2 {
		t.Fatalf("kit usage after a kit's worth back: %+v, want 1 of 2", e)
	}
	if res := h.reserveWith(c3, line("kit", 1)); res.Err != nil {
		t.Fatalf("after a kit's worth came back: %v", res.Err)
	}
	WantCode(t, h.reserveWith(c3, line("kit", 1)), stockd.CodePurchaseLimitExceeded)
	h.Verify()
}

// testLimitPartialRefundRace: a customer at the limit refunds part of a
// confirmed reservation while parallel reservations of one unit each
// land, on separate replicas: whatever the order, the customer ends with
// exactly the limit held, never more.
func testLimitPartialRefundRace(t *testing.T, h *Harness) {
	const limit, refunded, tries = 5, 2, 8
	h.SKU("lim")
	h.Receive("lim", "default", 100)
	h.MustDo(setLimit(stockd.LimitScopeSKU, "lim", limit, 3600))
	r := h.committedBy("c1", line("lim", limit))
	results := h.raceCommands(tries+1, func(i int) stockd.Command {
		if i == tries {
			return returnCmd(r.ID, false, returnLine("lim", refunded))
		}
		return stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("lim", 1)}, CustomerID: "c1"}}
	})
	if results[tries].Err != nil {
		t.Fatalf("refund: %v", results[tries].Err)
	}
	passed := countPassed(t, results[:tries], stockd.CodePurchaseLimitExceeded)
	if passed > refunded {
		t.Fatalf("%d reservations passed, at most %d may", passed, refunded)
	}
	// What the race left of the refund is still there to take.
	for range refunded - passed {
		if res := h.reserveWith(customer("c1"), line("lim", 1)); res.Err != nil {
			t.Fatalf("after the race: %v", res.Err)
		}
	}
	WantCode(t, h.reserveWith(customer("c1"), line("lim", 1)), stockd.CodePurchaseLimitExceeded)
	if c := h.Counters("lim", "default"); c.Committed+c.Reserved != limit {
		t.Fatalf("counters %+v, want the customer's %d held", c, limit)
	}
	h.Verify()
}
