package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/reconcile"
)

// plantDrift writes on_hand straight into a position, bypassing the engine
// and the ledger.
func (h *harness) plantDrift(sku string, onHand int64) {
	h.t.Helper()
	h.plantCounters(sku, stockd.Counters{OnHand: onHand})
}

// plantCounters writes every counter of sku's default position straight
// into the snapshot, bypassing the engine and the ledger.
func (h *harness) plantCounters(sku string, counters stockd.Counters) {
	h.t.Helper()
	ctx := context.Background()
	tx, err := h.store.Begin(ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	k := stockd.PositionKey{SKU: sku, Location: stockd.LocationDefault, Pool: stockd.PoolDefault}
	if err := tx.Write(ctx, &stockd.BatchWrites{Positions: []stockd.Position{{PositionKey: k, Counters: counters}}}); err != nil {
		h.t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		h.t.Fatal(err)
	}
}

// minutePass runs the reconciliation's minute pass on the harness's store.
func (h *harness) minutePass() reconcile.Result {
	h.t.Helper()
	res, err := reconcile.New(reconcile.Config{Store: h.store, Now: h.clock.Now, Logger: discard()}).Minute(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

// exerciseDiscrepancies finds a drift, lists and reads it, refuses
// adjustments that name it wrongly, resolves it with one that names it,
// and sees it closed: every answer the discrepancy endpoints and the
// adjustment's discrepancy_id document.
func exerciseDiscrepancies(h *harness) {
	h.t.Helper()
	h.seed(10, "DRIFT", "OTHER")
	h.minutePass()
	h.must("POST", "/v1/receipts", "drift-receipt", `{"sku":"DRIFT","quantity":2}`, http.StatusOK, nil)
	h.plantDrift("DRIFT", 15)
	if res := h.minutePass(); len(res.Findings) != 2 {
		h.t.Fatalf("minute pass found %+v, want the drift", res.Findings)
	}
	var page DiscrepancyPage
	h.must("GET", "/v1/discrepancies?status=open&sku=DRIFT&kind=ledger_last&limit=10", "", "", http.StatusOK, &page)
	if len(page.Discrepancies) != 1 {
		h.t.Fatalf("open ledger_last discrepancies of DRIFT = %+v, want 1", page)
	}
	d := page.Discrepancies[0]
	if d.Expected.OnHand != 12 || d.Actual.OnHand != 15 || d.Status != stockd.DiscrepancyOpen || d.SKU != "DRIFT" || page.NextAfter != d.ID {
		h.t.Fatalf("discrepancy = %+v (next_after %d), want DRIFT expected 12, actual 15, open", d, page.NextAfter)
	}
	id := strconv.FormatInt(d.ID, 10)
	var got Discrepancy
	h.must("GET", "/v1/discrepancies/"+id, "", "", http.StatusOK, &got)
	if got != d {
		h.t.Fatalf("GET by id = %+v, want %+v", got, d)
	}
	h.must("GET", "/v1/discrepancies?after="+id, "", "", http.StatusOK, nil)

	adjust := func(key, sku string, discrepancy int64, status int, code string) {
		h.t.Helper()
		body := fmt.Sprintf(`{"sku":%q,"reason":"correction","set_on_hand":12,"expected_on_hand":15,"discrepancy_id":%d}`, sku, discrepancy)
		if code != "" {
			h.refuse("POST", "/v1/adjustments", key, body, status, code)
			return
		}
		h.must("POST", "/v1/adjustments", key, body, status, nil)
	}
	adjust("resolve-unknown", "DRIFT", 9999, http.StatusNotFound, stockd.CodeUnknownDiscrepancy)
	adjust("resolve-elsewhere", "OTHER", d.ID, http.StatusUnprocessableEntity, stockd.CodeUnprocessable)
	adjust("resolve-negative", "DRIFT", -1, http.StatusBadRequest, stockd.CodeInvalidInput)
	for _, fault := range []string{faultInternal, faultDown} {
		h.sendHeaders("POST", "/v1/adjustments", []byte(`{"sku":"DRIFT","reason":"found","delta":1,"discrepancy_id":`+id+`}`),
			map[string]string{headerIdempotencyKey: "resolve-fault-" + fault, headerTestFault: fault})
	}
	adjust("resolve", "DRIFT", d.ID, http.StatusOK, "")
	var ledger LedgerPage
	h.must("GET", "/v1/ledger?sku=DRIFT", "", "", http.StatusOK, &ledger)
	if last := ledger.Entries[len(ledger.Entries)-1]; last.Type != stockd.BusinessReconciliation || last.Reference != "discrepancy:"+id {
		h.t.Fatalf("resolving entry = %+v, want a reconciliation naming discrepancy %s", last, id)
	}
	h.clock.Advance(time.Minute)
	if res := h.minutePass(); !res.Clean() || res.Runs[0].Closed != 2 {
		h.t.Fatalf("pass after the resolution = %+v, want clean with 2 closed", res)
	}
	h.must("GET", "/v1/discrepancies/"+id, "", "", http.StatusOK, &got)
	if got.Status != stockd.DiscrepancyClosed || got.ClosedAt == nil || got.ClosedByRun == 0 {
		h.t.Fatalf("resolved discrepancy = %+v, want closed", got)
	}
	// The same adjustment again replays; a new one naming the closed
	// discrepancy is refused.
	adjust("resolve", "DRIFT", d.ID, http.StatusOK, "")
	adjust("resolve-again", "DRIFT", d.ID, http.StatusConflict, stockd.CodeDiscrepancyClosed)
	h.must("GET", "/v1/discrepancies?status=closed", "", "", http.StatusOK, &page)
	if len(page.Discrepancies) != 2 {
		h.t.Fatalf("closed discrepancies = %+v, want 2", page)
	}
}

// TestDiscrepancies: the discrepancy endpoints and the resolving
// adjustment, through the typed client too, on both databases.
func TestDiscrepancies(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		exerciseDiscrepancies(h)
		c := NewClient(h.url, fastRetries)
		page, err := c.Discrepancies(context.Background(), DiscrepanciesParams{Status: stockd.DiscrepancyClosed, SKU: "DRIFT", Limit: 1})
		if err != nil || len(page.Discrepancies) != 1 {
			t.Fatalf("client page = %+v, %v; want 1", page, err)
		}
		next, err := c.Discrepancies(context.Background(), DiscrepanciesParams{Status: stockd.DiscrepancyClosed, After: page.NextAfter})
		if err != nil || len(next.Discrepancies) != 1 || next.Discrepancies[0].ID <= page.NextAfter {
			t.Fatalf("client next page = %+v, %v; want the other one", next, err)
		}
		d, err := c.Discrepancy(context.Background(), page.Discrepancies[0].ID)
		if want := page.Discrepancies[0]; err != nil || d.ID != want.ID || d.Status != want.Status || !d.ClosedAt.Equal(*want.ClosedAt) {
			t.Fatalf("client get = %+v, %v", d, err)
		}
		_, err = c.Discrepancy(context.Background(), 9999)
		requireCode(t, err, stockd.CodeUnknownDiscrepancy)
	})
}
