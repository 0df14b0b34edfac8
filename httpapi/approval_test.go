package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// exerciseApproval is exercisePools' step of approvals: above the
// threshold of 10, an adjustment waits. It returns the approval it
// approved and the one it rejected.
func exerciseApproval(h *harness) (pending, other Approval) {
	t := h.t
	t.Helper()
	var stock Stock
	h.mustAs("clerk", "POST", "/v1/adjustments", "pools-adjust", `{"sku":"PA","location":"PL","reason":"found","delta":11}`, http.StatusAccepted, &pending)
	if pending.Status != stockd.ApprovalPending || pending.RequestedBy != "clerk" || pending.OnHandChange != 11 {
		t.Fatalf("pending = %+v", pending)
	}
	h.mustAs("clerk", "POST", "/v1/adjustments", "pools-adjust", `{"sku":"PA","location":"PL","reason":"found","delta":11}`, http.StatusAccepted, nil)
	h.mustAs("clerk", "POST", "/v1/adjustments", "pools-adjust-2", `{"sku":"PA","location":"PL","reason":"loss","delta":-20}`, http.StatusAccepted, &other)
	var list ApprovalList
	h.must("GET", "/v1/approvals?status=pending", "", "", http.StatusOK, &list)
	if len(list.Approvals) < 2 {
		t.Fatalf("pending approvals = %+v, want both", list)
	}
	h.must("GET", "/v1/approvals?status=maybe", "", "", http.StatusBadRequest, nil)
	h.must("GET", "/v1/approvals/"+pending.ID, "", "", http.StatusOK, nil)
	h.must("GET", "/v1/approvals/nope", "", "", http.StatusNotFound, nil)
	h.must("GET", "/v1/approvals/a%3Bb", "", "", http.StatusBadRequest, nil)

	approve := "/v1/approvals/" + pending.ID + "/approve"
	h.mustAs("clerk", "POST", approve, "pools-self", "", http.StatusForbidden, nil).wantCode(t, stockd.CodeSelfApproval)
	var approved Approval
	h.mustAs("boss", "POST", approve, "pools-approve", "", http.StatusOK, &approved)
	if approved.Status != stockd.ApprovalApproved || approved.DecidedBy != "boss" {
		t.Fatalf("approved = %+v", approved)
	}
	h.mustAs("boss", "POST", approve, "pools-approve-again", "{}", http.StatusOK, nil)
	h.mustAs("boss", "POST", "/v1/approvals/nope/approve", "pools-approve-nope", "", http.StatusNotFound, nil)
	h.mustAs("boss", "POST", "/v1/approvals/a%3Bb/approve", "pools-approve-bad", "", http.StatusBadRequest, nil)
	reject := "/v1/approvals/" + other.ID + "/reject"
	// Hold 45 of the 50 + 11 on hand: taking 20 away no longer fits.
	h.must("POST", "/v1/reservations", "pools-hold-2", `{"lines":[{"sku":"PA","location":"PL","quantity":45}]}`, http.StatusCreated, nil)
	h.mustAs("boss", "POST", "/v1/approvals/"+other.ID+"/approve", "pools-approve-short", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInsufficientStock)
	h.mustAs("boss", "POST", reject, "pools-reject", "", http.StatusOK, nil)
	h.mustAs("boss", "POST", reject, "pools-reject-again", "", http.StatusOK, nil)
	h.mustAs("boss", "POST", "/v1/approvals/"+pending.ID+"/reject", "pools-reject-approved", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInvalidTransition)
	h.mustAs("boss", "POST", "/v1/approvals/"+other.ID+"/approve", "pools-approve-rejected", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInvalidTransition)
	h.mustAs("boss", "POST", "/v1/approvals/nope/reject", "pools-reject-nope", "", http.StatusNotFound, nil)
	h.mustAs("boss", "POST", "/v1/approvals/a%3Bb/reject", "pools-reject-bad", "", http.StatusBadRequest, nil)
	h.must("GET", "/v1/stock/PA", "", "", http.StatusOK, &stock)
	if stock.Totals.OnHand != 61 {
		t.Fatalf("on_hand %d, want 50 + 11 (approved) and not -20 (rejected)", stock.Totals.OnHand)
	}
	return pending, other
}

// TestApprovalExpires: a decision after expires_at marks the approval
// expired and is refused.
func TestApprovalExpires(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(0, "A")
		var ap Approval
		h.mustAs("clerk", "POST", "/v1/adjustments", "big", `{"sku":"A","reason":"found","delta":500}`, http.StatusAccepted, &ap)
		h.clock.Advance(stockd.ApprovalTTL)
		h.mustAs("boss", "POST", "/v1/approvals/"+ap.ID+"/approve", "late", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInvalidTransition)
		h.must("GET", "/v1/approvals/"+ap.ID, "", "", http.StatusOK, &ap)
		if ap.Status != stockd.ApprovalExpired || ap.DecidedAt == nil {
			t.Fatalf("approval = %+v, want expired", ap)
		}
		var list ApprovalList
		h.must("GET", "/v1/approvals?status=pending", "", "", http.StatusOK, &list)
		if len(list.Approvals) != 0 {
			t.Fatalf("pending = %+v, want none", list)
		}
	})
}

// TestApprovalKeys: with API keys, the requester is the key; its own
// approve-scoped key cannot approve, another can; an approve key is needed.
func TestApprovalKeys(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		clerkKey, clerk := h.storeKey("clerk", stockd.ScopeStock, stockd.ScopeApprove)
		bossKey, boss := h.storeKey("boss", stockd.ScopeApprove, stockd.ScopeRead)
		var ap Approval
		a := h.expect("POST", "/v1/adjustments", `{"sku":"A","reason":"found","delta":101}`, http.StatusAccepted, bearer(clerk, headerIdempotencyKey, "big"))
		if err := json.Unmarshal(a.body, &ap); err != nil {
			t.Fatal(err)
		}
		path := "/v1/approvals/" + ap.ID + "/approve"
		h.expect("POST", path, "", http.StatusForbidden, bearer(clerk, headerIdempotencyKey, "self")).wantCode(t, stockd.CodeSelfApproval)
		// Naming another actor does not make the same key someone else.
		h.expect("POST", path, "", http.StatusForbidden, bearer(clerk, headerIdempotencyKey, "self-as-boss", headerActor, "boss")).wantCode(t, stockd.CodeSelfApproval)
		var masked Approval
		a = h.expect("POST", "/v1/adjustments", `{"sku":"A","reason":"found","delta":102}`, http.StatusAccepted, bearer(clerk, headerIdempotencyKey, "big-masked", headerActor, "bob"))
		if err := json.Unmarshal(a.body, &masked); err != nil {
			t.Fatal(err)
		}
		h.expect("POST", "/v1/approvals/"+masked.ID+"/approve", "", http.StatusForbidden, bearer(clerk, headerIdempotencyKey, "self-unmasked")).wantCode(t, stockd.CodeSelfApproval)
		h.expect("POST", path, "", http.StatusOK, bearer(boss, headerIdempotencyKey, "ok"))
		var page LedgerPage
		a = h.expect("GET", "/v1/ledger?sku=A", "", http.StatusOK, bearer(boss))
		if err := json.Unmarshal(a.body, &page); err != nil {
			t.Fatal(err)
		}
		e := page.Entries[len(page.Entries)-1]
		if e.Type != stockd.BusinessAdjustment || e.BusinessID != ap.ID || e.Actor != clerkKey.ID || e.Approver != bossKey.ID || e.Reason != stockd.ReasonFound {
			t.Fatalf("ledger entry = %+v, want the adjustment by %s approved by %s", e, clerkKey.ID, bossKey.ID)
		}
	})
}

// TestApprovalRaceHTTP: two approvers approving one pending adjustment at
// once apply it once.
func TestApprovalRaceHTTP(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		var ap Approval
		h.mustAs("clerk", "POST", "/v1/adjustments", "big", `{"sku":"A","reason":"found","delta":500}`, http.StatusAccepted, &ap)
		var wg sync.WaitGroup
		statuses := make([]int, 8)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := h.trySend("POST", "/v1/approvals/"+ap.ID+"/approve", nil, as(fmt.Sprintf("boss-%d", i), fmt.Sprintf("approve-%d", i)))
				if err == nil {
					statuses[i] = a.status
				}
			}()
		}
		wg.Wait()
		for i, s := range statuses {
			if s != http.StatusOK {
				t.Errorf("approval %d: status %d, want 200", i, s)
			}
		}
		var stock Stock
		h.must("GET", "/v1/stock/A", "", "", http.StatusOK, &stock)
		if stock.Totals.OnHand != 510 {
			t.Fatalf("on_hand %d, want 510: the adjustment applied once", stock.Totals.OnHand)
		}
	})
}
