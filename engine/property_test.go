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
// package: counters per position, a status per reservation, the limited
// customer's usage, the campaigns' windows and whether each closed, and a
// status per approval.
type modelReservation struct {
	id        string
	status    stockd.ReservationStatus
	lines     []stockd.ReservationLine
	expiresAt time.Time
	// limited is what the reservation counted against the limited
	// customer's limit (0 for other customers), counted again by a
	// re-reserve.
	limited int64
}

type model struct {
	counters     map[stockd.PositionKey]stockd.Counters
	reservations map[string]*modelReservation
	// usage is what each reservation of the limited customer counts
	// against the limit on propertyLimitSKU, by reservation id.
	usage map[string]modelUsage
	// campaigns are the campaign pools created so far, by name, and
	// campaignNames the same names in order of creation.
	campaigns     map[string]*modelCampaign
	campaignNames []string
	// approvals are the adjustments beyond their threshold, by id.
	approvals   map[string]*modelApproval
	approvalIDs []string
	// exceptions are the reservations a late confirm recorded a
	// late_payment exception for.
	exceptions map[string]bool
}

// modelCampaign is a campaign pool: sellable in [starts, ends) until closed.
type modelCampaign struct {
	starts, ends time.Time
	closed       bool
}

func (c *modelCampaign) sellable(now time.Time) bool {
	return !c.closed && !now.Before(c.starts) && now.Before(c.ends)
}

// modelApproval is an adjustment of delta at k waiting for another actor.
type modelApproval struct {
	k           stockd.PositionKey
	delta       int64
	requestedBy string
	expiresAt   time.Time
	status      string
}

type modelUsage struct {
	quantity int64
	at       time.Time
}

var (
	propertySKUs      = []string{"a", "b", "c"}
	propertyLocations = []string{"default", "w1"} // priority 0, then 1
	// propertyPools: normal, and a channel pool (no fallback), stocked by
	// receipts straight into it.
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
	// propertyCampaignsMax bounds the campaign pools one case creates.
	propertyCampaignsMax = 2
	// propertyActors are the keys behind adjustments and approvals.
	propertyActors = []string{"alice", "bob"}
	// propertyThresholdSKU needs an approval for an adjustment beyond
	// propertyThreshold units (the default of 100 is never reached here).
	propertyThresholdSKU = "b"
	propertyThreshold    = int64(5)
)

func threshold(sku string) int64 {
	if sku == propertyThresholdSKU {
		return propertyThreshold
	}
	return stockd.ApprovalThresholdDefault
}

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
	if r.status == stockd.StatusPending && to != stockd.StatusConfirmed {
		// What a closed campaign's pool gets back goes on to normal.
		for _, l := range r.lines {
			if c := m.campaigns[l.Pool]; c != nil && c.closed {
				if q := min(l.Quantity, m.counters[l.Key()].Available()); q > 0 {
					m.poolMove(l.Key(), stockd.PoolDefault, q)
				}
			}
		}
	}
	r.status = to
}

// poolMove moves q of on_hand from k to the same SKU and location in pool.
func (m *model) poolMove(k stockd.PositionKey, pool string, q int64) {
	m.add(k, stockd.Counters{OnHand: -q})
	m.add(poolKey(k.SKU, k.Location, pool), stockd.Counters{OnHand: q})
}

// pools lists every pool the model knows: normal, the channel and the
// campaigns created so far.
func (m *model) pools() []string {
	return append(append([]string(nil), propertyPools...), m.campaignNames...)
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
			// A late confirm records the payment (on_late exception).
			m.exceptions[r.id] = true
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

// lateConfirm is the model of a confirm with on_late: what a late one
// answers, and whether it re-reserved. The first late confirm decides: an
// exception recorded stands for every later one.
func (m *model) lateConfirm(r *modelReservation, reReserve bool, now time.Time) (string, bool) {
	if r.status == stockd.StatusPending && !now.Before(r.expiresAt) {
		m.move(r, stockd.StatusExpired)
	}
	if r.status != stockd.StatusExpired {
		return m.transition(stockd.KindConfirm, r, now), false
	}
	if !reReserve || m.exceptions[r.id] {
		m.exceptions[r.id] = true
		return stockd.CodeReservationExpired, false
	}
	need := map[stockd.PositionKey]int64{}
	for _, l := range r.lines {
		need[l.Key()] += l.Quantity
		if c := m.campaigns[l.Pool]; c != nil && !c.sellable(now) {
			m.exceptions[r.id] = true
			return stockd.CodeReservationExpired, false
		}
	}
	for k, q := range need {
		if m.counters[k].Available() < q {
			m.exceptions[r.id] = true
			return stockd.CodeReservationExpired, false
		}
	}
	if r.limited > 0 && m.used(now)+r.limited > propertyLimitMax {
		m.exceptions[r.id] = true
		return stockd.CodeReservationExpired, false
	}
	for _, l := range r.lines {
		m.add(l.Key(), stockd.Counters{Reserved: l.Quantity})
	}
	r.status = stockd.StatusPending
	m.move(r, stockd.StatusConfirmed)
	if r.limited > 0 {
		m.usage[r.id] = modelUsage{quantity: r.limited, at: now}
	}
	return "", true
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
		p.t.Fatalf("%s: %v", cmd.Kind(), err)
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
	wantCode(t, "receive", p.submit(stockd.Command{Op: &stockd.Receive{Position: k, Quantity: q}}), "")
	p.model.add(k, stockd.Counters{OnHand: q})
}

func (p *propertyRun) adjust(t *rapid.T) {
	k := key(rapid.SampledFrom(propertySKUs).Draw(t, "sku"), rapid.SampledFrom(propertyLocations).Draw(t, "location"))
	delta := rapid.Int64Range(-10, 10).Filter(func(d int64) bool { return d != 0 }).Draw(t, "delta")
	actor := rapid.SampledFrom(propertyActors).Draw(t, "actor")
	res := p.submit(stockd.Command{Actor: actor, Op: &stockd.Adjust{Position: k, Reason: stockd.ReasonCorrection, Delta: delta}})
	after := p.model.counters[k].Add(stockd.Counters{OnHand: delta})
	if after.OnHand < 0 || after.Available() < 0 {
		// Refused at once even beyond the threshold: an approval of it
		// could not apply either.
		wantCode(t, "adjust", res, stockd.CodeInsufficientStock)
		return
	}
	wantCode(t, "adjust", res, "")
	if delta < -threshold(k.SKU) || delta > threshold(k.SKU) {
		var ap stockd.Approval
		if !res.Pending || res.Position != nil || json.Unmarshal(res.Object, &ap) != nil || ap.Status != stockd.ApprovalPending {
			t.Fatalf("adjust of %d beyond the threshold answered %+v, model expects a pending approval", delta, res)
		}
		p.model.approvals[ap.ID] = &modelApproval{k: k, delta: delta, requestedBy: actor,
			expiresAt: p.clock().Add(stockd.ApprovalTTL), status: stockd.ApprovalPending}
		p.model.approvalIDs = append(p.model.approvalIDs, ap.ID)
		return
	}
	if res.Pending || res.Position == nil || res.Position.Counters != after {
		t.Fatalf("adjust of %d answered %+v, model expects position %+v", delta, res, after)
	}
	p.model.counters[k] = after
}

// decide approves or rejects a pending adjustment as one of the actors;
// the requester approving is refused, a second approval changes nothing.
func (p *propertyRun) decide(t *rapid.T) {
	if len(p.model.approvalIDs) == 0 {
		t.Skip("no approval yet")
	}
	id := rapid.SampledFrom(p.model.approvalIDs).Draw(t, "approval")
	if rapid.IntRange(0, 19).Draw(t, "wait_past_ttl") == 0 {
		// Rarely, since it also ends every hold and campaign: the decision
		// comes too late and finds the approval expired.
		p.now.Add(int64(stockd.ApprovalTTL))
	}
	reject := rapid.Bool().Draw(t, "reject")
	actor := rapid.SampledFrom(propertyActors).Draw(t, "actor")
	op := &stockd.ApprovalDecision{ID: id, Reject: reject}
	res := p.submit(stockd.Command{Actor: actor, Op: op})
	ap := p.model.approvals[id]
	if ap.status == stockd.ApprovalPending && !p.clock().Before(ap.expiresAt) {
		ap.status = stockd.ApprovalExpired
	}
	code := p.model.decide(ap, reject, actor)
	wantCode(t, string(op.Kind()), res, code)
	if code != "" {
		return
	}
	var got stockd.Approval
	if err := json.Unmarshal(res.Object, &got); err != nil || got.Status != ap.status {
		t.Fatalf("%s answered %s (%v), model expects status %s", op.Kind(), res.Object, err, ap.status)
	}
	if ap.status == stockd.ApprovalApproved {
		p.approvedOnce(t, id, ap)
	}
}

// approvedOnce checks the ledger holds one entry of the approved
// adjustment, naming requester and approver, however often it was
// approved.
func (p *propertyRun) approvedOnce(t *rapid.T, id string, ap *modelApproval) {
	entries, err := p.store.LedgerList(ctx, store.LedgerListParams{SKU: ap.k.SKU, Limit: stockd.PageSizeMax})
	if err != nil {
		t.Fatal(err)
	}
	var found []stockd.LedgerEntry
	for _, e := range entries {
		if e.BusinessType == stockd.BusinessAdjustment && e.BusinessID == id {
			found = append(found, e)
		}
	}
	if len(found) != 1 || found[0].Delta.OnHand != ap.delta || found[0].Actor != ap.requestedBy || found[0].Approver == "" || found[0].Approver == ap.requestedBy {
		t.Fatalf("approval %s: ledger entries %+v, want one of %d by %s with another approver", id, found, ap.delta, ap.requestedBy)
	}
}

// decide returns the error code the model expects of a decision on ap
// ("" for success) and applies it.
func (m *model) decide(ap *modelApproval, reject bool, actor string) string {
	if reject {
		switch ap.status {
		case stockd.ApprovalPending:
			ap.status = stockd.ApprovalRejected
			return ""
		case stockd.ApprovalRejected:
			return ""
		}
		return stockd.CodeInvalidTransition
	}
	if actor == ap.requestedBy {
		return stockd.CodeSelfApproval
	}
	switch ap.status {
	case stockd.ApprovalApproved:
		return ""
	case stockd.ApprovalPending:
	default:
		return stockd.CodeInvalidTransition
	}
	// Checked again against the stock as it is now; a refusal leaves it
	// pending.
	after := m.counters[ap.k].Add(stockd.Counters{OnHand: ap.delta})
	if after.OnHand < 0 || after.Available() < 0 {
		return stockd.CodeInsufficientStock
	}
	m.counters[ap.k] = after
	ap.status = stockd.ApprovalApproved
	return ""
}

// pools creates, stocks and closes campaign pools: one action among the
// others, so that the others keep their share of the steps, with closes
// rarer than allocations, so that campaigns live long enough to sell.
func (p *propertyRun) pools(t *rapid.T) {
	n := rapid.IntRange(0, 9).Draw(t, "pool_action")
	switch {
	case len(p.model.campaignNames) == 0 || (n == 0 && len(p.model.campaignNames) < propertyCampaignsMax):
		p.campaign(t)
	case n >= 8:
		p.closeCampaign(t)
	default:
		from, to := stockd.PoolDefault, rapid.SampledFrom(p.model.campaignNames).Draw(t, "campaign")
		if rapid.IntRange(0, 3).Draw(t, "back") == 0 {
			from, to = to, from
		}
		p.allocate(t, from, to)
	}
}

// campaign creates a campaign pool whose window opens somewhere between
// ten minutes ago and ten minutes from now.
func (p *propertyRun) campaign(t *rapid.T) {
	if len(p.model.campaignNames) >= propertyCampaignsMax {
		t.Skip("enough campaigns")
	}
	name := fmt.Sprintf("camp%d", len(p.model.campaignNames)+1)
	starts := p.clock().Add(time.Duration(rapid.IntRange(-600, 600).Draw(t, "starts_in_seconds")) * time.Second)
	ends := starts.Add(time.Duration(rapid.IntRange(1800, 7200).Draw(t, "window_seconds")) * time.Second)
	res := p.submit(stockd.Command{Op: &stockd.PoolCreate{Pool: stockd.Pool{
		ID: name, Kind: stockd.PoolCampaign, StartsAt: &starts, EndsAt: &ends}}})
	wantCode(t, "pool_create", res, "")
	if !res.Created {
		t.Fatalf("pool_create answered %+v, model expects created", res)
	}
	p.model.campaigns[name] = &modelCampaign{starts: starts, ends: ends}
	p.model.campaignNames = append(p.model.campaignNames, name)
	// Stocked at once, most of the time: a campaign without stock sells
	// nothing for the model to check.
	for range rapid.IntRange(0, 3).Draw(t, "allocations") {
		p.allocate(t, stockd.PoolDefault, name)
	}
}

// allocate moves available stock between normal and a campaign pool, in
// either direction.
func (p *propertyRun) allocate(t *rapid.T, from, to string) {
	// Mostly from a position that holds something, so that stock moves.
	var stocked []stockd.PositionKey
	for _, sku := range propertySKUs {
		for _, loc := range propertyLocations {
			if k := poolKey(sku, loc, from); p.model.counters[k].Available() > 0 {
				stocked = append(stocked, k)
			}
		}
	}
	src := poolKey(rapid.SampledFrom(propertySKUs).Draw(t, "sku"), rapid.SampledFrom(propertyLocations).Draw(t, "location"), from)
	if len(stocked) > 0 && rapid.IntRange(0, 3).Draw(t, "stocked") > 0 {
		src = rapid.SampledFrom(stocked).Draw(t, "stocked_position")
	}
	sku, loc := src.SKU, src.Location
	// Mostly what the source holds, sometimes one more.
	q := rapid.Int64Range(1, max(p.model.counters[src].Available()+1, 1)).Draw(t, "quantity")
	res := p.submit(stockd.Command{Op: &stockd.Allocate{SKU: sku, Location: loc, FromPool: from, ToPool: to, Quantity: q}})
	switch {
	case to != stockd.PoolDefault && p.model.campaigns[to].closed:
		wantCode(t, "allocate", res, stockd.CodeCampaignNotActive)
	case p.model.counters[src].Available() < q:
		wantCode(t, "allocate", res, stockd.CodeInsufficientStock)
	default:
		wantCode(t, "allocate", res, "")
		p.model.poolMove(src, to, q)
		var got stockd.Allocation
		dst := poolKey(sku, loc, to)
		if err := json.Unmarshal(res.Object, &got); err != nil || got.Quantity != q ||
			got.From.PositionKey != src || got.From.Counters != p.model.counters[src] ||
			got.To.PositionKey != dst || got.To.Counters != p.model.counters[dst] {
			t.Fatalf("allocate answered %s (%v), model expects %+v then %+v", res.Object, err, p.model.counters[src], p.model.counters[dst])
		}
	}
}

// closeCampaign closes a campaign pool, again or for the first time: its
// available leftovers go back to normal once.
func (p *propertyRun) closeCampaign(t *rapid.T) {
	if len(p.model.campaignNames) == 0 {
		t.Skip("no campaign yet")
	}
	name := rapid.SampledFrom(p.model.campaignNames).Draw(t, "campaign")
	c := p.model.campaigns[name]
	if c.sellable(p.clock()) {
		// An order lands just before the close and stays open over it.
		p.sellIn(t, name, false)
	}
	res := p.submit(stockd.Command{Op: &stockd.CampaignClose{Pool: name}})
	wantCode(t, "campaign_close", res, "")
	if !c.closed {
		for k, counters := range p.model.counters {
			if k.Pool == name && counters.Available() > 0 {
				p.model.poolMove(k, stockd.PoolDefault, counters.Available())
			}
		}
		c.closed = true
	}
	var got stockd.Pool
	if err := json.Unmarshal(res.Object, &got); err != nil || got.ClosedAt == nil {
		t.Fatalf("campaign_close answered %s (%v), model expects a closed pool", res.Object, err)
	}
	// An order held in the campaign is then cancelled: its stock
	// must follow the leftovers to normal. Left alone, that is rare.
	var holding []string
	for _, id := range p.ids {
		r := p.model.reservations[id]
		for _, l := range r.lines {
			if l.Pool == name && r.status == stockd.StatusPending {
				holding = append(holding, id)
				break
			}
		}
	}
	if len(holding) > 0 {
		id := rapid.SampledFrom(holding).Draw(t, "held")
		res := p.submit(stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: id}})
		wantCode(t, "release", res, p.model.transition(stockd.KindRelease, p.model.reservations[id], p.clock()))
	}
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
	var lines []stockd.LineRequest
	for _, sku := range skus {
		loc := rapid.SampledFrom(append([]string{""}, propertyLocations...)).Draw(t, "location")
		// Normal half of the time, then the channel or a campaign.
		pool := stockd.PoolDefault
		if rapid.Bool().Draw(t, "other_pool") {
			pool = rapid.SampledFrom(p.model.pools()[1:]).Draw(t, "pool")
		}
		q := rapid.Int64Range(1, 8).Draw(t, "quantity")
		lines = append(lines, stockd.LineRequest{SKU: sku, Location: loc, Pool: pool, Quantity: q})
	}
	p.order(t, "reserve", lines, rapid.Bool().Draw(t, "commit"))
}

// sell orders one SKU a campaign holds, mostly no more than it holds: the
// orders of reserve seldom find a campaign stocked and open.
func (p *propertyRun) sell(t *rapid.T) {
	if len(p.model.campaignNames) == 0 {
		t.Skip("no campaign yet")
	}
	p.sellIn(t, rapid.SampledFrom(p.model.campaignNames).Draw(t, "campaign"), rapid.Bool().Draw(t, "commit"))
}

// sellIn orders from campaign, confirmed at once when commit.
func (p *propertyRun) sellIn(t *rapid.T, campaign string, commit bool) {
	var stocked []string
	held := map[string]int64{}
	for _, sku := range propertySKUs {
		for _, loc := range propertyLocations {
			held[sku] += p.model.counters[poolKey(sku, loc, campaign)].Available()
		}
		if held[sku] > 0 {
			stocked = append(stocked, sku)
		}
	}
	if len(stocked) == 0 {
		stocked = propertySKUs
	}
	sku := rapid.SampledFrom(stocked).Draw(t, "sku")
	q := rapid.Int64Range(1, held[sku]+1).Draw(t, "quantity")
	p.order(t, "sell", []stockd.LineRequest{{SKU: sku, Pool: campaign, Quantity: q}}, commit)
}

// order reserves lines and checks the answer against the model.
func (p *propertyRun) order(t *rapid.T, what string, lines []stockd.LineRequest, commit bool) {
	ttl := time.Duration(rapid.IntRange(60, 600).Draw(t, "ttl_seconds")) * time.Second
	customer := rapid.SampledFrom([]string{"", propertyCustomer}).Draw(t, "customer")
	var placed []stockd.ReservationLine
	taken := map[stockd.PositionKey]int64{}
	var limited int64
	ok, active := true, true
	for _, l := range lines {
		if c := p.model.campaigns[l.Pool]; c != nil && !c.sellable(p.clock()) {
			active = false
		}
		if l.SKU == propertyLimitSKU {
			limited += l.Quantity
		}
		candidates := propertyLocations
		if l.Location != "" {
			candidates = []string{l.Location}
		}
		// A bundle places its components, each on its own, in order.
		parts := []stockd.BundleComponent{{SKU: l.SKU, Quantity: 1}}
		bundle := ""
		if l.SKU == propertyBundle {
			parts, bundle = propertyKit, propertyBundle
		}
		for _, part := range parts {
			need := l.Quantity * part.Quantity
			found := false
			for _, c := range candidates {
				k := poolKey(part.SKU, c, l.Pool)
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
	res := p.submit(stockd.Command{Op: &stockd.Reserve{Lines: lines, TTL: ttl, Commit: commit, CustomerID: customer}})
	if res.Unstored && res.Err != nil && res.Err.Code == stockd.CodeInsufficientStock {
		// The engine's sold-out memory answered without a transaction, before
		// any pool or limit is read, and changed nothing: right when the
		// model finds a line short too.
		if !ok {
			return
		}
		t.Fatalf("sold out without a transaction, model places %v", placed)
	}
	if !active {
		// Refused before the limit and the stock are looked at.
		wantCode(t, what, res, stockd.CodeCampaignNotActive)
		return
	}
	if customer != "" && limited > 0 && p.model.used(p.clock())+limited > propertyLimitMax {
		wantCode(t, what, res, stockd.CodePurchaseLimitExceeded)
		return
	}
	if !ok {
		wantCode(t, what, res, stockd.CodeInsufficientStock)
		return
	}
	wantCode(t, what, res, "")
	byKey := func(ls []stockd.ReservationLine) {
		sort.Slice(ls, func(i, j int) bool { return ls[i].Key().Less(ls[j].Key()) })
	}
	byKey(placed)
	got := append([]stockd.ReservationLine(nil), res.Reservation.Lines...)
	byKey(got)
	if fmt.Sprint(got) != fmt.Sprint(placed) {
		t.Fatalf("%s placed %v, model expects %v", what, got, placed)
	}
	r := &modelReservation{id: res.Reservation.ID, status: stockd.StatusPending, lines: placed, expiresAt: p.clock().Add(ttl)}
	if customer != "" {
		r.limited = limited
	}
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
	res := p.submit(stockd.Command{Op: &stockd.Transition{Action: kind, ReservationID: id}})
	wantCode(t, string(kind), res, p.model.transition(kind, p.model.reservations[id], p.clock()))
}

// latePay confirms with on_late (re_reserve or the default exception),
// mostly a reservation past its deadline: the model says whether it is
// confirmed again or answered reservation_expired naming an exception.
func (p *propertyRun) latePay(t *rapid.T) {
	if len(p.ids) == 0 {
		t.Skip("no reservation yet")
	}
	id := rapid.SampledFrom(p.ids).Draw(t, "reservation")
	onLate := rapid.SampledFrom([]string{stockd.OnLateReReserve, stockd.OnLateException}).Draw(t, "on_late")
	res := p.submit(stockd.Command{Op: &stockd.Transition{Action: stockd.KindConfirm, ReservationID: id, OnLate: onLate, PaymentReference: "pay"}})
	code, again := p.model.lateConfirm(p.model.reservations[id], onLate == stockd.OnLateReReserve, p.clock())
	wantCode(t, "late confirm", res, code)
	if res.ReReserved != again {
		t.Fatalf("late confirm of %s: re_reserved %v, model expects %v", id, res.ReReserved, again)
	}
	if code == stockd.CodeReservationExpired {
		e, err := p.store.ExceptionGet(ctx, res.Err.ExceptionID)
		if err != nil || e.ReservationID != id || e.Kind != stockd.ExceptionLatePayment {
			t.Fatalf("late confirm of %s named exception %q: %+v, %v", id, res.Err.ExceptionID, e, err)
		}
	}
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
		t.Fatalf("replay of %s answered %s (replayed %v), first answer was %s", old.cmd.Kind(), again, res.Replayed, old.answer)
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
			for _, pool := range p.model.pools() {
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
	for id, want := range p.model.approvals {
		d, err := p.store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocApproval, ID: id})
		var got stockd.Approval
		if err == nil {
			err = json.Unmarshal(d.Body, &got)
		}
		if err != nil || got.Status != want.status {
			t.Fatalf("approval %s: %s (%v), model %s", id, got.Status, err, want.status)
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
				model: model{counters: map[stockd.PositionKey]stockd.Counters{}, reservations: map[string]*modelReservation{}, usage: map[string]modelUsage{},
					campaigns: map[string]*modelCampaign{}, approvals: map[string]*modelApproval{}, exceptions: map[string]bool{}}}
			p.now.Store(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC).UnixNano())
			// Several appliers: every command still waits for its answer, so the
			// model's order holds, and each takes the route of what it touches.
			p.engine = engine.New(engine.Config{Store: s, Now: p.clock, Appliers: 3})
			defer p.engine.Close()
			for _, sku := range propertySKUs {
				p.submit(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: sku}}})
			}
			p.submit(stockd.Command{Op: &stockd.LocationCreate{Location: stockd.Location{ID: "w1", Priority: 1}}})
			wantCode(rt, "channel", p.submit(stockd.Command{Op: &stockd.PoolCreate{Pool: stockd.Pool{
				ID: propertyPools[1], Kind: stockd.PoolChannel}}}), "")
			p.submit(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: propertyBundle, Bundle: true}}})
			wantCode(rt, "bundle", p.submit(stockd.Command{Op: &stockd.BundleCreate{
				Bundle: propertyBundle, Components: append([]stockd.BundleComponent(nil), propertyKit...)}}), "")
			wantCode(rt, "limit", p.submit(stockd.Command{Op: &stockd.LimitSet{
				Scope: stockd.LimitScopeSKU, Target: propertyLimitSKU, MaxQuantityPerCustomer: propertyLimitMax,
				WindowSeconds: int64(propertyLimitWindow / time.Second)}}), "")
			approvalThreshold := propertyThreshold
			wantCode(rt, "threshold", p.submit(stockd.Command{Op: &stockd.SKUUpdate{
				ID: propertyThresholdSKU, ApprovalThreshold: &approvalThreshold}}), "")
			rt.Repeat(map[string]func(*rapid.T){
				"receive":    p.receive,
				"adjust":     p.adjust,
				"decide":     p.decide,
				"pools":      p.pools,
				"sell":       p.sell,
				"reserve":    p.reserve,
				"transition": p.transition,
				"late_pay":   p.latePay,
				"advance":    p.advance,
				"replay":     p.replay,
				"":           p.check,
			})
		})
	})
}
