package archive

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
)

func TestCheckCut(t *testing.T) {
	now := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	for _, c := range []struct {
		name     string
		before   time.Time
		keepDays int
		want     string // "" accepts
	}{
		{"a month start far back", time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), 397, ""},
		{"the latest allowed", time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC), 399, ""},
		{"a day too recent", time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC), 400, "less than 400 days back"},
		{"no keep-days", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), 0, ""},
		{"the future", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), 0, "less than 0 days back"},
		{"mid-month", time.Date(2025, 6, 15, 0, 0, 0, 0, time.UTC), 397, "first day of a month"},
		{"a month start's second", time.Date(2025, 6, 1, 0, 0, 1, 0, time.UTC), 397, "first day of a month"},
		{"a month start elsewhere", time.Date(2025, 6, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600)), 397, "first day of a month"},
		{"negative keep-days", time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), -1, "--keep-days -1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := checkCut(Config{Before: c.before, KeepDays: c.keepDays, Now: clock})
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("checkCut: %v; want it accepted", err)
			case c.want != "" && (!errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("checkCut: %v; want a refusal naming %q", err, c.want)
			}
		})
	}
}

func TestCuts(t *testing.T) {
	feb := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	mar := feb.AddDate(0, 1, 0)
	if _, ok := Cut(nil); ok || CutSeq(nil) != 0 {
		t.Fatal("a ledger never archived has a cut")
	}
	archives := []stockd.LedgerArchive{{Before: feb, CutSeq: 10}, {Before: mar, CutSeq: 25}}
	if cut, ok := Cut(archives); !ok || !cut.Equal(mar) || CutSeq(archives) != 25 {
		t.Fatalf("cut = %s, %t, seq %d; want March at 25", cut, ok, CutSeq(archives))
	}
	last := stockd.LedgerEntry{Seq: 10, BusinessType: stockd.BusinessReceipt, BusinessID: "r", Position: stockd.PositionKey{SKU: "a"},
		Delta: stockd.Counters{OnHand: 2}, After: stockd.Counters{OnHand: 7, Reserved: 1}, CreatedAt: feb.Add(-time.Hour)}
	cp := stockd.Checkpoint(feb, last)
	if cp.Seq != 10 || cp.BusinessType != stockd.BusinessCheckpoint || cp.BusinessID != "archive:2025-02-01" || cp.Delta != last.After ||
		cp.After != last.After || !cp.CreatedAt.Equal(feb) || cp.Position != last.Position {
		t.Fatalf("checkpoint = %+v", cp)
	}
}
