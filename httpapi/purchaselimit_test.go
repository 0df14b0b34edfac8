package httpapi

import (
	"net/http"
	"strconv"
)

// exercisePurchaseLimit is exerciseOrders' step of purchase limits. It
// leaves OX limited to 1 per customer.
func exercisePurchaseLimit(h *harness) {
	h.t.Helper()
	var lim PurchaseLimit
	h.must("POST", "/v1/limits", "limit-1", `{"scope":"sku","target":"OX","max_quantity_per_customer":5,"window_seconds":3600}`, http.StatusCreated, &lim)
	if lim.ID != "sku:OX" || lim.MaxQuantityPerCustomer != 5 {
		h.t.Fatalf("limit = %+v", lim)
	}
	h.must("POST", "/v1/limits", "limit-2", `{"scope":"sku","target":"OX","max_quantity_per_customer":1,"window_seconds":3600}`, http.StatusOK, &lim)
	h.must("POST", "/v1/limits", "limit-3", `{"scope":"campaign","target":"ODROP","max_quantity_per_customer":1,"window_seconds":60}`, http.StatusCreated, nil)
	h.must("POST", "/v1/limits", "limit-ghost", `{"scope":"sku","target":"GHOST","max_quantity_per_customer":1,"window_seconds":60}`, http.StatusNotFound, nil)
	for i, body := range []string{
		`{"scope":"shop","target":"OX","max_quantity_per_customer":1,"window_seconds":60}`,
		`{"scope":"sku","target":"OX","window_seconds":60}`,
		`{"scope":"sku","target":"OX","max_quantity_per_customer":1}`,
		`{"scope":"sku","target":"OX","max_quantity_per_customer":1,"window_seconds":0}`,
		`{"scope":"campaign","target":"normal","max_quantity_per_customer":1,"window_seconds":60}`,
	} {
		h.must("POST", "/v1/limits", "limit-bad-"+strconv.Itoa(i), body, http.StatusBadRequest, nil)
	}
	var list LimitList
	h.must("GET", "/v1/limits?limit=1", "", "", http.StatusOK, &list)
	if len(list.Limits) != 1 || list.Limits[0].ID != "campaign:ODROP" || list.NextAfter != "campaign:ODROP" {
		h.t.Fatalf("first page = %+v", list)
	}
	after := list.NextAfter
	list = LimitList{}
	h.must("GET", "/v1/limits?after="+after, "", "", http.StatusOK, &list)
	if len(list.Limits) != 1 || list.Limits[0].ID != "sku:OX" || list.NextAfter != "" {
		h.t.Fatalf("second page = %+v", list)
	}
	h.must("GET", "/v1/limits?limit=0", "", "", http.StatusBadRequest, nil)
}
