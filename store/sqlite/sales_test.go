package sqlite

import (
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
)

// TestLedgerSalesUsesIndex: SQLite plans the sales read, with a location
// and without, on the partial index ledger_sales (sku, created_at), the
// location filtered on the rows it finds, as PostgreSQL does
// (store/postgres TestLedgerSalesUsesIndex).
func TestLedgerSalesUsesIndex(t *testing.T) {
	s := newTestStore(t)
	to := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	for _, location := range []string{"", "north"} {
		rows, err := s.reader.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+queryLedgerSales,
			stockd.SalesBucketWidth.Microseconds(), "a", unixMicros(to.AddDate(0, 0, -30)), unixMicros(to), location)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, "USING INDEX ledger_sales") {
			t.Errorf("location %q: the plan does not use ledger_sales:\n%s", location, text)
		}
		t.Logf("location %q:\n%s", location, text)
	}
}
