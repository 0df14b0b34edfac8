// Package backtest replays a demand trace day by day through replenish.Compute
// and its level and notice rules, beside the seed's fixed threshold, on the
// same trace and the same realised lead times, to show what the policy buys.
package backtest

import (
	"fmt"
	"time"
)

// Limits of a trace, named so a bad file is refused before it is replayed.
const (
	// SKUsMax bounds the SKUs of one trace.
	SKUsMax = 100_000
	// TraceDaysMax bounds its length: ten years of business days.
	TraceDaysMax = 3660
	// SKULengthMax bounds a SKU id, as the books do.
	SKULengthMax = 64
	// CategoryLengthMax bounds a category name.
	CategoryLengthMax = 64
)

// DateLayout is how every date of the CSV files is written.
const DateLayout = "2006-01-02"

// SKU is one row of skus.csv: the settings the policy works with.
type SKU struct {
	ID                 string
	LeadTimeDays       float64
	LeadTimeStddevDays float64
	ServiceLevel       float64
	CoverDays          int
	OrderMultiple      int64
	MinOrderQuantity   int64
	RedLine            int64
	Category           string
	InitialOnHand      int64
}

// Trace is what a backtest replays: for each SKU its daily demand from the
// trace's first day. A SKU exists from its launch day (its first row in
// demand.csv) on; days after that without a row are days without demand.
type Trace struct {
	// Start is the first day, a UTC midnight.
	Start time.Time
	Days  int
	SKUs  []SKU
	// Demand[i] has Days entries, SKUs[i]'s demand by day; zero before
	// Launch[i].
	Demand [][]int64
	Launch []int
}

// Date names day d of the trace.
func (t *Trace) Date(day int) string { return t.Start.AddDate(0, 0, day).Format(DateLayout) }

func (t *Trace) check() error {
	if len(t.SKUs) == 0 || len(t.SKUs) > SKUsMax {
		return fmt.Errorf("trace: %d SKUs, want 1 to %d", len(t.SKUs), SKUsMax)
	}
	if t.Days < 1 || t.Days > TraceDaysMax {
		return fmt.Errorf("trace: %d days, want 1 to %d", t.Days, TraceDaysMax)
	}
	if len(t.Demand) != len(t.SKUs) || len(t.Launch) != len(t.SKUs) {
		return fmt.Errorf("trace: demand for %d and launches for %d of %d SKUs", len(t.Demand), len(t.Launch), len(t.SKUs))
	}
	for i, d := range t.Demand {
		if len(d) != t.Days || t.Launch[i] < 0 || t.Launch[i] >= t.Days {
			return fmt.Errorf("trace: SKU %s has %d days of demand from day %d, want %d", t.SKUs[i].ID, len(d), t.Launch[i], t.Days)
		}
	}
	return nil
}
