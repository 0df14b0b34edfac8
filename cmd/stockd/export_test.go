package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

// ledgerCounting is a store that counts the ledger entries its listing
// returned, and the listings asked without a time range.
type ledgerCounting struct {
	store.Store
	returned, unbounded int
}

func (s *ledgerCounting) LedgerList(ctx context.Context, p store.LedgerListParams) ([]stockd.LedgerEntry, error) {
	if p.From.IsZero() && p.To.IsZero() {
		s.unbounded++
	}
	entries, err := s.Store.LedgerList(ctx, p)
	s.returned += len(entries)
	return entries, err
}

// TestExportLedgerAsksTheStoreForTheRange: an export of a time range reads
// the entries of that range alone, so that a day's export of a long
// ledger neither reads nor holds the rest of it.
func TestExportLedgerAsksTheStoreForTheRange(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		s, err := storeurl.Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		h := flowtest.NewHarness(t, s)
		h.SKU("A")
		day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		for i := range 5 { // one receipt a day, June 1 to 5
			h.Clock.Set(day.AddDate(0, 0, i).Add(time.Hour))
			h.Receive("A", "default", 1)
		}
		for _, c := range []struct {
			from, to string
			want     int
		}{
			{"2026-06-02", "2026-06-04", 2},
			{"2026-06-05", "", 1},
			{"2027-01-01", "", 0},
		} {
			span, err := parseSpan(c.from, c.to)
			if err != nil {
				t.Fatal(err)
			}
			counting := &ledgerCounting{Store: s}
			var out bytes.Buffer
			w := csv.NewWriter(&out)
			if err := exportLedger(ctx, counting, w, "", span); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			if rows := strings.Count(out.String(), "\n") - 1; rows != c.want {
				t.Errorf("[%s, %s): %d rows, want %d:\n%s", c.from, c.to, rows, c.want, out.String())
			}
			if counting.returned != c.want || counting.unbounded != 0 {
				t.Errorf("[%s, %s): the store returned %d entries (%d listings without a range), want %d", c.from, c.to, counting.returned, counting.unbounded, c.want)
			}
		}
	})
}
