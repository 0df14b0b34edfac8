package backtest

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/stockd/stockd/replenish"
)

// Summary is what one policy did over the whole trace.
type Summary struct {
	Policy string
	// SKUDays counts the days each SKU existed, summed.
	SKUDays int64
	// StockoutDays counts SKU-days on which the SKU was out of stock for a
	// customer: it opened with nothing on hand (after the morning's
	// deliveries), or demand went unserved.
	StockoutDays int64
	// EndedEmptyDays counts SKU-days that ended with nothing on hand,
	// including those whose last unit went to the day's last customer.
	EndedEmptyDays int64
	Demand         int64
	// DemandLost is demand that found no stock (lost, not back-ordered).
	DemandLost int64
	// AverageInventory is units on hand at the end of a day, summed over
	// SKUs, averaged over the days of the trace.
	AverageInventory    float64
	Orders              int64
	UnitsOrdered        int64
	NotificationsSent   int64
	NotificationsDigest int64
}

func (s *Summary) add(o Summary) {
	s.SKUDays += o.SKUDays
	s.StockoutDays += o.StockoutDays
	s.EndedEmptyDays += o.EndedEmptyDays
	s.Demand += o.Demand
	s.DemandLost += o.DemandLost
	s.AverageInventory += o.AverageInventory
	s.Orders += o.Orders
	s.UnitsOrdered += o.UnitsOrdered
	s.NotificationsSent += o.NotificationsSent
	s.NotificationsDigest += o.NotificationsDigest
}

// SentPerOrder is the sent notifications per order placed.
func (s Summary) SentPerOrder() float64 {
	if s.Orders == 0 {
		return 0
	}
	return float64(s.NotificationsSent) / float64(s.Orders)
}

// Comparison is the policy against the fixed rule.
type Comparison struct {
	// StockoutDaysFewerPercent is how many percent fewer stockout-days the
	// policy had (100 is none at all).
	StockoutDaysFewerPercent float64
	// InventoryChangePercent is the policy's average inventory over the
	// fixed rule's, minus 100 %.
	InventoryChangePercent float64
	SentPerOrder           float64
}

// Compare sets the policy against the fixed rule.
func (r *Result) Compare() Comparison {
	p, f := r.Policy.Summary, r.Fixed.Summary
	var c Comparison
	if f.StockoutDays > 0 {
		c.StockoutDaysFewerPercent = 100 * (1 - float64(p.StockoutDays)/float64(f.StockoutDays))
	}
	if f.AverageInventory > 0 {
		c.InventoryChangePercent = 100 * (p.AverageInventory/f.AverageInventory - 1)
	}
	c.SentPerOrder = p.SentPerOrder()
	return c
}

// Targets of issue 11.
const (
	TargetStockoutDaysFewerPercent = 96
	TargetInventoryChangePercent   = 10
	TargetSentPerOrder             = 1
)

// Met reports whether the comparison reaches issue 11's targets.
func (c Comparison) Met() bool {
	return c.StockoutDaysFewerPercent >= TargetStockoutDaysFewerPercent &&
		c.InventoryChangePercent <= TargetInventoryChangePercent &&
		c.SentPerOrder <= TargetSentPerOrder
}

// WriteSummary prints both policies side by side and the comparison.
func (r *Result) WriteSummary(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tstockout-days\tended empty\tdemand lost\tfill rate\taverage inventory\torders\tunits ordered\tsent\tdigest\tsent/order\t")
	for _, s := range []Summary{r.Policy.Summary, r.Fixed.Summary} {
		fill := 0.0
		if s.Demand > 0 {
			fill = 100 * (1 - float64(s.DemandLost)/float64(s.Demand))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f %%\t%.0f\t%d\t%d\t%d\t%d\t%.2f\t\n", s.Policy, s.StockoutDays, s.EndedEmptyDays, s.DemandLost, fill,
			s.AverageInventory, s.Orders, s.UnitsOrdered, s.NotificationsSent, s.NotificationsDigest, s.SentPerOrder())
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	for _, p := range []PolicyResult{r.Policy, r.Fixed} {
		if _, err := fmt.Fprintf(w, "%s sent by level: %s\n", p.Summary.Policy, sentByLevel(p.Notifications)); err != nil {
			return fmt.Errorf("write summary: %w", err)
		}
	}
	c := r.Compare()
	verdict := "targets met"
	if !c.Met() {
		verdict = "targets MISSED"
	}
	_, err := fmt.Fprintf(w, "stockout-days %.1f %% fewer (target ≥ %d %%), average inventory %+.1f %% (target ≤ +%d %%), sent per order %.2f (target ≤ %d): %s\n",
		c.StockoutDaysFewerPercent, TargetStockoutDaysFewerPercent, c.InventoryChangePercent, TargetInventoryChangePercent,
		c.SentPerOrder, TargetSentPerOrder, verdict)
	if err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

// sentByLevel counts the sent notifications of each level, most severe
// first.
func sentByLevel(notes []Notification) string {
	counts := map[string]int{}
	var levels []string
	for _, n := range notes {
		if n.Kind != replenish.NoticeSent {
			continue
		}
		if counts[n.Level] == 0 {
			levels = append(levels, n.Level)
		}
		counts[n.Level]++
	}
	sort.Slice(levels, func(a, b int) bool {
		sa, sb := replenish.Level(levels[a]).Severity(), replenish.Level(levels[b]).Severity()
		if sa != sb {
			return sa > sb
		}
		return levels[a] < levels[b]
	})
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = fmt.Sprintf("%s %d", l, counts[l])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
