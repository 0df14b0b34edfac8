package dashboard

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/stockd/stockd/httpapi"
)

// Charts are SVG written here, into the page: no script draws them and
// no library is fetched. Every text in them is escaped; numbers are
// integers formatted here.

// The composition chart's geometry, in the SVG's own units: a row per
// position, its label on a line above its bar so that the bar can span
// the whole width on a phone, and room at the right for the number.
const (
	chartWidth   = 760
	chartNumberW = 70
	chartBarW    = chartWidth - chartNumberW
	chartRowH    = 58
	chartLabelY  = 22
	chartBarY    = 31
	chartBarH    = 20
	chartGap     = 6
)

// segment is one part of a stacked bar.
type segment struct {
	name  string
	class string
	units int64
}

// compositionSegments splits a position into its parts: on hand as
// available, reserved, committed and quarantined, then what is coming.
func compositionSegments(b httpapi.Balance) (onHand, coming []segment) {
	onHand = []segment{
		{"available", "seg-available", max(b.Available, 0)},
		{"reserved", "seg-reserved", b.Reserved},
		{"committed", "seg-committed", b.Committed},
		{"quarantined", "seg-quarantined", b.Quarantined},
	}
	coming = []segment{
		{"incoming", "seg-incoming", b.Incoming},
		{"in transit", "seg-transit", b.InTransit},
	}
	return onHand, coming
}

// compositionChart draws one stacked bar per position of the stock, on a
// common scale. The legend is HTML beside it (legendItems), so that it
// wraps on a narrow screen.
func compositionChart(s httpapi.Stock) template.HTML {
	var scale int64 = 1
	for _, p := range s.Positions {
		onHand, coming := compositionSegments(p.Balance)
		scale = max(scale, sum(onHand)+sum(coming))
	}
	height := chartRowH * max(len(s.Positions), 1)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="stock composition of %s">`,
		chartWidth, height, template.HTMLEscapeString(s.SKU))
	if len(s.Positions) == 0 {
		fmt.Fprintf(&b, `<text x="0" y="%d" class="muted">no stock has been received</text>`, chartLabelY)
	}
	for i, p := range s.Positions {
		y := i * chartRowH
		label := p.Location + " / " + p.Pool
		fmt.Fprintf(&b, `<text x="0" y="%d" class="label">%s</text>`, y+chartLabelY, template.HTMLEscapeString(label))
		onHand, coming := compositionSegments(p.Balance)
		x := bar(&b, onHand, 0, y+chartBarY, scale)
		if sum(coming) > 0 {
			x = bar(&b, coming, x+chartGap, y+chartBarY, scale)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="total">%d</text>`, x+6, y+chartBarY+chartBarH-3, p.OnHand)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// bar draws segments from x on and returns where they end.
func bar(b *strings.Builder, segs []segment, x float64, y int, scale int64) float64 {
	for _, s := range segs {
		if s.units <= 0 {
			continue
		}
		w := float64(s.units) / float64(scale) * chartBarW
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" class="%s"><title>%s: %d</title></rect>`,
			x, y, w, chartBarH, s.class, s.name, s.units)
		x += w
	}
	return x
}

// legendItem is one entry of a chart's legend.
type legendItem struct {
	Name  string
	Class string
}

// legendItems names the composition's parts in the order the bars stack.
func legendItems() []legendItem {
	onHand, coming := compositionSegments(httpapi.Balance{})
	var items []legendItem
	for _, s := range append(onHand, coming...) {
		items = append(items, legendItem{Name: s.name, Class: s.class})
	}
	return items
}

func sum(segs []segment) int64 {
	var n int64
	for _, s := range segs {
		n += max(s.units, 0)
	}
	return n
}

// progressBar draws a campaign's allocation as sold, reserved and left.
func progressBar(sold, reserved, left int64) template.HTML {
	total := max(sold+reserved+left, 1)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="progress" viewBox="0 0 400 18" width="100%%" role="img" aria-label="sold %d, reserved %d, left %d">`, sold, reserved, left)
	x := 0.0
	for _, s := range []segment{{"sold", "seg-committed", sold}, {"reserved", "seg-reserved", reserved}, {"left", "seg-available", left}} {
		if s.units <= 0 {
			continue
		}
		w := float64(s.units) / float64(total) * 400
		fmt.Fprintf(&b, `<rect x="%.1f" y="0" width="%.1f" height="18" class="%s"><title>%s: %d</title></rect>`, x, w, s.class, s.name, s.units)
		x += w
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
