package stockd

import (
	"fmt"
	"time"
)

// Sales are the units a SKU sold, read from the ledger: confirmed (paid)
// units, including those committed at reserve, less those refunded before
// shipment, plus direct shipments of SKUs that deduct at shipment. The
// storage backends sum them per SalesBucketWidth of UTC time; DailyDemand
// regroups those sums into the business days of the deployment's time
// zone. Every IANA zone is offset from UTC by a multiple of 15 minutes, so
// a quarter-hour never straddles two business days.
const SalesBucketWidth = 15 * time.Minute

// DemandDaysMax bounds the days of demand one read covers: a year and a
// day, enough for a yearly season, and at most 35,232 buckets per SKU.
const DemandDaysMax = 366

// SalesBucket is the units sold in [Start, Start+SalesBucketWidth).
type SalesBucket struct {
	Start    time.Time `json:"start"`
	Quantity int64     `json:"quantity"`
}

// BusinessDays returns the start of days business days in loc, the first
// being the one holding first, and the end of the last: a day is midnight
// to midnight on the local calendar, 23 or 25 hours long across a change
// of daylight saving time.
func BusinessDays(first time.Time, days int, loc *time.Location) ([]time.Time, error) {
	if days < 1 || days > DemandDaysMax {
		return nil, fmt.Errorf("days %d: want 1 to %d", days, DemandDaysMax)
	}
	y, m, d := first.In(loc).Date()
	starts := make([]time.Time, days+1)
	for i := range starts {
		starts[i] = time.Date(y, m, d+i, 0, 0, 0, 0, loc)
	}
	return starts, nil
}

// DailyDemand sums buckets into the business days that bounds delimits
// (BusinessDays: n+1 instants for n days); buckets outside are ignored. A
// day without sales is a zero, as the demand statistics want it.
func DailyDemand(buckets []SalesBucket, bounds []time.Time) []int64 {
	if len(bounds) < 2 {
		return nil
	}
	out := make([]int64, len(bounds)-1)
	day := 0
	for _, b := range buckets {
		for day < len(out) && !b.Start.Before(bounds[day+1]) {
			day++
		}
		if day == len(out) {
			break
		}
		if b.Start.Before(bounds[day]) {
			continue
		}
		out[day] += b.Quantity
	}
	return out
}

// DemandDay is one imported day of a SKU's demand: units sold on a
// business date (YYYY-MM-DD in the business time zone) before the ledger
// knew the SKU. The computation adds it to the ledger's sales of that day.
type DemandDay struct {
	SKU      string `json:"sku"`
	Date     string `json:"date"`
	Quantity int64  `json:"quantity"`
}

// DateLayout is the layout of a business date.
const DateLayout = time.DateOnly

// DemandHistoryRowsMax bounds the rows of one import request (and one
// store write): 500 rows of the longest SKU ids still fit in a body of
// BodySizeMax; stockd import demand sends a file in requests of this many.
const DemandHistoryRowsMax = 500

// ValidDemandDay checks one row: a valid SKU id, a real calendar date of a
// year from TimeYearMin to TimeYearMax, and a quantity from 0 to
// QuantityMax (a day without sales is a zero worth importing).
func ValidDemandDay(d DemandDay) *Error {
	if !ValidIdentifier(d.SKU) {
		return InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if t, err := time.Parse(DateLayout, d.Date); err != nil || t.Format(DateLayout) != d.Date || t.Year() < TimeYearMin {
		return InvalidField("date", "must be a date YYYY-MM-DD")
	}
	if d.Quantity < 0 || d.Quantity > QuantityMax {
		return InvalidField("quantity", "must be an integer from 0 to %d", QuantityMax)
	}
	return nil
}
