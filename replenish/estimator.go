package replenish

import "math"

// Estimator picks how the reorder point reads the demand window. Every
// estimator keeps d̄ and σ_d as the mean and deviation of the window for the
// safety stock, the order-up-to level and the days of cover; they differ
// only in the demand the reorder point expects over the protection period.
type Estimator string

const (
	// EstimatorMean is issue 11's as first written: ROP = d̄·(L+R−1) + SS.
	EstimatorMean Estimator = "mean"
	// EstimatorTrend expects the demand level the window's least-squares
	// line points to today, the slope damped by how clearly the window
	// shows it (Trend): a season on its way up is not met with last
	// month's average.
	EstimatorTrend Estimator = "trend"
	// EstimatorPoissonGamma raises the reorder point of a slow mover
	// (d̄ ≤ SlowMeanDailyMax) to at least the service-level quantile of
	// lead-time demand under a Poisson rate guessed from the window's few
	// sales (PoissonGammaQuantile): a normal buffer around a mean of 0.3 a
	// day is too thin for a rate known from nine sales.
	EstimatorPoissonGamma Estimator = "poisson_gamma"
	// EstimatorTrendPoissonGamma is both.
	EstimatorTrendPoissonGamma Estimator = "trend_poisson_gamma"

	// EstimatorDefault is the estimator the backtest justified
	// (docs/design.md, "Replenishment").
	EstimatorDefault = EstimatorTrendPoissonGamma
)

// Estimators lists every estimator, the default first.
var Estimators = []Estimator{EstimatorTrendPoissonGamma, EstimatorMean, EstimatorTrend, EstimatorPoissonGamma}

func (e Estimator) valid() bool {
	if e == "" {
		return true
	}
	for _, known := range Estimators {
		if e == known {
			return true
		}
	}
	return false
}

func (e Estimator) trend() bool {
	return e == EstimatorTrend || e == EstimatorTrendPoissonGamma
}

func (e Estimator) poissonGamma() bool {
	return e == EstimatorPoissonGamma || e == EstimatorTrendPoissonGamma
}

const (
	// SlowMeanDailyMax is the d̄ at or below which a SKU is a slow mover
	// for EstimatorPoissonGamma: with three sales a day or fewer, a 30-day
	// window holds under a hundred sales, and the normal model's buffer
	// misjudges a count that small.
	SlowMeanDailyMax = 3.0
	// gammaPriorShape is the shape of the Gamma prior on a slow mover's
	// daily rate (shape 1, rate 0: flat over rates): it adds one sale to
	// the window, so a window without a sale still leaves room for one.
	// Jeffreys' ½ measured 0.1 point fewer stockout-days saved.
	gammaPriorShape = 1.0
	// negativeBinomialStepsMax bounds the quantile's walk over counts. A
	// slow mover's lead-time demand is at most 3 a day over 730 days of
	// protection, a few thousand units; past the bound the normal reorder
	// point stands alone.
	negativeBinomialStepsMax = 1 << 20
)

// Trend is the least-squares line through a demand window and how much of
// it the reorder point believes.
type Trend struct {
	// SlopeDaily is the line's change in units a day per day.
	SlopeDaily float64
	// TStatistic is the slope over its standard error.
	TStatistic float64
	// Weight is the share of the slope believed, from 0 to 1:
	// t²/(t²+TrendDamping). A slope the window shows clearly (|t| ≥ 3)
	// keeps over four fifths of its weight; one inside the noise (|t| < 1)
	// a third at most, and a flat window's none.
	Weight float64
	// LevelDaily is the demand a day the damped line points to today (the
	// day after the window's last), never negative.
	LevelDaily float64
}

// TrendDamping is the t² at which a slope keeps half its weight. The
// backtest measured 1, 2, 4 and 16 (docs/design.md); 2 leaves the seed's
// worked example (t = 0.46) at ROP 118 with room to spare.
const TrendDamping = 2.0

// TrendOf fits a least-squares line through the window (day i at x = i)
// and evaluates it, damped, at today (x = n). A window shorter than
// MinHistoryDays or without variation gives the mean and a zero slope.
func TrendOf(demandDaily []int64) Trend {
	n := len(demandDaily)
	if n == 0 {
		return Trend{}
	}
	days := float64(n)
	xMean := (days - 1) / 2
	var sum float64
	for _, q := range demandDaily {
		sum += float64(q)
	}
	yMean := sum / days
	if n < MinHistoryDays {
		return Trend{LevelDaily: yMean}
	}
	var sxx, sxy float64
	for i, q := range demandDaily {
		dx := float64(i) - xMean
		sxx += dx * dx
		sxy += dx * (float64(q) - yMean)
	}
	tr := Trend{LevelDaily: yMean}
	slope := sxy / sxx
	var sse float64
	for i, q := range demandDaily {
		r := float64(q) - yMean - slope*(float64(i)-xMean)
		sse += r * r
	}
	switch {
	case slope == 0:
		return tr
	case sse <= 0:
		// A perfect line: the window shows the slope as clearly as can be.
		tr.Weight = 1
		tr.TStatistic = math.Inf(sign(slope))
	default:
		tr.TStatistic = slope / math.Sqrt(sse/(days-2)/sxx)
		t2 := tr.TStatistic * tr.TStatistic
		tr.Weight = t2 / (t2 + TrendDamping)
	}
	tr.SlopeDaily = slope
	tr.LevelDaily = max(0, yMean+tr.Weight*slope*(days-xMean))
	return tr
}

func sign(x float64) int {
	if x < 0 {
		return -1
	}
	return 1
}

// PoissonGammaQuantile is the smallest count k with P(X ≤ k) ≥ level for
// the demand X over protectionDays when the daily rate is Poisson with a
// Gamma(gammaPriorShape + Σ sales, days) posterior after the window: X is
// negative binomial with r = gammaPriorShape + Σ sales and success
// probability p = days / (days + protectionDays); with a lead-time
// deviation σ_L the Gamma is widened to the moments of λ·ℓ (below). ok is
// false for an empty window or one without a sale, no protection period, or a quantile beyond
// negativeBinomialStepsMax.
func PoissonGammaQuantile(demandDaily []int64, protectionDays, leadTimeStddevDays, level float64) (units int64, ok bool) {
	if len(demandDaily) == 0 || protectionDays <= 0 {
		return 0, false
	}
	var sales float64
	for _, q := range demandDaily {
		sales += float64(q)
	}
	if sales == 0 {
		// No sale in the window: there is no rate to be unsure of, and
		// the prior alone would keep a unit on order for a SKU nobody
		// buys. Dead stock is slow_moving's business.
		return 0, false
	}
	days := float64(len(demandDaily))
	r := gammaPriorShape + sales
	p := days / (days + protectionDays)
	if leadTimeStddevDays > 0 {
		// The lead time varies too: lead-time demand is Poisson with mean
		// λ·ℓ, λ ~ Gamma(r, days) and ℓ of mean protectionDays and deviation
		// σ_L. Its mean is r·P/days and the variance of λ·ℓ is
		// E[λ²]·E[ℓ²] − (E[λ]·E[ℓ])²; a Gamma with those two moments keeps
		// the count negative binomial.
		mean := r * protectionDays / days
		variance := r*(r+1)/(days*days)*(protectionDays*protectionDays+leadTimeStddevDays*leadTimeStddevDays) - mean*mean
		scale := variance / mean
		r = mean / scale
		p = 1 / (1 + scale)
	}
	// The walk in logarithms: p^r underflows for long windows of many
	// sales, while each term's logarithm stays finite.
	logTerm := r * math.Log(p)
	logFail := math.Log1p(-p)
	var cdf float64
	for k := 0; k < negativeBinomialStepsMax; k++ {
		cdf += math.Exp(logTerm)
		if cdf >= level {
			return int64(k), true
		}
		logTerm += math.Log((float64(k)+r)/float64(k+1)) + logFail
	}
	return 0, false
}
