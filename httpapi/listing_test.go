package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// exerciseListings: GET /v1/transfers and /v1/purchase-orders page by id,
// on what exerciseFlow made; GET /v1/audit-events answers on the open
// server (TestAuditEventList reads a trail with entries).
func exerciseListings(h *harness) {
	h.t.Helper()
	var transfers TransferList
	h.must("GET", "/v1/transfers", "", "", http.StatusOK, &transfers)
	if len(transfers.Transfers) < 2 {
		h.t.Fatalf("transfers = %+v, want those of the flow", transfers)
	}
	var first TransferList
	h.must("GET", "/v1/transfers?limit=1", "", "", http.StatusOK, &first)
	if len(first.Transfers) != 1 || first.NextAfter != first.Transfers[0].ID || first.Transfers[0].ID != transfers.Transfers[0].ID {
		h.t.Fatalf("first page of transfers = %+v", first)
	}
	var rest TransferList
	h.must("GET", "/v1/transfers?after="+first.NextAfter, "", "", http.StatusOK, &rest)
	if len(rest.Transfers) != len(transfers.Transfers)-1 {
		h.t.Fatalf("transfers after %s = %d, want %d", first.NextAfter, len(rest.Transfers), len(transfers.Transfers)-1)
	}
	var cancelled, open PurchaseOrderList
	h.must("GET", "/v1/purchase-orders?status=cancelled", "", "", http.StatusOK, &cancelled)
	h.must("GET", "/v1/purchase-orders?status=open&limit=1000", "", "", http.StatusOK, &open)
	if len(cancelled.PurchaseOrders) == 0 {
		h.t.Fatal("no cancelled purchase order listed, though the flow cancelled PO-1")
	}
	for _, po := range cancelled.PurchaseOrders {
		if po.Status != "cancelled" {
			h.t.Fatalf("status=cancelled listed %+v", po)
		}
	}
	for _, po := range open.PurchaseOrders {
		if po.Status != "open" {
			h.t.Fatalf("status=open listed %+v", po)
		}
	}
	h.must("GET", "/v1/audit-events?limit=10", "", "", http.StatusOK, nil)
	for _, path := range []string{"/v1/transfers", "/v1/purchase-orders", "/v1/audit-events"} {
		h.must("GET", path+"?limit=0", "", "", http.StatusBadRequest, nil)
		h.expect("GET", path, "", http.StatusInternalServerError, map[string]string{headerTestFault: faultInternal})
		h.expect("GET", path, "", http.StatusServiceUnavailable, map[string]string{headerTestFault: faultCancelled})
	}
}

// TestAuditEventList: the trail lists what keys did and were refused, in
// id order, to an admin key only.
func TestAuditEventList(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		_, admin := h.storeKey("admin", stockd.ScopeAdmin)
		_, reader := h.storeKey("reader", stockd.ScopeRead)
		h.expect("POST", "/v1/skus", `{"sku":"A"}`, http.StatusForbidden, bearer(reader, headerIdempotencyKey, "sku-a"))
		h.expect("GET", "/v1/audit-events", "", http.StatusForbidden, bearer(reader))
		a := h.expect("GET", "/v1/audit-events", "", http.StatusOK, bearer(admin))
		var all AuditEventList
		if err := json.Unmarshal(a.body, &all); err != nil {
			t.Fatal(err)
		}
		if len(all.Events) != 2 || all.Events[0].Outcome != stockd.AuditOutcomeForbidden || all.NextAfter != all.Events[1].ID {
			t.Fatalf("trail = %+v, want the two refusals, in order", all)
		}
		a = h.expect("GET", "/v1/audit-events?after="+strconv.FormatInt(all.Events[0].ID, 10)+"&limit=1", "", http.StatusOK, bearer(admin))
		var page AuditEventList
		if err := json.Unmarshal(a.body, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Events) != 1 || page.Events[0].ID != all.Events[1].ID {
			t.Fatalf("page after %d = %+v", all.Events[0].ID, page)
		}
	})
}

// TestClientListings: the client's listing methods read what the server
// lists, filters included.
func TestClientListings(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		h.must("POST", "/v1/locations", "loc-east", `{"location":"east","priority":1}`, http.StatusCreated, nil)
		var tr Transfer
		h.must("POST", "/v1/transfers", "tr-1", `{"sku":"A","from_location":"default","to_location":"east","quantity":2}`, http.StatusCreated, &tr)
		h.must("POST", "/v1/purchase-orders", "po-1", `{"id":"PO-9","supplier":"Acme","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"A","quantity":3}]}`, http.StatusCreated, nil)
		c := NewClient(h.url, fastRetries)
		ctx := t.Context()
		transfers, err := c.Transfers(ctx, "", 0)
		if err != nil || len(transfers.Transfers) != 1 || transfers.Transfers[0].ID != tr.ID {
			t.Fatalf("Transfers = %+v, %v", transfers, err)
		}
		if pos, err := c.PurchaseOrders(ctx, "open", "", 10); err != nil || len(pos.PurchaseOrders) != 1 || pos.PurchaseOrders[0].ID != "PO-9" {
			t.Fatalf("PurchaseOrders(open) = %+v, %v", pos, err)
		}
		if pos, err := c.PurchaseOrders(ctx, "cancelled", "", 0); err != nil || len(pos.PurchaseOrders) != 0 {
			t.Fatalf("PurchaseOrders(cancelled) = %+v, %v", pos, err)
		}
		page, err := c.Ledger(ctx, LedgerParams{BusinessID: tr.ID, Type: stockd.BusinessTransfer})
		if err != nil || len(page.Entries) == 0 {
			t.Fatalf("Ledger of transfer %s = %+v, %v", tr.ID, page, err)
		}
		for _, e := range page.Entries {
			if e.BusinessID != tr.ID || e.Type != stockd.BusinessTransfer {
				t.Fatalf("Ledger of transfer %s listed %+v", tr.ID, e)
			}
		}
		if st, err := c.StockList(ctx, StockListParams{Location: "east", Below: 3, HasBelow: true}); err != nil || len(st.Stock) != 1 || st.Stock[0].Totals.InTransit != 2 || st.Stock[0].SKU != "A" {
			t.Fatalf("StockList(east, below 3) = %+v, %v; want A, with its 2 units still in transit", st, err)
		}
		if st, err := c.StockList(ctx, StockListParams{Below: 3, HasBelow: true}); err != nil || len(st.Stock) != 0 {
			t.Fatalf("StockList(below 3) = %+v, %v; want none: A has 8 available", st, err)
		}
		if events, err := c.AuditEvents(ctx, 0, 0); err != nil || len(events.Events) != 0 || events.NextAfter != 0 {
			t.Fatalf("AuditEvents on an open server = %+v, %v", events, err)
		}
	})
}

// exerciseStockList: GET /v1/stock over many SKUs, by location, pool and
// level.
func exerciseStockList(h *harness) {
	h.t.Helper()
	h.must("POST", "/v1/skus", "sl-sku-1", `{"sku":"SL-1"}`, http.StatusCreated, nil)
	h.must("POST", "/v1/skus", "sl-sku-2", `{"sku":"SL-2"}`, http.StatusCreated, nil)
	h.must("POST", "/v1/skus", "sl-sku-3", `{"sku":"SL-3"}`, http.StatusCreated, nil)
	h.must("POST", "/v1/locations", "sl-loc", `{"location":"sl-east","priority":7}`, http.StatusCreated, nil)
	h.must("POST", "/v1/receipts", "sl-rcv-1", `{"sku":"SL-1","quantity":9}`, http.StatusOK, nil)
	h.must("POST", "/v1/receipts", "sl-rcv-1e", `{"sku":"SL-1","location":"sl-east","quantity":1}`, http.StatusOK, nil)
	h.must("POST", "/v1/receipts", "sl-rcv-2", `{"sku":"SL-2","location":"sl-east","quantity":3}`, http.StatusOK, nil)
	list := func(query string) StockList {
		h.t.Helper()
		var out StockList
		h.must("GET", "/v1/stock?"+query, "", "", http.StatusOK, &out)
		return out
	}
	got := list("after=SL-0&limit=3")
	if len(got.Stock) != 3 || got.Stock[0].SKU != "SL-1" || got.Stock[0].Totals.Available != 10 || got.Stock[2].Totals.Available != 0 || got.NextAfter != "SL-3" {
		h.t.Fatalf("stock of SL-1..3 = %+v", got)
	}
	east := list("after=SL-0&limit=3&location=sl-east")
	if len(east.Stock) != 3 || east.Stock[0].Totals.Available != 1 || len(east.Stock[0].Positions) != 1 || east.Stock[1].Totals.Available != 3 {
		h.t.Fatalf("stock at sl-east = %+v", east)
	}
	low := list("after=SL-0&limit=3&location=sl-east&pool=normal&below=2")
	if len(low.Stock) != 2 || low.Stock[0].SKU != "SL-1" || low.Stock[1].SKU != "SL-3" {
		h.t.Fatalf("SL-1..3 below 2 at sl-east = %+v, want SL-1 (1) and SL-3 (never stocked)", low)
	}
	h.expect("GET", "/v1/stock", "", http.StatusInternalServerError, map[string]string{headerTestFault: faultInternal})
	h.expect("GET", "/v1/stock", "", http.StatusServiceUnavailable, map[string]string{headerTestFault: faultCancelled})
}
