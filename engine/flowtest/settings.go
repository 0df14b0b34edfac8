package flowtest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stockd/stockd"
)

// testSettings: locations and SKUs change only the fields given.
func testSettings(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Location("north", 5)
	inactive, priority := false, 2
	res := h.MustDo(stockd.Command{Op: &stockd.LocationUpdate{ID: "north", Active: &inactive, Priority: &priority}})
	if l := res.Location; l == nil || !l.Inactive || l.Priority != 2 {
		t.Fatalf("updated location = %+v", res.Location)
	}
	locations, err := h.Store.LocationList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range locations {
		if l.ID == "north" {
			found = l.Inactive && l.Priority == 2
		}
	}
	if !found {
		t.Fatalf("stored locations = %+v, want north inactive at priority 2", locations)
	}
	threshold, deduction := int64(5), stockd.DeductionAtPayment
	h.MustDo(stockd.Command{Op: &stockd.SKUUpdate{ID: "a", ApprovalThreshold: &threshold, Deduction: &deduction}})
	sku, err := h.Store.SKUGet(ctx, "a")
	if err != nil || sku.Threshold() != 5 || sku.Deduction != stockd.DeductionAtPayment || sku.Name != "a" {
		t.Fatalf("stored sku = %+v, %v", sku, err)
	}
	WantCode(t, h.Do(stockd.Command{Op: &stockd.SKUUpdate{ID: "zz", ApprovalThreshold: &threshold}}), stockd.CodeUnknownSKU)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.LocationUpdate{ID: "zz", Priority: &priority}}), stockd.CodeUnknownLocation)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.SKUUpdate{ID: "a"}}), stockd.CodeUnprocessable)
	// The new threshold applies to the next adjustment.
	h.Receive("a", "default", 10)
	adj := h.MustDo(stockd.Command{Op: &stockd.Adjust{Position: stockd.PositionKey{SKU: "a"}, Reason: stockd.ReasonFound, Delta: 6}})
	if !adj.Pending {
		t.Fatalf("adjustment of 6 over a threshold of 5 answered %+v, want pending", adj)
	}
}

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

// testReplenishmentSettingsRace: partial updates of one SKU's
// replenishment settings, each setting another field, race on engine
// replicas with a change of its deduction; every field keeps its update,
// and the deployment's defaults likewise.
func testReplenishmentSettingsRace(t *testing.T, h *Harness) {
	h.SKU("r")
	for round := range 4 {
		lead, level, cover := float64(3+round), 0.9+float64(round)/100, 10+round
		category := fmt.Sprintf("c%d", round)
		deduction := []string{stockd.DeductionAtPayment, stockd.DeductionAtOrder}[round%2]
		results := h.raceCommands(6, func(i int) stockd.Command {
			var op stockd.Operation
			switch i {
			case 0:
				op = &stockd.SKUUpdate{ID: "r", Replenishment: stockd.ReplenishmentSettings{LeadTimeDays: &lead}}
			case 1:
				op = &stockd.SKUUpdate{ID: "r", Replenishment: stockd.ReplenishmentSettings{ServiceLevel: &level}}
			case 2:
				op = &stockd.SKUUpdate{ID: "r", Replenishment: stockd.ReplenishmentSettings{Category: &category}}
			case 3:
				op = &stockd.SKUUpdate{ID: "r", Deduction: &deduction}
			case 4:
				op = &stockd.ReplenishmentDefaultsUpdate{Defaults: stockd.ReplenishmentDefaults{ReplenishmentSettings: stockd.ReplenishmentSettings{CoverDays: &cover}}}
			default:
				op = &stockd.ReplenishmentDefaultsUpdate{Defaults: stockd.ReplenishmentDefaults{ColdStartMeanDaily: &lead}}
			}
			return stockd.Command{Op: op}
		})
		if ok := countPassed(t, results); ok != 6 {
			t.Fatalf("round %d: %d updates answered, want 6", round, ok)
		}
		var own stockd.ReplenishmentSettings
		readDoc(t, h, stockd.DocKey{Kind: stockd.DocReplenishment, ID: "r"}, &own)
		if *own.LeadTimeDays != lead || *own.ServiceLevel != level || *own.Category != category {
			t.Fatalf("round %d: settings %+v", round, own)
		}
		var d stockd.ReplenishmentDefaults
		readDoc(t, h, stockd.DocKey{Kind: stockd.DocReplenishmentDefaults, ID: stockd.ReplenishmentDefaultsID}, &d)
		if *d.CoverDays != cover || *d.ColdStartMeanDaily != lead {
			t.Fatalf("round %d: defaults %+v", round, d)
		}
		if sku, err := h.Store.SKUGet(ctx, "r"); err != nil || sku.Deduction != deduction {
			t.Fatalf("round %d: sku %+v, %v", round, sku, err)
		}
	}
}

func readDoc(t *testing.T, h *Harness, key stockd.DocKey, v any) {
	t.Helper()
	d, err := h.Store.DocumentGet(ctx, key)
	if err != nil {
		t.Fatalf("%s/%s: %v", key.Kind, key.ID, err)
	}
	if err := json.Unmarshal(d.Body, v); err != nil {
		t.Fatalf("%s/%s: %v", key.Kind, key.ID, err)
	}
}
