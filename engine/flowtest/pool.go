package flowtest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stockd/stockd"
)

// poolCommand builds the command creating a channel pool (starts == nil) or a
// campaign pool open from starts to ends.
func poolCommand(id string, starts, ends *time.Time) stockd.Command {
	p := stockd.Pool{ID: id, Kind: stockd.PoolChannel, StartsAt: starts, EndsAt: ends}
	if starts != nil {
		p.Kind = stockd.PoolCampaign
	}
	return stockd.Command{Op: &stockd.PoolCreate{Pool: p}}
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

// testOrderPools: a campaign outside its window refuses lines naming it; a
// channel with fallback takes from normal once empty, one without does
// not; a pool with no document behaves as a channel without fallback.
func testOrderPools(t *testing.T, h *Harness) {
	h.SKU("a")
	start := h.Clock.Now().Add(time.Hour)
	pools := []stockd.Pool{
		{ID: "promo", Kind: stockd.PoolCampaign, StartsAt: &start},
		{ID: "web", Kind: stockd.PoolChannel, FallbackToNormal: true},
		{ID: "mkt", Kind: stockd.PoolChannel},
	}
	for _, p := range pools {
		body, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		now := h.Clock.Now()
		if err := h.WriteDocs(stockd.Document{DocKey: stockd.DocKey{Kind: stockd.DocPool, ID: p.ID}, Version: 1, Body: body, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	h.Receive("a", "default", 5)
	for _, pool := range []string{"web", "mkt"} {
		h.receiveInto(stockd.PositionKey{SKU: "a", Location: "default", Pool: pool}, 1)
	}
	// A pool nobody created holds nothing: a campaign created later under
	// its name would not find stock received before.
	WantCode(t, h.Do(stockd.Command{Op: &stockd.Receive{
		Position: stockd.PositionKey{SKU: "a", Location: "default", Pool: "nodoc"}, Quantity: 1}}), stockd.CodeUnknownPool)
	h.MustDo(allocateCommand("a", "", "", "promo", 1)) // campaigns are stocked by allocation only
	WantCode(t, h.Reserve(inPool("a", "promo", 1)), stockd.CodeCampaignNotActive)
	wantLines(t, h.Reserve(inPool("a", "web", 1)), held("a", "default", "web", 1))
	// The web pool is empty now, and the engine's sold-out memory says so,
	// though the line may still fall back to normal.
	wantLines(t, h.Reserve(inPool("a", "web", 3)), held("a", "default", "normal", 3))
	WantCode(t, h.Reserve(inPool("a", "mkt", 2)), stockd.CodeInsufficientStock)
	wantLines(t, h.Reserve(inPool("a", "mkt", 1)), held("a", "default", "mkt", 1))
	WantCode(t, h.Reserve(inPool("a", "nodoc", 1)), stockd.CodeInsufficientStock)
	h.Clock.Advance(time.Hour)
	wantLines(t, h.Reserve(inPool("a", "promo", 1)), held("a", "default", "promo", 1))
	h.Verify()
}
