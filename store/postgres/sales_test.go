package postgres

import (
	"strings"
	"testing"
	"time"
)

// TestLedgerSalesUsesIndex: the sales read, with a location and without,
// is served by the partial index ledger_sales (sku, created_at); the
// location is a filter on the rows the index finds, so asking for one
// location costs no more index reads than the SKU as a whole. Sequential
// scans are turned off because an empty test table would otherwise be
// read whole; the question is whether the planner can use the index for
// this shape of query at all.
func TestLedgerSalesUsesIndex(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	to := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	for _, location := range []string{"", "north"} {
		rows, err := tx.Query(ctx, "EXPLAIN "+queryLedgerSales, "a", to.AddDate(0, 0, -30), to, location)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "ledger_sales") {
			t.Errorf("location %q: the plan does not use ledger_sales:\n%s", location, text)
		}
		t.Logf("location %q:\n%s", location, text)
	}
}
