package httpapi

import (
	"errors"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// TestClientAdjustPending: an adjustment beyond the threshold comes back
// from Client.Adjust as a *PendingApprovalError holding the approval, not
// as an empty position; a retry with the key answers the same approval;
// once another actor approves, the stock shows the change, and one within
// the threshold still returns the position.
func TestClientAdjustPending(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		ctx := t.Context()
		clerk := NewClient(h.url, fastRetries, WithActor("clerk"))
		boss := NewClient(h.url, fastRetries, WithActor("boss"))
		if _, err := clerk.CreateSKU(ctx, CreateSKUParams{SKU: "A", ApprovalThreshold: 5}); err != nil {
			t.Fatal(err)
		}
		if _, err := clerk.Receive(ctx, ReceiveParams{SKU: "A", Quantity: 10}); err != nil {
			t.Fatal(err)
		}

		params := AdjustParams{IdempotencyKey: "big", SKU: "A", Reason: stockd.ReasonFound, Delta: 6}
		pos, err := clerk.Adjust(ctx, params)
		var pending *PendingApprovalError
		if !errors.As(err, &pending) || !errors.Is(err, ErrPendingApproval) || pos != (Position{}) {
			t.Fatalf("Adjust beyond the threshold: %+v, %v; want a pending approval error", pos, err)
		}
		ap := pending.Approval
		if ap.ID == "" || ap.Status != stockd.ApprovalPending || ap.RequestedBy != "clerk" || ap.OnHandChange != 6 ||
			ap.Adjustment.SKU != "A" || ap.Adjustment.Delta == nil || *ap.Adjustment.Delta != 6 {
			t.Fatalf("pending approval = %+v", ap)
		}
		var coded *stockd.Error
		if errors.As(err, &coded) {
			t.Fatalf("a pending approval is no refusal, got code %s", coded.Code)
		}
		_, err = clerk.Adjust(ctx, params)
		if !errors.As(err, &pending) || pending.Approval.ID != ap.ID {
			t.Fatalf("Adjust again with the key: %v; want the same approval %s", err, ap.ID)
		}
		if stock, err := boss.Stock(ctx, "A"); err != nil || stock.Positions[0].OnHand != 10 {
			t.Fatalf("stock while pending: %+v, %v; want on_hand 10", stock, err)
		}

		if got, err := boss.Approve(ctx, "", ap.ID); err != nil || got.Status != stockd.ApprovalApproved {
			t.Fatalf("approve: %+v, %v", got, err)
		}
		if stock, err := boss.Stock(ctx, "A"); err != nil || stock.Positions[0].OnHand != 16 {
			t.Fatalf("stock after approval: %+v, %v; want on_hand 16", stock, err)
		}
		small, err := clerk.Adjust(ctx, AdjustParams{SKU: "A", Reason: stockd.ReasonDamage, Delta: -5})
		if err != nil || small.OnHand != 11 || small.SKU != "A" {
			t.Fatalf("Adjust within the threshold: %+v, %v; want on_hand 11", small, err)
		}
	})
}
