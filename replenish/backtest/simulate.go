package backtest

import (
	"fmt"

	"github.com/stockd/stockd/replenish"
)

// Order is a purchase order the simulation placed.
type Order struct {
	SKU        string
	OrderDay   int
	ArrivalDay int
	Quantity   int64
}

// Notification is a notice the simulation gave: Kind is sent or digest.
type Notification struct {
	SKU   string
	Day   int
	Level string
	Kind  replenish.Notice
}

// PolicyResult is one policy's replay of the trace.
type PolicyResult struct {
	Summary Summary
	// PerSKU is the summary of each SKU, in the trace's order.
	PerSKU        []Summary
	Orders        []Order
	Notifications []Notification
}

// Result is both policies' replays of one trace, side by side.
type Result struct {
	Policy PolicyResult
	Fixed  PolicyResult
}

// Policy names, as the summary prints them.
const (
	PolicyReplenish = "replenish"
	PolicyFixed     = "fixed<10"
)

// FixedRuleLevel is the level the fixed rule's notifications carry.
const FixedRuleLevel = "below_threshold"

// Run replays the trace under the replenishment policy and under the
// fixed rule.
func Run(t *Trace, c Config) (*Result, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	// The run's settings with each SKU's, through the same Validate as
	// every day's computation, so a bad flag is refused before day one.
	for _, s := range t.SKUs {
		if err := policyInput(s, c, nil, 0, 0, replenish.ColdStart{}).Validate(); err != nil {
			return nil, fmt.Errorf("sku %s: %w", s.ID, err)
		}
	}
	policy, err := simulate(t, c, replenishPolicy{})
	if err != nil {
		return nil, err
	}
	fixed, err := simulate(t, c, fixedRule{threshold: c.FixedThreshold})
	if err != nil {
		return nil, err
	}
	policy.Summary.Policy = fmt.Sprintf("%s (%s, %s)", PolicyReplenish, c.OrderRule, c.Estimator)
	fixed.Summary.Policy = PolicyFixed
	return &Result{Policy: policy, Fixed: fixed}, nil
}

// skuState is one SKU's stock as the replay goes.
type skuState struct {
	onHand int64
	open   []Order
	// ordersPlaced numbers the SKU's orders: order k of either policy
	// gets the same realised lead time.
	ordersPlaced int
	// sales is what was served each day, for HistorySales.
	sales []int64
	// level is the replenishment level of the previous evaluation.
	level replenish.Level
}

func (s *skuState) incoming() int64 {
	var units int64
	for _, o := range s.open {
		units += o.Quantity
	}
	return units
}

// receive books the orders due today.
func (s *skuState) receive(day int) {
	open := s.open[:0]
	for _, o := range s.open {
		if o.ArrivalDay <= day {
			s.onHand += o.Quantity
		} else {
			open = append(open, o)
		}
	}
	s.open = open
}

type noticeKey struct {
	sku   int
	level string
	day   int
}

// replay is one policy's pass over a trace.
type replay struct {
	trace             *Trace
	config            Config
	policy            decider
	states            []skuState
	result            PolicyResult
	inventoryUnitDays []int64
	// notified is the dedup record: one notice per (SKU, level, day).
	notified map[noticeKey]bool
}

// simulate replays the trace day by day. Each day, for each launched SKU:
// orders due arrive in the morning; the policy evaluates the SKU as the
// daily job would, shown the history up to yesterday and nothing later,
// gives its notice and may order; then the day's demand is served from
// stock, and what cannot be served is lost. An order placed on day d with
// realised lead time ℓ arrives on the morning of day d+ℓ, so ℓ whole days
// of demand fall between the decision and the delivery, as the reorder
// point assumes.
func simulate(t *Trace, c Config, policy decider) (PolicyResult, error) {
	r := &replay{
		trace:             t,
		config:            c,
		policy:            policy,
		states:            make([]skuState, len(t.SKUs)),
		inventoryUnitDays: make([]int64, len(t.SKUs)),
		notified:          map[noticeKey]bool{},
	}
	r.result.PerSKU = make([]Summary, len(t.SKUs))
	for i, s := range t.SKUs {
		r.states[i].onHand = s.InitialOnHand
		r.states[i].sales = make([]int64, t.Days)
	}
	for day := range t.Days {
		peers := r.peersOn(day)
		for i := range t.SKUs {
			if day < t.Launch[i] {
				continue
			}
			r.states[i].receive(day)
			openedEmpty := r.states[i].onHand == 0
			if err := r.evaluate(i, day, peers); err != nil {
				return PolicyResult{}, err
			}
			r.serve(i, day, openedEmpty)
		}
	}
	for i := range r.result.PerSKU {
		r.result.PerSKU[i].Policy = t.SKUs[i].ID
		r.result.PerSKU[i].AverageInventory = float64(r.inventoryUnitDays[i]) / float64(t.Days)
		r.result.Summary.add(r.result.PerSKU[i])
	}
	return r.result, nil
}

// evaluate is the morning's decision for one SKU: the figures from the
// history up to yesterday and the stock after today's arrivals, then the
// policy's notice and order.
func (r *replay) evaluate(i, day int, peers *replenish.Peers) error {
	sku, s := r.trace.SKUs[i], &r.states[i]
	coldStart := peers.ColdStart(sku.Category, "", r.config.ColdStartDefault)
	f, err := replenish.Compute(policyInput(sku, r.config, r.historyBefore(i, day), s.onHand, s.incoming(), coldStart))
	if err != nil {
		return fmt.Errorf("sku %s on %s: %w", sku.ID, r.trace.Date(day), err)
	}
	reviewDay := (day-r.trace.Launch[i])%r.config.ReviewDays == 0
	d := r.policy.decide(s, sku, f, reviewDay)
	sum := &r.result.PerSKU[i]
	if key := (noticeKey{sku: i, level: d.level, day: day}); d.notice != replenish.NoticeNone && !r.notified[key] {
		r.notified[key] = true
		r.result.Notifications = append(r.result.Notifications, Notification{SKU: sku.ID, Day: day, Level: d.level, Kind: d.notice})
		if d.notice == replenish.NoticeSent {
			sum.NotificationsSent++
		} else {
			sum.NotificationsDigest++
		}
	}
	if d.quantity > 0 {
		o := Order{SKU: sku.ID, OrderDay: day, ArrivalDay: day + realisedLeadTimeDays(r.config.Seed, sku, s.ordersPlaced), Quantity: d.quantity}
		s.ordersPlaced++
		s.open = append(s.open, o)
		r.result.Orders = append(r.result.Orders, o)
		sum.Orders++
		sum.UnitsOrdered += o.Quantity
	}
	return nil
}

// serve meets the day's demand from stock and counts what it cost.
func (r *replay) serve(i, day int, openedEmpty bool) {
	s, sum := &r.states[i], &r.result.PerSKU[i]
	demand := r.trace.Demand[i][day]
	served := min(demand, s.onHand)
	s.onHand -= served
	s.sales[day] = served
	sum.SKUDays++
	sum.Demand += demand
	sum.DemandLost += demand - served
	if openedEmpty || served < demand {
		sum.StockoutDays++
	}
	if s.onHand == 0 {
		sum.EndedEmptyDays++
	}
	r.inventoryUnitDays[i] += s.onHand
}

// historyBefore is the window the policy sees on the morning of day: at
// most DemandWindowDays, never before the SKU's launch, ending yesterday.
func (r *replay) historyBefore(i, day int) []int64 {
	from := max(r.trace.Launch[i], day-r.config.DemandWindowDays)
	if r.config.History == HistorySales {
		return r.states[i].sales[from:day]
	}
	return r.trace.Demand[i][from:day]
}

// peersOn averages, by category, the estimates of SKUs with enough history
// on the morning of day, for the cold start of those without. The trace
// has no price bands, so the first fallback is the category.
func (r *replay) peersOn(day int) *replenish.Peers {
	peers := &replenish.Peers{}
	for i, sku := range r.trace.SKUs {
		if day < r.trace.Launch[i] {
			continue
		}
		if e, ok := replenish.HistoryEstimate(r.historyBefore(i, day)); ok {
			peers.Add(sku.Category, "", e)
		}
	}
	return peers
}
