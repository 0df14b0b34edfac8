package storetest

import (
	"testing"

	"github.com/stockd/stockd"
)

// testCampaignReturnsFromTwo: one order holds stock in two campaigns at
// the same position; both close; its release and another order's refund
// each return stock from both into the one normal position, with one
// ledger entry per campaign.
func testCampaignReturnsFromTwo(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	h.campaign("c1")
	h.campaign("c2")
	h.MustDo(allocateCommand("a", "", "", "c1", 3))
	h.MustDo(allocateCommand("a", "", "", "c2", 3))
	both := []stockd.LineRequest{
		{SKU: "a", Quantity: 1, Location: "default", Pool: "c1"},
		{SKU: "a", Quantity: 1, Location: "default", Pool: "c2"},
	}
	pending := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: both}}).Reservation
	paid := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: both, Commit: true}}).Reservation
	h.MustDo(stockd.Command{Op: &stockd.CampaignClose{Pool: "c1"}})
	h.MustDo(stockd.Command{Op: &stockd.CampaignClose{Pool: "c2"}})

	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: pending.ID}})
	h.MustDo(stockd.Command{Op: &stockd.Return{ReservationID: paid.ID, Lines: []stockd.ReturnLine{
		{SKU: "a", Pool: "c1", Quantity: 1}, {SKU: "a", Pool: "c2", Quantity: 1}}}})

	if n := len(h.poolLedger("a", stockd.BusinessCampaignReturn)); n != 8 {
		t.Fatalf("%d campaign_return entries, want 8 (2 orders x 2 campaigns x 2 ends)", n)
	}
	if c := h.Counters("a", "default"); c.OnHand != 10 || c.Available() != 10 {
		t.Fatalf("normal after both returns = %+v, want all 10 back", c)
	}
	h.Verify()
}

// testCampaignStockOnlyByAllocation: stock enters a campaign only through
// allocations, so its close finds every unit: receipts, increases and
// transfers into it are refused (decreases are not); a shipped campaign
// unit returned after the close and released from inspection goes on to
// normal.
func testCampaignStockOnlyByAllocation(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Location("L2", 2)
	h.Receive("a", "default", 10)
	h.campaign("c")
	h.MustDo(allocateCommand("a", "", "", "c", 4))
	in := stockd.PositionKey{SKU: "a", Location: "default", Pool: "c"}
	WantCode(t, h.Do(stockd.Command{Op: &stockd.Receive{Position: in, Quantity: 1}}), stockd.CodeUnprocessable)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.Adjust{Position: in, Reason: stockd.ReasonFound, Delta: 1}}), stockd.CodeUnprocessable)
	h.MustDo(stockd.Command{Op: &stockd.Adjust{Position: in, Reason: stockd.ReasonDamage, Delta: -1}})
	WantCode(t, h.Do(stockd.Command{Op: &stockd.Transfer{SKU: "a", FromLocation: "default", ToLocation: "L2", Pool: "c", Quantity: 1}}), stockd.CodeUnprocessable)

	sold := h.MustDo(stockd.Command{Op: &stockd.Reserve{Commit: true,
		Lines: []stockd.LineRequest{{SKU: "a", Quantity: 2, Location: "default", Pool: "c"}}}}).Reservation
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindFulfil, ReservationID: sold.ID}})
	h.MustDo(stockd.Command{Op: &stockd.CampaignClose{Pool: "c"}})
	h.MustDo(stockd.Command{Op: &stockd.Return{ReservationID: sold.ID, Lines: []stockd.ReturnLine{{SKU: "a", Pool: "c", Quantity: 2}}}})
	if c := h.Counters("a", "default"); c.OnHand != 7 {
		t.Fatalf("normal after close = %+v, want the 1 leftover back (7)", c)
	}
	h.MustDo(stockd.Command{Op: &stockd.QuarantineRelease{Position: in, Quantity: 1}})
	h.MustDo(stockd.Command{Op: &stockd.StockMove{Position: in, From: stockd.StateQuarantined, To: stockd.StateAvailable, Quantity: 1}})
	if c := h.Counters("a", "default"); c.OnHand != 9 || c.Available() != 9 {
		t.Fatalf("normal after the returns were inspected = %+v, want 9 available", c)
	}
	ps, err := h.Store.PositionListBySKU(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	var campaign stockd.Counters
	for _, p := range ps {
		if p.Pool == "c" {
			campaign = p.Counters
		}
	}
	if campaign != (stockd.Counters{}) {
		t.Fatalf("closed campaign still holds %+v", campaign)
	}
	h.Verify()
}
