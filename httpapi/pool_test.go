package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

// exercisePool is exercisePools' step of pools: the campaign pools-sale
// and the channel pools-web.
func exercisePool(h *harness) {
	t := h.t
	t.Helper()
	now := h.clock.Now().UTC()
	campaign := fmt.Sprintf(`{"pool":"pools-sale","kind":"campaign","name":"Sale","starts_at":%q,"ends_at":%q}`,
		now.Add(-time.Hour).Format(time.RFC3339), now.Add(24*time.Hour).Format(time.RFC3339))
	var sale Pool
	h.must("POST", "/v1/pools", "pools-create-sale", campaign, http.StatusCreated, &sale)
	if sale.Kind != stockd.PoolCampaign || sale.EndsAt == nil || sale.ClosedAt != nil {
		t.Fatalf("created campaign %+v", sale)
	}
	h.must("POST", "/v1/pools", "pools-create-sale", campaign, http.StatusCreated, nil)
	h.must("POST", "/v1/pools", "pools-create-web", `{"pool":"pools-web","kind":"channel","fallback_to_normal":true}`, http.StatusCreated, nil)
	h.must("POST", "/v1/pools", "pools-create-again", `{"pool":"pools-web","kind":"channel"}`, http.StatusConflict, nil).wantCode(t, stockd.CodeAlreadyExists)
	h.must("POST", "/v1/pools", "pools-create-normal", `{"pool":"normal","kind":"channel"}`, http.StatusConflict, nil).wantCode(t, stockd.CodeAlreadyExists)
	h.must("POST", "/v1/pools", "pools-create-bad", `{"pool":"x","kind":"other"}`, http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	h.must("POST", "/v1/pools", "pools-create-window", fmt.Sprintf(`{"pool":"x","kind":"campaign","starts_at":%q,"ends_at":%q}`,
		now.Format(time.RFC3339), now.Format(time.RFC3339)), http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	var pools PoolList
	h.must("GET", "/v1/pools", "", "", http.StatusOK, &pools)
	if len(pools.Pools) < 2 {
		t.Fatalf("pools = %+v, want both", pools)
	}
	h.must("GET", "/v1/pools?limit=1", "", "", http.StatusOK, &pools)
	if len(pools.Pools) != 1 || pools.NextAfter == "" {
		t.Fatalf("first page = %+v, want one pool and a cursor", pools)
	}
	h.must("GET", "/v1/pools?limit=1000&after="+pools.NextAfter, "", "", http.StatusOK, nil)
	h.must("GET", "/v1/pools?limit=0", "", "", http.StatusBadRequest, nil)
	h.must("GET", "/v1/pools/pools-sale", "", "", http.StatusOK, nil)
	h.must("GET", "/v1/pools/nowhere", "", "", http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)
	h.must("GET", "/v1/pools/a%3Bb", "", "", http.StatusBadRequest, nil)
}
