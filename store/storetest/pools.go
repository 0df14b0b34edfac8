package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stockd/stockd"
)

// poolCases are the conformance cases of the pool features.
func poolCases() []struct {
	name string
	fn   func(t *testing.T, h *Harness)
} {
	return []struct {
		name string
		fn   func(t *testing.T, h *Harness)
	}{
		{"PoolCreate", testPoolCreate},
		{"Allocation", testAllocation},
		{"CampaignClose", testCampaignClose},
		{"CampaignCloseRace", testCampaignCloseRace},
		{"CampaignReturnsFromTwo", testCampaignReturnsFromTwo},
		{"CampaignStockOnlyByAllocation", testCampaignStockOnlyByAllocation},
		{"Settings", testSettings},
		{"SettingsRace", testSettingsRace},
		{"Approval", testApproval},
		{"ApprovalRefusals", testApprovalRefusals},
		{"ApprovalRace", testApprovalRace},
	}
}

// poolCommand builds the command creating a channel pool (starts == nil) or a
// campaign pool open from starts to ends.
func poolCommand(id string, starts, ends *time.Time) stockd.Command {
	p := stockd.Pool{ID: id, Kind: stockd.PoolChannel, StartsAt: starts, EndsAt: ends}
	if starts != nil {
		p.Kind = stockd.PoolCampaign
	}
	return stockd.Command{Op: &stockd.PoolCreate{Pool: p}}
}

// campaign creates a campaign pool open for a day around the clock.
func (h *Harness) campaign(id string) {
	h.T.Helper()
	starts, ends := h.Clock.Now().Add(-time.Hour), h.Clock.Now().Add(24*time.Hour)
	h.MustDo(poolCommand(id, &starts, &ends))
}

func allocateCommand(sku, location, from, to string, q int64) stockd.Command {
	return stockd.Command{Op: &stockd.Allocate{SKU: sku, Location: location, FromPool: from, ToPool: to, Quantity: q}}
}

// poolCounters returns the counters of one position (zero if absent).
func (h *Harness) poolCounters(sku, location, pool string) stockd.Counters {
	h.T.Helper()
	ps, err := h.Store.PositionListBySKU(ctx, sku)
	if err != nil {
		h.T.Fatalf("positions of %s: %v", sku, err)
	}
	for _, p := range ps {
		if p.Location == location && p.Pool == pool {
			return p.Counters
		}
	}
	return stockd.Counters{}
}

// poolLedger returns the SKU's ledger entries of one business type.
func (h *Harness) poolLedger(sku, business string) []stockd.LedgerEntry {
	h.T.Helper()
	entries, err := h.Store.LedgerList(ctx, storeLedger(sku, 0, stockd.PageSizeMax))
	if err != nil {
		h.T.Fatalf("ledger of %s: %v", sku, err)
	}
	var out []stockd.LedgerEntry
	for _, e := range entries {
		if e.BusinessType == business {
			out = append(out, e)
		}
	}
	return out
}

// testPoolCreate: pools are created once, stored as documents, and
// validated; normal cannot be created.
func testPoolCreate(t *testing.T, h *Harness) {
	res := h.MustDo(poolCommand("offline", nil, nil))
	if p := object[stockd.Pool](t, res); !res.Created || p.ID != "offline" || p.Kind != stockd.PoolChannel || !p.CreatedAt.Equal(h.Clock.Now()) {
		t.Fatalf("created %+v (created %v)", p, res.Created)
	}
	h.campaign("sale")
	WantCode(t, h.Do(poolCommand("offline", nil, nil)), stockd.CodeAlreadyExists)
	WantCode(t, h.Do(poolCommand(stockd.PoolDefault, nil, nil)), stockd.CodeAlreadyExists)
	at := h.Clock.Now()
	WantCode(t, h.Do(poolCommand("backwards", &at, &at)), stockd.CodeInvalidInput)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.PoolCreate{Pool: stockd.Pool{ID: "x", Kind: "other"}}}), stockd.CodeInvalidInput)

	d, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocPool, ID: "sale"})
	if err != nil {
		t.Fatal(err)
	}
	var sale stockd.Pool
	if err := json.Unmarshal(d.Body, &sale); err != nil || sale.Kind != stockd.PoolCampaign || sale.EndsAt == nil || !sale.Sellable(h.Clock.Now()) {
		t.Fatalf("stored campaign %s: %v", d.Body, err)
	}
}

// testAllocation: available moves between pools once per key, with an
// entry at both ends; never more than is available, never into a pool
// that does not exist.
func testAllocation(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	h.MustDo(poolCommand("offline", nil, nil))
	h.Reserve(line("a", 3))

	cmd := allocateCommand("a", "", "", "offline", 4)
	cmd.IdempotencyKey, cmd.RequestHash = "alloc-1", "alloc-1"
	res := h.MustDo(cmd)
	got := object[stockd.Allocation](t, res)
	if got.From.OnHand != 6 || got.From.Reserved != 3 || got.To.OnHand != 4 || got.FromPool != stockd.PoolDefault || got.Location != stockd.LocationDefault {
		t.Fatalf("allocation = %+v", got)
	}
	if again := h.MustDo(cmd); !again.Replayed {
		t.Fatal("the same key applied twice")
	}
	if c := h.poolCounters("a", "default", "offline"); c.OnHand != 4 {
		t.Fatalf("offline = %+v, want on_hand 4", c)
	}
	// 3 of the 6 left are reserved.
	WantCode(t, h.Do(allocateCommand("a", "", "", "offline", 4)), stockd.CodeInsufficientStock)
	WantCode(t, h.Do(allocateCommand("a", "", "", "nowhere", 1)), stockd.CodeNotFound)
	WantCode(t, h.Do(allocateCommand("a", "", "offline", "offline", 1)), stockd.CodeInvalidInput)
	// Back to normal.
	h.MustDo(allocateCommand("a", "", "offline", stockd.PoolDefault, 1))
	if c := h.Counters("a", "default"); c.OnHand != 7 {
		t.Fatalf("normal = %+v, want on_hand 7", c)
	}
	if entries := h.poolLedger("a", stockd.BusinessAllocation); len(entries) != 4 {
		t.Fatalf("%d allocation entries, want 4 (two moves, two ends each)", len(entries))
	}
	h.Verify()
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
	if n := len(h.poolLedger("a", stockd.BusinessCampaignClose)); n != 4 {
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
	if n := len(h.poolLedger("a", stockd.BusinessCampaignReturn)); n != 2 {
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
