package httpapi

import (
	"net/http"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// TestAdjustDeltaCompareAndSet: a delta with expected_on_hand applies only
// if on_hand is still what the caller saw, also when it waits for an
// approval; two clerks booking the same found units add them once.
func TestAdjustDeltaCompareAndSet(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "CAS")
		var p Position
		h.must("POST", "/v1/adjustments", "cas-1", `{"sku":"CAS","reason":"found","delta":2,"expected_on_hand":10}`, http.StatusOK, &p)
		if p.OnHand != 12 {
			t.Fatalf("on_hand %d after a delta of 2 on 10, want 12", p.OnHand)
		}
		h.mustRefuse("/v1/adjustments", "cas-2", `{"sku":"CAS","reason":"found","delta":2,"expected_on_hand":10}`, http.StatusConflict, stockd.CodeStaleQuantity)
		var stock Stock
		h.must("GET", "/v1/stock/CAS", "", "", http.StatusOK, &stock)
		if stock.Totals.OnHand != 12 {
			t.Fatalf("on_hand %d after a stale delta, want 12 (unchanged)", stock.Totals.OnHand)
		}

		// Beyond the threshold it waits; approved after on_hand moved, it
		// is refused and stays pending.
		h.must("PATCH", "/v1/skus/CAS", "cas-threshold", `{"approval_threshold":5}`, http.StatusOK, nil)
		var pending Approval
		h.mustAs("clerk", "POST", "/v1/adjustments", "cas-big", `{"sku":"CAS","reason":"found","delta":6,"expected_on_hand":12}`, http.StatusAccepted, &pending)
		h.must("POST", "/v1/adjustments", "cas-loss", `{"sku":"CAS","reason":"loss","delta":-1}`, http.StatusOK, nil)
		h.mustAs("boss", "POST", "/v1/approvals/"+pending.ID+"/approve", "cas-approve", "", http.StatusConflict, nil).wantCode(t, stockd.CodeStaleQuantity)
		h.must("GET", "/v1/stock/CAS", "", "", http.StatusOK, &stock)
		if stock.Totals.OnHand != 11 {
			t.Fatalf("on_hand %d after a stale approval, want 11", stock.Totals.OnHand)
		}
	})
}
