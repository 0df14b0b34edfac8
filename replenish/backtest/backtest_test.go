package backtest

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stockd/stockd/replenish"
)

func mustRun(t *testing.T, trace *Trace, c Config) *Result {
	t.Helper()
	res, err := Run(trace, c)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func seeded(seed uint64) Config {
	c := DefaultConfig()
	c.Seed = seed
	return c
}

func mustGen(t *testing.T, seed uint64, skus, days int) *Trace {
	t.Helper()
	trace, err := GenTrace(seed, skus, days)
	if err != nil {
		t.Fatal(err)
	}
	return trace
}

// TestDecisionsAreCausal changes every SKU's demand after day D and checks
// that no order or notification up to D moved: the policy never saw the
// future. It checks both policies and both kinds of history, and that the
// change did make a difference later (or the test would prove nothing).
func TestDecisionsAreCausal(t *testing.T) {
	const lastUnchangedDay = 100
	original := mustGen(t, 11, 80, 200)
	changed := mustGen(t, 11, 80, 200)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range changed.Demand {
		for day := lastUnchangedDay + 1; day < changed.Days; day++ {
			changed.Demand[i][day] = changed.Demand[i][day]*3 + int64(r.IntN(5))
		}
	}
	for _, history := range []History{HistoryDemand, HistorySales} {
		c := DefaultConfig()
		c.Seed, c.History = 5, history
		before, after := mustRun(t, original, c), mustRun(t, changed, c)
		for _, p := range []struct {
			name          string
			before, after PolicyResult
		}{
			{"policy", before.Policy, after.Policy},
			{"fixed rule", before.Fixed, after.Fixed},
		} {
			if a, b := ordersUpTo(p.before.Orders, lastUnchangedDay), ordersUpTo(p.after.Orders, lastUnchangedDay); !reflect.DeepEqual(a, b) {
				t.Errorf("%s, %s history: orders up to day %d differ", p.name, history, lastUnchangedDay)
			}
			if a, b := notificationsUpTo(p.before.Notifications, lastUnchangedDay), notificationsUpTo(p.after.Notifications, lastUnchangedDay); !reflect.DeepEqual(a, b) {
				t.Errorf("%s, %s history: notifications up to day %d differ", p.name, history, lastUnchangedDay)
			}
			if reflect.DeepEqual(p.before.Orders, p.after.Orders) {
				t.Errorf("%s, %s history: the changed demand changed no order at all", p.name, history)
			}
		}
	}
}

func ordersUpTo(orders []Order, day int) []Order {
	var kept []Order
	for _, o := range orders {
		if o.OrderDay <= day {
			kept = append(kept, o)
		}
	}
	return kept
}

func notificationsUpTo(notes []Notification, day int) []Notification {
	var kept []Notification
	for _, n := range notes {
		if n.Day <= day {
			kept = append(kept, n)
		}
	}
	return kept
}

// TestBothPoliciesShareLeadTimes: the k-th order of a SKU waits as long
// under either policy.
func TestBothPoliciesShareLeadTimes(t *testing.T) {
	res := mustRun(t, mustGen(t, 3, 60, 200), seeded(9))
	leadTimes := func(orders []Order) map[string][]int {
		m := map[string][]int{}
		for _, o := range orders {
			m[o.SKU] = append(m[o.SKU], o.ArrivalDay-o.OrderDay)
		}
		return m
	}
	policy, fixed := leadTimes(res.Policy.Orders), leadTimes(res.Fixed.Orders)
	compared := 0
	for sku, fixedTimes := range fixed {
		for k, days := range fixedTimes {
			if k < len(policy[sku]) {
				compared++
				if policy[sku][k] != days {
					t.Fatalf("%s order %d: %d days under the policy, %d under the fixed rule", sku, k, policy[sku][k], days)
				}
			}
			if days < 1 {
				t.Fatalf("%s order %d: lead time %d", sku, k, days)
			}
		}
	}
	if compared == 0 {
		t.Fatal("no orders to compare")
	}
	again := mustRun(t, mustGen(t, 3, 60, 200), seeded(9))
	if !reflect.DeepEqual(again, res) {
		t.Error("the same seed gave another replay")
	}
}

// TestNotices: one notice per (SKU, level, day); a digest only while an
// order is open; sent notices at most one per order.
func TestNotices(t *testing.T) {
	trace := mustGen(t, 4, 120, 365)
	res := mustRun(t, trace, seeded(1))
	seen := map[Notification]bool{}
	for _, n := range res.Policy.Notifications {
		key := Notification{SKU: n.SKU, Day: n.Day, Level: n.Level}
		if seen[key] {
			t.Fatalf("two notices for %+v", key)
		}
		seen[key] = true
		if n.Kind == replenish.NoticeDigest && !orderOpen(res.Policy.Orders, n.SKU, n.Day) {
			t.Fatalf("a digest without an open order: %+v", n)
		}
		if n.Kind != replenish.NoticeSent && n.Kind != replenish.NoticeDigest {
			t.Fatalf("notice kind %q", n.Kind)
		}
	}
	s := res.Policy.Summary
	if s.NotificationsDigest == 0 || s.NotificationsSent == 0 {
		t.Errorf("sent %d, digest %d: suppression never exercised", s.NotificationsSent, s.NotificationsDigest)
	}
	if s.SentPerOrder() > TargetSentPerOrder {
		t.Errorf("%.2f sent notifications per order", s.SentPerOrder())
	}
}

func orderOpen(orders []Order, sku string, day int) bool {
	for _, o := range orders {
		if o.SKU == sku && o.OrderDay < day && o.ArrivalDay > day {
			return true
		}
	}
	return false
}

// TestSummaryAddsUp: the totals are the sums of the SKUs and agree with
// the lists of orders and notifications.
func TestSummaryAddsUp(t *testing.T) {
	trace := mustGen(t, 8, 50, 200)
	res := mustRun(t, trace, DefaultConfig())
	for _, p := range []PolicyResult{res.Policy, res.Fixed} {
		var total Summary
		for _, s := range p.PerSKU {
			total.add(s)
		}
		total.Policy = p.Summary.Policy
		if total != p.Summary {
			t.Errorf("%s: totals %+v, sum of SKUs %+v", p.Summary.Policy, p.Summary, total)
		}
		if p.Summary.Orders != int64(len(p.Orders)) || p.Summary.NotificationsSent+p.Summary.NotificationsDigest != int64(len(p.Notifications)) {
			t.Errorf("%s: counts disagree with the lists", p.Summary.Policy)
		}
		if p.Summary.SKUDays == 0 || p.Summary.Demand == 0 {
			t.Errorf("%s: nothing simulated", p.Summary.Policy)
		}
	}
}

// TestPolicyBeatsTheFixedRule is a regression guard on a smaller trace
// than the benchmark's (docs/benchmarks.md has the measured one-year,
// 1,000-SKU figures): far fewer stockout-days, about the same stock.
func TestPolicyBeatsTheFixedRule(t *testing.T) {
	if testing.Short() {
		t.Skip("a year of 250 SKUs")
	}
	res := mustRun(t, mustGen(t, 1, 250, 365), seeded(1))
	c := res.Compare()
	if c.StockoutDaysFewerPercent < 90 || c.InventoryChangePercent > 15 || c.SentPerOrder > 1 {
		t.Errorf("stockout-days %.1f %% fewer, inventory %+.1f %%, %.2f sent per order", c.StockoutDaysFewerPercent, c.InventoryChangePercent, c.SentPerOrder)
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	trace := mustGen(t, 1, 5, 30)
	for _, edit := range []func(*Config){
		func(c *Config) { c.DemandWindowDays = 13 },
		func(c *Config) { c.DemandWindowDays = replenish.DemandWindowDaysMax + 1 },
		func(c *Config) { c.History = "rumour" },
		func(c *Config) { c.FixedThreshold = 0 },
		func(c *Config) { c.OrderRule = "eoq" },
		func(c *Config) { c.ReviewDays = 0 },
		func(c *Config) { c.SlowMovingDays = 0 },
		func(c *Config) { c.ColdStartDefault = replenish.Estimate{MeanDaily: 2} },
	} {
		c := DefaultConfig()
		edit(&c)
		if _, err := Run(trace, c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestGenTrace(t *testing.T) {
	a, b := mustGen(t, 2, 300, 365), mustGen(t, 2, 300, 365)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave another trace")
	}
	if small := mustGen(t, 2, 10, 365); !reflect.DeepEqual(small.SKUs, a.SKUs[:10]) {
		t.Error("SKU i depends on the number of SKUs")
	}
	kinds := map[string]int{}
	late := 0
	for i, s := range a.SKUs {
		kinds[s.Category[:4]]++
		if a.Launch[i] > 0 {
			late++
		}
		if s.LeadTimeDays < leadTimeDaysMin || s.LeadTimeDays > leadTimeDaysMax {
			t.Errorf("%s: lead time %v", s.ID, s.LeadTimeDays)
		}
		if err := policyInput(s, DefaultConfig(), nil, 0, 0, replenish.ColdStart{}).Validate(); err != nil {
			t.Errorf("%s: %v", s.ID, err)
		}
	}
	if kinds["slow"] == 0 || kinds["fast"] == 0 || kinds["seas"] == 0 || late == 0 {
		t.Errorf("kinds %v, %d launched late", kinds, late)
	}
	for _, bad := range [][2]int{{0, 10}, {SKUsMax + 1, 10}, {10, 0}, {10, TraceDaysMax + 1}} {
		if _, err := GenTrace(1, bad[0], bad[1]); err == nil {
			t.Errorf("GenTrace(%d SKUs, %d days) accepted", bad[0], bad[1])
		}
	}
}
