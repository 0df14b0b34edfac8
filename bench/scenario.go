package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Shape of the scenarios.
const (
	zipfExponent  = 1.1
	orderLinesMax = 5
	// largeStock is each SKU's stock in spread, zipf, orders and lifecycle:
	// enough that no run sells out, so the rows measure the write path.
	largeStock int64 = 1_000_000_000
	// Lifecycle mix, in percent of reservations won; the rest is left to
	// expire.
	confirmPercent = 70
	releasePercent = 20
	// retryPercent of lifecycle requests are sent twice with one key.
	retryPercent = 5
)

// workload is one scenario made concrete for a run.
type workload struct {
	name     string
	skuCount int
	stock    int64
	// contenders > 0: each contender tries once and the row ends when all
	// were answered, not when the duration ends.
	contenders int
	lifecycle  bool
	ttl        time.Duration
	// newPicker returns one worker's request generator.
	newPicker func(r *rand.Rand) picker
}

// picker appends the lines of the next request to buf[:0].
type picker func(buf []Line) []Line

func newWorkload(cfg Config, name string) workload {
	uniform := func(n int) func(r *rand.Rand) picker {
		return func(r *rand.Rand) picker {
			return func(buf []Line) []Line { return append(buf[:0], Line{SKU: r.IntN(n), Quantity: 1}) }
		}
	}
	first := func(*rand.Rand) picker {
		return func(buf []Line) []Line { return append(buf[:0], Line{SKU: 0, Quantity: 1}) }
	}
	n := cfg.SKUCount
	switch name {
	case ScenarioHot:
		return workload{name: name, skuCount: 1, stock: stockMax, newPicker: first}
	case ScenarioSpread:
		return workload{name: name, skuCount: n, stock: largeStock, newPicker: uniform(n)}
	case ScenarioZipf:
		return workload{name: name, skuCount: n, stock: largeStock, newPicker: func(r *rand.Rand) picker {
			z := newZipf(r, n)
			return func(buf []Line) []Line { return append(buf[:0], Line{SKU: int(z.Uint64()), Quantity: 1}) }
		}}
	case ScenarioOrders:
		return workload{name: name, skuCount: n, stock: largeStock, newPicker: func(r *rand.Rand) picker {
			return func(buf []Line) []Line { return pickOrder(r, n, buf) }
		}}
	case ScenarioFlash:
		return workload{name: name, skuCount: 1, stock: cfg.FlashStock, contenders: cfg.FlashContenders, newPicker: first}
	case ScenarioLifecycle:
		return workload{name: name, skuCount: n, stock: largeStock, lifecycle: true, ttl: cfg.LifecycleTTL, newPicker: uniform(n)}
	}
	panic("bench: unknown scenario " + name) // validate rejected it
}

// newZipf draws SKU indexes in [0, n) with P(k) ∝ 1/(1+k)^1.1: the first
// few SKUs take most of the traffic.
func newZipf(r *rand.Rand, n int) *rand.Zipf {
	z := rand.NewZipf(r, zipfExponent, 1, uint64(n-1))
	if z == nil {
		panic("bench: bad zipf parameters")
	}
	return z
}

// pickOrder draws 1 to orderLinesMax distinct SKUs, one unit each, sorted
// (the order every implementation locks them in).
func pickOrder(r *rand.Rand, n int, buf []Line) []Line {
	k := min(1+r.IntN(orderLinesMax), n)
	buf = buf[:0]
	for len(buf) < k {
		sku := r.IntN(n)
		if !slices.ContainsFunc(buf, func(l Line) bool { return l.SKU == sku }) {
			buf = append(buf, Line{SKU: sku, Quantity: 1})
		}
	}
	slices.SortFunc(buf, func(a, b Line) int { return a.SKU - b.SKU })
	return buf
}

// newDataset names a row's SKUs: prefix-00042, zero-padded so that name
// order is index order.
func newDataset(prefix string, w workload) *Dataset {
	width := len(fmt.Sprint(w.skuCount - 1))
	d := &Dataset{Prefix: prefix, SKUs: make([]string, w.skuCount), Stock: w.stock}
	for i := range d.SKUs {
		d.SKUs[i] = fmt.Sprintf("%s-%0*d", prefix, width, i)
	}
	return d
}
