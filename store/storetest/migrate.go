package storetest

import (
	"testing"

	"github.com/stockd/stockd/engine/flowtest"
)

// testMigrateIdempotent: the store is migrated already; migrating again
// applies nothing and says so, and the store still works.
func testMigrateIdempotent(t *testing.T, h *flowtest.Harness) {
	for range 2 {
		applied, err := h.Store.MigrateApplied(ctx)
		if err != nil || len(applied) != 0 {
			t.Fatalf("migrate again: applied %v, %v; want nothing", applied, err)
		}
		if err := h.Store.Migrate(ctx); err != nil {
			t.Fatalf("migrate again: %v", err)
		}
	}
	h.SKU("a")
}
