package httpapi

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/replenish"
	"github.com/stockd/stockd/replenish/evaluate"
)

func (s *Server) replenishmentRoutes() []route {
	return []route{
		{"GET /v1/replenishment", "replenishment_list", stockd.ScopeRead, s.listReplenishment},
		{"GET /v1/replenishment/{sku}", "replenishment_get", stockd.ScopeRead, s.getReplenishment},
		{"GET /v1/settings/replenishment", "replenishment_defaults_get", stockd.ScopeRead, s.getReplenishmentDefaults},
		{"PATCH /v1/settings/replenishment", "replenishment_defaults_update", stockd.ScopeAdmin, s.updateReplenishmentDefaults},
		{"POST /v1/demand-history", "demand_history_import", stockd.ScopeAdmin, s.importDemandHistory},
	}
}

// Replenishment is one SKU's reorder figures (replenish.Figures) with what
// they were computed from.
type Replenishment struct {
	SKU string `json:"sku"`
	// AsOf is the business date whose end bounds the demand history.
	AsOf string `json:"as_of"`
	// Source is where MeanDaily and StddevDaily came from: history,
	// category_price_band, category or default.
	Source      string  `json:"source"`
	HistoryDays int     `json:"history_days"`
	MeanDaily   float64 `json:"mean_daily"`
	StddevDaily float64 `json:"stddev_daily"`
	// LeadTimeSource is settings, or observed once LeadTimeSamples
	// purchase orders received in full number at least 5.
	LeadTimeSource     string  `json:"lead_time_source"`
	LeadTimeSamples    int     `json:"lead_time_samples"`
	LeadTimeDays       float64 `json:"lead_time_days"`
	LeadTimeStddevDays float64 `json:"lead_time_stddev_days"`
	ServiceLevel       float64 `json:"service_level"`
	Z                  float64 `json:"z"`
	SafetyStock        int64   `json:"safety_stock"`
	ReorderPoint       int64   `json:"reorder_point"`
	AlertLine          int64   `json:"alert_line"`
	Available          int64   `json:"available"`
	InTransit          int64   `json:"in_transit"`
	Incoming           int64   `json:"incoming"`
	InventoryPosition  int64   `json:"inventory_position"`
	// DaysOfCover is available / mean_daily; null when stock sits with no
	// demand (infinite cover).
	DaysOfCover       *float64 `json:"days_of_cover"`
	OrderUpTo         int64    `json:"order_up_to"`
	SuggestedQuantity int64    `json:"suggested_quantity"`
	Suppressed        bool     `json:"suppressed"`
	Level             string   `json:"level"`
	LevelReason       string   `json:"level_reason"`
	// Settings are the settings used: the SKU's, else the deployment's,
	// else the built-in defaults.
	Settings ReplenishmentSettingsUsed `json:"settings"`
	// Location is the location these figures are of (its own sales and
	// stock); absent for the SKU as a whole.
	Location string `json:"location,omitempty"`
	// Locations are the figures of each location the SKU is stocked at,
	// present on the SKU-wide answer of a SKU with demand_by_location.
	Locations []Replenishment `json:"locations,omitempty"`
}

// ReplenishmentSettingsUsed are the settings an evaluation used, every one
// filled.
type ReplenishmentSettingsUsed struct {
	LeadTimeDays       float64 `json:"lead_time_days"`
	LeadTimeStddevDays float64 `json:"lead_time_stddev_days"`
	ServiceLevel       float64 `json:"service_level"`
	ReviewDays         int     `json:"review_days"`
	CoverDays          int     `json:"cover_days"`
	OrderMultiple      int64   `json:"order_multiple"`
	MinOrderQuantity   int64   `json:"min_order_quantity"`
	RedLine            int64   `json:"red_line"`
	Category           string  `json:"category"`
	PriceBand          string  `json:"price_band"`
	DemandWindowDays   int     `json:"demand_window_days"`
	SlowMovingDays     int     `json:"slow_moving_days"`
	DemandByLocation   bool    `json:"demand_by_location"`
}

// ReplenishmentList is one page of GET /v1/replenishment. NextAfter is the
// cursor of the next page, absent after the last.
type ReplenishmentList struct {
	SKUs      []Replenishment `json:"skus"`
	NextAfter string          `json:"next_after,omitempty"`
}

// ReplenishmentDefaults are the deployment's defaults in effect, every one
// filled (built-in where the deployment set none).
type ReplenishmentDefaults struct {
	LeadTimeDays         float64 `json:"lead_time_days"`
	LeadTimeStddevDays   float64 `json:"lead_time_stddev_days"`
	ServiceLevel         float64 `json:"service_level"`
	ReviewDays           int     `json:"review_days"`
	CoverDays            int     `json:"cover_days"`
	OrderMultiple        int64   `json:"order_multiple"`
	MinOrderQuantity     int64   `json:"min_order_quantity"`
	RedLine              int64   `json:"red_line"`
	DemandWindowDays     int     `json:"demand_window_days"`
	SlowMovingDays       int     `json:"slow_moving_days"`
	ColdStartMeanDaily   float64 `json:"cold_start_mean_daily"`
	ColdStartStddevDaily float64 `json:"cold_start_stddev_daily"`
	Replayed             bool    `json:"-"`
	// ETag is set by Client from the answer's header: the version of the
	// defaults, for If-Match. Never in the body.
	ETag string `json:"-"`
}

func settingsUsedOut(e stockd.Effective) ReplenishmentSettingsUsed {
	return ReplenishmentSettingsUsed{
		LeadTimeDays: e.LeadTimeDays, LeadTimeStddevDays: e.LeadTimeStddevDays, ServiceLevel: e.ServiceLevel,
		ReviewDays: e.ReviewDays, CoverDays: e.CoverDays, OrderMultiple: e.OrderMultiple,
		MinOrderQuantity: e.MinOrderQuantity, RedLine: e.RedLine, Category: e.Category, PriceBand: e.PriceBand,
		DemandWindowDays: e.DemandWindowDays, SlowMovingDays: e.SlowMovingDays, DemandByLocation: e.DemandByLocation,
	}
}

func defaultsOut(d stockd.ReplenishmentDefaults) ReplenishmentDefaults {
	e := stockd.EffectiveSettings(stockd.ReplenishmentSettings{}, d)
	return ReplenishmentDefaults{
		LeadTimeDays: e.LeadTimeDays, LeadTimeStddevDays: e.LeadTimeStddevDays, ServiceLevel: e.ServiceLevel,
		ReviewDays: e.ReviewDays, CoverDays: e.CoverDays, OrderMultiple: e.OrderMultiple,
		MinOrderQuantity: e.MinOrderQuantity, RedLine: e.RedLine, DemandWindowDays: e.DemandWindowDays,
		SlowMovingDays: e.SlowMovingDays, ColdStartMeanDaily: e.ColdStartMeanDaily, ColdStartStddevDaily: e.ColdStartStddevDaily,
	}
}

// ReplenishmentOut renders an evaluation for the wire; the CLI prints the
// same.
func ReplenishmentOut(ev evaluate.Evaluation) Replenishment {
	f := ev.Figures
	out := Replenishment{
		SKU: ev.SKU, AsOf: ev.AsOf, Source: string(f.Source), HistoryDays: f.HistoryDays,
		MeanDaily: f.Demand.MeanDaily, StddevDaily: f.Demand.StddevDaily,
		LeadTimeSource: ev.LeadTime.Source, LeadTimeSamples: ev.LeadTime.Samples,
		LeadTimeDays: f.LeadTimeDays, LeadTimeStddevDays: f.LeadTimeStddevDays, ServiceLevel: f.ServiceLevel, Z: f.Z,
		SafetyStock: f.SafetyStock, ReorderPoint: f.ReorderPoint, AlertLine: f.AlertLine,
		Available: ev.Available, InTransit: ev.InTransit, Incoming: ev.Incoming, InventoryPosition: f.InventoryPosition,
		OrderUpTo: f.OrderUpTo, SuggestedQuantity: f.SuggestedQuantity, Suppressed: f.Suppressed,
		Level: string(f.Level), LevelReason: f.LevelReason, Settings: settingsUsedOut(ev.Settings),
		Location: ev.Location,
	}
	for _, l := range ev.Locations {
		out.Locations = append(out.Locations, ReplenishmentOut(l))
	}
	if !math.IsInf(f.DaysOfCover, 0) {
		cover := f.DaysOfCover
		out.DaysOfCover = &cover
	}
	return out
}

// asOf is the request's as_of, by default the business date of now.
func (s *Server) asOf(q url.Values) (string, *stockd.Error) {
	if !q.Has("as_of") {
		return s.evaluator.BusinessDate(s.now()), nil
	}
	asOf := q.Get("as_of")
	if err := evaluate.ParseDate(asOf); err != nil {
		var e *stockd.Error
		errors.As(err, &e)
		return "", e
	}
	return asOf, nil
}

func (s *Server) getReplenishment(w http.ResponseWriter, r *http.Request) {
	id, verr := pathIdentifier(r, "sku")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	asOf, verr := s.asOf(r.URL.Query())
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	var ev evaluate.Evaluation
	var err error
	if q := r.URL.Query(); q.Has("location") {
		location := q.Get("location")
		if !stockd.ValidIdentifier(location) {
			writeProblem(w, stockd.InvalidField("location", "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax))
			return
		}
		ev, err = s.evaluator.SKUAt(r.Context(), id, location, asOf)
	} else {
		ev, err = s.evaluator.SKU(r.Context(), id, asOf)
	}
	if errors.Is(err, evaluate.ErrNotByLocation) {
		writeProblem(w, stockd.Errorf(stockd.CodeUnprocessable, "%v", err))
		return
	}
	if errors.Is(err, evaluate.ErrUnknownSKU) {
		writeProblem(w, stockd.Errorf(stockd.CodeUnknownSKU, "sku %q is unknown", id))
		return
	}
	if errors.Is(err, evaluate.ErrBundle) {
		writeProblem(w, stockd.Errorf(stockd.CodeUnprocessable, "sku %q: %v", id, evaluate.ErrBundle))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ReplenishmentOut(ev))
}

func (s *Server) listReplenishment(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	asOf, verr := s.asOf(q)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	p := evaluate.ListParams{AsOf: asOf, Limit: evaluate.PageSizeMax}
	if q.Has("after") {
		p.After = q.Get("after")
		if !stockd.ValidIdentifier(p.After) {
			writeProblem(w, stockd.InvalidField("after", "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax))
			return
		}
	}
	if q.Has("limit") {
		limit, err := strconv.ParseInt(q.Get("limit"), 10, 64)
		if err != nil || limit < 1 || limit > evaluate.PageSizeMax {
			writeProblem(w, stockd.InvalidField("limit", "must be an integer from 1 to %d", evaluate.PageSizeMax))
			return
		}
		p.Limit = int(limit)
	}
	if q.Has("status") {
		p.Level = replenish.Level(q.Get("status"))
		switch p.Level {
		case replenish.LevelOK, replenish.LevelSlowMoving, replenish.LevelWarning, replenish.LevelCritical, replenish.LevelStockout:
		default:
			writeProblem(w, stockd.InvalidField("status", "must be one of ok, slow_moving, warning, critical, stockout"))
			return
		}
	}
	evs, next, err := s.evaluator.List(r.Context(), p)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := ReplenishmentList{SKUs: make([]Replenishment, 0, len(evs)), NextAfter: next}
	for _, ev := range evs {
		out.SKUs = append(out.SKUs, ReplenishmentOut(ev))
	}
	writeJSON(w, http.StatusOK, out)
}

// skuReplenishmentSettings is the SKU's own settings, none set without a
// document.
func (s *Server) skuReplenishmentSettings(ctx context.Context, sku string) (stockd.ReplenishmentSettings, error) {
	return evaluate.Settings(ctx, s.store, sku)
}

func (s *Server) getReplenishmentDefaults(w http.ResponseWriter, r *http.Request) {
	version, err := s.settingsVersion(r.Context(), stockd.DocReplenishmentDefaults, stockd.ReplenishmentDefaultsID)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	d, err := evaluate.Defaults(r.Context(), s.store)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	w.Header().Set(headerETag, etag(version))
	writeJSON(w, http.StatusOK, defaultsOut(d))
}

func (s *Server) updateReplenishmentDefaults(w http.ResponseWriter, r *http.Request) {
	var req stockd.ReplenishmentDefaults
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			version, verr := ifMatch(r)
			if verr != nil {
				return stockd.Command{}, verr
			}
			return stockd.Command{Op: &stockd.ReplenishmentDefaultsUpdate{Defaults: req, IfMatch: version}}, nil
		},
		answer:  objectOut(defaultsOut),
		headers: versionHeader,
	})
}
