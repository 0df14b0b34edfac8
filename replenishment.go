package stockd

import (
	"math"

	"github.com/stockd/stockd/replenish"
)

// Document kinds of replenishment settings: a SKU's own (id = SKU) and the
// deployment's defaults (one document, id ReplenishmentDefaultsID). They
// are documents because they shape decisions and are no part of the books;
// the batch locks and versions them like every other.
const (
	DocReplenishment         = "replenishment"
	DocReplenishmentDefaults = "replenishment_defaults"
	ReplenishmentDefaultsID  = "deployment"

	KindReplenishmentDefaultsUpdate CommandKind = "replenishment_defaults_update"
)

// ReplenishmentLabelLengthMax bounds a category or price band: a label
// peers are grouped by, not a description.
const ReplenishmentLabelLengthMax = 64

// ReplenishmentSettings are a SKU's inputs to the reorder computation. A
// nil field is not set: the deployment's default applies, and past it the
// built-in one (replenish.ServiceLevelDefault and its neighbours). Lead
// times are in days and may be fractional; quantities are units.
type ReplenishmentSettings struct {
	LeadTimeDays       *float64 `json:"lead_time_days,omitempty"`
	LeadTimeStddevDays *float64 `json:"lead_time_stddev_days,omitempty"`
	ServiceLevel       *float64 `json:"service_level,omitempty"`
	ReviewDays         *int     `json:"review_days,omitempty"`
	CoverDays          *int     `json:"cover_days,omitempty"`
	OrderMultiple      *int64   `json:"order_multiple,omitempty"`
	MinOrderQuantity   *int64   `json:"min_order_quantity,omitempty"`
	RedLine            *int64   `json:"red_line,omitempty"`
	// Category and PriceBand group SKUs for the cold start; the empty
	// string clears them. They have no deployment default.
	Category         *string `json:"category,omitempty"`
	PriceBand        *string `json:"price_band,omitempty"`
	DemandWindowDays *int    `json:"demand_window_days,omitempty"`
	SlowMovingDays   *int    `json:"slow_moving_days,omitempty"`
	// DemandByLocation asks for figures per location as well: each
	// location's demand from its own sales, against its own stock. A
	// SKU's own choice only: every evaluation of the SKU then reads once
	// more per location, so no deployment default may turn it on for all.
	DemandByLocation *bool `json:"demand_by_location,omitempty"`
}

// ReplenishmentDefaults are the deployment's defaults: the settings a SKU
// leaves unset, and the cold start's last resort (d̄ and σ_d of a SKU
// without 14 days of history and without peers).
type ReplenishmentDefaults struct {
	ReplenishmentSettings
	ColdStartMeanDaily   *float64 `json:"cold_start_mean_daily,omitempty"`
	ColdStartStddevDaily *float64 `json:"cold_start_stddev_daily,omitempty"`
}

// Built-in defaults of the settings replenish has none for. A lead time
// nobody told us is taken as a week, with no deviation; the cold start's
// last resort is one unit a day give or take one, so that a SKU nobody
// knows still gets a buffer (seed 003 §4.2: never σ = 0).
const (
	LeadTimeDaysDefault         = 7
	ColdStartMeanDailyDefault   = 1.0
	ColdStartStddevDailyDefault = 1.0
)

// empty reports whether no field is set.
func (r ReplenishmentSettings) empty() bool { return r == ReplenishmentSettings{} }

// normalize checks every limit of the fields set.
func (r ReplenishmentSettings) normalize() *Error {
	for _, d := range []struct {
		field string
		v     *float64
	}{{"lead_time_days", r.LeadTimeDays}, {"lead_time_stddev_days", r.LeadTimeStddevDays}} {
		if d.v != nil && !finiteIn(*d.v, 0, replenish.LeadTimeDaysMax) {
			return InvalidField(d.field, "must be from 0 to %d days", replenish.LeadTimeDaysMax)
		}
	}
	if r.ServiceLevel != nil && !finiteIn(*r.ServiceLevel, replenish.ServiceLevelMin, replenish.ServiceLevelMax) {
		return InvalidField("service_level", "must be from %g to %g", replenish.ServiceLevelMin, replenish.ServiceLevelMax)
	}
	for _, d := range []struct {
		field string
		v     *int
		max   int
	}{
		{"review_days", r.ReviewDays, replenish.ReviewDaysMax},
		{"cover_days", r.CoverDays, replenish.CoverDaysMax},
		{"demand_window_days", r.DemandWindowDays, replenish.DemandWindowDaysMax},
		{"slow_moving_days", r.SlowMovingDays, replenish.SlowMovingDaysMax},
	} {
		if d.v != nil && (*d.v < 1 || *d.v > d.max) {
			return InvalidField(d.field, "must be an integer from 1 to %d", d.max)
		}
	}
	if r.OrderMultiple != nil && (*r.OrderMultiple < 1 || *r.OrderMultiple > QuantityMax) {
		return InvalidField("order_multiple", "must be an integer from 1 to %d", QuantityMax)
	}
	for _, q := range []struct {
		field string
		v     *int64
	}{{"min_order_quantity", r.MinOrderQuantity}, {"red_line", r.RedLine}} {
		if q.v != nil && (*q.v < 0 || *q.v > QuantityMax) {
			return InvalidField(q.field, "must be an integer from 0 to %d", QuantityMax)
		}
	}
	for _, l := range []struct {
		field string
		v     *string
	}{{"category", r.Category}, {"price_band", r.PriceBand}} {
		if l.v != nil {
			if err := validText(l.field, *l.v, ReplenishmentLabelLengthMax, false); err != nil {
				return err
			}
		}
	}
	return nil
}

func finiteIn(x, lo, hi float64) bool { return x >= lo && x <= hi && !math.IsNaN(x) }

// merge sets in r every field u sets.
func (r *ReplenishmentSettings) merge(u ReplenishmentSettings) {
	mergeField(&r.LeadTimeDays, u.LeadTimeDays)
	mergeField(&r.LeadTimeStddevDays, u.LeadTimeStddevDays)
	mergeField(&r.ServiceLevel, u.ServiceLevel)
	mergeField(&r.ReviewDays, u.ReviewDays)
	mergeField(&r.CoverDays, u.CoverDays)
	mergeField(&r.OrderMultiple, u.OrderMultiple)
	mergeField(&r.MinOrderQuantity, u.MinOrderQuantity)
	mergeField(&r.RedLine, u.RedLine)
	mergeField(&r.Category, u.Category)
	mergeField(&r.PriceBand, u.PriceBand)
	mergeField(&r.DemandWindowDays, u.DemandWindowDays)
	mergeField(&r.SlowMovingDays, u.SlowMovingDays)
	mergeField(&r.DemandByLocation, u.DemandByLocation)
}

func mergeField[T any](dst **T, src *T) {
	if src != nil {
		v := *src
		*dst = &v
	}
}

// Effective is the settings a computation uses: the SKU's own, else the
// deployment's, else the built-in defaults.
type Effective struct {
	LeadTimeDays         float64
	LeadTimeStddevDays   float64
	ServiceLevel         float64
	ReviewDays           int
	CoverDays            int
	OrderMultiple        int64
	MinOrderQuantity     int64
	RedLine              int64
	Category             string
	PriceBand            string
	DemandWindowDays     int
	SlowMovingDays       int
	DemandByLocation     bool
	ColdStartMeanDaily   float64
	ColdStartStddevDaily float64
}

// EffectiveSettings layers sku over d over the built-in defaults.
func EffectiveSettings(sku ReplenishmentSettings, d ReplenishmentDefaults) Effective {
	layered := d.ReplenishmentSettings
	layered.Category, layered.PriceBand, layered.DemandByLocation = nil, nil, nil
	layered.merge(sku)
	return Effective{
		LeadTimeDays:         orDefault(layered.LeadTimeDays, LeadTimeDaysDefault),
		LeadTimeStddevDays:   orDefault(layered.LeadTimeStddevDays, 0),
		ServiceLevel:         orDefault(layered.ServiceLevel, replenish.ServiceLevelDefault),
		ReviewDays:           orDefault(layered.ReviewDays, replenish.ReviewDaysDefault),
		CoverDays:            orDefault(layered.CoverDays, replenish.CoverDaysDefault),
		OrderMultiple:        orDefault(layered.OrderMultiple, 1),
		MinOrderQuantity:     orDefault(layered.MinOrderQuantity, 0),
		RedLine:              orDefault(layered.RedLine, 0),
		Category:             orDefault(layered.Category, ""),
		PriceBand:            orDefault(layered.PriceBand, ""),
		DemandWindowDays:     orDefault(layered.DemandWindowDays, replenish.DemandWindowDaysDefault),
		SlowMovingDays:       orDefault(layered.SlowMovingDays, replenish.SlowMovingDaysDefault),
		DemandByLocation:     orDefault(layered.DemandByLocation, false),
		ColdStartMeanDaily:   orDefault(d.ColdStartMeanDaily, ColdStartMeanDailyDefault),
		ColdStartStddevDaily: orDefault(d.ColdStartStddevDaily, ColdStartStddevDailyDefault),
	}
}

func orDefault[T any](v *T, def T) T {
	if v == nil {
		return def
	}
	return *v
}

// ReplenishmentDefaultsUpdate changes the deployment's defaults; a nil
// field is left as it is. Its answer (Result.Object) is the defaults after
// the change.
type ReplenishmentDefaultsUpdate struct {
	Defaults ReplenishmentDefaults
	// IfMatch, when set, applies the change only if the defaults document
	// is still at this version.
	IfMatch *int64
}

func (u *ReplenishmentDefaultsUpdate) Kind() CommandKind { return KindReplenishmentDefaultsUpdate }

func (u *ReplenishmentDefaultsUpdate) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocReplenishmentDefaults, ID: ReplenishmentDefaultsID})
}

func (u *ReplenishmentDefaultsUpdate) normalize() *Error {
	if err := validIfMatch(u.IfMatch); err != nil {
		return err
	}
	d := u.Defaults
	if d.Category != nil || d.PriceBand != nil {
		return InvalidField("category", "category and price_band are a SKU's own, with no deployment default")
	}
	if d.DemandByLocation != nil {
		return InvalidField("demand_by_location", "a SKU's own setting (PATCH /v1/skus/{sku}): as a default it would multiply the reads of every evaluation by the locations")
	}
	if d.empty() && d.ColdStartMeanDaily == nil && d.ColdStartStddevDaily == nil {
		return Errorf(CodeUnprocessable, "give at least one setting")
	}
	if d.ColdStartMeanDaily != nil && !finiteIn(*d.ColdStartMeanDaily, 0, float64(QuantityMax)) {
		return InvalidField("cold_start_mean_daily", "must be from 0 to %d units a day", QuantityMax)
	}
	// σ = 0 would zero the buffer of every SKU nobody knows yet.
	if d.ColdStartStddevDaily != nil && (!finiteIn(*d.ColdStartStddevDaily, 0, float64(QuantityMax)) || *d.ColdStartStddevDaily == 0) {
		return InvalidField("cold_start_stddev_daily", "must be above 0 and at most %d units a day", QuantityMax)
	}
	return d.ReplenishmentSettings.normalize()
}

func (u *ReplenishmentDefaultsUpdate) decide(s *BatchState, _ *Command) Result {
	if err := s.checkVersion(DocReplenishmentDefaults, ReplenishmentDefaultsID, u.IfMatch); err != nil {
		return Result{Err: err}
	}
	var d ReplenishmentDefaults
	s.docGet(DocReplenishmentDefaults, ReplenishmentDefaultsID, &d)
	d.ReplenishmentSettings.merge(u.Defaults.ReplenishmentSettings)
	mergeField(&d.ColdStartMeanDaily, u.Defaults.ColdStartMeanDaily)
	mergeField(&d.ColdStartStddevDaily, u.Defaults.ColdStartStddevDaily)
	s.docPut(DocReplenishmentDefaults, ReplenishmentDefaultsID, d)
	return Result{Object: objectOf(d), Version: s.docVersion(DocReplenishmentDefaults, ReplenishmentDefaultsID)}
}
