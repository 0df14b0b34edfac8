package stockd

import (
	"slices"
	"testing"
	"time"
)

func TestDailyDemand(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	kathmandu, err := time.LoadLocation("Asia/Kathmandu") // UTC+5:45
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name    string
		loc     *time.Location
		first   string
		days    int
		buckets []SalesBucket
		want    []int64
	}{
		{"utc days, zeros kept", time.UTC, "2026-03-01T10:00:00Z", 3, []SalesBucket{
			{at("2026-03-01T00:00:00Z"), 2}, {at("2026-03-01T23:45:00Z"), 3}, {at("2026-03-03T12:00:00Z"), 5},
		}, []int64{5, 0, 5}},
		{"outside the days ignored", time.UTC, "2026-03-02T00:00:00Z", 1, []SalesBucket{
			{at("2026-03-01T23:45:00Z"), 7}, {at("2026-03-02T08:00:00Z"), 1}, {at("2026-03-03T00:00:00Z"), 9},
		}, []int64{1}},
		// Berlin is UTC+1: 23:15 UTC on the 1st is already the 2nd there.
		{"a business day is local", berlin, "2026-03-01T12:00:00Z", 2, []SalesBucket{
			{at("2026-03-01T22:45:00Z"), 1}, {at("2026-03-01T23:15:00Z"), 4},
		}, []int64{1, 4}},
		// 29 March 2026: Berlin moves to UTC+2, the day is 23 hours long.
		{"a 23-hour day", berlin, "2026-03-29T12:00:00Z", 2, []SalesBucket{
			{at("2026-03-28T23:00:00Z"), 1}, {at("2026-03-29T21:45:00Z"), 2}, {at("2026-03-29T22:00:00Z"), 3},
		}, []int64{3, 3}},
		{"a quarter-hour offset", kathmandu, "2026-03-01T12:00:00Z", 2, []SalesBucket{
			{at("2026-03-01T18:00:00Z"), 1}, {at("2026-03-01T18:15:00Z"), 2},
		}, []int64{1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bounds, err := BusinessDays(at(c.first), c.days, c.loc)
			if err != nil {
				t.Fatal(err)
			}
			if got := DailyDemand(c.buckets, bounds); !slices.Equal(got, c.want) {
				t.Fatalf("DailyDemand = %v, want %v", got, c.want)
			}
		})
	}
	if _, err := BusinessDays(time.Now(), DemandDaysMax+1, time.UTC); err == nil {
		t.Fatal("a read past DemandDaysMax was accepted")
	}
}
