package backtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/stockd/stockd/replenish"
)

// TraceStart is the first day of a generated trace.
var TraceStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Shape of a generated trace (issue 11: slow, fast and seasonal SKUs, lead
// times 3–21 days ± 30 %).
const (
	leadTimeDaysMin = 3
	leadTimeDaysMax = 21
	// leadTimeSpread is σ_L over L: "± 30 %" read as one standard
	// deviation, the harder of the two readings (a range of ±30 % would be
	// about two).
	leadTimeSpread = 0.3
	// categoriesPerKind: SKUs of one category sell alike (their means
	// scatter ×/÷ 1.4 around the category's), so a cold start from the
	// category is a fair guess.
	categoriesPerKind = 8
	// lateLaunchShare of SKUs appear after the trace began, to exercise
	// the cold start from category peers.
	lateLaunchShare = 0.06
)

type demandKind int

const (
	kindSlow demandKind = iota
	kindFast
	kindSeasonal
)

var kindNames = [...]string{"slow", "fast", "seasonal"}

// kindOf splits the SKUs 45 % slow (0.1–2 a day, Poisson), 35 % fast (10–80
// a day, coefficient of variation 0.2–0.5), 20 % seasonal (5–40 a day on
// average, ±40–80 % over a year).
func kindOf(u float64) demandKind {
	switch {
	case u < 0.45:
		return kindSlow
	case u < 0.80:
		return kindFast
	default:
		return kindSeasonal
	}
}

// GenTrace makes a trace of skuCount SKUs over days days. The same seed
// gives the same trace, and SKU i is the same whatever skuCount is.
func GenTrace(seed uint64, skuCount, days int) (*Trace, error) {
	if skuCount < 1 || skuCount > SKUsMax {
		return nil, fmt.Errorf("gen-trace: skus must be from 1 to %d", SKUsMax)
	}
	if days < 1 || days > TraceDaysMax {
		return nil, fmt.Errorf("gen-trace: days must be from 1 to %d", TraceDaysMax)
	}
	categories := rand.New(rand.NewPCG(seed, math.MaxUint64))
	var baseMeanDaily [3][categoriesPerKind]float64
	for c := range categoriesPerKind {
		baseMeanDaily[kindSlow][c] = 0.1 + 1.9*categories.Float64()
		baseMeanDaily[kindFast][c] = 10 + 70*categories.Float64()
		baseMeanDaily[kindSeasonal][c] = 5 + 35*categories.Float64()
	}
	t := &Trace{Start: TraceStart, Days: days, SKUs: make([]SKU, skuCount), Demand: make([][]int64, skuCount), Launch: make([]int, skuCount)}
	for i := range skuCount {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		kind := kindOf(r.Float64())
		category := r.IntN(categoriesPerKind)
		meanDaily := baseMeanDaily[kind][category] * math.Exp(0.35*r.NormFloat64())
		if days >= 120 && r.Float64() < lateLaunchShare {
			t.Launch[i] = 30 + r.IntN(days/2)
		}
		t.SKUs[i] = genSKU(r, fmt.Sprintf("SKU-%05d", i+1), fmt.Sprintf("%s-%d", kindNames[kind], category), meanDaily, t.Launch[i] > 0)
		t.Demand[i] = genDemand(r, kind, meanDaily, t.Launch[i], days)
	}
	return t, t.check()
}

func genSKU(r *rand.Rand, id, category string, meanDaily float64, lateLaunch bool) SKU {
	leadTimeDays := leadTimeDaysMin + r.IntN(leadTimeDaysMax-leadTimeDaysMin+1)
	s := SKU{
		ID:                 id,
		LeadTimeDays:       float64(leadTimeDays),
		LeadTimeStddevDays: math.Round(10*leadTimeSpread*float64(leadTimeDays)) / 10,
		ServiceLevel:       replenish.ServiceLevelDefault,
		CoverDays:          replenish.CoverDaysDefault,
		Category:           category,
	}
	// Case sizes a supplier might ship: single units, or cases of at most
	// four days of demand.
	var cases []int64
	for _, c := range []int64{1, 6, 12, 24, 50, 100} {
		if float64(c) <= 4*meanDaily || c == 1 {
			cases = append(cases, c)
		}
	}
	s.OrderMultiple = cases[r.IntN(len(cases))]
	if k := int64(2 + r.IntN(4)); r.Float64() < 0.2 && float64(k*s.OrderMultiple) <= 10*meanDaily {
		s.MinOrderQuantity = k * s.OrderMultiple
	}
	if r.Float64() < 0.3 {
		s.RedLine = int64(r.IntN(6))
	}
	// Opening stock: a SKU present from the first day starts with enough to
	// last its cold start and one lead time (both policies know nothing of
	// it for MinHistoryDays); one launched later gets a first delivery.
	coverDays := float64(replenish.MinHistoryDays + leadTimeDays + 5 + r.IntN(20))
	if lateLaunch {
		coverDays = float64(10 + r.IntN(20))
	}
	s.InitialOnHand = int64(math.Ceil(meanDaily * coverDays))
	return s
}

func genDemand(r *rand.Rand, kind demandKind, meanDaily float64, launch, days int) []int64 {
	demand := make([]int64, days)
	variation := 0.2 + 0.3*r.Float64()
	amplitude := 0.4 + 0.4*r.Float64()
	peakDay := float64(r.IntN(365))
	for day := launch; day < days; day++ {
		switch kind {
		case kindSlow:
			demand[day] = poisson(r, meanDaily)
		case kindFast:
			demand[day] = int64(max(0, math.Round(meanDaily*(1+variation*r.NormFloat64()))))
		case kindSeasonal:
			mean := meanDaily * (1 + amplitude*math.Cos(2*math.Pi*(float64(day)-peakDay)/365))
			if mean < 20 {
				demand[day] = poisson(r, mean)
			} else {
				demand[day] = int64(max(0, math.Round(mean*(1+0.25*r.NormFloat64()))))
			}
		}
	}
	return demand
}

// poisson draws a Poisson count: Knuth's product of uniforms for small
// means, the normal approximation above 30 where that loop gets long.
func poisson(r *rand.Rand, mean float64) int64 {
	if mean <= 0 {
		return 0
	}
	if mean > 30 {
		return int64(max(0, math.Round(mean+math.Sqrt(mean)*r.NormFloat64())))
	}
	limit := math.Exp(-mean)
	var n int64
	for p := r.Float64(); p > limit; p *= r.Float64() {
		n++
	}
	return n
}
