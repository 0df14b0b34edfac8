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
	pending := h.MustDo(stockd.Command{Kind: stockd.KindReserve, Reserve: &stockd.Reserve{Lines: both}}).Reservation
	paid := h.MustDo(stockd.Command{Kind: stockd.KindReserve, Reserve: &stockd.Reserve{Lines: both, Commit: true}}).Reservation
	h.MustDo(stockd.Command{Kind: stockd.KindCampaignClose, Op: &stockd.CampaignClose{Pool: "c1"}})
	h.MustDo(stockd.Command{Kind: stockd.KindCampaignClose, Op: &stockd.CampaignClose{Pool: "c2"}})

	h.MustDo(stockd.Command{Kind: stockd.KindRelease, Transition: &stockd.Transition{ReservationID: pending.ID}})
	h.MustDo(stockd.Command{Kind: stockd.KindReturn, Op: &stockd.Return{ReservationID: paid.ID, Lines: []stockd.ReturnLine{
		{SKU: "a", Pool: "c1", Quantity: 1}, {SKU: "a", Pool: "c2", Quantity: 1}}}})

	if n := len(h.poolLedger("a", stockd.BusinessCampaignReturn)); n != 8 {
		t.Fatalf("%d campaign_return entries, want 8 (2 orders x 2 campaigns x 2 ends)", n)
	}
	if c := h.Counters("a", "default"); c.OnHand != 10 || c.Available() != 10 {
		t.Fatalf("normal after both returns = %+v, want all 10 back", c)
	}
	h.Verify()
}
