package httpapi

import (
	"net/http"

	"github.com/stockd/stockd"
)

// exerciseAllocation is exercisePools' step of allocations: 20 of PA at
// PL into pools-sale.
func exerciseAllocation(h *harness) {
	t := h.t
	t.Helper()
	var alloc Allocation
	h.must("POST", "/v1/allocations", "pools-alloc", `{"sku":"PA","location":"PL","to_pool":"pools-sale","quantity":20,"reference":"promo"}`, http.StatusOK, &alloc)
	if alloc.From.OnHand != 30 || alloc.To.OnHand != 20 || alloc.To.Pool != "pools-sale" || alloc.FromPool != stockd.PoolDefault {
		t.Fatalf("allocation = %+v", alloc)
	}
	if a := h.must("POST", "/v1/allocations", "pools-alloc", `{"sku":"PA","location":"PL","to_pool":"pools-sale","quantity":20,"reference":"promo"}`, http.StatusOK, nil); a.header.Get(headerReplayed) != "true" {
		t.Fatal("a retried allocation was not a replay")
	}
	h.must("POST", "/v1/allocations", "pools-alloc-short", `{"sku":"PA","location":"PL","to_pool":"pools-web","quantity":31}`, http.StatusConflict, nil).wantCode(t, stockd.CodeInsufficientStock)
	h.must("POST", "/v1/allocations", "pools-alloc-nowhere", `{"sku":"PA","location":"PL","to_pool":"nowhere","quantity":1}`, http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)
	h.must("POST", "/v1/allocations", "pools-alloc-no-qty", `{"sku":"PA","to_pool":"pools-web"}`, http.StatusBadRequest, nil)
}
