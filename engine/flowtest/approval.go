package flowtest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stockd/stockd"
)

func adjustCommand(sku string, delta int64) stockd.Command {
	return stockd.Command{Op: &stockd.Adjust{Position: stockd.PositionKey{SKU: sku}, Reason: stockd.ReasonCorrection, Delta: delta}}
}

func decision(id string, reject bool) stockd.Command {
	d := &stockd.ApprovalDecision{ID: id, Reject: reject}
	return stockd.Command{Op: d}
}

// requestApproval asks, as requester, for an adjustment of sku by delta
// that must wait for approval, and returns the approval.
func (h *Harness) requestApproval(requester, sku string, delta int64) stockd.Approval {
	h.T.Helper()
	cmd := adjustCommand(sku, delta)
	cmd.Actor = requester
	res := h.MustDo(cmd)
	if !res.Pending || res.Position != nil {
		h.T.Fatalf("adjustment by %d answered %+v, want pending", delta, res)
	}
	return object[stockd.Approval](h.T, res)
}

func (h *Harness) poolApprovalIs(id, status string) {
	h.T.Helper()
	d, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocApproval, ID: id})
	if err != nil {
		h.T.Fatal(err)
	}
	var ap stockd.Approval
	if err := json.Unmarshal(d.Body, &ap); err != nil || ap.Status != status {
		h.T.Fatalf("approval %s = %s (%v), want %s", id, d.Body, err, status)
	}
}

// testApproval: above the threshold nothing changes until another key
// approves; the entry names requester and approver; a repeat changes
// nothing.
func testApproval(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	// At the threshold: applied at once.
	h.MustDo(adjustCommand("a", stockd.ApprovalThresholdDefault))
	ap := h.requestApproval("clerk", "a", 150)
	if ap.Status != stockd.ApprovalPending || ap.RequestedBy != "clerk" || ap.OnHandChange != 150 || !ap.ExpiresAt.Equal(h.Clock.Now().Add(stockd.ApprovalTTL)) {
		t.Fatalf("approval = %+v", ap)
	}
	if c := h.Counters("a", "default"); c.OnHand != 110 {
		t.Fatalf("on_hand %d before approval, want 110", c.OnHand)
	}
	self := decision(ap.ID, false)
	self.Actor = "clerk"
	WantCode(t, h.Do(self), stockd.CodeSelfApproval)

	approve := decision(ap.ID, false)
	approve.Actor = "boss"
	got := object[stockd.Approval](t, h.MustDo(approve))
	if got.Status != stockd.ApprovalApproved || got.DecidedBy != "boss" || got.DecidedAt == nil {
		t.Fatalf("approved = %+v", got)
	}
	if c := h.Counters("a", "default"); c.OnHand != 260 {
		t.Fatalf("on_hand %d after approval, want 260", c.OnHand)
	}
	again := object[stockd.Approval](t, h.MustDo(approve))
	if again.Status != stockd.ApprovalApproved || h.Counters("a", "default").OnHand != 260 {
		t.Fatalf("second approval: %+v, on_hand %d", again, h.Counters("a", "default").OnHand)
	}
	var entry *stockd.LedgerEntry
	for _, e := range h.ledgerOf("a", stockd.BusinessAdjustment) {
		if e.BusinessID == ap.ID {
			if entry != nil {
				t.Fatal("two entries for one approval")
			}
			entry = &e
		}
	}
	if entry == nil || entry.Actor != "clerk" || entry.Approver != "boss" || entry.Reason != stockd.ReasonCorrection || entry.Delta.OnHand != 150 {
		t.Fatalf("ledger entry = %+v", entry)
	}
	reject := decision(ap.ID, true)
	reject.Actor = "boss"
	WantCode(t, h.Do(reject), stockd.CodeInvalidTransition)
	h.Verify()
}

// testApprovalRefusals: an approval the stock no longer allows stays
// pending; rejection is recorded; expiry is recorded and refused.
func testApprovalRefusals(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 300)
	ap := h.requestApproval("clerk", "a", -250)
	h.Reserve(line("a", 100))
	approve := decision(ap.ID, false)
	approve.Actor = "boss"
	WantCode(t, h.Do(approve), stockd.CodeInsufficientStock)
	h.poolApprovalIs(ap.ID, stockd.ApprovalPending)

	reject := decision(ap.ID, true)
	reject.Actor = "boss"
	if got := object[stockd.Approval](t, h.MustDo(reject)); got.Status != stockd.ApprovalRejected || got.DecidedBy != "boss" {
		t.Fatalf("rejected = %+v", got)
	}
	WantCode(t, h.Do(approve), stockd.CodeInvalidTransition)

	late := h.requestApproval("clerk", "a", 500)
	h.Clock.Advance(stockd.ApprovalTTL)
	approveLate := decision(late.ID, false)
	approveLate.Actor = "boss"
	WantCode(t, h.Do(approveLate), stockd.CodeInvalidTransition)
	h.poolApprovalIs(late.ID, stockd.ApprovalExpired)
	WantCode(t, h.Do(decision("nope", false)), stockd.CodeNotFound)
	if c := h.Counters("a", "default"); c.OnHand != 300 {
		t.Fatalf("on_hand %d, want 300: nothing was approved", c.OnHand)
	}
	h.Verify()
}

// testApprovalRace: two approvers at once apply the adjustment once.
func testApprovalRace(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	ap := h.requestApproval("clerk", "a", 500)
	results := h.raceCommands(2, func(i int) stockd.Command {
		c := decision(ap.ID, false)
		c.Actor = fmt.Sprintf("boss-%d", i)
		return c
	})
	if ok := countPassed(t, results); ok != 2 {
		t.Fatalf("%d approvals answered, want both (the second one the approved approval)", ok)
	}
	if c := h.Counters("a", "default"); c.OnHand != 510 {
		t.Fatalf("on_hand %d, want 510: applied once", c.OnHand)
	}
	if n := len(h.ledgerOf("a", stockd.BusinessAdjustment)); n != 1 {
		t.Fatalf("%d adjustment entries, want 1", n)
	}
	h.Verify()
}
