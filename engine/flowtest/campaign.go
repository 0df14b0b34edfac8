package flowtest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd"
)

// campaign creates a campaign pool open for a day around the clock.
func (h *Harness) campaign(id string) {
	h.T.Helper()
	starts, ends := h.Clock.Now().Add(-time.Hour), h.Clock.Now().Add(24*time.Hour)
	h.MustDo(poolCommand(id, &starts, &ends))
}

// testCampaignClose: the close returns every position's leftover once,
// leaves held stock in place until released, and the released stock
// follows the leftovers.
func testCampaignClose(t *testing.T, h *Harness) {
	h.SKU("a")
	h.SKU("b")
	h.Location("north", 1)
	h.Receive("a", "default", 10)
	h.Receive("a", "north", 10)
	h.Receive("b", "default", 5)
	h.campaign("sale")
	h.MustDo(allocateCommand("a", "", "", "sale", 6))
	h.MustDo(allocateCommand("a", "north", "", "sale", 4))
	h.MustDo(allocateCommand("b", "", "", "sale", 5))
	held := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Quantity: 2, Location: "default", Pool: "sale"}}}})
	sold := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "b", Quantity: 1, Location: "default", Pool: "sale"}}, Commit: true}})

	closeCmd := stockd.Command{Op: &stockd.CampaignClose{Pool: "sale"}}
	closed := object[stockd.Pool](t, h.MustDo(closeCmd))
	if closed.ClosedAt == nil || closed.Sellable(h.Clock.Now()) {
		t.Fatalf("closed pool = %+v", closed)
	}
	for _, want := range []struct {
		sku, location, pool string
		onHand, held        int64
	}{
		{"a", "default", "sale", 2, 2}, {"a", "default", "normal", 8, 0},
		{"a", "north", "sale", 0, 0}, {"a", "north", "normal", 10, 0},
		{"b", "default", "sale", 1, 1}, {"b", "default", "normal", 4, 0},
	} {
		c := h.poolCounters(want.sku, want.location, want.pool)
		if c.OnHand != want.onHand || c.Reserved+c.Committed != want.held {
			t.Errorf("%s@%s/%s = %+v, want on_hand %d, held %d", want.sku, want.location, want.pool, c, want.onHand, want.held)
		}
	}
	// A second close, under a new key, changes nothing.
	h.Clock.Advance(time.Minute)
	again := object[stockd.Pool](t, h.MustDo(closeCmd))
	if !again.ClosedAt.Equal(*closed.ClosedAt) {
		t.Fatalf("second close moved closed_at: %v, want %v", again.ClosedAt, closed.ClosedAt)
	}
	if n := len(h.ledgerOf("a", stockd.BusinessCampaignClose)); n != 4 {
		t.Fatalf("%d campaign_close entries of a, want 4 (two positions, two ends each)", n)
	}
	WantCode(t, h.Do(allocateCommand("a", "", "", "sale", 1)), stockd.CodeCampaignNotActive)

	// Released after the close: back to normal.
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: held.Reservation.ID}})
	if c := h.poolCounters("a", "default", "sale"); c != (stockd.Counters{}) {
		t.Fatalf("sale after release = %+v, want empty", c)
	}
	if c := h.Counters("a", "default"); c.OnHand != 10 {
		t.Fatalf("normal after release = %+v, want on_hand 10", c)
	}
	if n := len(h.ledgerOf("a", stockd.BusinessCampaignReturn)); n != 2 {
		t.Fatalf("%d campaign_return entries, want 2", n)
	}
	// Shipped from the campaign: leaves from there.
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindFulfil, ReservationID: sold.Reservation.ID}})
	if c := h.poolCounters("b", "default", "sale"); c != (stockd.Counters{}) {
		t.Fatalf("b sale after shipping = %+v, want empty", c)
	}
	WantCode(t, h.Do(stockd.Command{Op: &stockd.CampaignClose{Pool: "nowhere"}}), stockd.CodeNotFound)
	h.MustDo(poolCommand("offline", nil, nil))
	WantCode(t, h.Do(stockd.Command{Op: &stockd.CampaignClose{Pool: "offline"}}), stockd.CodeInvalidTransition)
	h.Verify()
}

// testCampaignCloseRace: a campaign closes while reservations land on its
// pool. Every unit stays accounted for: on_hand of normal and campaign is
// conserved, the close returned exactly what nothing held, and once the
// holds are released the campaign is empty.
func testCampaignCloseRace(t *testing.T, h *Harness) {
	const stock, allocated, buyers = 200, 100, 40
	h.SKU("a")
	h.Receive("a", "default", stock)
	h.campaign("sale")
	h.MustDo(allocateCommand("a", "", "", "sale", allocated))

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		ids      []string
		failures []error
	)
	start := make(chan struct{})
	for i := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := h.submit(fmt.Sprintf("buy-%d", i), "", stockd.Command{Op: &stockd.Reserve{
				Lines: []stockd.LineRequest{{SKU: "a", Quantity: 2, Location: "default", Pool: "sale"}},
			}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failures = append(failures, err)
			case res.Err == nil:
				ids = append(ids, res.Reservation.ID)
			case res.Err.Code != stockd.CodeInsufficientStock && res.Err.Code != stockd.CodeCampaignNotActive:
				failures = append(failures, res.Err)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-start
		res, err := h.submit("close", "", stockd.Command{Op: &stockd.CampaignClose{Pool: "sale"}})
		mu.Lock()
		defer mu.Unlock()
		if err != nil || res.Err != nil {
			failures = append(failures, fmt.Errorf("close: %v %v", err, res.Err))
		}
	}()
	close(start)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("failures: %v", failures)
	}
	held := int64(2 * len(ids))
	t.Logf("%d of %d reservations landed before the close", len(ids), buyers)
	sale, normal := h.poolCounters("a", "default", "sale"), h.poolCounters("a", "default", stockd.PoolDefault)
	if sale.OnHand+normal.OnHand != stock {
		t.Fatalf("on_hand sale %d + normal %d, want %d", sale.OnHand, normal.OnHand, stock)
	}
	if sale.Reserved != held || sale.Available() != 0 {
		t.Fatalf("sale = %+v, want %d reserved and nothing available after the close", sale, held)
	}
	for i, id := range ids {
		if _, err := h.submit(fmt.Sprintf("release-%d", i), "", stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: id}}); err != nil {
			t.Fatal(err)
		}
	}
	if sale := h.poolCounters("a", "default", "sale"); sale != (stockd.Counters{}) {
		t.Fatalf("sale after releasing every hold = %+v, want empty", sale)
	}
	if normal := h.Counters("a", "default"); normal.OnHand != stock || normal.Available() != stock {
		t.Fatalf("normal = %+v, want all %d back", normal, stock)
	}
	h.Verify()
}

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

	if n := len(h.ledgerOf("a", stockd.BusinessCampaignReturn)); n != 8 {
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
