package replenish

import "math"

// Source says where a computation's d̄ and σ_d came from; every answer
// carries it, so nobody mistakes a borrowed estimate for the SKU's own.
type Source string

const (
	SourceHistory           Source = "history"
	SourceCategoryPriceBand Source = "category_price_band"
	SourceCategory          Source = "category"
	SourceDefault           Source = "default"
)

// HistoryEstimate is the mean and population standard deviation of daily
// demand (zero days count, seed 003 §4.2 uses statistics.pstdev). ok is
// false below MinHistoryDays of history, where the SKU's own figures are
// not trusted yet.
func HistoryEstimate(demandDaily []int64) (e Estimate, ok bool) {
	if len(demandDaily) < MinHistoryDays {
		return Estimate{}, false
	}
	days := float64(len(demandDaily))
	var sum float64
	for _, q := range demandDaily {
		sum += float64(q)
	}
	mean := sum / days
	// Two passes: the sum of squared deviations does not cancel the way
	// Σq² − n·d̄² does for large, steady demand.
	var squares float64
	for _, q := range demandDaily {
		d := float64(q) - mean
		squares += d * d
	}
	return Estimate{MeanDaily: mean, StddevDaily: math.Sqrt(squares / days)}, true
}

// estimateDemand picks the SKU's own history when it has enough, then the
// cold-start fallbacks in order; Validate has made sure the last one is
// usable.
func estimateDemand(in Input) (Estimate, Source) {
	if e, ok := HistoryEstimate(in.DemandDaily); ok {
		return e, SourceHistory
	}
	switch {
	case in.ColdStart.CategoryPriceBand.usable():
		return in.ColdStart.CategoryPriceBand, SourceCategoryPriceBand
	case in.ColdStart.Category.usable():
		return in.ColdStart.Category, SourceCategory
	default:
		return in.ColdStart.Default, SourceDefault
	}
}

// Peers averages the estimates of SKUs that have history, by category and
// price band and by category, so that a SKU without history can borrow
// theirs (seed 003 §4.2: "取同类目同价格带的平均 σ"). The zero value is
// ready to use. Estimates are summed in the order they are added, so the
// same SKUs added in the same order give the same figures.
type Peers struct {
	byCategoryPriceBand map[[2]string]*peerSum
	byCategory          map[string]*peerSum
}

type peerSum struct {
	meanDaily, stddevDaily float64
	skus                   int
}

func (s *peerSum) add(e Estimate) {
	s.meanDaily += e.MeanDaily
	s.stddevDaily += e.StddevDaily
	s.skus++
}

func (s *peerSum) average() Estimate {
	if s == nil || s.skus == 0 {
		return Estimate{}
	}
	n := float64(s.skus)
	return Estimate{MeanDaily: s.meanDaily / n, StddevDaily: s.stddevDaily / n}
}

// Add counts one SKU's own estimate (from HistoryEstimate). A SKU without a
// category contributes to nothing; one without a price band to its
// category only.
func (p *Peers) Add(category, priceBand string, e Estimate) {
	if category == "" {
		return
	}
	if p.byCategory == nil {
		p.byCategory = map[string]*peerSum{}
		p.byCategoryPriceBand = map[[2]string]*peerSum{}
	}
	sumAt(p.byCategory, category).add(e)
	if priceBand != "" {
		sumAt(p.byCategoryPriceBand, [2]string{category, priceBand}).add(e)
	}
}

func sumAt[K comparable](m map[K]*peerSum, k K) *peerSum {
	if m[k] == nil {
		m[k] = &peerSum{}
	}
	return m[k]
}

// ColdStart gives the fallbacks for a SKU of this category and price band,
// ending in the deployment's default.
func (p *Peers) ColdStart(category, priceBand string, deploymentDefault Estimate) ColdStart {
	cs := ColdStart{Default: deploymentDefault}
	if category == "" || p.byCategory == nil {
		return cs
	}
	cs.Category = p.byCategory[category].average()
	if priceBand != "" {
		cs.CategoryPriceBand = p.byCategoryPriceBand[[2]string{category, priceBand}].average()
	}
	return cs
}
