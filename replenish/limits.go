package replenish

// Limits on every input of Compute, each checked by Input.Validate so that
// an out-of-range setting is refused with the name of its field instead of
// producing a figure nobody can trust.
const (
	// ServiceLevelMin and ServiceLevelMax bound the probability of not
	// running out during a lead time. Below one half Z turns negative and
	// the "buffer" would subtract stock; 0.999 (Z ≈ 3.09) is where a normal
	// model of daily demand stops meaning anything.
	ServiceLevelMin = 0.5
	ServiceLevelMax = 0.999

	// DemandWindowDaysMax bounds the history handed to one computation: a
	// year of business days and more is no longer "recent demand".
	DemandWindowDaysMax = 365
	// MinHistoryDays is how much history a SKU needs before its own mean
	// and deviation are trusted (seed 003 §4.2: "跑满 14 天再切换到自身数据").
	MinHistoryDays = 14

	// LeadTimeDaysMax bounds lead_time_days and lead_time_stddev_days.
	LeadTimeDaysMax = 365
	// ReviewDaysMax, CoverDaysMax and SlowMovingDaysMax bound the other
	// settings counted in days.
	ReviewDaysMax     = 365
	CoverDaysMax      = 730
	SlowMovingDaysMax = 3650

	// QuantityMax bounds every quantity in units (a day's demand, stock
	// figures, multiples, red line). It is the books' own bound
	// (stockd.QuantityMax), so any position the ledger can hold is a valid
	// input, and every product below stays far inside float64's exact
	// integers.
	QuantityMax int64 = 1_000_000_000_000
)

// Defaults a deployment starts from (issue 11); a SKU's settings override
// them.
const (
	ServiceLevelDefault     = 0.95
	ReviewDaysDefault       = 1
	CoverDaysDefault        = 30
	DemandWindowDaysDefault = 30
	SlowMovingDaysDefault   = 90
)
