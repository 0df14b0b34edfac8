package bench

import (
	"math"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one sample is every percentile", ms(7), 99, 7 * time.Millisecond},
		{"median of odd count", ms(1, 2, 3, 4, 5), 50, 3 * time.Millisecond},
		{"median of even count is the lower middle", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p100 is the max", ms(1, 2, 3, 4), 100, 4 * time.Millisecond},
		{"p95 of 1..100", ms(hundred...), 95, 95 * time.Millisecond},
		{"p99 of 1..100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p99 of 10 samples is the max", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"p50 of 1..100", ms(hundred...), 50, 50 * time.Millisecond},
		{"tiny p is the min", ms(3, 9), 0.001, 3 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestRatio(t *testing.T) {
	tests := []struct {
		name   string
		a, b   float64
		want   float64
		wantOK bool
	}{
		{"faster", 100_000, 2_000, 50, true},
		{"slower", 1_000, 4_000, 0.25, true},
		{"equal", 3, 3, 1, true},
		{"baseline measured nothing", 100, 0, 0, false},
		{"not a number", math.NaN(), 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Ratio(tt.a, tt.b)
			if ok != tt.wantOK || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Ratio(%v, %v) = %v, %v; want %v, %v", tt.a, tt.b, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestSummarizeMergesWorkers(t *testing.T) {
	var budget atomic.Int64
	budget.Store(latencySamplesMax)
	a, b := newRecorder(&budget), newRecorder(&budget)
	for i := 1; i <= 100; i++ {
		if i%2 == 0 {
			a.record(time.Duration(i) * time.Microsecond)
		} else {
			b.record(time.Duration(i) * time.Microsecond)
		}
	}
	s := summarize([]*recorder{a, b})
	if s.Samples != 100 || s.P50 != 50*time.Microsecond || s.P99 != 99*time.Microsecond || s.Max != 100*time.Microsecond {
		t.Errorf("summary = %+v, want 100 samples, p50 50µs, p99 99µs, max 100µs", s)
	}
}

func TestRecorderStopsAtBudget(t *testing.T) {
	var budget atomic.Int64
	budget.Store(2048)
	r := newRecorder(&budget)
	for range 5000 {
		r.record(time.Millisecond)
	}
	if len(r.samples) != 2048 {
		t.Errorf("kept %d samples, want the budget of 2048", len(r.samples))
	}
}

func TestAddRatios(t *testing.T) {
	group := []Row{
		{Implementation: "stockd-engine", ReservationsPerSecond: 100_000},
		{Implementation: BaselineNaiveUpdate, Baseline: true, ReservationsPerSecond: 2_000},
		{Implementation: BaselineRedisLua, Baseline: true, Skipped: "skipped: redis down"},
	}
	addRatios(group)
	if got := group[0].Ratios; len(got) != 1 || got[BaselineNaiveUpdate] != 50 {
		t.Errorf("ratios = %v, want only naive-update: 50", got)
	}
	if group[1].Ratios != nil {
		t.Errorf("a baseline got ratios %v", group[1].Ratios)
	}
}
