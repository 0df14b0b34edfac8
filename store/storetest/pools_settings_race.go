package storetest

import (
	"fmt"
	"testing"

	"github.com/stockd/stockd"
)

// testSettingsRace: partial updates of one location and of one SKU
// without positions, each changing another field, race on engine
// replicas; every field keeps its update (none writes back another's old
// value).
func testSettingsRace(t *testing.T, h *Harness) {
	h.SKU("s")
	h.Location("L", 5)
	for round := range 5 {
		name := fmt.Sprintf("round-%d", round)
		priority := 10 + round
		active := round%2 == 0
		deduction := []string{stockd.DeductionAtPayment, stockd.DeductionAtOrder}[round%2]
		threshold := int64(200 + round)
		results := h.raceCommands(5, func(i int) stockd.Command {
			var op stockd.Operation
			switch i {
			case 0:
				op = &stockd.LocationUpdate{ID: "L", Name: &name}
			case 1:
				op = &stockd.LocationUpdate{ID: "L", Priority: &priority}
			case 2:
				op = &stockd.LocationUpdate{ID: "L", Active: &active}
			case 3:
				op = &stockd.SKUUpdate{ID: "s", Deduction: &deduction}
			default:
				op = &stockd.SKUUpdate{ID: "s", ApprovalThreshold: &threshold}
			}
			return stockd.Command{Op: op}
		})
		if ok := countPassed(t, results); ok != 5 {
			t.Fatalf("round %d: %d updates answered, want 5", round, ok)
		}
		locs, err := h.Store.LocationList(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range locs {
			if l.ID == "L" && (l.Name != name || l.Priority != priority || l.Inactive == active) {
				t.Fatalf("round %d: location %+v, want name %s, priority %d, active %v", round, l, name, priority, active)
			}
		}
		sku, err := h.Store.SKUGet(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if sku.Deduction != deduction || sku.ApprovalThreshold != threshold {
			t.Fatalf("round %d: sku %+v, want deduction %s, threshold %d", round, sku, deduction, threshold)
		}
	}
}
