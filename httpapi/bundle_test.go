package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// exerciseBundle is exerciseOrders' step of bundles: OKIT, of OY and two
// OX. It returns the body that defined OKIT.
func exerciseBundle(h *harness) (kit string) {
	h.t.Helper()
	kit = `{"bundle":"OKIT","components":[{"sku":"OY","quantity":1},{"sku":"OX","quantity":2}]}`
	var b Bundle
	h.must("POST", "/v1/bundles", "bundle-1", kit, http.StatusCreated, &b)
	// A bundle holds no stock of its own, and only a SKU created as a
	// bundle can be defined as one.
	h.mustRefuse("/v1/receipts", "bundle-receipt", `{"sku":"OKIT","quantity":1}`, http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	h.mustRefuse("/v1/purchase-orders", "bundle-po", `{"supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"OKIT","location":"default","quantity":1}]}`,
		http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	h.mustRefuse("/v1/bundles", "bundle-plain", `{"bundle":"OY","components":[{"sku":"OX","quantity":1}]}`, http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	if b.Bundle != "OKIT" || len(b.Components) != 2 || b.Components[0] != (BundleComponent{SKU: "OX", Quantity: 2}) || b.Availability != nil {
		h.t.Fatalf("bundle = %+v", b)
	}
	if a := h.must("POST", "/v1/bundles", "bundle-1", kit, http.StatusCreated, nil); a.header.Get(headerReplayed) != "true" {
		h.t.Fatal("bundle replay not marked")
	}
	h.must("POST", "/v1/bundles", "bundle-again", kit, http.StatusConflict, nil)
	h.must("POST", "/v1/bundles", "bundle-ghost", `{"bundle":"OX2","components":[{"sku":"GHOST","quantity":1}]}`, http.StatusNotFound, nil)
	for i, body := range []string{
		`{"bundle":"OKIT","components":[]}`,
		`{"bundle":"OKIT","components":[{"sku":"OX"}]}`,
		`{"bundle":"OKIT","components":[{"sku":"OX","quantity":1001}]}`,
		`{"bundle":"OKIT","components":[{"sku":"OX","quantity":1},{"sku":"OX","quantity":1}]}`,
		`{"bundle":"OX","components":[{"sku":"OX","quantity":1}]}`,
		`{"bundle":"OBOX","components":[{"sku":"OKIT","quantity":1}]}`,
	} {
		h.must("POST", "/v1/bundles", "bundle-bad-"+strconv.Itoa(i), body, http.StatusBadRequest, nil)
	}
	var got Bundle
	h.must("GET", "/v1/bundles/OKIT", "", "", http.StatusOK, &got)
	if got.Availability == nil || got.Availability.Available != 5 || len(got.Availability.Components) != 2 {
		h.t.Fatalf("bundle availability = %+v, want 5 of OKIT from 10 OX and 10 OY", got.Availability)
	}
	h.must("GET", "/v1/bundles/OX", "", "", http.StatusNotFound, nil)
	h.must("GET", "/v1/bundles/a;b", "", "", http.StatusBadRequest, nil)
	return kit
}

// getStock reads GET /v1/stock/{sku} with the bundle field. Until
// openapi.json's Stock lists "bundle" (the lead adds it), a bundle's stock
// is read straight from the server, unrecorded.
func (h *harness) getStock(sku string) bundleStock {
	h.t.Helper()
	var out bundleStock
	stock, _ := loadContract(h.t).lookup("components", "schemas", "Stock", "properties")
	if _, documented := stock["bundle"]; documented {
		h.must("GET", "/v1/stock/"+sku, "", "", http.StatusOK, &out)
		return out
	}
	rec := httptest.NewRecorder()
	h.server.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/stock/"+sku, nil))
	if rec.Code != http.StatusOK {
		h.t.Fatalf("GET /v1/stock/%s: %d %s", sku, rec.Code, rec.Body.Bytes())
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// TestOrdersBundleOverHTTP: the stock of a bundle shows what its components
// make, and a reservation of the bundle holds the components, tagged.
func TestOrdersBundleOverHTTP(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(7, "X")
		h.seed(2, "Y")
		h.seedBundles("KIT")
		h.must("POST", "/v1/bundles", "kit", `{"bundle":"KIT","components":[{"sku":"X","quantity":3},{"sku":"Y","quantity":1}]}`, http.StatusCreated, nil)
		if s := h.getStock("KIT"); s.Bundle == nil || s.Bundle.Available != 2 || len(s.Positions) != 0 {
			t.Fatalf("bundle stock = %+v, want 2 available (7/3, 2/1) and no positions", s)
		}
		if s := h.getStock("X"); s.Bundle != nil {
			t.Fatalf("component stock has a bundle field: %+v", s.Bundle)
		}
		var r Reservation
		h.must("POST", "/v1/reservations", "kit-1", `{"lines":[{"sku":"KIT","quantity":1}],"strategy":"split"}`, http.StatusCreated, &r)
		want := []ReservationLine{{SKU: "X", Quantity: 3, Location: "default", Pool: "normal", Bundle: "KIT"}, {SKU: "Y", Quantity: 1, Location: "default", Pool: "normal", Bundle: "KIT"}}
		if !slices.Equal(r.Lines, want) {
			t.Fatalf("lines = %+v, want %+v", r.Lines, want)
		}
		if s := h.getStock("KIT"); s.Bundle.Available != 1 || s.Bundle.Components[0].Available != 4 {
			t.Fatalf("after reserving one: %+v", s.Bundle)
		}
	})
}
