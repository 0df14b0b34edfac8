package httpapi

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
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

// TestReadPastDeadline: a read of a pending reservation whose deadline
// passed says so (expired: true) before the expiry worker moves it; the
// stored answer of its creation is replayed as it was given.
func TestReadPastDeadline(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		body := `{"lines":[{"sku":"A","quantity":1}],"ttl_seconds":60}`
		var created Reservation
		h.must("POST", "/v1/reservations", "late-1", body, http.StatusCreated, &created)
		var fresh Reservation
		h.must("GET", "/v1/reservations/"+created.ID, "", "", http.StatusOK, &fresh)
		if fresh.Expired {
			t.Fatalf("a reservation within its deadline reads expired: %+v", fresh)
		}
		h.clock.Advance(61 * time.Second)
		var late Reservation
		h.must("GET", "/v1/reservations/"+created.ID, "", "", http.StatusOK, &late)
		if late.Status != string(stockd.StatusPending) || !late.Expired {
			t.Fatalf("past its deadline it reads %+v, want pending with expired: true", late)
		}
		h.must("GET", "/v1/reservations?key=late-1", "", "", http.StatusOK, &late)
		if !late.Expired {
			t.Fatalf("by key past its deadline it reads %+v, want expired: true", late)
		}
		var replay Reservation
		h.must("POST", "/v1/reservations", "late-1", body, http.StatusCreated, &replay)
		if replay.Expired {
			t.Fatalf("the replayed answer carries expired: %+v", replay)
		}
	})
}

// TestNoBodyAlike: a mutation that needs no body takes none, {} and null
// alike.
func TestNoBodyAlike(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "NB")
		for i, body := range []string{"", "{}", "null"} {
			var r Reservation
			h.must("POST", "/v1/reservations", "nb-"+strconv.Itoa(i), `{"lines":[{"sku":"NB","quantity":1}]}`, http.StatusCreated, &r)
			var confirmed Reservation
			h.must("POST", "/v1/reservations/"+r.ID+"/confirm", "nb-confirm-"+strconv.Itoa(i), body, http.StatusOK, &confirmed)
			if confirmed.Status != string(stockd.StatusConfirmed) {
				t.Fatalf("confirm with body %q: %+v", body, confirmed)
			}
		}
	})
}
