package httpapi

import (
	"net/http"

	"github.com/stockd/stockd"
)

// exerciseSettings is exercisePools' step of location and SKU settings.
// It leaves PA's approval threshold at 10.
func exerciseSettings(h *harness) {
	t := h.t
	t.Helper()
	var loc Location
	h.must("PATCH", "/v1/locations/PL", "pools-loc", `{"active":false,"priority":7,"name":"Back"}`, http.StatusOK, &loc)
	if loc.Active || loc.Priority != 7 || loc.Name != "Back" {
		t.Fatalf("location = %+v", loc)
	}
	var locations LocationList
	h.must("GET", "/v1/locations", "", "", http.StatusOK, &locations)
	for _, l := range locations.Locations {
		if l.Location == "PL" && l.Active {
			t.Fatal("GET /v1/locations shows PL active")
		}
	}
	h.must("PATCH", "/v1/locations/PL", "pools-loc-on", `{"active":true}`, http.StatusOK, nil)
	h.must("PATCH", "/v1/locations/nowhere", "pools-loc-nowhere", `{"active":true}`, http.StatusNotFound, nil).wantCode(t, stockd.CodeUnknownLocation)
	h.must("PATCH", "/v1/locations/PL", "pools-loc-empty", `{}`, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeUnprocessable)
	h.must("PATCH", "/v1/locations/PL", "pools-loc-bad", `{"priority":-1}`, http.StatusBadRequest, nil)
	var sku SKU
	h.must("PATCH", "/v1/skus/PA", "pools-sku-threshold", `{"approval_threshold":10,"name":"Pool test"}`, http.StatusOK, &sku)
	if sku.ApprovalThreshold != 10 || sku.Name != "Pool test" || sku.Deduction != stockd.DeductionAtOrder {
		t.Fatalf("sku = %+v", sku)
	}
	h.must("PATCH", "/v1/skus/nowhere", "pools-sku-nowhere", `{"name":"x"}`, http.StatusNotFound, nil).wantCode(t, stockd.CodeUnknownSKU)
	h.must("PATCH", "/v1/skus/PA", "pools-sku-empty", `{}`, http.StatusUnprocessableEntity, nil)
	h.must("PATCH", "/v1/skus/PA", "pools-sku-bad", `{"deduction":"never"}`, http.StatusBadRequest, nil)
}
