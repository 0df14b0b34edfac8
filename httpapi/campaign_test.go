package httpapi

import (
	"net/http"

	"github.com/stockd/stockd"
)

// exerciseCampaign is exercisePools' step of campaigns: a hold in
// pools-sale, then the close.
func exerciseCampaign(h *harness) {
	t := h.t
	t.Helper()
	var held Reservation
	h.must("POST", "/v1/reservations", "pools-hold", `{"lines":[{"sku":"PA","location":"PL","pool":"pools-sale","quantity":5}]}`, http.StatusCreated, &held)
	var closed Pool
	h.must("POST", "/v1/campaigns/pools-sale/close", "pools-close", "", http.StatusOK, &closed)
	if closed.ClosedAt == nil {
		t.Fatalf("closed = %+v", closed)
	}
	h.must("POST", "/v1/campaigns/pools-sale/close", "pools-close-again", "{}", http.StatusOK, nil)
	var stock Stock
	h.must("GET", "/v1/stock/PA", "", "", http.StatusOK, &stock)
	for _, p := range stock.Positions {
		want := map[string]int64{stockd.PoolDefault: 45, "pools-sale": 5}[p.Pool]
		if p.OnHand != want {
			t.Fatalf("after the close %s holds %d, want %d: %+v", p.Pool, p.OnHand, want, stock)
		}
	}
	h.must("POST", "/v1/allocations", "pools-alloc-closed", `{"sku":"PA","location":"PL","to_pool":"pools-sale","quantity":1}`, http.StatusConflict, nil).wantCode(t, stockd.CodeCampaignNotActive)
	h.must("POST", "/v1/campaigns/pools-web/close", "pools-close-channel", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInvalidTransition)
	h.must("POST", "/v1/campaigns/nowhere/close", "pools-close-nowhere", "", http.StatusNotFound, nil)
	h.must("POST", "/v1/campaigns/a%3Bb/close", "pools-close-bad", "", http.StatusBadRequest, nil)
	h.must("POST", "/v1/reservations/"+held.ID+"/release", "pools-release", "", http.StatusOK, nil)
}
