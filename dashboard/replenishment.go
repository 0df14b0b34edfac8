package dashboard

import (
	"context"
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/stockd/stockd/replenish/evaluate"
)

// The replenishment chart: the daily demand the figures were computed
// from, and the stock projected at the mean demand from today's inventory
// position, against the reorder point and the safety stock.

const (
	replChartW = 560
	replChartH = 220
	replPadL   = 44
	replPadB   = 22
	replPadT   = 24
	// projectionDaysMin bounds the projection's span below: a lead time of
	// a day or two would show nothing.
	projectionDaysMin = 14
	// projectionDaysMax bounds it above.
	projectionDaysMax = 120
)

// replenishment is what the SKU page shows of the figures.
type replenishment struct {
	Evaluation evaluate.Evaluation
	Demand     template.HTML
	Projection template.HTML
}

// readReplenishment evaluates sku as the API's GET /v1/replenishment/{sku}
// does (the same evaluator), and its history.
func (h *Handler) readReplenishment(ctx context.Context, sku string) (*replenishment, error) {
	ev := &evaluate.Evaluator{Store: h.store, Zone: h.zone}
	asOf := ev.BusinessDate(h.now())
	e, err := ev.SKU(ctx, sku, asOf)
	if err != nil {
		return nil, err
	}
	history, err := ev.History(ctx, sku, asOf)
	if err != nil {
		return nil, err
	}
	return &replenishment{
		Evaluation: e,
		Demand:     demandChart(history, e.Figures.Demand.MeanDaily),
		Projection: projectionChart(e),
	}, nil
}

// demandChart draws one bar per business day, oldest first, and the mean
// the figures used as a dashed line.
func demandChart(days []int64, mean float64) template.HTML {
	top := math.Max(mean, 1)
	for _, d := range days {
		top = math.Max(top, float64(d))
	}
	top = niceCeil(top)
	var b strings.Builder
	openChart(&b, "daily demand")
	axis(&b, top, "units/day")
	plotW := float64(replChartW - replPadL - 4)
	plotH := float64(replChartH - replPadB - replPadT)
	if n := len(days); n > 0 {
		step := plotW / float64(n)
		for i, d := range days {
			hgt := float64(d) / top * plotH
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="seg-committed"><title>day %d: %d</title></rect>`,
				float64(replPadL)+float64(i)*step+step*0.1, float64(replPadT)+plotH-hgt, step*0.8, hgt, i-n+1, d)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="tick">%d days ago</text><text x="%d" y="%d" class="tick" text-anchor="end">today</text>`,
			replPadL, replChartH-4, n-1, replChartW-4, replChartH-4)
	}
	// The mean is named in the caption, not on the line, where bars would
	// cover the label.
	y := float64(replPadT) + plotH - mean/top*plotH
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="line-mean"><title>mean %.1f a day</title></line>`,
		replPadL, replChartW-4, y, y, mean)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// projectionChart draws the inventory position falling at the mean daily
// demand, with the reorder point and the safety stock as lines: where the
// fall crosses the reorder point is when to order.
func projectionChart(e evaluate.Evaluation) template.HTML {
	f := e.Figures
	days := int(math.Ceil(2 * f.LeadTimeDays))
	days = min(max(days, projectionDaysMin), projectionDaysMax)
	top := niceCeil(math.Max(1, float64(max(f.InventoryPosition, f.ReorderPoint, f.SafetyStock, 0))*1.1))
	plotW := float64(replChartW - replPadL - 4)
	plotH := float64(replChartH - replPadB - replPadT)
	yOf := func(units float64) float64 {
		return float64(replPadT) + plotH - math.Max(0, math.Min(units, top))/top*plotH
	}
	var b strings.Builder
	openChart(&b, "projected stock")
	axis(&b, top, "units")
	start := float64(f.InventoryPosition)
	end := start - f.Demand.MeanDaily*float64(days)
	// The line stops where it reaches zero.
	endX := plotW
	if end < 0 && f.Demand.MeanDaily > 0 {
		endX = plotW * start / (f.Demand.MeanDaily * float64(days))
		end = 0
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" class="line-projection"><title>inventory position %d, falling %.1f a day</title></line>`,
		replPadL, float64(replPadL)+math.Max(endX, 0), yOf(start), yOf(end), f.InventoryPosition, f.Demand.MeanDaily)
	// The reorder point's label sits above its line and the safety
	// stock's below its own, so that the two never overlap.
	for _, l := range []struct {
		name  string
		class string
		units int64
		dy    float64
	}{{"reorder point", "line-rop", f.ReorderPoint, -4}, {"safety stock", "line-ss", f.SafetyStock, 13}} {
		y := yOf(float64(l.units))
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="%s"/><text x="%d" y="%.1f" class="tick" text-anchor="end">%s %d</text>`,
			replPadL, replChartW-4, y, y, l.class, replChartW-4, min(y+l.dy, float64(replChartH-replPadB)-2), l.name, l.units)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="tick">today</text><text x="%d" y="%d" class="tick" text-anchor="end">+%d days</text>`,
		replPadL, replChartH-4, replChartW-4, replChartH-4, days)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func openChart(b *strings.Builder, label string) {
	fmt.Fprintf(b, `<svg class="repl" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="%s">`, replChartW, replChartH, label)
}

// axis draws the value axis from 0 to top.
func axis(b *strings.Builder, top float64, unit string) {
	plotH := float64(replChartH - replPadB - replPadT)
	for _, frac := range []float64{0, 0.5, 1} {
		y := float64(replPadT) + plotH - frac*plotH
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/><text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>`,
			replPadL, replChartW-4, y, y, replPadL-4, y+4, trimFloat(top*frac))
	}
	fmt.Fprintf(b, `<text x="2" y="10" class="tick">%s</text>`, unit)
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten, for round ticks.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}
