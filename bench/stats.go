package bench

import (
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// Percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method: the smallest sample such that at least p% of the
// samples are at or below it. It is exact, never interpolated, so every
// reported latency is one a request really had. Zero for no samples.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	if p <= 0 || p > 100 {
		panic("bench: percentile out of (0, 100]")
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

// Ratio returns how many times faster a is than b; false when b measured
// nothing, so no ratio can be given.
func Ratio(a, b float64) (float64, bool) {
	if b <= 0 || math.IsNaN(a) || math.IsNaN(b) {
		return 0, false
	}
	return a / b, true
}

// recorder keeps one worker's latencies. Workers own their recorder, so
// recording takes no lock; budget bounds the samples of the whole row, and
// each recorder draws on it a chunk at a time.
type recorder struct {
	samples []time.Duration
	budget  *atomic.Int64
	full    bool
}

func newRecorder(budget *atomic.Int64) *recorder {
	return &recorder{budget: budget}
}

func (r *recorder) record(d time.Duration) {
	if len(r.samples) == cap(r.samples) {
		if r.full {
			return // over budget: the request is counted, no longer timed
		}
		grow := max(cap(r.samples), 1024)
		if r.budget.Add(-int64(grow)) < 0 {
			r.full = true
			return
		}
		grown := make([]time.Duration, len(r.samples), cap(r.samples)+grow)
		copy(grown, r.samples)
		r.samples = grown
	}
	r.samples = append(r.samples, d)
}

// latencySummary merges the workers' samples and reads the percentiles.
type latencySummary struct {
	Samples int
	P50     time.Duration
	P95     time.Duration
	P99     time.Duration
	Max     time.Duration
}

func summarize(recorders []*recorder) latencySummary {
	n := 0
	for _, r := range recorders {
		n += len(r.samples)
	}
	all := make([]time.Duration, 0, n)
	for _, r := range recorders {
		all = append(all, r.samples...)
	}
	slices.Sort(all)
	s := latencySummary{Samples: len(all)}
	if len(all) > 0 {
		s.P50, s.P95, s.P99, s.Max = Percentile(all, 50), Percentile(all, 95), Percentile(all, 99), all[len(all)-1]
	}
	return s
}
