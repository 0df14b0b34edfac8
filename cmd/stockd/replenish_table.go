package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd/httpapi"
	"github.com/stockd/stockd/replenish"
	"github.com/stockd/stockd/replenish/evaluate"
	"github.com/stockd/stockd/store/storeurl"
)

// replenishOptions are the flags of `stockd replenish` itself.
type replenishOptions struct {
	cfg    Config
	asOf   string
	status string
	sku    string
	csv    bool
	// byLocation prints one row per (SKU, location) for SKUs with
	// demand_by_location, and the SKU-wide row (location "*") for the
	// rest.
	byLocation bool
}

// runReplenishTable prints the figures GET /v1/replenishment answers, read
// through the store like verify, with the same evaluation.
func runReplenishTable(ctx context.Context, o replenishOptions, out io.Writer) error {
	zone, err := businessZone(o.cfg.BusinessTimeZone)
	if err != nil {
		return err
	}
	s, err := storeurl.OpenExisting(ctx, o.cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer s.Close()
	ev := &evaluate.Evaluator{Store: s, Zone: zone}
	asOf := o.asOf
	if asOf == "" {
		asOf = ev.BusinessDate(time.Now())
	}
	if err := evaluate.ParseDate(asOf); err != nil {
		return fmt.Errorf("--as-of %q: want a date YYYY-MM-DD", asOf)
	}
	level := replenish.Level(o.status)
	if o.status != "" && level.Severity() == 0 && level != replenish.LevelOK {
		return fmt.Errorf("--status %q: want ok, slow_moving, warning, critical or stockout", o.status)
	}
	listLevel := level
	if o.byLocation {
		// The level of a location's row is its own: filter the rows, not
		// the SKUs.
		listLevel = ""
	}
	var rows []httpapi.Replenishment
	if o.sku != "" {
		e, err := ev.SKU(ctx, o.sku, asOf)
		if err != nil {
			return err
		}
		rows = append(rows, httpapi.ReplenishmentOut(e))
	} else {
		// Every SKU, a page at a time, the same pages the API serves.
		after := ""
		for {
			page, next, err := ev.List(ctx, evaluate.ListParams{AsOf: asOf, After: after, Limit: evaluate.PageSizeMax, Level: listLevel})
			if err != nil {
				return err
			}
			for _, e := range page {
				rows = append(rows, httpapi.ReplenishmentOut(e))
			}
			if next == "" {
				break
			}
			after = next
		}
	}
	if o.byLocation {
		rows = byLocation(rows, level)
	}
	if o.csv {
		return writeReplenishCSV(out, rows, o.byLocation)
	}
	return writeReplenishTable(out, rows, o.byLocation)
}

// allLocations names the row of a SKU without demand_by_location in a
// --by-location listing: its figures are of every location together.
const allLocations = "*"

// byLocation replaces each SKU with demand_by_location by its locations'
// rows, keeps the others' SKU-wide row as location "*", and keeps only
// rows at level when one is given.
func byLocation(rows []httpapi.Replenishment, level replenish.Level) []httpapi.Replenishment {
	var out []httpapi.Replenishment
	for _, r := range rows {
		each := r.Locations
		if !r.Settings.DemandByLocation {
			r.Location = allLocations
			each = []httpapi.Replenishment{r}
		}
		for _, l := range each {
			if level == "" || l.Level == string(level) {
				out = append(out, l)
			}
		}
	}
	return out
}

var replenishColumns = []string{"sku", "level", "source", "mean_daily", "stddev_daily", "lead_time_days", "lead_time_stddev_days",
	"safety_stock", "reorder_point", "available", "in_transit", "incoming", "inventory_position", "days_of_cover", "suggested_quantity"}

func replenishRecord(r httpapi.Replenishment) []string {
	cover := "inf"
	if r.DaysOfCover != nil {
		cover = strconv.FormatFloat(*r.DaysOfCover, 'f', 1, 64)
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	i := func(x int64) string { return strconv.FormatInt(x, 10) }
	return []string{r.SKU, r.Level, r.Source, f(r.MeanDaily), f(r.StddevDaily), f(r.LeadTimeDays), f(r.LeadTimeStddevDays),
		i(r.SafetyStock), i(r.ReorderPoint), i(r.Available), i(r.InTransit), i(r.Incoming), i(r.InventoryPosition), cover, i(r.SuggestedQuantity)}
}

// withLocation puts a row's location after its SKU.
func withLocation(record []string, location string) []string {
	return append([]string{record[0], location}, record[1:]...)
}

func writeReplenishCSV(out io.Writer, rows []httpapi.Replenishment, locations bool) error {
	w := csv.NewWriter(out)
	header := replenishColumns
	if locations {
		header = withLocation(header, "location")
	}
	if err := w.Write(header); err != nil {
		return err
	}
	for _, r := range rows {
		rec := replenishRecord(r)
		if locations {
			rec = withLocation(rec, r.Location)
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}

func writeReplenishTable(out io.Writer, rows []httpapi.Replenishment, locations bool) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	header := []string{"SKU", "LEVEL", "SOURCE", "D̄", "Σ_D", "L", "Σ_L", "SS", "ROP", "AVAIL", "TRANSIT", "INCOMING", "IP", "COVER", "Q"}
	records := recordsOf(rows)
	if locations {
		header = withLocation(header, "LOCATION")
		for i := range records {
			records[i] = withLocation(records[i], rows[i].Location)
		}
	}
	for _, rec := range append([][]string{header}, records...) {
		for _, cell := range rec {
			fmt.Fprint(w, cell, "\t")
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}

func recordsOf(rows []httpapi.Replenishment) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = replenishRecord(r)
	}
	return out
}

// bindReplenishTableFlags adds the table's flags to `stockd replenish`.
func bindReplenishTableFlags(cmd *cobra.Command, o *replenishOptions) {
	fs := cmd.Flags()
	bindDatabaseFlags(fs, &o.cfg)
	bindBusinessTimeZoneFlag(fs, &o.cfg)
	fs.StringVar(&o.asOf, "as-of", "", "business date YYYY-MM-DD whose end bounds the demand history (default today)")
	fs.StringVar(&o.status, "status", "", "only SKUs at this level: ok, slow_moving, warning, critical, stockout")
	fs.StringVar(&o.sku, "sku", "", "one SKU only")
	fs.BoolVar(&o.csv, "csv", false, "print CSV instead of a table")
	fs.BoolVar(&o.byLocation, "by-location", false, "one row per (SKU, location) for SKUs with demand_by_location (each location's own sales and stock); \"*\" for the other SKUs' figures of all locations together")
}
