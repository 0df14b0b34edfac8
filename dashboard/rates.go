package dashboard

import (
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The overview's reservations per second and p99 come from the API's own
// request metrics, compared between two readings of the registry: no
// goroutine samples it, each overview takes a reading and compares it
// with the oldest one kept within rateWindowSpan.

const (
	// reserveOperation is the operation label of POST /v1/reservations.
	reserveOperation = "reservation_create"
	requestsMetric   = "stockd_http_requests_total"
	durationMetric   = "stockd_http_request_duration_seconds"
	// rateWindowSpan is the longest span a figure covers.
	rateWindowSpan = 5 * time.Minute
	// rateSampleSpacing keeps at most one reading per spacing, so that the
	// ring (rateSamplesMax) covers the whole span.
	rateSampleSpacing = 5 * time.Second
	rateSamplesMax    = int(rateWindowSpan/rateSampleSpacing) + 1
)

// reading is the reservation requests' counters at one time.
type reading struct {
	at       time.Time
	requests float64
	count    uint64
	buckets  []bucketCount // cumulative, by upper bound
}

type bucketCount struct {
	upper float64
	count uint64
}

// rateWindow keeps recent readings.
type rateWindow struct {
	gatherer prometheus.Gatherer
	now      func() time.Time
	mu       sync.Mutex
	readings []reading
}

func newRateWindow(g prometheus.Gatherer, now func() time.Time) *rateWindow {
	w := &rateWindow{gatherer: g, now: now}
	if g != nil {
		if r, ok := w.read(now()); ok {
			w.readings = append(w.readings, r)
		}
	}
	return w
}

// rates is what the overview shows; Known is false without metrics or
// without two readings.
type rates struct {
	Known        bool
	PerSecond    float64
	P99Millis    float64
	P99Known     bool
	SpanSeconds  int
	RequestsSeen float64
}

func (w *rateWindow) observe() rates {
	if w.gatherer == nil {
		return rates{}
	}
	now := w.now()
	cur, ok := w.read(now)
	if !ok {
		return rates{}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	kept := w.readings[:0]
	for _, r := range w.readings {
		if now.Sub(r.at) <= rateWindowSpan {
			kept = append(kept, r)
		}
	}
	w.readings = kept
	var out rates
	if len(w.readings) > 0 {
		out = compare(w.readings[0], cur)
	}
	if len(w.readings) == 0 || now.Sub(w.readings[len(w.readings)-1].at) >= rateSampleSpacing {
		if len(w.readings) == rateSamplesMax {
			w.readings = w.readings[1:]
		}
		w.readings = append(w.readings, cur)
	}
	return out
}

// compare turns two readings into a rate and a p99 over the span between.
func compare(old, cur reading) rates {
	span := cur.at.Sub(old.at).Seconds()
	if span < 1 {
		return rates{}
	}
	out := rates{Known: true, SpanSeconds: int(math.Round(span)), RequestsSeen: cur.requests - old.requests}
	out.PerSecond = out.RequestsSeen / span
	n := cur.count - old.count
	if len(old.buckets) == 0 {
		// No request had been timed at the old reading: every bucket was 0.
		old.buckets = make([]bucketCount, len(cur.buckets))
	}
	if n == 0 || len(cur.buckets) != len(old.buckets) {
		return out
	}
	// The p99 is the upper bound of the first bucket holding it: what a
	// histogram can say without guessing inside a bucket.
	target := uint64(math.Ceil(0.99 * float64(n)))
	for i, b := range cur.buckets {
		if b.count-old.buckets[i].count >= target {
			if !math.IsInf(b.upper, 1) {
				out.P99Millis, out.P99Known = b.upper*1000, true
			}
			break
		}
	}
	return out
}

// read takes the reservation requests' counters from the registry.
func (w *rateWindow) read(at time.Time) (reading, bool) {
	families, err := w.gatherer.Gather()
	if err != nil {
		return reading{}, false
	}
	// A series not yet written (no reservation request since start) is a
	// reading of zero.
	r := reading{at: at}
	for _, f := range families {
		switch f.GetName() {
		case requestsMetric:
			for _, m := range f.GetMetric() {
				if labelIs(m.GetLabel(), "operation", reserveOperation) {
					r.requests += m.GetCounter().GetValue()
				}
			}
		case durationMetric:
			for _, m := range f.GetMetric() {
				if !labelIs(m.GetLabel(), "operation", reserveOperation) {
					continue
				}
				h := m.GetHistogram()
				r.count += h.GetSampleCount()
				r.buckets = mergeBuckets(r.buckets, h)
			}
		}
	}
	return r, true
}

// mergeBuckets adds a histogram's buckets to acc (histograms of one metric
// share their bounds; series per outcome are summed).
func mergeBuckets(acc []bucketCount, h *dto.Histogram) []bucketCount {
	for i, b := range h.GetBucket() {
		if i < len(acc) {
			acc[i].count += b.GetCumulativeCount()
			continue
		}
		acc = append(acc, bucketCount{upper: b.GetUpperBound(), count: b.GetCumulativeCount()})
	}
	return acc
}

func labelIs(labels []*dto.LabelPair, name, value string) bool {
	for _, l := range labels {
		if l.GetName() == name {
			return l.GetValue() == value
		}
	}
	return false
}
