package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

// exerciseReserveOrderCodes is exerciseOrders' step of the order error
// codes of reservations: location_inactive, deduction_timing,
// campaign_not_active and purchase_limit_exceeded.
func exerciseReserveOrderCodes(h *harness) {
	h.t.Helper()
	h.must("POST", "/v1/locations", "orders-off", `{"location":"OOFF","active":false}`, http.StatusCreated, nil)
	h.mustRefuse("/v1/reservations", "orders-inactive", `{"lines":[{"sku":"OX","quantity":1,"location":"OOFF"}]}`, http.StatusConflict, stockd.CodeLocationInactive)
	h.must("POST", "/v1/skus", "orders-pay", `{"sku":"OPAY","deduction":"at_payment"}`, http.StatusCreated, nil)
	h.mustRefuse("/v1/reservations", "orders-pay-hold", `{"lines":[{"sku":"OPAY","quantity":1}]}`, http.StatusConflict, stockd.CodeDeductionTiming)
	later := h.clock.Now().Add(time.Hour)
	h.writeDoc(stockd.DocPool, "OPROMO", stockd.Pool{ID: "OPROMO", Kind: stockd.PoolCampaign, StartsAt: &later})
	h.mustRefuse("/v1/reservations", "orders-promo", `{"lines":[{"sku":"OX","quantity":1,"pool":"OPROMO"}]}`, http.StatusConflict, stockd.CodeCampaignNotActive)
	h.must("POST", "/v1/reservations", "orders-limit-1", `{"lines":[{"sku":"OX","quantity":1}],"customer_id":"C1"}`, http.StatusCreated, nil)
	h.mustRefuse("/v1/reservations", "orders-limit-2", `{"lines":[{"sku":"OX","quantity":1}],"customer_id":"C1"}`, http.StatusConflict, stockd.CodePurchaseLimitExceeded)
}
