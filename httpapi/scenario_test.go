package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// The scenarios chain the steps of several resources over shared stock:
// each step (exerciseReturns in returns_test.go, exercisePool in
// pool_test.go, ...) finds the stock the steps before it left. Each
// scenario then sends what every mutation of its resources shares, and
// TestOpenAPIResponses runs all three beside its own requests.

// flowFixture is the stock exerciseFlow works on.
type flowFixture struct {
	confirmed, fulfilled, pending Reservation
}

func (h *harness) flowFixture() flowFixture {
	h.t.Helper()
	var f flowFixture
	h.seed(20, "F")
	h.must("POST", "/v1/skus", "flow-sku-S", `{"sku":"S","deduction":"at_shipment"}`, http.StatusCreated, nil)
	h.must("POST", "/v1/receipts", "flow-receipt-S", `{"sku":"S","quantity":5}`, http.StatusOK, nil)
	h.must("POST", "/v1/locations", "flow-location-L1", `{"location":"flow-L1","priority":1}`, http.StatusCreated, nil)
	h.must("POST", "/v1/locations", "flow-location-closed", `{"location":"flow-closed","active":false}`, http.StatusCreated, nil)
	h.must("POST", "/v1/reservations", "flow-confirmed", `{"lines":[{"sku":"F","quantity":5,"location":"default"}],"commit":true}`, http.StatusCreated, &f.confirmed)
	h.must("POST", "/v1/reservations", "flow-fulfilled", `{"lines":[{"sku":"F","quantity":4,"location":"default"}],"commit":true}`, http.StatusCreated, &f.fulfilled)
	h.must("POST", "/v1/reservations/"+f.fulfilled.ID+"/fulfil", "flow-fulfil", "", http.StatusOK, nil)
	h.must("POST", "/v1/reservations", "flow-pending", `{"lines":[{"sku":"F","quantity":1,"location":"default"}]}`, http.StatusCreated, &f.pending)
	return f
}

// exerciseFlow drives every flow endpoint (returns, quarantine, moves,
// shipments, transfers, purchase orders) to every answer the document
// lists for it, but the 401, 403 and 429 every scoped route gives, which
// exerciseKeys and exerciseRateLimits show for all routes at once.
// TestOpenAPIResponses should call it (see the report of issue 4's flow
// work); TestFlowContract does meanwhile.
func exerciseFlow(h *harness) {
	h.t.Helper()
	f := h.flowFixture()
	exerciseReturns(h, f)
	exerciseShipment(h)
	tr := exerciseTransfer(h)
	exercisePurchaseOrder(h)
	receipts := "/v1/transfers/" + tr.ID + "/receipts"
	poReceipts := "/v1/purchase-orders/PO-1/receipts"
	var stock Stock
	h.must("GET", "/v1/stock/F", "", "", http.StatusOK, &stock)
	// The cancelled order's 6 open units left incoming; 3 of the first
	// transfer are still on their way to L1, the second came back and the
	// third arrived.
	if stock.Totals.Incoming != 0 || stock.Totals.OnHand != 20 || stock.Totals.InTransit != 3 {
		h.t.Fatalf("stock of F at the end = %+v", stock.Totals)
	}

	// What every mutation shares.
	h.must("POST", "/v1/skus", "flow-shared-key", `{"sku":"FLOW-SHARED"}`, http.StatusCreated, nil)
	for _, m := range []mutationSweep{
		{"POST /v1/returns", "/v1/returns", returnOf(f.fulfilled.ID, 1, "")},
		{"POST /v1/quarantine/release", "/v1/quarantine/release", `{"sku":"F","quantity":1}`},
		{"POST /v1/quarantine/scrap", "/v1/quarantine/scrap", `{"sku":"F","quantity":1}`},
		{"POST /v1/moves", "/v1/moves", `{"sku":"F","from":"available","to":"quarantined","quantity":1}`},
		{"POST /v1/shipments", "/v1/shipments", `{"lines":[{"sku":"S","quantity":1}]}`},
		{"POST /v1/transfers", "/v1/transfers", `{"sku":"F","from_location":"default","to_location":"flow-L1","quantity":1}`},
		{"POST /v1/transfers/{id}/receipts", receipts, `{"quantity":1}`},
		{"POST /v1/transfers/{id}/cancel", "/v1/transfers/" + tr.ID + "/cancel", ""},
		{"POST /v1/purchase-orders", "/v1/purchase-orders", `{"supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"F","quantity":1}]}`},
		{"POST /v1/purchase-orders/{id}/receipts", poReceipts, `{"lines":[{"sku":"F","quantity":1}]}`},
		{"POST /v1/purchase-orders/{id}/cancel", "/v1/purchase-orders/PO-1/cancel", ""},
	} {
		for fault, status := range map[string]int{faultInternal: http.StatusInternalServerError, faultCancelled: http.StatusServiceUnavailable, faultOverloaded: http.StatusTooManyRequests} {
			h.expect("POST", m.path, m.body, status, map[string]string{headerIdempotencyKey: "flow-fault-" + fault, headerTestFault: fault})
		}
		h.must("POST", m.path, "flow-shared-key", m.body, http.StatusUnprocessableEntity, nil)
		h.must("POST", m.path, "", m.body, http.StatusBadRequest, nil)
		h.must("POST", m.path, "flow-too-large", `{"reference":"`+strings.Repeat("r", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	}
	for _, path := range []string{"/v1/transfers/" + tr.ID, "/v1/purchase-orders/PO-1"} {
		h.expect("GET", path, "", http.StatusInternalServerError, map[string]string{headerTestFault: faultInternal})
		h.expect("GET", path, "", http.StatusServiceUnavailable, map[string]string{headerTestFault: faultCancelled})
	}
}

// TestFlowContract drives the flow endpoints to every documented answer,
// each checked against the API document, and fails for any the document
// lists for them that no exchange showed.
func TestFlowContract(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		exerciseFlow(h)
		exerciseListings(h)
		exerciseForms(h)
		exerciseKeys(h)
		requireFlowCoverage(t, loadContract(t), append(h.recorded(), exerciseRateLimits(t, b)...))
	})
}

// flowFragments are the document's fragments of the resources
// exerciseFlow drives.
var flowFragments = []string{"openapi/returns.json", "openapi/shipment.json", "openapi/transfer.json", "openapi/purchaseorder.json"}

// requireFlowCoverage is requireCoverage for the paths of the flow
// fragments, and for the codes new with them.
func requireFlowCoverage(t *testing.T, c *contract, exchanges []exchange) {
	t.Helper()
	var frag struct {
		Paths map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	// Decoding into the same map adds each fragment's paths to it.
	for _, name := range flowFragments {
		raw, err := openAPIFiles.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &frag); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	codes := map[string]bool{}
	for _, ex := range exchanges {
		seen[ex.pattern+" "+strconv.Itoa(ex.status)] = true
		if ex.header.Get("Content-Type") == "application/problem+json" {
			codes[(answer{status: ex.status, body: ex.body}).problem(t).Code] = true
		}
	}
	var missing []string
	for path, item := range frag.Paths {
		for method, op := range item {
			for status := range op.Responses {
				if key := strings.ToUpper(method) + " " + path + " " + status; !seen[key] {
					missing = append(missing, key)
				}
			}
		}
	}
	for _, code := range []string{stockd.CodeQuantityExceeded, stockd.CodeDeductionTiming, stockd.CodeLocationInactive} {
		if !codes[code] {
			missing = append(missing, "error code "+code)
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("never answered: %s", m)
	}
}

// exercisePools drives every endpoint of pools, allocations, campaigns,
// settings and approvals to every answer the document lists for it (but the 401, 403 and 429 of access control, which
// exerciseKeys and exerciseRateLimits give every route), asserting what
// each answer means. It uses its own SKU (PA), location (PL) and keys, so
// TestOpenAPIResponses can run it beside its own requests.
func exercisePools(h *harness) {
	t := h.t
	t.Helper()
	h.must("POST", "/v1/skus", "pools-sku", `{"sku":"PA"}`, http.StatusCreated, nil)
	h.must("POST", "/v1/locations", "pools-location", `{"location":"PL","priority":3}`, http.StatusCreated, nil)
	h.must("POST", "/v1/receipts", "pools-receipt", `{"sku":"PA","location":"PL","quantity":50}`, http.StatusOK, nil)
	exercisePool(h)
	exerciseAllocation(h)
	exerciseCampaign(h)
	exerciseSettings(h)
	pending, other := exerciseApproval(h)
	approve := "/v1/approvals/" + pending.ID + "/approve"
	reject := "/v1/approvals/" + other.ID + "/reject"

	// What every mutation shares.
	for _, m := range []struct {
		method, path, body string
		status             int
		// otherPath is another request of the same route, for the
		// idempotency key reused under it.
		otherPath, otherBody string
	}{
		{"POST", "/v1/pools", `{"pool":"pools-shared","kind":"channel"}`, http.StatusCreated, "/v1/pools", `{"pool":"pools-other","kind":"channel"}`},
		{"POST", "/v1/allocations", `{"sku":"PA","location":"PL","to_pool":"pools-web","quantity":1}`, http.StatusOK, "/v1/allocations", `{"sku":"PA","location":"PL","to_pool":"pools-web","quantity":2}`},
		{"POST", "/v1/campaigns/pools-sale/close", "", http.StatusOK, "/v1/campaigns/pools-web/close", ""},
		{"PATCH", "/v1/locations/PL", `{"priority":1}`, http.StatusOK, "/v1/locations/PL", `{"priority":2}`},
		{"PATCH", "/v1/skus/PA", `{"name":"shared"}`, http.StatusOK, "/v1/skus/PA", `{"name":"other"}`},
		{"POST", approve, "", http.StatusOK, "/v1/approvals/" + other.ID + "/approve", ""},
		{"POST", reject, "", http.StatusOK, "/v1/approvals/" + pending.ID + "/reject", ""},
	} {
		name := strings.NewReplacer("/", "-", "{", "", "}", "").Replace(m.method + m.path)
		for _, fault := range []string{faultInternal, faultCancelled, faultOverloaded} {
			h.sendHeaders(m.method, m.path, []byte(m.body), map[string]string{headerIdempotencyKey: "pools-fault-" + fault + name, headerTestFault: fault, headerActor: "boss"})
		}
		h.mustAs("boss", m.method, m.path, "pools-reused"+name, m.body, m.status, nil)
		h.mustAs("boss", m.method, m.otherPath, "pools-reused"+name, m.otherBody, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeIdempotencyKeyReused)
		h.mustAs("boss", m.method, m.path, "", m.body, http.StatusBadRequest, nil).wantCode(t, stockd.CodeIdempotencyKeyMissing)
		h.mustAs("boss", m.method, m.path, "pools-large"+name, `{"reference":"`+strings.Repeat("r", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	}
	for _, path := range []string{"/v1/pools", "/v1/pools/pools-sale", "/v1/approvals", "/v1/approvals/" + pending.ID} {
		for _, fault := range []string{faultInternal, faultCancelled} {
			h.sendHeaders("GET", path, nil, map[string]string{headerTestFault: fault})
		}
	}
}

// poolsPaths are the documented paths of the resources exercisePools
// drives (openapi/pool.json, allocation.json, campaign.json, settings.json
// and approval.json), for its coverage check.
var poolsPaths = []string{
	"/v1/pools", "/v1/pools/{pool}", "/v1/allocations", "/v1/campaigns/{pool}/close",
	"/v1/locations/{location}", "/v1/skus/{sku}", "/v1/approvals", "/v1/approvals/{id}",
	"/v1/approvals/{id}/approve", "/v1/approvals/{id}/reject",
}

// TestPoolsEndpoints runs exercisePools and checks that it showed every
// answer documented for poolsPaths, but those of access control.
func TestPoolsEndpoints(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		exercisePools(h)
		exerciseForms(h)
		seen := map[string]bool{}
		for _, ex := range h.recorded() {
			seen[ex.pattern+" "+strconv.Itoa(ex.status)] = true
		}
		c := loadContract(t)
		for _, path := range poolsPaths {
			item, _ := c.lookup("paths", path)
			for method, op := range item {
				if method == "get" && (path == "/v1/skus/{sku}" || path == "/v1/locations/{location}") {
					continue // sku.json's and location.json's, not settings.json's
				}
				for status := range op.(map[string]any)["responses"].(map[string]any) {
					key := strings.ToUpper(method) + " " + path + " " + status
					if status == "401" || status == "403" && method == "get" || status == "429" && method == "get" {
						continue
					}
					if status == "412" {
						continue // exercisePreconditions's (TestPreconditions)
					}
					if status == "403" && !strings.HasSuffix(path, "/approve") {
						continue
					}
					if !seen[key] {
						t.Errorf("never answered: %s", key)
					}
				}
			}
		}
		if !seen["POST /v1/adjustments 202"] {
			t.Error("never answered: POST /v1/adjustments 202")
		}
	})
}

// exerciseOrders drives the bundle and limit endpoints to every answer the
// document lists for them but 401, 403 and 429 rate_limited (exerciseKeys
// and exerciseRateLimits send those on every scoped route), and answers
// the order error codes of reservations: location_inactive,
// deduction_timing, campaign_not_active and purchase_limit_exceeded.
// TestOpenAPIResponses should call it before exerciseKeys.
func exerciseOrders(h *harness) {
	h.t.Helper()
	h.seed(10, "OX", "OY")
	h.seedBundles("OKIT", "OBOX")
	kit := exerciseBundle(h)
	exercisePurchaseLimit(h)

	// What every mutation shares, and the failures of reads.
	for _, m := range []mutationSweep{
		{"POST /v1/bundles", "/v1/bundles", kit},
		{"POST /v1/limits", "/v1/limits", `{"scope":"sku","target":"OY","max_quantity_per_customer":1,"window_seconds":60}`},
	} {
		for _, fault := range []string{faultInternal, faultCancelled, faultOverloaded} {
			h.sendHeaders("POST", m.path, []byte(m.body), map[string]string{headerIdempotencyKey: "orders-fault-" + fault, headerTestFault: fault})
		}
		h.must("POST", m.path, "limit-1", m.body, http.StatusUnprocessableEntity, nil)
		h.must("POST", m.path, "", m.body, http.StatusBadRequest, nil)
		h.must("POST", m.path, "orders-too-large", `{"bundle":"`+strings.Repeat("r", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	}
	for _, path := range []string{"/v1/bundles/OKIT", "/v1/limits"} {
		for fault, status := range map[string]int{faultInternal: http.StatusInternalServerError, faultCancelled: http.StatusServiceUnavailable} {
			if a := h.sendHeaders("GET", path, nil, map[string]string{headerTestFault: fault}); a.status != status {
				h.t.Fatalf("GET %s with fault %s: %d, want %d", path, fault, a.status, status)
			}
		}
	}
	exerciseReserveOrderCodes(h)
}

// TestOrdersContract runs exerciseOrders and checks that it showed every
// answer documented for the order endpoints, but those other sweeps cover.
func TestOrdersContract(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		exerciseOrders(h)
		exerciseForms(h)
		seen := map[string]bool{}
		for _, ex := range h.recorded() {
			seen[ex.pattern+" "+strconv.Itoa(ex.status)] = true
		}
		c := loadContract(t)
		for _, rt := range slices.Concat(h.server.bundleRoutes(), h.server.purchaseLimitRoutes()) {
			method, path, _ := strings.Cut(rt.pattern, " ")
			responses, _ := c.lookup("paths", path, strings.ToLower(method), "responses")
			if responses == nil {
				t.Errorf("%s is not documented", rt.pattern)
			}
			for status := range responses {
				if status == "401" || status == "403" || status == "429" {
					continue
				}
				if !seen[rt.pattern+" "+status] {
					t.Errorf("never answered: %s %s", rt.pattern, status)
				}
			}
		}
	})
}
