package backtest

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stockd/stockd/replenish"
)

// The exact headers of the input files (issue 11).
const (
	DemandHeader = "sku,date,quantity"
	SKUsHeader   = "sku,lead_time_days,lead_time_stddev_days,service_level,cover_days,order_multiple,min_order_quantity,red_line,category,initial_on_hand"
)

// problemsReportedMax bounds the bad rows one error lists; the count of the
// rest follows.
const problemsReportedMax = 20

// problems collects what is wrong with a file, by line, so one run reports
// every bad row it can instead of the first.
type problems struct {
	file   string
	errs   []error
	others int
}

func (p *problems) add(line int, err error) {
	if len(p.errs) == problemsReportedMax {
		p.others++
		return
	}
	p.errs = append(p.errs, fmt.Errorf("%s line %d: %w", p.file, line, err))
}

func (p *problems) err() error {
	if p.others > 0 {
		p.errs = append(p.errs, fmt.Errorf("%s: and %d more bad rows", p.file, p.others))
	}
	return errors.Join(p.errs...)
}

// rows reads a CSV file whose header must be exactly header, calling row
// for each record of the right width with its line number.
func rows(r io.Reader, file, header string, p *problems, row func(line int, fields []string)) error {
	width := len(strings.Split(header, ","))
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // widths are checked here, with the line
	cr.ReuseRecord = true
	first, err := cr.Read()
	if err != nil {
		return fmt.Errorf("%s: read header: %w", file, err)
	}
	if got := strings.Join(first, ","); got != header {
		return fmt.Errorf("%s line 1: header %q, want exactly %q", file, got, header)
	}
	for {
		fields, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var parseErr *csv.ParseError
		if errors.As(err, &parseErr) {
			// A broken quote: nothing after it can be trusted.
			p.add(parseErr.Line, parseErr.Err)
			return p.err()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		if len(fields) != width {
			p.add(line, fmt.Errorf("wrong number of fields: %d, want %d", len(fields), width))
			continue
		}
		row(line, fields)
	}
}

// ReadTrace reads skus.csv and demand.csv. Any bad row makes the whole
// trace an error listing the bad rows by line: nothing of a bad file is
// used.
func ReadTrace(skusFile, demandFile io.Reader) (*Trace, error) {
	skus, err := readSKUs(skusFile)
	if err != nil {
		return nil, err
	}
	return readDemand(demandFile, skus)
}

func readSKUs(r io.Reader) ([]SKU, error) {
	p := &problems{file: "skus.csv"}
	var skus []SKU
	seen := map[string]int{}
	err := rows(r, p.file, SKUsHeader, p, func(line int, f []string) {
		s, err := parseSKU(f)
		if err == nil && seen[s.ID] > 0 {
			err = fmt.Errorf("sku %s repeats line %d", s.ID, seen[s.ID])
		}
		if err == nil && len(skus) == SKUsMax {
			err = fmt.Errorf("more than %d SKUs", SKUsMax)
		}
		if err != nil {
			for _, e := range joined(err) {
				p.add(line, e)
			}
			return
		}
		seen[s.ID] = line
		skus = append(skus, s)
	})
	if err != nil {
		return nil, err
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	if len(skus) == 0 {
		return nil, errors.New("skus.csv: no SKUs")
	}
	return skus, nil
}

func parseSKU(f []string) (SKU, error) {
	var errs []error
	float := func(field, text string) float64 {
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not a number", field, text))
		}
		return v
	}
	integer := func(field, text string) int64 {
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not a whole number", field, text))
		}
		return v
	}
	s := SKU{
		ID:                 f[0],
		LeadTimeDays:       float("lead_time_days", f[1]),
		LeadTimeStddevDays: float("lead_time_stddev_days", f[2]),
		ServiceLevel:       float("service_level", f[3]),
		CoverDays:          int(integer("cover_days", f[4])),
		OrderMultiple:      integer("order_multiple", f[5]),
		MinOrderQuantity:   integer("min_order_quantity", f[6]),
		RedLine:            integer("red_line", f[7]),
		Category:           f[8],
		InitialOnHand:      integer("initial_on_hand", f[9]),
	}
	if !validSKU(s.ID) {
		errs = append(errs, fmt.Errorf("sku: %q must be 1 to %d characters of A-Z a-z 0-9 . _ : -", s.ID, SKULengthMax))
	}
	if len(s.Category) > CategoryLengthMax || !utf8.ValidString(s.Category) {
		errs = append(errs, fmt.Errorf("category: must be at most %d bytes of UTF-8", CategoryLengthMax))
	}
	if len(errs) > 0 {
		return SKU{}, errors.Join(errs...)
	}
	// The same limits the API will apply, from the same Validate.
	if err := policyInput(s, DefaultConfig(), nil, 0, 0, replenish.ColdStart{}).Validate(); err != nil {
		return SKU{}, err
	}
	if s.InitialOnHand < 0 || s.InitialOnHand > replenish.QuantityMax {
		return SKU{}, fmt.Errorf("initial_on_hand: must be from 0 to %d units", replenish.QuantityMax)
	}
	return s, nil
}

// joined lists the errors of an errors.Join, so that each is reported on
// its own with its line.
func joined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// validSKU is the books' identifier rule (stockd.ValidIdentifier), so a
// trace names SKUs a deployment could hold.
func validSKU(id string) bool {
	if id == "" || len(id) > SKULengthMax {
		return false
	}
	for _, c := range []byte(id) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

type demandRow struct {
	sku      int
	date     time.Time
	quantity int64
}

func readDemand(r io.Reader, skus []SKU) (*Trace, error) {
	p := &problems{file: "demand.csv"}
	index := make(map[string]int, len(skus))
	for i, s := range skus {
		index[s.ID] = i
	}
	var kept []demandRow
	seen := map[[2]string]int{}
	err := rows(r, p.file, DemandHeader, p, func(line int, f []string) {
		i, known := index[f[0]]
		date, dateErr := time.Parse(DateLayout, f[1])
		quantity, qErr := strconv.ParseInt(f[2], 10, 64)
		switch {
		case !known:
			p.add(line, fmt.Errorf("sku %q is not in skus.csv", f[0]))
		case dateErr != nil:
			p.add(line, fmt.Errorf("date: %q is not YYYY-MM-DD", f[1]))
		case qErr != nil || quantity < 0 || quantity > replenish.QuantityMax:
			p.add(line, fmt.Errorf("quantity: %q must be a whole number from 0 to %d", f[2], replenish.QuantityMax))
		case seen[[2]string{f[0], f[1]}] > 0:
			p.add(line, fmt.Errorf("sku %s on %s repeats line %d", f[0], f[1], seen[[2]string{f[0], f[1]}]))
		default:
			seen[[2]string{f[0], f[1]}] = line
			kept = append(kept, demandRow{sku: i, date: date, quantity: quantity})
		}
	})
	if err != nil {
		return nil, err
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return assemble(skus, kept)
}

// assemble lays the rows out by day, from the earliest date of the file to
// the latest.
func assemble(skus []SKU, kept []demandRow) (*Trace, error) {
	if len(kept) == 0 {
		return nil, errors.New("demand.csv: no rows")
	}
	first, last := kept[0].date, kept[0].date
	for _, r := range kept {
		if r.date.Before(first) {
			first = r.date
		}
		if r.date.After(last) {
			last = r.date
		}
	}
	days := int(last.Sub(first)/(24*time.Hour)) + 1
	if days > TraceDaysMax {
		return nil, fmt.Errorf("demand.csv: %s to %s is %d days, more than %d", first.Format(DateLayout), last.Format(DateLayout), days, TraceDaysMax)
	}
	t := &Trace{Start: first, Days: days, SKUs: skus, Demand: make([][]int64, len(skus)), Launch: make([]int, len(skus))}
	for i := range skus {
		t.Demand[i] = make([]int64, days)
		t.Launch[i] = -1
	}
	for _, r := range kept {
		day := int(r.date.Sub(first) / (24 * time.Hour))
		t.Demand[r.sku][day] = r.quantity
		if t.Launch[r.sku] < 0 || day < t.Launch[r.sku] {
			t.Launch[r.sku] = day
		}
	}
	var missing []string
	for i, l := range t.Launch {
		if l < 0 {
			missing = append(missing, skus[i].ID)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("demand.csv: no rows for %d SKUs of skus.csv, e.g. %s (write a row with quantity 0 on a SKU's first day)", len(missing), missing[0])
	}
	return t, t.check()
}
