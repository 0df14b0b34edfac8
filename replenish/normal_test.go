package replenish

import (
	"math"
	"testing"
)

func TestNormalQuantileKnownValues(t *testing.T) {
	for _, tc := range []struct {
		p, want float64
	}{
		{0.5, 0},
		{0.8, 0.8416212335729144},
		{0.9, 1.2815515655446008},
		{0.95, 1.6448536269514715},
		{0.975, 1.9599639845400536},
		{0.99, 2.3263478740408408},
		{0.999, 3.090232306167813},
		{0.05, -1.6448536269514715},
		{1e-10, -6.361340902404056},
	} {
		if got := NormalQuantile(tc.p); math.Abs(got-tc.want) > 1e-13 {
			t.Errorf("NormalQuantile(%v) = %.17g, want %.17g", tc.p, got, tc.want)
		}
	}
}

// TestNormalQuantileInvertsTheDistribution checks every branch of AS 241
// against the normal distribution function from the standard library: a
// wrong coefficient shows up as a round trip that misses.
func TestNormalQuantileInvertsTheDistribution(t *testing.T) {
	cdf := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
	for _, p := range []float64{1e-300, 1e-30, 1e-12, 1e-6, 0.001, 0.01, 0.0749, 0.075, 0.0751, 0.2, 0.5, 0.7, 0.925, 0.9251, 0.99, 0.999999} {
		z := NormalQuantile(p)
		if got := cdf(z); math.Abs(got-p) > 1e-14*p+1e-300 && math.Abs(got-p)/p > 1e-13 {
			t.Errorf("cdf(NormalQuantile(%g)) = %.17g", p, got)
		}
	}
	for i := 1; i < 1000; i++ {
		p := float64(i) / 1000
		if got := cdf(NormalQuantile(p)); math.Abs(got-p) > 1e-15 {
			t.Errorf("cdf(NormalQuantile(%g)) = %.17g", p, got)
		}
	}
}

func TestNormalQuantileEdges(t *testing.T) {
	if !math.IsInf(NormalQuantile(0), -1) || !math.IsInf(NormalQuantile(1), 1) {
		t.Error("0 and 1 must give -Inf and +Inf")
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if !math.IsNaN(NormalQuantile(p)) {
			t.Errorf("NormalQuantile(%v) must be NaN", p)
		}
	}
}
