package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/internal/testdb"
)

// openDiscrepancy returns the open discrepancy of kind at sku's default
// position.
func (h *harness) openDiscrepancy(sku, kind string) Discrepancy {
	h.t.Helper()
	var page DiscrepancyPage
	h.must("GET", "/v1/discrepancies?status=open&sku="+sku+"&kind="+kind, "", "", http.StatusOK, &page)
	if len(page.Discrepancies) != 1 {
		h.t.Fatalf("open %s discrepancies of %s = %+v, want 1", kind, sku, page)
	}
	return page.Discrepancies[0]
}

// position reads sku's default position.
func (h *harness) position(sku string) Balance {
	h.t.Helper()
	var s Stock
	h.must("GET", "/v1/stock/"+sku, "", "", http.StatusOK, &s)
	if len(s.Positions) != 1 {
		h.t.Fatalf("stock of %s = %+v, want one position", sku, s)
	}
	return s.Positions[0].Balance
}

// verifyClean runs the audit on the harness's store and fails on any
// difference.
func (h *harness) verifyClean() {
	h.t.Helper()
	rep, err := audit.Verify(context.Background(), h.store)
	if err != nil {
		h.t.Fatal(err)
	}
	if !rep.Clean() {
		h.t.Fatalf("verify found %d differences: %+v", rep.Count, rep.Differences)
	}
}

// correctionBody is an adjustment of counter that names discrepancy; with
// a basis unless it adjusts on_hand, which takes none.
func correctionBody(sku, counter string, delta, discrepancy int64) string {
	basis := fmt.Sprintf(`,"basis":"counted the open orders of %s by hand"`, sku)
	if counter == stockd.CounterOnHand {
		basis = ""
	}
	return fmt.Sprintf(`{"sku":%q,"reason":"correction","counter":%q,"delta":%d,"discrepancy_id":%d%s}`, sku, counter, delta, discrepancy, basis)
}

// TestCounterCorrection: a reserved drift planted past the engine is found
// by the minute pass, corrected by an adjustment that waits for a second
// key whatever the threshold, applied as a reconciliation under the
// approval's id, and closed by a later pass; verify is clean after.
func TestCounterCorrection(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "R")
		h.minutePass()
		h.must("POST", "/v1/receipts", "r-receipt", `{"sku":"R","quantity":2}`, http.StatusOK, nil)
		h.plantCounters("R", stockd.Counters{OnHand: 12, Reserved: 5})
		h.minutePass()
		d := h.openDiscrepancy("R", stockd.DiscrepancyReservations)
		if d.Actual.Reserved != 5 || d.Expected.Reserved != 0 {
			t.Fatalf("discrepancy = %+v, want reserved 5 where the reservations hold 0", d)
		}
		// A threshold far above the correction: it waits all the same.
		h.must("PATCH", "/v1/skus/R", "r-threshold", `{"approval_threshold":1000}`, http.StatusOK, nil)

		// Anything but the drift recorded, -5: refused, nothing pending.
		h.mustAs("clerk", "POST", "/v1/adjustments", "r-too-far", correctionBody("R", "reserved", -6, d.ID), http.StatusConflict, nil).
			wantCode(t, stockd.CodeStaleQuantity)
		h.mustAs("clerk", "POST", "/v1/adjustments", "r-grow", correctionBody("R", "reserved", 2, d.ID), http.StatusConflict, nil).
			wantCode(t, stockd.CodeStaleQuantity)
		// Another kind of discrepancy at the position does not answer a
		// correction of reserved.
		last := h.openDiscrepancy("R", stockd.DiscrepancyLedgerLast)
		h.mustAs("clerk", "POST", "/v1/adjustments", "r-other-kind", correctionBody("R", "reserved", -5, last.ID), http.StatusUnprocessableEntity, nil).
			wantCode(t, stockd.CodeUnprocessable)
		h.must("POST", "/v1/reservations", "r-hold", `{"lines":[{"sku":"R","quantity":6}]}`, http.StatusCreated, nil)

		// The hold moved reserved and what the reservations hold alike: the
		// drift is still 5 over the 6 held, and correcting it leaves 6.
		before := h.position("R")
		var ap Approval
		h.mustAs("clerk", "POST", "/v1/adjustments", "r-correct", correctionBody("R", "reserved", -5, d.ID), http.StatusAccepted, &ap)
		if ap.Status != stockd.ApprovalPending || ap.Adjustment.Counter != stockd.CounterReserved || ap.Adjustment.Basis != "counted the open orders of R by hand" ||
			ap.Adjustment.DiscrepancyID != d.ID || ap.Adjustment.Delta == nil || *ap.Adjustment.Delta != -5 || ap.OnHandChange != 0 {
			t.Fatalf("approval = %+v, want pending, keeping the counter, the basis and the discrepancy", ap)
		}
		h.mustAs("clerk", "POST", "/v1/adjustments", "r-correct", correctionBody("R", "reserved", -5, d.ID), http.StatusAccepted, nil)
		if after := h.position("R"); after != before {
			t.Fatalf("position %+v after the request, want %+v: nothing changes before the approval", after, before)
		}
		var got Approval
		h.must("GET", "/v1/approvals/"+ap.ID, "", "", http.StatusOK, &got)
		if g, w := got.Adjustment, ap.Adjustment; g.Counter != w.Counter || g.Basis != w.Basis || g.DiscrepancyID != w.DiscrepancyID || *g.Delta != *w.Delta {
			t.Fatalf("stored approval %+v, want %+v", g, w)
		}
		h.mustAs("clerk", "POST", "/v1/approvals/"+ap.ID+"/approve", "r-self", "", http.StatusForbidden, nil).wantCode(t, stockd.CodeSelfApproval)
		h.mustAs("boss", "POST", "/v1/approvals/"+ap.ID+"/approve", "r-approve", "", http.StatusOK, &got)
		if got.Status != stockd.ApprovalApproved {
			t.Fatalf("approval = %+v, want approved", got)
		}
		if p := h.position("R"); p.OnHand != 12 || p.Reserved != 6 || p.Available != 6 {
			t.Fatalf("position = %+v, want on_hand 12, reserved 6 (the hold alone), available 6", p)
		}
		var ledger LedgerPage
		h.must("GET", "/v1/ledger?sku=R&type=reconciliation", "", "", http.StatusOK, &ledger)
		if len(ledger.Entries) != 1 {
			t.Fatalf("reconciliation entries = %+v, want 1", ledger.Entries)
		}
		if e := ledger.Entries[0]; e.BusinessID != ap.ID || e.Delta != (Counters{Reserved: -5}) || e.Actor != "clerk" || e.Approver != "boss" ||
			e.Reason != stockd.ReasonCorrection || e.Reference != fmt.Sprintf("discrepancy:%d", d.ID) {
			t.Fatalf("entry = %+v, want the approval's reconciliation of reserved -5", e)
		}

		h.clock.Advance(time.Minute)
		if res := h.minutePass(); !res.Clean() {
			t.Fatalf("pass after the correction = %+v, want clean", res)
		}
		var closed Discrepancy
		h.must("GET", fmt.Sprintf("/v1/discrepancies/%d", d.ID), "", "", http.StatusOK, &closed)
		if closed.Status != stockd.DiscrepancyClosed {
			t.Fatalf("discrepancy = %+v, want closed", closed)
		}
		var open DiscrepancyPage
		h.must("GET", "/v1/discrepancies?status=open&sku=R", "", "", http.StatusOK, &open)
		if len(open.Discrepancies) != 0 {
			t.Fatalf("open discrepancies = %+v, want none", open)
		}
		h.verifyClean()
	})
}

// TestCorrectionOfEachCounter: a drift of each counter is corrected by an
// adjustment of that counter; on_hand within the threshold applies at
// once, every other waits for a second key. One that would take the
// counter below zero is refused.
func TestCorrectionOfEachCounter(t *testing.T) {
	cases := []struct {
		counter string
		planted stockd.Counters // the drift on top of on_hand 12
		delta   int64
		kind    string // the discrepancy that answers it
	}{
		{stockd.CounterOnHand, stockd.Counters{OnHand: 3}, -3, stockd.DiscrepancyLedgerLast},
		{stockd.CounterReserved, stockd.Counters{Reserved: 4}, -4, stockd.DiscrepancyReservations},
		{stockd.CounterCommitted, stockd.Counters{Committed: 3}, -3, stockd.DiscrepancyReservations},
		{stockd.CounterQuarantined, stockd.Counters{Quarantined: 2}, -2, stockd.DiscrepancyLedgerLast},
		{stockd.CounterInTransit, stockd.Counters{InTransit: 6}, -6, stockd.DiscrepancyInbound},
		{stockd.CounterIncoming, stockd.Counters{Incoming: 7}, -7, stockd.DiscrepancyInbound},
	}
	if len(cases) != len(stockd.CorrectableCounters) {
		t.Fatalf("%d cases for %d counters", len(cases), len(stockd.CorrectableCounters))
	}
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		c := NewClient(h.url, fastRetries)
		for _, tc := range cases {
			h.seed(10, "C-"+tc.counter)
		}
		h.minutePass()
		for _, tc := range cases {
			sku := "C-" + tc.counter
			h.must("POST", "/v1/receipts", sku+"-receipt", `{"sku":"`+sku+`","quantity":2}`, http.StatusOK, nil)
			h.plantCounters(sku, stockd.Counters{OnHand: 12}.Add(tc.planted))
		}
		h.clock.Advance(time.Minute)
		h.minutePass()
		h.dayPass() // the inbound check is the day pass's alone
		for _, tc := range cases {
			t.Run(tc.counter, func(t *testing.T) {
				h.t = t
				sku := "C-" + tc.counter
				d := h.openDiscrepancy(sku, tc.kind)
				before := h.position(sku)
				code := stockd.CodeStaleQuantity // a correction is the drift recorded, nothing else
				if tc.counter == stockd.CounterOnHand {
					code = stockd.CodeInsufficientStock
				}
				h.mustAs("clerk", "POST", "/v1/adjustments", sku+"-below-zero", correctionBody(sku, tc.counter, tc.delta-13, d.ID), http.StatusConflict, nil).
					wantCode(t, code)
				basis := "recounted " + tc.counter
				if tc.counter == stockd.CounterOnHand {
					basis = ""
				}
				_, err := c.Adjust(context.Background(), AdjustParams{IdempotencyKey: sku + "-correct", SKU: sku, Reason: stockd.ReasonCorrection,
					Delta: tc.delta, DiscrepancyID: d.ID, Counter: tc.counter, Basis: basis})
				var pending *PendingApprovalError
				switch {
				case tc.counter == stockd.CounterOnHand:
					if err != nil {
						t.Fatalf("on_hand correction within the threshold: %v, want applied", err)
					}
				case errors.As(err, &pending):
					if pending.Approval.Adjustment.Counter != tc.counter {
						t.Fatalf("approval = %+v, want counter %s", pending.Approval, tc.counter)
					}
					if after := h.position(sku); after != before {
						t.Fatalf("position %+v before the approval, want %+v", after, before)
					}
					h.mustAs("boss", "POST", "/v1/approvals/"+pending.Approval.ID+"/approve", sku+"-approve", "", http.StatusOK, nil)
				default:
					t.Fatalf("correction of %s: %v, want a pending approval", tc.counter, err)
				}
				if p := h.position(sku); p != (Balance{OnHand: 12, Available: 12}) {
					t.Fatalf("position = %+v, want on_hand 12 and nothing else", p)
				}
			})
		}
		h.t = t
		h.clock.Advance(time.Minute)
		if res := h.minutePass(); !res.Clean() {
			t.Fatalf("pass after the corrections = %+v, want clean", res)
		}
		if res := h.dayPass(); !res.Clean() {
			t.Fatalf("day pass after the corrections = %+v, want clean", res)
		}
		var open DiscrepancyPage
		h.must("GET", "/v1/discrepancies?status=open", "", "", http.StatusOK, &open)
		if len(open.Discrepancies) != 0 {
			t.Fatalf("open discrepancies = %+v, want none", open)
		}
		h.verifyClean()
	})
}
