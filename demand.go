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
