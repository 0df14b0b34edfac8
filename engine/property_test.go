package engine_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// The model is the rules written out plainly, independent of the domain
// package: counters per position and a status per reservation.
type modelReservation struct {
	id        string
	status    stockd.ReservationStatus
	lines     []stockd.ReservationLine
	expiresAt time.Time
}

type model struct {
	counters     map[stockd.PositionKey]stockd.Counters
	reservations map[string]*modelReservation
	// usage is what each reservation of the limited customer counts
	// against the limit on propertyLimitSKU, by reservation id.
	usage map[string]modelUsage
}

type modelUsage struct {
	quantity int64
	at       time.Time
}

var (
	propertySKUs      = []string{"a", "b", "c"}
	propertyLocations = []string{"default", "w1"} // priority 0, then 1
	// propertyPools: normal, and a channel pool without a document (no
	// fallback), stocked by receipts straight into it.
	propertyPools = []string{stockd.PoolDefault, "ch"}
	// propertyBundle is a kit of propertyKit; it holds no stock itself.
	propertyBundle = "kit"
	propertyKit    = []stockd.BundleComponent{{SKU: "a", Quantity: 2}, {SKU: "b", Quantity: 1}}
	// propertyCustomer may order at most propertyLimitMax of
	// propertyLimitSKU per propertyLimitWindow; other orders carry no
	// customer.
	propertyCustomer    = "cust"
	propertyLimitSKU    = "a"
	propertyLimitMax    = int64(6)
	propertyLimitWindow = 600 * time.Second
)

func key(sku, loc string) stockd.PositionKey {
	return stockd.PositionKey{SKU: sku, Location: loc, Pool: stockd.PoolDefault}
}

func poolKey(sku, loc, pool string) stockd.PositionKey {
	return stockd.PositionKey{SKU: sku, Location: loc, Pool: pool}
}

// used is the limited customer's quantity within the window at now.
func (m *model) used(now time.Time) int64 {
	var n int64
	for _, u := range m.usage {
		if u.at.After(now.Add(-propertyLimitWindow)) {
			n += u.quantity
		}
	}
	return n
}

func (m *model) add(k stockd.PositionKey, d stockd.Counters) {
	m.counters[k] = m.counters[k].Add(d)
}

// move applies a status change of r to the model's counters; a pending
// reservation released or expired gives its limit usage back.
func (m *model) move(r *modelReservation, to stockd.ReservationStatus) {
	if r.status == stockd.StatusPending && to != stockd.StatusConfirmed {
		delete(m.usage, r.id)
	}
	for _, l := range r.lines {
		q := l.Quantity
		switch {
		case r.status == stockd.StatusPending && to == stockd.StatusConfirmed:
			m.add(l.Key(), stockd.Counters{Reserved: -q, Committed: q})
		case r.status == stockd.StatusPending:
			m.add(l.Key(), stockd.Counters{Reserved: -q})
		case r.status == stockd.StatusConfirmed && to == stockd.StatusFulfilled:
			m.add(l.Key(), stockd.Counters{Committed: -q, OnHand: -q})
		default:
			panic(fmt.Sprintf("model: no move from %s to %s", r.status, to))
		}
	}
	r.status = to
}

// transition returns the error code the model expects ("" for success).
func (m *model) transition(kind stockd.CommandKind, r *modelReservation, now time.Time) string {
	due := r.status == stockd.StatusPending && !now.Before(r.expiresAt)
	if due && kind != stockd.KindRelease {
		m.move(r, stockd.StatusExpired)
	}
	switch kind {
	case stockd.KindConfirm:
		switch r.status {
		case stockd.StatusPending:
			m.move(r, stockd.StatusConfirmed)
		case stockd.StatusExpired:
			return stockd.CodeReservationExpired
		case stockd.StatusReleased:
			return stockd.CodeInvalidTransition
		}
	case stockd.KindRelease:
		switch r.status {
		case stockd.StatusPending:
			m.move(r, stockd.StatusReleased)
		case stockd.StatusConfirmed, stockd.StatusFulfilled:
			return stockd.CodeInvalidTransition
		}
	case stockd.KindExpire:
	case stockd.KindFulfil:
		switch r.status {
		case stockd.StatusConfirmed:
			m.move(r, stockd.StatusFulfilled)
		case stockd.StatusFulfilled:
		default:
			return stockd.CodeInvalidTransition
		}
	}
	return ""
}

type propertyRun struct {
	t       *rapid.T
	store   store.Store
	engine  *engine.Engine
	now     *atomic.Int64
	model   model
	ids     []string
	history []sent
	keys    int
}

// sent is a command already answered, for replays.
type sent struct {
	cmd    stockd.Command
	answer []byte
}

func (p *propertyRun) clock() time.Time { return time.Unix(0, p.now.Load()).UTC() }

func (p *propertyRun) submit(cmd stockd.Command) stockd.Result {
	p.keys++
	cmd.IdempotencyKey = fmt.Sprintf("k%d", p.keys)
	cmd.RequestHash = cmd.IdempotencyKey
	res, err := p.engine.Submit(ctx, cmd)
	if err != nil {
		p.t.Fatalf("%s: %v", cmd.Kind, err)
	}
	if !res.Unstored { // a sold-out refusal given without a transaction is decided afresh on retry
		answer, _ := json.Marshal(res)
		p.history = append(p.history, sent{cmd: cmd, answer: answer})
	}
	return res
}

func wantCode(t *rapid.T, what string, res stockd.Result, code string) {
	t.Helper()
	got := ""
	if res.Err != nil {
		got = res.Err.Code
	}
	if got != code {
		t.Fatalf("%s: got error %q (%v), model expects %q", what, got, res.Err, code)
	}
}

func (p *propertyRun) receive(t *rapid.T) {
	k := poolKey(rapid.SampledFrom(propertySKUs).Draw(t, "sku"), rapid.SampledFrom(propertyLocations).Draw(t, "location"),
		rapid.SampledFrom(propertyPools).Draw(t, "pool"))
	q := rapid.Int64Range(1, 20).Draw(t, "quantity")
	wantCode(t, "receive", p.submit(stockd.Command{Kind: stockd.KindReceive, Receive: &stockd.Receive{Position: k, Quantity: q}}), "")
	p.model.add(k, stockd.Counters{OnHand: q})
}

func (p *propertyRun) adjust(t *rapid.T) {
	k := key(rapid.SampledFrom(propertySKUs).Draw(t, "sku"), rapid.SampledFrom(propertyLocations).Draw(t, "location"))
	delta := rapid.Int64Range(-10, 10).Filter(func(d int64) bool { return d != 0 }).Draw(t, "delta")
	res := p.submit(stockd.Command{Kind: stockd.KindAdjust, Adjust: &stockd.Adjust{Position: k, Reason: stockd.ReasonCorrection, Delta: delta}})
	after := p.model.counters[k].Add(stockd.Counters{OnHand: delta})
	if after.OnHand < 0 || after.Available() < 0 {
		wantCode(t, "adjust", res, stockd.CodeInsufficientStock)
		return
	}
	wantCode(t, "adjust", res, "")
	p.model.counters[k] = after
}

// modelTake holds q at k for the order being placed: one line per
// position, its bundle tag kept only while every part shares it.
func modelTake(placed []stockd.ReservationLine, k stockd.PositionKey, q int64, bundle string) []stockd.ReservationLine {
	for i := range placed {
		if placed[i].Key() == k {
			placed[i].Quantity += q
			if placed[i].Bundle != bundle {
				placed[i].Bundle = ""
			}
			return placed
		}
	}
	return append(placed, stockd.ReservationLine{SKU: k.SKU, Quantity: q, Location: k.Location, Pool: k.Pool, Bundle: bundle})
}

func (p *propertyRun) reserve(t *rapid.T) {
	skus := append(append([]string(nil), propertySKUs...), propertyBundle)
	skus = rapid.Permutation(skus).Draw(t, "skus")[:rapid.IntRange(1, len(skus)).Draw(t, "lines")]
	commit := rapid.Bool().Draw(t, "commit")
	ttl := time.Duration(rapid.IntRange(60, 600).Draw(t, "ttl_seconds")) * time.Second
	customer := rapid.SampledFrom([]string{"", propertyCustomer}).Draw(t, "customer")
	var lines []stockd.LineRequest
	var placed []stockd.ReservationLine
	taken := map[stockd.PositionKey]int64{}
	var limited int64
	ok := true
	for _, sku := range skus {
		loc := rapid.SampledFrom(append([]string{""}, propertyLocations...)).Draw(t, "location")
		pool := rapid.SampledFrom(propertyPools).Draw(t, "pool")
		q := rapid.Int64Range(1, 8).Draw(t, "quantity")
		lines = append(lines, stockd.LineRequest{SKU: sku, Location: loc, Pool: pool, Quantity: q})
		if sku == propertyLimitSKU {
			limited += q
		}
		candidates := propertyLocations
		if loc != "" {
			candidates = []string{loc}
		}
		// A bundle places its components, each on its own, in order.
		parts := []stockd.BundleComponent{{SKU: sku, Quantity: 1}}
		bundle := ""
		if sku == propertyBundle {
			parts, bundle = propertyKit, propertyBundle
		}
		for _, part := range parts {
			need := q * part.Quantity
			found := false
			for _, c := range candidates {
				k := poolKey(part.SKU, c, pool)
				if p.model.counters[k].Available()-taken[k] >= need {
					placed = modelTake(placed, k, need, bundle)
					taken[k] += need
					found = true
					break
				}
			}
			ok = ok && found
		}
	}
	res := p.submit(stockd.Command{Kind: stockd.KindReserve, Reserve: &stockd.Reserve{Lines: lines, TTL: ttl, Commit: commit, CustomerID: customer}})
	if res.Unstored && res.Err != nil && res.Err.Code == stockd.CodeInsufficientStock {
		// The engine's sold-out memory answered without a transaction, before
		// any limit is read, and changed nothing: right when the model finds
		// a line short too.
		if !ok {
			return
		}
		t.Fatalf("sold out without a transaction, model places %v", placed)
	}
	if customer != "" && limited > 0 && p.model.used(p.clock())+limited > propertyLimitMax {
		wantCode(t, "reserve", res, stockd.CodePurchaseLimitExceeded)
		return
	}
	if !ok {
		wantCode(t, "reserve", res, stockd.CodeInsufficientStock)
		return
	}
	wantCode(t, "reserve", res, "")
	byKey := func(ls []stockd.ReservationLine) {
		sort.Slice(ls, func(i, j int) bool { return ls[i].Key().Less(ls[j].Key()) })
	}
	byKey(placed)
	got := append([]stockd.ReservationLine(nil), res.Reservation.Lines...)
	byKey(got)
	if fmt.Sprint(got) != fmt.Sprint(placed) {
		t.Fatalf("placed %v, model expects %v", got, placed)
	}
	r := &modelReservation{id: res.Reservation.ID, status: stockd.StatusPending, lines: placed, expiresAt: p.clock().Add(ttl)}
	if customer != "" && limited > 0 {
		p.model.usage[r.id] = modelUsage{quantity: limited, at: p.clock()}
	}
	for _, l := range placed {
		p.model.add(l.Key(), stockd.Counters{Reserved: l.Quantity})
	}
	if commit {
		p.model.move(r, stockd.StatusConfirmed)
	}
	p.model.reservations[res.Reservation.ID] = r
	p.ids = append(p.ids, res.Reservation.ID)
}

func (p *propertyRun) transition(t *rapid.T) {
	if len(p.ids) == 0 {
		t.Skip("no reservation yet")
	}
	id := rapid.SampledFrom(p.ids).Draw(t, "reservation")
	kind := rapid.SampledFrom([]stockd.CommandKind{stockd.KindConfirm, stockd.KindRelease, stockd.KindExpire, stockd.KindFulfil}).Draw(t, "kind")
	res := p.submit(stockd.Command{Kind: kind, Transition: &stockd.Transition{ReservationID: id}})
	wantCode(t, string(kind), res, p.model.transition(kind, p.model.reservations[id], p.clock()))
}

func (p *propertyRun) advance(t *rapid.T) {
	p.now.Add(int64(time.Duration(rapid.IntRange(1, 700).Draw(t, "seconds")) * time.Second))
}

// replay resends an answered command with its key: the first answer comes
// back and nothing changes.
func (p *propertyRun) replay(t *rapid.T) {
	if len(p.history) == 0 {
		t.Skip("nothing sent yet")
	}
	old := rapid.SampledFrom(p.history).Draw(t, "request")
	res, err := p.engine.Submit(ctx, old.cmd)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(res)
	if !res.Replayed || string(again) != string(old.answer) {
		t.Fatalf("replay of %s answered %s (replayed %v), first answer was %s", old.cmd.Kind, again, res.Replayed, old.answer)
	}
}

// check compares the database with the model and verifies the books.
func (p *propertyRun) check(t *rapid.T) {
	for _, sku := range append(append([]string(nil), propertySKUs...), propertyBundle) {
		ps, err := p.store.PositionListBySKU(ctx, sku)
		if err != nil {
			t.Fatal(err)
		}
		got := map[stockd.PositionKey]stockd.Counters{}
		for _, pos := range ps {
			got[pos.PositionKey] = pos.Counters
		}
		for _, loc := range propertyLocations {
			for _, pool := range propertyPools {
				k := poolKey(sku, loc, pool)
				if g, w := got[k], p.model.counters[k]; g != w {
					t.Fatalf("%s@%s/%s: counters %+v, model %+v", sku, loc, pool, g, w)
				}
			}
		}
	}
	for id, want := range p.model.reservations {
		got, err := p.store.ReservationGet(ctx, id)
		if err != nil || got.Status != want.status {
			t.Fatalf("reservation %s: %s (%v), model %s", id, got.Status, err, want.status)
		}
	}
	rep, err := audit.Verify(ctx, p.store)
	if err != nil || !rep.Clean() {
		t.Fatalf("verify: %v %+v", err, rep.Differences)
	}
}

func TestReservationStateMachineProperty(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		b.New(t) // skips here, not inside rapid, when the backend is not configured
		rapid.Check(t, func(rt *rapid.T) {
			s := b.New(t)
			defer s.Close() // one store per case: release its connections now, not at the end
			p := &propertyRun{t: rt, store: s, now: &atomic.Int64{},
				model: model{counters: map[stockd.PositionKey]stockd.Counters{}, reservations: map[string]*modelReservation{}, usage: map[string]modelUsage{}}}
			p.now.Store(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).UnixNano())
			p.engine = engine.New(engine.Config{Store: s, Now: p.clock})
			defer p.engine.Close()
			for _, sku := range propertySKUs {
				p.submit(stockd.Command{Kind: stockd.KindSKUCreate, SKU: &stockd.SKU{ID: sku}})
			}
			p.submit(stockd.Command{Kind: stockd.KindLocationCreate, Location: &stockd.Location{ID: "w1", Priority: 1}})
			p.submit(stockd.Command{Kind: stockd.KindSKUCreate, SKU: &stockd.SKU{ID: propertyBundle}})
			wantCode(rt, "bundle", p.submit(stockd.Command{Kind: stockd.KindBundleCreate, Op: &stockd.BundleCreate{
				Bundle: propertyBundle, Components: append([]stockd.BundleComponent(nil), propertyKit...)}}), "")
			wantCode(rt, "limit", p.submit(stockd.Command{Kind: stockd.KindLimitSet, Op: &stockd.LimitSet{
				Scope: stockd.LimitScopeSKU, Target: propertyLimitSKU, MaxQuantityPerCustomer: propertyLimitMax,
				WindowSeconds: int64(propertyLimitWindow / time.Second)}}), "")
			rt.Repeat(map[string]func(*rapid.T){
				"receive":    p.receive,
				"adjust":     p.adjust,
				"reserve":    p.reserve,
				"transition": p.transition,
				"advance":    p.advance,
				"replay":     p.replay,
				"":           p.check,
			})
		})
	})
}
