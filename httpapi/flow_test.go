package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// refuse makes a request that must fail with status and code.
func (h *harness) refuse(method, path, key, body string, status int, code string) {
	h.t.Helper()
	a := h.must(method, path, key, body, status, nil)
	if p := a.problem(h.t); p.Code != code {
		h.t.Fatalf("%s %s %s: code %s, want %s", method, path, body, p.Code, code)
	}
}

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

// exerciseFlow drives every flow endpoint to every answer the document
// lists for it, but the 401, 403 and 429 every scoped route gives, which
// exerciseKeys and exerciseRateLimits show for all routes at once.
// TestOpenAPIResponses should call it (see the report of issue 4's flow
// work); TestFlowContract does meanwhile.
func exerciseFlow(h *harness) {
	h.t.Helper()
	f := h.flowFixture()
	returnOf := func(id string, q int64, more string) string {
		return fmt.Sprintf(`{"reservation_id":%q,"lines":[{"sku":"F","quantity":%d}]%s}`, id, q, more)
	}

	// Returns.
	var refund ReturnReceipt
	h.must("POST", "/v1/returns", "flow-refund-1", returnOf(f.confirmed.ID, 2, `,"reference":"RMA-1"`), http.StatusCreated, &refund)
	if a := h.must("POST", "/v1/returns", "flow-refund-1", returnOf(f.confirmed.ID, 2, `,"reference":"RMA-1"`), http.StatusCreated, nil); a.header.Get(headerReplayed) != "true" {
		h.t.Fatal("retry of a refund was not a replay")
	}
	if refund.Type != "refund" || refund.Reservation.Lines[0].Refunded != 2 || refund.Lines[0].Quantity != 2 {
		h.t.Fatalf("refund: %+v", refund)
	}
	h.refuse("POST", "/v1/returns", "flow-refund-too-many", returnOf(f.confirmed.ID, 4, ""), http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", "/v1/returns", "flow-refund-pending", returnOf(f.pending.ID, 1, ""), http.StatusConflict, stockd.CodeInvalidTransition)
	h.refuse("POST", "/v1/returns", "flow-refund-unknown", returnOf("nope", 1, ""), http.StatusNotFound, stockd.CodeNotFound)
	h.refuse("POST", "/v1/returns", "flow-refund-other-sku", `{"reservation_id":"`+f.confirmed.ID+`","lines":[{"sku":"S","quantity":1}]}`, http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	h.refuse("POST", "/v1/returns", "flow-refund-no-quantity", `{"reservation_id":"`+f.confirmed.ID+`","lines":[{"sku":"F"}]}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	var ret ReturnReceipt
	h.must("POST", "/v1/returns", "flow-return-1", returnOf(f.fulfilled.ID, 3, ""), http.StatusCreated, &ret)
	h.must("POST", "/v1/returns", "flow-return-2", returnOf(f.fulfilled.ID, 1, `,"restock":true`), http.StatusCreated, nil)
	if ret.Type != "return" || ret.Reservation.Lines[0].Returned != 3 {
		h.t.Fatalf("return: %+v", ret)
	}
	var stock Stock
	h.must("GET", "/v1/stock/F", "", "", http.StatusOK, &stock)
	// 20 received, 4 shipped, 4 back (3 into quarantine); 3 committed, 1 reserved.
	if want := (Balance{OnHand: 20, Committed: 3, Reserved: 1, Quarantined: 3, Available: 13}); stock.Totals != want {
		h.t.Fatalf("stock of F after returns = %+v, want %+v", stock.Totals, want)
	}

	// Quarantine and moves.
	h.must("POST", "/v1/quarantine/release", "flow-q-release", `{"sku":"F","quantity":1}`, http.StatusOK, nil)
	var scrapped Position
	h.must("POST", "/v1/quarantine/scrap", "flow-q-scrap", `{"sku":"F","location":"default","quantity":1,"reference":"QC-7"}`, http.StatusOK, &scrapped)
	if scrapped.OnHand != 19 || scrapped.Quarantined != 1 || scrapped.Available != 14 {
		h.t.Fatalf("after scrap: %+v", scrapped)
	}
	for _, verb := range []string{"release", "scrap"} {
		path := "/v1/quarantine/" + verb
		h.refuse("POST", path, verb+"-too-many", `{"sku":"F","quantity":2}`, http.StatusConflict, stockd.CodeQuantityExceeded)
		h.refuse("POST", path, verb+"-unknown-sku", `{"sku":"NOPE","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownSKU)
		h.refuse("POST", path, verb+"-unknown-location", `{"sku":"F","location":"nowhere","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownLocation)
	}
	h.refuse("POST", "/v1/quarantine/release", "flow-release-reason", `{"sku":"F","quantity":1,"reason":"damage"}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	var moved Position
	h.must("POST", "/v1/moves", "flow-move-1", `{"sku":"F","from":"available","to":"quarantined","quantity":4}`, http.StatusOK, &moved)
	if moved.Quarantined != 5 || moved.Available != 10 {
		h.t.Fatalf("after move: %+v", moved)
	}
	h.must("POST", "/v1/moves", "flow-move-2", `{"sku":"F","from":"quarantined","to":"available","quantity":2}`, http.StatusOK, nil)
	h.refuse("POST", "/v1/moves", "flow-move-short", `{"sku":"F","from":"available","to":"quarantined","quantity":100}`, http.StatusConflict, stockd.CodeInsufficientStock)
	h.refuse("POST", "/v1/moves", "flow-move-too-many", `{"sku":"F","from":"quarantined","to":"available","quantity":100}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", "/v1/moves", "flow-move-unknown-sku", `{"sku":"NOPE","from":"quarantined","to":"available","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownSKU)
	h.refuse("POST", "/v1/moves", "flow-move-unknown-location", `{"sku":"F","location":"nowhere","from":"quarantined","to":"available","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownLocation)
	h.refuse("POST", "/v1/moves", "flow-move-same", `{"sku":"F","from":"available","to":"available","quantity":1}`, http.StatusBadRequest, stockd.CodeInvalidInput)

	// Shipments.
	var shipment Shipment
	h.must("POST", "/v1/shipments", "flow-ship-1", `{"lines":[{"sku":"S","quantity":2},{"sku":"S","quantity":1}],"reference":"PKG-1"}`, http.StatusCreated, &shipment)
	if len(shipment.Lines) != 1 || shipment.Lines[0].Quantity != 3 || shipment.Positions[0].OnHand != 2 {
		h.t.Fatalf("shipment: %+v", shipment)
	}
	h.refuse("POST", "/v1/shipments", "flow-ship-short", `{"lines":[{"sku":"S","quantity":3}]}`, http.StatusConflict, stockd.CodeInsufficientStock)
	h.refuse("POST", "/v1/shipments", "flow-ship-timing", `{"lines":[{"sku":"F","quantity":1}]}`, http.StatusConflict, stockd.CodeDeductionTiming)
	h.refuse("POST", "/v1/shipments", "flow-ship-unknown-sku", `{"lines":[{"sku":"NOPE","quantity":1}]}`, http.StatusNotFound, stockd.CodeUnknownSKU)
	h.refuse("POST", "/v1/shipments", "flow-ship-unknown-location", `{"lines":[{"sku":"S","location":"nowhere","quantity":1}]}`, http.StatusNotFound, stockd.CodeUnknownLocation)

	// Transfers.
	var tr Transfer
	h.must("POST", "/v1/transfers", "flow-transfer-1", `{"sku":"F","from_location":"default","to_location":"flow-L1","quantity":5,"reference":"TO-1"}`, http.StatusCreated, &tr)
	if tr.Status != "open" || tr.Outstanding != 5 {
		h.t.Fatalf("transfer: %+v", tr)
	}
	h.refuse("POST", "/v1/transfers", "flow-transfer-short", `{"sku":"F","from_location":"default","to_location":"flow-L1","quantity":100}`, http.StatusConflict, stockd.CodeInsufficientStock)
	h.refuse("POST", "/v1/transfers", "flow-transfer-closed", `{"sku":"F","from_location":"default","to_location":"flow-closed","quantity":1}`, http.StatusConflict, stockd.CodeLocationInactive)
	h.refuse("POST", "/v1/transfers", "flow-transfer-unknown-sku", `{"sku":"NOPE","from_location":"default","to_location":"flow-L1","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownSKU)
	h.refuse("POST", "/v1/transfers", "flow-transfer-unknown-pool", `{"sku":"F","from_location":"default","to_location":"flow-L1","pool":"never-created","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownPool)
	h.refuse("POST", "/v1/transfers", "flow-transfer-unknown-location", `{"sku":"F","from_location":"default","to_location":"nowhere","quantity":1}`, http.StatusNotFound, stockd.CodeUnknownLocation)
	h.refuse("POST", "/v1/transfers", "flow-transfer-same", `{"sku":"F","from_location":"flow-L1","to_location":"flow-L1","quantity":1}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	receipts := "/v1/transfers/" + tr.ID + "/receipts"
	h.must("POST", receipts, "flow-transfer-receipt-1", `{"quantity":2}`, http.StatusOK, &tr)
	h.must("POST", receipts, "flow-transfer-receipt-1", `{"quantity":2}`, http.StatusOK, &tr)
	if tr.Received != 2 || tr.Outstanding != 3 || tr.Receipts != 1 {
		h.t.Fatalf("after one receipt and its retry: %+v", tr)
	}
	h.refuse("POST", receipts, "flow-transfer-receipt-too-many", `{"quantity":4}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", "/v1/transfers/nope/receipts", "flow-transfer-receipt-unknown", `{"quantity":1}`, http.StatusNotFound, stockd.CodeNotFound)
	var l1 Stock
	h.must("GET", "/v1/stock/F", "", "", http.StatusOK, &l1)
	for _, p := range l1.Positions {
		if p.Location == "flow-L1" && (p.InTransit != 3 || p.OnHand != 2 || p.Available != 2) {
			h.t.Fatalf("L1 during the transfer: %+v, want 3 in transit, 2 on hand and available", p)
		}
	}
	var moving, arrived Transfer
	h.must("POST", "/v1/transfers", "flow-transfer-2", `{"sku":"F","from_location":"default","to_location":"flow-L1","quantity":1}`, http.StatusCreated, &moving)
	h.must("POST", "/v1/transfers/"+moving.ID+"/cancel", "flow-transfer-2-cancel", "", http.StatusOK, &moving)
	h.must("POST", "/v1/transfers/"+moving.ID+"/cancel", "flow-transfer-2-cancel-again", "{}", http.StatusOK, nil)
	if moving.Status != "cancelled" || moving.Cancelled != 1 || moving.Outstanding != 0 {
		h.t.Fatalf("cancelled transfer: %+v", moving)
	}
	h.refuse("POST", "/v1/transfers/"+moving.ID+"/receipts", "flow-transfer-2-receipt", `{"quantity":1}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", "/v1/transfers/nope/cancel", "flow-transfer-cancel-unknown", "", http.StatusNotFound, stockd.CodeNotFound)
	h.must("POST", "/v1/transfers", "flow-transfer-3", `{"sku":"F","from_location":"default","to_location":"flow-L1","quantity":1}`, http.StatusCreated, &arrived)
	h.must("POST", "/v1/transfers/"+arrived.ID+"/receipts", "flow-transfer-3-receipt", `{"quantity":1}`, http.StatusOK, nil)
	h.refuse("POST", "/v1/transfers/"+arrived.ID+"/cancel", "flow-transfer-3-cancel", "", http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	h.must("GET", "/v1/transfers/"+tr.ID, "", "", http.StatusOK, nil)
	h.refuse("GET", "/v1/transfers/nope", "", "", http.StatusNotFound, stockd.CodeNotFound)
	h.refuse("GET", "/v1/transfers/a%3Bb", "", "", http.StatusBadRequest, stockd.CodeInvalidInput)

	// Purchase orders.
	order := `{"id":"PO-1","supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"F","quantity":10},{"sku":"S","location":"flow-L1","quantity":3}]}`
	var po PurchaseOrder
	h.must("POST", "/v1/purchase-orders", "flow-po-1", order, http.StatusCreated, &po)
	if po.Status != "open" || len(po.Lines) != 2 || po.Lines[0].Open != 10 {
		h.t.Fatalf("purchase order: %+v", po)
	}
	h.refuse("POST", "/v1/purchase-orders", "flow-po-again", order, http.StatusConflict, stockd.CodeAlreadyExists)
	h.refuse("POST", "/v1/purchase-orders", "flow-po-closed", `{"supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"F","location":"flow-closed","quantity":1}]}`, http.StatusConflict, stockd.CodeLocationInactive)
	h.refuse("POST", "/v1/purchase-orders", "flow-po-unknown-sku", `{"supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"NOPE","quantity":1}]}`, http.StatusNotFound, stockd.CodeUnknownSKU)
	h.refuse("POST", "/v1/purchase-orders", "flow-po-unknown-location", `{"supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"F","location":"nowhere","quantity":1}]}`, http.StatusNotFound, stockd.CodeUnknownLocation)
	h.refuse("POST", "/v1/purchase-orders", "flow-po-no-date", `{"supplier":"Acme","lines":[{"sku":"F","quantity":1}]}`, http.StatusBadRequest, stockd.CodeInvalidInput)
	poReceipts := "/v1/purchase-orders/PO-1/receipts"
	h.must("POST", poReceipts, "flow-po-receipt-1", `{"lines":[{"sku":"F","quantity":4}],"reference":"DN-9"}`, http.StatusOK, &po)
	if po.Lines[0].Received != 4 || po.Lines[0].Open != 6 || po.Receipts != 1 {
		h.t.Fatalf("after a receipt: %+v", po)
	}
	h.refuse("POST", poReceipts, "flow-po-receipt-too-many", `{"lines":[{"sku":"F","quantity":7}]}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", poReceipts, "flow-po-receipt-other", `{"lines":[{"sku":"S","quantity":1}]}`, http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	h.refuse("POST", "/v1/purchase-orders/nope/receipts", "flow-po-receipt-unknown", `{"lines":[{"sku":"F","quantity":1}]}`, http.StatusNotFound, stockd.CodeNotFound)
	h.must("GET", "/v1/purchase-orders/PO-1", "", "", http.StatusOK, nil)
	h.refuse("GET", "/v1/purchase-orders/nope", "", "", http.StatusNotFound, stockd.CodeNotFound)
	h.refuse("GET", "/v1/purchase-orders/a%3Bb", "", "", http.StatusBadRequest, stockd.CodeInvalidInput)
	h.must("POST", "/v1/purchase-orders/PO-1/cancel", "flow-po-cancel", "", http.StatusOK, &po)
	h.must("POST", "/v1/purchase-orders/PO-1/cancel", "flow-po-cancel-again", "{}", http.StatusOK, nil)
	if po.Status != "cancelled" || po.Lines[0].Open != 0 {
		h.t.Fatalf("cancelled: %+v", po)
	}
	h.refuse("POST", poReceipts, "flow-po-receipt-cancelled", `{"lines":[{"sku":"F","quantity":1}]}`, http.StatusConflict, stockd.CodeQuantityExceeded)
	h.refuse("POST", "/v1/purchase-orders/nope/cancel", "flow-po-cancel-unknown", "", http.StatusNotFound, stockd.CodeNotFound)
	h.must("POST", "/v1/purchase-orders", "flow-po-2", `{"id":"PO-2","supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"S","quantity":1}]}`, http.StatusCreated, nil)
	h.must("POST", "/v1/purchase-orders/PO-2/receipts", "flow-po-2-receipt", `{"lines":[{"sku":"S","quantity":1}]}`, http.StatusOK, &po)
	if po.Status != "received" {
		h.t.Fatalf("fully received: %+v", po)
	}
	h.refuse("POST", "/v1/purchase-orders/PO-2/cancel", "flow-po-2-cancel", "", http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
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
		exerciseKeys(h)
		requireFlowCoverage(t, loadContract(t), append(h.recorded(), exerciseRateLimits(t, b)...))
	})
}

// requireFlowCoverage is requireCoverage for the paths of the flow
// fragment, and for the codes new with them.
func requireFlowCoverage(t *testing.T, c *contract, exchanges []exchange) {
	t.Helper()
	var frag struct {
		Paths map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	raw, err := openAPIFiles.ReadFile("openapi/flow.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &frag); err != nil {
		t.Fatal(err)
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

// TestFlowClient walks the flow through the Go client: the same contract,
// the errors surfacing as codes.
func TestFlowClient(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		ctx := t.Context()
		c := NewClient(h.url, fastRetries, WithActor("clerk"))
		h.seed(10, "A")
		if _, err := c.CreateLocation(ctx, CreateLocationParams{Location: "L1", Priority: 1}); err != nil {
			t.Fatal(err)
		}
		res, err := c.Reserve(ctx, ReserveParams{Lines: []ReserveLine{{SKU: "A", Quantity: 3, Location: "default"}}, Commit: true})
		if err != nil {
			t.Fatal(err)
		}
		refund, err := c.Return(ctx, ReturnParams{IdempotencyKey: "refund", ReservationID: res.ID, Lines: []ReturnLine{{SKU: "A", Quantity: 1}}})
		if err != nil || refund.Type != "refund" || refund.Reservation.Lines[0].Refunded != 1 {
			t.Fatalf("Return: %+v, %v", refund, err)
		}
		if again, err := c.Return(ctx, ReturnParams{IdempotencyKey: "refund", ReservationID: res.ID, Lines: []ReturnLine{{SKU: "A", Quantity: 1}}}); err != nil || !again.Replayed || again.ID != refund.ID {
			t.Fatalf("Return again: %+v, %v; want a replay", again, err)
		}
		_, err = c.Return(ctx, ReturnParams{ReservationID: res.ID, Lines: []ReturnLine{{SKU: "A", Quantity: 3}}})
		requireCode(t, err, stockd.CodeQuantityExceeded)
		if _, err := c.Fulfil(ctx, FulfilParams{ID: res.ID}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Return(ctx, ReturnParams{ReservationID: res.ID, Lines: []ReturnLine{{SKU: "A", Quantity: 2}}}); err != nil {
			t.Fatal(err)
		}
		if p, err := c.ReleaseQuarantine(ctx, QuarantineParams{SKU: "A", Quantity: 1}); err != nil || p.Quarantined != 1 {
			t.Fatalf("ReleaseQuarantine: %+v, %v", p, err)
		}
		if p, err := c.ScrapQuarantine(ctx, QuarantineParams{SKU: "A", Quantity: 1}); err != nil || p.Quarantined != 0 || p.OnHand != 9 {
			t.Fatalf("ScrapQuarantine: %+v, %v", p, err)
		}
		if p, err := c.Move(ctx, MoveParams{SKU: "A", From: "available", To: "quarantined", Quantity: 2}); err != nil || p.Quarantined != 2 {
			t.Fatalf("Move: %+v, %v", p, err)
		}
		_, err = c.Ship(ctx, ShipParams{Lines: []ShipmentLine{{SKU: "A", Quantity: 1}}})
		requireCode(t, err, stockd.CodeDeductionTiming)

		tr, err := c.Transfer(ctx, TransferParams{SKU: "A", FromLocation: "default", ToLocation: "L1", Quantity: 4})
		if err != nil || tr.Outstanding != 4 {
			t.Fatalf("Transfer: %+v, %v", tr, err)
		}
		if tr, err = c.ReceiveTransfer(ctx, ReceiveTransferParams{TransferID: tr.ID, Quantity: 4}); err != nil || tr.Status != "received" {
			t.Fatalf("ReceiveTransfer: %+v, %v", tr, err)
		}
		if got, err := c.GetTransfer(ctx, tr.ID); err != nil || got.Received != 4 {
			t.Fatalf("GetTransfer: %+v, %v", got, err)
		}
		_, err = c.ReceiveTransfer(ctx, ReceiveTransferParams{TransferID: tr.ID, Quantity: 1})
		requireCode(t, err, stockd.CodeQuantityExceeded)
		back, err := c.Transfer(ctx, TransferParams{SKU: "A", FromLocation: "default", ToLocation: "L1", Quantity: 1})
		if err != nil {
			t.Fatal(err)
		}
		if back, err = c.CancelTransfer(ctx, back.ID, ""); err != nil || back.Status != "cancelled" || back.Cancelled != 1 {
			t.Fatalf("CancelTransfer: %+v, %v", back, err)
		}

		po, err := c.CreatePurchaseOrder(ctx, CreatePurchaseOrderParams{Supplier: "Acme", ExpectedAt: time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC),
			Lines: []PurchaseOrderLineParams{{SKU: "A", Location: "L1", Quantity: 5}}})
		if err != nil || po.Lines[0].Open != 5 {
			t.Fatalf("CreatePurchaseOrder: %+v, %v", po, err)
		}
		if po, err = c.ReceivePurchaseOrder(ctx, ReceivePurchaseOrderParams{OrderID: po.ID, Lines: []PurchaseOrderLineParams{{SKU: "A", Location: "L1", Quantity: 2}}}); err != nil || po.Lines[0].Received != 2 {
			t.Fatalf("ReceivePurchaseOrder: %+v, %v", po, err)
		}
		if po, err = c.CancelPurchaseOrder(ctx, po.ID, ""); err != nil || po.Status != "cancelled" {
			t.Fatalf("CancelPurchaseOrder: %+v, %v", po, err)
		}
		if got, err := c.GetPurchaseOrder(ctx, po.ID); err != nil || got.Status != "cancelled" {
			t.Fatalf("GetPurchaseOrder: %+v, %v", got, err)
		}
		stock, err := c.Stock(ctx, "A")
		if err != nil {
			t.Fatal(err)
		}
		// 10 received, 2 shipped then returned, 1 scrapped; 4 moved to L1
		// and 2 received there from the order.
		if want := (Balance{OnHand: 11, Quarantined: 2, Available: 9}); stock.Totals != want {
			t.Fatalf("stock totals %+v, want %+v", stock.Totals, want)
		}
	})
}
