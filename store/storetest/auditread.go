package storetest

// AuditRead, through the audit that reads the whole books from one snapshot.

import (
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/engine/flowtest"
)

// testVerifyReports writes a counter change with no ledger entry and no
// reservation, as a lost update would: verify must report it, twice the
// same, and change nothing.
func testVerifyReports(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.Receive("a", "default", 5)
	h.Reserve(line("a", 2))
	h.Verify()
	key := stockd.PositionKey{SKU: "a", Location: "default", Pool: stockd.PoolDefault}
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Write(ctx, &stockd.BatchWrites{Positions: []stockd.Position{{PositionKey: key, Counters: stockd.Counters{OnHand: 5, Reserved: 3}}}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var checks []string
	for range 2 {
		rep, err := audit.Verify(ctx, h.Store)
		if err != nil {
			t.Fatal(err)
		}
		checks = checks[:0]
		for _, d := range rep.Differences {
			checks = append(checks, d.Check)
		}
		if rep.Clean() || len(checks) != 3 || checks[0] != "ledger_sum" || checks[1] != "ledger_last" || checks[2] != "reservations" {
			t.Fatalf("verify found %v, want ledger_sum, ledger_last and reservations", checks)
		}
	}
	if c := h.Counters("a", "default"); c.Reserved != 3 {
		t.Fatalf("verify changed the books: %+v", c)
	}
}
