package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/reconcile"
)

// dayPass runs the reconciliation's day pass on the harness's store.
func (h *harness) dayPass() reconcile.Result {
	h.t.Helper()
	res, err := reconcile.New(reconcile.Config{Store: h.store, Now: h.clock.Now, Logger: discard()}).Day(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

// TestCorrectionTwiceDoesNotHalt: a reserved drift of 3 over a pending
// hold of 4, and two corrections of reserved -3 naming the same
// discrepancy. Before corrections claimed their discrepancy both were
// approved, reserved fell to 1 under the 4 the hold keeps, and the hold's
// release broke an invariant: the engine halted for every caller. Now the
// second approval is refused and the release applies.
func TestCorrectionTwiceDoesNotHalt(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "H")
		h.minutePass()
		var hold Reservation
		h.must("POST", "/v1/reservations", "h-hold", `{"lines":[{"sku":"H","quantity":4}]}`, http.StatusCreated, &hold)
		h.plantCounters("H", stockd.Counters{OnHand: 10, Reserved: 7})
		h.minutePass()
		d := h.openDiscrepancy("H", stockd.DiscrepancyReservations)

		var first, second Approval
		h.mustAs("clerk", "POST", "/v1/adjustments", "h-fix-1", correctionBody("H", "reserved", -3, d.ID), http.StatusAccepted, &first)
		h.mustAs("clerk", "POST", "/v1/adjustments", "h-fix-2", correctionBody("H", "reserved", -3, d.ID), http.StatusAccepted, &second)
		h.mustAs("boss", "POST", "/v1/approvals/"+first.ID+"/approve", "h-approve-1", "", http.StatusOK, nil)
		h.mustAs("boss", "POST", "/v1/approvals/"+second.ID+"/approve", "h-approve-2", "", http.StatusConflict, nil).
			wantCode(t, stockd.CodeDuplicateReference)
		if p := h.position("H"); p.OnHand != 10 || p.Reserved != 4 {
			t.Fatalf("position = %+v, want on_hand 10 and reserved 4, what the hold keeps", p)
		}
		h.must("POST", "/v1/reservations/"+hold.ID+"/release", "h-release", `{"reason":"other"}`, http.StatusOK, nil)
		h.must("GET", "/v1/approvals/"+second.ID, "", "", http.StatusOK, &second)
		if second.Status != stockd.ApprovalPending {
			t.Fatalf("refused approval = %+v, want still pending, for a rejection", second)
		}
		h.verifyClean()
	})
}

// TestCorrectionCannotUndercutHolders: for each counter open reservations
// hold, a drift of 3 over a hold of 4 and two corrections of it approved
// at once: exactly one applies, the other is refused duplicate_reference,
// a correction requested after the counter came back to the value the
// pass saw is refused too, and what the holds do next (a confirm, a
// fulfil) applies instead of halting the engine.
func TestCorrectionCannotUndercutHolders(t *testing.T) {
	cases := []struct {
		counter string
		confirm bool            // the hold is confirmed before the drift
		planted stockd.Counters // the snapshot the drift leaves
		settle  []string        // what the hold does after the corrections
	}{
		{stockd.CounterReserved, false, stockd.Counters{OnHand: 10, Reserved: 7}, []string{"confirm", "fulfil"}},
		{stockd.CounterCommitted, true, stockd.Counters{OnHand: 10, Committed: 7}, []string{"fulfil"}},
	}
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		for i, tc := range cases {
			t.Run(fmt.Sprintf("%s-%s", tc.counter, strings.Join(tc.settle, "-")), func(t *testing.T) {
				h := newHarness(t, b)
				sku := fmt.Sprintf("U%d", i)
				h.seed(10, sku)
				h.minutePass()
				var hold Reservation
				h.must("POST", "/v1/reservations", "hold", `{"lines":[{"sku":"`+sku+`","quantity":4}]}`, http.StatusCreated, &hold)
				if tc.confirm {
					h.must("POST", "/v1/reservations/"+hold.ID+"/confirm", "hold-confirm", "", http.StatusOK, nil)
				}
				h.plantCounters(sku, tc.planted)
				h.clock.Advance(time.Minute)
				h.minutePass()
				d := h.openDiscrepancy(sku, stockd.DiscrepancyReservations)

				var first, second Approval
				h.mustAs("clerk", "POST", "/v1/adjustments", "fix-1", correctionBody(sku, tc.counter, -3, d.ID), http.StatusAccepted, &first)
				h.mustAs("clerk", "POST", "/v1/adjustments", "fix-2", correctionBody(sku, tc.counter, -3, d.ID), http.StatusAccepted, &second)
				answers := make([]answer, 2)
				errs := make([]error, 2)
				var wg sync.WaitGroup
				for j, id := range []string{first.ID, second.ID} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						answers[j], errs[j] = h.trySend("POST", "/v1/approvals/"+id+"/approve", nil, as("boss", fmt.Sprintf("approve-%d", j)))
					}()
				}
				wg.Wait()
				var applied, refused int
				for j, a := range answers {
					switch {
					case errs[j] != nil:
						t.Fatal(errs[j])
					case a.status == http.StatusOK:
						applied++
					case a.status == http.StatusConflict:
						a.wantCode(t, stockd.CodeDuplicateReference)
						refused++
					default:
						t.Fatalf("approval answered %d: %s", a.status, a.body)
					}
				}
				if applied != 1 || refused != 1 {
					t.Fatalf("%d approvals applied and %d refused, want one of each", applied, refused)
				}
				held := stockd.Counters{OnHand: 10, Reserved: 4}
				if tc.confirm {
					held = stockd.Counters{OnHand: 10, Committed: 4}
				}
				if p := h.position(sku); p.OnHand != held.OnHand || p.Reserved != held.Reserved || p.Committed != held.Committed {
					t.Fatalf("position = %+v, want %+v, what the hold keeps", p, held)
				}

				if !tc.confirm {
					// Another hold takes reserved back to the 7 the pass saw:
					// the discrepancy still says 7 over 4, and is corrected
					// already all the same.
					h.must("POST", "/v1/reservations", "hold-more", `{"lines":[{"sku":"`+sku+`","quantity":3}]}`, http.StatusCreated, nil)
					h.mustAs("clerk", "POST", "/v1/adjustments", "fix-3", correctionBody(sku, tc.counter, -3, d.ID), http.StatusConflict, nil).
						wantCode(t, stockd.CodeDuplicateReference)
				}
				for _, step := range tc.settle {
					body := ""
					switch step {
					case "release":
						body = `{"reason":"other"}`
					case "fulfil":
						body = "{}"
					}
					h.must("POST", "/v1/reservations/"+hold.ID+"/"+step, "hold-"+step, body, http.StatusOK, nil)
				}
				h.verifyClean()
			})
		}
	})
}

// TestCorrectionDecidedAgainstTheDriftNow: a correction requested for a
// drift of 3 is refused stale_quantity at approval once a later pass
// records a drift of 5, and stays pending for a rejection; a correction of
// the 5 applies.
func TestCorrectionDecidedAgainstTheDriftNow(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "S")
		h.minutePass()
		h.must("POST", "/v1/reservations", "s-hold", `{"lines":[{"sku":"S","quantity":4}]}`, http.StatusCreated, nil)
		h.plantCounters("S", stockd.Counters{OnHand: 10, Reserved: 7})
		h.minutePass()
		d := h.openDiscrepancy("S", stockd.DiscrepancyReservations)
		var stale Approval
		h.mustAs("clerk", "POST", "/v1/adjustments", "s-fix-3", correctionBody("S", "reserved", -3, d.ID), http.StatusAccepted, &stale)

		h.must("POST", "/v1/receipts", "s-receipt", `{"sku":"S","quantity":1}`, http.StatusOK, nil)
		h.plantCounters("S", stockd.Counters{OnHand: 11, Reserved: 9})
		h.clock.Advance(time.Minute)
		h.minutePass()
		if now := h.openDiscrepancy("S", stockd.DiscrepancyReservations); now.ID != d.ID || now.Actual.Reserved != 9 || now.Expected.Reserved != 4 {
			t.Fatalf("discrepancy = %+v, want %d refreshed to reserved 9 over 4", now, d.ID)
		}
		h.mustAs("boss", "POST", "/v1/approvals/"+stale.ID+"/approve", "s-approve-3", "", http.StatusConflict, nil).
			wantCode(t, stockd.CodeStaleQuantity)
		h.must("GET", "/v1/approvals/"+stale.ID, "", "", http.StatusOK, &stale)
		if stale.Status != stockd.ApprovalPending {
			t.Fatalf("approval = %+v, want pending", stale)
		}
		h.mustAs("boss", "POST", "/v1/approvals/"+stale.ID+"/reject", "s-reject-3", "", http.StatusOK, nil)

		var fix Approval
		h.mustAs("clerk", "POST", "/v1/adjustments", "s-fix-5", correctionBody("S", "reserved", -5, d.ID), http.StatusAccepted, &fix)
		h.mustAs("boss", "POST", "/v1/approvals/"+fix.ID+"/approve", "s-approve-5", "", http.StatusOK, nil)
		if p := h.position("S"); p.OnHand != 11 || p.Reserved != 4 {
			t.Fatalf("position = %+v, want on_hand 11, reserved 4", p)
		}
		h.verifyClean()
	})
}
