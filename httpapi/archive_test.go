package httpapi

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/archive"
	"github.com/stockd/stockd/internal/testdb"
)

// TestStockAsOfArchived: once the ledger is archived before a month's
// start, GET /v1/stock/{sku}?as_of= at the cut answers from the
// checkpoints, before it 400 as_of_archived, after it from the entries
// left.
func TestStockAsOfArchived(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		exerciseArchived(t, b)
	})
}

// exerciseArchived runs a server whose ledger is archived (see
// TestStockAsOfArchived) and returns the exchanges.
func exerciseArchived(t *testing.T, b testdb.Backend) []exchange {
	t.Helper()
	h := newHarness(t, b)
	h.seed(10, "A")
	h.must("POST", "/v1/reservations", "archived-order", `{"lines":[{"sku":"A","quantity":3}],"commit":true}`, http.StatusCreated, nil)
	start := h.clock.Now().UTC()
	cut := time.Date(start.Year(), start.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	h.clock.Advance(cut.Sub(start) + time.Hour)
	h.must("POST", "/v1/receipts", "archived-later", `{"sku":"A","quantity":5}`, http.StatusOK, nil)

	// The clock of the archive is a keep-days later than the server's, so
	// that a cut one hour back may be archived.
	later := func() time.Time { return h.clock.Now().AddDate(0, 0, stockd.LedgerArchiveKeepDaysDefault) }
	res, err := archive.Run(t.Context(), archive.Config{Store: h.store, Before: cut, Out: filepath.Join(t.TempDir(), "ledger.jsonl"), Now: later})
	// The receipt with its two derived events (position and pool back in
	// stock), the hold and its confirm.
	if err != nil || res.Archive.Entries != 5 || res.Archive.Positions != 1 || res.Replaced != 1 {
		t.Fatalf("archive = %+v, %v; want 5 entries of 1 position", res, err)
	}

	asOf := func(at time.Time) string { return "/v1/stock/A?as_of=" + url.QueryEscape(at.Format(time.RFC3339Nano)) }
	var atCut Stock
	h.must("GET", asOf(cut), "", "", http.StatusOK, &atCut)
	if got := atCut.Totals; got.OnHand != 10 || got.Committed != 3 || got.Available != 7 {
		t.Errorf("as of the cut: totals %+v; want the checkpoint's 10 on hand, 3 committed", got)
	}
	a := h.must("GET", asOf(cut.Add(-time.Second)), "", "", http.StatusBadRequest, nil)
	if p := a.problem(t); p.Code != stockd.CodeAsOfArchived || p.Field != "as_of" {
		t.Errorf("as of before the cut: %+v; want as_of_archived on as_of", p)
	}
	var now Stock
	h.must("GET", asOf(h.clock.Now()), "", "", http.StatusOK, &now)
	if got := now.Totals; got.OnHand != 15 || got.Committed != 3 {
		t.Errorf("as of now: totals %+v; want 15 on hand, 3 committed", got)
	}
	var ledger LedgerPage
	h.must("GET", "/v1/ledger?sku=A", "", "", http.StatusOK, &ledger)
	if len(ledger.Entries) != 2 || ledger.Entries[0].Type != stockd.BusinessCheckpoint {
		t.Errorf("ledger after the archive: %+v; want the checkpoint and the later receipt", ledger.Entries)
	}

	// A webhook redelivery from before the cut would pass over the
	// archived entries in silence.
	var hook CreatedWebhook
	h.must("POST", "/v1/webhooks", "archived-webhook", `{"url":"https://hooks.example.com/stockd","event_types":["receipt"]}`, http.StatusCreated, &hook)
	redeliver := func(from int64) string { return `{"from_seq":` + strconv.FormatInt(from, 10) + `}` }
	h.must("POST", "/v1/webhooks/"+hook.ID+"/redeliver", "archived-redeliver-1", redeliver(res.Archive.CutSeq), http.StatusBadRequest, nil).
		wantCode(t, stockd.CodeInvalidInput)
	h.must("POST", "/v1/webhooks/"+hook.ID+"/redeliver", "archived-redeliver-2", redeliver(res.Archive.CutSeq+1), http.StatusOK, nil)
	return h.recorded()
}
