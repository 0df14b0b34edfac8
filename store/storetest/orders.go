package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
)

// orderCases are the conformance cases of the order features.
func orderCases() []struct {
	name string
	fn   func(t *testing.T, h *Harness)
} {
	return []struct {
		name string
		fn   func(t *testing.T, h *Harness)
	}{
		{"OrderStrategies", testOrderStrategies},
		{"OrderPools", testOrderPools},
		{"OrderDeductionTiming", testOrderDeductionTiming},
		{"OrderBundles", testOrderBundles},
		{"OrderBundleRace", testOrderBundleRace},
		{"OrderBundleHoldsNoStock", testOrderBundleHoldsNoStock},
		{"OrderLimits", testOrderLimits},
		{"OrderLimitRace", testOrderLimitRace},
	}
}

// reserveWith submits a reservation of lines with the options set by opt.
func (h *Harness) reserveWith(opt func(*stockd.Reserve), lines ...stockd.LineRequest) stockd.Result {
	h.T.Helper()
	r := &stockd.Reserve{Lines: lines}
	if opt != nil {
		opt(r)
	}
	return h.Do(stockd.Command{Op: r})
}

func strategy(s string) func(*stockd.Reserve) { return func(r *stockd.Reserve) { r.Strategy = s } }

func customer(id string) func(*stockd.Reserve) { return func(r *stockd.Reserve) { r.CustomerID = id } }

func at(sku, location string, q int64) stockd.LineRequest {
	return stockd.LineRequest{SKU: sku, Location: location, Quantity: q}
}

func inPool(sku, pool string, q int64) stockd.LineRequest {
	return stockd.LineRequest{SKU: sku, Pool: pool, Quantity: q}
}

// receiveInto receives stock straight into a position of any pool.
func (h *Harness) receiveInto(k stockd.PositionKey, q int64) {
	h.T.Helper()
	h.MustDo(stockd.Command{Op: &stockd.Receive{Position: k, Quantity: q}})
}

// wantLines fails t unless the reservation holds exactly want, in order.
func wantLines(t *testing.T, res stockd.Result, want ...stockd.ReservationLine) *stockd.Reservation {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("reserve: %v, want lines %+v", res.Err, want)
	}
	got := res.Reservation.Lines
	if len(got) != len(want) {
		t.Fatalf("lines = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lines = %+v, want %+v", got, want)
		}
	}
	return res.Reservation
}

func held(sku, location, pool string, q int64) stockd.ReservationLine {
	return stockd.ReservationLine{SKU: sku, Location: location, Pool: pool, Quantity: q}
}

// testOrderStrategies: priority, single_location and split place lines that
// name no location; inactive locations are never chosen and refuse lines
// naming them; a line landing where another line of the order is merges.
func testOrderStrategies(t *testing.T, h *Harness) {
	for _, s := range []string{"a", "c", "d", "e", "f"} {
		h.SKU(s)
	}
	h.Location("near", 1)
	h.Location("far", 5)
	h.MustDo(stockd.Command{Op: &stockd.LocationCreate{Location: stockd.Location{ID: "off", Priority: 0, Inactive: true}}})
	h.Receive("a", "near", 3)
	h.Receive("a", "far", 5)
	h.Receive("a", "off", 10)
	h.Receive("c", "near", 1)
	h.Receive("c", "far", 1)
	h.Receive("d", "far", 1)
	h.Receive("d", "off", 5)
	h.Receive("e", "near", 1)
	h.Receive("f", "far", 1)

	WantCode(t, h.Reserve(at("a", "off", 1)), stockd.CodeLocationInactive)

	// split: 3 at near, the rest at far; the inactive location is skipped.
	r1 := wantLines(t, h.reserveWith(strategy(stockd.StrategySplit), line("a", 4)),
		held("a", "near", "normal", 3), held("a", "far", "normal", 1))
	entries, err := h.Store.LedgerList(ctx, storeLedger("a", 0, 100))
	if err != nil {
		t.Fatal(err)
	}
	reserves := 0
	for _, e := range entries {
		if e.ReservationID == r1.ID && e.BusinessType == stockd.BusinessReserve {
			reserves++
		}
	}
	if reserves != 2 {
		t.Fatalf("split reservation wrote %d reserve entries, want 2", reserves)
	}
	// priority: the line whole at the first location that holds it.
	wantLines(t, h.Reserve(line("a", 4)), held("a", "far", "normal", 4))
	// Only the inactive location has more: nothing is placed there.
	short := h.Reserve(line("a", 1))
	WantCode(t, short, stockd.CodeInsufficientStock)
	if l := short.Err.Lines; len(l) != 1 || l[0].Available != 0 {
		t.Fatalf("shortfall = %+v, want a with 0 available", l)
	}
	WantCode(t, h.reserveWith(strategy(stockd.StrategySplit), line("a", 1)), stockd.CodeInsufficientStock)

	// single_location: far holds c and d, near only c.
	wantLines(t, h.reserveWith(strategy(stockd.StrategySingleLocation), line("c", 1), line("d", 1)),
		held("c", "far", "normal", 1), held("d", "far", "normal", 1))
	// No location holds e and f together: placed by priority instead.
	wantLines(t, h.reserveWith(strategy(stockd.StrategySingleLocation), line("e", 1), line("f", 1)),
		held("e", "near", "normal", 1), held("f", "far", "normal", 1))
	// A line without location landing on a named line's position merges.
	h.Receive("c", "near", 2)
	wantLines(t, h.Reserve(at("c", "near", 1), line("c", 2)), held("c", "near", "normal", 3))
	h.Verify()
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
		if err := h.writeDocs(stockd.Document{DocKey: stockd.DocKey{Kind: stockd.DocPool, ID: p.ID}, Version: 1, Body: body, CreatedAt: now, UpdatedAt: now}); err != nil {
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

// testOrderDeductionTiming: an at_payment SKU is held only by a reservation
// that commits at once; an at_shipment SKU is never held.
func testOrderDeductionTiming(t *testing.T, h *Harness) {
	for _, s := range []stockd.SKU{{ID: "pay", Deduction: stockd.DeductionAtPayment}, {ID: "ship", Deduction: stockd.DeductionAtShipment}} {
		h.MustDo(stockd.Command{Op: &stockd.SKUCreate{SKU: s}})
		h.Receive(s.ID, "default", 5)
	}
	commit := func(r *stockd.Reserve) { r.Commit = true }
	WantCode(t, h.Reserve(line("pay", 1)), stockd.CodeDeductionTiming)
	if res := h.reserveWith(commit, line("pay", 1)); res.Err != nil || res.Reservation.Status != stockd.StatusConfirmed {
		t.Fatalf("commit of an at_payment SKU = %+v, want confirmed", res)
	}
	WantCode(t, h.Reserve(line("ship", 1)), stockd.CodeDeductionTiming)
	WantCode(t, h.reserveWith(commit, line("ship", 1)), stockd.CodeDeductionTiming)
	if c := h.Counters("ship", "default"); c.Available() != 5 {
		t.Fatalf("at_shipment counters = %+v, want nothing held", c)
	}
	if c := h.Counters("pay", "default"); c.Committed != 1 || c.Reserved != 0 {
		t.Fatalf("at_payment counters = %+v, want 1 committed", c)
	}
	h.Verify()
}

func defineBundle(bundle string, comps ...stockd.BundleComponent) stockd.Command {
	return stockd.Command{Op: &stockd.BundleCreate{Bundle: bundle, Components: comps}}
}

// testOrderBundles: a bundle is defined once over existing, non-bundle
// SKUs; reserving it reserves its components, summed with other lines of
// the order on the same position; releasing gives all of it back.
func testOrderBundles(t *testing.T, h *Harness) {
	h.BundleSKU("kit")
	h.BundleSKU("box")
	h.SKU("x")
	h.SKU("y")
	WantCode(t, h.Do(defineBundle("kit", stockd.BundleComponent{SKU: "ghost", Quantity: 1})), stockd.CodeUnknownSKU)
	res := h.MustDo(defineBundle("kit", stockd.BundleComponent{SKU: "y", Quantity: 1}, stockd.BundleComponent{SKU: "x", Quantity: 2}))
	var b stockd.Bundle
	if err := json.Unmarshal(res.Object, &b); err != nil || !res.Created || len(b.Components) != 2 || b.Components[0].SKU != "x" {
		t.Fatalf("bundle = %s (%v), want created, components sorted", res.Object, err)
	}
	WantCode(t, h.Do(defineBundle("kit", stockd.BundleComponent{SKU: "x", Quantity: 1})), stockd.CodeAlreadyExists)
	WantCode(t, h.Do(defineBundle("box", stockd.BundleComponent{SKU: "kit", Quantity: 1})), stockd.CodeInvalidInput)
	doc, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocBundle, ID: "kit"})
	if err != nil || doc.Version != 1 {
		t.Fatalf("stored bundle = %+v, %v", doc, err)
	}

	h.Receive("x", "default", 5)
	h.Receive("y", "default", 3)
	r := wantLines(t, h.Reserve(line("kit", 2), line("x", 1)),
		stockd.ReservationLine{SKU: "x", Location: "default", Pool: "normal", Quantity: 5},
		stockd.ReservationLine{SKU: "y", Location: "default", Pool: "normal", Quantity: 2, Bundle: "kit"})
	if c := h.Counters("x", "default"); c.Reserved != 5 {
		t.Fatalf("x = %+v, want 5 reserved", c)
	}
	if c := h.Counters("kit", "default"); c != (stockd.Counters{}) {
		t.Fatalf("bundle SKU holds %+v, want nothing", c)
	}
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: r.ID}})
	WantCode(t, h.Reserve(line("kit", 3)), stockd.CodeInsufficientStock)
	wantLines(t, h.Reserve(line("kit", 1)),
		stockd.ReservationLine{SKU: "x", Location: "default", Pool: "normal", Quantity: 2, Bundle: "kit"},
		stockd.ReservationLine{SKU: "y", Location: "default", Pool: "normal", Quantity: 1, Bundle: "kit"})
	h.Verify()
}

// replicas returns n engines on the harness's store, as n processes of the
// service: their batches are separate transactions that race in the
// database, with nothing shared in memory.
func (h *Harness) replicas(n int) []*engine.Engine {
	engines := make([]*engine.Engine, n)
	for i := range engines {
		engines[i] = engine.New(engine.Config{Store: h.Store, Now: h.Clock.Now})
		h.T.Cleanup(engines[i].Close)
	}
	return engines
}

// race submits reserve(i) on replica i, all at once, and returns the
// results in order.
func (h *Harness) race(n int, reserve func(i int) *stockd.Reserve) []stockd.Result {
	h.T.Helper()
	return h.raceCommands(n, func(i int) stockd.Command {
		return stockd.Command{Op: reserve(i)}
	})
}

// raceCommands submits cmd(i) on its own engine replica i (as separate
// service processes would), all at once, each under a fresh idempotency
// key, and returns the results in order. An engine error fails the test.
func (h *Harness) raceCommands(n int, cmd func(i int) stockd.Command) []stockd.Result {
	h.T.Helper()
	engines := h.replicas(n)
	h.keys++ // a fresh key space per race: keys of an earlier race would replay
	round := h.keys
	results := make([]stockd.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cmd(i)
			c.IdempotencyKey = fmt.Sprintf("race-%d-%d", round, i)
			c.RequestHash = c.IdempotencyKey
			results[i], errs[i] = engines[i].Submit(context.Background(), c)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			h.T.Fatalf("submit %d: %v", i, err)
		}
	}
	return results
}

// testOrderBundleRace: bundles and their component reserved concurrently,
// in separate transactions, never oversell the component, and refuse only
// what could not be served.
func testOrderBundleRace(t *testing.T, h *Harness) {
	h.BundleSKU("kit")
	h.SKU("c")
	h.MustDo(defineBundle("kit", stockd.BundleComponent{SKU: "c", Quantity: 2}))
	h.Receive("c", "default", 10)
	const workers = 12
	need := func(i int) int64 { return 2 - int64(i%2) } // kit:1 needs 2 of c, c:1 needs 1
	results := h.race(workers, func(i int) *stockd.Reserve {
		sku := "kit"
		if i%2 == 1 {
			sku = "c"
		}
		return &stockd.Reserve{Lines: []stockd.LineRequest{line(sku, 1)}}
	})
	var held int64
	var refused []int
	for i, res := range results {
		switch {
		case res.Err == nil:
			for _, l := range res.Reservation.Lines {
				held += l.Quantity
			}
		case res.Err.Code == stockd.CodeInsufficientStock:
			refused = append(refused, i)
		default:
			t.Fatalf("reserve %d: %v", i, res.Err)
		}
	}
	c := h.Counters("c", "default")
	if held > 10 || c.Reserved != held || c.Available() != 10-held {
		t.Fatalf("held %d by answers, counters %+v: oversold or lost", held, c)
	}
	// Available only falls, so a refusal means it was short then and is now.
	for _, i := range refused {
		if c.Available() >= need(i) {
			t.Fatalf("reserve %d of %d refused, yet %d is still available", i, need(i), c.Available())
		}
	}
	h.Verify()
}

func setLimit(scope, target string, max, windowSeconds int64) stockd.Command {
	return stockd.Command{Op: &stockd.LimitSet{Scope: scope, Target: target, MaxQuantityPerCustomer: max, WindowSeconds: windowSeconds}}
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

// countPassed counts the successes and fails t on a failure with a code
// other than those given.
func countPassed(t *testing.T, results []stockd.Result, codes ...string) int {
	t.Helper()
	passed := 0
	for i, res := range results {
		switch {
		case res.Err == nil:
			passed++
		case !slices.Contains(codes, res.Err.Code):
			t.Fatalf("command %d: %v", i, res.Err)
		}
	}
	return passed
}
