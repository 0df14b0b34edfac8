package storetest

import (
	"testing"

	"github.com/stockd/stockd/engine/flowtest"
)

func testMigrateIdempotent(t *testing.T, h *flowtest.Harness) {
	for range 2 {
		if err := h.Store.Migrate(ctx); err != nil {
			t.Fatalf("migrate again: %v", err)
		}
	}
	h.SKU("a")
}
