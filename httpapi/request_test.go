package httpapi

import (
	"net/http"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// TestRequestOutcome: a caller that lost its answer asks by key: applied
// (with the status a retry replays), refused with its code, pending an
// approval, or never decided (404); a malformed key is 400.
func TestRequestOutcome(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		h.must("POST", "/v1/reservations", "out-applied", `{"lines":[{"sku":"A","quantity":1}]}`, http.StatusCreated, nil)
		h.mustRefuse("/v1/reservations", "out-refused", `{"lines":[{"sku":"A","quantity":100}]}`, http.StatusConflict, stockd.CodeInsufficientStock)
		h.must("PATCH", "/v1/skus/A", "out-threshold", `{"approval_threshold":5}`, http.StatusOK, nil)
		h.must("POST", "/v1/adjustments", "out-pending", `{"sku":"A","reason":"found","delta":6}`, http.StatusAccepted, nil)
		for _, c := range []struct {
			key  string
			want RequestOutcome
		}{
			{"out-applied", RequestOutcome{Key: "out-applied", Outcome: outcomeApplied, Status: http.StatusCreated}},
			{"out-refused", RequestOutcome{Key: "out-refused", Outcome: outcomeRefused, Status: http.StatusConflict, Code: stockd.CodeInsufficientStock}},
			{"out-pending", RequestOutcome{Key: "out-pending", Outcome: outcomePending, Status: http.StatusAccepted}},
			{"out-threshold", RequestOutcome{Key: "out-threshold", Outcome: outcomeApplied, Status: http.StatusOK}},
		} {
			var got RequestOutcome
			h.must("GET", "/v1/requests/"+c.key, "", "", http.StatusOK, &got)
			got.CreatedAt = c.want.CreatedAt
			if got != c.want {
				t.Errorf("outcome of %s = %+v, want %+v", c.key, got, c.want)
			}
		}
		h.must("GET", "/v1/requests/never-sent", "", "", http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)
		h.must("GET", "/v1/requests/k%7F", "", "", http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	})
}
