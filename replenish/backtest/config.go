package backtest

import (
	"fmt"

	"github.com/stockd/stockd/replenish"
)

// History is what the policy is shown of the past.
type History string

const (
	// HistoryDemand shows the trace's demand, what customers asked for.
	HistoryDemand History = "demand"
	// HistorySales shows only what was sold, as a deployment's ledger
	// would: a day out of stock looks like a day nobody wanted the SKU.
	HistorySales History = "sales"
)

// FixedThresholdDefault is the seed's "库存低于 10 就发钉钉通知".
const FixedThresholdDefault = 10

// Config is a backtest's run settings. Start from DefaultConfig: Run takes
// every field as given and refuses what is out of range.
type Config struct {
	// Seed drives the realised lead times.
	Seed             uint64
	DemandWindowDays int
	ReviewDays       int
	SlowMovingDays   int
	OrderRule        replenish.OrderRule
	// Estimator is the reorder point's reading of the window (replenish.
	// Estimators); the fixed rule's d̄ is the mean whatever it is.
	Estimator replenish.Estimator
	History   History
	// ColdStartDefault is the deployment's default estimate, used until a
	// SKU or its category has MinHistoryDays of history.
	ColdStartDefault replenish.Estimate
	FixedThreshold   int64
}

// DefaultConfig is issue 11's defaults: a 30-day window, daily review,
// slow moving past 90 days of cover, the adopted order rule and estimator, the demand as
// history, a default of one unit a day (σ 1) and the seed's threshold of 10.
func DefaultConfig() Config {
	return Config{
		Seed:             1,
		DemandWindowDays: replenish.DemandWindowDaysDefault,
		ReviewDays:       replenish.ReviewDaysDefault,
		SlowMovingDays:   replenish.SlowMovingDaysDefault,
		OrderRule:        replenish.OrderRuleDefault,
		Estimator:        replenish.EstimatorDefault,
		History:          HistoryDemand,
		ColdStartDefault: replenish.Estimate{MeanDaily: 1, StddevDaily: 1},
		FixedThreshold:   FixedThresholdDefault,
	}
}

func (c Config) check() error {
	if c.DemandWindowDays < replenish.MinHistoryDays || c.DemandWindowDays > replenish.DemandWindowDaysMax {
		return fmt.Errorf("demand_window_days: must be from %d to %d", replenish.MinHistoryDays, replenish.DemandWindowDaysMax)
	}
	if c.History != HistoryDemand && c.History != HistorySales {
		return fmt.Errorf("history: must be %q or %q", HistoryDemand, HistorySales)
	}
	if c.FixedThreshold < 1 || c.FixedThreshold > replenish.QuantityMax {
		return fmt.Errorf("fixed_threshold: must be from 1 to %d", replenish.QuantityMax)
	}
	// The rest is checked by replenish.Input.Validate, with each SKU.
	return nil
}

// policyInput is the one place a SKU's settings and state become a
// replenish.Input, for the policy, the fixed rule and the CSV check alike.
func policyInput(s SKU, c Config, history []int64, available, incoming int64, coldStart replenish.ColdStart) replenish.Input {
	coldStart.Default = c.ColdStartDefault
	return replenish.Input{
		DemandDaily:        history,
		LeadTimeDays:       s.LeadTimeDays,
		LeadTimeStddevDays: s.LeadTimeStddevDays,
		ServiceLevel:       s.ServiceLevel,
		ReviewDays:         c.ReviewDays,
		CoverDays:          s.CoverDays,
		OrderMultiple:      s.OrderMultiple,
		MinOrderQuantity:   s.MinOrderQuantity,
		RedLine:            s.RedLine,
		SlowMovingDays:     c.SlowMovingDays,
		Available:          available,
		Incoming:           incoming,
		ColdStart:          coldStart,
		OrderRule:          c.OrderRule,
		Estimator:          c.Estimator,
	}
}
