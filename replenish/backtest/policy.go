package backtest

import "github.com/stockd/stockd/replenish"

// decision is what a policy does on a morning for one SKU.
type decision struct {
	level    string
	notice   replenish.Notice
	quantity int64
}

type decider interface {
	decide(s *skuState, sku SKU, f replenish.Figures, reviewDay bool) decision
}

// replenishPolicy is issue 11's: the level and notice rules of the
// replenish package, and an order of SuggestedQuantity on review days.
// Orders are not limited to one open at a time: the trigger compares the
// inventory position, which counts what is already on order, so a second
// order goes out only when the first cannot carry the SKU through its
// lead time (lead times longer than the order cycle need that).
type replenishPolicy struct{}

func (replenishPolicy) decide(s *skuState, _ SKU, f replenish.Figures, reviewDay bool) decision {
	d := decision{level: string(f.Level), notice: replenish.NoticeFor(s.level, f)}
	s.level = f.Level
	if reviewDay {
		d.quantity = f.SuggestedQuantity
	}
	return d
}

// fixedRule is the seed's "alert and order cover_days·d̄ when available <
// 10", with the seed's dedup (once per SKU, level and day) and at most one
// open order: its trigger looks at available only, so without that limit
// it would reorder every day until the first order arrived. d̄ is the same
// estimate the policy uses.
type fixedRule struct{ threshold int64 }

func (r fixedRule) decide(s *skuState, sku SKU, f replenish.Figures, _ bool) decision {
	if s.onHand >= r.threshold {
		return decision{}
	}
	d := decision{level: FixedRuleLevel, notice: replenish.NoticeSent}
	if len(s.open) == 0 {
		d.quantity = replenish.OrderQuantity(float64(sku.CoverDays)*f.Demand.MeanDaily, sku.OrderMultiple, sku.MinOrderQuantity)
	}
	return d
}
