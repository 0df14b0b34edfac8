// Package evaluate feeds replenish.Compute from the books: a SKU's
// settings layered over the deployment's defaults, its daily demand (the
// ledger's sales plus imported history, in business days of the
// deployment's time zone), its stock and what is on order, and the cold
// start's peers. The API, the CLI and the alert job call it; none of them
// computes a figure of its own.
package evaluate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/replenish"
	"github.com/stockd/stockd/store"
)

// Reader is what an evaluation reads; store.Store has all of it.
type Reader interface {
	SKUGet(ctx context.Context, id string) (stockd.SKU, error)
	SKUList(ctx context.Context, after string, limit int) ([]stockd.SKU, error)
	PositionListBySKU(ctx context.Context, sku string) ([]stockd.Position, error)
	DocumentGet(ctx context.Context, key stockd.DocKey) (stockd.Document, error)
	DocumentList(ctx context.Context, p store.DocumentListParams) ([]stockd.Document, error)
	LedgerSales(ctx context.Context, sku, location string, from, to time.Time) ([]stockd.SalesBucket, error)
	DemandHistoryList(ctx context.Context, p store.DemandHistoryListParams) ([]stockd.DemandDay, error)
}

// Limits on the work of one evaluation.
const (
	// PeersPerCategoryMax bounds the SKUs of one category whose history a
	// cold start reads (the first by id): a mean over 200 peers is as good
	// as over all, and costs a bounded number of reads.
	PeersPerCategoryMax = 200
	// SettingsScanMax bounds the settings documents a cold start walks to
	// find a category's peers.
	SettingsScanMax = 10_000
	// LocationsPerSKUMax bounds the locations a SKU with demand_by_location
	// is evaluated at (the first by id): each costs two more sales reads.
	LocationsPerSKUMax = 100
)

// Evaluator evaluates SKUs against one store in one business time zone.
type Evaluator struct {
	Store Reader
	// Zone is the business time zone: it decides which business day a sale
	// belongs to. Defaults to UTC.
	Zone *time.Location
}

// Evaluation is one SKU's figures with what they were computed from.
type Evaluation struct {
	SKU string
	// AsOf is the business date whose end bounds the history.
	AsOf     string
	Settings stockd.Effective
	// LeadTime says where LeadTimeDays and its deviation came from.
	LeadTime  LeadTime
	Available int64
	InTransit int64
	Incoming  int64
	Figures   replenish.Figures
	// Location is the location these figures are of, empty for the SKU as
	// a whole.
	Location string
	// Locations holds the figures of each location the SKU is stocked at,
	// by location id, when it asks for demand_by_location; empty
	// otherwise and in a location's own evaluation.
	Locations []Evaluation
}

// LeadTime is the lead time a computation used and its origin.
type LeadTime struct {
	// Source is LeadTimeSettings or LeadTimeObserved.
	Source  string
	Samples int
}

// Lead time sources.
const (
	LeadTimeSettings = "settings"
	LeadTimeObserved = "observed"
)

// ErrUnknownSKU is wrapped by SKU for a SKU that does not exist.
var ErrUnknownSKU = errors.New("unknown sku")

// ErrNotByLocation is wrapped by SKUAt for a SKU without
// demand_by_location, or a location where the SKU has no position.
var ErrNotByLocation = errors.New("no figures by location")

// ErrBundle is wrapped by SKU for a bundle: it holds no stock of its own,
// so it is never reordered; its components are.
var ErrBundle = errors.New("a bundle holds no stock of its own; its components are reordered")

func (e *Evaluator) zone() *time.Location {
	if e.Zone == nil {
		return time.UTC
	}
	return e.Zone
}

// BusinessDate is the business date holding t.
func (e *Evaluator) BusinessDate(t time.Time) string {
	return t.In(e.zone()).Format(stockd.DateLayout)
}

// ParseDate checks a business date (YYYY-MM-DD), answering a
// *stockd.Error naming the field as_of.
func ParseDate(date string) error {
	if err := stockd.ValidDemandDay(stockd.DemandDay{SKU: "x", Date: date}); err != nil {
		return stockd.InvalidField("as_of", "must be a date YYYY-MM-DD")
	}
	return nil
}

// SKU evaluates one SKU with the history up to the end of the business
// date asOf (YYYY-MM-DD); the stock figures are the books' now.
func (e *Evaluator) SKU(ctx context.Context, sku, asOf string) (Evaluation, error) {
	s, err := e.Store.SKUGet(ctx, sku)
	if errors.Is(err, stockd.ErrNotFound) {
		return Evaluation{}, fmt.Errorf("sku %q: %w", sku, ErrUnknownSKU)
	}
	if err != nil {
		return Evaluation{}, err
	}
	if s.Bundle {
		return Evaluation{}, fmt.Errorf("sku %q: %w", sku, ErrBundle)
	}
	run, err := e.newRun(ctx, asOf)
	if err != nil {
		return Evaluation{}, err
	}
	return run.evaluate(ctx, s)
}

// SKUAt evaluates one SKU at one location: the location's own ledger
// sales (and its share of imported demand) against the location's own
// stock. The SKU must have demand_by_location set and a position there.
func (e *Evaluator) SKUAt(ctx context.Context, sku, location, asOf string) (Evaluation, error) {
	s, err := e.Store.SKUGet(ctx, sku)
	if errors.Is(err, stockd.ErrNotFound) {
		return Evaluation{}, fmt.Errorf("sku %q: %w", sku, ErrUnknownSKU)
	}
	if err != nil {
		return Evaluation{}, err
	}
	if s.Bundle {
		return Evaluation{}, fmt.Errorf("sku %q: %w", sku, ErrBundle)
	}
	run, err := e.newRun(ctx, asOf)
	if err != nil {
		return Evaluation{}, err
	}
	own, err := Settings(ctx, e.Store, sku)
	if err != nil {
		return Evaluation{}, err
	}
	set := stockd.EffectiveSettings(own, run.defaults)
	if !set.DemandByLocation {
		return Evaluation{}, fmt.Errorf("sku %q: %w: demand_by_location is not set (PATCH /v1/skus/%s)", sku, ErrNotByLocation, sku)
	}
	positions, err := e.Store.PositionListBySKU(ctx, sku)
	if err != nil {
		return Evaluation{}, err
	}
	locations := locationsOf(positions)
	if !slices.Contains(locations, location) {
		return Evaluation{}, fmt.Errorf("sku %q: %w: it has no stock position at location %q", sku, ErrNotByLocation, location)
	}
	return run.evaluateAt(ctx, s, set, positions, location, locations)
}

// History is the daily demand an evaluation of sku as of asOf sees,
// oldest first, one entry per business day (see Evaluation).
func (e *Evaluator) History(ctx context.Context, sku, asOf string) ([]int64, error) {
	return e.HistoryAt(ctx, sku, "", asOf)
}

// HistoryAt is History at one location (the SKU as a whole when location
// is empty): the location's own sales and its share of imported days.
func (e *Evaluator) HistoryAt(ctx context.Context, sku, location, asOf string) ([]int64, error) {
	s, err := e.Store.SKUGet(ctx, sku)
	if errors.Is(err, stockd.ErrNotFound) {
		return nil, fmt.Errorf("sku %q: %w", sku, ErrUnknownSKU)
	}
	if err != nil {
		return nil, err
	}
	run, err := e.newRun(ctx, asOf)
	if err != nil {
		return nil, err
	}
	own, err := Settings(ctx, e.Store, sku)
	if err != nil {
		return nil, err
	}
	locations := 0
	if location != "" {
		positions, err := e.Store.PositionListBySKU(ctx, sku)
		if err != nil {
			return nil, err
		}
		locations = len(locationsOf(positions))
	}
	return run.history(ctx, s, stockd.EffectiveSettings(own, run.defaults).DemandWindowDays, location, locations)
}

// ListParams selects a page of evaluations.
type ListParams struct {
	AsOf  string
	After string
	// Limit bounds the evaluations returned, at most PageSizeMax.
	Limit int
	// Level keeps only SKUs at this level; empty keeps all.
	Level replenish.Level
}

// PageSizeMax bounds one page: each evaluation costs a few reads.
const PageSizeMax = 100

// scanPerPageMax bounds the SKUs one page evaluates while filtering by
// level, so that a rare level costs bounded work per request; the cursor
// then resumes after the last SKU looked at.
const scanPerPageMax = 1000

// List evaluates SKUs by id after p.After, bundles left out (they hold no
// stock of their own), keeping those at p.Level. next is the cursor of the
// next page, empty after the last.
func (e *Evaluator) List(ctx context.Context, p ListParams) (out []Evaluation, next string, err error) {
	limit := min(max(p.Limit, 1), PageSizeMax)
	run, err := e.newRun(ctx, p.AsOf)
	if err != nil {
		return nil, "", err
	}
	after, scanned := p.After, 0
	for scanned < scanPerPageMax {
		n := min(limit, scanPerPageMax-scanned)
		skus, err := e.Store.SKUList(ctx, after, n)
		if err != nil {
			return nil, "", err
		}
		for _, s := range skus {
			after = s.ID
			scanned++
			if s.Bundle {
				continue
			}
			ev, err := run.evaluate(ctx, s)
			if err != nil {
				return nil, "", err
			}
			if p.Level == "" || ev.Figures.Level == p.Level {
				out = append(out, ev)
			}
			if len(out) == limit {
				return out, after, nil
			}
		}
		if len(skus) < n {
			return out, "", nil
		}
	}
	return out, after, nil
}

// run is the state one request shares between its evaluations: the
// deployment's defaults and the peers of each category met.
type run struct {
	e        *Evaluator
	asOf     string
	lastDay  time.Time
	defaults stockd.ReplenishmentDefaults
	peers    map[string]*replenish.Peers
	leadTime map[string]leadTimeSamples
}

func (e *Evaluator) newRun(ctx context.Context, asOf string) (*run, error) {
	if err := ParseDate(asOf); err != nil {
		return nil, err
	}
	day, _ := time.Parse(stockd.DateLayout, asOf)
	r := &run{e: e, asOf: asOf, lastDay: time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, e.zone()), peers: map[string]*replenish.Peers{}}
	if _, err := readDocument(ctx, e.Store, stockd.DocKey{Kind: stockd.DocReplenishmentDefaults, ID: stockd.ReplenishmentDefaultsID}, &r.defaults); err != nil {
		return nil, err
	}
	return r, nil
}

// Settings returns a SKU's own replenishment settings (none set when it has
// no document).
func Settings(ctx context.Context, st Reader, sku string) (stockd.ReplenishmentSettings, error) {
	var s stockd.ReplenishmentSettings
	_, err := readDocument(ctx, st, stockd.DocKey{Kind: stockd.DocReplenishment, ID: sku}, &s)
	return s, err
}

// Defaults returns the deployment's defaults as set.
func Defaults(ctx context.Context, st Reader) (stockd.ReplenishmentDefaults, error) {
	var d stockd.ReplenishmentDefaults
	_, err := readDocument(ctx, st, stockd.DocKey{Kind: stockd.DocReplenishmentDefaults, ID: stockd.ReplenishmentDefaultsID}, &d)
	return d, err
}

func readDocument(ctx context.Context, st Reader, key stockd.DocKey, v any) (bool, error) {
	d, err := st.DocumentGet(ctx, key)
	if errors.Is(err, stockd.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(d.Body, v); err != nil {
		return false, fmt.Errorf("document %s/%s: %w", key.Kind, key.ID, err)
	}
	return true, nil
}

func (r *run) evaluate(ctx context.Context, sku stockd.SKU) (Evaluation, error) {
	own, err := Settings(ctx, r.e.Store, sku.ID)
	if err != nil {
		return Evaluation{}, err
	}
	set := stockd.EffectiveSettings(own, r.defaults)
	positions, err := r.e.Store.PositionListBySKU(ctx, sku.ID)
	if err != nil {
		return Evaluation{}, err
	}
	ev, err := r.evaluateAt(ctx, sku, set, positions, "", nil)
	if err != nil || !set.DemandByLocation {
		return ev, err
	}
	locations := locationsOf(positions)
	for _, l := range locations {
		at, err := r.evaluateAt(ctx, sku, set, positions, l, locations)
		if err != nil {
			return Evaluation{}, err
		}
		ev.Locations = append(ev.Locations, at)
	}
	return ev, nil
}

// locationsOf lists the distinct locations of a SKU's positions by id, at
// most LocationsPerSKUMax.
func locationsOf(positions []stockd.Position) []string {
	var out []string
	for _, p := range positions {
		if !slices.Contains(out, p.Location) {
			out = append(out, p.Location)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), LocationsPerSKUMax)]
}

// evaluateAt computes the figures of the SKU as a whole (location empty)
// or of one of its locations: that location's demand and stock, with the
// SKU's settings, lead time and cold-start peers.
func (r *run) evaluateAt(ctx context.Context, sku stockd.SKU, set stockd.Effective, positions []stockd.Position, location string, locations []string) (Evaluation, error) {
	history, err := r.history(ctx, sku, set.DemandWindowDays, location, len(locations))
	if err != nil {
		return Evaluation{}, err
	}
	ev := Evaluation{SKU: sku.ID, AsOf: r.asOf, Settings: set, LeadTime: LeadTime{Source: LeadTimeSettings}, Location: location}
	for _, p := range positions {
		if location != "" && p.Location != location {
			continue
		}
		ev.Available += p.Available()
		ev.InTransit += p.InTransit
		ev.Incoming += p.Incoming
	}
	in := replenish.Input{
		DemandDaily:        history,
		LeadTimeDays:       set.LeadTimeDays,
		LeadTimeStddevDays: set.LeadTimeStddevDays,
		ServiceLevel:       set.ServiceLevel,
		ReviewDays:         set.ReviewDays,
		CoverDays:          set.CoverDays,
		OrderMultiple:      set.OrderMultiple,
		MinOrderQuantity:   set.MinOrderQuantity,
		RedLine:            set.RedLine,
		SlowMovingDays:     set.SlowMovingDays,
		Available:          max(ev.Available, 0),
		InTransit:          ev.InTransit,
		Incoming:           ev.Incoming,
		ColdStart:          replenish.ColdStart{Default: replenish.Estimate{MeanDaily: set.ColdStartMeanDaily, StddevDaily: set.ColdStartStddevDaily}},
	}
	if err := r.observedLeadTime(ctx, sku.ID, &in, &ev.LeadTime); err != nil {
		return Evaluation{}, err
	}
	if len(history) < replenish.MinHistoryDays && set.Category != "" {
		peers, err := r.peersOf(ctx, set.Category)
		if err != nil {
			return Evaluation{}, err
		}
		in.ColdStart = peers.ColdStart(set.Category, set.PriceBand, in.ColdStart.Default)
	}
	ev.Figures, err = replenish.Compute(in)
	if err != nil {
		return Evaluation{}, fmt.Errorf("sku %s: %w", sku.ID, err)
	}
	return ev, nil
}

// history is the SKU's daily demand over the window ending with the
// business day asOf: the ledger's sales plus the imported days. It starts
// no earlier than the SKU's first business day (its creation, or its
// earliest imported day in the window), so a new SKU has a short history
// rather than a window of zeros it never had the chance to sell in.
//
// With a location, the sales are that location's; imported days carry no
// location, so each is split by the location's share of the window's
// ledger sales (evenly over the SKU's locations when the window has
// none), rounded so that the shares of a window add up to the imports.
func (r *run) history(ctx context.Context, sku stockd.SKU, windowDays int, location string, locations int) ([]int64, error) {
	zone := r.e.zone()
	windowFirst := r.lastDay.AddDate(0, 0, -(windowDays - 1))
	imported, err := r.e.Store.DemandHistoryList(ctx, store.DemandHistoryListParams{
		SKU: sku.ID, From: windowFirst.Format(stockd.DateLayout), To: r.asOf})
	if err != nil {
		return nil, err
	}
	created := sku.CreatedAt.In(zone)
	first := time.Date(created.Year(), created.Month(), created.Day(), 0, 0, 0, 0, zone)
	if len(imported) > 0 {
		d, err := time.ParseInLocation(stockd.DateLayout, imported[0].Date, zone)
		if err != nil {
			return nil, fmt.Errorf("imported demand of %s: %w", sku.ID, err)
		}
		if d.Before(first) {
			first = d
		}
	}
	if first.Before(windowFirst) {
		first = windowFirst
	}
	days := 0
	for d := first; !d.After(r.lastDay); d = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, zone) {
		days++
	}
	if days == 0 {
		return nil, nil
	}
	bounds, err := stockd.BusinessDays(first, days, zone)
	if err != nil {
		return nil, err
	}
	buckets, err := r.e.Store.LedgerSales(ctx, sku.ID, location, bounds[0], bounds[days])
	if err != nil {
		return nil, err
	}
	daily := stockd.DailyDemand(buckets, bounds)
	share := 1.0
	if location != "" && len(imported) > 0 {
		all, err := r.e.Store.LedgerSales(ctx, sku.ID, "", bounds[0], bounds[days])
		if err != nil {
			return nil, err
		}
		share = salesShare(buckets, all, locations)
	}
	index := make(map[string]int, days)
	for i := range days {
		index[bounds[i].Format(stockd.DateLayout)] = i
	}
	var importedUnits, attributed float64
	for _, d := range imported {
		if i, ok := index[d.Date]; ok {
			// Rounding the running total keeps the window's sum of shares
			// within half a unit of share × imports.
			importedUnits += float64(d.Quantity)
			part := math.Round(importedUnits*share) - attributed
			attributed += part
			daily[i] += int64(part)
		}
	}
	for i := range daily {
		// Refunds of a day's earlier sales can outweigh its sales.
		daily[i] = max(daily[i], 0)
	}
	return daily, nil
}

// salesShare is a location's share of the SKU's ledger sales in the
// window, from 0 to 1; with no sales anywhere, an even split over the
// SKU's locations.
func salesShare(location, all []stockd.SalesBucket, locations int) float64 {
	var at, total int64
	for _, b := range location {
		at += b.Quantity
	}
	for _, b := range all {
		total += b.Quantity
	}
	if total <= 0 {
		return 1 / float64(max(locations, 1))
	}
	return min(max(float64(at)/float64(total), 0), 1)
}

// peersOf gathers, once per run, the estimates of SKUs of category with
// MinHistoryDays of history.
func (r *run) peersOf(ctx context.Context, category string) (*replenish.Peers, error) {
	if p, ok := r.peers[category]; ok {
		return p, nil
	}
	p := &replenish.Peers{}
	after, scanned, found := "", 0, 0
	for scanned < SettingsScanMax && found < PeersPerCategoryMax {
		docs, err := r.e.Store.DocumentList(ctx, store.DocumentListParams{Kind: stockd.DocReplenishment, After: after, Limit: stockd.PageSizeMax})
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			after = d.ID
			scanned++
			var own stockd.ReplenishmentSettings
			if err := json.Unmarshal(d.Body, &own); err != nil {
				return nil, fmt.Errorf("document %s/%s: %w", d.Kind, d.ID, err)
			}
			if own.Category == nil || *own.Category != category || found == PeersPerCategoryMax {
				continue
			}
			found++
			if err := r.addPeer(ctx, p, d.ID, own); err != nil {
				return nil, err
			}
		}
		if len(docs) < stockd.PageSizeMax {
			break
		}
	}
	r.peers[category] = p
	return p, nil
}

func (r *run) addPeer(ctx context.Context, p *replenish.Peers, id string, own stockd.ReplenishmentSettings) error {
	sku, err := r.e.Store.SKUGet(ctx, id)
	if errors.Is(err, stockd.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	set := stockd.EffectiveSettings(own, r.defaults)
	history, err := r.history(ctx, sku, set.DemandWindowDays, "", 0)
	if err != nil {
		return err
	}
	if e, ok := replenish.HistoryEstimate(history); ok {
		p.Add(set.Category, set.PriceBand, e)
	}
	return nil
}
