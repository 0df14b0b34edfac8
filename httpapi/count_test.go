package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// exerciseCounts sends a count taken before a shipment, one short, and one
// that agrees, and every refusal POST /v1/counts documents.
func exerciseCounts(h *harness) {
	h.t.Helper()
	h.seed(10, "COUNTED")
	countedAt := h.clock.Now().UTC().Format(time.RFC3339Nano)
	h.clock.Advance(time.Minute)
	var order Reservation
	h.must("POST", "/v1/reservations", "count-order", `{"lines":[{"sku":"COUNTED","quantity":4}],"commit":true}`, http.StatusCreated, &order)
	h.must("POST", "/v1/reservations/"+order.ID+"/fulfil", "count-ship", "{}", http.StatusOK, nil)
	count := func(counted int64, at string) CountResult {
		h.t.Helper()
		var res CountResult
		h.must("POST", "/v1/counts", "", fmt.Sprintf(`{"rows":[{"sku":"COUNTED","counted_on_hand":%d,"counted_at":%q}]}`, counted, at), http.StatusOK, &res)
		return res
	}
	if res := count(10, countedAt); len(res.Findings) != 0 || res.Checked != 1 || res.Run == 0 {
		h.t.Fatalf("a right count taken before the shipment = %+v, want clean", res)
	}
	res := count(8, countedAt)
	if len(res.Findings) != 1 || res.Findings[0].Kind != stockd.DiscrepancyCount || res.Findings[0].Expected.OnHand != 10 || res.Opened != 1 {
		h.t.Fatalf("a count two short = %+v, want a count_mismatch against 10", res)
	}
	var page DiscrepancyPage
	h.must("GET", "/v1/discrepancies?kind=count_mismatch&status=open", "", "", http.StatusOK, &page)
	if len(page.Discrepancies) != 1 || page.Discrepancies[0].Subject == "" {
		h.t.Fatalf("open count mismatches = %+v, want the one", page)
	}
	if res := count(6, h.clock.Now().UTC().Format(time.RFC3339Nano)); len(res.Findings) != 0 || res.Closed != 1 {
		h.t.Fatalf("a right count now = %+v, want clean with the mismatch closed", res)
	}
	// The mismatch's opening and closing are events on the ledger, at
	// its position.
	id := fmt.Sprint(page.Discrepancies[0].ID)
	for _, typ := range []string{stockd.NoticeDiscrepancyOpened, stockd.NoticeDiscrepancyClosed} {
		var notices LedgerPage
		h.must("GET", "/v1/ledger?sku=COUNTED&type="+typ, "", "", http.StatusOK, &notices)
		if len(notices.Entries) != 1 || notices.Entries[0].BusinessID != typ+":"+id || notices.Entries[0].Location != stockd.LocationDefault {
			h.t.Fatalf("%s events = %+v, want the one of discrepancy %s", typ, notices, id)
		}
	}

	future := h.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, c := range []struct {
		body   string
		status int
		code   string
	}{
		{`{"rows":[{"sku":"NOPE","counted_on_hand":1,"counted_at":"` + countedAt + `"}]}`, http.StatusNotFound, stockd.CodeUnknownSKU},
		{`{"rows":[]}`, http.StatusBadRequest, stockd.CodeInvalidInput},
		{`{"rows":[{"sku":"COUNTED","counted_on_hand":1}]}`, http.StatusBadRequest, stockd.CodeInvalidInput},
		{`{"rows":[{"sku":"COUNTED","counted_on_hand":-1,"counted_at":"` + countedAt + `"}]}`, http.StatusBadRequest, stockd.CodeInvalidInput},
		{`{"rows":[{"sku":"COUNTED","counted_on_hand":1,"counted_at":"` + future + `"}]}`, http.StatusBadRequest, stockd.CodeInvalidInput},
		{`{"rows":[{"sku":"COUNTED","counted_on_hand":1,"counted_at":"yesterday"}]}`, http.StatusBadRequest, stockd.CodeInvalidJSON},
		{`{"rows":[{"sku":"COUNTED","bin":"A1","counted_on_hand":1,"counted_at":"` + countedAt + `"}]}`, http.StatusBadRequest, stockd.CodeInvalidJSON},
		{`{"pad":"` + strings.Repeat("r", stockd.BodySizeMax) + `"}`, http.StatusRequestEntityTooLarge, stockd.CodeBodyTooLarge},
	} {
		h.refuse("POST", "/v1/counts", "", c.body, c.status, c.code)
	}
	h.sendHeaders("POST", "/v1/counts", []byte(`sku,location`), map[string]string{"Content-Type": "text/csv"})
	for _, fault := range []string{faultInternal, faultDown} {
		h.sendHeaders("POST", "/v1/counts", []byte(`{"rows":[{"sku":"COUNTED","counted_on_hand":1,"counted_at":"`+countedAt+`"}]}`),
			map[string]string{headerTestFault: fault})
	}
}

// TestCounts: POST /v1/counts on both databases.
func TestCounts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		exerciseCounts(newHarness(t, b))
	})
}

// TestCountRowsBounded: more rows than CountRowsMax that fit in the body
// are refused before any is compared.
func TestCountRowsBounded(t *testing.T) {
	h := newHarness(t, testdb.Backends()[0])
	h.seed(1, "A")
	short := `{"sku":"A","counted_on_hand":1,"counted_at":"2026-01-01T00:00:00Z"}`
	body := `{"rows":[` + strings.TrimSuffix(strings.Repeat(short+",", stockd.CountRowsMax+1), ",") + `]}`
	if len(body) > stockd.BodySizeMax {
		t.Skipf("%d rows do not fit in a body of %d bytes: the body limit bounds them first", stockd.CountRowsMax+1, stockd.BodySizeMax)
	}
	h.refuse("POST", "/v1/counts", "", body, http.StatusBadRequest, stockd.CodeInvalidInput)
}
